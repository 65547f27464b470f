package yield

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/sigil/sigil/internal/contracts"
	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/testdb"
)

func checkErrorShape(t *testing.T, r response, status int, contains string) {
	t.Helper()
	var body struct {
		Message    string `json:"message"`
		Error      string `json:"error"`
		StatusCode int    `json:"statusCode"`
	}
	r.decode(t, &body)
	if r.status != status || body.StatusCode != status || body.Error != http.StatusText(status) || !strings.Contains(body.Message, contains) {
		t.Fatalf("got %d %s, want %d with %q", r.status, r.body, status, contains)
	}
}

func TestAPIKeys(t *testing.T) {
	e := newEnv(t, envOptions{})
	checkErrorShape(t, e.call("", "GET", "/v1/yields", nil), 401, "API key")
	checkErrorShape(t, e.call("sgy_not-a-key", "GET", "/v1/yields", nil), 401, "Invalid API key")
	checkErrorShape(t, e.call("something else", "GET", "/v1/yields", nil), 401, "Invalid API key")

	// The header name is case-insensitive.
	req, _ := http.NewRequest("GET", e.srv.URL+"/v1/networks", nil)
	req.Header["x-api-key"] = []string{e.key10}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("lower-case header: %d", res.StatusCode)
	}

	// Only the hash is stored.
	row, err := e.store.YieldAPIKeyByHash(context.Background(), hashKey(e.key10))
	if err != nil || row.Project != "project-ten" || row.FeeSet != 10 || strings.Contains(row.KeyHash, e.key10) {
		t.Fatalf("stored key %+v, %v", row, err)
	}

	var health map[string]string
	e.mustCall("", "GET", "/health", nil, 200, &health)
	if health["status"] != "OK" {
		t.Fatalf("health %v", health)
	}
	checkErrorShape(t, e.call(e.key10, "GET", "/v1/nothing", nil), 404, "Cannot GET /v1/nothing")
}

// A fee set belongs to the project: its first key fixes it, a later key may leave it out and gets it, and a key on
// the other set is refused, also when several are created at once for a new project.
func TestProjectFeeSet(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		st, err := store.Open(ctx, b.URL, b.Dir)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		// Authenticating needs no chain: New does not talk to it.
		svc, err := New(Config{Catalogue: validCatalogue(), Store: st, Logger: quietLog})
		if err != nil {
			t.Fatal(err)
		}
		defer svc.Close()
		sees := func(key string, project string, feeSet int) {
			t.Helper()
			k, err := svc.authenticate(ctx, key)
			if err != nil || k.project != project || k.feeSet != feeSet {
				t.Fatalf("key of %s: %+v, %v; want fee set %d", project, k, err, feeSet)
			}
		}
		first, set, err := NewAPIKey(ctx, st, "p", 20, time.Now())
		if err != nil || set != 20 {
			t.Fatalf("first key: %d, %v", set, err)
		}
		second, set, err := NewAPIKey(ctx, st, "p", 0, time.Now())
		if err != nil || set != 20 || second == first {
			t.Fatalf("a key without a fee set: %d, %v", set, err)
		}
		sees(first, "p", 20)
		sees(second, "p", 20)
		if _, _, err := NewAPIKey(ctx, st, "p", 10, time.Now()); err == nil || !strings.Contains(err.Error(), `project "p" is on the 20% fee set`) {
			t.Fatalf("a key on the other set: %v", err)
		}
		if _, _, err := NewAPIKey(ctx, st, "p", 20, time.Now()); err != nil {
			t.Fatalf("a key on the project's set: %v", err)
		}
		for _, tc := range []struct {
			project string
			feeSet  int
			error   string
		}{{"new", 0, "needs a fee set"}, {"q", 15, "not 10 or 20"}, {" ", 10, "project name"}} {
			if _, _, err := NewAPIKey(ctx, st, tc.project, tc.feeSet, time.Now()); err == nil || !strings.Contains(err.Error(), tc.error) {
				t.Fatalf("project %q on %d: %v, want an error with %q", tc.project, tc.feeSet, err, tc.error)
			}
		}

		// Keys of a new project created at once on both sets: the project ends on one set and only its keys exist.
		type result struct {
			key         string
			feeSet, got int
			err         error
		}
		results := make(chan result, 8)
		for i := range 8 {
			go func() {
				r := result{feeSet: FeeSets[i%2]}
				r.key, r.got, r.err = NewAPIKey(ctx, st, "race", r.feeSet, time.Now())
				results <- r
			}()
		}
		won := 0
		for range 8 {
			r := <-results
			switch {
			case r.err == nil && (won == 0 || won == r.got) && r.got == r.feeSet:
				won = r.got
				sees(r.key, "race", won)
			case r.err != nil && strings.Contains(r.err.Error(), "a project has one fee set"):
			default:
				t.Fatalf("a key on %d: %d, %v (the project is on %d)", r.feeSet, r.got, r.err, won)
			}
		}
		if won == 0 {
			t.Fatal("no key of the new project was created")
		}
	})
}

