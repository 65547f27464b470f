package yield

import (
	"context"
	"math/big"
	"net/http"

	"github.com/ethereum/go-ethereum/common"

	"github.com/sigil/sigil/internal/abis"
	"github.com/sigil/sigil/internal/units"
)

// The Borrow API's market shapes, after Yield.xyz's Borrow API (MarketDto): rates, LTVs and penalties as decimal
// strings, amounts exact in token units with their base units beside them.

type collateralDTO struct {
	Token                tokenDTO `json:"token"`
	MaxLtv               string   `json:"maxLtv"`
	LiquidationThreshold string   `json:"liquidationThreshold"`
	LiquidationPenalty   string   `json:"liquidationPenalty"`
	SupplyRate           string   `json:"supplyRate"`
}

type marketDTO struct {
	ID                    string          `json:"id"`
	IntegrationID         string          `json:"integrationId"`
	ProviderID            string          `json:"providerId"`
	Network               string          `json:"network"`
	ChainID               string          `json:"chainId"`
	Name                  string          `json:"name"`
	Type                  string          `json:"type"` // pool or isolated
	Address               string          `json:"address"`
	LoanToken             tokenDTO        `json:"loanToken"`
	CollateralTokens      []collateralDTO `json:"collateralTokens"`
	BorrowRate            string          `json:"borrowRate"`
	AvailableLiquidity    string          `json:"availableLiquidity"`
	AvailableLiquidityRaw string          `json:"availableLiquidityRaw"`
	TotalSupply           string          `json:"totalSupply"`
	TotalSupplyRaw        string          `json:"totalSupplyRaw"`
	TotalBorrow           string          `json:"totalBorrow"`
	TotalBorrowRaw        string          `json:"totalBorrowRaw"`
	UtilizationRate       string          `json:"utilizationRate"`
	IsBorrowEnabled       bool            `json:"isBorrowEnabled"`
	IsEnabled             bool            `json:"isEnabled"`
	MinLoan               *string         `json:"minLoan"`
}

// visibleMarkets are the markets of a scope: enabled (the default) or all.
func (s *Service) handleMarkets(r *http.Request, _ *keyInfo) (any, error) {
	q := r.URL.Query()
	offset, limit, err := paging(r)
	if err != nil {
		return nil, err
	}
	scope := q.Get("scope")
	if scope != "" && scope != "enabled" && scope != "all" {
		return nil, fieldError("scope", "%q is not one of enabled, all", truncate(scope, 40))
	}
	integration, network := q.Get("integrationId"), q.Get("network")
	if integration != "" {
		if err := checkIntegration("integrationId", integration); err != nil {
			return nil, err
		}
	}
	var matched []*marketEntry
	for _, e := range s.markets {
		if (scope == "all" || e.cfg.enabled()) && (integration == "" || e.cfg.Integration == integration) &&
			(network == "" || e.network.ID == network) {
			matched = append(matched, e)
		}
	}
	out := page[marketDTO]{Items: []marketDTO{}, Total: len(matched), Offset: offset, Limit: limit}
	if offset >= len(matched) {
		return out, nil
	}
	items, err := s.readMarkets(r.Context(), matched[offset:min(offset+limit, len(matched))])
	if err != nil {
		return nil, err
	}
	out.Items = items
	return out, nil
}

func (s *Service) handleMarket(r *http.Request, _ *keyInfo) (any, error) {
	e := s.marketByID[r.PathValue("id")]
	if e == nil {
		return nil, notFoundError("Market %s not found", truncate(r.PathValue("id"), 200))
	}
	items, err := s.readMarkets(r.Context(), []*marketEntry{e})
	if err != nil {
		return nil, err
	}
	return items[0], nil
}

// readMarkets reads the markets' state: per network, one round trip for every Aave market and every Morpho market's
// totals, and one more when a Morpho market has borrowers (its rate model takes the totals).
func (s *Service) readMarkets(ctx context.Context, markets []*marketEntry) ([]marketDTO, error) {
	out := make([]marketDTO, len(markets))
	byNetwork := map[string][]int{}
	var order []string
	for i, e := range markets {
		if _, ok := byNetwork[e.network.ID]; !ok {
			order = append(order, e.network.ID)
		}
		byNetwork[e.network.ID] = append(byNetwork[e.network.ID], i)
	}
	for _, id := range order {
		c := s.clients[id]
		first, second := c.newBatch(), c.newBatch()
		h := first.head()
		reserves := reserveReads{b: first, seen: map[[2]common.Address]*abis.ReserveData{}}
		finish := make([]func() (marketDTO, error), len(markets))
		morpho := map[int]func(*batch) func() (morphoRead, error){}
		for _, i := range byNetwork[id] {
			e := markets[i]
			if e.aave() {
				finish[i] = e.queueAaveMarket(first, &reserves)
			} else {
				morpho[i] = e.queueMorpho(first, h)
			}
		}
		if err := first.run(ctx); err != nil {
			return nil, err
		}
		for i, f := range morpho {
			read := f(second)
			e := markets[i]
			finish[i] = func() (marketDTO, error) {
				m, err := read()
				if err != nil {
					return marketDTO{}, err
				}
				return e.morphoMarketDTO(m), nil
			}
		}
		if err := second.run(ctx); err != nil {
			return nil, err
		}
		for _, i := range byNetwork[id] {
			d, err := finish[i]()
			if err != nil {
				return nil, err
			}
			out[i] = d
		}
	}
	return out, nil
}

