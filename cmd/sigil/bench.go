package main

import (
	"context"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rlp"

	"sigil/api"
	"sigil/client"
	"sigil/coordinator"
	"sigil/keys"
	"sigil/seal"
	"sigil/stamp"
	"sigil/store"
)

// runBench starts a coordinator on loopback over a fresh database and measures stamped CREATE_USERS_V3 and whoami with
// concurrent clients, next to the raw P-256 stamp verifications per second of this machine.
func runBench(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	clients := fs.Int("clients", 8, "concurrent clients")
	duration := fs.Duration("duration", 5*time.Second, "how long to run each measurement")
	dbURL := fs.String("database-url", "", "PostgreSQL URL to measure instead of SQLite")
	if err := fs.Parse(args); err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "sigil-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	st, err := store.Open(ctx, *dbURL, dir)
	if err != nil {
		return err
	}
	defer st.Close()
	ring, err := seal.CreateKeyFile(filepath.Join(dir, "master.key"))
	if err != nil {
		return err
	}
	coord := coordinator.New(st, coordinator.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Keyring: ring})
	if err := coord.Start(ctx); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: coord.Handler()}
	go srv.Serve(ln)
	defer srv.Close()
	boot, err := coord.CreateRootOrganization(ctx, "bench", "root")
	if err != nil {
		return err
	}
	c := client.New("http://"+ln.Addr().String(), boot.APIKey)
	c.HTTP.Transport = &http.Transport{MaxIdleConnsPerHost: *clients}

	verifyRate := p256VerifyRate(*duration / 2)
	fmt.Printf("machine: P-256 stamp verification %.0f/s on one core\n", verifyRate)
	fmt.Printf("database: %s, %d clients, %s per measurement\n\n", st.Backend(), *clients, *duration)
	report := func(name string, r result) {
		fmt.Printf("%-16s %8.0f req/s   p50 %-9s p99 %-9s  errors %d   CPU per request ≈ %.1f stamp verifications\n",
			name, r.rate, r.p50, r.p99, r.errors, verifyRate*2/r.rate)
	}
	n := 0
	var mu sync.Mutex
	report("CREATE_USERS_V3", measure(ctx, *clients, *duration, func() error {
		mu.Lock()
		n++
		name := fmt.Sprintf("user-%d", n)
		mu.Unlock()
		_, _, err := c.CreateUsersV3(ctx, boot.OrganizationID, api.CreateUsersIntentV3{Users: []api.UserParamsV3{{
			UserName: name, APIKeys: []api.APIKeyParamsV2{}, Authenticators: []api.AuthenticatorParamsV2{},
			OauthProviders: []api.OauthProviderParams{}, UserTags: []string{}}}})
		return err
	}))
	report("whoami", measure(ctx, *clients, *duration, func() error {
		_, err := c.Whoami(ctx, boot.OrganizationID)
		return err
	}))

	// Signing runs in an organization of its own, the size a real one has, not the one the user benchmark filled.
	signBoot, err := coord.CreateRootOrganization(ctx, "bench-signing", "root")
	if err != nil {
		return err
	}
	signRoot := client.New(c.BaseURL, signBoot.APIKey)
	signRoot.HTTP.Transport = c.HTTP.Transport
	sign, err := signingSetup(ctx, signRoot, c.BaseURL, signBoot.OrganizationID)
	if err != nil {
		return err
	}
	signRate := secp256k1SignRate(*duration / 2)
	floor := 1/verifyRate + 1/signRate // seconds of CPU: one stamp verification and one secp256k1 signature
	peak := measure(ctx, *clients, *duration, sign)
	report("SIGN_TRANSACTION", peak)
	half := measurePaced(ctx, *clients, *duration, peak.rate/2, sign)
	fmt.Printf("%-16s %8.0f req/s   p50 %-9s p99 %-9s  errors %d   (paced at half the peak)\n", "SIGN_TRANSACTION", half.rate, half.p50, half.p99, half.errors)
	fmt.Printf("\nmachine: secp256k1 signature %.0f/s on one core; crypto floor of a signing activity %.0f µs\n", signRate, floor*1e6)
	fmt.Printf("signing activity CPU ≈ %.0f µs = %.1f × its raw cryptography (both cores busy at peak)\n", 2/peak.rate*1e6, (2/peak.rate)/floor)
	fmt.Println("\n(CPU per request assumes both cores busy; compare with 1 stamp verification as the floor)")
	return nil
}