// Two yield services over one PostgreSQL count one rate limit per key: three requests spread over both use it up.
func TestRateLimitSharedByTwoProcesses(t *testing.T) {
	t.Parallel()
	pg := testdb.Postgres(t)
	e := newEnv(t, envOptions{rateLimit: 3, backend: &pg, shared: true})
	other, err := New(Config{Catalogue: e.cat, Store: e.store, Clock: e.clock.now, Logger: quietLog, RateLimit: 3,
		PollInterval: time.Hour, SampleInterval: time.Hour, SharedLimits: e.store})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(other.Handler())
	t.Cleanup(srv.Close)
	get := func(base string) int {
		req, _ := http.NewRequest(http.MethodGet, base+"/v1/networks", nil)
		req.Header.Set("X-API-KEY", e.key10)
		res, err := testClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	for i, base := range []string{e.srv.URL, srv.URL, e.srv.URL} {
		if s := get(base); s != 200 {
			t.Fatalf("request %d: %d", i, s)
		}
	}
	for _, base := range []string{e.srv.URL, srv.URL} {
		if s := get(base); s != 429 {
			t.Fatalf("past the shared limit through %s: %d", base, s)
		}
	}
}

func TestRateLimit(t *testing.T) {
	e := newEnv(t, envOptions{rateLimit: 3})
	for i := range 3 {
		r := e.mustCall(e.key10, "GET", "/v1/networks", nil, 200, nil)
		if r.header.Get("X-RateLimit-Limit") != "3" || r.header.Get("X-RateLimit-Remaining") != strconv.Itoa(2-i) {
			t.Fatalf("request %d headers %v", i, r.header)
		}
	}
	r := e.call(e.key10, "GET", "/v1/networks", nil)
	checkErrorShape(t, r, 429, "Rate limit exceeded")
	reset, _ := strconv.ParseInt(r.header.Get("X-RateLimit-Reset"), 10, 64)
	retry, _ := strconv.Atoi(r.header.Get("Retry-After"))
	if want := reset - e.clock.now().Unix(); retry <= 0 || int64(retry) < want-1 || int64(retry) > want+1 {
		t.Fatalf("retry-after %d, reset %d, now %d", retry, reset, e.clock.now().Unix())
	}
	var body map[string]any
	r.decode(t, &body)
	if body["retryAfter"] != float64(retry) {
		t.Fatalf("body %v", body)
	}
	// Another key has its own window; the window ends and the key may call again.
	e.mustCall(e.key20, "GET", "/v1/networks", nil, 200, nil)
	e.clock.advance(time.Minute)
	e.mustCall(e.key10, "GET", "/v1/networks", nil, 200, nil)
}

func TestCatalogueEndpoints(t *testing.T) {
	e := newEnv(t, envOptions{})
	var all page[yieldDTO]
	e.mustCall(e.key10, "GET", "/v1/yields?limit=100", nil, 200, &all)
	// The dev catalogue has 13 yields; each fee set sees one of the two allocator vaults.
	if all.Total != 12 || all.Limit != 100 || all.Offset != 0 || len(all.Items) != 12 {
		t.Fatalf("key10 sees %d yields", all.Total)
	}
	for _, y := range all.Items {
		if y.Network != "sigil-dev" || y.ChainID != "1337" || len(y.InputTokens) != 1 || y.ProviderID == "" || y.Mechanics.Type == "" ||
			y.Mechanics.GasFeeToken.Symbol != "ETH" || y.RewardRate.RateType == "" || len(y.RewardRate.Components) != 1 {
			t.Fatalf("yield %+v", y)
		}
		if y.Mechanics.Type == "vault" && (y.OutputToken == nil || y.State.PricePerShareState == nil || y.State.PricePerShareState.Price < 1) {
			t.Fatalf("vault without share token or price: %+v", y)
		}
	}
	var p page[yieldDTO]
	e.mustCall(e.key10, "GET", "/v1/yields", nil, 200, &p)
	if p.Limit != 20 {
		t.Fatalf("default limit %d", p.Limit)
	}
	usdc := e.addr(contracts.USDC).Hex()
	for _, tc := range []struct {
		query string
		want  int
	}{
		{"network=sigil-dev&token=USDC", 5}, // the plain vault, the 10% set's allocator vault, Morpho, lending, Aave
		{"token=" + strings.ToLower(usdc), 5},
		{"type=staking", 2},
		{"types=staking,lending", 7},
		{"provider=sigillend", 2},
		{"provider=aave", 3},
		{"network=ethereum", 0},
		{"networks=ethereum,sigil-dev&type=lending", 5},
		{"search=allocator", 1},
		{"yieldId=sigil-dev-eth-native-staking", 1},
		{"provider=morpho", 1},
		{"limit=2&offset=11", 12},
	} {
		e.mustCall(e.key10, "GET", "/v1/yields?"+tc.query, nil, 200, &p)
		if tc.query == "limit=2&offset=11" {
			if p.Total != tc.want || len(p.Items) != 1 || p.Offset != 11 || p.Limit != 2 {
				t.Fatalf("%s: %d of %d", tc.query, len(p.Items), p.Total)
			}
			continue
		}
		if p.Total != tc.want {
			ids := []string{}
			for _, y := range p.Items {
				ids = append(ids, y.ID)
			}
			t.Fatalf("%s: %d yields %v, want %d", tc.query, p.Total, ids, tc.want)
		}
	}
	for _, q := range []string{"limit=0", "limit=101", "limit=x", "offset=-1", "sort=nope"} {
		r := e.call(e.key10, "GET", "/v1/yields?"+q, nil)
		checkErrorShape(t, r, 400, strings.SplitN(q, "=", 2)[0])
	}
	e.mustCall(e.key10, "GET", "/v1/yields?sort=rewardRateDesc", nil, 200, &p)
	for i := 1; i < len(p.Items); i++ {
		if p.Items[i].RewardRate.Total > p.Items[i-1].RewardRate.Total {
			t.Fatal("not sorted by reward rate")
		}
	}
	checkErrorShape(t, e.call(e.key10, "GET", "/v1/yields/nope", nil), 404, "nope")

	var networks []networkDTO
	e.mustCall(e.key10, "GET", "/v1/networks", nil, 200, &networks)
	if len(networks) != 1 || networks[0].ID != "sigil-dev" || networks[0].Category != "evm" {
		t.Fatalf("networks %+v", networks)
	}
	var prov providerDTO
	e.mustCall(e.key10, "GET", "/v1/providers/sigillend", nil, 200, &prov)
	if prov.Type != "protocol" || prov.RevShare != nil {
		t.Fatalf("provider %+v", prov)
	}
	e.mustCall(e.key10, "GET", "/v1/providers/nope", nil, 404, nil)
}

// What a yield says of itself, per kind: its metadata (every field of the reference, the catalogue's name and
// description, the standards and fee mechanisms of the kind), the argument schemas of mechanics.arguments, and the
// entry limits, which the enter schema's amount repeats.
func TestYieldMetadataAndArguments(t *testing.T) {
	e := newEnv(t, envOptions{edit: func(c *Catalogue) {
		for i, y := range c.Yields {
			if y.Kind == KindLending && y.Token.Symbol == "USDC" {
				c.Yields[i].EntryLimits = &EntryLimits{Minimum: "2", Maximum: "30"}
			}
		}
	}})
	vaultArgs := [2][]string{{"amount", "receiverAddress"}, {"amount", "useMaxAmount", "receiverAddress"}}
	stakingArgs := [2][]string{{"amount"}, {"amount", "useMaxAmount"}}
	providerArgs := [2][]string{{"amount", "validatorAddress"}, {"amount", "useMaxAmount", "validatorAddress"}}
	limited := e.yieldID(KindLending, e.addr(contracts.Lending).Hex(), "USDC")
	for _, tc := range []struct {
		id         string
		standards  []string
		mechanisms feeMechanismsDTO
		args       [2][]string // enter's and exit's field names
		manage     []string    // the manage actions, each without arguments
	}{
		{e.yieldID(KindERC4626, e.addr(contracts.VaultUSDC).Hex(), "USDC"), []string{"ERC20", "ERC4626"},
			feeMechanismsDTO{DepositFee: true}, vaultArgs, nil},
		{e.yieldID(KindAllocatorVault, e.addr(contracts.OAV10USDC).Hex(), "USDC"), []string{"ERC20", "ERC4626"},
			feeMechanismsDTO{DepositFee: true, ManagementFee: true, PerformanceFee: true}, vaultArgs, nil},
		{limited, []string{"ERC20"}, feeMechanismsDTO{}, vaultArgs, nil},
		{e.yieldID(KindNativeStaking, "", "ETH"), []string{}, feeMechanismsDTO{DepositFee: true}, stakingArgs,
			[]string{"CLAIM_REWARDS", "WITHDRAW"}},
		{e.yieldID(KindProviderStaking, "", "ETH"), []string{"ERC20"}, feeMechanismsDTO{DepositFee: true, ValidatorRebates: true},
			providerArgs, []string{"WITHDRAW"}},
	} {
		r := e.mustCall(e.key10, "GET", "/v1/yields/"+tc.id, nil, 200, nil)
		var y yieldDTO
		r.decode(t, &y)
		cfg := e.yieldCfg(tc.id)
		md := y.Metadata
		if md.Name != cfg.Name || md.Description != cfg.Description || md.Description == "" || md.UnderMaintenance || md.Deprecated ||
			!slices.Equal(md.SupportedStandards, tc.standards) || md.PossibleFeeTakingMechanisms != tc.mechanisms ||
			y.Mechanics.PossibleFeeTakingMechanisms != tc.mechanisms {
			t.Errorf("%s metadata %+v, mechanics' fee mechanisms %+v", tc.id, md, y.Mechanics.PossibleFeeTakingMechanisms)
		}
		var raw struct {
			Metadata  map[string]json.RawMessage `json:"metadata"`
			Mechanics struct {
				EntryLimits map[string]*string `json:"entryLimits"`
			} `json:"mechanics"`
		}
		r.decode(t, &raw)
		for _, field := range []string{"name", "logoURI", "description", "documentation", "underMaintenance", "deprecated",
			"supportedStandards", "possibleFeeTakingMechanisms"} {
			if v, ok := raw.Metadata[field]; !ok || string(v) == "null" {
				t.Errorf("%s metadata lacks %s: %v", tc.id, field, raw.Metadata)
			}
		}

		args := y.Mechanics.Arguments
		for i, schema := range []*argumentSchemaDTO{args.Enter, args.Exit} {
			var names []string
			for _, f := range schema.Fields {
				names = append(names, f.Name)
				want := map[string]string{"amount": "string", "receiverAddress": "address", "validatorAddress": "address"}[f.Name]
				if want == "" {
					want = "boolean"
				}
				if f.Type != want || f.Required != (f.Name == "amount") || f.Label == "" ||
					(f.OptionsRef != "") != (f.Name == "validatorAddress") || f.OptionsRef != "" && f.OptionsRef != "/v1/yields/"+tc.id+"/validators" {
					t.Errorf("%s field %+v", tc.id, f)
				}
			}
			if !slices.Equal(names, tc.args[i]) {
				t.Errorf("%s %s arguments %v, want %v", tc.id, []string{"enter", "exit"}[i], names, tc.args[i])
			}
		}
		manage := slices.Sorted(maps.Keys(args.Manage))
		if !slices.Equal(manage, tc.manage) {
			t.Errorf("%s manage actions %v, want %v", tc.id, manage, tc.manage)
		}
		for action, schema := range args.Manage {
			if schema == nil || schema.Fields == nil || len(schema.Fields) != 0 {
				t.Errorf("%s manage %s schema %+v, want no fields", tc.id, action, schema)
			}
		}

		minimum, maximum := raw.Mechanics.EntryLimits["minimum"], raw.Mechanics.EntryLimits["maximum"]
		if _, ok := raw.Mechanics.EntryLimits["minimum"]; !ok {
			t.Errorf("%s mechanics lacks entryLimits.minimum", tc.id)
		}
		amount := args.Enter.Fields[0]
		if tc.id == limited {
			if minimum == nil || *minimum != "2" || maximum == nil || *maximum != "30" || *amount.Minimum != "2" || *amount.Maximum != "30" {
				t.Errorf("%s entry limits %v, amount field %+v", tc.id, raw.Mechanics.EntryLimits, amount)
			}
		} else if minimum != nil || maximum != nil || amount.Minimum != nil || amount.Maximum != nil {
			t.Errorf("%s has entry limits %v", tc.id, raw.Mechanics.EntryLimits)
		}
	}
}

// closeVaults closes the WETH vault to enters and the DAI vault to exits.
func closeVaults(c *Catalogue) {
	for i, y := range c.Yields {
		switch {
		case y.Kind == KindERC4626 && y.Token.Symbol == "WETH":
			c.Yields[i].Status = &YieldStatus{Enter: false, Exit: true}
		case y.Kind == KindERC4626 && y.Token.Symbol == "DAI":
			c.Yields[i].Status = &YieldStatus{Enter: true, Exit: false}
		}
	}
}

// The status sorts put the yields closed for enters (or exits) first or last, and keep the catalogue's order
// otherwise.
func TestYieldStatusSorts(t *testing.T) {
	e := newEnv(t, envOptions{edit: closeVaults})
	noEnter := e.yieldID(KindERC4626, e.addr(contracts.VaultWETH).Hex(), "WETH")
	noExit := e.yieldID(KindERC4626, e.addr(contracts.VaultDAI).Hex(), "DAI")
	ids := func(query string) []string {
		var p page[yieldDTO]
		e.mustCall(e.key10, "GET", "/v1/yields?limit=100"+query, nil, 200, &p)
		var out []string
		for _, y := range p.Items {
			out = append(out, y.ID)
		}
		return out
	}
	catalogue := ids("")
	// Each closed yield is neither first nor last in the catalogue, so that each sort has to move it.
	for _, id := range []string{noEnter, noExit} {
		if i := slices.Index(catalogue, id); i < 1 || i > len(catalogue)-2 {
			t.Fatalf("%s is at %d of %v", id, i, catalogue)
		}
	}
	others := func(id string) []string {
		return slices.DeleteFunc(slices.Clone(catalogue), func(x string) bool { return x == id })
	}
	for _, tc := range []struct {
		sort string
		want []string
	}{
		{"statusEnterAsc", append([]string{noEnter}, others(noEnter)...)},
		{"statusEnterDesc", append(others(noEnter), noEnter)},
		{"statusExitAsc", append([]string{noExit}, others(noExit)...)},
		{"statusExitDesc", append(others(noExit), noExit)},
	} {
		if got := ids("&sort=" + tc.sort); !slices.Equal(got, tc.want) {
			t.Errorf("sort=%s: %v, want %v", tc.sort, got, tc.want)
		}
	}
}

// Every bad input of an action is a 400 whose message names the field.
func TestActionBadInputs(t *testing.T) {
	e := newEnv(t, envOptions{edit: func(c *Catalogue) {
		closeVaults(c)
		for i, y := range c.Yields {
			if y.Kind == KindLending && y.Token.Symbol == "USDC" {
				c.Yields[i].EntryLimits = &EntryLimits{Minimum: "2", Maximum: "30"}
			}
		}
	}})
	vault := e.yieldID(KindERC4626, e.addr(contracts.VaultUSDC).Hex(), "USDC")
	closed := e.yieldID(KindERC4626, e.addr(contracts.VaultWETH).Hex(), "WETH")
	noExit := e.yieldID(KindERC4626, e.addr(contracts.VaultDAI).Hex(), "DAI")
	limited := e.yieldID(KindLending, e.addr(contracts.Lending).Hex(), "USDC")
	oav20 := e.yieldID(KindAllocatorVault, e.addr(contracts.OAV20USDC).Hex(), "USDC")
	staking := e.yieldID(KindNativeStaking, "", "ETH")
	w := e.newWallet("1", map[string]string{"USDC": "50"})
	addr := w.addr.Hex()
	// A small position to exit from.
	w.execute(e.key10, w.act(e.key10, "enter", vault, map[string]any{"amount": "10"}))

	body := func(yieldID, address string, args any) map[string]any {
		return map[string]any{"yieldId": yieldID, "address": address, "arguments": args}
	}
	for _, tc := range []struct {
		name, intent string
		body         any
		field        string
	}{
		{"too many decimals", "enter", body(vault, addr, map[string]any{"amount": "1.0000001"}), "arguments.amount"},
		{"zero", "enter", body(vault, addr, map[string]any{"amount": "0"}), "arguments.amount"},
		{"zero with decimals", "enter", body(vault, addr, map[string]any{"amount": "0.000"}), "arguments.amount"},
		{"negative", "enter", body(vault, addr, map[string]any{"amount": "-1"}), "arguments.amount"},
		{"not a number", "enter", body(vault, addr, map[string]any{"amount": "ten"}), "arguments.amount"},
		{"exponent", "enter", body(vault, addr, map[string]any{"amount": "1e3"}), "arguments.amount"},
		{"JSON number", "enter", body(vault, addr, map[string]any{"amount": 5}), "arguments.amount"},
		{"missing amount", "enter", body(vault, addr, map[string]any{}), "arguments.amount"},
		{"no arguments", "enter", body(vault, addr, nil), "arguments.amount"},
		{"more than the balance", "enter", body(vault, addr, map[string]any{"amount": "40.000001"}), "arguments.amount"},
		{"more than the position", "exit", body(vault, addr, map[string]any{"amount": "10.000001"}), "arguments.amount"},
		{"max exit of nothing", "exit", body(staking, addr, map[string]any{"useMaxAmount": true}), "arguments.useMaxAmount"},
		{"max on an enter", "enter", body(vault, addr, map[string]any{"amount": "1", "useMaxAmount": true}), "arguments.useMaxAmount"},
		{"unknown yield", "enter", body("sigil-dev-nope-lending", addr, map[string]any{"amount": "1"}), "yieldId"},
		{"missing yield", "enter", body("", addr, map[string]any{"amount": "1"}), "yieldId"},
		{"other fee set's yield", "enter", body(oav20, addr, map[string]any{"amount": "1"}), "yieldId"},
		{"enter closed", "enter", body(closed, addr, map[string]any{"amount": "1"}), "status.enter"},
		{"exit closed", "exit", body(noExit, addr, map[string]any{"amount": "1"}), "status.exit"},
		{"exit everything closed", "exit", body(noExit, addr, map[string]any{"useMaxAmount": true}), "status.exit"},
		{"below the entry minimum", "enter", body(limited, addr, map[string]any{"amount": "1.999999"}),
			"arguments.amount: is below the minimum of 2 USDC"},
		{"above the entry maximum", "enter", body(limited, addr, map[string]any{"amount": "30.000001"}),
			"arguments.amount: is above the maximum of 30 USDC"},
		{"malformed address", "enter", body(vault, "0x1234", map[string]any{"amount": "1"}), "address"},
		{"address not hex", "enter", body(vault, "0x"+strings.Repeat("z", 40), map[string]any{"amount": "1"}), "address"},
		{"bad checksum", "enter", body(vault, badChecksum(w.addr), map[string]any{"amount": "1"}), "checksum"},
		{"missing address", "enter", body(vault, "", map[string]any{"amount": "1"}), "address"},
		{"bad receiver", "enter", body(vault, addr, map[string]any{"amount": "1", "receiverAddress": "nope"}), "arguments.receiverAddress"},
		{"arguments not an object", "enter", body(vault, addr, "1"), "arguments"},
		{"manage without action", "manage", map[string]any{"yieldId": staking, "address": addr, "passthrough": "x"}, "action"},
		{"manage bad passthrough", "manage", map[string]any{"yieldId": staking, "address": addr, "action": "WITHDRAW", "passthrough": "!!"}, "passthrough"},
		{"manage on a vault", "manage", map[string]any{"yieldId": vault, "address": addr, "action": "WITHDRAW",
			"passthrough": encodePassthrough(passthrough{YieldID: vault, Address: strings.ToLower(addr), Action: "WITHDRAW"})}, "action"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.call(e.key10, "POST", "/v1/actions/"+tc.intent, tc.body)
			checkErrorShape(t, r, 400, tc.field)
		})
	}
	r := e.call(e.key10, "POST", "/v1/actions/enter", rawBody(`{"yieldId":`))
	checkErrorShape(t, r, 400, "body")
	// The entry limits include their bounds and bound enters only: an exit may be smaller than the minimum.
	w.act(e.key10, "enter", limited, map[string]any{"amount": "30"})
	w.execute(e.key10, w.act(e.key10, "enter", limited, map[string]any{"amount": "2"}))
	w.act(e.key10, "exit", limited, map[string]any{"amount": "1"})
	// A wallet without ether cannot pay the gas: refused before anything is handed out.
	broke := e.newWallet("0", map[string]string{"USDC": "5"})
	r = e.call(e.key10, "POST", "/v1/actions/enter", body(vault, broke.addr.Hex(), map[string]any{"amount": "1"}))
	checkErrorShape(t, r, 400, "address")
}