// reserveReads queues each Aave reserve's getReserveData once per batch, however many markets share it.
type reserveReads struct {
	b    *batch
	seen map[[2]common.Address]*abis.ReserveData
}

func (r *reserveReads) get(pool, asset common.Address) *abis.ReserveData {
	k := [2]common.Address{pool, asset}
	if d, ok := r.seen[k]; ok {
		return d
	}
	d := readReserveDataWith(r.b, &abis.AaveV3Borrowing, pool, asset)
	r.seen[k] = d
	return d
}

func (e *marketEntry) baseDTO() marketDTO {
	d := marketDTO{ID: e.cfg.ID, IntegrationID: e.cfg.Integration, Network: e.network.ID, ChainID: big.NewInt(e.network.ChainID).String(),
		Name: e.cfg.Name, Address: e.contract.Hex(), LoanToken: e.cfg.LoanToken.dto(e.network.ID), IsEnabled: e.cfg.enabled()}
	d.ProviderID, d.Type = e.integration.provider, "isolated"
	if e.aave() {
		d.Type = "pool"
	}
	if d.Name == "" {
		d.Name = e.cfg.LoanToken.Symbol + " market"
	}
	return d
}

func (d *marketDTO) setTotals(t Token, available, supplied, borrowed *big.Int) {
	d.AvailableLiquidity, d.AvailableLiquidityRaw = units.Format(available, t.Decimals), available.String()
	d.TotalSupply, d.TotalSupplyRaw = units.Format(supplied, t.Decimals), supplied.String()
	d.TotalBorrow, d.TotalBorrowRaw = units.Format(borrowed, t.Decimals), borrowed.String()
	d.UtilizationRate = ratString(fraction(borrowed, supplied))
}

// queueAaveMarket reads an Aave market: the loan reserve's data (variable borrow rate, flags), its liquidity (the
// loan token held by its aToken) and debt (its debt tokens' supplies), and each collateral reserve's parameters and
// supply rate. Aave v3's rates are annual rates in ray that it compounds per second; they are shown compounded.
func (e *marketEntry) queueAaveMarket(b *batch, reserves *reserveReads) func() (marketDTO, error) {
	loan := e.reserves[e.loan]
	data := reserves.get(e.contract, e.loan)
	available := b.uint(e.loan, &erc20ABI, "balanceOf", loan.aToken)
	variable := b.uint(loan.variableDebt, &erc20ABI, "totalSupply")
	stable := b.uint(loan.stableDebt, &erc20ABI, "totalSupply")
	collaterals := make([]*abis.ReserveData, len(e.collaterals))
	for i, c := range e.collaterals {
		collaterals[i] = reserves.get(e.contract, c)
	}
	return func() (marketDTO, error) {
		d := e.baseDTO()
		borrowed := new(big.Int).Add(variable, stable)
		d.setTotals(e.cfg.LoanToken, available, new(big.Int).Add(available, borrowed), borrowed)
		cfg := decodeReserveConfig(data.Configuration.Data)
		d.IsBorrowEnabled = cfg.active && !cfg.frozen && !cfg.paused && cfg.borrowing
		d.BorrowRate = apyPerSecond(fraction(data.CurrentVariableBorrowRate, ray))
		for i, c := range collaterals {
			cc := decodeReserveConfig(c.Configuration.Data)
			penalty := new(big.Rat).Sub(bpsRat(cc.bonus), big.NewRat(1, 1))
			if cc.bonus.Sign() == 0 {
				penalty = new(big.Rat)
			}
			d.CollateralTokens = append(d.CollateralTokens, collateralDTO{Token: e.cfg.CollateralTokens[i].dto(e.network.ID),
				MaxLtv: ratString(bpsRat(cc.ltv)), LiquidationThreshold: ratString(bpsRat(cc.threshold)),
				LiquidationPenalty: ratString(penalty), SupplyRate: apyPerSecond(fraction(c.CurrentLiquidityRate, ray))})
		}
		return d, nil
	}
}

// morphoMarketDTO is a Morpho market: its LLTV is both the most it lends against the collateral and where a position
// becomes liquidatable; the penalty is the liquidation incentive; collateral earns nothing in the market. Its borrow
// rate is per second, compounded continuously.
func (e *marketEntry) morphoMarketDTO(m morphoRead) marketDTO {
	d := e.baseDTO()
	available := new(big.Int).Sub(m.market.TotalSupplyAssets, m.market.TotalBorrowAssets)
	if available.Sign() < 0 {
		available = new(big.Int)
	}
	d.setTotals(e.cfg.LoanToken, available, m.market.TotalSupplyAssets, m.market.TotalBorrowAssets)
	d.IsBorrowEnabled = true
	d.BorrowRate = apyContinuous(m.rate)
	lltv := ratString(fraction(e.params.Lltv, wad))
	d.CollateralTokens = []collateralDTO{{Token: e.cfg.CollateralTokens[0].dto(e.network.ID), MaxLtv: lltv, LiquidationThreshold: lltv,
		LiquidationPenalty: ratString(new(big.Rat).Sub(fraction(abis.MorphoLIF(e.params.Lltv), wad), big.NewRat(1, 1))), SupplyRate: "0"}}
	return d
}
