package mcp

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/common/math"

	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/abis"
	"github.com/sigil/sigil/internal/evm"
	"github.com/sigil/sigil/internal/units"
)

// evmTx is an unsigned EVM transaction as the tools take it: the yield service's JSON, or the unsigned serialization
// in hex. Unsigned is what SIGN_TRANSACTION_V2 signs (hex, no 0x); the other fields are read back from it, so that what
// Sigil describes is what gets signed.
type evmTx struct {
	From     string // the JSON's "from", when it has one
	To       *common.Address
	Data     []byte
	Value    *big.Int
	ChainID  int64
	Gas      uint64
	Unsigned string
}

// parseUnsignedTx reads an unsignedTransaction argument.
func parseUnsignedTx(arg, s string) (*evmTx, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, argError(arg, "is empty: give the unsignedTransaction an action returned (its JSON string) or an unsigned transaction in hex")
	}
	tx := &evmTx{}
	unsigned := s
	if strings.HasPrefix(s, "{") {
		var head struct {
			From string `json:"from"`
		}
		if err := json.Unmarshal([]byte(s), &head); err != nil {
			return nil, argError(arg, "is not valid JSON: %v", err)
		}
		var err error
		if unsigned, err = client.UnsignedTransaction(s); err != nil {
			return nil, argError(arg, "%v", strings.TrimPrefix(err.Error(), "unsigned transaction: "))
		}
		tx.From = head.From
	}
	u, err := evm.DecodeUnsignedTransaction(unsigned)
	if err != nil {
		return nil, argError(arg, "%v", err)
	}
	t := u.Transaction()
	tx.To, tx.Data, tx.Value, tx.Gas = t.To(), t.Data(), t.Value(), t.Gas()
	if id := t.ChainId(); id != nil && id.IsInt64() {
		tx.ChainID = id.Int64()
	}
	if tx.ChainID == 0 {
		return nil, argError(arg, "has no chain id: Sigil signs only transactions bound to one chain (EIP-155)")
	}
	tx.Unsigned = strings.TrimPrefix(strings.ToLower(unsigned), "0x")
	return tx, nil
}

// effect is what one transaction does, decoded by Sigil from its bytes: the contract, the function and its arguments,
// and each amount with its token.
type effect struct {
	Step        *int           `json:"step,omitempty"`
	Type        string         `json:"type,omitempty"` // the yield service's step type: APPROVAL, DEPOSIT, ...
	ChainID     int64          `json:"chainId"`
	From        string         `json:"from,omitempty"`
	Contract    string         `json:"contract"`
	Function    string         `json:"function"`
	Arguments   map[string]any `json:"arguments,omitempty"`
	Value       *amount        `json:"value,omitempty"`
	Amounts     []amount       `json:"amounts,omitempty"`
	Description string         `json:"description"`
}

// amount is an exact amount: base units, and token units when the token's decimals are known.
type amount struct {
	Role      string `json:"role"` // allowance, deposit, shares, transfer, supply, withdrawal, stake, unstake, value, payout
	Amount    string `json:"amount,omitempty"`
	AmountRaw string `json:"amountRaw"`
	Token     string `json:"token"` // the token's address, or "native"
	Symbol    string `json:"symbol,omitempty"`
	Decimals  *uint8 `json:"decimals,omitempty"`
	// DecimalsFrom says where the decimals came from: "chain" (the token's contract), "yield service" (its metadata)
	// or "native" (18, the coin's); absent when unknown, and Amount is then absent too.
	DecimalsFrom string `json:"decimalsFrom,omitempty"`
	Unlimited    bool   `json:"unlimited,omitempty"` // the largest uint256: an unlimited allowance, or "all"
}

// text is the amount in Sigil's words: "100 USDC", "100 tokens of 0x…", "all of …".
func (a amount) text() string {
	name := a.Symbol
	if a.Token == "native" {
		name = "of the native coin"
	}
	if name == "" {
		name = "of token " + a.Token
	}
	switch {
	case a.Unlimited:
		return "an unlimited amount " + strings.TrimPrefix(name, "of ")
	case a.Amount != "":
		return a.Amount + " " + name
	}
	return a.AmountRaw + " base units " + name
}

// knownFunctions are the functions Sigil decodes, from the ABIs the services call: ERC-20, ERC-4626, Aave v3's Pool,
// the allocator vault, the fee wrapper and the staking contracts.
var knownFunctions = func() map[[4]byte]abi.Method {
	m := map[[4]byte]abi.Method{}
	for _, a := range []abi.ABI{abis.ERC20, abis.ERC4626, abis.AaveV3Pool, abis.AllocatorVault, abis.FeeWrapper, abis.NativeStaking, abis.ProviderStaking} {
		for _, method := range a.Methods {
			var id [4]byte
			copy(id[:], method.ID)
			if _, dup := m[id]; !dup {
				m[id] = method
			}
		}
	}
	return m
}()

