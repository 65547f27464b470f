package coordinator

import (
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/policy"
	"github.com/sigil/sigil/internal/send"
	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/swap"
)

// The execution of a quote: EXECUTE_SWAP_V2 (what @turnkey/sdk-server's executeSwap sends) and EXECUTE_SWAP_V3 (with
// the destination address). The intent restates what the quote committed to, and must say what was quoted; the
// quote must not have expired nor been executed. Its calls are sent as ETH_SEND_TRANSACTION_V2 sends them.
var (
	executeSwapV2 = executeActivity(api.ExecuteSwapV2, executeFacts, func(p *api.ExecuteSwapIntentV2) executeParams {
		return executeParams{p.QuoteID, p.InputToken, p.InputAmount, p.OutputToken, p.QuotedOutputAmount, p.MinOutputAmount, p.Sponsor,
			p.EvmNonce, p.RecentBlockhash, p.GasStationNonce, ""}
	})
	executeSwapV3 = executeActivity(api.ExecuteSwapV3, withDestination(executeFacts), func(p *api.ExecuteSwapIntentV3) executeParams {
		return executeParams{p.QuoteID, p.InputToken, p.InputAmount, p.OutputToken, p.QuotedOutputAmount, p.MinOutputAmount, p.Sponsor,
			p.EvmNonce, p.RecentBlockhash, p.GasStationNonce, p.DestinationAddress}
	})
)

// executeParams are an execution's parameters, V2's and V3's alike (V2 has no destination).
type executeParams struct {
	QuoteID, InputToken, InputAmount, OutputToken, QuotedOutputAmount, MinOutputAmount string
	Sponsor                                                                            bool
	EvmNonce, RecentBlockhash, GasStationNonce, DestinationAddress                     string
}

// executeWork is an execution as its steps see it: the restated quote (Check), the stored quote it names with the
// swap's id and calls (Fetch), the send that carries them (Prepare).
type executeWork struct {
	quoteID                 string
	in, out                 swap.Asset
	amount, quoted, minimum *big.Int
	destination             common.Address
	sponsor                 bool
	nonce, stationNonce     *uint64

	quote   *swap.Quote
	balance *big.Int // what the payer held of the input when the chain was read
	swapID  string
	calls   []swap.Call
	send    *sendJob

	fetched  bool  // fetchQuote ran (ahead of the transaction, or in it)
	fetchErr error // and failed so
}

// fetch reads the quote once: ahead of the transaction, or in it when nothing ran ahead (an activity executed by
// votes, a dry run).
func (w *executeWork) fetch(x *execution) error {
	if !w.fetched {
		w.fetched, w.fetchErr = true, x.fetchQuote(w)
	}
	return w.fetchErr
}

var executeFacts = on(resPrivateKey, actSign, policy.ParamQuoteID, policy.ParamInputToken, policy.ParamInputAmount, policy.ParamOutputToken,
	policy.ParamQuotedOutputAmount, policy.ParamMinOutputAmount, policy.ParamSponsor)

func executeActivity[P any](wire api.ActivityOf[P, api.ExecuteSwapResult], f facts, params func(*P) executeParams) *Activity[P, *executeWork, *executeWork, api.ExecuteSwapResult] {
	return &Activity[P, *executeWork, *executeWork, api.ExecuteSwapResult]{
		activityInfo: newInfo(wire.ActivitySpec, f),
		Check:        func(p *P) (*executeWork, error) { return checkExecute(params(p)) },
		Ahead:        func(x *execution, _ *P, w *executeWork) *executeWork { w.fetch(x); return w },
		Prepare: func(x *execution, _ *P, w *executeWork, d *decisionRequest) (*executeWork, error) {
			return w, x.prepareSwap(w, d)
		},
		Execute: func(x *execution, _ *P, w *executeWork) (*api.ExecuteSwapResult, error) { return x.recordSwap(w) },
	}
}

