package seal

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func testKeyring(t testing.TB, active uint32, versions ...uint32) *Keyring {
	t.Helper()
	keys := make([]MasterKey, len(versions))
	for i, v := range versions {
		keys[i] = MasterKey{Version: v, Key: bytes.Repeat([]byte{byte(v)}, 32)}
	}
	k, err := NewKeyring(active, keys...)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestRoundTrip(t *testing.T) {
	k := testKeyring(t, 1, 1)
	aad := []byte("org/1/wallet/2")
	for _, plaintext := range [][]byte{nil, []byte("x"), bytes.Repeat([]byte("mnemonic "), 100)} {
		blob, err := k.Seal(plaintext, aad)
		if err != nil {
			t.Fatal(err)
		}
		if len(blob) != len(plaintext)+Overhead {
			t.Errorf("blob is %d bytes, want %d", len(blob), len(plaintext)+Overhead)
		}
		if len(plaintext) > 8 && bytes.Contains(blob, plaintext[:8]) {
			t.Error("blob contains plaintext")
		}
		got, err := k.Open(blob, aad)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, plaintext) {
			t.Errorf("Open = %q, want %q", got, plaintext)
		}
	}
	a, _ := k.Seal([]byte("same"), aad)
	b, _ := k.Seal([]byte("same"), aad)
	if bytes.Equal(a, b) {
		t.Error("two seals of the same plaintext are identical")
	}
}