// call is a transaction's calldata decoded.
type call struct {
	method *abi.Method
	args   []any
}

func decodeCall(data []byte) *call {
	if len(data) < 4 {
		return nil
	}
	var id [4]byte
	copy(id[:], data)
	m, ok := knownFunctions[id]
	if !ok {
		return nil
	}
	args, err := m.Inputs.Unpack(data[4:])
	if err != nil || len(args) != len(m.Inputs) {
		return nil
	}
	return &call{method: &m, args: args}
}

func (c *call) addr(i int) common.Address { a, _ := c.args[i].(common.Address); return a }
func (c *call) num(i int) *big.Int {
	n, _ := c.args[i].(*big.Int)
	if n == nil {
		return new(big.Int)
	}
	return n
}

// tokenRef is an amount whose token is to be described: the token, or the ERC-4626 vault whose asset it is.
type tokenRef struct {
	role    string
	raw     *big.Int
	token   common.Address
	assetOf *common.Address // the amount is in this vault's asset
}

// amountsOf are the amounts a call moves or allows, and a sentence in Sigil's words (%s marks where the amounts go,
// in order).
func amountsOf(c *call, to common.Address) ([]tokenRef, string) {
	if c == nil {
		return nil, ""
	}
	switch c.method.Sig {
	case "approve(address,uint256)":
		return []tokenRef{{role: "allowance", raw: c.num(1), token: to}}, "allows " + c.addr(0).Hex() + " to spend %s of the caller's"
	case "transfer(address,uint256)":
		return []tokenRef{{role: "transfer", raw: c.num(1), token: to}}, "sends %s to " + c.addr(0).Hex()
	case "transferFrom(address,address,uint256)":
		return []tokenRef{{role: "transfer", raw: c.num(2), token: to}}, "moves %s from " + c.addr(0).Hex() + " to " + c.addr(1).Hex()
	case "deposit(uint256,address)":
		return []tokenRef{{role: "deposit", raw: c.num(0), assetOf: &to}}, "deposits %s into the vault " + to.Hex() + ", its shares to " + c.addr(1).Hex()
	case "mint(uint256,address)":
		return []tokenRef{{role: "shares", raw: c.num(0), token: to}}, "mints %s of the vault " + to.Hex() + " for " + c.addr(1).Hex()
	case "withdraw(uint256,address,address)":
		return []tokenRef{{role: "withdrawal", raw: c.num(0), assetOf: &to}}, "withdraws %s from the vault " + to.Hex() + " to " + c.addr(1).Hex()
	case "redeem(uint256,address,address)":
		return []tokenRef{{role: "shares", raw: c.num(0), token: to}}, "redeems %s of the vault " + to.Hex() + ", the assets to " + c.addr(1).Hex()
	case "supply(address,uint256,address,uint16)":
		return []tokenRef{{role: "supply", raw: c.num(1), token: c.addr(0)}}, "supplies %s to the lending pool " + to.Hex() + " for " + c.addr(2).Hex()
	case "withdraw(address,uint256,address)":
		return []tokenRef{{role: "withdrawal", raw: c.num(1), token: c.addr(0)}}, "withdraws %s from the lending pool " + to.Hex() + " to " + c.addr(2).Hex()
	case "deposit(address,uint256,address)":
		vault := c.addr(0)
		return []tokenRef{{role: "deposit", raw: c.num(1), assetOf: &vault}}, "deposits %s through the fee wrapper " + to.Hex() + " into the vault " + vault.Hex() + ", its shares to " + c.addr(2).Hex()
	case "requestUnstake(uint256)":
		return []tokenRef{{role: "unstake", raw: c.num(0), token: to}}, "asks the staking contract " + to.Hex() + " to unstake %s"
	case "stake()", "stakeFor(address)":
		return nil, "stakes with " + to.Hex()
	case "stake(address,address)":
		return nil, "stakes with " + c.addr(0).Hex() + " through the fee wrapper " + to.Hex() + ", for " + c.addr(1).Hex()
	case "withdraw()":
		return nil, "withdraws what the staking contract " + to.Hex() + " holds for the caller after its cooldown"
	case "claimRewards()":
		return nil, "claims the caller's rewards from " + to.Hex()
	}
	return nil, "calls " + c.method.Sig + " on " + to.Hex()
}

