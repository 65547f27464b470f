package authproxy

import (
	"encoding/base64"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
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
	id, err := LoadOrCreateIdentity(path)
	if err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("identity file mode %v, %v", info.Mode(), err)
	}
	again, err := LoadOrCreateIdentity(path)
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
	if _, err := LoadIdentity(path); err == nil || strings.Contains(err.Error(), "zz") {
		t.Fatalf("corrupt identity: %v", err)
	}
}
