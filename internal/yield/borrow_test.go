package yield

import (
	"context"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/sigil/sigil/internal/contracts"
	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/testdb"
)

func (e *env) marketID(integration, loan, collateral string) string {
	e.t.Helper()
	for _, m := range e.cat.Markets {
		if m.Integration == integration && m.LoanToken.Symbol == loan && (collateral == "" || m.CollateralTokens[0].Symbol == collateral) {
			return m.ID
		}
	}
	e.t.Fatalf("no %s market lending %s", integration, loan)
	return ""
}

func (w *wallet) borrowAction(key, action string, args map[string]any, want int) (actionDTO, response) {
	w.e.t.Helper()
	var a actionDTO
	r := w.e.mustCall(key, "POST", "/v1/actions", map[string]any{"action": action, "address": w.addr.Hex(), "args": args}, want, nil)
	if want == 201 {
		r.decode(w.e.t, &a)
	}
	return a, r
}

func (e *env) positions(key string, holder common.Address, marketID string) []positionDTO {
	e.t.Helper()
	var out struct{ Items []positionDTO }
	e.mustCall(key, "GET", "/v1/positions?address="+holder.Hex()+"&marketId="+marketID, nil, 200, &out)
	return out.Items
}

// The Borrow API on Aave v3's own contracts, end to end on a chain of its own (its prices move): the markets carry
// Aave's parameters, a supply and a borrow are built, signed and mined, a borrow that would leave the health factor
// under 1 is refused with the number and one beyond the LTV limit with the limit, bad input builds nothing, and once
// the oracle's price of the collateral falls the position is liquidatable, the dev keeper liquidates it and the
// liquidation is in the address's history, read from Aave's LiquidationCall event.
func TestBorrowAave(t *testing.T) {
	e := newEnv(t, envOptions{fresh: true})
	usdc := e.marketID(IntegrationAave, "USDC", "")
	var market marketDTO
	e.mustCall(e.key10, "GET", "/v1/markets/"+usdc, nil, 200, &market)
	if market.Type != "pool" || market.IntegrationID != IntegrationAave || len(market.CollateralTokens) != 3 || !market.IsBorrowEnabled {
		t.Fatalf("market %+v", market)
	}
	usdt := market.CollateralTokens[1]
	if usdt.Token.Symbol != "USDT" || usdt.MaxLtv != "0.75" || usdt.LiquidationThreshold != "0.78" || usdt.LiquidationPenalty != "0.045" {
		t.Errorf("USDT as collateral: %+v", usdt)
	}
	// The deployer's seed: 1,000,000 USDC supplied, 800,000 borrowed (and the interest since).
	if !strings.HasPrefix(market.UtilizationRate, "0.80000") || market.AvailableLiquidity != "200000" || !strings.HasPrefix(market.BorrowRate, "0.0") {
		t.Errorf("utilization %s, liquidity %s, borrow rate %s", market.UtilizationRate, market.AvailableLiquidity, market.BorrowRate)
	}

	w := e.newWallet("1", map[string]string{"USDT": "1000"})
	usdtAddr := e.addr(contracts.USDT).Hex()
	a, _ := w.borrowAction(e.key10, "supply", map[string]any{"marketId": usdc, "amount": "1000", "collateralTokenAddress": usdtAddr}, 201)
	if len(a.Transactions) != 2 || a.Transactions[0].Type != "APPROVAL" || a.Transactions[1].Type != "SUPPLY" || a.Intent != "supply" ||
		a.MarketID == nil || *a.MarketID != usdc || a.Metadata == nil || a.Metadata.HealthFactor.Predicted != nil {
		t.Fatalf("supply action %+v", a)
	}
	if got := selector(unsigned(t, a.Transactions[1]).Data); got != "0x617ba037" {
		t.Errorf("supply selector %s", got)
	}
	w.execute(e.key10, a)

	// Bad input: nothing is built.
	for _, tc := range []struct {
		action string
		args   map[string]any
		want   string
	}{
		{"borrow", map[string]any{"marketId": "nope", "amount": "1"}, "args.marketId: unknown market"},
		{"borrow", map[string]any{"marketId": usdc, "amount": "0"}, "args.amount: must be greater than zero"},
		{"borrow", map[string]any{"marketId": usdc, "amount": "-5"}, "args.amount: must be greater than zero"},
		{"borrow", map[string]any{"marketId": usdc, "amount": 5}, "args.amount: must be a string"},
		{"borrow", map[string]any{"marketId": usdc, "amount": "1.0000001"}, "has 7 decimal places"},
		{"borrow", map[string]any{"marketId": usdc, "amount": "800"}, "would leave the health factor at 0.975, under 1"},
		{"borrow", map[string]any{"marketId": usdc, "amount": "760"}, "760 USDC is more than the 750 USDC this position may borrow"},
		{"supply", map[string]any{"marketId": usdc, "amount": "1", "collateralTokenAddress": usdtAddr}, "more than the wallet's balance of 0 USDT"},
		{"supply", map[string]any{"marketId": usdc, "amount": "1"}, "args.collateralTokenAddress: is required"},
		{"withdraw", map[string]any{"marketId": usdc, "amount": "1001", "collateralTokenAddress": usdtAddr}, "more than the 1000 USDT supplied"},
		{"repay", map[string]any{"marketId": usdc, "amount": "1"}, "owes nothing"},
		{"lend", map[string]any{"marketId": usdc, "amount": "1"}, "action: \"lend\" is not one of"},
		{"borrow", map[string]any{"marketId": usdc, "amount": "1", "extra": true}, "args.extra: unknown field"},
	} {
		_, r := w.borrowAction(e.key10, tc.action, tc.args, 400)
		var body errorBody
		r.decode(t, &body)
		if !strings.Contains(body.Message, tc.want) || body.StatusCode != 400 || body.Error != "Bad Request" {
			t.Errorf("%s %v: %+v, want %q", tc.action, tc.args, body, tc.want)
		}
	}
	if _, n, err := e.store.YieldActions(context.Background(), store.YieldActionQuery{Project: "project-ten",
		Address: strings.ToLower(w.addr.Hex()), Limit: 10}); err != nil || n != 1 {
		t.Errorf("%d actions stored after the refusals (%v), want the supply alone", n, err)
	}

	a, _ = w.borrowAction(e.key10, "borrow", map[string]any{"marketId": usdc, "amount": "700"}, 201)
	if a.Metadata.HealthFactor.Predicted == nil || !strings.HasPrefix(*a.Metadata.HealthFactor.Predicted, "1.114285714285714285") {
		t.Errorf("borrow metadata %+v", a.Metadata)
	}
	if got := selector(unsigned(t, a.Transactions[0]).Data); len(a.Transactions) != 1 || got != "0xa415bcad" {
		t.Errorf("borrow: %d transactions, selector %s", len(a.Transactions), got)
	}
	w.execute(e.key10, a)
	if got := e.tokenBalance(e.addr(contracts.USDC), w.addr); got.Cmp(big.NewInt(700_000_000)) != 0 {
		t.Fatalf("borrowed %s USDC units", got)
	}
	ps := e.positions(e.key10, w.addr, usdc)
	if len(ps) != 1 || ps[0].HealthFactor == nil || !strings.HasPrefix(*ps[0].HealthFactor, "1.114") || ps[0].Status != "healthy" ||
		!strings.HasPrefix(ps[0].TotalCollateralValue, "1000") || ps[0].TotalDebtValue != "700" || ps[0].ValueCurrency != "USD" {
		t.Fatalf("position %+v", ps)
	}

	// USDT falls to 0.87 USD: 870 × 0.78 / 700 < 1, above 0.95, where Aave liquidates half the debt.
	if err := e.chain.Simulator().SetPrice(context.Background(), contracts.USDT, big.NewInt(87_000_000)); err != nil {
		t.Fatal(err)
	}
	if ps = e.positions(e.key10, w.addr, usdc); ps[0].Status != "liquidatable" {
		t.Fatalf("after the fall: %+v", ps[0])
	}
	done, err := e.chain.Keeper().Run(context.Background())
	if err != nil || len(done) != 1 || done[0].Borrower != w.addr {
		t.Fatalf("keeper: %+v, %v", done, err)
	}
	var history struct{ Items []liquidationDTO }
	e.mustCall(e.key10, "GET", "/v1/liquidations?address="+w.addr.Hex(), nil, 200, &history)
	if len(history.Items) != 1 {
		t.Fatalf("history %+v", history)
	}
	l := history.Items[0]
	if l.DebtRepaid.Token.Symbol != "USDC" || l.CollateralSeized.Token.Symbol != "USDT" || l.MarketID == nil || *l.MarketID != usdc ||
		l.TransactionHash != done[0].TxHash.Hex() || l.Liquidator != strings.ToLower(e.chain.DevAccount().Hex()) || l.Timestamp == "" {
		t.Errorf("liquidation %+v", l)
	}
	if repaid := baseUnits(l.DebtRepaid.Amount, 6); repaid.Cmp(big.NewInt(340_000_000)) < 0 || repaid.Cmp(big.NewInt(360_000_000)) > 0 {
		t.Errorf("the keeper repaid %s USDC: Aave's close factor is half the debt", l.DebtRepaid.Amount)
	}

	// What is left is repaid in full and the collateral withdrawn.
	a, _ = w.borrowAction(e.key10, "repay", map[string]any{"marketId": usdc, "repayAll": true}, 201)
	w.execute(e.key10, a)
	a, _ = w.borrowAction(e.key10, "withdraw", map[string]any{"marketId": usdc, "withdrawAll": true, "collateralTokenAddress": usdtAddr}, 201)
	w.execute(e.key10, a)
	if ps = e.positions(e.key10, w.addr, usdc); len(ps) != 0 {
		t.Errorf("after repaying and withdrawing everything: %+v", ps)
	}
}