// badChecksum is a's EIP-55 form with one letter in the other case: a checksum that fails. An address all in one case
// carries no checksum, so the letter flipped is one that leaves both cases in it.
func badChecksum(a common.Address) string {
	s := a.Hex()
	for i := 2; i < len(s); i++ {
		flipped := s[:i] + flipCase(s[i]) + s[i+1:]
		if flipped != s && strings.ToLower(flipped) != flipped && strings.ToUpper(flipped[2:]) != flipped[2:] {
			return flipped
		}
	}
	return s
}

// An address whose only capital is its first letter gets a bad checksum that is still mixed case (flipping that
// capital made one all in lower case, which checks nothing).
func TestBadChecksumStaysMixedCase(t *testing.T) {
	for _, hex := range []string{"0x713B00d6b9468115eb8d60314b5717de67589998", "0x5FC8d32690cc91D4c39d9d3abcBD16989F875707"} {
		a := common.HexToAddress(hex)
		bad := badChecksum(a)
		if _, err := parseAddress("address", bad); err == nil || !strings.EqualFold(bad, a.Hex()) || strings.ToLower(bad) == bad {
			t.Errorf("badChecksum(%s) = %s", a.Hex(), bad)
		}
	}
}

// flipCase turns a hex letter to the other case; digits stay.
func flipCase(c byte) string {
	switch {
	case c >= 'a' && c <= 'f':
		return strings.ToUpper(string(c))
	case c >= 'A' && c <= 'F':
		return strings.ToLower(string(c))
	}
	return string(c)
}

