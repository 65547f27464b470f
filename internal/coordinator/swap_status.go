package coordinator

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/ethereum/go-ethereum/common"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/send"
	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/swap"
)

// queryGetSwapStatus is a swap's state: PENDING while its send is on its way (and, across chains, until the bridge's
// relayer releases it on the destination chain), COMPLETED with what the recipient received, FAILED with why — the
// origin transaction's failure, or a cross-chain fill that delivered the bridged token instead (the refund). A final
// state is read from the chains once and kept with the swap.
func queryGetSwapStatus(r *reader, q *api.GetSwapStatusRequest) (*api.GetSwapStatusResponse, error) {
	if err := checkID("swapRequestId", q.SwapRequestID); err != nil {
		return nil, err
	}
	sw, quoteData, err := r.c.store.SwapByID(r.ctx, r.org.ID, q.SwapRequestID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, apierr.NotFoundf("no swap %s in organization %s", q.SwapRequestID, r.org.ID)
	}
	if err != nil {
		return nil, err
	}
	quote, err := decodeQuote(quoteData)
	if err != nil {
		return nil, err
	}
	out := &api.GetSwapStatusResponse{Status: api.SwapPending, SwapKind: quote.Kind, Provider: swapProvider(quote), InputToken: quote.In.String(),
		OutputToken: quote.Out.String(), InputAmount: quote.AmountIn.String(), DestinationAddress: quote.Recipient.Hex(), QuoteID: sw.QuoteID,
		SendTransactionStatusID: sw.SendID, UpdatedAt: strconv.FormatInt(sw.UpdatedAt, 10)}
	if len(sw.Outcome) > 0 {
		if err := json.Unmarshal(sw.Outcome, out); err != nil {
			return nil, err
		}
		return out, nil
	}
	snd, err := r.c.store.SendByID(r.ctx, r.org.ID, sw.SendID)
	if err != nil {
		return nil, err
	}
	out.OriginTxHash = snd.TxHash
	out.UpdatedAt = strconv.FormatInt(max(sw.UpdatedAt, snd.UpdatedAt/1e6), 10)
	switch snd.Status {
	case store.SendFailed:
		status := send.Status(snd)
		out.Status = api.SwapFailed
		out.Error = &api.SwapError{Reason: api.SwapOriginTransactionFailed, Message: "the swap's transaction failed", OriginTxError: status.Error}
		if status.Error != nil && status.Error.Message != "" {
			out.Error.Message += ": " + status.Error.Message
		}
	case store.SendIncluded:
		if err := r.c.readSwapOutcome(r.ctx, out, quote, sw, common.HexToHash(snd.TxHash)); err != nil {
			return nil, err
		}
	}
	if out.Status == api.SwapPending {
		return out, nil
	}
	now := r.c.now().UnixMilli()
	out.UpdatedAt = strconv.FormatInt(now, 10)
	outcome, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	sw.Status, sw.Outcome, sw.UpdatedAt = out.Status, outcome, now
	if err := r.c.store.FinishSwap(r.ctx, sw); err != nil {
		return nil, err
	}
	return out, nil
}

// readSwapOutcome reads what an included swap gave from its receipt and, across chains, from the destination chain's
// release, into out; out stays PENDING while the release has not happened.
func (c *Coordinator) readSwapOutcome(ctx context.Context, out *api.GetSwapStatusResponse, q *swap.Quote, sw store.Swap, tx common.Hash) error {
	venues, err := c.venues()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, swapRPCTimeout)
	defer cancel()
	executed, err := venues.Executed(ctx, q.In.CAIP2, tx, swapRef(sw.ID), q.Bridge())
	if err != nil {
		return swapError(err)
	}
	if !q.Bridge() {
		out.Status, out.OutputAmount = api.SwapCompleted, executed.AmountOut.String()
		return nil
	}
	released, err := venues.Released(ctx, q.Dest.CAIP2, executed.LockID, q.DestFromBlock)
	if err != nil || released == nil {
		return swapError(err)
	}
	if released.Refunded {
		out.Status = api.SwapFailed
		out.Error = &api.SwapError{Reason: api.SwapProviderFillFailed, Message: "the destination chain's swap could not give the quote's minimum output; the bridge delivered the bridged token instead",
			ProviderReason: "destination swap below its minimum output"}
		out.Refund = &api.SwapRefund{Asset: tokenAsset(q.Dest.CAIP2, released.Token), Amount: released.AmountOut.String(), TxHash: released.TxHash.Hex()}
		return nil
	}
	out.Status, out.OutputAmount, out.DestinationTxHashes = api.SwapCompleted, released.AmountOut.String(), []string{released.TxHash.Hex()}
	return nil
}
