package bench

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/coordinator"
	"github.com/sigil/sigil/stamp"
)

// OrgSizeConfig is one run of the organization-size benchmark (sigil bench --org-size; issue #45).
type OrgSizeConfig struct {
	// Sizes are the wallet accounts (and as many sub-organizations) of each organization measured; the first is the
	// one the others are compared with (default 0, 10,000, 100,000 and 1,000,000).
	Sizes []int
	// DatabaseURL is a PostgreSQL server to measure instead of SQLite: the bench works in a new database there and
	// drops it.
	DatabaseURL string
	Rounds      int // default 7
	Stdout      io.Writer
	// Logf, when set, is told what the run is doing (seeding, rounds).
	Logf func(format string, args ...any)
}

// OrgSizes measures what the activities and queries of issue #45 cost in organizations of cfg.Sizes wallet accounts,
// each with as many sub-organizations: the p50 of each operation through the API, its ratio to the first size's, the
// process's RSS, and the database's bytes per 1,000 accounts. The organizations live in one database side by side;
// the accounts and sub-organizations past the first few are written as rows directly (filler accounts have no key),
// every measured operation goes through the API over loopback. The sizes are interleaved operation by operation (each
// sample of an operation is taken in every organization in turn, starting with another one each time), so that what
// the machine does meanwhile weighs on every size alike. Then another organization's signing is measured while the
// largest one writes, and while it does not (issue #44 item 7).
func OrgSizes(ctx context.Context, cfg OrgSizeConfig) error {
	sizes, rounds, w := cfg.Sizes, cmp.Or(cfg.Rounds, 7), cfg.Stdout
	if len(sizes) == 0 {
		sizes = []int{0, 10_000, 100_000, 1_000_000}
	}
	if w == nil {
		w = io.Discard
	}
	logf := cfg.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	dir, err := os.MkdirTemp("", "sigil-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	s, dbURL, stop, err := startServer(ctx, dir, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer stop()
	backend := s.Backend()
	driver, rawURL := "sqlite", filepath.Join(dir, "sigil.db")
	if backend == "postgres" {
		driver, rawURL = "pgx", dbURL
	}
	raw, err := sql.Open(driver, rawURL)
	if err != nil {
		return err
	}
	defer raw.Close()
	url := s.Services()[0].URL
	var orgs []*sizedOrg
	for _, n := range sizes {
		start := time.Now()
		o, err := seedSizedOrg(ctx, s.Coordinator(), url, raw, backend, n)
		if err != nil {
			return err
		}
		orgs = append(orgs, o)
		logf("%s: organization of %d accounts and %d sub-organizations seeded in %s", backend, n, n, time.Since(start).Round(time.Millisecond))
	}

	ops := orgSizeOps()
	samples := map[string]map[int][]time.Duration{} // op, size
	for _, op := range ops {
		samples[op.name] = map[int][]time.Duration{}
	}
	var rssLargest int64
	turn := 0
	for round := range rounds {
		for _, op := range ops {
			for range op.perRound {
				for i := range orgs {
					o := orgs[(turn+i)%len(orgs)]
					d, err := op.run(ctx, o)
					if err != nil {
						return fmt.Errorf("bench: %s in the organization of %d accounts: %w", op.name, o.size, err)
					}
					samples[op.name][o.size] = append(samples[op.name][o.size], d)
				}
				turn++
			}
			rssLargest = max(rssLargest, procStatus("VmRSS"))
		}
		logf("%s: round %d of %d measured", backend, round+1, rounds)
	}

	fmt.Fprintf(w, "\n%s: p50 per operation (ms) and its ratio to the organization of %d accounts, %d rounds, sizes interleaved\n", backend, sizes[0], rounds)
	fmt.Fprintf(w, "| operation |")
	for _, n := range sizes {
		fmt.Fprintf(w, " %d accounts |", n)
	}
	fmt.Fprintf(w, "\n|---|%s\n", strings.Repeat("---|", len(sizes)))
	for _, op := range ops {
		baseSize := sizes[0]
		if op.needsAccounts { // an organization without accounts has no page of them to read
			for _, n := range sizes {
				if n >= 1000 {
					baseSize = n
					break
				}
			}
		}
		base := p50(samples[op.name][baseSize])
		fmt.Fprintf(w, "| %s |", op.name)
		for _, n := range sizes {
			m := p50(samples[op.name][n])
			fmt.Fprintf(w, " %.2f (%.2f×) |", millis(m), float64(m)/float64(base))
		}
		fmt.Fprintln(w)
	}
	runtime.GC()
	var mem runtime.MemStats
	runtime.ReadMemStats(&mem)
	fmt.Fprintf(w, "RSS while serving the organizations (largest %d accounts): %.0f MiB (peak of the process %.0f MiB; Go heap in use after a GC %.0f MiB)\n",
		sizes[len(sizes)-1], float64(rssLargest)/(1<<20), float64(procStatus("VmHWM"))/(1<<20), float64(mem.HeapInuse)/(1<<20))
	accounts, secrets, err := storedBytes(raw, backend)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "database bytes per 1,000 wallet accounts: %.0f KiB of account rows and their indexes, plus %.0f KiB of sealed keys\n",
		accounts/1024, secrets/1024)
	return victimLatency(ctx, s.Coordinator(), url, orgs[len(orgs)-1], w)
}

