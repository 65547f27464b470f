package yield

import (
	"context"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/sigil/sigil/internal/contracts"
)

// The provider-staking yield has one validator, the provider, described from its staking contract; filters and
// pages apply; yields without validator selection answer an empty page, unknown yields 404.
func TestValidators(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	staking := e.addr(contracts.ProviderStake)
	id := e.yieldID(KindProviderStaking, staking.Hex(), "ETH")
	w := e.newWallet("5", nil)
	w.execute(e.key10, w.act(e.key10, "enter", id, map[string]any{"amount": "1"}))

	// The pooled ether is read on both sides of the request, in case another test stakes meanwhile.
	var p page[validatorDTO]
	var pooled *big.Int
	for attempt := 0; ; attempt++ {
		before := e.read(staking, contracts.ProviderStaking, "totalPooledEther")
		e.mustCall(e.key10, "GET", "/v1/yields/"+id+"/validators", nil, 200, &p)
		if pooled = e.read(staking, contracts.ProviderStaking, "totalPooledEther"); before.Cmp(pooled) == 0 || attempt == 5 {
			break
		}
	}
	if p.Total != 1 || len(p.Items) != 1 || p.Offset != 0 || p.Limit != 20 {
		t.Fatalf("page %+v", p)
	}
	v := p.Items[0]
	out, err := contracts.MustLoad(contracts.ProviderStaking).Call(context.Background(), e.eth, staking, "provider")
	if err != nil {
		t.Fatal(err)
	}
	feeBps := e.read(staking, contracts.ProviderStaking, "validatorFeeBps")
	var y yieldDTO
	e.mustCall(e.key10, "GET", "/v1/yields/"+id, nil, 200, &y)
	switch {
	case v.Address != out[0].(common.Address).Hex():
		t.Fatalf("address %s, the contract's provider is %s", v.Address, out[0])
	case v.Commission == nil || *v.Commission != float64(feeBps.Int64())/10_000 || *v.Commission == 0:
		t.Fatalf("commission %v, validatorFeeBps %s", v.Commission, feeBps)
	case v.TVLRaw != pooled.String() || pooled.Cmp(baseUnits("1", 18)) < 0:
		t.Fatalf("tvlRaw %s, totalPooledEther %s", v.TVLRaw, pooled)
	case v.Name != "Sigil Validators" || v.ProviderID != "sigil-validators" || v.Status != "active" || !v.Preferred:
		t.Fatalf("validator %+v", v)
	case v.Provider == nil || v.Provider.ID != "sigil-validators" || v.Provider.Type != "validator_provider" || v.Provider.Rank != 1:
		t.Fatalf("provider %+v", v.Provider)
	case v.RewardRate == nil || v.RewardRate.Total != y.RewardRate.Total || v.RewardRate.Total <= 0:
		t.Fatalf("reward rate %+v, the yield's %+v", v.RewardRate, y.RewardRate)
	case v.PricePerShare == "" || !strings.HasPrefix(v.PricePerShare, "1"):
		t.Fatalf("price per share %q", v.PricePerShare)
	}

	for query, want := range map[string]int{
		"name=VALIDATORS": 1, "name=nope": 0, "address=" + strings.ToLower(v.Address): 1, "address=0x01": 0,
		"provider=sigil-validators": 1, "provider=sigil": 0, "status=active": 1, "status=jailed": 0,
		"preferred=true": 1, "preferred=false": 0, "offset=1": 0,
	} {
		var got page[validatorDTO]
		e.mustCall(e.key10, "GET", "/v1/yields/"+id+"/validators?"+query, nil, 200, &got)
		if len(got.Items) != want {
			t.Errorf("%s: %d validators, want %d", query, len(got.Items), want)
		}
	}
	for _, query := range []string{"preferred=maybe", "limit=0", "limit=101", "offset=-1"} {
		r := e.call(e.key10, "GET", "/v1/yields/"+id+"/validators?"+query, nil)
		checkErrorShape(t, r, 400, strings.SplitN(query, "=", 2)[0])
	}

	// No validator selection elsewhere: an empty page.
	for _, other := range []string{e.yieldID(KindERC4626, e.addr(contracts.VaultUSDC).Hex(), "USDC"),
		e.yieldID(KindNativeStaking, "", "ETH")} {
		var empty page[validatorDTO]
		e.mustCall(e.key10, "GET", "/v1/yields/"+other+"/validators", nil, 200, &empty)
		if empty.Total != 0 || empty.Items == nil || len(empty.Items) != 0 {
			t.Fatalf("%s: %+v", other, empty)
		}
	}
	checkErrorShape(t, e.call(e.key10, "GET", "/v1/yields/nope/validators", nil), 404, "nope")
	oav20 := e.yieldID(KindAllocatorVault, e.addr(contracts.OAV20USDC).Hex(), "USDC")
	checkErrorShape(t, e.call(e.key10, "GET", "/v1/yields/"+oav20+"/validators", nil), 404, oav20)
}

