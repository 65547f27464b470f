package evm

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/holiman/uint256"

	"github.com/sigil/sigil/internal/keys"
)

// signPayload signs p with a secp256k1 key and returns r||s||v+27 as hex,
// the layout viem returns.
func signPayload(t *testing.T, p *RawPayload, priv []byte) string {
	t.Helper()
	in, err := p.SigningInput(keys.CurveSecp256k1)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := keys.Sign(keys.CurveSecp256k1, priv, in)
	if err != nil {
		t.Fatal(err)
	}
	raw := sig.Ethereum()
	raw[64] += 27
	return hex.EncodeToString(raw)
}

// TestPersonalSignAsTurnkeyViemSendsIt: @turnkey/viem's signMessage sends
// hashMessage(message) as 0x hex with HASH_FUNCTION_NO_OP.
func TestPersonalSignAsTurnkeyViemSendsIt(t *testing.T) {
	f := loadViem(t)
	p, err := ParseRawPayload("0x"+f.Personal.Hash, EncodingHexadecimal, HashNoOp)
	if err != nil {
		t.Fatal(err)
	}
	if got := signPayload(t, p, mustHex(t, f.PrivateKey)); got != f.Personal.Signature {
		t.Errorf("signature = %s, viem signMessage = %s", got, f.Personal.Signature)
	}
	// The same digest computed here from the message (EIP-191).
	msg := f.Personal.Message
	digest := crypto.Keccak256([]byte("\x19Ethereum Signed Message:\n" + strconv.Itoa(len(msg)) + msg))
	if hex.EncodeToString(digest) != f.Personal.Hash {
		t.Errorf("EIP-191 digest = %x, viem hashMessage = %s", digest, f.Personal.Hash)
	}
}

func TestSigningInput(t *testing.T) {
	digest := bytes.Repeat([]byte{0xab}, 32)
	text := "hello"
	sha := sha256.Sum256([]byte(text))
	tests := []struct {
		name     string
		payload  string
		encoding PayloadEncoding
		hash     HashFunction
		curve    keys.Curve
		want     []byte
	}{
		{"hex no-op with 0x", "0x" + hex.EncodeToString(digest), EncodingHexadecimal, HashNoOp, keys.CurveSecp256k1, digest},
		{"hex no-op without 0x", hex.EncodeToString(digest), EncodingHexadecimal, HashNoOp, keys.CurveP256, digest},
		{"hex upper case", strings.ToUpper(hex.EncodeToString(digest)), EncodingHexadecimal, HashNoOp, keys.CurveSecp256k1, digest},
		{"text sha256", text, EncodingTextUTF8, HashSHA256, keys.CurveP256, sha[:]},
		{"text keccak256", text, EncodingTextUTF8, HashKeccak256, keys.CurveSecp256k1, crypto.Keccak256([]byte(text))},
		{"hex keccak256", "68656c6c6f", EncodingHexadecimal, HashKeccak256, keys.CurveSecp256k1, crypto.Keccak256([]byte(text))},
		{"ed25519 message itself", text, EncodingTextUTF8, HashNotApplicable, keys.CurveEd25519, []byte(text)},
		{"ed25519 hex message", "0x68656c6c6f", EncodingHexadecimal, HashNotApplicable, keys.CurveEd25519, []byte(text)},
		{"eip712 no-op", mailExample, EncodingEIP712, HashNoOp, keys.CurveSecp256k1, common.FromHex(mailHash)},
		{"eip712 keccak means the same", mailExample, EncodingEIP712, HashKeccak256, keys.CurveSecp256k1, common.FromHex(mailHash)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ParseRawPayload(tt.payload, tt.encoding, tt.hash)
			if err != nil {
				t.Fatal(err)
			}
			got, err := p.SigningInput(tt.curve)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, tt.want) {
				t.Errorf("signing input = %x, want %x", got, tt.want)
			}
		})
	}
}

func TestEd25519PayloadSignatureVerifies(t *testing.T) {
	priv := bytes.Repeat([]byte{3}, 32)
	p, err := ParseRawPayload("a solana message", EncodingTextUTF8, HashNotApplicable)
	if err != nil {
		t.Fatal(err)
	}
	in, err := p.SigningInput(keys.CurveEd25519)
	if err != nil {
		t.Fatal(err)
	}
	sig, _ := keys.Sign(keys.CurveEd25519, priv, in)
	pub, _ := keys.PublicKey(keys.CurveEd25519, priv)
	if !ed25519.Verify(pub, []byte("a solana message"), append(sig.R[:], sig.S[:]...)) {
		t.Error("signature does not verify")
	}
}

