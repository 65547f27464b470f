package yield

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"slices"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/sigil/sigil/internal/store"
)

var hashPattern = regexp.MustCompile(`^0x[0-9a-fA-F]{64}$`)

// submitHash records the hash of a broadcast transaction; the receipt watcher takes it from there. A hash may be
// replaced while the transaction is not final (a sped-up or re-signed transaction).
func (s *Service) submitHash(ctx context.Context, k *keyInfo, txID, hash string) (transactionDTO, error) {
	if !hashPattern.MatchString(hash) {
		return transactionDTO{}, fieldError("hash", "%q is not a 0x-prefixed 32-byte transaction hash", truncate(hash, 80))
	}
	hash = strings.ToLower(hash)
	t, err := s.store.YieldTransaction(ctx, k.project, txID)
	if errors.Is(err, store.ErrNotFound) {
		return transactionDTO{}, notFoundError("Transaction %s not found", truncate(txID, 80))
	}
	if err != nil {
		return transactionDTO{}, err
	}
	var updated store.YieldTransaction
	var notify bool
	err = s.store.Write(ctx, func(tx *store.Tx) error {
		notify = false
		a, txs, err := tx.LockYieldAction(ctx, t.ActionID)
		if err != nil {
			return err
		}
		i := slices.IndexFunc(txs, func(x store.YieldTransaction) bool { return x.ID == txID })
		cur := txs[i]
		if cur.Status != txCreated && cur.Status != txBroadcasted {
			return fieldError("hash", "transaction %s is already %s", txID, cur.Status)
		}
		was := cur.Status
		now := s.nowMillis()
		cur.Status, cur.Hash, cur.Error, cur.UpdatedAt = txBroadcasted, hash, "", now
		if cur.BroadcastedAt == 0 {
			cur.BroadcastedAt = now
		}
		if err := tx.UpdateYieldTransaction(ctx, cur); err != nil {
			return err
		}
		txs[i], updated = cur, cur
		// A replaced hash is no change of status, and no event.
		if was != cur.Status {
			if notify, err = s.emitTransaction(ctx, tx, a.Project, cur); err != nil {
				return err
			}
		}
		settled, err := s.settleAction(ctx, tx, a, txs)
		notify = notify || settled
		return err
	})
	if err != nil {
		return transactionDTO{}, err
	}
	if notify {
		s.notifyWebhooks()
	}
	select {
	case s.wake <- struct{}{}:
	default:
	}
	return s.renderTransaction(updated), nil
}

// submitSigned broadcasts a signed transaction for a step and then tracks it as submitHash does. The transaction must be
// the one built for the step (sender, contract, calldata and value); the nonce and fees may differ.
func (s *Service) submitSigned(ctx context.Context, k *keyInfo, txID, signed string) (transactionDTO, error) {
	raw, err := hexutil.Decode(signed)
	if err != nil {
		return transactionDTO{}, fieldError("signedTransaction", "is not 0x-prefixed hex: %v", err)
	}
	var tx types.Transaction
	if err := tx.UnmarshalBinary(raw); err != nil {
		return transactionDTO{}, fieldError("signedTransaction", "is not a signed Ethereum transaction: %v", err)
	}
	t, err := s.store.YieldTransaction(ctx, k.project, txID)
	if errors.Is(err, store.ErrNotFound) {
		return transactionDTO{}, notFoundError("Transaction %s not found", truncate(txID, 80))
	}
	if err != nil {
		return transactionDTO{}, err
	}
	var rec txRecord
	_ = json.Unmarshal(t.Body, &rec)
	n, client := s.networks[rec.Network], s.clients[rec.Network]
	if n == nil || client == nil {
		return transactionDTO{}, fmt.Errorf("transaction %s is on network %q, which is not in the catalogue", t.ID, rec.Network)
	}
	from, err := types.LatestSignerForChainID(big.NewInt(n.ChainID)).Sender(&tx)
	if err != nil {
		return transactionDTO{}, fieldError("signedTransaction", "its signature does not recover a sender on chain %d: %v", n.ChainID, err)
	}
	if !rec.builtAs(from, tx.To(), tx.Data(), tx.Value()) {
		return transactionDTO{}, fieldError("signedTransaction", "is not the transaction built for this step (sender, contract, calldata or value differ)")
	}
	if err := client.rpc.CallContext(ctx, nil, "eth_sendRawTransaction", hexutil.Encode(raw)); err != nil {
		var re rpc.Error
		if errors.As(err, &re) {
			return transactionDTO{}, fieldError("signedTransaction", "the node refused it: %v", err)
		}
		return transactionDTO{}, &upstreamError{network: n.ID, err: err}
	}
	return s.submitHash(ctx, k, txID, tx.Hash().Hex())
}

