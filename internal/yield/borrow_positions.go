package yield

import (
	"context"
	"math/big"
	"net/http"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/sigil/sigil/internal/abis"
	"github.com/sigil/sigil/internal/units"
)

type positionAmountDTO struct {
	Token        tokenDTO `json:"token"`
	Amount       string   `json:"amount"`
	AmountRaw    string   `json:"amountRaw"`
	Value        string   `json:"value"` // in the position's valueCurrency
	MarketID     *string  `json:"marketId,omitempty"`
	IsCollateral *bool    `json:"isCollateral,omitempty"`
}

// positionDTO is an address's borrowing position: an Aave account (over every market of its pool) or a Morpho market.
type positionDTO struct {
	IntegrationID          string              `json:"integrationId"`
	Network                string              `json:"network"`
	Address                string              `json:"address"`
	MarketIDs              []string            `json:"marketIds"`
	Collateral             []positionAmountDTO `json:"collateral"`
	Debt                   []positionAmountDTO `json:"debt"`
	ValueCurrency          string              `json:"valueCurrency"`
	TotalCollateralValue   string              `json:"totalCollateralValue"`
	TotalDebtValue         string              `json:"totalDebtValue"`
	AvailableToBorrowValue string              `json:"availableToBorrowValue"`
	HealthFactor           *string             `json:"healthFactor"`
	CurrentLtv             *string             `json:"currentLtv"`
	MaxLtv                 string              `json:"maxLtv"`
	LiquidationThreshold   string              `json:"liquidationThreshold"`
	Status                 string              `json:"status"` // healthy or liquidatable
}

// handleMarketPositions is GET /v1/positions: the positions an address holds, filtered by network, integration or
// market; an Aave account appears once per pool, whatever markets of the pool it uses.
func (s *Service) handlePositions(r *http.Request, _ *keyInfo) (any, error) {
	q := r.URL.Query()
	user, err := parseAddress("address", q.Get("address"))
	if err != nil {
		return nil, err
	}
	groups, err := s.positionGroups(q.Get("network"), q.Get("integrationId"), q.Get("marketId"))
	if err != nil {
		return nil, err
	}
	out := struct {
		Items []positionDTO `json:"items"`
	}{Items: []positionDTO{}}
	for _, g := range groups {
		a, err := s.readAccount(r.Context(), g[0], user, nil)
		if err != nil {
			return nil, err
		}
		if d, ok := positionOf(a, g, user); ok {
			out.Items = append(out.Items, d)
		}
	}
	return out, nil
}

// positionGroups are the accounts an address may hold: each Aave pool (with its markets) and each Morpho market.
func (s *Service) positionGroups(network, integration, marketID string) ([][]*marketEntry, error) {
	if integration != "" {
		if err := checkIntegration("integrationId", integration); err != nil {
			return nil, err
		}
	}
	if marketID != "" && s.marketByID[marketID] == nil {
		return nil, fieldError("marketId", "unknown market %q; GET /v1/markets?scope=all lists them", truncate(marketID, 200))
	}
	var groups [][]*marketEntry
	pools := map[string]int{}
	for _, e := range s.markets {
		if (network != "" && e.network.ID != network) || (integration != "" && e.cfg.Integration != integration) {
			continue
		}
		if marketID != "" && !samePosition(e, s.marketByID[marketID]) {
			continue
		}
		if !e.aave() {
			groups = append(groups, []*marketEntry{e})
			continue
		}
		k := e.cfg.Integration + "/" + e.network.ID + "/" + strings.ToLower(e.contract.Hex())
		if i, ok := pools[k]; ok {
			groups[i] = append(groups[i], e)
			continue
		}
		pools[k] = len(groups)
		groups = append(groups, []*marketEntry{e})
	}
	return groups, nil
}

// samePosition is whether an address's position in market a is its position in market b: the same market, or two
// markets of one Aave v3 pool (an account spans the pool).
func samePosition(a, b *marketEntry) bool {
	return a == b || (a.aave() && a.cfg.Integration == b.cfg.Integration && a.network == b.network && a.contract == b.contract)
}