func TestOpenFailures(t *testing.T) {
	k := testKeyring(t, 1, 1)
	aad := []byte("org/1/wallet/2")
	blob, err := k.Seal([]byte("secret seed"), aad)
	if err != nil {
		t.Fatal(err)
	}
	otherKey := testKeyring(t, 1, 1)
	otherKey.aeads[1], _ = newAEAD(bytes.Repeat([]byte{9}, 32))

	tests := []struct {
		name string
		k    *Keyring
		blob []byte
		aad  []byte
		want error
	}{
		{"wrong aad", k, blob, []byte("org/1/wallet/3"), ErrAuthentication},
		{"empty aad", k, blob, nil, ErrAuthentication},
		{"wrong master key", otherKey, blob, aad, ErrAuthentication},
		{"unknown version", testKeyring(t, 2, 2), blob, aad, ErrUnknownVersion},
		{"truncated", k, blob[:Overhead-1], aad, ErrMalformed},
		{"empty", k, nil, aad, ErrMalformed},
		{"format version", k, withByte(blob, 0, 2), aad, ErrMalformed},
		{"master version swapped", testKeyring(t, 1, 1, 2), withByte(blob, 4, 2), aad, ErrAuthentication},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.k.Open(tt.blob, tt.aad)
			if !errors.Is(err, tt.want) {
				t.Errorf("Open error = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestEveryTamperedByteIsRejected(t *testing.T) {
	k := testKeyring(t, 1, 1)
	aad := []byte("aad")
	blob, _ := k.Seal([]byte("payload"), aad)
	for i := range blob {
		if _, err := k.Open(withByte(blob, i, blob[i]^0x01), aad); err == nil {
			t.Fatalf("flipping a bit of byte %d went unnoticed", i)
		}
	}
	if _, err := k.Open(append(bytes.Clone(blob), 0), aad); err == nil {
		t.Fatal("an appended byte went unnoticed")
	}
}

func withByte(b []byte, i int, v byte) []byte {
	out := bytes.Clone(b)
	out[i] = v
	return out
}

func TestRewrap(t *testing.T) {
	old := testKeyring(t, 1, 1)
	aad := []byte("org/1/wallet/2")
	blob, _ := old.Seal([]byte("seed"), aad)

	both := testKeyring(t, 2, 1, 2)
	if !both.NeedsRewrap(blob) {
		t.Fatal("a version 1 blob does not need rewrap under active version 2")
	}
	rewrapped, err := both.Rewrap(blob)
	if err != nil {
		t.Fatal(err)
	}
	if both.NeedsRewrap(rewrapped) {
		t.Error("rewrapped blob still needs rewrap")
	}
	if !bytes.Equal(rewrapped[wrappedKeyEnd:], blob[wrappedKeyEnd:]) {
		t.Error("Rewrap changed the payload")
	}
	if v, _ := BlobVersion(rewrapped); v != 2 {
		t.Errorf("rewrapped blob version = %d, want 2", v)
	}
	onlyNew := testKeyring(t, 2, 2)
	if got, err := onlyNew.Open(rewrapped, aad); err != nil || string(got) != "seed" {
		t.Errorf("Open after rotation = %q, %v", got, err)
	}
	if _, err := onlyNew.Open(blob, aad); !errors.Is(err, ErrUnknownVersion) {
		t.Errorf("old blob under the new keyring: error = %v, want ErrUnknownVersion", err)
	}
	if !both.NeedsRewrap([]byte("garbage")) {
		t.Error("a malformed blob should be reported for attention")
	}
	if _, err := both.Rewrap([]byte("garbage")); !errors.Is(err, ErrMalformed) {
		t.Errorf("Rewrap(garbage) error = %v", err)
	}
}

func TestNewKeyringErrors(t *testing.T) {
	key := bytes.Repeat([]byte{1}, 32)
	tests := []struct {
		name    string
		active  uint32
		keys    []MasterKey
		wantErr string
	}{
		{"no keys", 1, nil, "active master key version 1 is not in the keyring"},
		{"active missing", 2, []MasterKey{{1, key}}, "version 2 is not in the keyring"},
		{"version zero", 0, []MasterKey{{0, key}}, "version 0 is not allowed"},
		{"duplicate", 1, []MasterKey{{1, key}, {1, key}}, "appears twice"},
		{"short key", 1, []MasterKey{{1, key[:16]}}, "key is 16 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewKeyring(tt.active, tt.keys...)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}

func TestKeyFileRotation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "master.json")
	k1, err := CreateKeyFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if info, _ := os.Stat(path); info.Mode().Perm() != 0o600 {
		t.Errorf("key file mode = %04o, want 0600", info.Mode().Perm())
	}
	if _, err := CreateKeyFile(path); err == nil {
		t.Fatal("CreateKeyFile overwrote an existing file")
	}
	aad := []byte("org/1/wallet/1")
	blob, _ := k1.Seal([]byte("mnemonic"), aad)

	v, err := AddVersion(path, false)
	if err != nil || v != 2 {
		t.Fatalf("AddVersion = %d, %v", v, err)
	}
	k, _ := LoadKeyFile(path)
	if k.ActiveVersion() != 1 || len(k.Versions()) != 2 {
		t.Fatalf("after AddVersion(inactive): active %d, versions %v", k.ActiveVersion(), k.Versions())
	}
	if err := SetActiveVersion(path, 2); err != nil {
		t.Fatal(err)
	}
	if err := SetActiveVersion(path, 7); err == nil {
		t.Error("SetActiveVersion accepted a missing version")
	}
	if err := RemoveVersion(path, 2); err == nil {
		t.Error("RemoveVersion removed the active version")
	}
	k, _ = LoadKeyFile(path)
	rewrapped, err := k.Rewrap(blob)
	if err != nil {
		t.Fatal(err)
	}
	if err := RemoveVersion(path, 1); err != nil {
		t.Fatal(err)
	}
	k, err = LoadKeyFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := k.Open(rewrapped, aad); err != nil || string(got) != "mnemonic" {
		t.Errorf("Open rewrapped = %q, %v", got, err)
	}
	if _, err := k.Open(blob, aad); !errors.Is(err, ErrUnknownVersion) {
		t.Errorf("Open old blob after removal: %v", err)
	}
	if v, _ := AddVersion(path, true); v != 3 {
		t.Errorf("next version = %d, want 3", v)
	}
	if k, _ := LoadKeyFile(path); k.ActiveVersion() != 3 {
		t.Errorf("AddVersion(activate) left version %d active", k.ActiveVersion())
	}
	if info, _ := os.Stat(path); info.Mode().Perm() != 0o600 {
		t.Errorf("rewritten key file mode = %04o, want 0600", info.Mode().Perm())
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}

func TestLoadKeyFileRefusesLoosePermissions(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "master.json")
	if _, err := CreateKeyFile(path); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []os.FileMode{0o640, 0o604, 0o644, 0o660, 0o602} {
		os.Chmod(path, mode)
		_, err := LoadKeyFile(path)
		if err == nil || !strings.Contains(err.Error(), "chmod 600") {
			t.Errorf("mode %04o: error = %v, want a refusal", mode, err)
		}
		if _, err := AddVersion(path, true); err == nil {
			t.Errorf("mode %04o: AddVersion accepted the file", mode)
		}
	}
	os.Chmod(path, 0o400)
	if _, err := LoadKeyFile(path); err != nil {
		t.Errorf("mode 0400: %v", err)
	}
	if _, err := LoadKeyFile(dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("directory: error = %v", err)
	}
}

func TestLoadKeyFileRejectsBadContent(t *testing.T) {
	tests := []struct{ name, content, wantErr string }{
		{"not json", "master key", "not valid JSON"},
		{"wrong format", `{"format":"other","active":1,"keys":[]}`, "has format"},
		{"no active key", `{"format":"sigil-master-keys-v1","active":2,"keys":[{"version":1,"key":"AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE="}]}`, "version 2 is not in the keyring"},
		{"short key", `{"format":"sigil-master-keys-v1","active":1,"keys":[{"version":1,"key":"AQEB"}]}`, "key is 3 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "k.json")
			os.WriteFile(path, []byte(tt.content), 0o600)
			_, err := LoadKeyFile(path)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}

func FuzzOpen(f *testing.F) {
	// The corpus is sealed under another key with the same version number, so
	// no input can legitimately open under k: any success is a forgery.
	other, _ := NewKeyring(1, MasterKey{Version: 1, Key: bytes.Repeat([]byte{9}, 32)})
	blob, _ := other.Seal([]byte("seed"), []byte("aad"))
	f.Add(blob)
	f.Add([]byte{1, 0, 0, 0, 1})
	k := testKeyring(f, 1, 1)
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, err := k.Open(b, []byte("aad")); err == nil {
			t.Fatalf("forged blob opened to %q", got)
		}
		if _, err := k.Rewrap(b); err == nil {
			t.Fatal("forged blob was rewrapped")
		}
		k.NeedsRewrap(b)
	})
}

func BenchmarkSeal(b *testing.B) {
	k := testKeyring(b, 1, 1)
	seed := bytes.Repeat([]byte{7}, 64)
	for b.Loop() {
		if _, err := k.Seal(seed, []byte("org/1/wallet/2")); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkOpen(b *testing.B) {
	k := testKeyring(b, 1, 1)
	blob, _ := k.Seal(bytes.Repeat([]byte{7}, 64), []byte("org/1/wallet/2"))
	for b.Loop() {
		if _, err := k.Open(blob, []byte("org/1/wallet/2")); err != nil {
			b.Fatal(err)
		}
	}
}