// describeTxs decodes each transaction and describes its amounts, with the tokens' symbols and decimals read from the
// chain (the token's own contract) when a node is configured, else from the yield's metadata (hints).
func (s *Server) describeTxs(ctx context.Context, txs []*evmTx, hints *yield) []effect {
	type pending struct {
		tx     *evmTx
		call   *call
		refs   []tokenRef
		desc   string
		payout *rpcCall // what the call will pay the caller, read from the contract
	}
	list := make([]pending, len(txs))
	byChain := map[int64][]common.Address{}
	vaultsByChain := map[int64][]common.Address{}
	for i, tx := range txs {
		p := pending{tx: tx}
		if tx.To != nil {
			p.call = decodeCall(tx.Data)
			p.refs, p.desc = amountsOf(p.call, *tx.To)
			p.payout = payoutRead(p.call, *tx.To, tx.From)
			for _, r := range p.refs {
				if r.assetOf != nil {
					vaultsByChain[tx.ChainID] = append(vaultsByChain[tx.ChainID], *r.assetOf)
				} else {
					byChain[tx.ChainID] = append(byChain[tx.ChainID], r.token)
				}
			}
		}
		list[i] = p
	}
	book := newTokenBook(hints)
	for chainID, vaults := range vaultsByChain {
		for v, a := range s.chains.vaultAssets(ctx, chainID, vaults) {
			book.assets[tokenKey{chainID, v}] = a
		}
		for _, v := range vaults {
			if a, ok := book.asset(chainID, v); ok {
				byChain[chainID] = append(byChain[chainID], a)
			}
		}
	}
	for chainID, addrs := range byChain {
		for a, m := range s.chains.tokenMetas(ctx, chainID, addrs) {
			book.chain[tokenKey{chainID, a}] = m
		}
	}
	payouts := map[int64][]*rpcCall{}
	for _, p := range list {
		if p.payout != nil {
			payouts[p.tx.ChainID] = append(payouts[p.tx.ChainID], p.payout)
		}
	}
	for chainID, calls := range payouts {
		s.chains.reads(ctx, chainID, calls)
	}
	out := make([]effect, len(list))
	for i, p := range list {
		out[i] = book.effect(p.tx, p.call, p.refs, p.desc)
		if v, ok := payoutOf(p.payout); ok {
			out[i].addPayout(v)
		}
	}
	return out
}

// payoutRead is the view call that says what a staking contract's claimRewards() or withdraw() will pay the caller
// (its claimable rewards, its pending unstake), so that the effect states an amount the calldata does not hold. Both
// staking contracts name the views alike.
func payoutRead(c *call, to common.Address, from string) *rpcCall {
	if c == nil || !common.IsHexAddress(from) {
		return nil
	}
	var data []byte
	switch c.method.Sig {
	case "claimRewards()":
		data, _ = abis.NativeStaking.Pack("claimableRewards", common.HexToAddress(from))
	case "withdraw()":
		data, _ = abis.NativeStaking.Pack("pendingUnstakeOf", common.HexToAddress(from))
	default:
		return nil
	}
	return viewCall(to, data)
}

// payoutOf is the amount a payout read answered: the first value of the answer, in wei.
func payoutOf(read *rpcCall) (*big.Int, bool) {
	if read == nil || read.Err != nil || read.Result == nil {
		return nil, false
	}
	var h string
	if json.Unmarshal(read.Result, &h) != nil {
		return nil, false
	}
	data, err := hexutil.Decode(h)
	if err != nil || len(data) < 32 {
		return nil, false
	}
	return new(big.Int).SetBytes(data[:32]), true
}

// addPayout states what the call pays the caller, in the native coin, as the contract answered at the latest block.
func (e *effect) addPayout(wei *big.Int) {
	d := uint8(18)
	v := amount{Role: "payout", AmountRaw: wei.String(), Amount: units.Format(wei, 18), Token: "native", Decimals: &d, DecimalsFrom: "native"}
	e.Amounts = append(e.Amounts, v)
	e.Description += ", paying the caller " + v.text() + " (the contract's answer at the latest block)"
}

// tokenBook is what is known of tokens: from their contracts (chain) and from the yield service (hints).
type tokenBook struct {
	chain  map[tokenKey]tokenMeta
	hints  map[common.Address]token
	assets map[tokenKey]common.Address
	hinted map[common.Address]common.Address // vault → asset, from the yield's tokens
}

