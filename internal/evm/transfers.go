package evm

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// AssetTransfer is an amount of an asset that a transaction moves, by the asset's CAIP-19 id: the chain's native coin
// (eip155:<chain>/slip44:60) or an ERC-20 token (eip155:<chain>/erc20:<address in lower case>). Solana's are keyed
// the same way (see the coordinator's controls).
type AssetTransfer struct {
	Asset  string
	Amount *big.Int // in the asset's base units
}

// Moves is what an activity may move of the assets velocity controls measure: the amounts it transfers, and the
// assets it may move by amounts that cannot be read from it. A control that measures an asset an activity may move
// unmeasured cannot say whether the activity passes it: it fails closed.
type Moves struct {
	Transfers  []AssetTransfer
	Unmeasured []Unmeasured
}

// Unmeasured is an asset (by its key, as AssetTransfer's) an activity may move by an amount that cannot be read, or
// with Prefix every asset whose key starts with Asset (every asset of a chain), and why.
type Unmeasured struct {
	Asset  string
	Prefix bool
	Reason string
}

// Covers reports whether u may move the asset of this key.
func (u Unmeasured) Covers(asset string) bool {
	if u.Prefix {
		return strings.HasPrefix(asset, u.Asset)
	}
	return asset == u.Asset
}

// Add appends what o moves.
func (m *Moves) Add(o Moves) {
	m.Transfers = append(m.Transfers, o.Transfers...)
	m.Unmeasured = append(m.Unmeasured, o.Unmeasured...)
}

// The selectors whose calls move tokens, or let them be moved, and where their amount is: Solidity's decoder reads a
// call's arguments from the start of its calldata and ignores bytes after them, so a call moves its amount whatever
// follows (and a call too short for its arguments reverts, but a token not written in Solidity may not check: it is
// not measured).
var (
	selTransfer          = []byte{0xa9, 0x05, 0x9c, 0xbb} // transfer(address,uint256)
	selTransferFrom      = []byte{0x23, 0xb8, 0x72, 0xdd} // transferFrom(address,address,uint256)
	selApprove           = []byte{0x09, 0x5e, 0xa7, 0xb3} // approve(address,uint256)
	selIncreaseAllowance = []byte{0x39, 0x50, 0x93, 0x51} // increaseAllowance(address,uint256)
	selDecreaseAllowance = []byte{0xa4, 0x57, 0xc2, 0xd7} // decreaseAllowance(address,uint256): moves nothing
	// selExecute is the batch delegate's execute((address,uint256,bytes)[]) (internal/contracts/src/BatchDelegate.sol):
	// an account delegating to it that calls itself runs the calls, from itself.
	selExecute = crypto.Keccak256([]byte("execute((address,uint256,bytes)[])"))[:4]
)

// erc20Calls are the token calls whose amount is measured: the index of the amount's word among the arguments
// (after which the calldata may hold anything), and whether the call moves anything at all.
var erc20Calls = []struct {
	selector []byte
	amount   int // the amount's word; the call needs at least amount+1 words
	moves    bool
}{
	{selTransfer, 1, true},
	{selTransferFrom, 2, true},
	{selApprove, 1, true},
	{selIncreaseAllowance, 1, true},
	{selDecreaseAllowance, 1, false},
}

// maxBatchDepth bounds how deep batches of an account calling itself are read.
const maxBatchDepth = 4

// Transfers lists what a transaction moves that can be read from it (Moves' transfers).
func (u *UnsignedTx) Transfers() []AssetTransfer { return u.Moves(common.Address{}).Transfers }

