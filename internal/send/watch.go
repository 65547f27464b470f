package send

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/internal/evm"
	"github.com/sigil/sigil/internal/store"
)

// watch follows a signed send: INCLUDED or FAILED (reverted) once its receipt is in a block, FAILED when another
// transaction took its nonce (replaced), and broadcast again, the same signed bytes, while the node does not hold it
// (not yet sent, or dropped): a nonce the coordinator gave is never left as a gap. It reads the chain first and claims
// the send only to write a change: a send waiting for its block costs no write.
func (w *Worker) watch(ctx context.Context, cl *chainClient, s store.Send) error {
	change := w.changer(ctx, s)
	raw, err := hexutil.Decode(s.RawTx)
	if err != nil {
		return change(func() error {
			return w.fail(ctx, s, &api.TxError{Message: "the stored transaction does not decode: " + err.Error()})
		})
	}
	tx := new(types.Transaction)
	if err := tx.UnmarshalBinary(raw); err != nil {
		return change(func() error {
			return w.fail(ctx, s, &api.TxError{Message: "the stored transaction does not decode: " + err.Error()})
		})
	}
	// The sender is the account, or for a sponsored send its organization's gas sponsor.
	from, err := types.Sender(types.LatestSignerForChainID(tx.ChainId()), tx)
	if err != nil {
		return change(func() error {
			return w.fail(ctx, s, &api.TxError{Message: "the stored transaction's sender: " + err.Error()})
		})
	}
	// The account's count first, then the receipt: a transaction included between the two reads is then found
	// included, never taken for replaced.
	mined, err := cl.NonceAt(ctx, from, nil)
	if err != nil {
		return change(func() error { return w.retryIn(ctx, s, fmt.Errorf("%w: %v", errNoAnswer, err)) })
	}
	receipt, err := cl.TransactionReceipt(ctx, tx.Hash())
	switch {
	case err == nil:
		return change(func() error { return w.included(ctx, cl, s, tx, receipt) })
	case !errors.Is(err, ethereum.NotFound):
		return change(func() error { return w.retryIn(ctx, s, fmt.Errorf("%w: %v", errNoAnswer, err)) })
	case mined > tx.Nonce():
		return change(func() error {
			return w.fail(ctx, s, &api.TxError{Message: fmt.Sprintf("replaced: another transaction of %s took nonce %d, so this one will never be included",
				strings.ToLower(from.Hex()), tx.Nonce())})
		})
	}
	if _, _, err := cl.TransactionByHash(ctx, tx.Hash()); err == nil {
		return nil // the node holds it: wait for a block
	}
	if err := cl.SendTransaction(ctx, tx); err != nil && !strings.Contains(err.Error(), "already known") {
		if !answered(err) {
			return change(func() error { return w.retryIn(ctx, s, fmt.Errorf("%w: %v", errNoAnswer, err)) })
		}
		if evm.PermanentRefusal(err.Error()) { // it never will take it: its nonce goes to a transaction it takes
			return change(func() error { return w.abandon(ctx, s, tx, from, err) })
		}
		// The node refused it for now (its fee below the base fee, funds short): it is sent again after a while, as
		// its nonce must not be left unused.
		return change(func() error { return w.retryIn(ctx, s, fmt.Errorf("the node refused the transaction: %v", err)) })
	}
	if len(s.Error) > 0 { // a refusal before this broadcast is over
		return change(func() error { s.Error, s.NextAt = nil, 0; return w.save(ctx, s, nil) })
	}
	return nil
}

// included ends a send whose receipt is in a block: INCLUDED, or FAILED with the revert reason, found by calling
// again at the block before.
func (w *Worker) included(ctx context.Context, cl *chainClient, s store.Send, tx *types.Transaction, r *types.Receipt) error {
	if s.SponsorOrg != "" && r.EffectiveGasPrice != nil {
		s.GasCostWei = new(big.Int).Mul(new(big.Int).SetUint64(r.GasUsed), r.EffectiveGasPrice).String()
	}
	if r.Status == types.ReceiptStatusSuccessful {
		s.Status, s.Error = store.SendIncluded, nil
		return w.save(ctx, s, nil)
	}
	to := common.Address{}
	if tx.To() != nil {
		to = *tx.To()
	}
	from, _ := types.Sender(types.LatestSignerForChainID(tx.ChainId()), tx) // decoded and checked by watch
	msg := ethereum.CallMsg{From: from, To: tx.To(), Gas: tx.Gas(), Value: tx.Value(), Data: tx.Data(), AuthorizationList: tx.SetCodeAuthorizations()}
	parent := new(big.Int).Sub(r.BlockNumber, big.NewInt(1))
	_, err := cl.CallContract(ctx, msg, parent)
	data, _ := revertData(err)
	// Mined, so its gas was paid: it fails at its cost, which stays counted against a sponsor's limit.
	s.Status = store.SendFailed
	s.Error = encodeError(revertFailure(fmt.Sprintf("the transaction reverted in block %s", r.BlockNumber),
		w.revertChain(ctx, cl, s.OrgID, msg, hexutil.EncodeBig(parent), to, data)))
	return w.save(ctx, s, nil)
}
