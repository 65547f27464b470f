package main

import (
	"context"
	"crypto/rand"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigil/coordinator"
	"sigil/internal/testdb"
	"sigil/seal"
	"sigil/store"
)

// capture runs fn with os.Stdout redirected and returns what it printed.
func capture(t *testing.T, fn func() error) (string, error) {
	t.Helper()
	r, w, _ := os.Pipe()
	old := os.Stdout
	os.Stdout = w
	err := fn()
	w.Close()
	os.Stdout = old
	out, _ := io.ReadAll(r)
	return string(out), err
}

func TestKeysNew(t *testing.T) {
	for _, curve := range []string{"p256", "secp256k1", "ed25519"} {
		path := filepath.Join(t.TempDir(), "key.json")
		if _, err := capture(t, func() error { return runKeys(context.Background(), []string{"new", "--curve", curve, "--out", path}) }); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(path)
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("%s: key file mode %v %v", curve, fi.Mode(), err)
		}
		if _, err := loadKeyFile(path); err != nil {
			t.Fatalf("%s: %v", curve, err)
		}
	}
	if err := runKeys(context.Background(), []string{"new", "--curve", "rsa"}); err == nil {
		t.Fatal("unknown curve accepted")
	}
}

func TestAPICommand(t *testing.T) {
	ctx := context.Background()
	b := testdb.SQLite(t)
	st, err := store.Open(ctx, b.URL, b.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	ring, _ := seal.NewKeyring(1, seal.MasterKey{Version: 1, Key: key})
	coord := coordinator.New(st, coordinator.Config{Keyring: ring, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err := coord.Start(ctx); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(coord.Handler())
	defer srv.Close()
	dir := t.TempDir()
	if err := ensureBootstrap(ctx, coord, dir, srv.URL); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(bootstrapPath(dir)); fi.Mode().Perm() != 0o600 {
		t.Fatalf("bootstrap.json mode %v", fi.Mode())
	}
	out, err := capture(t, func() error { return runAPI(ctx, []string{"whoami", "--dir", dir}) })
	if err != nil || !strings.Contains(out, `"username": "root"`) {
		t.Fatalf("whoami: %s %v", out, err)
	}
	out, err = capture(t, func() error {
		return runAPI(ctx, []string{"update_organization_name", "--dir", dir, "--params", `{"organizationName":"Renamed"}`})
	})
	if err != nil || !strings.Contains(out, "ACTIVITY_STATUS_COMPLETED") {
		t.Fatalf("activity: %s %v", out, err)
	}
	if _, err := capture(t, func() error { return runAPI(ctx, []string{"no_such_thing", "--dir", dir}) }); err == nil {
		t.Fatal("unknown name accepted")
	}
	// A second start on the same directory reuses the bootstrap organization.
	before, _ := readBootstrap(dir)
	if err := ensureBootstrap(ctx, coord, dir, srv.URL); err != nil {
		t.Fatal(err)
	}
	after, _ := readBootstrap(dir)
	if after.OrganizationID != before.OrganizationID || after.APIPrivateKey != before.APIPrivateKey {
		t.Fatal("second start replaced the bootstrap organization")
	}
}

// sigil backup copies the database of a data directory, which opens as a database of its own.
func TestBackupCommand(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := store.Open(ctx, "", dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Write(ctx, func(tx *store.Tx) error {
		return tx.InsertOrg(ctx, store.Org{ID: "o", Version: 1, Data: []byte(`{}`)}, nil)
	}); err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	out := filepath.Join(t.TempDir(), "copy.db")
	if _, err := capture(t, func() error { return runBackup(ctx, []string{"--dir", dir, "--out", out}) }); err != nil {
		t.Fatal(err)
	}
	copied, err := store.Open(ctx, out, "")
	if err != nil {
		t.Fatal(err)
	}
	defer copied.Close()
	if _, err := copied.GetOrg(ctx, "o"); err != nil {
		t.Fatalf("the copy lacks the organization: %v", err)
	}
	if err := runBackup(ctx, []string{"--dir", dir}); err == nil {
		t.Fatal("backup without --out accepted")
	}
	empty := t.TempDir()
	if err := runBackup(ctx, []string{"--dir", empty, "--out", filepath.Join(t.TempDir(), "x.db")}); err == nil {
		t.Fatal("backup of a directory without a database accepted")
	}
	if _, err := os.Stat(filepath.Join(empty, "sigil.db")); err == nil {
		t.Fatal("backup created a database where there was none")
	}
}
