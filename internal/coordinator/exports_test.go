package coordinator_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/bundle"
	"github.com/sigil/sigil/internal/testdb"
)

func (s *stack) signerKey(t *testing.T) *ecdsa.PublicKey {
	t.Helper()
	resp, err := http.Get(s.srv.URL + "/.well-known/sigil-signer.json")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var out struct{ PublicKey string }
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatal(err)
	}
	raw, _ := hex.DecodeString(out.PublicKey)
	pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), raw)
	if err != nil {
		t.Fatalf("signer key %q: %v", out.PublicKey, err)
	}
	return pub
}

// Export a wallet's mnemonic to a client key, import it back as a new wallet: the accounts derive to the same
// addresses. Every bundle is checked against the coordinator's published signer key.
func TestExportAndImportWallet(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newStack(t, b)
		org := s.boot.OrganizationID
		w, _, err := s.root.CreateWallet(bg, org, api.CreateWalletIntent{WalletName: "w", Accounts: []api.WalletAccountParams{ethAccount()}})
		if err != nil {
			t.Fatal(err)
		}
		client_, err := bundle.NewTargetKey()
		if err != nil {
			t.Fatal(err)
		}
		target := hex.EncodeToString(client_.PublicKey().Bytes())
		res, _, err := submitExport(s, org, w.WalletID, target)
		if err != nil {
			t.Fatal(err)
		}
		signer := s.signerKey(t)
		mnemonic, err := bundle.OpenExportBundle(res.ExportBundle, signer, client_, org)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(strings.Fields(string(mnemonic))); n != 12 {
			t.Fatalf("exported mnemonic has %d words", n)
		}
		got, _ := s.root.GetWallet(bg, org, w.WalletID)
		if !got.Wallet.Exported {
			t.Fatal("wallet not marked exported")
		}

		initRes, _, err := submitTyped(s, org, api.InitImportWallet, api.InitImportIntent{UserID: s.boot.UserID})
		if err != nil {
			t.Fatal(err)
		}
		_, importKey, err := bundle.ParseTargetBundle(initRes.ImportBundle, signer)
		if err != nil {
			t.Fatal(err)
		}
		ct, err := bundle.Seal(importKey, mnemonic)
		if err != nil {
			t.Fatal(err)
		}
		enc, _ := json.Marshal(ct)
		imported, _, err := submitTyped(s, org, api.ImportWallet, api.ImportWalletIntent{UserID: s.boot.UserID,
			WalletName: "imported", EncryptedBundle: string(enc), Accounts: []api.WalletAccountParams{ethAccount()}})
		if err != nil {
			t.Fatal(err)
		}
		if imported.Addresses[0] != w.Addresses[0] {
			t.Fatalf("imported address %s, want %s", imported.Addresses[0], w.Addresses[0])
		}
		// The import key is one-time: the same bundle cannot be imported twice.
		_, _, err = submitTyped(s, org, api.ImportWallet, api.ImportWalletIntent{UserID: s.boot.UserID,
			WalletName: "again", EncryptedBundle: string(enc), Accounts: []api.WalletAccountParams{ethAccount()}})
		if !client.IsCode(err, apierr.FailedPrecondition) {
			t.Fatalf("second import with a used key: %v", err)
		}
		// Nobody imports into another user's custody.
		_, other := s.createUser(org, s.root, "other")
		if _, _, err := submitTypedAs(other, org, api.InitImportWallet, api.InitImportIntent{UserID: s.boot.UserID}); !client.IsCode(err, apierr.PermissionDenied) {
			t.Fatalf("init import for another user: %v", err)
		}
		if _, _, err := submitExport(s, org, w.WalletID, "02ff"); !client.IsCode(err, apierr.InvalidArgument) {
			t.Fatalf("bad target key: %v", err)
		}
	})
}

func submitExport(s *stack, org, walletID, target string) (*api.ExportWalletResult, *api.Activity, error) {
	return submitTyped(s, org, api.ExportWallet, api.ExportWalletIntent{WalletID: walletID, TargetPublicKey: target})
}

func submitTyped[P, R any](s *stack, org string, op api.ActivityOf[P, R], params P) (*R, *api.Activity, error) {
	return submitTypedAs(s.root, org, op, params)
}

func submitTypedAs[P, R any](c *client.Client, org string, op api.ActivityOf[P, R], params P) (*R, *api.Activity, error) {
	a, err := c.Submit(bg, org, op.ActivitySpec, params)
	if err != nil {
		return nil, a, err
	}
	var r R
	return &r, a, client.Result(a, &r)
}