func newTokenBook(y *yield) *tokenBook {
	b := &tokenBook{chain: map[tokenKey]tokenMeta{}, hints: map[common.Address]token{}, assets: map[tokenKey]common.Address{},
		hinted: map[common.Address]common.Address{}}
	if y == nil {
		return b
	}
	add := func(t token) {
		if common.IsHexAddress(t.Address) {
			b.hints[common.HexToAddress(t.Address)] = t
		}
	}
	add(y.Token)
	for _, t := range append(append([]token{}, y.InputTokens...), y.Tokens...) {
		add(t)
	}
	if y.OutputToken != nil {
		add(*y.OutputToken)
		if common.IsHexAddress(y.OutputToken.Address) && common.IsHexAddress(y.Token.Address) {
			b.hinted[common.HexToAddress(y.OutputToken.Address)] = common.HexToAddress(y.Token.Address)
		}
	}
	return b
}

func (b *tokenBook) asset(chainID int64, vault common.Address) (common.Address, bool) {
	if a, ok := b.assets[tokenKey{chainID, vault}]; ok {
		return a, true
	}
	a, ok := b.hinted[vault]
	return a, ok
}

// amount describes an amount of a token: the chain's decimals first, the yield service's when the chain did not say.
func (b *tokenBook) amount(role string, raw *big.Int, chainID int64, tok common.Address) amount {
	a := amount{Role: role, AmountRaw: raw.String(), Token: tok.Hex(), Unlimited: raw.Cmp(math.MaxBig256) == 0}
	if m, ok := b.chain[tokenKey{chainID, tok}]; ok {
		a.Symbol, a.Decimals, a.DecimalsFrom = safeSymbol(m.Symbol), &m.Decimals, "chain"
	} else if h, ok := b.hints[tok]; ok && h.Decimals >= 0 && h.Decimals <= 77 {
		d := uint8(h.Decimals)
		a.Symbol, a.Decimals, a.DecimalsFrom = safeSymbol(h.Symbol), &d, fromYield
	}
	if a.Decimals != nil {
		a.Amount = units.Format(raw, *a.Decimals)
	}
	return a
}

func (b *tokenBook) effect(tx *evmTx, c *call, refs []tokenRef, desc string) effect {
	e := effect{ChainID: tx.ChainID, From: tx.From}
	if tx.To == nil {
		e.Contract, e.Function = "", "contract creation"
		e.Description = "creates a contract"
	} else {
		e.Contract = tx.To.Hex()
	}
	switch {
	case tx.To == nil:
	case len(tx.Data) == 0:
		e.Function = "none (a plain transfer of the native coin)"
	case c == nil:
		e.Function = fmt.Sprintf("unknown: selector 0x%s is not a function of the ABIs Sigil decodes", hex.EncodeToString(tx.Data[:min(4, len(tx.Data))]))
		e.Description = "calls an unknown function of " + e.Contract
	default:
		e.Function = c.method.Sig
		e.Arguments = map[string]any{}
		for i, in := range c.method.Inputs {
			name := strings.TrimSuffix(in.Name, "_")
			if name == "" {
				name = fmt.Sprintf("arg%d", i)
			}
			switch v := c.args[i].(type) {
			case common.Address:
				e.Arguments[name] = v.Hex()
			case *big.Int:
				e.Arguments[name] = v.String()
			default:
				e.Arguments[name] = fmt.Sprint(v)
			}
		}
	}
	var texts []any
	for _, r := range refs {
		tok := r.token
		if r.assetOf != nil {
			if a, ok := b.asset(tx.ChainID, *r.assetOf); ok {
				tok = a
			} else {
				tok = common.Address{}
			}
		}
		var am amount
		if tok == (common.Address{}) {
			am = amount{Role: r.role, AmountRaw: r.raw.String(), Token: "the vault's asset (unknown)"}
		} else {
			am = b.amount(r.role, r.raw, tx.ChainID, tok)
		}
		e.Amounts = append(e.Amounts, am)
		texts = append(texts, am.text())
	}
	if desc != "" {
		e.Description = fmt.Sprintf(desc, texts...)
	}
	if tx.Value != nil && tx.Value.Sign() > 0 {
		d := uint8(18)
		v := amount{Role: "value", AmountRaw: tx.Value.String(), Amount: units.Format(tx.Value, 18), Token: "native", Decimals: &d, DecimalsFrom: "native"}
		e.Value = &v
		if e.Description == "" {
			e.Description = "sends " + v.text() + " to " + e.Contract
		} else {
			e.Description += ", sending " + v.text()
		}
	}
	if e.Description == "" {
		e.Description = "calls " + e.Contract + " with no value"
	}
	return e
}

// restate is an effect as one line of a value-moving tool's result.
func restate(e effect) string {
	line := fmt.Sprintf("On chain %d, %s", e.ChainID, e.Description)
	if e.Function != "" && !strings.HasPrefix(e.Function, "none") && !strings.HasPrefix(e.Function, "unknown") {
		line += " (" + e.Function + " on " + e.Contract + ")"
	}
	return line + "."
}