// A submitted hash of a transaction that reverted ends FAILED, with its action; the steps not sent are SKIPPED.
// A hash of a transaction that is not the one built for the step (another contract, or another value) fails it too.
func TestSubmittedHashOutcomes(t *testing.T) {
	e := newEnv(t, envOptions{})
	vault := e.yieldID(KindERC4626, e.addr(contracts.VaultUSDC).Hex(), "USDC")
	w := e.newWallet("1", map[string]string{"USDC": "100"})
	a := w.act(e.key10, "enter", vault, map[string]any{"amount": "20"})
	if len(a.Transactions) != 2 {
		t.Fatalf("want approval and deposit, got %d", len(a.Transactions))
	}
	// Send the deposit first, with the approval's nonce: it is mined and reverts (no allowance).
	var u unsignedTxDTO
	if err := json.Unmarshal([]byte(a.Transactions[1].UnsignedTransaction), &u); err != nil {
		t.Fatal(err)
	}
	u.Nonce--
	data, _ := json.Marshal(u)
	tx := w.sign(string(data))
	if rcpt := w.send(tx); rcpt.Status != 0 {
		t.Fatal("the deposit without allowance did not revert")
	}
	checkErrorShape(t, e.call(e.key10, "PUT", "/v1/transactions/"+a.Transactions[1].ID+"/submit-hash", map[string]string{"hash": "0x12"}), 400, "hash")
	checkErrorShape(t, e.call(e.key10, "PUT", "/v1/transactions/nope/submit-hash", map[string]string{"hash": tx.Hash().Hex()}), 404, "nope")
	var submitted transactionDTO
	e.mustCall(e.key10, "PUT", "/v1/transactions/"+a.Transactions[1].ID+"/submit-hash", map[string]string{"hash": tx.Hash().Hex()}, 200, &submitted)
	if submitted.Status != txBroadcasted || submitted.BroadcastedAt == nil {
		t.Fatalf("after submit-hash: %+v", submitted)
	}
	// The watcher, nudged by the submission, may already have seen the receipt; a poll makes sure.
	var got actionDTO
	if err := e.svc.PollReceipts(context.Background()); err != nil {
		t.Fatal(err)
	}
	e.mustCall(e.key10, "GET", "/v1/actions/"+a.ID, nil, 200, &got)
	if got.Status != actionFailed || got.CompletedAt == nil || got.Transactions[1].Status != txFailed || got.Transactions[1].Error == nil ||
		!strings.Contains(*got.Transactions[1].Error, "reverted") || got.Transactions[0].Status != txSkipped {
		t.Fatalf("after the receipt: %s %+v", got.Status, got.Transactions)
	}
	checkErrorShape(t, e.call(e.key10, "PUT", "/v1/transactions/"+a.Transactions[1].ID+"/submit-hash", map[string]string{"hash": tx.Hash().Hex()}), 400, "FAILED")

	// The hash of another transaction (here: a plain ether transfer) fails the step it was submitted for.
	a = w.act(e.key10, "enter", vault, map[string]any{"amount": "20"})
	other := e.newWallet("1", nil)
	transfer := other.sign(mustJSON(unsignedTxDTO{From: other.addr.Hex(), To: w.addr.Hex(), Data: "0x", Value: "0x1", GasLimit: "0x5208",
		Nonce: 0, ChainID: e.chainID.Int64(), MaxFeePerGas: u.MaxFeePerGas, MaxPriorityFeePerGas: u.MaxPriorityFeePerGas, Type: 2}))
	other.send(transfer)
	e.mustCall(e.key10, "PUT", "/v1/transactions/"+a.Transactions[0].ID+"/submit-hash", map[string]string{"hash": transfer.Hash().Hex()}, 200, nil)
	if err := e.svc.PollReceipts(context.Background()); err != nil {
		t.Fatal(err)
	}
	var tr transactionDTO
	e.mustCall(e.key10, "GET", "/v1/transactions/"+a.Transactions[0].ID, nil, 200, &tr)
	if tr.Status != txFailed || tr.Error == nil || !strings.Contains(*tr.Error, "not the one built") {
		t.Fatalf("foreign hash: %+v", tr)
	}

	// A stake of another amount of ether: to and calldata are the step's and it succeeds on chain, but the value is
	// not the one built, so the step fails.
	staking := e.yieldID(KindNativeStaking, "", "ETH")
	staker := e.newWallet("5", nil)
	a = staker.act(e.key10, "enter", staking, map[string]any{"amount": "1"})
	more := staker.sign(strings.Replace(a.Transactions[0].UnsignedTransaction, `"value":"`+hexutil.EncodeBig(baseUnits("1", 18))+`"`,
		`"value":"`+hexutil.EncodeBig(baseUnits("2", 18))+`"`, 1))
	if more.Value().Cmp(baseUnits("2", 18)) != 0 {
		t.Fatalf("the re-signed stake is of %s wei", more.Value())
	}
	if rcpt := staker.send(more); rcpt.Status != types.ReceiptStatusSuccessful {
		t.Fatal("the stake of 2 ETH reverted")
	}
	e.mustCall(e.key10, "PUT", "/v1/transactions/"+a.Transactions[0].ID+"/submit-hash", map[string]string{"hash": more.Hash().Hex()}, 200, nil)
	if err := e.svc.PollReceipts(context.Background()); err != nil {
		t.Fatal(err)
	}
	e.mustCall(e.key10, "GET", "/v1/actions/"+a.ID, nil, 200, &got)
	if got.Status != actionFailed || got.Transactions[0].Status != txFailed || !strings.Contains(*got.Transactions[0].Error, "not the one built") {
		t.Fatalf("a stake of another value: %s %+v", got.Status, got.Transactions[0])
	}

	// A hash the chain never sees fails after DropAfter.
	a = w.act(e.key10, "enter", vault, map[string]any{"amount": "1"})
	e.mustCall(e.key10, "PUT", "/v1/transactions/"+a.Transactions[0].ID+"/submit-hash",
		map[string]string{"hash": "0x" + strings.Repeat("ab", 32)}, 200, nil)
	if err := e.svc.PollReceipts(context.Background()); err != nil {
		t.Fatal(err)
	}
	e.mustCall(e.key10, "GET", "/v1/transactions/"+a.Transactions[0].ID, nil, 200, &tr)
	if tr.Status != txBroadcasted {
		t.Fatalf("unknown hash failed too early: %+v", tr)
	}
	e.clock.advance(31 * time.Minute)
	if err := e.svc.PollReceipts(context.Background()); err != nil {
		t.Fatal(err)
	}
	e.mustCall(e.key10, "GET", "/v1/transactions/"+a.Transactions[0].ID, nil, 200, &tr)
	if tr.Status != txFailed || !strings.Contains(*tr.Error, "not found") {
		t.Fatalf("dropped hash: %+v", tr)
	}
}

