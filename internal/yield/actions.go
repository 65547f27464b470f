package yield

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/google/uuid"

	"github.com/sigil/sigil/internal/edge"
	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/units"
)

// actionBody is the body of POST /v1/actions/enter, /exit and /manage, decoded strictly: an unknown field is refused,
// and so is a missing yieldId or address.
type actionBody struct {
	YieldID     string          `json:"yieldId"`
	Address     string          `json:"address"`
	Arguments   json.RawMessage `json:"arguments,omitempty"`
	Action      string          `json:"action,omitempty"`      // manage only
	Passthrough string          `json:"passthrough,omitempty"` // manage only
}

// actionArguments are the arguments an action takes (mechanics.arguments of the yield), decoded strictly; the
// arguments as sent are kept as the action's rawArguments.
type actionArguments struct {
	Amount          json.RawMessage `json:"amount,omitempty"`
	UseMaxAmount    bool            `json:"useMaxAmount,omitempty"`
	UseMaxAllowance bool            `json:"useMaxAllowance,omitempty"`
	ReceiverAddress string          `json:"receiverAddress,omitempty"`
	// A provider-staking yield has one validator, its provider: these may name it, and nothing else.
	ValidatorAddress   string   `json:"validatorAddress,omitempty"`
	ValidatorAddresses []string `json:"validatorAddresses,omitempty"`
}

// Stored bodies of actions and transactions: what never changes after the action is built.
type actionRecord struct {
	Network      string         `json:"network"`
	AmountRaw    string         `json:"amountRaw"`
	Decimals     uint8          `json:"decimals"`
	RawArguments map[string]any `json:"rawArguments"`
	Borrow       *borrowRecord  `json:"borrow,omitempty"` // actions of the Borrow API
}

type txRecord struct {
	Title       string `json:"title"`
	Network     string `json:"network"`
	Type        string `json:"type"`
	Unsigned    string `json:"unsignedTransaction"`
	GasEstimate string `json:"gasEstimate"`
	From        string `json:"from"`
	To          string `json:"to"`
	Data        string `json:"data"`
	Value       string `json:"value"`
	CreatedAt   int64  `json:"createdAt"`
}

// Transaction and action statuses of the reference that this service uses.
const (
	txCreated     = "CREATED"
	txBroadcasted = "BROADCASTED"
	txConfirmed   = "CONFIRMED"
	txFailed      = "FAILED"
	txSkipped     = "SKIPPED"

	actionCreated        = "CREATED"
	actionWaitingForNext = "WAITING_FOR_NEXT"
	actionProcessing     = "PROCESSING"
	actionSuccess        = "SUCCESS"
	actionFailed         = "FAILED"
)

// txContext is what every action reads besides the builder's own reads: the nonce, fees and ether balance.
type txContext struct {
	nonce   hexutil.Uint64
	head    *head
	tip     hexutil.Big
	balance *big.Int
}

func (b *batch) txContext(from common.Address) *txContext {
	tc := &txContext{}
	b.add(&tc.nonce, "eth_getTransactionCount", from, "pending")
	tc.head = b.head()
	b.add(&tc.tip, "eth_maxPriorityFeePerGas")
	tc.balance = b.balance(from)
	return tc
}

// createAction validates an enter, exit or manage request, builds and simulates its transactions and stores it.
func (s *Service) createAction(ctx context.Context, k *keyInfo, intent string, body actionBody) (actionDTO, error) {
	r, raw, err := s.parseAction(k, intent, body)
	if err != nil {
		return actionDTO{}, err
	}
	y := r.y
	b := y.client.newBatch()
	tc := b.txContext(r.from)
	r.head = tc.head
	var provider *[]any
	if len(r.validators) > 0 {
		provider = b.read(y.staking, &providerStakingABI, "provider")
	}
	var p plan
	switch intent {
	case "enter":
		p = y.builder.enter(r, b)
	case "exit":
		p = y.builder.exit(r, b)
	default:
		p = y.builder.manage(r, b)
	}
	if err := b.run(ctx); err != nil {
		return actionDTO{}, err
	}
	if provider != nil {
		who, _ := (*provider)[0].(common.Address)
		if err := checkValidators(r, who); err != nil {
			return actionDTO{}, err
		}
	}
	out, err := p()
	if err != nil {
		return actionDTO{}, err
	}
	gas, err := y.client.simulate(ctx, r.from, out.steps)
	if err != nil {
		return actionDTO{}, err
	}
	if tc.head.BaseFee == nil {
		return actionDTO{}, fmt.Errorf("network %s has no base fee (pre-London): dynamic-fee transactions cannot be built", y.network.ID)
	}
	tip := tc.tip.ToInt()
	maxFee := new(big.Int).Add(new(big.Int).Mul(tc.head.BaseFee.ToInt(), big.NewInt(2)), tip)
	if err := checkGasCovered(y.network, out.steps, gas, maxFee, tc.balance); err != nil {
		return actionDTO{}, err
	}
	return s.storeAction(ctx, k, r, intent, raw, out, gas, uint64(tc.nonce), maxFee, tip)
}

