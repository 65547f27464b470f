// Package sdkuser is an application of Sigil's Go SDK: a module of its own that imports the SDK by its path, so that
// the SDK stays importable from outside (no internal package, a module path go get resolves).
package sdkuser

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/stamp"
)

// bootstrap is what the application reads of the stack's bootstrap.json.
type bootstrap struct {
	CoordinatorURL string `json:"coordinatorUrl"`
	OrganizationID string `json:"organizationId"`
	APIPrivateKey  string `json:"apiPrivateKey"`
}

// A wallet is created and a transaction signed on the stack whose data directory SIGIL_DIR is; the signature
// recovers to the wallet's address.
func TestSignTransaction(t *testing.T) {
	dir := os.Getenv("SIGIL_DIR")
	if dir == "" {
		t.Skip("SIGIL_DIR names the data directory of a running stack (scripts/test.sh starts one)")
	}
	raw, err := os.ReadFile(filepath.Join(dir, "bootstrap.json"))
	if err != nil {
		t.Fatal(err)
	}
	var b bootstrap
	if err := json.Unmarshal(raw, &b); err != nil {
		t.Fatal(err)
	}
	key, err := stamp.ParseAPIKey(stamp.CurveP256, b.APIPrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c := client.New(b.CoordinatorURL, key)
	c.Organization = b.OrganizationID

	wallet, _, err := c.CreateWallet(ctx, "", api.CreateWalletIntent{WalletName: "sdk module " + t.Name(),
		Accounts: []api.WalletAccountParams{{Curve: "CURVE_SECP256K1", PathFormat: "PATH_FORMAT_BIP32",
			Path: "m/44'/60'/0'/0/0", AddressFormat: "ADDRESS_FORMAT_ETHEREUM"}}})
	if err != nil {
		t.Fatal(err)
	}
	unsigned, err := client.UnsignedTransaction(`{"to":"0x5FbDB2315678afecb367f032d93F642f64180aa3","value":"0x2a",
		"gasLimit":"0x5208","maxFeePerGas":"0x3b9aca00","maxPriorityFeePerGas":"0x1","nonce":7,"chainId":1337}`)
	if err != nil {
		t.Fatal(err)
	}
	signed, _, err := c.SignTransaction(ctx, "", api.SignTransactionIntentV2{SignWith: wallet.Addresses[0],
		UnsignedTransaction: unsigned, Type: "TRANSACTION_TYPE_ETHEREUM"})
	if err != nil {
		t.Fatal(err)
	}
	enc, err := hex.DecodeString(strings.TrimPrefix(signed.SignedTransaction, "0x"))
	if err != nil {
		t.Fatal(err)
	}
	var tx types.Transaction
	if err := tx.UnmarshalBinary(enc); err != nil {
		t.Fatal(err)
	}
	from, err := types.Sender(types.LatestSignerForChainID(big.NewInt(1337)), &tx)
	if err != nil || from != common.HexToAddress(wallet.Addresses[0]) || tx.Nonce() != 7 || tx.Value().Int64() != 42 {
		t.Fatalf("signed by %s (%v), nonce %d, value %s; want %s, 7, 42", from, err, tx.Nonce(), tx.Value(), wallet.Addresses[0])
	}

	// A refusal reaches the application with the reference's code and detail.
	stranger, _ := stamp.GenerateAPIKey(stamp.CurveP256)
	_, err = client.New(b.CoordinatorURL, stranger).Whoami(ctx, b.OrganizationID)
	var e *apierr.Error
	if !errors.As(err, &e) || e.Code != apierr.Unauthenticated || e.Detail == "" {
		t.Fatalf("an unknown key: %v", err)
	}
}
