package yield

import (
	"strings"
	"testing"
)

func catalogueWithMarkets() Catalogue {
	c := validCatalogue()
	addr := func(b byte) string { return "0x" + strings.Repeat(string("0123456789abcdef"[b%16]), 40) }
	usdc := Token{Symbol: "USDC", Decimals: 6, Address: addr(1)}
	weth := Token{Symbol: "WETH", Decimals: 18, Address: addr(10)}
	c.Markets = []MarketConfig{
		{Integration: IntegrationAave, Network: "base", LoanToken: usdc, CollateralTokens: []Token{usdc, weth},
			Contracts: MarketContracts{Pool: addr(5), Oracle: addr(11)}},
		{Integration: IntegrationMorpho, Network: "base", LoanToken: usdc, CollateralTokens: []Token{weth}, LLTV: "860000000000000000",
			Contracts: MarketContracts{Morpho: addr(12), Oracle: addr(13), IRM: addr(14)}},
	}
	return c
}

// Markets get their ids from the catalogue (Aave's by the loan token, Morpho's by the market id, the hash of its
// parameters), and a market that does not make sense is refused with the field at fault.
func TestCatalogueMarkets(t *testing.T) {
	c := catalogueWithMarkets()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if c.Markets[0].ID != "base-aave-v3-usdc" {
		t.Errorf("Aave market id %s", c.Markets[0].ID)
	}
	spark := catalogueWithMarkets()
	spark.Markets[0].Integration = IntegrationSpark
	if err := spark.Validate(); err != nil || spark.Markets[0].ID != "base-sparklend-usdc" {
		t.Errorf("SparkLend market: id %s, %v", spark.Markets[0].ID, err)
	}
	if id := c.Markets[1].ID; !strings.HasPrefix(id, "base-morpho-blue-0x") || len(id) != len("base-morpho-blue-0x")+64 {
		t.Errorf("Morpho market id %s", id)
	}
	for _, tc := range []struct {
		name  string
		edit  func(*Catalogue)
		error string
	}{
		{"unknown network", func(c *Catalogue) { c.Markets[0].Network = "mars" }, "unknown network"},
		{"unknown integration", func(c *Catalogue) { c.Markets[0].Integration = "lista-borrow" }, "is not one of aave-borrow, spark-borrow"},
		{"no collateral", func(c *Catalogue) { c.Markets[0].CollateralTokens = nil }, "collateralTokens: at least one"},
		{"bad loan token", func(c *Catalogue) { c.Markets[0].LoanToken.Address = "0x12" }, "loanToken.address"},
		{"bad collateral", func(c *Catalogue) { c.Markets[0].CollateralTokens[1].Symbol = "" }, "collateralTokens[1].symbol"},
		{"Aave without a pool", func(c *Catalogue) { c.Markets[0].Contracts.Pool = "" }, "contracts.pool"},
		{"Aave without an oracle", func(c *Catalogue) { c.Markets[0].Contracts.Oracle = "nope" }, "contracts.oracle"},
		{"Aave with an LLTV", func(c *Catalogue) { c.Markets[0].LLTV = "1" }, "Morpho's"},
		{"Morpho with two collaterals", func(c *Catalogue) { c.Markets[1].CollateralTokens = c.Markets[0].CollateralTokens }, "exactly one"},
		{"Morpho LLTV of 100%", func(c *Catalogue) { c.Markets[1].LLTV = "1000000000000000000" }, "lltv"},
		{"Morpho LLTV not a number", func(c *Catalogue) { c.Markets[1].LLTV = "0.86" }, "lltv"},
		{"Morpho without an IRM", func(c *Catalogue) { c.Markets[1].Contracts.IRM = "" }, "contracts.irm"},
		{"duplicate id", func(c *Catalogue) { c.Markets[1].ID = "base-aave-v3-usdc" }, "appears twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := catalogueWithMarkets()
			tc.edit(&c)
			err := c.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.error) {
				t.Fatalf("got %v, want an error with %q", err, tc.error)
			}
		})
	}
}
