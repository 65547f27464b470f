package evm

import (
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/holiman/uint256"

	"github.com/sigil/sigil/internal/keys"
)

// Transaction type names of the policy language (eth.tx.type).
const (
	TypeLegacy = "LEGACY"
	Type1      = "TYPE_1" // EIP-2930 access list
	Type2      = "TYPE_2" // EIP-1559 dynamic fee
	Type3      = "TYPE_3" // EIP-4844 blob
	Type4      = "TYPE_4" // EIP-7702 set code
)

// ErrInvalidTransaction is wrapped by every decoding error.
var ErrInvalidTransaction = errors.New("invalid unsigned transaction")

// UnsignedTx is a decoded unsigned Ethereum transaction.
type UnsignedTx struct {
	tx *types.Transaction
	// signer is EIP-155 for legacy transactions with a chain id, Homestead
	// for those without, the latest (Prague) signer for typed ones.
	signer types.Signer
}

// Transaction returns the go-ethereum transaction (without signature).
func (u *UnsignedTx) Transaction() *types.Transaction { return u.tx }

// SigningHash is the digest the sender signs.
func (u *UnsignedTx) SigningHash() common.Hash { return u.signer.Hash(u.tx) }

// NewDynamicFeeTx is an unsigned EIP-1559 (type 2) transaction, signed under its chain id.
func NewDynamicFeeTx(tx *types.DynamicFeeTx) *UnsignedTx {
	return &UnsignedTx{tx: types.NewTx(tx), signer: types.LatestSignerForChainID(tx.ChainID)}
}

// NewSetCodeTx is an unsigned EIP-7702 (type 4) transaction, signed under its chain id.
func NewSetCodeTx(tx *types.SetCodeTx) *UnsignedTx {
	return &UnsignedTx{tx: types.NewTx(tx), signer: types.LatestSignerForChainID(tx.ChainID.ToBig())}
}

// Unsigned is a transaction (signed or not) as the policy engine reads it, under its chain id.
func Unsigned(tx *types.Transaction) *UnsignedTx {
	return &UnsignedTx{tx: tx, signer: types.LatestSignerForChainID(tx.ChainId())}
}

// DecodeUnsignedTransaction decodes an unsigned transaction given as hex,
// with or without 0x: legacy (6 fields, or 9 with EIP-155 [chainId, 0, 0]),
// EIP-2930 (0x01), EIP-1559 (0x02), EIP-4844 body without sidecars (0x03) or
// EIP-7702 (0x04). Errors wrap ErrInvalidTransaction and name the problem.
func DecodeUnsignedTransaction(hexText string) (*UnsignedTx, error) {
	raw, err := decodeHex(hexText)
	if err != nil {
		return nil, invalid("%v", err)
	}
	return DecodeUnsignedTransactionBytes(raw)
}

// DecodeUnsignedTransactionBytes is DecodeUnsignedTransaction on raw bytes.
func DecodeUnsignedTransactionBytes(raw []byte) (*UnsignedTx, error) {
	if len(raw) == 0 {
		return nil, invalid("the transaction is empty")
	}
	switch t := raw[0]; {
	case t >= 0xc0:
		return decodeLegacy(raw)
	case t == types.AccessListTxType:
		return decodeTyped(raw[1:], "EIP-2930 (type 1)", 8, decodeAccessList)
	case t == types.DynamicFeeTxType:
		return decodeTyped(raw[1:], "EIP-1559 (type 2)", 9, decodeDynamicFee)
	case t == types.BlobTxType:
		return decodeTyped(raw[1:], "EIP-4844 (type 3)", 11, decodeBlob)
	case t == types.SetCodeTxType:
		return decodeTyped(raw[1:], "EIP-7702 (type 4)", 10, decodeSetCode)
	default:
		return nil, invalid("unknown transaction type byte 0x%02x: want an RLP list (legacy) or 0x01, 0x02, 0x03, 0x04", t)
	}
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidTransaction, fmt.Sprintf(format, args...))
}

func decodeHex(s string) ([]byte, error) {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	if len(s)%2 != 0 {
		return nil, fmt.Errorf("hex has an odd number of digits (%d)", len(s))
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("not hex: %v", err)
	}
	return b, nil
}

// listShape checks that b is a single RLP list and nothing else, and returns how many elements it has and whether
// the first is a list itself. It decodes no element: the caller decodes the list into its fields next.
func listShape(b []byte, what string) (n int, firstIsList bool, err error) {
	content, rest, err := rlp.SplitList(b)
	if err == nil && len(rest) > 0 {
		return 0, false, invalid("%s transaction has trailing bytes after its RLP list", what)
	}
	if err == nil {
		n, err = rlp.CountValues(content)
	}
	if err != nil {
		return 0, false, invalid("%s transaction is not a well-formed RLP list: %v", what, err)
	}
	if n > 0 {
		kind, _, _, _ := rlp.Split(content) // well-formed: CountValues read it
		firstIsList = kind == rlp.List
	}
	return n, firstIsList, nil
}