// parseAction validates the request fields; every error names the field at fault.
func (s *Service) parseAction(k *keyInfo, intent string, body actionBody) (*request, map[string]any, error) {
	if body.YieldID == "" {
		return nil, nil, fieldError("yieldId", "is required")
	}
	y := s.visibleYield(body.YieldID, k)
	if y == nil {
		return nil, nil, fieldError("yieldId", "unknown yield %q; GET /v1/yields lists the yields of this API key", truncate(body.YieldID, 200))
	}
	st := y.cfg.status()
	if intent == "enter" && !st.Enter {
		return nil, nil, fieldError("yieldId", "%s is not open for new deposits (status.enter is false)", y.cfg.ID)
	}
	if intent == "exit" && !st.Exit {
		return nil, nil, fieldError("yieldId", "%s does not allow exits now (status.exit is false)", y.cfg.ID)
	}
	from, err := parseAddress("address", body.Address)
	if err != nil {
		return nil, nil, err
	}
	var args actionArguments
	raw := map[string]any{}
	if len(bytes.TrimSpace(body.Arguments)) > 0 && string(bytes.TrimSpace(body.Arguments)) != "null" {
		if err := edge.Unmarshal(body.Arguments, &args, "arguments"); err != nil {
			return nil, nil, err
		}
		_ = json.Unmarshal(body.Arguments, &raw)
	}
	r := &request{y: y, from: from, receiver: from, maxAllowance: args.UseMaxAllowance}
	if args.ReceiverAddress != "" {
		if r.receiver, err = parseAddress("arguments.receiverAddress", args.ReceiverAddress); err != nil {
			return nil, nil, err
		}
	}
	if r.validators, err = parseValidatorArgs(y, args); err != nil {
		return nil, nil, err
	}
	switch intent {
	case "manage":
		return r, raw, s.parseManage(r, body)
	case "exit":
		if args.UseMaxAmount {
			r.useMax = true
			return r, raw, nil
		}
	}
	if args.UseMaxAmount {
		return nil, nil, fieldError("arguments.useMaxAmount", "only applies to an exit")
	}
	if r.amount, err = parseAmountJSON(args.Amount, y.cfg.Token); err != nil {
		return nil, nil, err
	}
	if intent == "enter" {
		if err := checkEntryLimits(r); err != nil {
			return nil, nil, err
		}
	}
	return r, raw, nil
}

// validatorArg is a validator address an action names, with the argument that names it.
type validatorArg struct{ field, address string }

// parseValidatorArgs collects validatorAddress and validatorAddresses. Only a provider-staking yield has a validator
// (see validators.go); whether they name it is checked against the contract once the action's batch has run.
func parseValidatorArgs(y *yieldEntry, args actionArguments) ([]validatorArg, error) {
	var out []validatorArg
	if args.ValidatorAddress != "" {
		out = append(out, validatorArg{"arguments.validatorAddress", args.ValidatorAddress})
	}
	for i, a := range args.ValidatorAddresses {
		out = append(out, validatorArg{fmt.Sprintf("arguments.validatorAddresses[%d]", i), a})
	}
	if len(out) == 0 {
		return nil, nil
	}
	if y.cfg.Kind != KindProviderStaking {
		return nil, fieldError(out[0].field, "%s takes no validator: only provider-staking yields have one, "+
			"and GET /v1/yields/%s/validators lists none", y.cfg.ID, y.cfg.ID)
	}
	for _, v := range out {
		if !strings.HasPrefix(v.address, "0x") || !common.IsHexAddress(v.address) {
			return nil, fieldError(v.field, "must be a 0x-prefixed 20-byte hex address, got %q", truncate(v.address, 50))
		}
	}
	return out, nil
}