func checkExecute(p executeParams) (*executeWork, error) {
	if err := checkID("parameters.quoteId", p.QuoteID); err != nil {
		return nil, err
	}
	w := &executeWork{quoteID: p.QuoteID, sponsor: p.Sponsor}
	var err error
	if w.in, err = parseSwapAsset("parameters.inputToken", p.InputToken); err != nil {
		return nil, err
	}
	if w.out, err = parseSwapAsset("parameters.outputToken", p.OutputToken); err != nil {
		return nil, err
	}
	if w.amount, err = positiveAmount("parameters.inputAmount", p.InputAmount); err != nil {
		return nil, err
	}
	if w.quoted, err = positiveAmount("parameters.quotedOutputAmount", p.QuotedOutputAmount); err != nil {
		return nil, err
	}
	if w.minimum, err = positiveAmount("parameters.minOutputAmount", p.MinOutputAmount); err != nil {
		return nil, err
	}
	if p.DestinationAddress != "" {
		if w.destination, err = evmAddress("parameters.destinationAddress", p.DestinationAddress); err != nil {
			return nil, err
		}
	}
	if p.RecentBlockhash != "" {
		return nil, apierr.Invalid("parameters.recentBlockhash applies to Solana swaps; Sigil swaps on EVM networks")
	}
	if w.nonce, err = optionalUint("parameters.evmNonce", p.EvmNonce); err != nil {
		return nil, err
	}
	if w.sponsor && w.nonce != nil {
		return nil, apierr.Invalid("parameters.evmNonce: a sponsored swap's transaction is the gas sponsor's, numbered by this server; leave it out")
	}
	if w.stationNonce, err = optionalUint("parameters.gasStationNonce", p.GasStationNonce); err != nil {
		return nil, err
	}
	return w, nil
}

// fetchQuote reads the quote the execution names and checks that it is the one restated, unexpired and unexecuted;
// reads what the payer holds of the input (held to it once the swap is allowed) and builds the swap's calls.
func (x *execution) fetchQuote(w *executeWork) error {
	venues, err := x.c.venues()
	if err != nil {
		return err
	}
	row, err := x.c.store.SwapQuoteOf(x.ctx, x.org.ID, w.quoteID)
	if errors.Is(err, store.ErrNotFound) {
		return apierr.NotFoundf("parameters.quoteId: no swap quote %s in organization %s", w.quoteID, x.org.ID)
	}
	if err != nil {
		return err
	}
	if w.quote, err = decodeQuote(row.Quote); err != nil {
		return err
	}
	if err := w.matches(w.quote); err != nil {
		return err
	}
	if row.SwapID != "" {
		return apierr.New(apierr.FailedPrecondition, "REQUEST_INVALID", "parameters.quoteId: quote %s was executed already (swap %s); ask for a new quote", w.quoteID, row.SwapID)
	}
	if expires := time.UnixMilli(row.ExpiresAt); x.now.After(expires) {
		return apierr.New(apierr.FailedPrecondition, "REQUEST_INVALID", "parameters.quoteId: quote %s expired at %s; ask for a new quote",
			w.quoteID, expires.UTC().Format(time.RFC3339Nano))
	}
	ctx, cancel := context.WithTimeout(x.ctx, swapRPCTimeout)
	defer cancel()
	if w.balance, err = venues.Balance(ctx, w.quote.In, w.quote.From); err != nil {
		return swapError(err)
	}
	w.swapID = newID()
	w.calls, err = venues.Calls(w.quote, swapRef(w.swapID))
	return err
}

// matches checks that the intent restates the quote: an altered quote is refused.
func (w *executeWork) matches(q *swap.Quote) error {
	for _, f := range []struct {
		field     string
		got, want string
	}{
		{"inputToken", w.in.String(), q.In.String()},
		{"outputToken", w.out.String(), q.Out.String()},
		{"inputAmount", w.amount.String(), q.AmountIn.String()},
		{"quotedOutputAmount", w.quoted.String(), q.AmountOut.String()},
		{"minOutputAmount", w.minimum.String(), q.MinOut.String()},
	} {
		if f.got != f.want {
			return apierr.Invalid("parameters.%s: %s is not what quote %s committed to (%s); a quote executes as it was quoted", f.field, f.got, w.quoteID, f.want)
		}
	}
	if w.destination != (common.Address{}) && w.destination != q.Recipient {
		return apierr.Invalid("parameters.destinationAddress: %s is not where quote %s sends the output (%s); a quote executes as it was quoted",
			w.destination.Hex(), w.quoteID, q.Recipient.Hex())
	}
	return nil
}