// Risk parameters from the chain and the catalogue: the contract's deployment block (found once, then only
// confirmed), its EIP-1967 slots, its TVL and the catalogue's audits.
func TestRisk(t *testing.T) {
	t.Parallel()
	audits := []Audit{{Auditor: "Example Security", Date: "2025-11-03", URL: "https://example.com/report.pdf"}}
	e := newEnv(t, envOptions{edit: func(c *Catalogue) {
		for i := range c.Yields {
			if c.Yields[i].Kind == KindERC4626 && c.Yields[i].Token.Symbol == "USDC" && c.Yields[i].ProviderID == "sigil" {
				c.Yields[i].Audits = audits
			}
		}
	}})
	vault := e.addr(contracts.VaultUSDC)
	id := e.yieldID(KindERC4626, vault.Hex(), "USDC")
	w := e.newWallet("1", map[string]string{"USDC": "50"})
	w.execute(e.key10, w.act(e.key10, "enter", id, map[string]any{"amount": "50"}))

	var params []riskParameterDTO
	e.mustCall(e.key10, "GET", "/v1/yields/"+id+"/risk", nil, 200, &params)
	byItem := map[string]riskParameterDTO{}
	for _, p := range params {
		byItem[p.Item] = p
		if p.ID != id+"-"+p.Item || p.Network != "sigil-dev" || p.CreatedAt == "" || p.UpdatedAt == "" || p.Protocol["id"] != "sigil" {
			t.Errorf("parameter %+v", p)
		}
	}
	if len(params) != 4 {
		t.Fatalf("%d parameters: %+v", len(params), params)
	}

	age := byItem["contract_age"]
	block := uint64(age.Value["deploymentBlock"].(float64))
	ctx := context.Background()
	code, err := e.eth.CodeAt(ctx, vault, new(big.Int).SetUint64(block))
	if err != nil || len(code) == 0 {
		t.Fatalf("no code at the deployment block %d: %v", block, err)
	}
	if block > 0 {
		if before, err := e.eth.CodeAt(ctx, vault, new(big.Int).SetUint64(block-1)); err != nil || len(before) != 0 {
			t.Fatalf("code before the deployment block %d: %v", block, err)
		}
	}
	h, err := e.eth.HeaderByNumber(ctx, new(big.Int).SetUint64(block))
	if err != nil {
		t.Fatal(err)
	}
	if age.Category != "smart_contract" || !age.IsDynamic || age.Value["address"] != vault.Hex() ||
		age.Value["deployedAt"] != timeRFC3339(h.Time) || age.Value["ageSeconds"].(float64) < 0 {
		t.Fatalf("contract age %+v, block time %d", age, h.Time)
	}

	if up := byItem["upgradeability"]; up.Value["upgradeable"] != false || up.Value["implementation"] != nil || up.Value["admin"] != nil {
		t.Fatalf("upgradeability %+v", up)
	}
	// Other tests deposit into the same vault meanwhile: the TVL is checked between two reads that agree.
	for attempt := 0; ; attempt++ {
		before := e.read(vault, contracts.SimpleVault, "totalAssets")
		var again []riskParameterDTO
		e.mustCall(e.key10, "GET", "/v1/yields/"+id+"/risk", nil, 200, &again)
		after := e.read(vault, contracts.SimpleVault, "totalAssets")
		if before.Cmp(after) != 0 && attempt < 5 {
			continue
		}
		if tvl := again[2]; tvl.Item != "tvl" || tvl.Value["tvlRaw"] != after.String() || after.Cmp(baseUnits("50", 6)) < 0 {
			t.Fatalf("tvl %+v, totalAssets %s", tvl, after)
		}
		break
	}
	got := byItem["audits"].Value["audits"].([]any)
	if byItem["audits"].IsDynamic || len(got) != 1 || got[0].(map[string]any)["auditor"] != "Example Security" {
		t.Fatalf("audits %+v", byItem["audits"])
	}

	// The deployment is found once: the next request confirms it in its one batch.
	_, tripsBefore := e.svc.RPCStats("sigil-dev")
	e.mustCall(e.key10, "GET", "/v1/yields/"+id+"/risk", nil, 200, &params)
	if _, trips := e.svc.RPCStats("sigil-dev"); trips-tripsBefore != 1 {
		t.Fatalf("a cached risk request took %d round trips, want 1", trips-tripsBefore)
	}

	// A yield without audits in the catalogue lists none; every kind answers.
	for _, y := range e.cat.Yields {
		if !y.visibleTo(10) || y.ID == id {
			continue
		}
		e.mustCall(e.key10, "GET", "/v1/yields/"+y.ID+"/risk", nil, 200, &params)
		for _, p := range params {
			if p.Item == "audits" && len(p.Value["audits"].([]any)) != 0 {
				t.Fatalf("%s: audits %+v", y.ID, p.Value)
			}
		}
		if len(params) != 4 {
			t.Fatalf("%s: %d parameters", y.ID, len(params))
		}
	}
	checkErrorShape(t, e.call(e.key10, "GET", "/v1/yields/nope/risk", nil), 404, "nope")
}