// settleAction derives an action's status from its transactions: any failure fails it (and skips the steps not sent),
// all confirmed is success, a broadcast step is processing, confirmed steps followed by unsent ones wait for the next.
// Each change of status is an event, written with it; settleAction says whether it wrote any.
func (s *Service) settleAction(ctx context.Context, tx *store.Tx, a store.YieldAction, txs []store.YieldTransaction) (bool, error) {
	status, completed := actionCreated, int64(0)
	failed := slices.ContainsFunc(txs, func(t store.YieldTransaction) bool { return t.Status == txFailed })
	count := func(st string) int {
		n := 0
		for _, t := range txs {
			if t.Status == st {
				n++
			}
		}
		return n
	}
	now := s.nowMillis()
	wrote := false
	switch {
	case failed:
		status, completed = actionFailed, now
		for i := range txs {
			if txs[i].Status != txCreated {
				continue
			}
			txs[i].Status, txs[i].UpdatedAt = txSkipped, now
			if err := tx.UpdateYieldTransaction(ctx, txs[i]); err != nil {
				return false, err
			}
			emitted, err := s.emitTransaction(ctx, tx, a.Project, txs[i])
			if err != nil {
				return false, err
			}
			wrote = wrote || emitted
		}
	case count(txConfirmed) == len(txs):
		status, completed = actionSuccess, now
	case count(txBroadcasted) > 0:
		status = actionProcessing
	case count(txConfirmed) > 0:
		status = actionWaitingForNext
	}
	if status == a.Status {
		return wrote, nil
	}
	if err := tx.UpdateYieldActionStatus(ctx, a.ID, status, completed); err != nil {
		return false, err
	}
	a.Status, a.CompletedAt = status, completed
	emitted, err := s.emit(ctx, tx, a.Project, EventPositionStatusChanged, a.ID, s.renderAction(a, txs))
	return wrote || emitted, err
}

// emitTransaction writes the event of a transaction's new status, with the transaction as the API shows it.
func (s *Service) emitTransaction(ctx context.Context, tx *store.Tx, project string, t store.YieldTransaction) (bool, error) {
	return s.emit(ctx, tx, project, EventTransactionStatusChanged, t.ID, s.renderTransaction(t))
}

// receipt and onChainTx are the parts of eth_getTransactionReceipt and eth_getTransactionByHash the watcher reads.
type receipt struct {
	Status hexutil.Uint64 `json:"status"`
}

type onChainTx struct {
	From  common.Address  `json:"from"`
	To    *common.Address `json:"to"`
	Input hexutil.Bytes   `json:"input"`
	Value hexutil.Big     `json:"value"`
}

// builtAs reports whether a transaction is the one built for the step: the same sender, contract, calldata and value.
// Its nonce, gas and fees may differ (a re-signed or sped-up transaction). Both a signed transaction handed to /submit
// and a mined one found by the receipt watcher are checked with it.
func (rec txRecord) builtAs(from common.Address, to *common.Address, data []byte, value *big.Int) bool {
	toHex := ""
	if to != nil {
		toHex = to.Hex()
	}
	return from.Hex() == rec.From && toHex == rec.To && hexutil.Encode(data) == rec.Data && hexutil.EncodeBig(value) == rec.Value
}