// sizedOrg is one organization of the benchmark: its root's client, the wallet it signs with and where its accounts
// and sub-organizations are cut (the cursors of the pages read).
type sizedOrg struct {
	size       int
	id         string
	root       *client.Client
	wallet     string // the wallet of the signing account, and of half the fillers
	address    string // the account signed with
	midAccount string // an account id a quarter into the wallet; "" in an organization of fewer than 1,000
	firstSub   string
	lastSub    string // a sub-organization 20 from the end
	nextPath   atomic.Int64
}

// orgSizeOp is one measured operation: run performs it once and returns how long the API took.
type orgSizeOp struct {
	name          string
	perRound      int
	needsAccounts bool // compared with the smallest organization of 1,000 accounts or more
	run           func(ctx context.Context, o *sizedOrg) (time.Duration, error)
}

func timed(f func() error) (time.Duration, error) {
	start := time.Now()
	err := f()
	return time.Since(start), err
}

func ethAccount(path string) api.WalletAccountParams {
	return api.WalletAccountParams{Curve: "CURVE_SECP256K1", PathFormat: "PATH_FORMAT_BIP32", Path: path, AddressFormat: "ADDRESS_FORMAT_ETHEREUM"}
}

func orgSizeOps() []orgSizeOp {
	var nonce atomic.Uint64
	nonce.Store(uint64(time.Now().UnixNano()))
	raw := func(ctx context.Context, o *sizedOrg) (time.Duration, error) {
		return timed(func() error {
			_, _, err := o.root.SignRawPayload(ctx, o.id, api.SignRawPayloadIntentV2{SignWith: o.address, Payload: "0x" + strings.Repeat("ab", 32),
				Encoding: "PAYLOAD_ENCODING_HEXADECIMAL", HashFunction: "HASH_FUNCTION_NO_OP"})
			return err
		})
	}
	tx := func(ctx context.Context, o *sizedOrg) (time.Duration, error) {
		unsigned := unsignedApproval(benchToken, nonce.Add(1))
		return timed(func() error {
			_, _, err := o.root.SignTransaction(ctx, o.id, api.SignTransactionIntentV2{SignWith: o.address, UnsignedTransaction: unsigned, Type: api.TransactionTypeEthereum})
			return err
		})
	}
	accounts := func(ctx context.Context, o *sizedOrg) (time.Duration, error) {
		params := make([]api.WalletAccountParams, 100)
		for i := range params {
			params[i] = ethAccount(fmt.Sprintf("m/44'/60'/0'/0/%d", o.nextPath.Add(1)))
		}
		return timed(func() error {
			_, _, err := o.root.CreateWalletAccounts(ctx, o.id, api.CreateWalletAccountsIntent{WalletID: o.wallet, Accounts: params})
			return err
		})
	}
	users := func(ctx context.Context, o *sizedOrg) (time.Duration, error) {
		var res *api.CreateUsersResult
		d, err := timed(func() error {
			var err error
			res, _, err = o.root.CreateUsers(ctx, o.id, api.CreateUsersIntentV4{Users: []api.UserParamsV4{{UserName: "u" + strconv.FormatUint(nonce.Add(1), 10),
				APIKeys: []api.APIKeyParamsV2{}, Authenticators: []api.AuthenticatorParamsV2{}, OauthProviders: []api.OauthProviderParamsV2{}, UserTags: []string{}}}})
			return err
		})
		if err == nil { // within the limit of 100 users, round after round
			_, _, err = o.root.DeleteUsers(ctx, o.id, api.DeleteUsersIntent{UserIDs: res.UserIDs})
		}
		return d, err
	}
	policy := func(ctx context.Context, o *sizedOrg) (time.Duration, error) {
		var res *api.CreatePolicyResult
		d, err := timed(func() error {
			var err error
			res, _, err = o.root.CreatePolicy(ctx, o.id, api.CreatePolicyIntentV3{PolicyName: "p" + strconv.FormatUint(nonce.Add(1), 10),
				Effect: api.EffectAllow, Condition: "activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2'"})
			return err
		})
		if err == nil {
			_, _, err = o.root.DeletePolicy(ctx, o.id, api.DeletePolicyIntent{PolicyID: res.PolicyID})
		}
		return d, err
	}
	getAccount := func(ctx context.Context, o *sizedOrg) (time.Duration, error) {
		return timed(func() error {
			_, err := o.root.GetWalletAccount(ctx, api.GetWalletAccountRequest{OrganizationID: o.id, WalletID: o.wallet, Address: o.address})
			return err
		})
	}
	listAccounts := func(ctx context.Context, o *sizedOrg) (time.Duration, error) {
		return timed(func() error {
			res, err := o.root.ListWalletAccounts(ctx, api.ListWalletAccountsRequest{OrganizationID: o.id, WalletID: o.wallet,
				PaginationOptions: &api.Pagination{Limit: "100", After: o.midAccount}})
			if err == nil && len(res.Accounts) == 0 {
				err = fmt.Errorf("an empty page")
			}
			if err == nil && o.midAccount != "" && len(res.Accounts) != 100 {
				err = fmt.Errorf("a page of %d accounts", len(res.Accounts))
			}
			return err
		})
	}
	subOrg := func(ctx context.Context, o *sizedOrg) (time.Duration, error) {
		intent, err := newSubOrgIntent("sub " + strconv.FormatUint(nonce.Add(1), 10))
		if err != nil {
			return 0, err
		}
		return timed(func() error {
			_, _, err := o.root.CreateSubOrganization(ctx, o.id, intent)
			return err
		})
	}
	subOrgPage := func(at func(*sizedOrg) string) func(ctx context.Context, o *sizedOrg) (time.Duration, error) {
		return func(ctx context.Context, o *sizedOrg) (time.Duration, error) {
			return timed(func() error {
				res, err := o.root.ListSubOrgs(ctx, api.ListSubOrgsRequest{OrganizationID: o.id, PaginationOptions: &api.Pagination{Limit: "10", After: at(o)}})
				if err == nil && len(res.OrganizationIDs) == 0 {
					err = fmt.Errorf("an empty page")
				}
				return err
			})
		}
	}
	return []orgSizeOp{
		{"SIGN_RAW_PAYLOAD_V2 by address", 30, false, raw},
		{"SIGN_TRANSACTION_V2 by address", 30, false, tx},
		{"CREATE_WALLET_ACCOUNTS (100)", 10, false, accounts},
		{"CREATE_USERS (1)", 10, false, users},
		{"CREATE_POLICY", 10, false, policy},
		{"get_wallet_account", 30, false, getAccount},
		{"list_wallet_accounts (page of 100)", 20, true, listAccounts},
		{"CREATE_SUB_ORGANIZATION_V8", 10, false, subOrg},
		{"list_suborgs, first page", 20, false, subOrgPage(func(o *sizedOrg) string { return o.firstSub })},
		{"list_suborgs, page at the end", 20, false, subOrgPage(func(o *sizedOrg) string { return o.lastSub })},
	}
}

