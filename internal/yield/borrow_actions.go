package yield

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"slices"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/google/uuid"

	"github.com/sigil/sigil/internal/abis"
	"github.com/sigil/sigil/internal/edge"
	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/units"
)

// borrowActionBody is the body of POST /v1/actions, the Borrow API's one action endpoint (Yield.xyz's shape: the
// action, the address, and one flat args object), decoded strictly.
type borrowActionBody struct {
	Action        string          `json:"action"`
	Address       string          `json:"address"`
	IntegrationID string          `json:"integrationId,omitempty"`
	Args          json.RawMessage `json:"args"`
}

type borrowArgs struct {
	MarketID string          `json:"marketId"`
	Amount   json.RawMessage `json:"amount,omitempty"`
	// CollateralTokenAddress names the collateral a supply or withdraw moves; an isolated market's one collateral (or a
	// pool market's only one) is the default.
	CollateralTokenAddress string `json:"collateralTokenAddress,omitempty"`
	RepayAll               bool   `json:"repayAll,omitempty"`
	WithdrawAll            bool   `json:"withdrawAll,omitempty"`
	UseMaxAllowance        bool   `json:"useMaxAllowance,omitempty"`
}

// borrowRecord is what a Borrow API action stores beside a yield action's record.
type borrowRecord struct {
	IntegrationID string            `json:"integrationId"`
	MarketID      string            `json:"marketId"`
	Metadata      borrowMetadataDTO `json:"metadata"`
}

// borrowMetadataDTO previews the position after the action: its health factor and LTV now and once the action is
// mined (null without debt), from the protocol's oracle prices and parameters.
type borrowMetadataDTO struct {
	HealthFactor beforeAfterDTO `json:"healthFactor"`
	Ltv          beforeAfterDTO `json:"ltv"`
}

type beforeAfterDTO struct {
	Current   *string `json:"current"`
	Predicted *string `json:"predicted"`
}

var borrowActions = []string{"supply", "borrow", "repay", "withdraw"}

func (s *Service) handleBorrowAction(r *http.Request, k *keyInfo) (any, error) {
	var body borrowActionBody
	if err := edge.Decode(r, &body); err != nil {
		return nil, err
	}
	out, err := s.createBorrowAction(r.Context(), k, body)
	return edge.WithStatus(http.StatusCreated, out), err
}

// borrowRequest is one Borrow API action, validated.
type borrowRequest struct {
	e       *marketEntry
	action  string
	from    common.Address
	asset   common.Address // what moves: a collateral (supply, withdraw) or the loan token (borrow, repay)
	token   Token
	amount  *big.Int // nil with repayAll or withdrawAll
	all     bool
	maxAppr bool
	raw     map[string]any
}

func (s *Service) parseBorrowAction(body borrowActionBody) (*borrowRequest, error) {
	if !slices.Contains(borrowActions, body.Action) {
		return nil, fieldError("action", "%q is not one of %s", truncate(body.Action, 40), strings.Join(borrowActions, ", "))
	}
	from, err := parseAddress("address", body.Address)
	if err != nil {
		return nil, err
	}
	var args borrowArgs
	if err := edge.Unmarshal(body.Args, &args, "args"); err != nil {
		return nil, err
	}
	raw := map[string]any{}
	_ = json.Unmarshal(body.Args, &raw)
	e := s.marketByID[args.MarketID]
	if e == nil {
		return nil, fieldError("args.marketId", "unknown market %q; GET /v1/markets?scope=all lists them", truncate(args.MarketID, 200))
	}
	if body.IntegrationID != "" && body.IntegrationID != e.cfg.Integration {
		return nil, fieldError("integrationId", "%s is a market of %s, not %s", e.cfg.ID, e.cfg.Integration, truncate(body.IntegrationID, 60))
	}
	r := &borrowRequest{e: e, action: body.Action, from: from, maxAppr: args.UseMaxAllowance, raw: raw}
	switch body.Action {
	case "supply", "withdraw":
		if r.asset, err = e.collateralArg(args.CollateralTokenAddress); err != nil {
			return nil, err
		}
	default:
		if args.CollateralTokenAddress != "" {
			return nil, fieldError("args.collateralTokenAddress", "a %s moves the loan token %s; only supply and withdraw name a collateral", body.Action, e.cfg.LoanToken.Symbol)
		}
		r.asset = e.loan
	}
	r.token, _ = e.token(r.asset)
	if args.RepayAll && body.Action != "repay" {
		return nil, fieldError("args.repayAll", "only applies to a repay")
	}
	if args.WithdrawAll && body.Action != "withdraw" {
		return nil, fieldError("args.withdrawAll", "only applies to a withdraw")
	}
	r.all = args.RepayAll || args.WithdrawAll
	if r.all {
		if len(args.Amount) > 0 && string(args.Amount) != "null" {
			return nil, fieldError("args.amount", "must be left out with repayAll or withdrawAll")
		}
		return r, nil
	}
	r.amount, err = parseAmountJSON(args.Amount, r.token)
	if err != nil {
		return nil, fieldError("args.amount", "%s", strings.TrimPrefix(err.Error(), "arguments.amount: "))
	}
	return r, nil
}

