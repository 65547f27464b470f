package yield

import (
	"math/big"
	"reflect"

	"github.com/ethereum/go-ethereum/common"

	"github.com/sigil/sigil/internal/abis"
)

// account is an address's borrowing position as its protocol values it: on Aave v3, the account over the whole pool,
// valued by Aave's oracle in its base currency (USD, 8 decimals), with the health factor getUserAccountData computes;
// on Morpho Blue, one market, valued in the loan token by the market's oracle, with Morpho's own health test
// (collateral value × LLTV against the debt, interest accrued to the latest block). Predictions of an action's effect
// move the same sums by what the action moves.
type account struct {
	e          *marketEntry
	collateral *big.Rat // value of the collateral, in base units of the valuation
	debt       *big.Rat // value of the debt
	weighted   *big.Rat // Σ collateral value × liquidation threshold
	borrowable *big.Rat // Σ collateral value × max LTV − debt, at least 0
	hf         *big.Rat // nil without debt
	maxLtv     *big.Rat // the account's (Aave: weighted over its collateral)
	threshold  *big.Rat

	supplied         map[common.Address]*big.Int // collateral held, per asset, base units of the token
	owed             map[common.Address]*big.Int // debt, per asset
	usedAsCollateral map[common.Address]bool
	// value converts an amount of an asset into the valuation's base units; thresholds and LTVs are per asset.
	price              map[common.Address]*big.Rat // base units of value per base unit of the asset
	assetThreshold     map[common.Address]*big.Rat
	morphoBorrowShares *big.Int
	available          *big.Int // Morpho: the market's liquidity (supply less borrow)
	baseDecimals       uint8    // decimals of the valuation's unit
	currency           string   // its name: "USD" or the loan token's symbol
}

func (a *account) value(asset common.Address, amount *big.Int) *big.Rat {
	p := a.price[asset]
	if p == nil {
		return new(big.Rat)
	}
	return new(big.Rat).Mul(p, new(big.Rat).SetInt(amount))
}

// healthAfter is the health factor once the collateral of asset changes by dCollateral and the debt (of the loan
// token) by dDebt, both signed base units; nil when no debt would remain.
func (a *account) healthAfter(asset common.Address, dCollateral, dDebt *big.Int) *big.Rat {
	weighted := new(big.Rat).Set(a.weighted)
	if dCollateral.Sign() != 0 && a.assetThreshold[asset] != nil {
		weighted.Add(weighted, new(big.Rat).Mul(a.value(asset, dCollateral), a.assetThreshold[asset]))
	}
	debt := new(big.Rat).Add(a.debt, a.value(a.e.loan, dDebt))
	if debt.Sign() <= 0 {
		return nil
	}
	if weighted.Sign() < 0 {
		weighted = new(big.Rat)
	}
	return weighted.Quo(weighted, debt)
}

// ltvAfter is the debt over the collateral's value after the same changes; 0 without debt.
func (a *account) ltvAfter(asset common.Address, dCollateral, dDebt *big.Int) *big.Rat {
	collateral := new(big.Rat).Add(a.collateral, a.value(asset, dCollateral))
	debt := new(big.Rat).Add(a.debt, a.value(a.e.loan, dDebt))
	if debt.Sign() <= 0 {
		return new(big.Rat)
	}
	if collateral.Sign() <= 0 {
		return nil
	}
	return debt.Quo(debt, collateral)
}