// checkValidators requires every validator the action names to be the yield's one validator, its provider (compared
// case-insensitively).
func checkValidators(r *request, provider common.Address) error {
	for _, v := range r.validators {
		if !strings.EqualFold(v.address, provider.Hex()) {
			return fieldError(v.field, "%s is not a validator of %s; its only validator is the provider %s "+
				"(GET /v1/yields/%s/validators)", v.address, r.y.cfg.ID, provider.Hex(), r.y.cfg.ID)
		}
	}
	return nil
}

func parseAmountJSON(raw json.RawMessage, t Token) (*big.Int, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, fieldError("arguments.amount", "is required: a decimal amount of %s such as \"1.5\"", t.Symbol)
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fieldError("arguments.amount", "must be a string such as \"1.5\" (amounts are exact decimal strings), got %s", truncate(string(raw), 40))
	}
	return parseAmount("arguments.amount", s, t.Decimals, t.Symbol)
}

func checkEntryLimits(r *request) error {
	l, t := r.y.cfg.EntryLimits, r.y.cfg.Token
	if l == nil {
		return nil
	}
	if l.Minimum != "" {
		minimum, _ := parseAmount("entryLimits.minimum", l.Minimum, t.Decimals, t.Symbol)
		if r.amount.Cmp(minimum) < 0 {
			return fieldError("arguments.amount", "is below the minimum of %s %s", l.Minimum, t.Symbol)
		}
	}
	if l.Maximum != "" {
		maximum, _ := parseAmount("entryLimits.maximum", l.Maximum, t.Decimals, t.Symbol)
		if r.amount.Cmp(maximum) > 0 {
			return fieldError("arguments.amount", "is above the maximum of %s %s", l.Maximum, t.Symbol)
		}
	}
	return nil
}

func (s *Service) parseManage(r *request, body actionBody) error {
	if body.Action == "" {
		return fieldError("action", "is required: the type of a pending action, e.g. WITHDRAW or CLAIM_REWARDS")
	}
	if body.Passthrough == "" {
		return fieldError("passthrough", "is required: copy it from the balance's pendingActions")
	}
	p, err := decodePassthrough(body.Passthrough)
	if err != nil {
		return err
	}
	if p.YieldID != r.y.cfg.ID || p.Address != strings.ToLower(r.from.Hex()) || p.Action != body.Action {
		return fieldError("passthrough", "was issued for another yield, address or action")
	}
	r.manageAction = body.Action
	return nil
}

// checkGasCovered refuses an action the wallet cannot pay for: a node rejects a transaction whose value plus gas limit
// times fee cap exceeds the sender's balance, so handing it out would only fail later.
func checkGasCovered(n *Network, steps []step, gas []uint64, maxFee, balance *big.Int) error {
	need := new(big.Int)
	for i, st := range steps {
		need.Add(need, st.value())
		need.Add(need, new(big.Int).Mul(new(big.Int).SetUint64(gas[i]), maxFee))
	}
	if need.Cmp(balance) <= 0 {
		return nil
	}
	native := n.NativeToken
	f := func(v *big.Int) string { return units.Format(v, native.Decimals) + " " + native.Symbol }
	return fieldError("address", "holds %s, which does not cover the action's value and gas of up to %s "+
		"(%d transactions, gas limit × maxFeePerGas each): %s short", f(balance), f(need), len(steps),
		f(new(big.Int).Sub(need, balance)))
}

func actionType(intent, manageAction string) string {
	switch intent {
	case "enter":
		return "STAKE"
	case "exit":
		return "UNSTAKE"
	}
	return manageAction
}

func (s *Service) storeAction(ctx context.Context, k *keyInfo, r *request, intent string, raw map[string]any, out built,
	gas []uint64, nonce uint64, maxFee, tip *big.Int) (actionDTO, error) {
	y := r.y
	now := s.nowMillis()
	rec := actionRecord{Network: y.network.ID, AmountRaw: out.amount.String(), Decimals: y.cfg.Token.Decimals, RawArguments: raw}
	recJSON, _ := json.Marshal(rec)
	row := store.YieldAction{ID: uuid.NewString(), Project: k.project, Address: strings.ToLower(r.from.Hex()), YieldID: y.cfg.ID,
		Intent: intent, Type: actionType(intent, r.manageAction), Status: actionCreated, Body: recJSON, CreatedAt: now}
	return s.insertAction(ctx, row, y.network, r.from, out.steps, gas, nonce, maxFee, tip)
}