// collateralArg is the collateral an action names, or the market's only one.
func (e *marketEntry) collateralArg(address string) (common.Address, error) {
	if address == "" {
		if len(e.collaterals) == 1 {
			return e.collaterals[0], nil
		}
		var symbols []string
		for _, t := range e.cfg.CollateralTokens {
			symbols = append(symbols, t.Symbol+" "+t.Address)
		}
		return common.Address{}, fieldError("args.collateralTokenAddress", "is required: %s takes several collaterals (%s)", e.cfg.ID, strings.Join(symbols, ", "))
	}
	a, err := parseAddress("args.collateralTokenAddress", address)
	if err != nil {
		return common.Address{}, err
	}
	if !slices.Contains(e.collaterals, a) {
		return common.Address{}, fieldError("args.collateralTokenAddress", "%s is not a collateral of %s", a.Hex(), e.cfg.ID)
	}
	return a, nil
}

// createBorrowAction validates a Borrow API action against the chain, builds and simulates its transactions and stores
// it as a yield action is stored (its transactions are tracked, submitted and listed the same way). A borrow or a
// withdraw that would leave the health factor under 1 is refused before anything is built, with the number.
func (s *Service) createBorrowAction(ctx context.Context, k *keyInfo, body borrowActionBody) (actionDTO, error) {
	r, err := s.parseBorrowAction(body)
	if err != nil {
		return actionDTO{}, err
	}
	e := r.e
	var tc *txContext
	var balance, allowance, liquidity *big.Int
	a, err := s.readAccount(ctx, e, r.from, func(b *batch) {
		tc = b.txContext(r.from)
		balance = b.uint(r.asset, &erc20ABI, "balanceOf", r.from)
		allowance = b.uint(r.asset, &erc20ABI, "allowance", r.from, e.contract)
		if e.aave() {
			liquidity = b.uint(e.loan, &erc20ABI, "balanceOf", e.reserves[e.loan].aToken)
		}
	})
	if err != nil {
		return actionDTO{}, err
	}
	if liquidity == nil {
		liquidity = a.available
	}
	steps, dCollateral, dDebt, err := r.plan(a, balance, allowance, liquidity)
	if err != nil {
		return actionDTO{}, err
	}
	meta := borrowMetadataDTO{HealthFactor: beforeAfterDTO{Current: optionalRat(a.hf), Predicted: optionalRat(a.healthAfter(r.asset, dCollateral, dDebt))},
		Ltv: beforeAfterDTO{Current: optionalRat(a.ltvAfter(r.asset, new(big.Int), new(big.Int))), Predicted: optionalRat(a.ltvAfter(r.asset, dCollateral, dDebt))}}
	gas, err := e.client.simulate(ctx, r.from, steps)
	if err != nil {
		return actionDTO{}, err
	}
	if tc.head.BaseFee == nil {
		return actionDTO{}, fmt.Errorf("network %s has no base fee (pre-London): dynamic-fee transactions cannot be built", e.network.ID)
	}
	tip := tc.tip.ToInt()
	maxFee := new(big.Int).Add(new(big.Int).Mul(tc.head.BaseFee.ToInt(), big.NewInt(2)), tip)
	if err := checkGasCovered(e.network, steps, gas, maxFee, tc.balance); err != nil {
		return actionDTO{}, err
	}
	amount := r.amount
	switch {
	case amount != nil:
	case r.action == "repay":
		amount = new(big.Int).Neg(dDebt)
	default:
		amount = new(big.Int).Neg(dCollateral)
	}
	rec, _ := json.Marshal(actionRecord{Network: e.network.ID, AmountRaw: amount.String(), Decimals: r.token.Decimals, RawArguments: r.raw,
		Borrow: &borrowRecord{IntegrationID: e.cfg.Integration, MarketID: e.cfg.ID, Metadata: meta}})
	row := store.YieldAction{ID: uuid.NewString(), Project: k.project, Address: strings.ToLower(r.from.Hex()), YieldID: e.cfg.ID,
		Intent: r.action, Type: strings.ToUpper(r.action), Status: actionCreated, Body: rec, CreatedAt: s.nowMillis()}
	return s.insertAction(ctx, row, e.network, r.from, steps, gas, uint64(tc.nonce), maxFee, tip)
}