// The Borrow API on Morpho Blue, against a vault position: USDC entered into the plain vault (a yield action), its
// shares supplied to the market that lends USDT against them, a borrow within the LLTV, a refusal beyond it with the
// health factor; when USDC falls, the keeper liquidates and Morpho's Liquidate event is in the history. Both backends.
func TestBorrowMorphoAgainstAVault(t *testing.T) {
	testdb.Each(t, func(t *testing.T, backend testdb.Backend) {
		e := newEnv(t, envOptions{fresh: true, backend: &backend})
		id := e.marketID(IntegrationMorpho, "USDT", "svUSDC")
		var market marketDTO
		e.mustCall(e.key10, "GET", "/v1/markets/"+id, nil, 200, &market)
		if market.Type != "isolated" || market.CollateralTokens[0].MaxLtv != "0.86" || market.UtilizationRate != "0" ||
			market.AvailableLiquidity != "1000000" || !strings.HasPrefix(market.CollateralTokens[0].LiquidationPenalty, "0.0438") {
			t.Fatalf("market %+v", market)
		}
		w := e.newWallet("1", map[string]string{"USDC": "1000"})
		vault := e.yieldID(KindERC4626, e.addr(contracts.VaultUSDC).Hex(), "USDC")
		w.execute(e.key10, w.act(e.key10, "enter", vault, map[string]any{"amount": "1000"}))

		a, _ := w.borrowAction(e.key10, "supply", map[string]any{"marketId": id, "amount": "1000"}, 201)
		w.execute(e.key10, a)
		_, r := w.borrowAction(e.key10, "borrow", map[string]any{"marketId": id, "amount": "870"}, 400)
		if !strings.Contains(string(r.body), "would leave the health factor at 0.9885") {
			t.Errorf("a borrow over the LLTV: %s", r.body)
		}
		a, _ = w.borrowAction(e.key10, "borrow", map[string]any{"marketId": id, "amount": "800"}, 201)
		w.execute(e.key10, a)
		ps := e.positions(e.key10, w.addr, id)
		if len(ps) != 1 || ps[0].HealthFactor == nil || !strings.HasPrefix(*ps[0].HealthFactor, "1.075") || ps[0].ValueCurrency != "USDT" {
			t.Fatalf("position %+v", ps)
		}
		if err := e.chain.Simulator().SetPrice(context.Background(), contracts.USDC, big.NewInt(90_000_000)); err != nil {
			t.Fatal(err)
		}
		if done, err := e.chain.Keeper().Run(context.Background()); err != nil || len(done) != 1 || done[0].Protocol != "morpho" {
			t.Fatalf("keeper: %+v, %v", done, err)
		}
		var history struct{ Items []liquidationDTO }
		e.mustCall(e.key10, "GET", "/v1/liquidations?address="+w.addr.Hex()+"&integrationId="+IntegrationMorpho, nil, 200, &history)
		if len(history.Items) != 1 || history.Items[0].DebtRepaid.Token.Symbol != "USDT" || history.Items[0].CollateralSeized.Token.Symbol != "svUSDC" {
			t.Fatalf("history %+v", history)
		}
	})
}

