package coordinator_test

import (
	"context"
	"database/sql"
	"fmt"
	"math/big"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/testdb"
	"github.com/sigil/sigil/stamp"
)

// BenchmarkOrganizationSize measures, on each backend, what the activities and queries of issue #45 cost in
// organizations of 0, 10,000, 100,000 and 1,000,000 wallet accounts (SIGIL_ORG_SIZES overrides the sizes), each with
// as many sub-organizations: the p50 of each operation through the API, its ratio to the empty organization's, the
// process's RSS, and the database's bytes per 1,000 accounts. The organizations live in one database side by side and
// are measured in interleaved rounds, so that what the machine does meanwhile weighs on every size alike. The
// accounts and sub-organizations past the first few are written as rows directly (filler accounts have no key); every
// measured operation goes through the API. Then another organization's signing is measured while the largest one
// writes, and while it does not (issue #44 item 7).
//
//	go test ./internal/coordinator -run '^$' -bench OrganizationSize -benchtime 1x -timeout 60m
func BenchmarkOrganizationSize(b *testing.B) {
	sizes := []int{0, 10_000, 100_000, 1_000_000}
	if env := os.Getenv("SIGIL_ORG_SIZES"); env != "" {
		sizes = nil
		for _, f := range strings.Split(env, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil {
				b.Fatalf("SIGIL_ORG_SIZES: %v", err)
			}
			sizes = append(sizes, n)
		}
	}
	for _, backend := range []string{"sqlite", "postgres"} {
		b.Run(backend, func(b *testing.B) {
			db := testdb.SQLite(b)
			if backend == "postgres" {
				db = testdb.Postgres(b)
			}
			for range b.N {
				measureOrgSizes(b, db, sizes)
			}
		})
	}
}

// sizedOrg is one organization of the benchmark: its root's client, the wallet it signs with and where its accounts
// and sub-organizations are cut in the middle and near the end (the cursors of the pages read).
type sizedOrg struct {
	size       int
	id         string
	root       *client.Client
	wallet     string // the wallet of the signing account, and of half the fillers
	address    string // the account signed with
	midAccount string // an account id in the middle of the wallet
	firstSub   string
	lastSub    string // a sub-organization 20 from the end
	nextPath   atomic.Int64
}

func measureOrgSizes(b *testing.B, db testdb.Backend, sizes []int) {
	ctx := context.Background()
	s := newStack(b, db)
	raw, err := sql.Open(map[string]string{"sqlite": "sqlite", "postgres": "pgx"}[db.Name], db.URL)
	if err != nil {
		b.Fatal(err)
	}
	defer raw.Close()
	var orgs []*sizedOrg
	for _, n := range sizes {
		start := time.Now()
		orgs = append(orgs, seedSizedOrg(b, s, raw, db.Name, n))
		b.Logf("%s: organization of %d accounts and %d sub-organizations seeded in %s", db.Name, n, n, time.Since(start).Round(time.Millisecond))
	}

	ops := orgSizeOps()
	samples := map[string]map[int][]time.Duration{} // op, size
	for _, op := range ops {
		samples[op.name] = map[int][]time.Duration{}
	}
	var rssLargest int64
	const rounds = 7
	for round := range rounds {
		for _, o := range orgs {
			for _, op := range ops {
				for range op.perRound {
					d, err := op.run(ctx, s, o)
					if err != nil {
						b.Fatalf("%s in the organization of %d accounts: %v", op.name, o.size, err)
					}
					samples[op.name][o.size] = append(samples[op.name][o.size], d)
				}
			}
			if o == orgs[len(orgs)-1] {
				rssLargest = max(rssLargest, procStatus(b, "VmRSS"))
			}
		}
		b.Logf("%s: round %d of %d measured", db.Name, round+1, rounds)
	}

	fmt.Fprintf(os.Stdout, "\n%s: p50 per operation (ms) and its ratio to the empty organization's, %d rounds interleaved\n", db.Name, rounds)
	fmt.Fprintf(os.Stdout, "| operation |")
	for _, n := range sizes {
		fmt.Fprintf(os.Stdout, " %d accounts |", n)
	}
	fmt.Fprintf(os.Stdout, "\n|---|%s\n", strings.Repeat("---|", len(sizes)))
	for _, op := range ops {
		baseSize := sizes[0]
		if strings.HasPrefix(op.name, "list_wallet_accounts") { // the empty organization has no page of 100 to read
			for _, n := range sizes {
				if n >= 1000 {
					baseSize = n
					break
				}
			}
		}
		base := p50(samples[op.name][baseSize])
		fmt.Fprintf(os.Stdout, "| %s |", op.name)
		for _, n := range sizes {
			m := p50(samples[op.name][n])
			fmt.Fprintf(os.Stdout, " %.2f (%.2f×) |", ms(m), float64(m)/float64(base))
		}
		fmt.Fprintln(os.Stdout)
	}
	runtime.GC()
	var mem runtime.MemStats
	runtime.ReadMemStats(&mem)
	fmt.Fprintf(os.Stdout, "RSS while serving the largest organization: %.0f MiB (peak of the process %.0f MiB; Go heap in use after a GC %.0f MiB)\n",
		float64(rssLargest)/(1<<20), float64(procStatus(b, "VmHWM"))/(1<<20), float64(mem.HeapInuse)/(1<<20))
	accounts, secrets := storedBytes(b, raw, db.Name)
	fmt.Fprintf(os.Stdout, "database bytes per 1,000 wallet accounts: %.0f KiB of account rows and their indexes, plus %.0f KiB of sealed keys\n",
		accounts/1024, secrets/1024)

	victimLatency(b, s, orgs[len(orgs)-1])
}

