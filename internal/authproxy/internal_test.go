package authproxy

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sigil/sigil/internal/seal"
)

func TestLimiter(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_700_000_000, 0)
	l := newLimiter(2, 3)
	for i := 0; i < 3; i++ {
		if ok, _ := l.allow("a", now); !ok {
			t.Fatalf("request %d of the burst refused", i)
		}
	}
	ok, wait := l.allow("a", now)
	if ok || wait != 500*time.Millisecond {
		t.Fatalf("over the burst: %t, wait %s", ok, wait)
	}
	if ok, _ := l.allow("b", now); !ok {
		t.Fatal("another key shares the bucket")
	}
	if ok, _ := l.allow("a", now.Add(500*time.Millisecond)); !ok {
		t.Fatal("no token after the refill interval")
	}
	// Idle buckets are dropped once they would be full again.
	l.allow("c", now.Add(time.Hour))
	if n := l.size(); n != 1 {
		t.Fatalf("%d buckets after an hour, want 1", n)
	}
	if ok, _ := newLimiter(-1, 0).allow("x", now); !ok {
		t.Fatal("a disabled limiter refused")
	}
}

func FuzzUnverifiedTokenContact(f *testing.F) {
	payload := base64.RawURLEncoding.EncodeToString([]byte(`{"verification_type":"OTP_TYPE_EMAIL","contact":"a@b.c","id":"x"}`))
	f.Add("eyJhbGciOiJFUzI1NiJ9." + payload + ".c2ln")
	f.Add("a.b.c")
	f.Add("")
	f.Add("..")
	f.Fuzz(func(t *testing.T, tok string) {
		c, err := unverifiedTokenContact(tok)
		if err == nil && c.Contact == "" {
			t.Fatalf("accepted %q without a contact", tok)
		}
	})
}

func TestIdentityFile(t *testing.T) {
	t.Parallel()
	path := t.TempDir() + "/authproxy.json"
	id, err := LoadOrCreateIdentity(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("identity file mode %v, %v", info.Mode(), err)
	}
	again, err := LoadOrCreateIdentity(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if again.ServicePublicKey() != id.ServicePublicKey() || !again.EncryptionPublicKey().Equal(id.EncryptionPublicKey()) {
		t.Fatal("the identity changed when it was loaded again")
	}
	if s := fmt.Sprint(id); strings.Contains(s, id.ServiceKey.PrivateKeyHex()) {
		t.Fatal("the identity prints its private key")
	}
	if err := os.WriteFile(path, []byte(`{"encryptionPrivateKey":"zz"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadIdentity(path, nil); err == nil || strings.Contains(err.Error(), "zz") {
		t.Fatalf("corrupt identity: %v", err)
	}
}

// With the master key (production mode) the identity file holds its private keys sealed: nothing in it opens without
// the key; a file written in clear before is sealed in place at the next load.
func TestIdentityFileSealed(t *testing.T) {
	t.Parallel()
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	ring, err := seal.NewKeyring(1, seal.MasterKey{Version: 1, Key: key})
	if err != nil {
		t.Fatal(err)
	}
	path := t.TempDir() + "/authproxy.json"
	plain, err := LoadOrCreateIdentity(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	id, err := LoadOrCreateIdentity(path, ring)
	if err != nil || id.ServicePublicKey() != plain.ServicePublicKey() {
		t.Fatalf("the identity in clear, loaded with the master key: %v %v", id, err)
	}
	data, _ := os.ReadFile(path)
	for _, secret := range []string{id.ServiceKey.PrivateKeyHex(), hex.EncodeToString(id.EncryptionKey.Bytes())} {
		if strings.Contains(string(data), secret) {
			t.Fatalf("the sealed identity file holds a private key in clear:\n%s", data)
		}
	}
	if !strings.Contains(string(data), id.ServicePublicKey()) {
		t.Errorf("the sealed identity file does not name its public key:\n%s", data)
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("identity file mode %v, %v", info.Mode(), err)
	}
	if _, err := LoadIdentity(path, nil); !errors.Is(err, ErrSealed) {
		t.Errorf("the sealed file without the master key: %v", err)
	}
	other, _ := seal.NewKeyring(1, seal.MasterKey{Version: 1, Key: make([]byte, 32)})
	if _, err := LoadIdentity(path, other); err == nil {
		t.Error("the sealed file opened with another master key")
	}
	again, err := LoadIdentity(path, ring)
	if err != nil || again.ServicePublicKey() != id.ServicePublicKey() || !again.EncryptionPublicKey().Equal(id.EncryptionPublicKey()) {
		t.Fatalf("the sealed file with the master key: %v %v", again, err)
	}
}
