package keys

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/hex"
	"math/big"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/btcec/v2/schnorr"
	"github.com/ethereum/go-ethereum/crypto"
)

func TestSignSecp256k1Recovers(t *testing.T) {
	half := new(big.Int).Rsh(crypto.S256().Params().N, 1)
	for i := range 20 {
		priv := sha256.Sum256([]byte{byte(i)})
		digest := sha256.Sum256([]byte{byte(i), 1})
		sig, err := Sign(CurveSecp256k1, priv[:], digest[:])
		if err != nil {
			t.Fatal(err)
		}
		if sig.V > 1 {
			t.Fatalf("V = %d, want 0 or 1", sig.V)
		}
		if new(big.Int).SetBytes(sig.S[:]).Cmp(half) > 0 {
			t.Fatal("S is not low")
		}
		pub, err := crypto.SigToPub(digest[:], sig.Ethereum())
		if err != nil {
			t.Fatal(err)
		}
		want, _ := PublicKey(CurveSecp256k1, priv[:])
		if !bytes.Equal(crypto.CompressPubkey(pub), want) {
			t.Fatal("recovered a different public key")
		}
	}
}

func TestSignSecp256k1IsDeterministic(t *testing.T) {
	priv := sha256.Sum256([]byte("k"))
	digest := sha256.Sum256([]byte("m"))
	a, _ := Sign(CurveSecp256k1, priv[:], digest[:])
	b, _ := Sign(CurveSecp256k1, priv[:], digest[:])
	if a != b {
		t.Error("RFC 6979 signatures differ")
	}
	// go-ethereum's signer (libsecp256k1, RFC 6979) must agree byte for byte.
	k, _ := crypto.ToECDSA(priv[:])
	want, err := crypto.Sign(digest[:], k)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Ethereum(), want) {
		t.Errorf("signature %x, go-ethereum %x", a.Ethereum(), want)
	}
}

func TestSignP256(t *testing.T) {
	half := new(big.Int).Rsh(elliptic.P256().Params().N, 1)
	for i := range 20 {
		priv := sha256.Sum256([]byte{byte(i), 2})
		digest := sha256.Sum256([]byte{byte(i), 3})
		sig, err := Sign(CurveP256, priv[:], digest[:])
		if err != nil {
			t.Fatal(err)
		}
		if new(big.Int).SetBytes(sig.S[:]).Cmp(half) > 0 {
			t.Fatal("S is not low")
		}
		k, _ := ecdsa.ParseRawPrivateKey(elliptic.P256(), priv[:])
		r, s := new(big.Int).SetBytes(sig.R[:]), new(big.Int).SetBytes(sig.S[:])
		if !ecdsa.Verify(&k.PublicKey, digest[:], r, s) {
			t.Fatal("signature does not verify")
		}
	}
}

func TestSignEd25519RFC8032(t *testing.T) {
	// RFC 8032 section 7.1, TEST 1 (empty message).
	priv := mustHex(t, "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
	want := "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
	sig, err := Sign(CurveEd25519, priv, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := hex.EncodeToString(sig.R[:]) + hex.EncodeToString(sig.S[:]); got != want {
		t.Errorf("signature = %s, want %s", got, want)
	}
	pub, _ := PublicKey(CurveEd25519, priv)
	if hex.EncodeToString(pub) != "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a" {
		t.Errorf("public key = %x", pub)
	}
	msg := []byte("any length message is signed as is")
	sig, _ = Sign(CurveEd25519, priv, msg)
	if !ed25519.Verify(pub, msg, append(sig.R[:], sig.S[:]...)) {
		t.Error("signature over a message does not verify")
	}
}

func TestSignErrors(t *testing.T) {
	key := bytes.Repeat([]byte{1}, 32)
	digest := make([]byte, 32)
	order := mustHex(t, "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141")
	tests := []struct {
		name    string
		curve   Curve
		key     []byte
		payload []byte
		wantErr string
	}{
		{"secp256k1 short digest", CurveSecp256k1, key, digest[:31], "32-byte digest"},
		{"secp256k1 long digest", CurveSecp256k1, key, make([]byte, 33), "32-byte digest"},
		{"secp256k1 zero key", CurveSecp256k1, make([]byte, 32), digest, "invalid secp256k1 private key"},
		{"secp256k1 key equal to order", CurveSecp256k1, order, digest, "invalid secp256k1 private key"},
		{"secp256k1 short key", CurveSecp256k1, key[:31], digest, "invalid secp256k1 private key"},
		{"p256 short digest", CurveP256, key, digest[:20], "32-byte digest"},
		{"p256 zero key", CurveP256, make([]byte, 32), digest, "invalid P-256 private key"},
		{"ed25519 short key", CurveEd25519, key[:16], digest, "want 32"},
		{"unknown curve", "CURVE_FOO", key, digest, "unknown curve"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Sign(tt.curve, tt.key, tt.payload)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}

func BenchmarkSignSecp256k1(b *testing.B) {
	priv := sha256.Sum256([]byte("bench"))
	digest := sha256.Sum256([]byte("digest"))
	for b.Loop() {
		if _, err := SignSecp256k1(priv[:], digest[:]); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDeriveEthereumAccount(b *testing.B) {
	seed := bytes.Repeat([]byte{9}, 64)
	path, _ := ParsePath("m/44'/60'/0'/0/0")
	for b.Loop() {
		n, err := DeriveNode(CurveSecp256k1, seed, path)
		if err != nil {
			b.Fatal(err)
		}
		n.Zero()
	}
}

func TestSignatureHex(t *testing.T) {
	var sig Signature
	sig.R[0], sig.S[31], sig.V = 0xab, 0x01, 1
	r, s, v := sig.Hex()
	if r != "ab"+strings.Repeat("0", 62) || s != strings.Repeat("0", 62)+"01" || v != "01" {
		t.Errorf("Hex() = %s, %s, %s", r, s, v)
	}
}

// With BIP-340 test vector 1's key and message: btcec derives its nonces as RFC 6979 does, not from the vector's
// auxiliary randomness, so the signatures are checked by verification, against the key's x coordinate and, tweaked,
// against the key's P2TR output key.
func TestSignSchnorr(t *testing.T) {
	priv := mustHex(t, "b7e151628aed2a6abf7158809cf4f3c762e7160f38b4da56a784d9045190cfef")
	digest := mustHex(t, "243f6a8885a308d313198a2e03707344a4093822299f31d0082efa98ec4e6c89")
	pub, err := PublicKey(CurveSecp256k1, priv)
	if err != nil {
		t.Fatal(err)
	}
	output, err := TaprootOutputKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	for _, tweak := range []bool{false, true} {
		sig, err := SignSchnorr(priv, digest, tweak)
		if err != nil {
			t.Fatal(err)
		}
		key := pub[1:]
		if tweak {
			key = output
		}
		xonly, err := schnorr.ParsePubKey(key)
		if err != nil {
			t.Fatal(err)
		}
		parsed, err := schnorr.ParseSignature(append(sig.R[:], sig.S[:]...))
		if err != nil {
			t.Fatal(err)
		}
		if !parsed.Verify(digest, xonly) || sig.V != 0 {
			t.Errorf("tweak %v: the signature does not verify", tweak)
		}
	}
	if _, err := SignSchnorr(priv, digest[:31], false); err == nil {
		t.Error("a 31-byte digest was signed")
	}
}