// orgSizeOp is one measured operation: run performs it once and returns how long the API took.
type orgSizeOp struct {
	name     string
	perRound int
	run      func(ctx context.Context, s *stack, o *sizedOrg) (time.Duration, error)
}

func timed(f func() error) (time.Duration, error) {
	start := time.Now()
	err := f()
	return time.Since(start), err
}

func orgSizeOps() []orgSizeOp {
	raw := func(ctx context.Context, s *stack, o *sizedOrg) (time.Duration, error) {
		return timed(func() error {
			_, _, err := o.root.SignRawPayload(ctx, o.id, api.SignRawPayloadIntentV2{SignWith: o.address, Payload: "0x" + strings.Repeat("ab", 32),
				Encoding: "PAYLOAD_ENCODING_HEXADECIMAL", HashFunction: "HASH_FUNCTION_NO_OP"})
			return err
		})
	}
	var nonce atomic.Uint64
	tx := func(ctx context.Context, s *stack, o *sizedOrg) (time.Duration, error) {
		unsigned := unsigned1559(s.t, token, calldata(s.t, "approve", vault, big.NewInt(1)), nonce.Add(1))
		return timed(func() error {
			_, _, err := o.root.SignTransaction(ctx, o.id, api.SignTransactionIntentV2{SignWith: o.address, UnsignedTransaction: unsigned, Type: api.TransactionTypeEthereum})
			return err
		})
	}
	accounts := func(ctx context.Context, s *stack, o *sizedOrg) (time.Duration, error) {
		params := make([]api.WalletAccountParams, 100)
		for i := range params {
			params[i] = ethAccount()
			params[i].Path = fmt.Sprintf("m/44'/60'/0'/0/%d", o.nextPath.Add(1))
		}
		return timed(func() error {
			_, _, err := o.root.CreateWalletAccounts(ctx, o.id, api.CreateWalletAccountsIntent{WalletID: o.wallet, Accounts: params})
			return err
		})
	}
	users := func(ctx context.Context, s *stack, o *sizedOrg) (time.Duration, error) {
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
	policy := func(ctx context.Context, s *stack, o *sizedOrg) (time.Duration, error) {
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
	getAccount := func(ctx context.Context, s *stack, o *sizedOrg) (time.Duration, error) {
		return timed(func() error {
			_, err := o.root.GetWalletAccount(ctx, api.GetWalletAccountRequest{OrganizationID: o.id, WalletID: o.wallet, Address: o.address})
			return err
		})
	}
	listAccounts := func(ctx context.Context, s *stack, o *sizedOrg) (time.Duration, error) {
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
	subOrg := func(ctx context.Context, s *stack, o *sizedOrg) (time.Duration, error) {
		intent := newSubOrgIntent(s.t, "sub "+strconv.FormatUint(nonce.Add(1), 10))
		return timed(func() error {
			_, _, err := o.root.CreateSubOrganization(ctx, o.id, intent)
			return err
		})
	}
	subOrgPage := func(at func(*sizedOrg) string) func(ctx context.Context, s *stack, o *sizedOrg) (time.Duration, error) {
		return func(ctx context.Context, s *stack, o *sizedOrg) (time.Duration, error) {
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
		{"SIGN_RAW_PAYLOAD_V2 by address", 30, raw},
		{"SIGN_TRANSACTION_V2 by address", 30, tx},
		{"CREATE_WALLET_ACCOUNTS (100)", 4, accounts},
		{"CREATE_USERS (1)", 10, users},
		{"CREATE_POLICY", 10, policy},
		{"get_wallet_account", 20, getAccount},
		{"list_wallet_accounts (page of 100)", 20, listAccounts},
		{"CREATE_SUB_ORGANIZATION_V8", 10, subOrg},
		{"list_suborgs, first page", 20, subOrgPage(func(o *sizedOrg) string { return o.firstSub })},
		{"list_suborgs, page at the end", 20, subOrgPage(func(o *sizedOrg) string { return o.lastSub })},
	}
}

// seedSizedOrg creates an organization through the API — a wallet with a real account to sign with, and a few real
// sub-organizations — and gives it n filler accounts (in two wallets) and n filler sub-organizations as rows.
func seedSizedOrg(b *testing.B, s *stack, raw *sql.DB, backend string, n int) *sizedOrg {
	ctx := context.Background()
	boot, err := s.coord.CreateRootOrganization(ctx, fmt.Sprint("size ", n), "root")
	if err != nil {
		b.Fatal(err)
	}
	o := &sizedOrg{size: n, id: boot.OrganizationID, root: s.client(boot.APIKey)}
	var walletIDs []string
	for i := range 2 {
		w, _, err := o.root.CreateWallet(ctx, o.id, api.CreateWalletIntent{WalletName: fmt.Sprint("w", i), Accounts: []api.WalletAccountParams{ethAccount()}})
		if err != nil {
			b.Fatal(err)
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
		seedAccounts(b, raw, backend, o.id, w, seq+1, seq+half)
		seq += half
	}
	seedSubOrgs(b, raw, backend, o.id, n)
	for i := range 25 { // the newest sub-organizations: real ones
		if _, _, err := o.root.CreateSubOrganization(ctx, o.id, newSubOrgIntent(b, fmt.Sprint("real ", i))); err != nil {
			b.Fatal(err)
		}
	}
	page, err := o.root.ListSubOrgs(ctx, api.ListSubOrgsRequest{OrganizationID: o.id, PaginationOptions: &api.Pagination{Limit: "1"}})
	if err != nil {
		b.Fatal(err)
	}
	o.firstSub = page.OrganizationIDs[0]
	var last string
	if err := raw.QueryRow(rebindFor(backend, "SELECT id FROM organizations WHERE parent_id = ? ORDER BY created_at DESC, id DESC LIMIT 1 OFFSET 20"), o.id).Scan(&last); err != nil {
		b.Fatal(err)
	}
	o.lastSub = last
	if n >= 1000 { // a page after the middle of the wallet; a smaller organization's first page
		if err := raw.QueryRow(rebindFor(backend, "SELECT id FROM wallet_accounts WHERE org_id = ? AND wallet_id = ? ORDER BY seq LIMIT 1 OFFSET ?"), o.id, o.wallet, n/4).Scan(&o.midAccount); err != nil {
			b.Fatal(err)
		}
	}
	o.nextPath.Store(1_000_000)
	return o
}

// newSubOrgIntent is a sub-organization of one root user with an API key, as a sign-up makes.
func newSubOrgIntent(t testing.TB, name string) api.CreateSubOrganizationIntentV8 {
	threshold := int32(1)
	_, key := newKey(t, stamp.CurveP256)
	return api.CreateSubOrganizationIntentV8{SubOrganizationName: name, RootQuorumThreshold: &threshold,
		RootUsers: []api.RootUserParamsV5{{UserName: "end user", APIKeys: []api.APIKeyParamsV2{key},
			Authenticators: []api.AuthenticatorParamsV2{}, OauthProviders: []api.OauthProviderParamsV2{}}}}
}

// seedAccounts writes filler accounts seq from..to of a wallet, in one statement per 100,000: random-looking ids and
// addresses unique to the organization, no key.
func seedAccounts(b testing.TB, raw *sql.DB, backend, orgID, walletID string, from, to int64) {
	const chunk = 100_000
	now := time.Now().UTC().Format(time.RFC3339Nano)
	prefix := strings.ReplaceAll(orgID, "-", "")[:8]
	for lo := from; lo <= to; lo += chunk {
		hi := min(lo+chunk-1, to)
		var q string
		if backend == "sqlite" {
			q = `WITH RECURSIVE g(n) AS (SELECT ? UNION ALL SELECT n + 1 FROM g WHERE n < ?)
				INSERT INTO wallet_accounts (org_id, seq, id, wallet_id, name, curve, path_format, path, address_format, address, address_key, public_key, key_secret, created_at, updated_at)
				SELECT ?, n, substr(?, 1, 24) || printf('%012x', n), ?, '', 'CURVE_SECP256K1', 'PATH_FORMAT_BIP32', 'm/44''/60''/1''/0/' || n,
					'ADDRESS_FORMAT_ETHEREUM', '0x' || ? || printf('%032x', n), '0x' || ? || printf('%032x', n), '02' || printf('%064x', n), 'filler', ?, ? FROM g`
		} else {
			q = `INSERT INTO wallet_accounts (org_id, seq, id, wallet_id, name, curve, path_format, path, address_format, address, address_key, public_key, key_secret, created_at, updated_at)
				SELECT $3, n, substr($4, 1, 24) || lpad(to_hex(n), 12, '0'), $5, '', 'CURVE_SECP256K1', 'PATH_FORMAT_BIP32', 'm/44''/60''/1''/0/' || n,
					'ADDRESS_FORMAT_ETHEREUM', '0x' || $6 || lpad(to_hex(n), 32, '0'), '0x' || $7 || lpad(to_hex(n), 32, '0'), '02' || lpad(to_hex(n), 64, '0'), 'filler', $8, $9
				FROM generate_series($1::bigint, $2::bigint) n`
		}
		if _, err := raw.Exec(q, lo, hi, orgID, orgID, walletID, prefix, prefix, now, now); err != nil {
			b.Fatalf("seeding accounts: %v", err)
		}
	}
}

// seedSubOrgs writes n filler sub-organizations of parent (each indexed by its name), older than any made through
// the API.
func seedSubOrgs(b testing.TB, raw *sql.DB, backend, parent string, n int) {
	if n == 0 {
		return
	}
	const chunk = 100_000
	prefix := parent[:24]
	doc := `{"id":"%s","name":"filler","parentId":"` + parent + `","rootQuorum":{"userIds":[],"threshold":1},"users":[],"tags":[],"policies":[],"wallets":[],"privateKeys":[],"createdAt":"2026-12-01T00:00:00Z","updatedAt":"2026-12-01T00:00:00Z"}`
	before, after, _ := strings.Cut(doc, "%s")
	for lo := 1; lo <= n; lo += chunk {
		hi := min(lo+chunk-1, n)
		var orgsQ, indexQ string
		if backend == "sqlite" {
			gen := `WITH RECURSIVE g(n) AS (SELECT ? UNION ALL SELECT n + 1 FROM g WHERE n < ?) `
			orgsQ = gen + `INSERT INTO organizations (id, parent_id, version, data, created_at)
				SELECT substr(?, 1, 24) || printf('%012x', n + 1000000000), ?, 1, ? || substr(?, 1, 24) || printf('%012x', n + 1000000000) || ?, n FROM g`
			indexQ = gen + `INSERT INTO org_index (kind, value, org_id, parent_id)
				SELECT 'NAME', 'filler ' || n, substr(?, 1, 24) || printf('%012x', n + 1000000000), ? FROM g`
		} else {
			orgsQ = `INSERT INTO organizations (id, parent_id, version, data, created_at)
				SELECT substr($3, 1, 24) || lpad(to_hex(n + 1000000000), 12, '0'), $4, 1, $5 || substr($6, 1, 24) || lpad(to_hex(n + 1000000000), 12, '0') || $7, n
				FROM generate_series($1::bigint, $2::bigint) n`
			indexQ = `INSERT INTO org_index (kind, value, org_id, parent_id)
				SELECT 'NAME', 'filler ' || n, substr($3, 1, 24) || lpad(to_hex(n + 1000000000), 12, '0'), $4 FROM generate_series($1::bigint, $2::bigint) n`
		}
		if _, err := raw.Exec(orgsQ, lo, hi, prefix, parent, before, prefix, after); err != nil {
			b.Fatalf("seeding sub-organizations: %v", err)
		}
		if _, err := raw.Exec(indexQ, lo, hi, prefix, parent); err != nil {
			b.Fatalf("seeding sub-organizations' index: %v", err)
		}
	}
}

func rebindFor(backend, q string) string {
	if backend == "sqlite" {
		return q
	}
	for i := 1; strings.Contains(q, "?"); i++ {
		q = strings.Replace(q, "?", "$"+strconv.Itoa(i), 1)
	}
	return q
}

// storedBytes is what the database holds per 1,000 wallet accounts: the account rows with their indexes, and the
// sealed keys of the real accounts (the fillers have none).
func storedBytes(b *testing.B, raw *sql.DB, backend string) (accounts, secrets float64) {
	var rows, accountBytes, sealedRows, sealedBytes float64
	if err := raw.QueryRow("SELECT count(*) FROM wallet_accounts").Scan(&rows); err != nil {
		b.Fatal(err)
	}
	if err := raw.QueryRow("SELECT count(*) FROM sealed_secrets").Scan(&sealedRows); err != nil {
		b.Fatal(err)
	}
	if backend == "sqlite" {
		if err := raw.QueryRow(`SELECT sum(pgsize) FROM dbstat WHERE name = 'wallet_accounts' OR name LIKE 'wallet_accounts_%'`).Scan(&accountBytes); err != nil {
			b.Fatal(err)
		}
		if err := raw.QueryRow(`SELECT sum(pgsize) FROM dbstat WHERE name = 'sealed_secrets' OR name LIKE 'sqlite_autoindex_sealed_secrets%' OR name = 'sealed_secrets_org'`).Scan(&sealedBytes); err != nil {
			b.Fatal(err)
		}
	} else {
		if err := raw.QueryRow("SELECT pg_total_relation_size('wallet_accounts')").Scan(&accountBytes); err != nil {
			b.Fatal(err)
		}
		if err := raw.QueryRow("SELECT pg_total_relation_size('sealed_secrets')").Scan(&sealedBytes); err != nil {
			b.Fatal(err)
		}
	}
	return accountBytes / rows * 1000, sealedBytes / sealedRows * 1000
}

// victimLatency measures another organization's signing p50 in interleaved rounds: while the large organization adds
// accounts as fast as one client can, and while it rests.
func victimLatency(b *testing.B, s *stack, large *sizedOrg) {
	ctx := context.Background()
	boot, err := s.coord.CreateRootOrganization(ctx, "victim", "root")
	if err != nil {
		b.Fatal(err)
	}
	victim := &sizedOrg{id: boot.OrganizationID, root: s.client(boot.APIKey)}
	w, _, err := victim.root.CreateWallet(ctx, victim.id, api.CreateWalletIntent{WalletName: "w", Accounts: []api.WalletAccountParams{ethAccount()}})
	if err != nil {
		b.Fatal(err)
	}
	victim.address = w.Addresses[0]
	var idle, busy []time.Duration
	for range 5 {
		for _, writing := range []bool{false, true} {
			stop := make(chan struct{})
			var wg sync.WaitGroup
			if writing {
				wg.Go(func() {
					for {
						select {
						case <-stop:
							return
						default:
						}
						if _, err := orgSizeOps()[2].run(ctx, s, large); err != nil {
							b.Error(err)
							return
						}
					}
				})
			}
			for range 40 {
				d, err := orgSizeOps()[0].run(ctx, s, victim)
				if err != nil {
					b.Fatal(err)
				}
				if writing {
					busy = append(busy, d)
				} else {
					idle = append(idle, d)
				}
			}
			close(stop)
			wg.Wait()
		}
	}
	fmt.Fprintf(os.Stdout, "another organization's SIGN_RAW_PAYLOAD_V2 p50: %.2f ms while the organization of %d accounts rests, %.2f ms while it adds 100 accounts at a time (%.2f×)\n",
		ms(p50(idle)), large.size, ms(p50(busy)), float64(p50(busy))/float64(p50(idle)))
}

func p50(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// procStatus reads a size field of /proc/self/status (VmRSS, VmHWM) in bytes.
func procStatus(b *testing.B, field string) int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}
