package yield

import (
	"context"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/sigil/sigil/internal/contracts"
	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/testdb"
)

// The Borrow API's reads and their bad input, on the shared chain, both backends: the scopes, filters and pages of
// GET /v1/markets (one market disabled in the catalogue), a market by id in any scope, the Morpho parameters as the
// protocol defines them, and every malformed query or action refused in the reference's error shape with the field at
// fault, nothing stored.
func TestBorrowAPIReadsAndRefusals(t *testing.T) {
	testdb.Each(t, func(t *testing.T, backend testdb.Backend) {
		var disabled string
		e := newEnv(t, envOptions{backend: &backend, edit: func(c *Catalogue) {
			for i := range c.Markets {
				if c.Markets[i].Integration == IntegrationMorpho && c.Markets[i].CollateralTokens[0].Symbol == "WETH" {
					c.Markets[i].Enabled, disabled = ptr(false), c.Markets[i].ID
				}
			}
			// SparkLend is Aave v3's Pool: the dev chain's pool stands in for one.
			spark := c.Markets[0]
			spark.Integration, spark.ID, spark.Name = IntegrationSpark, "", "SparkLend USDC"
			c.Markets = append(c.Markets, spark)
		}})
		if disabled == "" {
			t.Fatal("no Morpho USDC/WETH market in the dev catalogue")
		}
		list := func(query string) page[marketDTO] {
			t.Helper()
			var p page[marketDTO]
			e.mustCall(e.key10, "GET", "/v1/markets"+query, nil, 200, &p)
			return p
		}
		ids := func(p page[marketDTO]) string {
			var out []string
			for _, m := range p.Items {
				out = append(out, m.ID)
			}
			return strings.Join(out, ",")
		}
		if p := list(""); p.Total != 5 || len(p.Items) != 5 || strings.Contains(ids(p), disabled) || p.Limit != 20 {
			t.Errorf("enabled markets: %d of %d: %s", len(p.Items), p.Total, ids(p))
		}
		all := list("?scope=all")
		if all.Total != 6 || !strings.Contains(ids(all), disabled) {
			t.Errorf("all markets: %s", ids(all))
		}
		if p := list("?scope=all&integrationId=" + IntegrationMorpho); p.Total != 2 {
			t.Errorf("Morpho markets: %s", ids(p))
		}
		if p := list("?scope=all&integrationId=" + IntegrationAave + "&network=sigil-dev"); p.Total != 3 {
			t.Errorf("Aave markets: %s", ids(p))
		}
		if p := list("?network=elsewhere"); p.Total != 0 || p.Items == nil || len(p.Items) != 0 {
			t.Errorf("another network: %+v", p)
		}
		if p := list("?scope=all&offset=3&limit=1"); p.Total != 6 || len(p.Items) != 1 || p.Items[0].ID != all.Items[3].ID {
			t.Errorf("page 4 of 1: %s", ids(p))
		}
		if p := list("?scope=all&offset=9"); p.Total != 6 || len(p.Items) != 0 {
			t.Errorf("past the end: %s", ids(p))
		}

		if p := list("?integrationId=" + IntegrationSpark); p.Total != 1 || p.Items[0].ID != "sigil-dev-sparklend-usdc" ||
			p.Items[0].ProviderID != "spark" || p.Items[0].Type != "pool" || len(p.Items[0].CollateralTokens) != 3 ||
			p.Items[0].CollateralTokens[1].MaxLtv != "0.75" {
			t.Errorf("SparkLend markets: %+v", p.Items)
		}

		var m marketDTO
		e.mustCall(e.key10, "GET", "/v1/markets/"+disabled, nil, 200, &m)
		c := m.CollateralTokens
		if m.IsEnabled || m.Type != "isolated" || m.ProviderID != "morpho" || m.ChainID != e.chainID.String() ||
			!strings.EqualFold(m.Address, e.addr(contracts.MorphoName).Hex()) || len(c) != 1 || c[0].Token.Symbol != "WETH" ||
			c[0].MaxLtv != "0.86" || c[0].LiquidationThreshold != "0.86" || c[0].SupplyRate != "0" || m.MinLoan != nil ||
			c[0].LiquidationPenalty != "0.043841336116910229" || m.LoanToken.Symbol != "USDC" {
			t.Errorf("the disabled Morpho market: %+v", m)
		}

		for _, tc := range []struct {
			path, want string
			status     int
		}{
			{"/v1/markets?scope=some", "scope: \"some\" is not one of enabled, all", 400},
			{"/v1/markets?integrationId=lista-borrow", "integrationId: \"lista-borrow\" is not one of aave-borrow, spark-borrow, morpho-blue-borrow", 400},
			{"/v1/markets?limit=0", "limit: must be a whole number from 1 to 100", 400},
			{"/v1/markets?limit=101", "limit", 400},
			{"/v1/markets?offset=-1", "offset", 400},
			{"/v1/markets/sigil-dev-aave-v3-dai", "Market sigil-dev-aave-v3-dai not found", 404},
			{"/v1/positions", "address", 400},
			{"/v1/positions?address=0x12", "address", 400},
			{"/v1/positions?address=" + common.Address{1}.Hex() + "&marketId=nope", "marketId: unknown market \"nope\"", 400},
			{"/v1/positions?address=" + common.Address{1}.Hex() + "&integrationId=lista-borrow", "integrationId", 400},
			{"/v1/liquidations?address=zzz", "address", 400},
			{"/v1/liquidations?address=" + common.Address{1}.Hex() + "&marketId=nope", "marketId", 400},
		} {
			checkErrorShape(t, e.call(e.key10, "GET", tc.path, nil), tc.status, tc.want)
		}
		checkErrorShape(t, e.call("", "GET", "/v1/markets", nil), 401, "API key")
		checkErrorShape(t, e.call("", "POST", "/v1/actions", map[string]any{}), 401, "API key")

		// An address with nothing has no position and no liquidation.
		for _, path := range []string{"/v1/positions", "/v1/liquidations"} {
			r := e.mustCall(e.key10, "GET", path+"?address="+common.Address{0xab}.Hex(), nil, 200, nil)
			if strings.TrimSpace(string(r.body)) != `{"items":[]}` {
				t.Errorf("%s of an empty address: %s", path, r.body)
			}
		}

		w := e.newWallet("1", map[string]string{"USDC": "10"})
		usdc := e.marketID(IntegrationAave, "USDC", "")
		usdcAddr := e.addr(contracts.USDC).Hex()
		for _, tc := range []struct {
			body any
			want string
		}{
			{rawBody(`{"action":"supply",`), "JSON"},
			{rawBody(`{"action":"supply","address":"` + w.addr.Hex() + `","args":{"marketId":"` + usdc + `"},"extra":1}`), "extra"},
			{map[string]any{"action": "supply", "address": "0x12", "args": map[string]any{"marketId": usdc, "amount": "1"}}, "address"},
			{map[string]any{"action": "supply", "address": w.addr.Hex(), "args": "usdc"}, "args"},
			{map[string]any{"action": "supply", "address": w.addr.Hex(), "integrationId": IntegrationMorpho,
				"args": map[string]any{"marketId": usdc, "amount": "1", "collateralTokenAddress": usdcAddr}}, "integrationId: " + usdc + " is a market of aave-borrow"},
			{map[string]any{"action": "supply", "address": w.addr.Hex(),
				"args": map[string]any{"marketId": usdc, "amount": "1", "collateralTokenAddress": common.Address{7}.Hex()}}, "is not a collateral of"},
			{map[string]any{"action": "borrow", "address": w.addr.Hex(),
				"args": map[string]any{"marketId": usdc, "amount": "1", "collateralTokenAddress": usdcAddr}}, "only supply and withdraw name a collateral"},
			{map[string]any{"action": "borrow", "address": w.addr.Hex(), "args": map[string]any{"marketId": usdc, "repayAll": true}}, "args.repayAll: only applies to a repay"},
			{map[string]any{"action": "repay", "address": w.addr.Hex(), "args": map[string]any{"marketId": usdc, "repayAll": true, "amount": "1"}}, "must be left out"},
			{map[string]any{"action": "supply", "address": w.addr.Hex(), "args": map[string]any{"marketId": usdc, "withdrawAll": true,
				"collateralTokenAddress": usdcAddr}}, "args.withdrawAll: only applies to a withdraw"},
			{map[string]any{"action": "supply", "address": w.addr.Hex(), "args": map[string]any{"marketId": usdc, "collateralTokenAddress": usdcAddr}}, "args.amount"},
			{map[string]any{"action": "supply", "address": w.addr.Hex(), "args": map[string]any{"marketId": usdc, "amount": "11",
				"collateralTokenAddress": usdcAddr}}, "11 USDC is more than the wallet's balance of 10 USDC"},
			{map[string]any{"action": "borrow", "address": w.addr.Hex(), "args": map[string]any{"marketId": usdc, "amount": "1"}}, "args.marketId: the address has no collateral in " + usdc},
			{map[string]any{"action": "withdraw", "address": w.addr.Hex(), "args": map[string]any{"marketId": usdc, "withdrawAll": true,
				"collateralTokenAddress": usdcAddr}}, "has no USDC supplied"},
		} {
			checkErrorShape(t, e.call(e.key10, "POST", "/v1/actions", tc.body), 400, tc.want)
		}
		if n := e.countActions("project-ten", w.addr); n != 0 {
			t.Errorf("%d actions stored after refusals", n)
		}
	})
}