// readAccount reads an address's account in e's pool or market: one round trip, and one more for a Morpho market's
// rate. extra, when given, is queued with the first round (an action's own reads).
func (s *Service) readAccount(ctx context.Context, e *marketEntry, user common.Address, extra func(*batch)) (*account, error) {
	first, second := e.client.newBatch(), e.client.newBatch()
	if extra != nil {
		extra(first)
	}
	if e.aave() {
		finish := e.queueAaveAccount(first, &reserveReads{b: first, seen: map[[2]common.Address]*abis.ReserveData{}}, user)
		if err := first.run(ctx); err != nil {
			return nil, err
		}
		return finish(), nil
	}
	h := first.head()
	market := e.queueMorpho(first, h)
	finish := e.queueMorphoAccount(first, user)
	if err := first.run(ctx); err != nil {
		return nil, err
	}
	read := market(second)
	if err := second.run(ctx); err != nil {
		return nil, err
	}
	m, err := read()
	if err != nil {
		return nil, err
	}
	return finish(m), nil
}

// positionOf renders an account; an account with neither collateral nor debt is no position.
func positionOf(a *account, group []*marketEntry, user common.Address) (positionDTO, bool) {
	e := group[0]
	d := positionDTO{IntegrationID: e.cfg.Integration, Network: e.network.ID, Address: strings.ToLower(user.Hex()),
		Collateral: []positionAmountDTO{}, Debt: []positionAmountDTO{}, ValueCurrency: a.currency, Status: "healthy",
		MaxLtv: ratString(a.maxLtv), LiquidationThreshold: ratString(a.threshold)}
	loanMarket := map[common.Address]string{}
	for _, m := range group {
		d.MarketIDs = append(d.MarketIDs, m.cfg.ID)
		loanMarket[m.loan] = m.cfg.ID
	}
	format := func(v *big.Rat) string { return ratDecimals(v, a.baseDecimals) }
	tokens := map[common.Address]Token{}
	var assets []common.Address
	for _, m := range group {
		for _, asset := range m.assets() {
			if _, ok := tokens[asset]; !ok {
				tokens[asset], _ = m.token(asset)
				assets = append(assets, asset)
			}
		}
	}
	for _, asset := range assets {
		t := tokens[asset]
		if v := a.supplied[asset]; v != nil && v.Sign() > 0 {
			d.Collateral = append(d.Collateral, positionAmountDTO{Token: t.dto(e.network.ID), Amount: units.Format(v, t.Decimals),
				AmountRaw: v.String(), Value: format(a.value(asset, v)), IsCollateral: ptr(a.usedAsCollateral[asset])})
		}
		if v := a.owed[asset]; v != nil && v.Sign() > 0 {
			var market *string
			if id, ok := loanMarket[asset]; ok {
				market = &id
			}
			d.Debt = append(d.Debt, positionAmountDTO{Token: t.dto(e.network.ID), Amount: units.Format(v, t.Decimals),
				AmountRaw: v.String(), Value: format(a.value(asset, v)), MarketID: market})
		}
	}
	if len(d.Collateral) == 0 && len(d.Debt) == 0 {
		return d, false
	}
	d.TotalCollateralValue, d.TotalDebtValue, d.AvailableToBorrowValue = format(a.collateral), format(a.debt), format(a.borrowable)
	if a.hf != nil {
		d.HealthFactor = ptr(ratString(a.hf))
		if a.hf.Cmp(big.NewRat(1, 1)) < 0 {
			d.Status = "liquidatable"
		}
	}
	if ltv := a.ltvAfter(e.loan, new(big.Int), new(big.Int)); ltv != nil {
		d.CurrentLtv = ptr(ratString(ltv))
	}
	return d, true
}

// ratDecimals is a value in base units of a unit with that many decimals, in whole units, exact to the base unit
// (rounded down).
func ratDecimals(v *big.Rat, decimals uint8) string {
	n := new(big.Int).Quo(v.Num(), v.Denom())
	return units.Format(n, decimals)
}