func optionalRat(v *big.Rat) *string {
	if v == nil {
		return nil
	}
	return ptr(ratString(v))
}

// plan checks the action against the position and the wallet and builds its steps; it returns how the action moves
// the collateral (of r.asset) and the debt, in base units, for the health factor's prediction.
func (r *borrowRequest) plan(a *account, balance, allowance, liquidity *big.Int) ([]step, *big.Int, *big.Int, error) {
	e, t := r.e, r.token
	zero := new(big.Int)
	f := func(v *big.Int) string { return units.Format(v, t.Decimals) + " " + t.Symbol }
	switch r.action {
	case "supply":
		if r.amount.Cmp(balance) > 0 {
			return nil, nil, nil, fieldError("args.amount", "%s is more than the wallet's balance of %s", f(r.amount), f(balance))
		}
		return afterApprovals(approvals(t, r.asset, e.contract, r.amount, allowance, r.maxAppr), e.supplyStep(r)), r.amount, zero, nil
	case "borrow":
		if a.collateral.Sign() == 0 {
			return nil, nil, nil, fieldError("args.marketId", "the address has no collateral in %s: supply some first", e.cfg.ID)
		}
		hf := a.healthAfter(r.asset, zero, r.amount)
		if hf != nil && hf.Cmp(big.NewRat(1, 1)) < 0 {
			return nil, nil, nil, fieldError("args.amount", "borrowing %s would leave the health factor at %s, under 1: the position "+
				"would be liquidatable, so nothing was built (health factor now: %s)", f(r.amount), ratString(hf), rat(a.hf))
		}
		if limit := a.borrowLimit(); r.amount.Cmp(limit) > 0 {
			return nil, nil, nil, fieldError("args.amount", "%s is more than the %s this position may borrow (max LTV %s)",
				f(r.amount), f(limit), ratString(a.maxLtv))
		}
		if r.amount.Cmp(liquidity) > 0 {
			return nil, nil, nil, fieldError("args.amount", "%s is more than the market's available liquidity of %s", f(r.amount), f(liquidity))
		}
		return []step{e.borrowStep(r)}, zero, r.amount, nil
	case "repay":
		owed := a.owed[e.loan]
		if owed == nil || owed.Sign() == 0 {
			return nil, nil, nil, fieldError("args.marketId", "the address owes nothing in %s", e.cfg.ID)
		}
		amount := r.amount
		if r.all {
			// Interest accrues until the repay is mined: allow and hold a little more than is owed now.
			amount = new(big.Int).Add(owed, new(big.Int).Div(owed, big.NewInt(1000)))
			amount.Add(amount, big.NewInt(1))
		} else if amount.Cmp(owed) > 0 {
			return nil, nil, nil, fieldError("args.amount", "%s is more than the debt of %s; repay it all with repayAll", f(amount), f(owed))
		}
		if amount.Cmp(balance) > 0 {
			return nil, nil, nil, fieldError("args.amount", "repaying needs up to %s, more than the wallet's balance of %s", f(amount), f(balance))
		}
		repaid := r.amount
		if r.all {
			repaid = owed
		}
		return afterApprovals(approvals(t, e.loan, e.contract, amount, allowance, r.maxAppr), e.repayStep(r, a)), zero, new(big.Int).Neg(repaid), nil
	default: // withdraw
		held := a.supplied[r.asset]
		if held == nil || held.Sign() == 0 {
			return nil, nil, nil, fieldError("args.amount", "the address has no %s supplied to %s", t.Symbol, e.cfg.ID)
		}
		amount := r.amount
		if r.all {
			amount = held
		} else if amount.Cmp(held) > 0 {
			return nil, nil, nil, fieldError("args.amount", "%s is more than the %s supplied", f(amount), f(held))
		}
		neg := new(big.Int).Neg(amount)
		if hf := a.healthAfter(r.asset, neg, zero); hf != nil && hf.Cmp(big.NewRat(1, 1)) < 0 && a.usedAsCollateral[r.asset] {
			return nil, nil, nil, fieldError("args.amount", "withdrawing %s would leave the health factor at %s, under 1: the position "+
				"would be liquidatable, so nothing was built (health factor now: %s)", f(amount), ratString(hf), rat(a.hf))
		}
		return []step{e.withdrawStep(r, amount)}, neg, zero, nil
	}
}