// seedSizedOrg creates an organization through the API — two wallets of one real account each, and a few real
// sub-organizations — and gives it n filler accounts (half in each wallet) and n filler sub-organizations as rows.
func seedSizedOrg(ctx context.Context, coord *coordinator.Coordinator, url string, raw *sql.DB, backend string, n int) (*sizedOrg, error) {
	boot, err := coord.CreateRootOrganization(ctx, fmt.Sprint("size ", n), "root")
	if err != nil {
		return nil, err
	}
	o := &sizedOrg{size: n, id: boot.OrganizationID, root: client.New(url, boot.APIKey)}
	var walletIDs []string
	for i := range 2 {
		w, _, err := o.root.CreateWallet(ctx, o.id, api.CreateWalletIntent{WalletName: fmt.Sprint("w", i), Accounts: []api.WalletAccountParams{ethAccount("m/44'/60'/0'/0/0")}})
		if err != nil {
			return nil, err
		}
		walletIDs = append(walletIDs, w.WalletID)
		if i == 0 {
			o.wallet, o.address = w.WalletID, w.Addresses[0]
		}
	}
	seq := int64(2) // the two real accounts
	for i, w := range walletIDs {
		half := int64(n / 2)
		if i == 1 {
			half = int64(n) - half
		}
		if err := SeedAccounts(raw, backend, o.id, w, seq+1, seq+half); err != nil {
			return nil, err
		}
		seq += half
	}
	if err := SeedSubOrgs(raw, backend, o.id, n); err != nil {
		return nil, err
	}
	for i := range 25 { // the newest sub-organizations: real ones
		intent, err := newSubOrgIntent(fmt.Sprint("real ", i))
		if err != nil {
			return nil, err
		}
		if _, _, err := o.root.CreateSubOrganization(ctx, o.id, intent); err != nil {
			return nil, err
		}
	}
	page, err := o.root.ListSubOrgs(ctx, api.ListSubOrgsRequest{OrganizationID: o.id, PaginationOptions: &api.Pagination{Limit: "1"}})
	if err != nil {
		return nil, err
	}
	o.firstSub = page.OrganizationIDs[0]
	lastQ, midQ := "SELECT id FROM organizations WHERE parent_id = ? ORDER BY created_at DESC, id DESC LIMIT 1 OFFSET 20",
		"SELECT id FROM wallet_accounts WHERE org_id = ? AND wallet_id = ? ORDER BY seq LIMIT 1 OFFSET ?"
	if backend == "postgres" {
		lastQ, midQ = strings.Replace(lastQ, "?", "$1", 1), "SELECT id FROM wallet_accounts WHERE org_id = $1 AND wallet_id = $2 ORDER BY seq LIMIT 1 OFFSET $3"
	}
	if err := raw.QueryRow(lastQ, o.id).Scan(&o.lastSub); err != nil {
		return nil, err
	}
	if n >= 1000 { // a page a quarter into the wallet; a smaller organization's first page
		if err := raw.QueryRow(midQ, o.id, o.wallet, n/4).Scan(&o.midAccount); err != nil {
			return nil, err
		}
	}
	o.nextPath.Store(1_000_000)
	return o, nil
}

