package coordinator_test

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"

	"sigil/api"
	"sigil/internal/testdb"
)

// A dump of the whole database holds no mnemonic, no mnemonic word sequence and no private key, in any encoding.
func TestNoPlaintextKeyMaterialAtRest(t *testing.T) {
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