func TestRiskHelpers(t *testing.T) {
	t.Parallel()
	impl := common.HexToAddress("0x00000000000000000000000000000000000000aB")
	if got := slotAddress(common.BytesToHash(impl.Bytes())); got == nil || *got != impl.Hex() {
		t.Fatalf("slotAddress %v", got)
	}
	if slotAddress(common.Hash{}) != nil {
		t.Fatal("an empty slot names an address")
	}
	for _, c := range []struct{ lo, hi uint64 }{{0, 1}, {0, 5}, {3, 100}, {0, 20_000_000}} {
		points := probePoints(c.lo, c.hi)
		if len(points) == 0 || len(points) > searchFanout || points[0] != c.lo || points[len(points)-1] >= c.hi {
			t.Fatalf("probePoints(%d, %d) = %v", c.lo, c.hi, points)
		}
		for i := 1; i < len(points); i++ {
			if points[i] <= points[i-1] {
				t.Fatalf("probePoints(%d, %d) = %v not increasing", c.lo, c.hi, points)
			}
		}
	}
	bad := YieldConfig{Audits: []Audit{{Auditor: "x", Date: "3 Nov 2025"}}}
	if err := bad.Audits[0].validate(); err == nil {
		t.Fatal("a bad audit date was accepted")
	}
	if err := (Audit{Date: "2025-11-03"}).validate(); err == nil {
		t.Fatal("an audit without auditor was accepted")
	}
}

func timeRFC3339(unix uint64) string { return time.Unix(int64(unix), 0).UTC().Format(time.RFC3339) }

// Enter and exit of a provider-staking yield may name its one validator, the provider, in any letter case, by
// validatorAddress or validatorAddresses; another address is refused naming the one accepted, a yield without
// validators refuses the argument, and nothing is stored for a refused action.
func TestActionValidatorArgument(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	id := e.yieldID(KindProviderStaking, e.addr(contracts.ProviderStake).Hex(), "ETH")
	var p page[validatorDTO]
	e.mustCall(e.key10, "GET", "/v1/yields/"+id+"/validators", nil, 200, &p)
	if len(p.Items) != 1 {
		t.Fatalf("validators %+v", p)
	}
	provider := p.Items[0].Address
	upper := "0x" + strings.ToUpper(provider[2:])

	w := e.newWallet("5", nil)
	a := w.act(e.key10, "enter", id, map[string]any{"amount": "1", "validatorAddress": strings.ToLower(provider)})
	if a.RawArguments["validatorAddress"] != strings.ToLower(provider) {
		t.Fatalf("rawArguments %+v", a.RawArguments)
	}
	w.execute(e.key10, a)
	w.act(e.key10, "exit", id, map[string]any{"amount": "0.5", "validatorAddress": upper})
	w.act(e.key10, "exit", id, map[string]any{"amount": "0.5", "validatorAddresses": []string{provider, upper}})

	refused := e.newWallet("5", nil)
	vault := e.yieldID(KindERC4626, e.addr(contracts.VaultUSDC).Hex(), "USDC")
	other := "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"
	for _, tc := range []struct {
		intent, yield string
		args          map[string]any
		want          []string
	}{
		{"enter", id, map[string]any{"amount": "1", "validatorAddress": other},
			[]string{"arguments.validatorAddress: " + other + " is not a validator of " + id, "provider " + provider}},
		{"exit", id, map[string]any{"amount": "1", "validatorAddresses": []string{provider, other}},
			[]string{"arguments.validatorAddresses[1]: ", "provider " + provider}},
		{"enter", id, map[string]any{"amount": "1", "validatorAddress": "0x01"},
			[]string{"arguments.validatorAddress: must be a 0x-prefixed 20-byte hex address"}},
		{"enter", vault, map[string]any{"amount": "1", "validatorAddress": provider},
			[]string{"arguments.validatorAddress: " + vault + " takes no validator"}},
		{"exit", vault, map[string]any{"amount": "1", "validatorAddresses": []string{provider}},
			[]string{"arguments.validatorAddresses[0]: " + vault + " takes no validator"}},
	} {
		r := e.call(e.key10, "POST", "/v1/actions/"+tc.intent, map[string]any{"yieldId": tc.yield,
			"address": refused.addr.Hex(), "arguments": tc.args})
		for _, want := range tc.want {
			checkErrorShape(t, r, 400, want)
		}
	}
	var list struct {
		Total int `json:"total"`
	}
	e.mustCall(e.key10, "GET", "/v1/actions?address="+refused.addr.Hex(), nil, 200, &list)
	if list.Total != 0 {
		t.Fatalf("%d actions stored for refused requests", list.Total)
	}
}