// newSubOrgIntent is a sub-organization of one root user with an API key, as a sign-up makes.
func newSubOrgIntent(name string) (api.CreateSubOrganizationIntentV8, error) {
	threshold := int32(1)
	key, err := stamp.GenerateAPIKey(stamp.CurveP256)
	if err != nil {
		return api.CreateSubOrganizationIntentV8{}, err
	}
	return api.CreateSubOrganizationIntentV8{SubOrganizationName: name, RootQuorumThreshold: &threshold,
		RootUsers: []api.RootUserParamsV5{{UserName: "end user",
			APIKeys:        []api.APIKeyParamsV2{{APIKeyName: "key", PublicKey: key.PublicKeyHex(), CurveType: string(stamp.CurveP256)}},
			Authenticators: []api.AuthenticatorParamsV2{}, OauthProviders: []api.OauthProviderParamsV2{}}}}, nil
}

// storedBytes is what the database holds per 1,000 wallet accounts: the account rows with their indexes, and the
// sealed keys of the real accounts (the fillers have none).
func storedBytes(raw *sql.DB, backend string) (accounts, secrets float64, err error) {
	var rows, accountBytes, sealedRows, sealedBytes float64
	queries := []struct {
		q   string
		out *float64
	}{
		{"SELECT count(*) FROM wallet_accounts", &rows},
		{"SELECT count(*) FROM sealed_secrets", &sealedRows},
		{"SELECT pg_total_relation_size('wallet_accounts')", &accountBytes},
		{"SELECT pg_total_relation_size('sealed_secrets')", &sealedBytes},
	}
	if backend == "sqlite" {
		queries[2].q = "SELECT sum(pgsize) FROM dbstat WHERE name = 'wallet_accounts' OR name LIKE 'wallet_accounts_%'"
		queries[3].q = "SELECT sum(pgsize) FROM dbstat WHERE name = 'sealed_secrets' OR name LIKE 'sealed_secrets_%'"
	}
	for _, q := range queries {
		if err := raw.QueryRow(q.q).Scan(q.out); err != nil {
			return 0, 0, fmt.Errorf("bench: %s: %w", q.q, err)
		}
	}
	return accountBytes / rows * 1000, sealedBytes / sealedRows * 1000, nil
}

