package evm

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"math/big"
	"os"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/holiman/uint256"
)

type viemFixtures struct {
	PrivateKey   string `json:"privateKey"`
	Address      string `json:"address"`
	Transactions map[string]struct {
		Unsigned string `json:"unsigned"`
		Signed   string `json:"signed"`
	} `json:"transactions"`
	EIP712 struct {
		Serialized string `json:"serialized"`
		Hash       string `json:"hash"`
		Signature  string `json:"signature"`
	} `json:"eip712"`
	Personal struct {
		Message   string `json:"message"`
		Hash      string `json:"hash"`
		Signature string `json:"signature"`
	} `json:"personal"`
}

func loadViem(t testing.TB) viemFixtures {
	t.Helper()
	raw, err := os.ReadFile("testdata/viem.json")
	if err != nil {
		t.Fatal(err)
	}
	var f viemFixtures
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.TrimPrefix(s, "0x"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func big10(s string) *big.Int {
	n, ok := new(big.Int).SetString(s, 10)
	if !ok {
		panic(s)
	}
	return n
}

const (
	fixtureTo   = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8"
	fixtureData = "0xa9059cbb0000000000000000000000003c44cdddb6a900fa2b585dd299e03d12fa4293bc00000000000000000000000000000000000000000000000000000000000f4240"
)

// TestViemTransactions decodes what @turnkey/viem sends, signs it and
// compares with viem's own signature of the same transaction (both sides use
// RFC 6979 nonces, so the bytes must be identical).
func TestViemTransactions(t *testing.T) {
	f := loadViem(t)
	priv := mustHex(t, f.PrivateKey)
	want := map[string]TxView{
		"legacy_no_chain_id": {To: fixtureTo, Data: "0x", Type: TypeLegacy, Value: big10("1000000000000000000"), Gas: big.NewInt(21000),
			GasPrice: big.NewInt(20000000000), ChainID: big.NewInt(0), Nonce: big.NewInt(7)},
		"legacy_eip155": {To: fixtureTo, Data: fixtureData, Type: TypeLegacy, Value: big.NewInt(0), Gas: big.NewInt(60000),
			GasPrice: big.NewInt(1000000000), ChainID: big.NewInt(1), Nonce: big.NewInt(0)},
		"legacy_create": {To: "", Data: "0x6080604052", Type: TypeLegacy, Value: big.NewInt(0), Gas: big.NewInt(100000),
			GasPrice: big.NewInt(1), ChainID: big.NewInt(31337), Nonce: big.NewInt(1)},
		"eip2930": {To: fixtureTo, Data: fixtureData, Type: Type1, Value: big.NewInt(5), Gas: big.NewInt(50000),
			GasPrice: big.NewInt(2000000000), ChainID: big.NewInt(11155111), Nonce: big.NewInt(3)},
		"eip1559": {To: fixtureTo, Data: fixtureData, Type: Type2, Value: big.NewInt(0), Gas: big.NewInt(65000),
			GasPrice: big.NewInt(30000000000), ChainID: big.NewInt(1), Nonce: big.NewInt(12),
			MaxFeePerGas: big.NewInt(30000000000), MaxPriorityFeePerGas: big.NewInt(1500000000)},
		"eip1559_create_zero_nonce": {To: "", Data: "0x6080", Type: Type2, Value: big.NewInt(0), Gas: big.NewInt(1000000),
			GasPrice: big.NewInt(1), ChainID: big.NewInt(1337), Nonce: big.NewInt(0), MaxFeePerGas: big.NewInt(1), MaxPriorityFeePerGas: big.NewInt(0)},
		"eip4844": {To: fixtureTo, Data: "0x", Type: Type3, Value: big.NewInt(0), Gas: big.NewInt(21000),
			GasPrice: big.NewInt(2), ChainID: big.NewInt(1), Nonce: big.NewInt(2),
			MaxFeePerGas: big.NewInt(2), MaxPriorityFeePerGas: big.NewInt(1), MaxFeePerBlobGas: big.NewInt(3)},
		"eip7702": {To: fixtureTo, Data: "0x", Type: Type4, Value: big.NewInt(0), Gas: big.NewInt(100000),
			GasPrice: big.NewInt(2), ChainID: big.NewInt(1), Nonce: big.NewInt(4), MaxFeePerGas: big.NewInt(2), MaxPriorityFeePerGas: big.NewInt(1)},
	}
	if len(f.Transactions) != len(want) {
		t.Fatalf("fixtures have %d transactions, the test expects %d", len(f.Transactions), len(want))
	}
	for name, fx := range f.Transactions {
		t.Run(name, func(t *testing.T) {
			u, err := DecodeUnsignedTransaction("0x" + fx.Unsigned)
			if err != nil {
				t.Fatal(err)
			}
			if got := u.SigningHash(); got != crypto.Keccak256Hash(mustHex(t, fx.Unsigned)) {
				t.Errorf("signing hash %s is not keccak256 of the unsigned bytes", got)
			}
			signed, err := u.Sign(priv)
			if err != nil {
				t.Fatal(err)
			}
			if signed != fx.Signed {
				t.Errorf("signed =\n%s\nviem signed =\n%s", signed, fx.Signed)
			}
			var tx types.Transaction
			if err := tx.UnmarshalBinary(mustHex(t, signed)); err != nil {
				t.Fatalf("go-ethereum cannot read the signed transaction: %v", err)
			}
			sender, err := types.Sender(u.signer, &tx)
			if err != nil || sender.Hex() != f.Address {
				t.Errorf("recovered sender %s, %v; want %s", sender.Hex(), err, f.Address)
			}
			w := want[name]
			w.From = strings.ToLower(f.Address)
			for _, p := range []**big.Int{&w.MaxFeePerGas, &w.MaxPriorityFeePerGas, &w.MaxFeePerBlobGas} {
				if *p == nil {
					*p = new(big.Int)
				}
			}
			checkView(t, u.View(f.Address), w)
		})
	}
}

func checkView(t *testing.T, got, want TxView) {
	t.Helper()
	strs := []struct{ name, got, want string }{
		{"From", got.From, want.From}, {"To", got.To, want.To}, {"Data", got.Data, want.Data}, {"Type", got.Type, want.Type},
	}
	for _, s := range strs {
		if s.got != s.want {
			t.Errorf("%s = %q, want %q", s.name, s.got, s.want)
		}
	}
	ints := []struct {
		name      string
		got, want *big.Int
	}{
		{"Value", got.Value, want.Value}, {"Gas", got.Gas, want.Gas}, {"GasPrice", got.GasPrice, want.GasPrice},
		{"ChainID", got.ChainID, want.ChainID}, {"Nonce", got.Nonce, want.Nonce}, {"MaxFeePerGas", got.MaxFeePerGas, want.MaxFeePerGas},
		{"MaxPriorityFeePerGas", got.MaxPriorityFeePerGas, want.MaxPriorityFeePerGas}, {"MaxFeePerBlobGas", got.MaxFeePerBlobGas, want.MaxFeePerBlobGas},
	}
	for _, i := range ints {
		if i.got == nil || i.got.Cmp(i.want) != 0 {
			t.Errorf("%s = %v, want %v", i.name, i.got, i.want)
		}
	}
}

// unsignedEncoding builds the unsigned serialization of a go-ethereum
// transaction independently of the decoder: the signing-hash preimage.
func unsignedEncoding(t *testing.T, tx *types.Transaction, chainID *big.Int) []byte {
	t.Helper()
	var fields []any
	switch tx.Type() {
	case types.LegacyTxType:
		fields = []any{tx.Nonce(), tx.GasPrice(), tx.Gas(), tx.To(), tx.Value(), tx.Data()}
		if chainID != nil {
			fields = append(fields, chainID, uint(0), uint(0))
		}
	case types.AccessListTxType:
		fields = []any{tx.ChainId(), tx.Nonce(), tx.GasPrice(), tx.Gas(), tx.To(), tx.Value(), tx.Data(), tx.AccessList()}
	case types.DynamicFeeTxType:
		fields = []any{tx.ChainId(), tx.Nonce(), tx.GasTipCap(), tx.GasFeeCap(), tx.Gas(), tx.To(), tx.Value(), tx.Data(), tx.AccessList()}
	case types.BlobTxType:
		fields = []any{tx.ChainId(), tx.Nonce(), tx.GasTipCap(), tx.GasFeeCap(), tx.Gas(), tx.To(), tx.Value(), tx.Data(), tx.AccessList(), tx.BlobGasFeeCap(), tx.BlobHashes()}
	case types.SetCodeTxType:
		fields = []any{tx.ChainId(), tx.Nonce(), tx.GasTipCap(), tx.GasFeeCap(), tx.Gas(), tx.To(), tx.Value(), tx.Data(), tx.AccessList(), tx.SetCodeAuthorizations()}
	}
	enc, err := rlp.EncodeToBytes(fields)
	if err != nil {
		t.Fatal(err)
	}
	if tx.Type() == types.LegacyTxType {
		return enc
	}
	return append([]byte{tx.Type()}, enc...)
}

// TestGoEthereumTransactions builds each type with go-ethereum, decodes its
// unsigned form and checks that our signature equals go-ethereum's SignTx.
func TestGoEthereumTransactions(t *testing.T) {
	key, _ := crypto.HexToECDSA("b71c71a67e1177ad4e901695e1b4b9ee17ae16c6668d313eac2f96dbcda3f291")
	priv := crypto.FromECDSA(key)
	to := common.HexToAddress("0x8A8eAFb1cf62BfBeb1741769DAE1a9dd47996192")
	chainID := big.NewInt(31337)
	u256 := uint256.NewInt
	huge := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1)) // max uint256 value
	access := types.AccessList{{Address: to, StorageKeys: []common.Hash{{1}, {2}}}}
	auth, err := types.SignSetCode(key, types.SetCodeAuthorization{ChainID: *u256(31337), Address: to, Nonce: 9})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		tx      *types.Transaction
		chainID *big.Int // EIP-155 chain id for legacy transactions
		signer  types.Signer
	}{
		{"homestead", types.NewTx(&types.LegacyTx{Nonce: 1, GasPrice: big.NewInt(7), Gas: 21000, To: &to, Value: huge}), nil, types.HomesteadSigner{}},
		{"eip155", types.NewTx(&types.LegacyTx{Nonce: 1 << 40, GasPrice: big.NewInt(7), Gas: 21000, To: &to, Data: []byte{1, 2, 3}}), chainID, types.NewEIP155Signer(chainID)},
		{"access list", types.NewTx(&types.AccessListTx{ChainID: chainID, Nonce: 2, GasPrice: big.NewInt(3), Gas: 50000, To: &to, AccessList: access}), nil, types.LatestSignerForChainID(chainID)},
		{"dynamic fee", types.NewTx(&types.DynamicFeeTx{ChainID: chainID, Nonce: 3, GasTipCap: big.NewInt(1), GasFeeCap: big.NewInt(9), Gas: 90000, To: &to, Value: big.NewInt(10), Data: []byte{0xa9, 0x05, 0x9c, 0xbb}, AccessList: access}), nil, types.LatestSignerForChainID(chainID)},
		{"dynamic fee create", types.NewTx(&types.DynamicFeeTx{ChainID: chainID, Nonce: 0, GasTipCap: big.NewInt(1), GasFeeCap: big.NewInt(9), Gas: 900000, Data: []byte{0x60, 0x80}}), nil, types.LatestSignerForChainID(chainID)},
		{"blob", types.NewTx(&types.BlobTx{ChainID: u256(31337), Nonce: 4, GasTipCap: u256(1), GasFeeCap: u256(2), Gas: 21000, To: to, Value: u256(0), BlobFeeCap: u256(5), BlobHashes: []common.Hash{{0x01, 0xaa}}}), nil, types.LatestSignerForChainID(chainID)},
		{"set code", types.NewTx(&types.SetCodeTx{ChainID: u256(31337), Nonce: 5, GasTipCap: u256(1), GasFeeCap: u256(2), Gas: 80000, To: to, Value: u256(0), AuthList: []types.SetCodeAuthorization{auth}}), nil, types.LatestSignerForChainID(chainID)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			unsigned := unsignedEncoding(t, tt.tx, tt.chainID)
			u, err := DecodeUnsignedTransactionBytes(unsigned)
			if err != nil {
				t.Fatal(err)
			}
			if u.SigningHash() != tt.signer.Hash(tt.tx) {
				t.Fatal("signing hash differs from go-ethereum's")
			}
			got, err := u.SignBytes(priv)
			if err != nil {
				t.Fatal(err)
			}
			signedByGeth, err := types.SignTx(tt.tx, tt.signer, key)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := signedByGeth.MarshalBinary()
			if hex.EncodeToString(got) != hex.EncodeToString(want) {
				t.Errorf("signed = %x\ngo-ethereum = %x", got, want)
			}
			v := u.View("0xABC")
			if v.Value.Cmp(tt.tx.Value()) != 0 || v.Nonce.Uint64() != tt.tx.Nonce() || v.From != "0xabc" {
				t.Errorf("view = %+v", v)
			}
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	f := loadViem(t)
	legacy := f.Transactions["legacy_eip155"].Unsigned
	dyn := f.Transactions["eip1559"].Unsigned
	signedDyn := f.Transactions["eip1559"].Signed
	signedLegacy := f.Transactions["legacy_eip155"].Signed
	var ints func([]any) []any
	ints = func(fields []any) []any {
		out := make([]any, len(fields))
		for i, v := range fields {
			switch v := v.(type) {
			case int:
				out[i] = uint64(v)
			case []any:
				out[i] = ints(v)
			default:
				out[i] = v
			}
		}
		return out
	}
	encode := func(prefix []byte, fields ...any) string {
		b, err := rlp.EncodeToBytes(ints(fields))
		if err != nil {
			t.Fatal(err)
		}
		return hex.EncodeToString(append(prefix, b...))
	}
	to := common.HexToAddress(fixtureTo)
	one := big.NewInt(1)
	empty := []byte{}
	tests := []struct{ name, in, wantErr string }{
		{"empty", "", "the transaction is empty"},
		{"only 0x", "0x", "the transaction is empty"},
		{"not hex", "0xzz", "not hex"},
		{"odd hex", dyn[:len(dyn)-1], "odd number of digits"},
		{"spaces", "  " + dyn, "not hex"},
		{"unknown type 0x05", "05" + dyn[2:], "unknown transaction type byte 0x05"},
		{"unknown type 0x7f", "7f00", "unknown transaction type byte 0x7f"},
		{"legacy trailing bytes", legacy + "00", "trailing bytes"},
		{"typed trailing bytes", dyn + "c0", "trailing bytes"},
		{"truncated", dyn[:len(dyn)-4], "not a well-formed RLP list"},
		{"typed not a list", "0280", "not a well-formed RLP list"},
		{"legacy 7 fields", encode(nil, 1, 1, 1, to, 1, empty, 1), "legacy transaction has 7 fields"},
		{"legacy signed", signedLegacy, "already signed"},
		{"legacy chain id 0", encode(nil, 1, 1, 1, to, 1, empty, 0, 0, 0), "EIP-155 chain id 0"},
		{"1559 signed", signedDyn, "has 12 fields: want 9; it looks signed"},
		{"1559 8 fields", encode([]byte{2}, 1, 1, 1, 1, 1, to, 1, empty), "has 8 fields: want 9"},
		{"1559 chain id 0", encode([]byte{2}, 0, 1, 1, 1, 1, to, 1, empty, []any{}), "chain id 0"},
		{"1559 short address", encode([]byte{2}, 1, 1, 1, 1, 1, []byte{1, 2}, 1, empty, []any{}), "too short for common.Address"},
		{"non-canonical integer", encode([]byte{2}, 1, []byte{0, 1}, 1, 1, 1, to, 1, empty, []any{}), "non-canonical"},
		{"gas above uint64", encode([]byte{2}, 1, 1, 1, 1, new(big.Int).Lsh(one, 64), to, 1, empty, []any{}), "uint64"},
		{"value above uint256", encode([]byte{2}, 1, 1, 1, 1, 1, to, new(big.Int).Lsh(one, 256), empty, []any{}), "too large"},
		{"blob with sidecar", encode([]byte{3}, []any{1, 2}, []any{}, []any{}, []any{}), "sidecars are not accepted"},
		{"blob create", encode([]byte{3}, 1, 1, 1, 1, 1, empty, 1, empty, []any{}, 1, []any{}), "cannot create contracts"},
		{"7702 create", encode([]byte{4}, 1, 1, 1, 1, 1, empty, 1, empty, []any{}, []any{}), "cannot create contracts"},
		{"7702 no authorizations", encode([]byte{4}, 1, 1, 1, 1, 1, to, 1, empty, []any{}, []any{}), "authorization list is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeUnsignedTransaction(tt.in)
			if err == nil {
				t.Fatal("want an error")
			}
			if !errors.Is(err, ErrInvalidTransaction) {
				t.Errorf("error %v does not wrap ErrInvalidTransaction", err)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %q does not contain %q", err, tt.wantErr)
			}
		})
	}
}