func decodeLegacy(raw []byte) (*UnsignedTx, error) {
	fields, _, err := listShape(raw, "legacy")
	if err != nil {
		return nil, err
	}
	var f struct {
		Nonce    uint64
		GasPrice *uint256.Int
		Gas      uint64
		To       *common.Address `rlp:"nil"`
		Value    *uint256.Int
		Data     []byte
		ChainID  *uint256.Int `rlp:"optional"`
		R        *uint256.Int `rlp:"optional"`
		S        *uint256.Int `rlp:"optional"`
	}
	switch fields {
	case 6, 9:
	default:
		return nil, invalid("legacy transaction has %d fields: want 6, or 9 with EIP-155 [chainId, 0, 0]", fields)
	}
	if err := rlp.DecodeBytes(raw, &f); err != nil {
		return nil, invalid("legacy transaction: %v", err)
	}
	tx := types.NewTx(&types.LegacyTx{
		Nonce: f.Nonce, GasPrice: f.GasPrice.ToBig(), Gas: f.Gas, To: f.To, Value: f.Value.ToBig(), Data: f.Data,
	})
	if fields == 6 {
		return &UnsignedTx{tx: tx, signer: types.HomesteadSigner{}}, nil
	}
	if !f.R.IsZero() || !f.S.IsZero() {
		return nil, invalid("legacy transaction is already signed (r and s are set): send it unsigned, with [chainId, 0, 0]")
	}
	if f.ChainID.IsZero() {
		return nil, invalid("legacy transaction has EIP-155 chain id 0")
	}
	return &UnsignedTx{tx: tx, signer: types.NewEIP155Signer(f.ChainID.ToBig())}, nil
}

// decodeTyped checks the field count of a typed transaction body, decodes it
// with decode and wraps it for signing under its own chain id.
func decodeTyped(body []byte, what string, want int, decode func([]byte) (types.TxData, error)) (*UnsignedTx, error) {
	fields, firstIsList, err := listShape(body, what)
	if err != nil {
		return nil, err
	}
	if fields != want {
		hint := ""
		if fields == want+3 {
			hint = "; it looks signed: send it without yParity, r and s"
		}
		if what == "EIP-4844 (type 3)" && firstIsList {
			hint = "; blob sidecars are not accepted: send the transaction body only (viem: sidecars: false)"
		}
		return nil, invalid("%s transaction has %d fields: want %d%s", what, fields, want, hint)
	}
	data, err := decode(body)
	if err != nil {
		return nil, invalid("%s transaction: %v", what, err)
	}
	tx := types.NewTx(data)
	if tx.ChainId().Sign() == 0 {
		return nil, invalid("%s transaction has chain id 0", what)
	}
	return &UnsignedTx{tx: tx, signer: types.LatestSignerForChainID(tx.ChainId())}, nil
}

func decodeAccessList(body []byte) (types.TxData, error) {
	var f struct {
		ChainID    *uint256.Int
		Nonce      uint64
		GasPrice   *uint256.Int
		Gas        uint64
		To         *common.Address `rlp:"nil"`
		Value      *uint256.Int
		Data       []byte
		AccessList types.AccessList
	}
	if err := rlp.DecodeBytes(body, &f); err != nil {
		return nil, err
	}
	return &types.AccessListTx{
		ChainID: f.ChainID.ToBig(), Nonce: f.Nonce, GasPrice: f.GasPrice.ToBig(), Gas: f.Gas, To: f.To,
		Value: f.Value.ToBig(), Data: f.Data, AccessList: f.AccessList,
	}, nil
}

func decodeDynamicFee(body []byte) (types.TxData, error) {
	var f struct {
		ChainID    *uint256.Int
		Nonce      uint64
		GasTipCap  *uint256.Int
		GasFeeCap  *uint256.Int
		Gas        uint64
		To         *common.Address `rlp:"nil"`
		Value      *uint256.Int
		Data       []byte
		AccessList types.AccessList
	}
	if err := rlp.DecodeBytes(body, &f); err != nil {
		return nil, err
	}
	return &types.DynamicFeeTx{
		ChainID: f.ChainID.ToBig(), Nonce: f.Nonce, GasTipCap: f.GasTipCap.ToBig(), GasFeeCap: f.GasFeeCap.ToBig(),
		Gas: f.Gas, To: f.To, Value: f.Value.ToBig(), Data: f.Data, AccessList: f.AccessList,
	}, nil
}