// A catalogue market the chain does not have stops the service at start, with what is wrong: a Morpho market whose
// parameters hash to no market, an Aave token that is no reserve of the pool.
func TestBorrowMarketsMustMatchTheChain(t *testing.T) {
	e := newEnv(t, envOptions{})
	for _, tc := range []struct {
		name string
		edit func(m *MarketConfig)
		want string
	}{
		{"Morpho market with another LLTV", func(m *MarketConfig) {
			if m.Integration == IntegrationMorpho {
				m.LLTV, m.ID = "770000000000000000", ""
			}
		}, "has no market"},
		{"Aave collateral that is no reserve", func(m *MarketConfig) {
			if m.Integration == IntegrationAave {
				m.CollateralTokens = append(append([]Token(nil), m.CollateralTokens...), Token{Symbol: "DAI", Decimals: 18,
					Address: e.addr(contracts.DAI).Hex()})
			}
		}, "DAI is not a reserve of the pool"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cat := e.cat
			cat.Markets = append([]MarketConfig(nil), e.cat.Markets...)
			for i := range cat.Markets {
				tc.edit(&cat.Markets[i])
			}
			if err := cat.Validate(); err != nil {
				t.Fatal(err)
			}
			svc, err := New(Config{Catalogue: cat, Store: e.store, Logger: quietLog})
			if err != nil {
				t.Fatal(err)
			}
			defer svc.Close()
			if err := svc.Start(context.Background()); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("started: %v, want %q", err, tc.want)
			}
		})
	}
}

func (e *env) countActions(project string, holder common.Address) int {
	e.t.Helper()
	_, n, err := e.store.YieldActions(context.Background(), store.YieldActionQuery{Project: project, Address: strings.ToLower(holder.Hex()), Limit: 10})
	if err != nil {
		e.t.Fatal(err)
	}
	return n
}