func TestSignRejectsBadKey(t *testing.T) {
	f := loadViem(t)
	u, err := DecodeUnsignedTransaction(f.Transactions["eip1559"].Unsigned)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := u.Sign(make([]byte, 32)); err == nil {
		t.Error("signed with a zero key")
	}
}

func FuzzDecodeUnsignedTransaction(f *testing.F) {
	for _, fx := range loadViem(f).Transactions {
		f.Add(mustHex(f, fx.Unsigned))
		f.Add(mustHex(f, fx.Signed))
	}
	priv := crypto.Keccak256([]byte("fuzz"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		u, err := DecodeUnsignedTransactionBytes(raw)
		if err != nil {
			if !errors.Is(err, ErrInvalidTransaction) {
				t.Fatalf("error %v does not wrap ErrInvalidTransaction", err)
			}
			return
		}
		// Decoding is canonical: the signing preimage is exactly the input.
		if u.SigningHash() != crypto.Keccak256Hash(raw) {
			t.Fatalf("input %x decoded to a transaction with a different signing preimage", raw)
		}
		if _, err := u.SignBytes(priv); err != nil {
			t.Fatalf("decoded transaction cannot be signed: %v", err)
		}
		u.View("0x0")
	})
}

func BenchmarkDecodeUnsignedTransaction(b *testing.B) {
	unsigned := loadViem(b).Transactions["eip1559"].Unsigned
	for b.Loop() {
		if _, err := DecodeUnsignedTransaction(unsigned); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSignTransaction(b *testing.B) {
	f := loadViem(b)
	u, _ := DecodeUnsignedTransaction(f.Transactions["eip1559"].Unsigned)
	priv := mustHex(b, f.PrivateKey)
	for b.Loop() {
		if _, err := u.Sign(priv); err != nil {
			b.Fatal(err)
		}
	}
}
