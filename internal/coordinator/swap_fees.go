package coordinator

import (
	"context"
	"encoding/json"
	"math/big"
	"slices"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/send"
	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/swap"
)

// CLAIM_SWAP_FEES: the client fees SwapFeeRouter holds for the organization's fee receiver on one network, paid to it
// by a send from the fee receiver itself (a wallet account or private key of the organization; the router pays the
// receiver whoever calls it, so fees of a receiver outside the organization are claimed by calling the router from
// any account).
var claimSwapFees = &Activity[api.ClaimSwapFeesIntent, *claimWork, *claimWork, api.ClaimSwapFeesResult]{
	activityInfo: newInfo(api.ClaimSwapFees.ActivitySpec, on(resPrivateKey, actSign)),
	Check:        func(*api.ClaimSwapFeesIntent) (*claimWork, error) { return &claimWork{}, nil },
	Ahead:        func(x *execution, p *api.ClaimSwapFeesIntent, w *claimWork) *claimWork { w.fetch(x, p); return w },
	Prepare:      prepareClaim,
	Execute:      execClaim,
}

// claimWork is a claim as its execution needs it: the fee receiver, the network, what accrued there, and the send
// that pays it.
type claimWork struct {
	receiver common.Address
	caip2    string
	accrued  map[common.Address]*big.Int
	send     *sendJob

	fetched  bool  // fetchClaim ran (ahead of the transaction, or in it)
	fetchErr error // and failed so
}

// fetch reads what accrued once: ahead of the transaction, or in it when nothing ran ahead.
func (w *claimWork) fetch(x *execution, p *api.ClaimSwapFeesIntent) error {
	if !w.fetched {
		w.fetched, w.fetchErr = true, fetchClaim(x, p, w)
	}
	return w.fetchErr
}

// fetchClaim finds the network whose fees are claimed (the one named, or the first where fees accrued) and what
// accrued there.
func fetchClaim(x *execution, p *api.ClaimSwapFeesIntent, w *claimWork) error {
	venues, err := x.c.venues()
	if err != nil {
		return err
	}
	cfg, err := x.c.swapConfig(x.ctx, x.org.ID)
	if err != nil {
		return err
	}
	if cfg.FeeReceiver == "" {
		return apierr.New(apierr.FailedPrecondition, "REQUEST_INVALID", "the organization has no swap fee receiver (upsert_swap_config), so no swap fees")
	}
	w.receiver = common.HexToAddress(cfg.FeeReceiver)
	networks := venues.List()
	if p.Caip2 != "" {
		if !slices.Contains(networks, p.Caip2) {
			return apierr.Invalid("parameters.caip2: swaps run on %v; %q is not one of them", networks, p.Caip2)
		}
		networks = []string{p.Caip2}
	}
	ctx, cancel := context.WithTimeout(x.ctx, swapRPCTimeout)
	defer cancel()
	for _, caip2 := range networks {
		accrued, err := venues.Accrued(ctx, caip2, w.receiver)
		if err != nil {
			return swapError(err)
		}
		if len(accrued) > 0 {
			w.caip2, w.accrued = caip2, accrued
			return nil
		}
	}
	return apierr.New(apierr.FailedPrecondition, "REQUEST_INVALID", "no swap fees accrued to %s on %v: there is nothing to claim", w.receiver.Hex(), networks)
}

// prepareClaim resolves the fee receiver as the claim's sender and gives the policy engine the claim's call.
func prepareClaim(x *execution, p *api.ClaimSwapFeesIntent, w *claimWork, d *decisionRequest) (*claimWork, error) {
	if err := w.fetch(x, p); err != nil {
		return nil, err
	}
	venues, err := x.c.venues()
	if err != nil {
		return nil, err
	}
	s, err := x.signer(w.receiver.Hex())
	if err != nil {
		return nil, apierr.New(apierr.FailedPrecondition, "REQUEST_INVALID",
			"the fee receiver %s is no wallet account or private key of this organization, so it cannot send the claim; SwapFeeRouter.claim(%s, tokens) on %s pays it, from any account",
			w.receiver.Hex(), w.receiver.Hex(), w.caip2)
	}
	if _, err := s.ethereumAddress(); err != nil {
		return nil, err
	}
	nw, err := x.c.network(w.caip2)
	if err != nil {
		return nil, err
	}
	var tokens []common.Address
	for t := range w.accrued {
		tokens = append(tokens, t)
	}
	slices.SortFunc(tokens, func(a, b common.Address) int { return a.Cmp(b) })
	call, err := venues.ClaimCall(w.caip2, w.receiver, tokens)
	if err != nil {
		return nil, err
	}
	req := &send.Request{Calls: []send.Call{{To: call.To, Data: call.Data}}}
	if d.facts, err = x.callFacts(s, nw, req, req.Calls[0], d); err != nil {
		return nil, err
	}
	d.walletID = s.groupID()
	w.send = &sendJob{signer: s, from: lowerHex(w.receiver), network: nw, req: req}
	return w, nil
}

// execClaim records the claim's send, and the claim.
func execClaim(x *execution, _ *api.ClaimSwapFeesIntent, w *claimWork) (*api.ClaimSwapFeesResult, error) {
	sendID, err := x.recordSend(w.send)
	if err != nil {
		return nil, err
	}
	out := &api.ClaimSwapFeesResult{RequestID: newID(), Caip2: w.caip2, SendTransactionStatusID: sendID, Fees: []api.SwapFee{}}
	for token, amount := range w.accrued {
		out.Fees = append(out.Fees, api.SwapFee{Type: api.SwapFeeClient, Asset: swap.Asset{CAIP2: w.caip2, Token: token}.String(),
			Amount: amount.String(), Recipient: w.receiver.Hex()})
	}
	slices.SortFunc(out.Fees, func(a, b api.SwapFee) int { return strings.Compare(a.Asset, b.Asset) })
	claims, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	if err := x.tx.InsertSwapFeeClaim(x.ctx, store.SwapFeeClaim{OrgID: x.org.ID, ID: out.RequestID, ActivityID: x.activityID, Claims: claims,
		CreatedAt: x.now.UnixMilli()}); err != nil {
		return nil, err
	}
	return out, nil
}