// prepareSwap resolves the payer and the network and gives the policy engine each call of the swap as the eth.tx of
// the transaction that carries it, as ETH_SEND_TRANSACTION_V2 does: what policies read, and the input the velocity
// controls count, are what is sent.
func (x *execution) prepareSwap(w *executeWork, d *decisionRequest) error {
	if err := w.fetch(x); err != nil {
		return err
	}
	nw, err := x.c.network(w.quote.In.CAIP2)
	if err != nil {
		return err
	}
	s, err := x.swapSigner(w.quote.From)
	if err != nil {
		return err
	}
	req := &send.Request{Sponsor: w.sponsor, Nonce: w.nonce, GasStationNonce: w.stationNonce}
	for _, c := range w.calls {
		call := send.Call{To: c.To, Data: c.Data}
		if c.Value != nil {
			call.Value = (*hexutil.Big)(c.Value)
		}
		req.Calls = append(req.Calls, call)
	}
	for i, call := range req.Calls {
		facts, err := x.callFacts(s, nw, req, call, d)
		if err != nil {
			return err
		}
		if i == 0 {
			d.facts = facts
		} else {
			d.moreFacts = append(d.moreFacts, facts)
		}
	}
	d.walletID = s.groupID()
	w.send = &sendJob{signer: s, from: lowerHex(w.quote.From), network: nw, req: req}
	if req.Sponsor {
		if w.send.sponsorOrg, err = x.sponsoringOrg(); err != nil {
			return err
		}
	}
	return nil
}

// recordSwap records the swap's send for the worker and the swap beside it, in the activity's transaction.
func (x *execution) recordSwap(w *executeWork) (*api.ExecuteSwapResult, error) {
	if err := holds(w.quote, w.balance); err != nil {
		return nil, err
	}
	if err := checkSendable(w.send); err != nil {
		return nil, err
	}
	sendID, err := x.recordSend(w.send)
	if err != nil {
		return nil, err
	}
	err = x.tx.InsertSwap(x.ctx, store.Swap{OrgID: x.org.ID, ID: w.swapID, QuoteID: w.quoteID, ActivityID: x.activityID, SendID: sendID,
		Status: api.SwapPending, CreatedAt: x.now.UnixMilli(), UpdatedAt: x.now.UnixMilli()})
	if errors.Is(err, store.ErrQuoteExecuted) {
		return nil, apierr.New(apierr.FailedPrecondition, "REQUEST_INVALID", "parameters.quoteId: quote %s was executed already; ask for a new quote", w.quoteID)
	}
	if err != nil {
		return nil, err
	}
	return &api.ExecuteSwapResult{SwapRequestID: w.swapID, Provider: swapProvider(w.quote), QuoteID: w.quoteID, SendTransactionStatusID: sendID}, nil
}

// checkSendable refuses a send its network cannot carry: sponsored without a gas station, several calls without a
// batch delegate.
func checkSendable(j *sendJob) error {
	if j.req.Sponsor && (j.network.GasStation == (common.Address{}) || j.network.BatchDelegate == (common.Address{})) {
		return apierr.New(apierr.FailedPrecondition, "SPONSORSHIP_NOT_SUPPORTED",
			"parameters.sponsor: %s has no gas station configured; send with sponsor false", j.network.CAIP2)
	}
	if len(j.req.Calls) > 1 && j.network.BatchDelegate == (common.Address{}) {
		return apierr.New(apierr.FailedPrecondition, "BATCH_NOT_SUPPORTED",
			"the swap's calls run as one EIP-7702 batch, and %s has no batch delegate configured", j.network.CAIP2)
	}
	return nil
}

// swapRef names a swap on-chain (SwapFeeRouter's Swapped, SigilBridge's Locked and Released).
func swapRef(swapID string) [32]byte { return crypto.Keccak256Hash([]byte(swapID)) }

func decodeQuote(data []byte) (*swap.Quote, error) {
	var q swap.Quote
	if err := json.Unmarshal(data, &q); err != nil {
		return nil, err
	}
	return &q, nil
}

func lowerHex(a common.Address) string { return "0x" + common.Bytes2Hex(a.Bytes()) }