// victimLatency measures another organization's signing p50 in interleaved rounds: while the large organization adds
// accounts as fast as one client can, and while it rests.
func victimLatency(ctx context.Context, coord *coordinator.Coordinator, url string, large *sizedOrg, w io.Writer) error {
	boot, err := coord.CreateRootOrganization(ctx, "victim", "root")
	if err != nil {
		return err
	}
	victim := &sizedOrg{id: boot.OrganizationID, root: client.New(url, boot.APIKey)}
	wallet, _, err := victim.root.CreateWallet(ctx, victim.id, api.CreateWalletIntent{WalletName: "w", Accounts: []api.WalletAccountParams{ethAccount("m/44'/60'/0'/0/0")}})
	if err != nil {
		return err
	}
	victim.address = wallet.Addresses[0]
	ops := orgSizeOps()
	sign, addAccounts := ops[0], ops[2]
	var idle, busy []time.Duration
	for range 5 {
		for _, writing := range []bool{false, true} {
			stop := make(chan struct{})
			var wg sync.WaitGroup
			var writeErr error
			if writing {
				wg.Go(func() {
					for {
						select {
						case <-stop:
							return
						default:
						}
						if _, writeErr = addAccounts.run(ctx, large); writeErr != nil {
							return
						}
					}
				})
			}
			for range 40 {
				d, err := sign.run(ctx, victim)
				if err != nil {
					close(stop)
					wg.Wait()
					return err
				}
				if writing {
					busy = append(busy, d)
				} else {
					idle = append(idle, d)
				}
			}
			close(stop)
			wg.Wait()
			if writeErr != nil {
				return writeErr
			}
		}
	}
	fmt.Fprintf(w, "another organization's SIGN_RAW_PAYLOAD_V2 p50: %.2f ms while the organization of %d accounts rests, %.2f ms while it adds 100 accounts at a time (%.2f×)\n",
		millis(p50(idle)), large.size, millis(p50(busy)), float64(p50(busy))/float64(p50(idle)))
	return nil
}

func p50(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// procStatus reads a size field of /proc/self/status (VmRSS, VmHWM) in bytes; 0 when it cannot.
func procStatus(field string) int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}
