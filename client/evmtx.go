package client

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rlp"
)

// EVMTransaction is an unsigned EVM transaction in the JSON form wallets and the yield service use: quantities as 0x
// hex strings; nonce, chainId and type as numbers.
type EVMTransaction struct {
	From                 string          `json:"from,omitempty"`
	To                   string          `json:"to"`
	Data                 string          `json:"data,omitempty"`
	Value                string          `json:"value,omitempty"`
	GasLimit             string          `json:"gasLimit,omitempty"`
	GasPrice             string          `json:"gasPrice,omitempty"`
	MaxFeePerGas         string          `json:"maxFeePerGas,omitempty"`
	MaxPriorityFeePerGas string          `json:"maxPriorityFeePerGas,omitempty"`
	Nonce                json.Number     `json:"nonce"`
	ChainID              json.Number     `json:"chainId"`
	Type                 json.RawMessage `json:"type,omitempty"`
}

// dynamicFeeTxType is EIP-1559's transaction type, named here rather than taken from go-ethereum's core/types, which
// would make every program that imports the SDK link go-ethereum's blob and KZG code.
const dynamicFeeTxType = 2

// UnsignedTransaction encodes a transaction given as that JSON into the unsigned serialization SIGN_TRANSACTION_V2
// takes (hex, no 0x): EIP-1559 (type 2) when it has maxFeePerGas, legacy with EIP-155 when it has gasPrice.
func UnsignedTransaction(jsonTx string) (string, error) {
	var t EVMTransaction
	if err := json.Unmarshal([]byte(jsonTx), &t); err != nil {
		return "", fmt.Errorf("unsigned transaction: %w", err)
	}
	q := func(name, v string) (*big.Int, error) {
		if v == "" {
			return new(big.Int), nil
		}
		n, err := hexutil.DecodeBig(v)
		if err != nil {
			return nil, fmt.Errorf("unsigned transaction: %s %q is not a 0x quantity", name, v)
		}
		return n, nil
	}
	value, err := q("value", t.Value)
	if err != nil {
		return "", err
	}
	gas, err := q("gasLimit", t.GasLimit)
	if err != nil {
		return "", err
	}
	nonce, err := t.Nonce.Int64()
	if err != nil {
		return "", fmt.Errorf("unsigned transaction: nonce: %w", err)
	}
	chainID, ok := new(big.Int).SetString(string(t.ChainID), 10)
	if !ok {
		return "", fmt.Errorf("unsigned transaction: chainId %q is not a number", t.ChainID)
	}
	if !common.IsHexAddress(t.To) {
		return "", fmt.Errorf("unsigned transaction: to %q is not an address", t.To)
	}
	to := common.HexToAddress(t.To)
	data, err := hexutil.Decode(orEmpty(t.Data))
	if err != nil {
		return "", fmt.Errorf("unsigned transaction: data is not 0x hex")
	}
	var fields []any
	prefix := []byte{}
	if t.MaxFeePerGas != "" {
		fee, err := q("maxFeePerGas", t.MaxFeePerGas)
		if err != nil {
			return "", err
		}
		tip, err := q("maxPriorityFeePerGas", t.MaxPriorityFeePerGas)
		if err != nil {
			return "", err
		}
		prefix = []byte{dynamicFeeTxType}
		fields = []any{chainID, uint64(nonce), tip, fee, gas.Uint64(), to, value, data, []any{} /* access list */}
	} else {
		price, err := q("gasPrice", t.GasPrice)
		if err != nil {
			return "", err
		}
		fields = []any{uint64(nonce), price, gas.Uint64(), to, value, data, chainID, uint(0), uint(0)}
	}
	enc, err := rlp.EncodeToBytes(fields)
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(append(prefix, enc...)), nil
}

func orEmpty(h string) string {
	if strings.TrimSpace(h) == "" {
		return "0x"
	}
	return h
}
