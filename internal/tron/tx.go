// Package tron parses Tron transactions (the protobuf Transaction.raw that TronWeb calls raw_data_hex) for the signing
// activities, builds what the policy engine reads of them (tron.tx), and signs them. It is pure: no network, no
// database; the protobuf wire format is read by hand.
//
// What is signed, as the reference describes it: SIGN_TRANSACTION_V2 with TRANSACTION_TYPE_TRON takes raw_data_hex;
// the signer signs SHA-256 of those bytes (the transaction id) with ECDSA on secp256k1, and the result is the
// serialized Transaction {raw_data, signature} as hex, which TronWeb's sendHexTransaction and the node's
// wallet/broadcasthex take. The signature is r || s || v with v = 27 + the recovery id, as TronWeb writes it.
package tron

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/sigil/sigil/internal/keys"
)

// ErrInvalid is wrapped by every parse error.
var ErrInvalid = errors.New("invalid Tron transaction")

// MaxRawSize bounds a transaction's raw data (the network's limit on a transaction is far below it).
const MaxRawSize = 500 << 10

// Transaction is a parsed Transaction.raw.
type Transaction struct {
	Raw           []byte
	RefBlockBytes string // hex
	RefBlockNum   int64
	RefBlockHash  string // hex
	Expiration    int64  // milliseconds
	Timestamp     int64  // milliseconds
	FeeLimit      int64  // SUN
	Data          string // the memo, hex
	Contracts     []Contract
}

// Contract is the transaction's contract: its type and, for the types the policy engine reads, its parameters. A
// field the type does not have is nil.
type Contract struct {
	Type         string // the ContractType name, e.g. TransferContract
	PermissionID int64

	OwnerAddress, ToAddress, ContractAddress, ReceiverAddress *string // base58 (T...)
	Amount, CallValue, CallTokenValue, TokenID                *int64
	Balance, LockPeriod, FrozenBalance, UnfreezeBalance       *int64
	Data                                                      *string // TriggerSmartContract's call data, hex
	Resource                                                  *string // BANDWIDTH, ENERGY or TRON_POWER
	Lock                                                      *bool
	Owner, Witness                                            *Permission
	Actives                                                   []Permission // nil unless AccountPermissionUpdateContract
}

// Permission is a permission of AccountPermissionUpdateContract.
type Permission struct {
	Type           string // Owner, Witness or Active
	ID             int64
	PermissionName string
	Threshold      int64
	ParentID       int64
	Operations     string // hex
	Keys           []Key
}

// Key is an address's weight in a permission.
type Key struct {
	Address string
	Weight  int64
}

// ID is the transaction id: SHA-256 of the raw data, what is signed.
func (t *Transaction) ID() [32]byte { return sha256.Sum256(t.Raw) }

var contractTypes = map[uint64]string{
	0: "AccountCreateContract", 1: "TransferContract", 2: "TransferAssetContract", 3: "VoteAssetContract",
	4: "VoteWitnessContract", 5: "WitnessCreateContract", 6: "AssetIssueContract", 8: "WitnessUpdateContract",
	9: "ParticipateAssetIssueContract", 10: "AccountUpdateContract", 11: "FreezeBalanceContract",
	12: "UnfreezeBalanceContract", 13: "WithdrawBalanceContract", 14: "UnfreezeAssetContract", 15: "UpdateAssetContract",
	16: "ProposalCreateContract", 17: "ProposalApproveContract", 18: "ProposalDeleteContract", 19: "SetAccountIdContract",
	20: "CustomContract", 30: "CreateSmartContract", 31: "TriggerSmartContract", 32: "GetContract",
	33: "UpdateSettingContract", 41: "ExchangeCreateContract", 42: "ExchangeInjectContract", 43: "ExchangeWithdrawContract",
	44: "ExchangeTransactionContract", 45: "UpdateEnergyLimitContract", 46: "AccountPermissionUpdateContract",
	48: "ClearABIContract", 49: "UpdateBrokerageContract", 51: "ShieldedTransferContract", 52: "MarketSellAssetContract",
	53: "MarketCancelOrderContract", 54: "FreezeBalanceV2Contract", 55: "UnfreezeBalanceV2Contract",
	56: "WithdrawExpireUnfreezeContract", 57: "DelegateResourceContract", 58: "UnDelegateResourceContract",
	59: "CancelAllUnfreezeV2Contract",
}

var resources = map[uint64]string{0: "BANDWIDTH", 1: "ENERGY", 2: "TRON_POWER"}