func mustJSON(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(data)
}

// The multi-yield balance query scans a network, merges duplicate queries and lists only non-zero balances.
func TestMultiBalances(t *testing.T) {
	e := newEnv(t, envOptions{})
	vault := e.yieldID(KindERC4626, e.addr(contracts.VaultUSDC).Hex(), "USDC")
	lending := e.yieldID(KindLending, e.addr(contracts.Lending).Hex(), "USDC")
	w := e.newWallet("1", map[string]string{"USDC": "100"})
	w.execute(e.key10, w.act(e.key10, "enter", vault, map[string]any{"amount": "30"}))
	w.execute(e.key10, w.act(e.key10, "enter", lending, map[string]any{"amount": "20"}))
	var out multiBalancesDTO
	e.mustCall(e.key10, "POST", "/v1/yields/balances", map[string]any{"queries": []map[string]string{
		{"address": w.addr.Hex(), "network": "sigil-dev"},
		{"address": w.addr.Hex(), "yieldId": vault},
		{"address": w.addr.Hex(), "yieldId": "nope"},
	}}, 200, &out)
	if len(out.Items) != 2 || len(out.Errors) != 1 || out.Errors[0].YieldID != "nope" {
		t.Fatalf("multi balances %+v", out)
	}
	checkErrorShape(t, e.call(e.key10, "POST", "/v1/yields/balances", map[string]any{"queries": []any{}}), 400, "queries")
	checkErrorShape(t, e.call(e.key10, "POST", "/v1/yields/"+vault+"/balances", map[string]any{"address": "0x1"}), 400, "address")

	// An enter in flight shows as entering until its last transaction is confirmed.
	a := w.act(e.key10, "enter", vault, map[string]any{"amount": "7"})
	tx := w.sign(a.Transactions[0].UnsignedTransaction)
	e.mustCall(e.key10, "PUT", "/v1/transactions/"+a.Transactions[0].ID+"/submit-hash", map[string]string{"hash": tx.Hash().Hex()}, 200, nil)
	if b := e.balances(e.key10, vault, w.addr)["entering"]; b.Amount != "7" {
		t.Fatalf("entering %+v", b)
	}
}
