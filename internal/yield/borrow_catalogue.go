package yield

import (
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/sigil/sigil/internal/abis"
)

// Integrations of the Borrow API, named as Yield.xyz's Borrow API names them.
const (
	// IntegrationAave is Aave v3's Pool: a pool market per borrowable reserve, with every collateral reserve of the
	// pool as its collateral; the account's health factor spans the pool.
	IntegrationAave = "aave-borrow"
	// IntegrationSpark is SparkLend, a fork of Aave v3 with the same Pool, oracle and account interfaces: its markets
	// are read and built exactly as Aave's.
	IntegrationSpark = "spark-borrow"
	// IntegrationMorpho is Morpho Blue: an isolated market per MarketParams, one collateral and one loan token.
	IntegrationMorpho = "morpho-blue-borrow"
)

// integration is what the service knows of an integration: whose interface its markets speak (Aave v3's Pool or
// Morpho Blue), its provider and the slug of its market ids.
type integration struct {
	id, provider, slug string
	aavePool           bool
}

var integrations = []integration{
	{IntegrationAave, "aave", "aave-v3", true},
	{IntegrationSpark, "spark", "sparklend", true},
	{IntegrationMorpho, "morpho", "morpho-blue", false},
}

func integrationOf(id string) (integration, bool) {
	for _, i := range integrations {
		if i.id == id {
			return i, true
		}
	}
	return integration{}, false
}

// checkIntegration refuses an integrationId the service does not serve, naming those it does.
func checkIntegration(field, id string) error {
	if _, ok := integrationOf(id); ok {
		return nil
	}
	var ids []string
	for _, i := range integrations {
		ids = append(ids, i.id)
	}
	return fieldError(field, "%q is not one of %s", truncate(id, 60), strings.Join(ids, ", "))
}

// MarketConfig is one lending market of the Borrow API.
type MarketConfig struct {
	// ID is derived when empty: <network>-aave-v3-<loan symbol> (SparkLend: -sparklend-), <network>-morpho-blue-<market
	// id>, lower-case.
	ID               string          `json:"id,omitempty"`
	Integration      string          `json:"integrationId"`
	Network          string          `json:"network"`
	Name             string          `json:"name,omitempty"`
	LoanToken        Token           `json:"loanToken"`
	CollateralTokens []Token         `json:"collateralTokens"`
	Contracts        MarketContracts `json:"contracts"`
	// LLTV is a Morpho market's liquidation loan-to-value, WAD (10^18 = 100%), as a decimal integer string.
	LLTV string `json:"lltv,omitempty"`
	// Enabled lists the market under GET /v1/markets?scope=enabled (the default scope); default true. Every market is
	// listed by scope=all and takes actions, as on Yield.xyz.
	Enabled *bool `json:"enabled,omitempty"`
	// FromBlock is where the liquidation history starts (the protocol's deployment block); default 0.
	FromBlock uint64 `json:"fromBlock,omitempty"`
}

// MarketContracts are a market's contracts: Aave's Pool and its price oracle (AaveOracle), or Morpho Blue with the
// market's oracle and interest rate model.
type MarketContracts struct {
	Pool   string `json:"pool,omitempty"`
	Morpho string `json:"morpho,omitempty"`
	Oracle string `json:"oracle"`
	IRM    string `json:"irm,omitempty"`
}

func (m *MarketConfig) enabled() bool { return m.Enabled == nil || *m.Enabled }

// morphoParams is a Morpho market's MarketParams.
func (m *MarketConfig) morphoParams() abis.MorphoMarketParams {
	lltv, _ := new(big.Int).SetString(m.LLTV, 10)
	return abis.MorphoMarketParams{LoanToken: common.HexToAddress(m.LoanToken.Address),
		CollateralToken: common.HexToAddress(m.CollateralTokens[0].Address), Oracle: common.HexToAddress(m.Contracts.Oracle),
		Irm: common.HexToAddress(m.Contracts.IRM), Lltv: lltv}
}

func (m *MarketConfig) validate(n *Network) error {
	if err := m.LoanToken.validate("loanToken", false); err != nil {
		return err
	}
	if len(m.CollateralTokens) == 0 {
		return errors.New("collateralTokens: at least one is required")
	}
	for i, t := range m.CollateralTokens {
		if err := t.validate(fmt.Sprintf("collateralTokens[%d]", i), false); err != nil {
			return err
		}
	}
	need := func(name, addr string) error {
		if !common.IsHexAddress(addr) {
			return fmt.Errorf("contracts.%s %q is required for a %s market and must be an address", name, addr, m.Integration)
		}
		return nil
	}
	in, ok := integrationOf(m.Integration)
	if !ok {
		return checkIntegration("integrationId", m.Integration)
	}
	if in.aavePool {
		if m.LLTV != "" || m.Contracts.Morpho != "" || m.Contracts.IRM != "" {
			return errors.New("lltv, contracts.morpho and contracts.irm are Morpho's: an Aave v3 pool market reads its parameters from the pool")
		}
		return errors.Join(need("pool", m.Contracts.Pool), need("oracle", m.Contracts.Oracle))
	}
	if len(m.CollateralTokens) != 1 {
		return errors.New("collateralTokens: a Morpho Blue market has exactly one")
	}
	lltv, ok := new(big.Int).SetString(m.LLTV, 10)
	if !ok || lltv.Sign() <= 0 || lltv.Cmp(wad) >= 0 {
		return fmt.Errorf("lltv %q must be a WAD between 0 and 10^18 exclusive (860000000000000000 is 86%%)", m.LLTV)
	}
	return errors.Join(need("morpho", m.Contracts.Morpho), need("oracle", m.Contracts.Oracle), need("irm", m.Contracts.IRM))
}

func (m *MarketConfig) derivedID(n *Network) string {
	in, _ := integrationOf(m.Integration)
	if in.aavePool {
		return strings.ToLower(fmt.Sprintf("%s-%s-%s", n.ID, in.slug, m.LoanToken.Symbol))
	}
	return strings.ToLower(fmt.Sprintf("%s-%s-%s", n.ID, in.slug, abis.MorphoMarketID(m.morphoParams()).Hex()))
}

// validateMarkets checks the catalogue's markets and fills in derived ids.
func (c *Catalogue) validateMarkets(networks map[string]*Network) []error {
	var errs []error
	ids := map[string]bool{}
	for i := range c.Markets {
		m := &c.Markets[i]
		n := networks[m.Network]
		if n == nil {
			errs = append(errs, fmt.Errorf("markets[%d]: unknown network %q", i, m.Network))
			continue
		}
		if err := m.validate(n); err != nil {
			errs = append(errs, fmt.Errorf("markets[%d] (%s): %w", i, m.Name, err))
			continue
		}
		if m.ID == "" {
			m.ID = m.derivedID(n)
		}
		if ids[m.ID] {
			errs = append(errs, fmt.Errorf("markets[%d]: id %q appears twice", i, m.ID))
		}
		ids[m.ID] = true
	}
	return errs
}
