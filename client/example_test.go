package client_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/coordinator"
	"github.com/sigil/sigil/internal/seal"
	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/stamp"
)

// A wallet created and a transaction signed in the client's default organization: what an application does with
// the coordinator's address, its organization and an API key (sigil up writes them to bootstrap.json as
// coordinatorUrl, organizationId and apiPrivateKey).
func Example() {
	url, orgID, privateKey, stop := sigilForExamples()
	defer stop()
	ctx := context.Background()

	key, err := stamp.ParseAPIKey(stamp.CurveP256, privateKey)
	if err != nil {
		log.Fatal(err)
	}
	c := client.New(url, key)
	c.Organization = orgID // every call below names none: "" is this one

	wallet, _, err := c.CreateWallet(ctx, "", api.CreateWalletIntent{WalletName: "treasury",
		Accounts: []api.WalletAccountParams{{Curve: "CURVE_SECP256K1", PathFormat: "PATH_FORMAT_BIP32",
			Path: "m/44'/60'/0'/0/0", AddressFormat: "ADDRESS_FORMAT_ETHEREUM"}}})
	if err != nil {
		log.Fatal(err)
	}
	unsigned, err := client.UnsignedTransaction(`{"to":"0x5FbDB2315678afecb367f032d93F642f64180aa3","value":"0x1",
		"gasLimit":"0x5208","maxFeePerGas":"0x3b9aca00","maxPriorityFeePerGas":"0x1","nonce":0,"chainId":1}`)
	if err != nil {
		log.Fatal(err)
	}
	signed, activity, err := c.SignTransaction(ctx, "", api.SignTransactionIntentV2{SignWith: wallet.Addresses[0],
		UnsignedTransaction: unsigned, Type: "TRANSACTION_TYPE_ETHEREUM"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(activity.Status)
	fmt.Println("an EIP-1559 transaction:", signed.SignedTransaction[:2] == "02")
	// Output:
	// ACTIVITY_STATUS_COMPLETED
	// an EIP-1559 transaction: true
}

// A refusal is an *apierr.Error with the reference's gRPC code, message and turnkeyErrorCode detail; its Body is the
// wire form, details included.
func Example_errors() {
	url, orgID, _, stop := sigilForExamples()
	defer stop()

	stranger, _ := stamp.GenerateAPIKey(stamp.CurveP256)
	_, err := client.New(url, stranger).Whoami(context.Background(), orgID)
	var e *apierr.Error
	if errors.As(err, &e) {
		fmt.Println(e.Code == apierr.Unauthenticated, e.Status(), e.Detail)
	}
	fmt.Println(client.IsCode(err, apierr.Unauthenticated))
	// Output:
	// true 401 PUBLIC_KEY_NOT_FOUND
	// true
}

// Requests that fail in a way that may pass (network errors, 5xx answers but 501) are sent again, the same bytes,
// with backoff; RetryPolicy sets how often and how long to wait.
func ExampleRetryPolicy() {
	c := client.New("http://127.0.0.1:8081", nil)
	c.Retry = client.RetryPolicy{MaxAttempts: 6, MinBackoff: 100 * time.Millisecond, MaxBackoff: 2 * time.Second}
	// Or never retry:
	c.Retry = client.RetryPolicy{MaxAttempts: 1}
	fmt.Println(c.Retry.MaxAttempts)
	// Output: 1
}

// An activity that needs another user's approval comes back at once as an *ActivityError wrapping ErrNeedsApproval,
// with the record to approve by its fingerprint; AwaitApprovals (or Await, later) waits for the votes instead.
func ExampleClient_Await() {
	url, orgID, privateKey, stop := sigilForExamples()
	defer stop()
	ctx := context.Background()
	key, _ := stamp.ParseAPIKey(stamp.CurveP256, privateKey)
	root := client.New(url, key)
	root.Organization = orgID

	// Two root users: the organization's root quorum needs both.
	second, _ := stamp.GenerateAPIKey(stamp.CurveP256)
	users, _, err := root.CreateUsers(ctx, "", api.CreateUsersIntentV4{Users: []api.UserParamsV4{{UserName: "second root",
		APIKeys:        []api.APIKeyParamsV2{{APIKeyName: "second", PublicKey: second.PublicKeyHex(), CurveType: api.CurveP256}},
		Authenticators: []api.AuthenticatorParamsV2{}, OauthProviders: []api.OauthProviderParamsV2{}, UserTags: []string{}}}})
	if err != nil {
		log.Fatal(err)
	}
	who, _ := root.Whoami(ctx, "")
	if _, _, err := root.UpdateRootQuorum(ctx, "", api.UpdateRootQuorumIntent{Threshold: new(int32(2)),
		UserIDs: []string{who.UserID, users.UserIDs[0]}}); err != nil {
		log.Fatal(err)
	}

	_, pending, err := root.UpdateOrganizationName(ctx, "", api.UpdateOrganizationNameIntent{OrganizationName: "renamed"})
	fmt.Println(errors.Is(err, client.ErrNeedsApproval), pending.Status)

	approver := client.New(url, second)
	approver.Organization = orgID
	if _, err := approver.ApproveActivity(ctx, "", pending.Fingerprint); err != nil {
		log.Fatal(err)
	}
	done, err := root.Await(ctx, pending) // the record again, now that the second root user has approved it
	fmt.Println(done.Status, err)
	// Output:
	// true ACTIVITY_STATUS_CONSENSUS_NEEDED
	// ACTIVITY_STATUS_COMPLETED <nil>
}

// sigilForExamples starts a coordinator for one example, with a root organization, on a SQLite database in a
// directory of its own, and returns what bootstrap.json would say of it.
func sigilForExamples() (url, orgID, privateKeyHex string, stop func()) {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "sigil-example-")
	if err != nil {
		log.Fatal(err)
	}
	st, err := store.Open(ctx, filepath.Join(dir, "sigil.db"), dir)
	if err != nil {
		log.Fatal(err)
	}
	ring, err := seal.NewKeyring(1, seal.MasterKey{Version: 1, Key: make([]byte, 32)})
	if err != nil {
		log.Fatal(err)
	}
	coord := coordinator.New(st, coordinator.Config{Keyring: ring, Logger: slog.New(slog.DiscardHandler)})
	if err := coord.Start(ctx); err != nil {
		log.Fatal(err)
	}
	boot, err := coord.CreateRootOrganization(ctx, "example", "root")
	if err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(coord.Handler())
	return srv.URL, boot.OrganizationID, boot.APIKey.PrivateKeyHex(), func() {
		srv.Close()
		st.Close()
		os.RemoveAll(dir)
	}
}