// PollReceipts asks the chain about every broadcast transaction (one batch per network) and moves each to CONFIRMED
// or FAILED when it is mined, or to FAILED when it was never seen for DropAfter. A mined transaction that is not the
// one built for the step (another sender, contract, calldata or value) fails the step: the action did not happen.
func (s *Service) PollReceipts(ctx context.Context) error {
	pending, err := s.store.YieldTransactionsWithStatus(ctx, txBroadcasted, 500)
	if err != nil || len(pending) == 0 {
		return err
	}
	type check struct {
		t   store.YieldTransaction
		rec txRecord
		rcp *receipt
		otx *onChainTx
	}
	byNetwork := map[string][]*check{}
	for _, t := range pending {
		c := &check{t: t}
		_ = json.Unmarshal(t.Body, &c.rec)
		byNetwork[c.rec.Network] = append(byNetwork[c.rec.Network], c)
	}
	var errs []error
	for network, checks := range byNetwork {
		client := s.clients[network]
		if client == nil {
			continue
		}
		b := client.newBatch()
		for _, c := range checks {
			b.add(&c.rcp, "eth_getTransactionReceipt", c.t.Hash)
			b.add(&c.otx, "eth_getTransactionByHash", c.t.Hash)
		}
		if err := b.run(ctx); err != nil {
			errs = append(errs, err)
			continue
		}
		for i, c := range checks {
			if b.elems[2*i].Error != nil || b.elems[2*i+1].Error != nil {
				continue // asked again on the next poll
			}
			status, reason := s.outcome(c.t, c.rec, c.rcp, c.otx)
			if status == "" {
				continue
			}
			if err := s.finish(ctx, c.t, status, reason); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// outcome decides a broadcast transaction's new status from the chain; "" leaves it as it is.
func (s *Service) outcome(t store.YieldTransaction, rec txRecord, rcp *receipt, otx *onChainTx) (string, string) {
	if rcp == nil {
		if otx == nil && s.nowMillis()-t.BroadcastedAt > s.cfg.DropAfter.Milliseconds() {
			return txFailed, fmt.Sprintf("transaction %s was not found on chain %s after it was submitted", t.Hash, s.cfg.DropAfter)
		}
		return "", ""
	}
	if otx != nil && !rec.builtAs(otx.From, otx.To, otx.Input, otx.Value.ToInt()) {
		return txFailed, fmt.Sprintf("transaction %s is not the one built for this step (sender, contract, calldata or value differ)", t.Hash)
	}
	if rcp.Status != 1 {
		return txFailed, fmt.Sprintf("transaction %s reverted on chain", t.Hash)
	}
	return txConfirmed, ""
}

// finish moves a broadcast transaction to its final status, unless someone changed it meanwhile.
func (s *Service) finish(ctx context.Context, t store.YieldTransaction, status, reason string) error {
	var notify bool
	err := s.store.Write(ctx, func(tx *store.Tx) error {
		notify = false
		a, txs, err := tx.LockYieldAction(ctx, t.ActionID)
		if err != nil {
			return err
		}
		i := slices.IndexFunc(txs, func(x store.YieldTransaction) bool { return x.ID == t.ID })
		if i < 0 || txs[i].Status != txBroadcasted || txs[i].Hash != t.Hash {
			return nil
		}
		txs[i].Status, txs[i].Error, txs[i].UpdatedAt = status, reason, s.nowMillis()
		if err := tx.UpdateYieldTransaction(ctx, txs[i]); err != nil {
			return err
		}
		if notify, err = s.emitTransaction(ctx, tx, a.Project, txs[i]); err != nil {
			return err
		}
		settled, err := s.settleAction(ctx, tx, a, txs)
		notify = notify || settled
		return err
	})
	if err == nil && notify {
		s.notifyWebhooks()
	}
	return err
}

func (s *Service) getAction(ctx context.Context, k *keyInfo, id string) (actionDTO, error) {
	a, err := s.store.YieldAction(ctx, k.project, id)
	if errors.Is(err, store.ErrNotFound) {
		return actionDTO{}, notFoundError("Action %s not found", truncate(id, 80))
	}
	if err != nil {
		return actionDTO{}, err
	}
	txs, err := s.store.YieldTransactionsOf(ctx, a.ID)
	if err != nil {
		return actionDTO{}, err
	}
	return s.renderAction(a, txs[a.ID]), nil
}

func (s *Service) getTransaction(ctx context.Context, k *keyInfo, id string) (transactionDTO, error) {
	t, err := s.store.YieldTransaction(ctx, k.project, id)
	if errors.Is(err, store.ErrNotFound) {
		return transactionDTO{}, notFoundError("Transaction %s not found", truncate(id, 80))
	}
	if err != nil {
		return transactionDTO{}, err
	}
	return s.renderTransaction(t), nil
}

func (s *Service) listActions(ctx context.Context, q store.YieldActionQuery) (page[actionDTO], error) {
	rows, total, err := s.store.YieldActions(ctx, q)
	if err != nil {
		return page[actionDTO]{}, err
	}
	ids := make([]string, len(rows))
	for i, a := range rows {
		ids[i] = a.ID
	}
	txs, err := s.store.YieldTransactionsOf(ctx, ids...)
	if err != nil {
		return page[actionDTO]{}, err
	}
	p := page[actionDTO]{Items: make([]actionDTO, len(rows)), Total: total, Offset: q.Offset, Limit: q.Limit}
	for i, a := range rows {
		p.Items[i] = s.renderAction(a, txs[a.ID])
	}
	return p, nil
}