var permissionTypes = map[uint64]string{0: "Owner", 1: "Witness", 2: "Active"}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// Parse parses Transaction.raw. It refuses malformed protobuf, a field of the wrong type or given twice, a
// transaction without exactly one contract (the network takes one), a contract whose parameter is not of its type,
// negative amounts and times, and addresses that are not 21-byte Tron addresses.
func Parse(raw []byte) (*Transaction, error) {
	if len(raw) > MaxRawSize {
		return nil, invalid("%d bytes, more than %d", len(raw), MaxRawSize)
	}
	fields, err := decode(raw, "raw_data", 9, 11)
	if err != nil {
		return nil, invalid("%s", err.Error())
	}
	t := &Transaction{Raw: raw}
	var contracts [][]byte
	for _, f := range fields {
		var err error
		switch f.num {
		case 1:
			err = f.expect(wireLen, "raw_data", "ref_block_bytes")
			t.RefBlockBytes = hex.EncodeToString(f.data)
		case 3:
			err = f.expect(wireVarint, "raw_data", "ref_block_num")
			t.RefBlockNum = f.int64()
		case 4:
			err = f.expect(wireLen, "raw_data", "ref_block_hash")
			t.RefBlockHash = hex.EncodeToString(f.data)
		case 8:
			err = f.expect(wireVarint, "raw_data", "expiration")
			t.Expiration = f.int64()
		case 10:
			err = f.expect(wireLen, "raw_data", "data")
			t.Data = hex.EncodeToString(f.data)
		case 11:
			err = f.expect(wireLen, "raw_data", "contract")
			contracts = append(contracts, f.data)
		case 14:
			err = f.expect(wireVarint, "raw_data", "timestamp")
			t.Timestamp = f.int64()
		case 18:
			err = f.expect(wireVarint, "raw_data", "fee_limit")
			t.FeeLimit = f.int64()
		}
		if err != nil {
			return nil, invalid("%s", err.Error())
		}
	}
	for name, v := range map[string]int64{"ref_block_num": t.RefBlockNum, "expiration": t.Expiration, "timestamp": t.Timestamp, "fee_limit": t.FeeLimit} {
		if v < 0 {
			return nil, invalid("raw_data.%s is negative", name)
		}
	}
	if len(contracts) != 1 {
		return nil, invalid("the transaction has %d contracts; a Tron transaction has exactly one", len(contracts))
	}
	c, err := parseContract(contracts[0])
	if err != nil {
		return nil, err
	}
	t.Contracts = []Contract{*c}
	return t, nil
}

func parseContract(b []byte) (*Contract, error) {
	fields, err := decode(b, "contract")
	if err != nil {
		return nil, invalid("%s", err.Error())
	}
	c := &Contract{}
	var typeNum uint64
	var typeURL string
	var param []byte
	hasParam := false
	for _, f := range fields {
		var err error
		switch f.num {
		case 1:
			err = f.expect(wireVarint, "contract", "type")
			typeNum = f.u
		case 2:
			if err = f.expect(wireLen, "contract", "parameter"); err == nil {
				typeURL, param, err = parseAny(f.data)
				hasParam = true
			}
		case 5:
			err = f.expect(wireVarint, "contract", "Permission_id")
			c.PermissionID = f.int64()
		}
		if err != nil {
			return nil, invalid("%s", err.Error())
		}
	}
	name, ok := contractTypes[typeNum]
	if !ok {
		return nil, invalid("contract type %d is not a Tron contract type", typeNum)
	}
	c.Type = name
	if c.PermissionID < 0 || c.PermissionID > 1<<31 {
		return nil, invalid("contract.Permission_id %d is out of range", c.PermissionID)
	}
	if !hasParam {
		return nil, invalid("the %s has no parameter", name)
	}
	if want := "type.googleapis.com/protocol." + name; typeURL != want {
		return nil, invalid("the %s's parameter is a %q, not a %q", name, typeURL, want)
	}
	if err := c.parseParameter(param); err != nil {
		return nil, invalid("%s: %s", name, err.Error())
	}
	return c, nil
}

// parseAny reads google.protobuf.Any {type_url = 1, value = 2}.
func parseAny(b []byte) (string, []byte, error) {
	fields, err := decode(b, "contract.parameter")
	if err != nil {
		return "", nil, err
	}
	var url string
	var value []byte
	for _, f := range fields {
		switch f.num {
		case 1:
			if err := f.expect(wireLen, "contract.parameter", "type_url"); err != nil {
				return "", nil, err
			}
			url = string(f.data)
		case 2:
			if err := f.expect(wireLen, "contract.parameter", "value"); err != nil {
				return "", nil, err
			}
			value = f.data
		}
	}
	return url, value, nil
}

