package yield

import (
	"context"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/math"

	"github.com/sigil/sigil/internal/abis"
)

// marketEntry is one catalogue market with its addresses parsed.
type marketEntry struct {
	cfg         MarketConfig
	integration integration
	network     *Network
	client      *chainClient
	loan        common.Address
	collaterals []common.Address
	contract    common.Address // where its transactions go: Aave's Pool or Morpho Blue
	oracle      common.Address
	// Aave: the reserves of the loan token and of each collateral (read once at Start: a reserve's tokens never change).
	reserves map[common.Address]*aaveReserve
	// Morpho: the market's parameters and id.
	params abis.MorphoMarketParams
	id     common.Hash
}

type aaveReserve struct {
	aToken, variableDebt, stableDebt common.Address
	id                               uint16
}

func newMarketEntry(m MarketConfig, n *Network, c *chainClient) *marketEntry {
	e := &marketEntry{cfg: m, network: n, client: c, loan: common.HexToAddress(m.LoanToken.Address),
		oracle: common.HexToAddress(m.Contracts.Oracle), reserves: map[common.Address]*aaveReserve{}}
	for _, t := range m.CollateralTokens {
		e.collaterals = append(e.collaterals, common.HexToAddress(t.Address))
	}
	e.integration, _ = integrationOf(m.Integration)
	if e.integration.aavePool {
		e.contract = common.HexToAddress(m.Contracts.Pool)
	} else {
		e.contract = common.HexToAddress(m.Contracts.Morpho)
		e.params = m.morphoParams()
		e.id = abis.MorphoMarketID(e.params)
	}
	return e
}

// aave is whether the market is on an Aave v3 Pool (Aave's or SparkLend's); otherwise it is on Morpho Blue.
func (e *marketEntry) aave() bool { return e.integration.aavePool }

// token is the catalogue's token at address a, loan or collateral.
func (e *marketEntry) token(a common.Address) (Token, bool) {
	if a == e.loan {
		return e.cfg.LoanToken, true
	}
	for i, c := range e.collaterals {
		if c == a {
			return e.cfg.CollateralTokens[i], true
		}
	}
	return Token{}, false
}

// assets are the loan token and the collaterals, each once.
func (e *marketEntry) assets() []common.Address {
	out := []common.Address{e.loan}
	for _, c := range e.collaterals {
		if c != e.loan {
			out = append(out, c)
		}
	}
	return out
}

// Aave's ReserveConfigurationMap: LTV, liquidation threshold and bonus in basis points, and the reserve's flags.
type reserveConfig struct {
	ltv, threshold, bonus                           *big.Int
	active, frozen, borrowing, paused, usableAsColl bool
}

func decodeReserveConfig(data *big.Int) reserveConfig {
	field := func(from, bits uint) *big.Int {
		return new(big.Int).And(new(big.Int).Rsh(data, from), new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), bits), big.NewInt(1)))
	}
	c := reserveConfig{ltv: field(0, 16), threshold: field(16, 16), bonus: field(32, 16), active: data.Bit(56) == 1,
		frozen: data.Bit(57) == 1, borrowing: data.Bit(58) == 1, paused: data.Bit(60) == 1}
	c.usableAsColl = c.threshold.Sign() > 0
	return c
}

// morphoRead is what one request knows of a Morpho market: its state with the interest accrued up to the latest
// block (MorphoBalancesLib.expectedMarketBalances), and the borrow rate per second (WAD) its model charges now.
type morphoRead struct {
	market abis.MorphoMarket
	rate   *big.Int
}

// queueMorpho queues the first round of a Morpho market's reads (the market); finish queues the second (the rate,
// which takes the market's state) on next and returns what makes the accrued state once next has run.
func (e *marketEntry) queueMorpho(b *batch, h *head) (finish func(next *batch) func() (morphoRead, error)) {
	values := b.read(e.contract, &abis.MorphoBlue, "market", e.id)
	return func(next *batch) func() (morphoRead, error) {
		m := abis.AsMorphoMarket(*values)
		rate := new(big.Int)
		if m.LastUpdate.Sign() > 0 && m.TotalBorrowAssets.Sign() > 0 {
			rate = next.uint(e.params.Irm, &abis.MorphoIrm, "borrowRateView", e.params, m)
		}
		return func() (morphoRead, error) {
			if m.LastUpdate.Sign() == 0 {
				return morphoRead{}, fmt.Errorf("morpho market %s is not created", e.id.Hex())
			}
			return morphoRead{market: m.Accrued(rate, uint64(h.Time)), rate: rate}, nil
		}
	}
}