// insertAction stores an action with its transactions, numbered from nonce in signing order, and renders it.
func (s *Service) insertAction(ctx context.Context, row store.YieldAction, n *Network, from common.Address, steps []step,
	gas []uint64, nonce uint64, maxFee, tip *big.Int) (actionDTO, error) {
	now := row.CreatedAt
	txs := make([]store.YieldTransaction, len(steps))
	native := n.NativeToken.dto(n.ID)
	for i, st := range steps {
		unsigned, _ := json.Marshal(unsignedTxDTO{
			From: from.Hex(), To: st.To.Hex(), Data: hexutil.Encode(st.Data), Value: hexutil.EncodeBig(st.value()),
			GasLimit: hexutil.EncodeUint64(gas[i]), Nonce: nonce + uint64(i), ChainID: n.ChainID,
			MaxFeePerGas: hexutil.EncodeBig(maxFee), MaxPriorityFeePerGas: hexutil.EncodeBig(tip), Type: 2,
		})
		estimate, _ := json.Marshal(gasEstimateDTO{
			Amount:   units.Format(new(big.Int).Mul(new(big.Int).SetUint64(gas[i]), maxFee), n.NativeToken.Decimals),
			GasLimit: fmt.Sprint(gas[i]), Token: native,
		})
		body, _ := json.Marshal(txRecord{Title: st.Title, Network: n.ID, Type: st.Type, Unsigned: string(unsigned),
			GasEstimate: string(estimate), From: from.Hex(), To: st.To.Hex(), Data: hexutil.Encode(st.Data),
			Value: hexutil.EncodeBig(st.value()), CreatedAt: now})
		txs[i] = store.YieldTransaction{ID: uuid.NewString(), ActionID: row.ID, StepIndex: i, Status: txCreated, Body: body, UpdatedAt: now}
	}
	if err := s.store.Write(ctx, func(tx *store.Tx) error { return tx.InsertYieldAction(ctx, row, txs) }); err != nil {
		return actionDTO{}, err
	}
	return s.renderAction(row, txs), nil
}

func isoMillis(ms int64) string { return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z") }

func optionalISO(ms int64) *string {
	if ms == 0 {
		return nil
	}
	s := isoMillis(ms)
	return &s
}

func (s *Service) renderAction(a store.YieldAction, txs []store.YieldTransaction) actionDTO {
	var rec actionRecord
	_ = json.Unmarshal(a.Body, &rec)
	d := actionDTO{ID: a.ID, Intent: a.Intent, Type: a.Type, YieldID: a.YieldID, Address: a.Address,
		Transactions: make([]transactionDTO, 0, len(txs)), ExecutionPattern: "synchronous", RawArguments: rec.RawArguments,
		CreatedAt: isoMillis(a.CreatedAt), CompletedAt: optionalISO(a.CompletedAt), Status: a.Status}
	if amount, ok := new(big.Int).SetString(rec.AmountRaw, 10); ok {
		human := units.Format(amount, rec.Decimals)
		d.Amount, d.AmountRaw = &human, &rec.AmountRaw
	}
	if d.RawArguments == nil {
		d.RawArguments = map[string]any{}
	}
	if b := rec.Borrow; b != nil {
		d.IntegrationID, d.MarketID, d.Metadata = &b.IntegrationID, &b.MarketID, &b.Metadata
	}
	for _, t := range txs {
		d.Transactions = append(d.Transactions, s.renderTransaction(t))
	}
	return d
}

func (s *Service) renderTransaction(t store.YieldTransaction) transactionDTO {
	var rec txRecord
	_ = json.Unmarshal(t.Body, &rec)
	d := transactionDTO{ID: t.ID, Title: rec.Title, Network: rec.Network, Status: t.Status, Type: rec.Type,
		CreatedAt: isoMillis(rec.CreatedAt), BroadcastedAt: optionalISO(t.BroadcastedAt), UnsignedTransaction: rec.Unsigned,
		StepIndex: t.StepIndex, Description: rec.Title, GasEstimate: rec.GasEstimate}
	if t.Hash != "" {
		h := t.Hash
		d.Hash = &h
		if n := s.networks[rec.Network]; n != nil && n.ExplorerURL != "" {
			u := strings.TrimRight(n.ExplorerURL, "/") + "/tx/" + h
			d.ExplorerURL = &u
		}
	}
	if t.Error != "" {
		e := t.Error
		d.Error = &e
	}
	return d
}