// wrap turns eth of the wallet's ether into WETH (WETH9's deposit), signed by the wallet.
func (w *wallet) wrap(eth string) {
	w.e.t.Helper()
	ctx := context.Background()
	nonce, err := w.e.eth.PendingNonceAt(ctx, w.addr)
	if err != nil {
		w.e.t.Fatal(err)
	}
	weth := w.e.addr(contracts.WETH)
	data, _ := contracts.MustLoad(contracts.WrappedEther).Pack("deposit")
	gas, err := w.e.eth.EstimateGas(ctx, ethereum.CallMsg{From: w.addr, To: &weth, Value: baseUnits(eth, 18), Data: data})
	if err != nil {
		w.e.t.Fatal(err)
	}
	tx, err := types.SignTx(types.NewTx(&types.DynamicFeeTx{ChainID: w.e.chainID, Nonce: nonce, GasTipCap: big.NewInt(1e9),
		GasFeeCap: big.NewInt(100e9), Gas: gas, To: &weth, Value: baseUnits(eth, 18), Data: data}),
		types.LatestSignerForChainID(w.e.chainID), w.key)
	if err != nil {
		w.e.t.Fatal(err)
	}
	if r := w.send(tx); r.Status != types.ReceiptStatusSuccessful {
		w.e.t.Fatal("WETH deposit reverted")
	}
}