// afterApprovals appends the step that spends an allowance to the approvals before it, on which it then depends.
func afterApprovals(approvals []step, spend step) []step {
	spend.Dependent = len(approvals) > 0
	return append(approvals, spend)
}

func rat(v *big.Rat) string {
	if v == nil {
		return "none, no debt"
	}
	return ratString(v)
}

// borrowLimit is how much more of the loan token the account may borrow: its borrowable value at the loan token's
// price, rounded down.
func (a *account) borrowLimit() *big.Int {
	p := a.price[a.e.loan]
	if p == nil || p.Sign() == 0 {
		return new(big.Int)
	}
	q := new(big.Rat).Quo(a.borrowable, p)
	return new(big.Int).Quo(q.Num(), q.Denom())
}

// Gas limits of a step that depends on an approval when the node cannot simulate sequences.
const borrowStepGas = 1_200_000

func (e *marketEntry) supplyStep(r *borrowRequest) step {
	s := step{Type: "SUPPLY", Title: fmt.Sprintf("Supply %s as collateral to %s", r.token.Symbol, e.cfg.ID), To: e.contract,
		DefaultGas: borrowStepGas}
	if e.aave() {
		s.Data = mustPack(&abis.AaveV3Borrowing, "supply", r.asset, r.amount, r.from, uint16(0))
	} else {
		s.Data = mustPack(&abis.MorphoBlue, "supplyCollateral", e.params, r.amount, r.from, []byte{})
	}
	return s
}

// variableRate is Aave's interest rate mode 2, the only one v3.1 and later keep.
var variableRate = big.NewInt(2)

func (e *marketEntry) borrowStep(r *borrowRequest) step {
	s := step{Type: "BORROW", Title: fmt.Sprintf("Borrow %s from %s", r.token.Symbol, e.cfg.ID), To: e.contract, DefaultGas: borrowStepGas}
	if e.aave() {
		s.Data = mustPack(&abis.AaveV3Borrowing, "borrow", e.loan, r.amount, variableRate, uint16(0), r.from)
	} else {
		s.Data = mustPack(&abis.MorphoBlue, "borrow", e.params, r.amount, new(big.Int), r.from, r.from)
	}
	return s
}

// repayStep repays the amount, or everything: type(uint256).max on Aave, the borrow shares on Morpho (so no dust of
// interest remains).
func (e *marketEntry) repayStep(r *borrowRequest, a *account) step {
	s := step{Type: "REPAY", Title: fmt.Sprintf("Repay %s to %s", r.token.Symbol, e.cfg.ID), To: e.contract, DefaultGas: borrowStepGas}
	switch {
	case e.aave() && r.all:
		s.Data = mustPack(&abis.AaveV3Borrowing, "repay", e.loan, maxUint, variableRate, r.from)
	case e.aave():
		s.Data = mustPack(&abis.AaveV3Borrowing, "repay", e.loan, r.amount, variableRate, r.from)
	case r.all:
		s.Data = mustPack(&abis.MorphoBlue, "repay", e.params, new(big.Int), a.morphoBorrowShares, r.from, []byte{})
	default:
		s.Data = mustPack(&abis.MorphoBlue, "repay", e.params, r.amount, new(big.Int), r.from, []byte{})
	}
	return s
}

func (e *marketEntry) withdrawStep(r *borrowRequest, amount *big.Int) step {
	s := step{Type: "WITHDRAW", Title: fmt.Sprintf("Withdraw %s from %s", r.token.Symbol, e.cfg.ID), To: e.contract, DefaultGas: borrowStepGas}
	switch {
	case e.aave() && r.all:
		s.Data = mustPack(&abis.AaveV3Borrowing, "withdraw", r.asset, maxUint, r.from)
	case e.aave():
		s.Data = mustPack(&abis.AaveV3Borrowing, "withdraw", r.asset, amount, r.from)
	default:
		s.Data = mustPack(&abis.MorphoBlue, "withdrawCollateral", e.params, amount, r.from, r.from)
	}
	return s
}