// signingSetup makes a non-root signer bound by one allow policy, as the agent of the second specification is, and
// returns one stamped SIGN_TRANSACTION_V2 as an operation.
func signingSetup(ctx context.Context, root *client.Client, url, org string) (func() error, error) {
	key, err := stamp.GenerateAPIKey(stamp.CurveP256)
	if err != nil {
		return nil, err
	}
	users, _, err := root.CreateUsers(ctx, org, api.CreateUsersIntentV4{Users: []api.UserParamsV4{{UserName: "agent",
		APIKeys:        []api.APIKeyParamsV2{{APIKeyName: "agent", PublicKey: key.PublicKeyHex(), CurveType: api.CurveP256}},
		Authenticators: []api.AuthenticatorParamsV2{}, OauthProviders: []api.OauthProviderParamsV2{}, UserTags: []string{}}}})
	if err != nil {
		return nil, err
	}
	w, _, err := root.CreateWallet(ctx, org, api.CreateWalletIntent{WalletName: "bench", Accounts: []api.WalletAccountParams{{
		Curve: "CURVE_SECP256K1", PathFormat: "PATH_FORMAT_BIP32", Path: "m/44'/60'/0'/0/0", AddressFormat: "ADDRESS_FORMAT_ETHEREUM"}}})
	if err != nil {
		return nil, err
	}
	const to = "0x5fbdb2315678afecb367f032d93f642f64180aa3"
	if _, _, err := root.CreatePolicy(ctx, org, api.CreatePolicyIntentV3{PolicyName: "bench", Effect: api.EffectAllow, Notes: "",
		Consensus: "approvers.any(user, user.id == '" + users.UserIDs[0] + "')",
		Condition: "eth.tx.to == '" + to + "' && eth.tx.data[0..10] == '0x095ea7b3'"}); err != nil {
		return nil, err
	}
	agent := client.New(url, key)
	agent.HTTP.Transport = root.HTTP.Transport
	var n atomic.Uint64
	return func() error {
		// A new nonce each time, so every request is a new activity rather than an idempotent replay.
		unsigned := unsignedApproval(to, n.Add(1))
		_, _, err := agent.SignTransaction(ctx, org, api.SignTransactionIntentV2{SignWith: w.Addresses[0], UnsignedTransaction: unsigned, Type: api.TransactionTypeEthereum})
		return err
	}, nil
}

// unsignedApproval is an unsigned EIP-1559 approve(spender, 1) to the token, as viem serializes it.
func unsignedApproval(to string, nonce uint64) string {
	data := common.FromHex("0x095ea7b3" + strings.Repeat("0", 24) + strings.TrimPrefix(to, "0x") + strings.Repeat("0", 63) + "1")
	enc, _ := rlp.EncodeToBytes([]any{big.NewInt(1337), nonce, big.NewInt(1e9), big.NewInt(2e9), uint64(100000),
		common.HexToAddress(to), big.NewInt(0), data, types.AccessList{}})
	return hex.EncodeToString(append([]byte{2}, enc...))
}

// measurePaced runs op at a fixed total rate, to read latency below saturation.
func measurePaced(ctx context.Context, clients int, d time.Duration, rate float64, op func() error) result {
	return measureAt(ctx, clients, d, time.Duration(float64(time.Second)*float64(clients)/rate), op)
}

// secp256k1SignRate measures raw secp256k1 signatures (RFC 6979, recoverable) on one goroutine.
func secp256k1SignRate(d time.Duration) float64 {
	priv := make([]byte, 32)
	priv[31] = 7
	digest := make([]byte, 32)
	n := 0
	start := time.Now()
	for time.Since(start) < d {
		digest[0] = byte(n)
		if _, err := keys.SignSecp256k1(priv, digest); err != nil {
			panic(err)
		}
		n++
	}
	return float64(n) / time.Since(start).Seconds()
}

type result struct {
	rate     float64
	p50, p99 time.Duration
	errors   int
}

func measure(ctx context.Context, clients int, d time.Duration, op func() error) result {
	return measureAt(ctx, clients, d, 0, op)
}

// measureAt runs op from concurrent clients for d; with a positive interval each client starts one op per interval
// (a fixed total rate), and the wait is not counted in the latency.
func measureAt(ctx context.Context, clients int, d, interval time.Duration, op func() error) result {
	var mu sync.Mutex
	var lat []time.Duration
	errs := 0
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	start := time.Now()
	for i := 0; i < clients; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) && ctx.Err() == nil {
				t := time.Now()
				err := op()
				el := time.Since(t)
				if rest := interval - el; interval > 0 && rest > 0 {
					time.Sleep(rest)
				}
				mu.Lock()
				lat = append(lat, el)
				if err != nil {
					errs++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	if len(lat) == 0 {
		return result{}
	}
	return result{rate: float64(len(lat)) / elapsed.Seconds(), p50: lat[len(lat)/2].Round(10 * time.Microsecond),
		p99: lat[len(lat)*99/100].Round(10 * time.Microsecond), errors: errs}
}

// p256VerifyRate measures parse-and-verify of one P-256 X-Stamp on one goroutine.
func p256VerifyRate(d time.Duration) float64 {
	key, _ := stamp.GenerateAPIKey(stamp.CurveP256)
	body := []byte(`{"organizationId":"00000000-0000-0000-0000-000000000000"}`)
	_, value, _ := key.Stamp(body)
	n := 0
	start := time.Now()
	for time.Since(start) < d {
		s, err := stamp.ParseAPIKeyStamp(value)
		if err != nil || s.Verify(body) != nil {
			panic("bench: stamp does not verify")
		}
		n++
	}
	return float64(n) / time.Since(start).Seconds()
}