// Moves is what a transaction sent by from moves: its native value, the amount of an ERC-20 transfer, transferFrom,
// approve or increaseAllowance it calls (of the token it calls), and, when from calls itself through the batch
// delegate (EIP-7702), what each of the batch's calls moves. A call of any other function of a contract may move that
// contract's token unmeasured; an account calling itself with other calldata, or a transaction that delegates
// accounts to code (type 4), may move any asset of the chain. A transaction without a chain id moves nothing
// countable by chain, and lists nothing.
func (u *UnsignedTx) Moves(from common.Address) Moves {
	tx := u.tx
	chain := tx.ChainId()
	if chain == nil || chain.Sign() == 0 {
		return Moves{}
	}
	prefix := ChainAssetPrefix(chain)
	m := CallMoves(chain, from, tx.To(), tx.Value(), tx.Data())
	for _, a := range tx.SetCodeAuthorizations() {
		if a.Address != (common.Address{}) {
			m.Unmeasured = append(m.Unmeasured, Unmeasured{Asset: prefix, Prefix: true,
				Reason: fmt.Sprintf("the transaction delegates an account to the code at %s (EIP-7702), which may move any of its assets", strings.ToLower(a.Address.Hex()))})
		}
	}
	return m
}

// ChainAssetPrefix is what the keys of every asset of an EVM chain begin with.
func ChainAssetPrefix(chain *big.Int) string { return "eip155:" + chain.String() + "/" }

// CallMoves is what one call from an account moves on a chain (see UnsignedTx.Moves).
func CallMoves(chain *big.Int, from common.Address, to *common.Address, value *big.Int, data []byte) Moves {
	var m Moves
	callMoves(&m, ChainAssetPrefix(chain), from, to, value, data, 0, "")
	return m
}

func callMoves(m *Moves, prefix string, from common.Address, to *common.Address, value *big.Int, data []byte, depth int, where string) {
	if value != nil && value.Sign() > 0 {
		m.Transfers = append(m.Transfers, AssetTransfer{Asset: prefix + "slip44:60", Amount: new(big.Int).Set(value)})
	}
	if to == nil || len(data) == 0 {
		return // a contract creation's code, or a plain payment: nothing but the value
	}
	if *to == from && from != (common.Address{}) {
		selfCallMoves(m, prefix, from, data, depth, where)
		return
	}
	token := prefix + "erc20:" + lowerAddress(*to)
	for _, c := range erc20Calls {
		if len(data) < 4 || !bytes.Equal(data[:4], c.selector) {
			continue
		}
		if len(data) < 4+32*(c.amount+1) {
			m.Unmeasured = append(m.Unmeasured, Unmeasured{Asset: token,
				Reason: fmt.Sprintf("%sa call of %s with calldata too short for its arguments (%d bytes)", where, lowerAddress(*to), len(data))})
			return
		}
		if c.moves {
			start := 4 + 32*c.amount
			m.Transfers = append(m.Transfers, AssetTransfer{Asset: token, Amount: new(big.Int).SetBytes(data[start : start+32])})
		}
		return
	}
	m.Unmeasured = append(m.Unmeasured, Unmeasured{Asset: token,
		Reason: fmt.Sprintf("%sa call of %s (selector 0x%x) that is not an ERC-20 transfer, transferFrom or approve", where, lowerAddress(*to), data[:min(4, len(data))])})
}

// selfCallMoves reads an account's call to itself: the batch delegate's execute(calls) moves what its calls move;
// any other calldata runs whatever code the account delegates to.
func selfCallMoves(m *Moves, prefix string, from common.Address, data []byte, depth int, where string) {
	account := lowerAddress(from)
	if len(data) < 4 || !bytes.Equal(data[:4], selExecute) {
		m.Unmeasured = append(m.Unmeasured, Unmeasured{Asset: prefix, Prefix: true,
			Reason: fmt.Sprintf("%s%s calls itself with calldata that is not the batch delegate's execute(calls): the code it delegates to may move any of its assets", where, account)})
		return
	}
	if depth >= maxBatchDepth {
		m.Unmeasured = append(m.Unmeasured, Unmeasured{Asset: prefix, Prefix: true,
			Reason: fmt.Sprintf("%sbatches of %s nested more than %d deep", where, account, maxBatchDepth)})
		return
	}
	calls, err := DecodeBatch(data[4:])
	if err != nil {
		m.Unmeasured = append(m.Unmeasured, Unmeasured{Asset: prefix, Prefix: true,
			Reason: fmt.Sprintf("%s%s calls itself with a batch that does not decode: %v", where, account, err)})
		return
	}
	for i, c := range calls {
		to := c.To
		callMoves(m, prefix, from, &to, c.Value, c.Data, depth+1, fmt.Sprintf("%sbatch call %d: ", where, i))
	}
}