func TestPayloadErrors(t *testing.T) {
	digest := hex.EncodeToString(bytes.Repeat([]byte{1}, 32))
	tests := []struct {
		name     string
		payload  string
		encoding PayloadEncoding
		hash     HashFunction
		curve    keys.Curve
		wantErr  string
	}{
		{"unknown encoding", digest, "PAYLOAD_ENCODING_BASE64", HashNoOp, keys.CurveSecp256k1, "unknown payload encoding"},
		{"unknown hash", digest, EncodingHexadecimal, "HASH_FUNCTION_MD5", keys.CurveSecp256k1, "unknown hash function"},
		{"bad hex", "0xgg", EncodingHexadecimal, HashSHA256, keys.CurveSecp256k1, "not hex"},
		{"odd hex", "abc", EncodingHexadecimal, HashSHA256, keys.CurveSecp256k1, "odd number"},
		{"empty", "", EncodingTextUTF8, HashSHA256, keys.CurveSecp256k1, "payload is empty"},
		{"empty hex", "0x", EncodingHexadecimal, HashSHA256, keys.CurveSecp256k1, "payload is empty"},
		{"bad utf8", "\xff\xfe", EncodingTextUTF8, HashSHA256, keys.CurveSecp256k1, "not valid UTF-8"},
		{"no-op not 32 bytes", "0x1234", EncodingHexadecimal, HashNoOp, keys.CurveSecp256k1, "must be 32 bytes, got 2"},
		{"no-op text", "hello", EncodingTextUTF8, HashNoOp, keys.CurveP256, "must be 32 bytes, got 5"},
		{"not applicable on ecdsa", digest, EncodingHexadecimal, HashNotApplicable, keys.CurveSecp256k1, "is for Ed25519 keys"},
		{"ed25519 with sha256", digest, EncodingHexadecimal, HashSHA256, keys.CurveEd25519, "use HASH_FUNCTION_NOT_APPLICABLE"},
		{"ed25519 with eip712", mailExample, EncodingEIP712, HashNoOp, keys.CurveEd25519, "use HASH_FUNCTION_NOT_APPLICABLE"},
		{"eip712 sha256", mailExample, EncodingEIP712, HashSHA256, keys.CurveSecp256k1, "use HASH_FUNCTION_NO_OP"},
		{"eip712 bad json", "{", EncodingEIP712, HashNoOp, keys.CurveSecp256k1, "invalid EIP-712 typed data"},
		{"authorization missing nonce", `{"address":"0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC","chainId":1}`, EncodingEIP7702Authorization, HashNoOp, keys.CurveSecp256k1, "needs address, chainId and nonce"},
		{"authorization bad address", `{"address":"0x3C44","chainId":1,"nonce":0}`, EncodingEIP7702Authorization, HashNoOp, keys.CurveSecp256k1, "not a 0x-prefixed 20-byte"},
		{"authorization unknown field", `{"address":"0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC","chainId":1,"nonce":0,"x":1}`, EncodingEIP7702Authorization, HashNoOp, keys.CurveSecp256k1, "unknown field"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ParseRawPayload(tt.payload, tt.encoding, tt.hash)
			if err == nil {
				_, err = p.SigningInput(tt.curve)
			}
			if err == nil {
				t.Fatal("want an error")
			}
			if !errors.Is(err, ErrInvalidPayload) && !strings.Contains(tt.wantErr, "unknown curve") {
				t.Errorf("error %v does not wrap ErrInvalidPayload", err)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %q does not contain %q", err, tt.wantErr)
			}
		})
	}
}

// TestAuthorizationMatchesGoEthereum signs an EIP-7702 authorization payload
// as @turnkey/viem sends it and checks go-ethereum recovers the signer.
func TestAuthorizationMatchesGoEthereum(t *testing.T) {
	f := loadViem(t)
	priv := mustHex(t, f.PrivateKey)
	for _, payload := range []string{
		`{"address":"0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC","chainId":31337,"nonce":7}`,
		`{"address":"0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc","chainId":"0x7a69","nonce":"7"}`,
	} {
		p, err := ParseRawPayload(payload, EncodingEIP7702Authorization, HashNoOp)
		if err != nil {
			t.Fatal(err)
		}
		a := p.Authorization
		if a.Address != "0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc" || a.ChainID.Int64() != 31337 || a.Nonce != 7 {
			t.Errorf("authorization view = %+v", a)
		}
		in, err := p.SigningInput(keys.CurveSecp256k1)
		if err != nil {
			t.Fatal(err)
		}
		sig, _ := keys.Sign(keys.CurveSecp256k1, priv, in)
		auth := types.SetCodeAuthorization{
			ChainID: *uint256.NewInt(31337), Address: common.HexToAddress(a.Address), Nonce: 7,
			V: sig.V, R: *new(uint256.Int).SetBytes(sig.R[:]), S: *new(uint256.Int).SetBytes(sig.S[:]),
		}
		authority, err := auth.Authority()
		if err != nil {
			t.Fatal(err)
		}
		if authority.Hex() != f.Address {
			t.Errorf("go-ethereum recovers %s, want %s", authority.Hex(), f.Address)
		}
	}
}

func FuzzParseRawPayload(f *testing.F) {
	f.Add("0x"+strings.Repeat("ab", 32), 0, 0)
	f.Add(`{"address":"0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC","chainId":1,"nonce":0}`, 3, 0)
	f.Add(mailExample, 2, 2)
	encodings := []PayloadEncoding{EncodingHexadecimal, EncodingTextUTF8, EncodingEIP712, EncodingEIP7702Authorization}
	hashes := []HashFunction{HashNoOp, HashSHA256, HashKeccak256, HashNotApplicable}
	curves := []keys.Curve{keys.CurveSecp256k1, keys.CurveP256, keys.CurveEd25519}
	f.Fuzz(func(t *testing.T, payload string, enc, hash int) {
		p, err := ParseRawPayload(payload, encodings[uint(enc)%4], hashes[uint(hash)%4])
		if err != nil {
			return
		}
		for _, c := range curves {
			in, err := p.SigningInput(c)
			if err == nil && c != keys.CurveEd25519 && len(in) != 32 {
				t.Fatalf("%s signing input is %d bytes", c, len(in))
			}
		}
	})
}