// param describes one field of a contract's parameter message: where it goes in Contract.
type param struct {
	name string
	typ  int
	set  func(c *Contract, f field) error
}

func addr(dst func(*Contract) **string) func(*Contract, field) error {
	return func(c *Contract, f field) error {
		a, err := Address(f.data)
		if err == nil {
			*dst(c) = &a
		}
		return err
	}
}

func amount(name string, dst func(*Contract) **int64) func(*Contract, field) error {
	return func(c *Contract, f field) error {
		if f.int64() < 0 {
			return fmt.Errorf("%s is negative", name)
		}
		v := f.int64()
		*dst(c) = &v
		return nil
	}
}

func resource(c *Contract, f field) error {
	r, ok := resources[f.u]
	if !ok {
		return fmt.Errorf("resource %d is not BANDWIDTH, ENERGY or TRON_POWER", f.u)
	}
	c.Resource = &r
	return nil
}

var (
	owner    = param{"owner_address", wireLen, addr(func(c *Contract) **string { return &c.OwnerAddress })}
	receiver = func(n string) param {
		return param{n, wireLen, addr(func(c *Contract) **string { return &c.ReceiverAddress })}
	}
	res     = param{"resource", wireVarint, resource}
	balance = param{"balance", wireVarint, amount("balance", func(c *Contract) **int64 { return &c.Balance })}
)

// params are the parameter messages of the contract types the policy engine reads, by field number. Every field of a
// type is present (at its zero value when the encoding leaves it out).
var params = map[string]map[int]param{
	"TransferContract": {
		1: owner,
		2: {"to_address", wireLen, addr(func(c *Contract) **string { return &c.ToAddress })},
		3: {"amount", wireVarint, amount("amount", func(c *Contract) **int64 { return &c.Amount })},
	},
	"TriggerSmartContract": {
		1: owner,
		2: {"contract_address", wireLen, addr(func(c *Contract) **string { return &c.ContractAddress })},
		3: {"call_value", wireVarint, amount("call_value", func(c *Contract) **int64 { return &c.CallValue })},
		4: {"data", wireLen, func(c *Contract, f field) error { d := hex.EncodeToString(f.data); c.Data = &d; return nil }},
		5: {"call_token_value", wireVarint, amount("call_token_value", func(c *Contract) **int64 { return &c.CallTokenValue })},
		6: {"token_id", wireVarint, amount("token_id", func(c *Contract) **int64 { return &c.TokenID })},
	},
	"FreezeBalanceV2Contract": {
		1: owner,
		2: {"frozen_balance", wireVarint, amount("frozen_balance", func(c *Contract) **int64 { return &c.FrozenBalance })},
		3: res,
	},
	"UnfreezeBalanceV2Contract": {
		1: owner,
		2: {"unfreeze_balance", wireVarint, amount("unfreeze_balance", func(c *Contract) **int64 { return &c.UnfreezeBalance })},
		3: res,
	},
	"DelegateResourceContract": {
		1: owner, 2: res, 3: balance, 4: receiver("receiver_address"),
		5: {"lock", wireVarint, func(c *Contract, f field) error { l := f.u != 0; c.Lock = &l; return nil }},
		6: {"lock_period", wireVarint, amount("lock_period", func(c *Contract) **int64 { return &c.LockPeriod })},
	},
	"UnDelegateResourceContract": {1: owner, 2: res, 3: balance, 4: receiver("receiver_address")},
	"AccountPermissionUpdateContract": {
		1: owner,
		2: {"owner", wireLen, func(c *Contract, f field) error { p, err := parsePermission(f.data); c.Owner = p; return err }},
		3: {"witness", wireLen, func(c *Contract, f field) error { p, err := parsePermission(f.data); c.Witness = p; return err }},
		4: {"actives", wireLen, func(c *Contract, f field) error {
			p, err := parsePermission(f.data)
			if err == nil {
				c.Actives = append(c.Actives, *p)
			}
			return err
		}},
	},
}

// parseParameter reads the parameter of the contract types in params; other types keep only their type and
// permission id (their parameter must still be well-formed protobuf).
func (c *Contract) parseParameter(b []byte) error {
	spec, known := params[c.Type]
	repeated := []int{}
	if c.Type == "AccountPermissionUpdateContract" {
		repeated = []int{4}
	}
	fields, err := decode(b, "parameter", repeated...)
	if err != nil {
		return err
	}
	if !known {
		return nil
	}
	c.setDefaults()
	for _, f := range fields {
		p, ok := spec[f.num]
		if !ok {
			continue
		}
		if err := f.expect(p.typ, "parameter", p.name); err != nil {
			return err
		}
		if err := p.set(c, f); err != nil {
			return err
		}
	}
	if c.OwnerAddress == nil {
		return errors.New("owner_address is missing")
	}
	return nil
}