// verifyMarkets reads, once at start, what never changes of each market and checks the catalogue against it: token
// decimals; for Aave, that every token is a reserve of the pool (its aToken and debt tokens are kept) and has a price
// on the oracle; for Morpho, that the market exists with exactly the catalogue's parameters.
func (s *Service) verifyMarkets(ctx context.Context) error {
	var errs []string
	for id, c := range s.clients {
		b := c.newBatch()
		var checks []func() error
		for _, e := range s.markets {
			if e.network.ID == id {
				checks = append(checks, e.queueChecks(b)...)
			}
		}
		if err := b.run(ctx); err != nil {
			return fmt.Errorf("yield: markets on network %s: %w", id, err)
		}
		for _, check := range checks {
			if err := check(); err != nil {
				errs = append(errs, err.Error())
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("yield: the catalogue's markets do not match the chain: %s", strings.Join(errs, "; "))
	}
	return nil
}

func (e *marketEntry) queueChecks(b *batch) []func() error {
	var checks []func() error
	for _, a := range e.assets() {
		t, _ := e.token(a)
		decimals := b.uint(a, &erc20ABI, "decimals")
		checks = append(checks, func() error {
			if decimals.Cmp(big.NewInt(int64(t.Decimals))) != 0 {
				return fmt.Errorf("%s: %s has %s decimals on chain, the catalogue says %d", e.cfg.ID, t.Symbol, decimals, t.Decimals)
			}
			return nil
		})
		if e.aave() {
			if a == e.loan {
				unit := b.uint(e.oracle, &abis.AaveOracle, "BASE_CURRENCY_UNIT")
				checks = append(checks, func() error {
					if unit.Cmp(big.NewInt(1e8)) != 0 {
						return fmt.Errorf("%s: the oracle's base currency unit is %s; the Borrow API values Aave accounts in USD with 8 decimals (10^8)", e.cfg.ID, unit)
					}
					return nil
				})
			}
			reserve := readReserveDataWith(b, &abis.AaveV3Borrowing, e.contract, a)
			// AaveOracle reverts for an asset without a source (and no fallback oracle): that is "no price" too.
			price := b.optionalUint(e.oracle, &abis.AaveOracle, "getAssetPrice", a)
			checks = append(checks, func() error {
				if reserve.ATokenAddress == (common.Address{}) {
					return fmt.Errorf("%s: %s is not a reserve of the pool %s", e.cfg.ID, t.Symbol, e.contract.Hex())
				}
				if p := price(); p == nil || p.Sign() == 0 {
					return fmt.Errorf("%s: the oracle %s has no price of %s", e.cfg.ID, e.oracle.Hex(), t.Symbol)
				}
				e.reserves[a] = &aaveReserve{aToken: reserve.ATokenAddress, variableDebt: reserve.VariableDebtTokenAddress,
					stableDebt: reserve.StableDebtTokenAddress, id: reserve.Id}
				return nil
			})
		}
	}
	if !e.aave() {
		// The id is the hash of the parameters, so a market at the id has exactly the catalogue's parameters.
		params := b.read(e.contract, &abis.MorphoBlue, "idToMarketParams", e.id)
		checks = append(checks, func() error {
			if len(*params) > 0 && (*params)[0] == (common.Address{}) {
				return fmt.Errorf("%s: Morpho Blue %s has no market %s (the catalogue's parameters)", e.cfg.ID, e.contract.Hex(), e.id.Hex())
			}
			return nil
		})
	}
	return checks
}

// readReserveDataWith is readReserveData with another ABI of getReserveData (the same layout).
func readReserveDataWith(b *batch, a *abi.ABI, pool, asset common.Address) *abis.ReserveData {
	out := new(abis.ReserveData)
	values := b.read(pool, a, "getReserveData", asset)
	b.decoded = append(b.decoded, func() error {
		if len(*values) == 0 {
			return nil
		}
		d, err := abis.AsReserveData((*values)[0])
		if err != nil {
			return fmt.Errorf("getReserveData on %s: %w", pool.Hex(), err)
		}
		*out = d
		return nil
	})
	return out
}

// maxUint is type(uint256).max: "everything" to Aave's repay and withdraw.
var maxUint = math.MaxBig256
