package coordinator_test

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/testdb"
)

// Every PSBT Bitcoin Core's test data calls invalid (internal/bitcoin/testdata/rpc_psbt.json) is refused as a signing
// activity's transaction with 400 and the reason, before any policy runs: the signer is a user no policy allows, whom a
// policy decision would answer 403, and no activity is recorded.
func TestBitcoinCoreInvalidPSBTsAreRefusedBeforePolicy(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../bitcoin/testdata/rpc_psbt.json")
	if err != nil {
		t.Fatal(err)
	}
	var vectors struct {
		Invalid        []string   `json:"invalid"`
		InvalidWithMsg [][]string `json:"invalid_with_msg"`
	}
	if err := json.Unmarshal(raw, &vectors); err != nil {
		t.Fatal(err)
	}
	cases := vectors.Invalid
	for _, c := range vectors.InvalidWithMsg {
		cases = append(cases, c[0])
	}
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newStack(t, b)
		org := s.boot.OrganizationID
		_, agent := s.createUser(org, s.root, "agent")
		w, _, err := s.root.CreateWallet(bg, org, api.CreateWalletIntent{WalletName: "btc", Accounts: []api.WalletAccountParams{
			{Curve: "CURVE_SECP256K1", PathFormat: "PATH_FORMAT_BIP32", Path: "m/84'/1'/0'/0/0", AddressFormat: "ADDRESS_FORMAT_BITCOIN_TESTNET_P2WPKH"}}})
		if err != nil {
			t.Fatal(err)
		}
		// The control: a PSBT that parses, of the same signer, is decided by the policies, and denied.
		list, _ := s.root.ListWalletAccounts(bg, api.ListWalletAccountsRequest{OrganizationID: org, WalletID: w.WalletID})
		pub, _ := hex.DecodeString(list.Accounts[0].PublicKey)
		_, _, err = agent.SignTransaction(bg, org, api.SignTransactionIntentV2{SignWith: w.Addresses[0],
			UnsignedTransaction: hex.EncodeToString(bitcoinPSBT(t, pub, pub, "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx")), Type: api.TransactionTypeBitcoin})
		var denied *apierr.Error
		if !errors.As(err, &denied) || denied.Status() != 403 {
			t.Fatalf("a PSBT that parses, by a signer no policy allows: %v", err)
		}
		before := s.activityCount(org)
		refused := 0
		for i, c := range cases {
			psbt, err := base64.StdEncoding.DecodeString(c)
			if err != nil {
				continue // Core's one case that is not base64: no hex request can carry it
			}
			_, _, err = agent.SignTransaction(bg, org, api.SignTransactionIntentV2{SignWith: w.Addresses[0],
				UnsignedTransaction: hex.EncodeToString(psbt), Type: api.TransactionTypeBitcoin})
			var e *apierr.Error
			if !errors.As(err, &e) || e.Status() != 400 || !strings.Contains(e.Message, "invalid PSBT") {
				t.Errorf("invalid case %d: %v", i, err)
				continue
			}
			refused++
		}
		if refused != len(cases)-1 {
			t.Errorf("%d of %d refused", refused, len(cases)-1)
		}
		if n := s.activityCount(org); n != before {
			t.Errorf("the refused PSBTs recorded %d activities", n-before)
		}
	})
}