// setDefaults gives every field of the contract's type its zero value; addresses stay nil until read (an address is
// never empty on a valid contract, except the optional ones checked by their type).
func (c *Contract) setDefaults() {
	zero := func() *int64 { var v int64; return &v }
	switch c.Type {
	case "TransferContract":
		c.Amount = zero()
	case "TriggerSmartContract":
		c.CallValue, c.CallTokenValue, c.TokenID = zero(), zero(), zero()
		d := ""
		c.Data = &d
	case "FreezeBalanceV2Contract":
		c.FrozenBalance = zero()
	case "UnfreezeBalanceV2Contract":
		c.UnfreezeBalance = zero()
	case "DelegateResourceContract":
		c.Balance, c.LockPeriod = zero(), zero()
		l := false
		c.Lock = &l
	case "UnDelegateResourceContract":
		c.Balance = zero()
	case "AccountPermissionUpdateContract":
		c.Actives = []Permission{}
	}
	switch c.Type {
	case "FreezeBalanceV2Contract", "UnfreezeBalanceV2Contract", "DelegateResourceContract", "UnDelegateResourceContract":
		r := resources[0]
		c.Resource = &r
	}
}

func parsePermission(b []byte) (*Permission, error) {
	fields, err := decode(b, "permission", 7)
	if err != nil {
		return nil, err
	}
	p := &Permission{Type: "Owner", Keys: []Key{}}
	for _, f := range fields {
		var err error
		switch f.num {
		case 1:
			if err = f.expect(wireVarint, "permission", "type"); err == nil {
				t, ok := permissionTypes[f.u]
				if !ok {
					return nil, fmt.Errorf("permission type %d is not Owner, Witness or Active", f.u)
				}
				p.Type = t
			}
		case 2:
			err = f.expect(wireVarint, "permission", "id")
			p.ID = f.int64()
		case 3:
			err = f.expect(wireLen, "permission", "permission_name")
			p.PermissionName = string(f.data)
		case 4:
			err = f.expect(wireVarint, "permission", "threshold")
			p.Threshold = f.int64()
		case 5:
			err = f.expect(wireVarint, "permission", "parent_id")
			p.ParentID = f.int64()
		case 6:
			err = f.expect(wireLen, "permission", "operations")
			p.Operations = hex.EncodeToString(f.data)
		case 7:
			if err = f.expect(wireLen, "permission", "keys"); err == nil {
				var k Key
				k, err = parseKey(f.data)
				p.Keys = append(p.Keys, k)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	if p.ID < 0 || p.Threshold < 0 || p.ParentID < 0 {
		return nil, errors.New("a permission's id, threshold or parent id is negative")
	}
	return p, nil
}

func parseKey(b []byte) (Key, error) {
	fields, err := decode(b, "key")
	if err != nil {
		return Key{}, err
	}
	var k Key
	for _, f := range fields {
		switch f.num {
		case 1:
			if err := f.expect(wireLen, "key", "address"); err != nil {
				return Key{}, err
			}
			if k.Address, err = Address(f.data); err != nil {
				return Key{}, err
			}
		case 2:
			if err := f.expect(wireVarint, "key", "weight"); err != nil {
				return Key{}, err
			}
			if k.Weight = f.int64(); k.Weight < 0 {
				return Key{}, errors.New("a key's weight is negative")
			}
		}
	}
	return k, nil
}

// Address renders a 21-byte Tron address (0x41 and 20 bytes) in base58check (T...).
func Address(b []byte) (string, error) {
	if len(b) != 21 || b[0] != 0x41 {
		return "", fmt.Errorf("address %s is not a Tron address (0x41 and 20 bytes)", strings.ToLower(hex.EncodeToString(b)))
	}
	return keys.TronAddress(b[1:]), nil
}

// Signed is the serialized Transaction {raw_data = 1, signature = 2} of the raw data and one 65-byte signature.
func Signed(raw, signature []byte) []byte {
	out := appendLen(nil, 1, raw)
	return appendLen(out, 2, signature)
}

func appendLen(b []byte, num int, data []byte) []byte {
	b = appendUvarint(b, uint64(num)<<3|wireLen)
	b = appendUvarint(b, uint64(len(data)))
	return append(b, data...)
}

func appendUvarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}
