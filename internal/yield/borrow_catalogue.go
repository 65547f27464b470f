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
	// IntegrationMorpho is Morpho Blue: an isolated market per MarketParams, one collateral and one loan token.
	IntegrationMorpho = "morpho-blue-borrow"
)

// MarketConfig is one lending market of the Borrow API.
type MarketConfig struct {
	// ID is derived when empty: <network>-aave-v3-<loan symbol>, <network>-morpho-blue-<market id>, lower-case.
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
	switch m.Integration {
	case IntegrationAave:
		if m.LLTV != "" || m.Contracts.Morpho != "" || m.Contracts.IRM != "" {
			return errors.New("lltv, contracts.morpho and contracts.irm are Morpho's: an Aave market reads its parameters from the pool")
		}
		return errors.Join(need("pool", m.Contracts.Pool), need("oracle", m.Contracts.Oracle))
	case IntegrationMorpho:
		if len(m.CollateralTokens) != 1 {
			return errors.New("collateralTokens: a Morpho Blue market has exactly one")
		}
		lltv, ok := new(big.Int).SetString(m.LLTV, 10)
		if !ok || lltv.Sign() <= 0 || lltv.Cmp(wad) >= 0 {
			return fmt.Errorf("lltv %q must be a WAD between 0 and 10^18 exclusive (860000000000000000 is 86%%)", m.LLTV)
		}
		return errors.Join(need("morpho", m.Contracts.Morpho), need("oracle", m.Contracts.Oracle), need("irm", m.Contracts.IRM))
	}
	return fmt.Errorf("integrationId %q is not one of %s, %s", m.Integration, IntegrationAave, IntegrationMorpho)
}

func (m *MarketConfig) derivedID(n *Network) string {
	if m.Integration == IntegrationAave {
		return strings.ToLower(fmt.Sprintf("%s-aave-v3-%s", n.ID, m.LoanToken.Symbol))
	}
	return strings.ToLower(fmt.Sprintf("%s-morpho-blue-%s", n.ID, abis.MorphoMarketID(m.morphoParams()).Hex()))
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
