package keys

import (
	"bytes"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/chaincfg"
	"github.com/ethereum/go-ethereum/crypto"
)

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestAddress(t *testing.T) {
	// Private key 1 on secp256k1: the generator point.
	secpCompressed := "0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"
	secpUncompressed := "0479be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8"
	// Private key 1 on P-256: the generator point.
	p256Compressed := "036b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296"
	p256Uncompressed := "046b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c2964fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5"
	// RFC 8032 test 1 public key.
	edPub := "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
	tests := []struct {
		name   string
		curve  Curve
		format AddressFormat
		pub    string
		want   string
	}{
		{"ethereum from compressed", CurveSecp256k1, AddressFormatEthereum, secpCompressed, "0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf"},
		{"ethereum from uncompressed", CurveSecp256k1, AddressFormatEthereum, secpUncompressed, "0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf"},
		{"secp256k1 compressed", CurveSecp256k1, AddressFormatCompressed, secpUncompressed, secpCompressed},
		{"secp256k1 uncompressed", CurveSecp256k1, AddressFormatUncompressed, secpCompressed, secpUncompressed},
		{"p256 compressed", CurveP256, AddressFormatCompressed, p256Uncompressed, p256Compressed},
		{"p256 uncompressed", CurveP256, AddressFormatUncompressed, p256Compressed, p256Uncompressed},
		{"ed25519 compressed is the raw key", CurveEd25519, AddressFormatCompressed, edPub, edPub},
		{"solana", CurveEd25519, AddressFormatSolana, "0000000000000000000000000000000000000000000000000000000000000000", "11111111111111111111111111111111"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Address(tt.curve, tt.format, mustHex(t, tt.pub))
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("Address = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestEthereumAddressMatchesGoEthereum(t *testing.T) {
	seed := mustHex(t, "000102030405060708090a0b0c0d0e0f")
	path, _ := ParsePath("m/44'/60'/0'/0/0")
	n, err := DeriveNode(CurveSecp256k1, seed, path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Address(CurveSecp256k1, AddressFormatEthereum, n.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	k, err := crypto.ToECDSA(n.PrivateKey[:])
	if err != nil {
		t.Fatal(err)
	}
	if want := crypto.PubkeyToAddress(k.PublicKey).Hex(); got != want {
		t.Errorf("Address = %s, go-ethereum says %s", got, want)
	}
}

func TestAddressErrors(t *testing.T) {
	secp := mustHex(t, "0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798")
	tests := []struct {
		name    string
		curve   Curve
		format  AddressFormat
		pub     []byte
		is      error
		wantErr string
	}{
		{"ethereum on ed25519", CurveEd25519, AddressFormatEthereum, make([]byte, 32), ErrAddressFormatCurve, "needs a key on CURVE_SECP256K1"},
		{"ethereum on p256", CurveP256, AddressFormatEthereum, secp, ErrAddressFormatCurve, "not CURVE_P256"},
		{"solana on secp256k1", CurveSecp256k1, AddressFormatSolana, secp, ErrAddressFormatCurve, "needs a key on CURVE_ED25519"},
		{"uncompressed on ed25519", CurveEd25519, AddressFormatUncompressed, make([]byte, 32), ErrAddressFormatCurve, ""},
		{"bitcoin on ed25519", CurveEd25519, "ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH", make([]byte, 32), ErrAddressFormatCurve, "ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH needs a key on CURVE_SECP256K1"},
		{"sui on secp256k1", CurveSecp256k1, AddressFormatSui, secp, ErrAddressFormatCurve, "needs a key on CURVE_ED25519"},
		{"tron on p256", CurveP256, AddressFormatTron, secp, ErrAddressFormatCurve, "not CURVE_P256"},
		{"a format of the future", CurveSecp256k1, "ADDRESS_FORMAT_NEWCHAIN", secp, ErrUnsupportedAddressFormat, "ADDRESS_FORMAT_NEWCHAIN is not an address format Sigil knows"},
		{"unknown format", CurveSecp256k1, "ETHEREUM", secp, nil, "unknown address format"},
		{"bad point", CurveSecp256k1, AddressFormatEthereum, append([]byte{2}, make([]byte, 32)...), nil, "invalid secp256k1 public key"},
		{"bad p256 point", CurveP256, AddressFormatCompressed, append([]byte{4}, make([]byte, 64)...), nil, "invalid P-256 public key"},
		{"short ed25519 key", CurveEd25519, AddressFormatSolana, make([]byte, 31), nil, "want 32"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Address(tt.curve, tt.format, tt.pub)
			if err == nil {
				t.Fatal("want an error")
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v is not %v", err, tt.is)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %q does not contain %q", err, tt.wantErr)
			}
		})
	}
}

func TestBase58(t *testing.T) {
	// Bitcoin Core's base58_encode_decode.json vectors.
	tests := []struct{ hex, want string }{
		{"", ""},
		{"61", "2g"},
		{"626262", "a3gV"},
		{"636363", "aPEr"},
		{"73696d706c792061206c6f6e6720737472696e67", "2cFupjhnEsSn59qHXstmK2ffpLv2"},
		{"00eb15231dfceb60925886b67d065299925915aeb172c06647", "1NS17iag9jJgTHD1VXjvLCEnZuQ3rJDE9L"},
		{"516b6fcd0f", "ABnLTmg"},
		{"bf4f89001e670274dd", "3SEo3LWLoPntC"},
		{"572e4794", "3EFU7m"},
		{"ecac89cad93923c02321", "EJDM8drfXA6uyA"},
		{"10c8511e", "Rt5zm"},
		{"00000000000000000000", "1111111111"},
	}
	for _, tt := range tests {
		if got := Base58Encode(mustHex(t, tt.hex)); got != tt.want {
			t.Errorf("base58(%s) = %s, want %s", tt.hex, got, tt.want)
		}
	}
}

func TestBase58RoundTrip(t *testing.T) {
	t.Parallel()
	for _, b := range [][]byte{{}, {0}, {0, 0, 1}, []byte("hello world"), bytes.Repeat([]byte{0xff}, 32), append([]byte{0, 0}, bytes.Repeat([]byte{7}, 31)...)} {
		s := Base58Encode(b)
		got, err := Base58Decode(s)
		if err != nil || !bytes.Equal(got, b) {
			t.Errorf("Base58Decode(%q) = %x, %v; want %x", s, got, err, b)
		}
	}
	// The System Program's id is 32 zero bytes.
	if b, err := Base58Decode("11111111111111111111111111111111"); err != nil || len(b) != 32 {
		t.Errorf("system program id = %x, %v", b, err)
	}
	if _, err := Base58Decode("0OIl"); err == nil {
		t.Error("characters outside the alphabet were accepted")
	}
}

// Every Bitcoin format names its network and script; no other format is a Bitcoin one.
func TestParseBitcoinFormat(t *testing.T) {
	for f, want := range map[AddressFormat]BitcoinFormat{
		"ADDRESS_FORMAT_BITCOIN_MAINNET_P2PKH": {Network: &chaincfg.MainNetParams, Script: ScriptP2PKH},
		"ADDRESS_FORMAT_BITCOIN_TESTNET_P2SH":  {Network: &chaincfg.TestNet3Params, Script: ScriptP2SH},
		"ADDRESS_FORMAT_BITCOIN_SIGNET_P2WSH":  {Network: &chaincfg.SigNetParams, Script: ScriptP2WSH},
		"ADDRESS_FORMAT_BITCOIN_REGTEST_P2TR":  {Network: &chaincfg.RegressionNetParams, Script: ScriptP2TR},
	} {
		got, ok := ParseBitcoinFormat(f)
		if !ok {
			t.Errorf("%s: not read as a Bitcoin format", f)
		} else if got != want {
			t.Errorf("%s: got %s %s, want %s %s", f, got.Network.Name, got.Script, want.Network.Name, want.Script)
		}
	}
	var n int
	for _, info := range AddressFormats() {
		if _, ok := ParseBitcoinFormat(info.Format); ok != strings.HasPrefix(string(info.Format), "ADDRESS_FORMAT_BITCOIN_") {
			t.Errorf("%s: a Bitcoin format is %v", info.Format, ok)
		} else if ok {
			n++
		}
	}
	if n != len(bitcoinNetworks)*len(bitcoinScripts) {
		t.Errorf("%d Bitcoin formats, want every network with every script", n)
	}
	if _, ok := ParseBitcoinFormat(AddressFormatEthereum); ok {
		t.Error("the Ethereum format parsed as a Bitcoin one")
	}
}