// Morpho Blue's USDC/WETH market, to the end of a position: a withdrawal that would leave the health factor under 1 is
// refused with the number, a partial repayment lowers the debt, and when WETH falls below what covers the debt with
// Morpho's incentive, the keeper seizes all the collateral and Morpho writes the rest off as bad debt, which the
// history shows; the address then holds no position.
func TestBorrowMorphoBadDebt(t *testing.T) {
	e := newEnv(t, envOptions{fresh: true})
	id := e.marketID(IntegrationMorpho, "USDC", "WETH")
	w := e.newWallet("2", nil)
	w.wrap("1")
	a, _ := w.borrowAction(e.key10, "supply", map[string]any{"marketId": id, "amount": "1"}, 201)
	if len(a.Transactions) != 2 || selector(unsigned(t, a.Transactions[1]).Data) != "0x238d6579" {
		t.Fatalf("supply %+v", a)
	}
	w.execute(e.key10, a)
	// 1 WETH at 3,000 USDC and an 86% LLTV carries 2,580 USDC.
	_, r := w.borrowAction(e.key10, "borrow", map[string]any{"marketId": id, "amount": "2581"}, 400)
	if !strings.Contains(string(r.body), "health factor at 0.99961255") {
		t.Errorf("a borrow just over the LLTV: %s", r.body)
	}
	a, _ = w.borrowAction(e.key10, "borrow", map[string]any{"marketId": id, "amount": "2000"}, 201)
	if selector(unsigned(t, a.Transactions[0]).Data) != "0x50d8cd4b" || *a.Metadata.HealthFactor.Predicted != "1.29" {
		t.Errorf("borrow %+v", a.Metadata)
	}
	w.execute(e.key10, a)
	// The stored action reads back as the Borrow API built it, done.
	var stored actionDTO
	e.mustCall(e.key10, "GET", "/v1/actions/"+a.ID, nil, 200, &stored)
	if stored.Status != "SUCCESS" || stored.MarketID == nil || *stored.MarketID != id || *stored.IntegrationID != IntegrationMorpho ||
		stored.Metadata == nil || *stored.Metadata.HealthFactor.Predicted != "1.29" || stored.Intent != "borrow" || stored.Type != "BORROW" {
		t.Errorf("GET the borrow: %+v", stored)
	}

	// Half the collateral out would leave 1,290 USDC of capacity against 2,000 of debt.
	_, r = w.borrowAction(e.key10, "withdraw", map[string]any{"marketId": id, "amount": "0.5"}, 400)
	if !strings.Contains(string(r.body), "withdrawing 0.5 WETH would leave the health factor at 0.644999") {
		t.Errorf("a withdrawal under 1: %s", r.body)
	}
	a, _ = w.borrowAction(e.key10, "repay", map[string]any{"marketId": id, "amount": "500"}, 201)
	if len(a.Transactions) != 2 || selector(unsigned(t, a.Transactions[1]).Data) != "0x20b76e81" {
		t.Fatalf("repay %+v", a)
	}
	w.execute(e.key10, a)
	ps := e.positions(e.key10, w.addr, id)
	if len(ps) != 1 || len(ps[0].Debt) != 1 || !strings.HasPrefix(ps[0].Debt[0].Amount, "1500.") || ps[0].Collateral[0].Amount != "1" ||
		ps[0].TotalCollateralValue != "3000" || !strings.HasPrefix(*ps[0].HealthFactor, "1.7199") || ps[0].Status != "healthy" {
		t.Fatalf("after repaying 500: %+v", ps)
	}

	// At 1,200 USDC a WETH, 1 WETH with Morpho's 4.38% incentive covers about 1,149.6 USDC of the 1,500 owed.
	if err := e.chain.Simulator().SetPrice(context.Background(), contracts.WETH, big.NewInt(1200_00000000)); err != nil {
		t.Fatal(err)
	}
	if ps = e.positions(e.key10, w.addr, id); ps[0].Status != "liquidatable" || !strings.HasPrefix(*ps[0].HealthFactor, "0.6879") {
		t.Fatalf("after the fall: %+v", ps[0])
	}
	done, err := e.chain.Keeper().Run(context.Background())
	if err != nil || len(done) != 1 || done[0].Borrower != w.addr || done[0].Protocol != "morpho" {
		t.Fatalf("keeper: %+v, %v", done, err)
	}
	var history struct{ Items []liquidationDTO }
	e.mustCall(e.key10, "GET", "/v1/liquidations?address="+w.addr.Hex()+"&marketId="+id, nil, 200, &history)
	if len(history.Items) != 1 {
		t.Fatalf("history %+v", history)
	}
	l := history.Items[0]
	if l.CollateralSeized.Amount != "1" || !strings.HasPrefix(l.DebtRepaid.Amount, "1149.6") || l.BadDebt == nil ||
		!strings.HasPrefix(l.BadDebt.Amount, "350.") || l.TransactionHash != done[0].TxHash.Hex() || *l.MarketID != id {
		t.Errorf("liquidation %+v (bad debt %+v)", l, l.BadDebt)
	}
	if ps = e.positions(e.key10, w.addr, id); len(ps) != 0 {
		t.Errorf("after the liquidation: %+v", ps)
	}
}