// lowerAddress is an address in lower-case hex with 0x, as asset keys hold it (without the checksum's hash).
func lowerAddress(a common.Address) string { return "0x" + hex.EncodeToString(a[:]) }

// BatchCall is one call of a batch delegate's execute(calls).
type BatchCall struct {
	To    common.Address
	Value *big.Int
	Data  []byte
}

// maxBatchCalls bounds the calls a batch is read with: each takes at least 32 bytes of calldata, so no real batch
// has more than its calldata allows.
const maxBatchCalls = 1 << 16

// DecodeBatch reads the arguments of execute((address,uint256,bytes)[]) as Solidity's decoder does: every offset and
// length within the calldata (which it checks before anything is allocated), bytes after the arguments ignored.
func DecodeBatch(args []byte) ([]BatchCall, error) {
	head, err := abiOffset(args, 0, 0)
	if err != nil {
		return nil, fmt.Errorf("the calls' offset: %w", err)
	}
	n, err := abiWord(args, head)
	if err != nil {
		return nil, fmt.Errorf("the number of calls: %w", err)
	}
	base := head + 32
	if n > maxBatchCalls || n*32 > uint64(len(args)-base) {
		return nil, fmt.Errorf("%d calls do not fit in %d bytes of calldata", n, len(args))
	}
	calls := make([]BatchCall, n)
	for i := range calls {
		at, err := abiOffset(args, base, base+32*i)
		if err != nil {
			return nil, fmt.Errorf("call %d's offset: %w", i, err)
		}
		if len(args) < at+96 {
			return nil, fmt.Errorf("call %d is cut short", i)
		}
		if !allZero(args[at : at+12]) { // Solidity's decoder refuses it too
			return nil, fmt.Errorf("call %d's address has bits above its 160", i)
		}
		data, err := abiOffset(args, at, at+64)
		if err != nil {
			return nil, fmt.Errorf("call %d's data offset: %w", i, err)
		}
		length, err := abiWord(args, data)
		if err != nil || length > uint64(len(args)-data-32) {
			return nil, fmt.Errorf("call %d's data does not fit in the calldata", i)
		}
		calls[i] = BatchCall{To: common.BytesToAddress(args[at+12 : at+32]), Value: new(big.Int).SetBytes(args[at+32 : at+64]),
			Data: bytes.Clone(args[data+32 : data+32+int(length)])}
	}
	return calls, nil
}

// abiWord reads the word at an offset of b as an integer, failing when it is not within b or above 2^64.
func abiWord(b []byte, at int) (uint64, error) {
	if at < 0 || at+32 > len(b) {
		return 0, fmt.Errorf("a word at byte %d is past the %d bytes of calldata", at, len(b))
	}
	if !allZero(b[at : at+24]) {
		return 0, fmt.Errorf("the word at byte %d is too large", at)
	}
	return binary.BigEndian.Uint64(b[at+24 : at+32]), nil
}

// abiOffset reads the offset in the word at `at`, relative to base, as a position in b.
func abiOffset(b []byte, base, at int) (int, error) {
	off, err := abiWord(b, at)
	if err != nil {
		return 0, err
	}
	if off > uint64(len(b)) || base+int(off)+32 > len(b) {
		return 0, fmt.Errorf("offset %d is past the %d bytes of calldata", off, len(b))
	}
	return base + int(off), nil
}

func allZero(b []byte) bool {
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
}
