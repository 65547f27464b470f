package coordinator_test

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"io"
	"log/slog"
	"math/big"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/coordinator"
	"github.com/sigil/sigil/internal/seal"
	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/testdb"
)

// A dump of the whole database holds no mnemonic, no mnemonic word sequence and no private key, in any encoding.
func TestNoPlaintextKeyMaterialAtRest(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newStack(t, b)
		org := s.boot.OrganizationID
		if _, _, err := s.root.CreateWallet(bg, org, api.CreateWalletIntent{WalletName: "w", Accounts: []api.WalletAccountParams{ethAccount(),
			{Curve: "CURVE_ED25519", PathFormat: "PATH_FORMAT_BIP32", Path: "m/44'/501'/0'/0'", AddressFormat: "ADDRESS_FORMAT_SOLANA"}}}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.root.CreatePrivateKeys(bg, org, api.CreatePrivateKeysIntentV2{PrivateKeys: []api.PrivateKeyParams{{
			PrivateKeyName: "k", Curve: "CURVE_SECP256K1", PrivateKeyTags: []string{}, AddressFormats: []string{"ADDRESS_FORMAT_ETHEREUM"}}}}); err != nil {
			t.Fatal(err)
		}
		ids, err := s.coord.SecretIDs(bg, org)
		if err != nil || len(ids) != 4 {
			t.Fatalf("secrets %v %v", ids, err)
		}
		dump := testdb.Dump(t, b)
		if len(dump) == 0 {
			t.Fatal("empty dump")
		}
		for _, id := range ids {
			secret, err := s.coord.OpenSecret(bg, id)
			if err != nil {
				t.Fatal(err)
			}
			forms := [][]byte{secret, []byte(hex.EncodeToString(secret)), []byte(base64.StdEncoding.EncodeToString(secret))}
			if words := strings.Fields(string(secret)); len(words) >= 12 {
				forms = append(forms, []byte(strings.Join(words[:3], " ")))
			}
			for _, f := range forms {
				if bytes.Contains(dump, f) {
					t.Fatalf("secret %s appears in clear in the database", id)
				}
			}
		}
	})
}

// `sigil keys rotate-master` run by another process while a coordinator serves: the coordinator keeps signing with
// keys sealed before (even once the old master key version is retired), and seals new material under the new version.
func TestMasterKeyRotationWhileServing(t *testing.T) {
	t.Parallel()
	b := testdb.SQLite(t)
	path := filepath.Join(t.TempDir(), "master.key")
	ring, err := seal.CreateKeyFile(path)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(bg, b.URL, b.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	clock := newClock()
	coord := coordinator.New(st, coordinator.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Keyring: ring, MasterKeyFile: path,
		Now: clock.Now})
	if err := coord.Start(bg); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(coord.Handler())
	defer srv.Close()
	boot, err := coord.CreateRootOrganization(bg, "Acme", "root")
	if err != nil {
		t.Fatal(err)
	}
	root := client.New(srv.URL, boot.APIKey)
	org := boot.OrganizationID
	sign := func(from string) {
		t.Helper()
		_, _, err := root.SignTransaction(bg, org, api.SignTransactionIntentV2{SignWith: from, Type: api.TransactionTypeEthereum,
			UnsignedTransaction: unsigned1559(t, token, calldata(t, "approve", vault, big.NewInt(1)), uint64(time.Now().UnixNano()))})
		if err != nil {
			t.Fatalf("sign with %s: %v", from, err)
		}
	}
	newWallet := func(name string) string {
		t.Helper()
		w, _, err := root.CreateWallet(bg, org, api.CreateWalletIntent{WalletName: name, Accounts: []api.WalletAccountParams{ethAccount()}})
		if err != nil {
			t.Fatal(err)
		}
		return w.Addresses[0]
	}
	before := newWallet("before")
	sign(before)

	if _, err := seal.AddVersion(path, true); err != nil {
		t.Fatal(err)
	}
	rotated, err := seal.LoadKeyFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := coordinator.New(st, coordinator.Config{Keyring: rotated, MasterKeyFile: path}).RotateMasterKey(bg); err != nil || n == 0 {
		t.Fatalf("rotation rewrapped %d rows: %v", n, err)
	}
	if err := seal.RemoveVersion(path, 1); err != nil {
		t.Fatal(err)
	}
	sign(before)
	clock.Advance(1100 * time.Millisecond) // the coordinator looks at the key file at most once a second
	after := newWallet("after")
	sign(after)
	sign(before)

	ids, err := st.SecretIDs(bg)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		s, err := st.GetSecret(bg, id)
		if err != nil {
			t.Fatal(err)
		}
		if v, _ := seal.BlobVersion(s.Blob); v != 2 {
			t.Errorf("sealed row %s is under master key version %d after the rotation, want 2", id, v)
		}
	}
}