// queueAaveAccount queues the reads of an address's Aave account on e's pool: getUserAccountData, the collateral
// flags, and per asset of the market its aToken and debt token balances, its price and its liquidation threshold.
func (e *marketEntry) queueAaveAccount(b *batch, reserves *reserveReads, user common.Address) func() *account {
	data := b.read(e.contract, &abis.AaveV3Borrowing, "getUserAccountData", user)
	config := b.read(e.contract, &abis.AaveV3Borrowing, "getUserConfiguration", user)
	assets := e.assets()
	type reads struct {
		supplied, variable, stable, price *big.Int
		reserve                           *abis.ReserveData
	}
	per := make([]reads, len(assets))
	for i, asset := range assets {
		r := e.reserves[asset]
		per[i] = reads{b.uint(r.aToken, &erc20ABI, "balanceOf", user), b.uint(r.variableDebt, &erc20ABI, "balanceOf", user),
			b.uint(r.stableDebt, &erc20ABI, "balanceOf", user), b.uint(e.oracle, &abis.AaveOracle, "getAssetPrice", asset),
			reserves.get(e.contract, asset)}
	}
	return func() *account {
		a := &account{e: e, supplied: map[common.Address]*big.Int{}, owed: map[common.Address]*big.Int{},
			usedAsCollateral: map[common.Address]bool{}, price: map[common.Address]*big.Rat{}, assetThreshold: map[common.Address]*big.Rat{},
			baseDecimals: 8, currency: "USD"}
		get := func(i int) *big.Int {
			if len(*data) > i {
				if v, ok := (*data)[i].(*big.Int); ok {
					return v
				}
			}
			return new(big.Int)
		}
		a.collateral, a.debt = new(big.Rat).SetInt(get(0)), new(big.Rat).SetInt(get(1))
		a.borrowable = new(big.Rat).SetInt(get(2))
		a.threshold, a.maxLtv = bpsRat(get(3)), bpsRat(get(4))
		a.weighted = new(big.Rat).Mul(a.collateral, a.threshold)
		if get(1).Sign() > 0 {
			a.hf = fraction(get(5), wad)
		}
		flags := new(big.Int)
		if len(*config) > 0 { // UserConfigurationMap{data}: two bits a reserve, the higher "used as collateral"
			if v := reflect.ValueOf((*config)[0]); v.Kind() == reflect.Struct {
				if f, ok := v.FieldByName("Data").Interface().(*big.Int); ok {
					flags = f
				}
			}
		}
		for i, asset := range assets {
			t, _ := e.token(asset)
			a.price[asset] = new(big.Rat).SetFrac(per[i].price, pow10(t.Decimals))
			a.supplied[asset] = per[i].supplied
			a.owed[asset] = new(big.Int).Add(per[i].variable, per[i].stable)
			a.usedAsCollateral[asset] = flags.Bit(int(e.reserves[asset].id)*2+1) == 1
			a.assetThreshold[asset] = bpsRat(decodeReserveConfig(per[i].reserve.Configuration.Data).threshold)
		}
		return a
	}
}

// queueMorphoAccount queues the reads of an address's position in e's Morpho market (with the market's own first
// round, queueMorpho): the position and the oracle's price; finish takes the accrued market.
func (e *marketEntry) queueMorphoAccount(b *batch, user common.Address) func(m morphoRead) *account {
	pos := b.read(e.contract, &abis.MorphoBlue, "position", e.id, user)
	price := b.uint(e.oracle, &abis.MorphoOracle, "price")
	return func(m morphoRead) *account {
		get := func(i int) *big.Int {
			if len(*pos) > i {
				if v, ok := (*pos)[i].(*big.Int); ok {
					return v
				}
			}
			return new(big.Int)
		}
		shares, collateral := get(1), get(2)
		borrowed := abis.MorphoToAssetsUp(shares, m.market.TotalBorrowAssets, m.market.TotalBorrowShares)
		lltv := fraction(e.params.Lltv, wad)
		coll := e.collaterals[0]
		a := &account{e: e, supplied: map[common.Address]*big.Int{coll: collateral}, owed: map[common.Address]*big.Int{e.loan: borrowed},
			usedAsCollateral: map[common.Address]bool{coll: true},
			price:            map[common.Address]*big.Rat{e.loan: big.NewRat(1, 1), coll: new(big.Rat).SetFrac(price, abis.MorphoOraclePriceScale)},
			assetThreshold:   map[common.Address]*big.Rat{coll: lltv}, morphoBorrowShares: shares,
			baseDecimals: e.cfg.LoanToken.Decimals, currency: e.cfg.LoanToken.Symbol, maxLtv: lltv, threshold: lltv}
		a.available = new(big.Int).Sub(m.market.TotalSupplyAssets, m.market.TotalBorrowAssets)
		a.collateral = a.value(coll, collateral)
		a.debt = new(big.Rat).SetInt(borrowed)
		a.weighted = new(big.Rat).Mul(a.collateral, lltv)
		a.borrowable = new(big.Rat).Sub(a.weighted, a.debt)
		if a.borrowable.Sign() < 0 {
			a.borrowable = new(big.Rat)
		}
		if borrowed.Sign() > 0 {
			a.hf = new(big.Rat).Quo(a.weighted, a.debt)
		}
		return a
	}
}

func pow10(d uint8) *big.Int { return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(d)), nil) }