func decodeBlob(body []byte) (types.TxData, error) {
	var f struct {
		ChainID    *uint256.Int
		Nonce      uint64
		GasTipCap  *uint256.Int
		GasFeeCap  *uint256.Int
		Gas        uint64
		To         *common.Address `rlp:"nil"`
		Value      *uint256.Int
		Data       []byte
		AccessList types.AccessList
		BlobFeeCap *uint256.Int
		BlobHashes []common.Hash
	}
	if err := rlp.DecodeBytes(body, &f); err != nil {
		return nil, err
	}
	if f.To == nil {
		return nil, errors.New("'to' is empty, but blob transactions cannot create contracts")
	}
	return &types.BlobTx{
		ChainID: f.ChainID, Nonce: f.Nonce, GasTipCap: f.GasTipCap, GasFeeCap: f.GasFeeCap, Gas: f.Gas, To: *f.To,
		Value: f.Value, Data: f.Data, AccessList: f.AccessList, BlobFeeCap: f.BlobFeeCap, BlobHashes: f.BlobHashes,
	}, nil
}

func decodeSetCode(body []byte) (types.TxData, error) {
	var f struct {
		ChainID    *uint256.Int
		Nonce      uint64
		GasTipCap  *uint256.Int
		GasFeeCap  *uint256.Int
		Gas        uint64
		To         *common.Address `rlp:"nil"`
		Value      *uint256.Int
		Data       []byte
		AccessList types.AccessList
		AuthList   []types.SetCodeAuthorization
	}
	if err := rlp.DecodeBytes(body, &f); err != nil {
		return nil, err
	}
	if f.To == nil {
		return nil, errors.New("'to' is empty, but EIP-7702 transactions cannot create contracts")
	}
	if len(f.AuthList) == 0 {
		return nil, errors.New("the authorization list is empty")
	}
	return &types.SetCodeTx{
		ChainID: f.ChainID, Nonce: f.Nonce, GasTipCap: f.GasTipCap, GasFeeCap: f.GasFeeCap, Gas: f.Gas, To: *f.To,
		Value: f.Value, Data: f.Data, AccessList: f.AccessList, AuthList: f.AuthList,
	}, nil
}

// Sign signs the transaction with a secp256k1 private key and returns the
// raw signed transaction as eth_sendRawTransaction takes it (the typed
// envelope for typed transactions), hex without 0x.
func (u *UnsignedTx) Sign(privateKey []byte) (string, error) {
	raw, err := u.SignBytes(privateKey)
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(raw), nil
}

// SignBytes is Sign returning bytes.
func (u *UnsignedTx) SignBytes(privateKey []byte) ([]byte, error) {
	hash := u.SigningHash()
	sig, err := keys.SignSecp256k1(privateKey, hash[:])
	if err != nil {
		return nil, err
	}
	signed, err := u.tx.WithSignature(u.signer, sig.Ethereum())
	if err != nil {
		return nil, fmt.Errorf("attach signature: %w", err)
	}
	return signed.MarshalBinary()
}

// TxView is the policy engine's eth.tx. Hex strings are 0x-prefixed
// lower-case; integers absent from the transaction type (e.g. the 1559 fees
// of a legacy transaction, the chain id of a pre-EIP-155 one) are zero.
type TxView struct {
	From string // the signer's address, as supplied by the caller
	To   string // "" for contract creation
	Data string // "0x" when empty
	Type string // LEGACY, TYPE_1, TYPE_2, TYPE_3 or TYPE_4

	Value                *big.Int
	Gas                  *big.Int
	GasPrice             *big.Int // max fee per gas on EIP-1559 and later types
	ChainID              *big.Int
	Nonce                *big.Int
	MaxFeePerGas         *big.Int
	MaxPriorityFeePerGas *big.Int
	MaxFeePerBlobGas     *big.Int
}

var typeNames = map[uint8]string{
	types.LegacyTxType: TypeLegacy, types.AccessListTxType: Type1, types.DynamicFeeTxType: Type2,
	types.BlobTxType: Type3, types.SetCodeTxType: Type4,
}

// View builds the policy view; from is the signing address.
func (u *UnsignedTx) View(from string) TxView {
	tx := u.tx
	v := TxView{
		From:                 strings.ToLower(from),
		Data:                 "0x" + hex.EncodeToString(tx.Data()),
		Type:                 typeNames[tx.Type()],
		Value:                new(big.Int).Set(tx.Value()),
		Gas:                  new(big.Int).SetUint64(tx.Gas()),
		GasPrice:             new(big.Int).Set(tx.GasPrice()),
		ChainID:              new(big.Int),
		Nonce:                new(big.Int).SetUint64(tx.Nonce()),
		MaxFeePerGas:         new(big.Int),
		MaxPriorityFeePerGas: new(big.Int),
		MaxFeePerBlobGas:     new(big.Int),
	}
	if to := tx.To(); to != nil {
		v.To = strings.ToLower(to.Hex())
	}
	if id := u.signer.ChainID(); id != nil {
		v.ChainID.Set(id)
	}
	if tx.Type() >= types.DynamicFeeTxType {
		v.MaxFeePerGas.Set(tx.GasFeeCap())
		v.MaxPriorityFeePerGas.Set(tx.GasTipCap())
	}
	if tx.Type() == types.BlobTxType {
		v.MaxFeePerBlobGas.Set(tx.BlobGasFeeCap())
	}
	return v
}
