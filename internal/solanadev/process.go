package solanadev

import (
	"crypto/ed25519"
	"fmt"
	"slices"

	"github.com/sigil/sigil/internal/solana"
)

// Options are sendTransaction's and simulateTransaction's choices.
type Options struct {
	SkipPreflight bool // send without simulating first: a transaction the runtime refuses is dropped or fails on chain
	SigVerify     bool // simulate: verify the signatures
	// ReplaceBlockhash simulates with the latest blockhash instead of the transaction's.
	ReplaceBlockhash bool
}

// Result is what became of a transaction.
type Result struct {
	Signature string
	// Err is the runtime's refusal (nil: it succeeded). For a send, Committed says whether it is on the ledger
	// anyway (skipPreflight: a failed instruction still costs its fee).
	Err       *TxError
	Logs      []string
	Committed bool
}

// ErrSanitize is a transaction that does not parse (the RPC's invalid params).
type ErrSanitize struct{ Err error }

func (e ErrSanitize) Error() string { return "invalid transaction: " + e.Err.Error() }

// Send processes a signed transaction as sendTransaction does: with preflight, a transaction the runtime would refuse
// is answered with the refusal and leaves no trace; with SkipPreflight, one it cannot charge (an unknown blockhash,
// a payer without the fee) is dropped, as a leader drops it, and one whose instruction fails is recorded, failed, at
// its fee.
func (n *Node) Send(raw []byte, opt Options) (Result, error) {
	tx, err := solana.ParseTransaction(raw)
	if err != nil {
		return Result{}, ErrSanitize{err}
	}
	if err := verify(tx); err != nil {
		return Result{}, err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.send(tx, raw, opt)
}

// send is Send once the transaction is parsed and its signatures verified. The caller holds mu.
func (n *Node) send(tx *solana.Transaction, raw []byte, opt Options) (Result, error) {
	signature := signatureString(tx)
	if _, dup := n.st.Txs[signature]; dup {
		if opt.SkipPreflight {
			return Result{Signature: signature}, nil
		}
		return Result{Signature: signature, Err: txErr("This transaction has already been processed", "AlreadyProcessed")}, nil
	}
	fee, touched, res := n.run(tx)
	if res != nil && res.Err != nil && (!opt.SkipPreflight || touched == nil) {
		if opt.SkipPreflight { // dropped, as a leader drops what cannot pay
			return Result{Signature: signature}, nil
		}
		return Result{Signature: signature, Err: res, Logs: res.Logs}, nil
	}
	n.commit(tx, raw, signature, fee, touched, res)
	return Result{Signature: signature, Err: errOrNil(res), Logs: res.Logs, Committed: true}, n.save()
}

func errOrNil(e *TxError) *TxError {
	if e == nil || e.Err == nil {
		return nil
	}
	return e
}

// Simulate runs a transaction without committing it, as simulateTransaction does.
func (n *Node) Simulate(raw []byte, opt Options) (Result, error) {
	tx, err := solana.ParseTransaction(raw)
	if err != nil {
		return Result{}, ErrSanitize{err}
	}
	if opt.SigVerify {
		if err := verify(tx); err != nil {
			return Result{}, err
		}
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if opt.ReplaceBlockhash {
		if tx, err = tx.WithBlockhash(blockhashOf(n.genesis, n.st.Slot)); err != nil {
			return Result{}, ErrSanitize{err}
		}
	}
	_, _, res := n.run(tx)
	return Result{Signature: signatureString(tx), Err: errOrNil(res), Logs: res.Logs}, nil
}

// run charges the fee and executes the transaction on a copy of the ledger. touched is nil when the transaction
// cannot be charged at all (nothing of it may be recorded); otherwise it is the accounts as they end: everything
// the transaction did, or, when it failed, only its fee taken. The caller holds mu.
func (n *Node) run(tx *solana.Transaction) (fee uint64, touched map[solana.Key]*Account, res *TxError) {
	m := &tx.Message
	if !n.blockhashValid(m.RecentBlockhash) {
		return 0, nil, txErr("Blockhash not found", "BlockhashNotFound")
	}
	fee = LamportsPerSignature * uint64(len(tx.Signatures))
	payer := m.AccountKeys[0]
	a := &accounts{base: n.st.Accounts, touched: map[solana.Key]*Account{}}
	p := a.get(payer)
	switch {
	case p.Lamports == 0:
		return 0, nil, txErr("Attempt to debit an account but found no record of a prior credit.", "AccountNotFound")
	case len(p.Data) > 0 || p.Owner != solana.SystemProgram:
		return 0, nil, txErr("This account may not be used to pay transaction fees", "InvalidAccountForFee")
	case p.Lamports < fee:
		return 0, nil, txErr("Insufficient funds for fee", "InsufficientFundsForFee")
	}
	p.Lamports -= fee
	feeOnly := map[solana.Key]*Account{payer: {Lamports: p.Lamports}}
	res = execute(tx, a)
	if res.Err != nil {
		return fee, feeOnly, res
	}
	return fee, a.touched, res
}

// commit records a transaction in a new slot and applies what it did. The caller holds mu.
func (n *Node) commit(tx *solana.Transaction, raw []byte, signature string, fee uint64, touched map[solana.Key]*Account, res *TxError) {
	keys := tx.Message.AccountKeys
	rec := &TxRecord{Raw: raw, Fee: fee, Logs: res.Logs, Err: res.Err,
		PreBalances: make([]uint64, len(keys)), PostBalances: make([]uint64, len(keys))}
	for i, k := range keys {
		if acc := n.st.Accounts[k]; acc != nil {
			rec.PreBalances[i] = acc.Lamports
		}
	}
	for k, acc := range touched {
		if was := n.st.Accounts[k]; was != nil && res.Err != nil { // a failed transaction only pays its fee
			was.Lamports = acc.Lamports
			continue
		}
		if acc.Lamports == 0 && len(acc.Data) == 0 {
			delete(n.st.Accounts, k) // an account emptied is gone
			continue
		}
		n.st.Accounts[k] = acc
	}
	for i, k := range keys {
		if acc := n.st.Accounts[k]; acc != nil {
			rec.PostBalances[i] = acc.Lamports
		}
	}
	n.st.Slot++
	rec.Slot, rec.BlockTime = n.st.Slot, n.cfg.Now().Unix()
	n.st.Txs[signature] = rec
	n.bySlot[rec.Slot] = signature
	n.prune()
}

// History is how many transactions the node remembers (getTransaction, getSignatureStatuses, duplicates): as an RPC
// node without a long-term store, it forgets the oldest, in batches, once it holds a fifth more. A transaction it
// forgot is far past its blockhash's life, so it can never be processed twice.
const History = 10_000

// prune forgets the oldest transactions past History. The caller holds mu.
func (n *Node) prune() {
	if len(n.st.Txs) <= History+History/5 {
		return
	}
	slots := make([]uint64, 0, len(n.st.Txs))
	for _, rec := range n.st.Txs {
		slots = append(slots, rec.Slot)
	}
	slices.Sort(slots)
	oldest := slots[len(slots)-History] // every transaction has a slot of its own
	for sig, rec := range n.st.Txs {
		if rec.Slot < oldest {
			delete(n.st.Txs, sig)
			delete(n.bySlot, rec.Slot)
		}
	}
	n.st.FirstBlock = oldest // the blocks before it are cleaned up
	n.st.Skipped = slices.DeleteFunc(n.st.Skipped, func(r slotRange) bool { return r.To < oldest })
}

// blockhashValid reports whether a blockhash is one of the last MaxProcessingAge blocks' (skipped slots have none).
// The caller holds mu.
func (n *Node) blockhashValid(h solana.Key) bool {
	for slot, age := n.st.Slot, 0; age <= MaxProcessingAge; age++ {
		if blockhashOf(n.genesis, slot) == h {
			return true
		}
		if slot == 0 {
			break
		}
		slot = n.parent(slot)
	}
	return false
}

// latest is the latest blockhash and the last block height it is valid at. The caller holds mu.
func (n *Node) latest() (solana.Key, uint64) {
	return blockhashOf(n.genesis, n.st.Slot), n.height(n.st.Slot) + MaxProcessingAge
}

// Airdrop sends lamports from the faucet to an address, as a signed System transfer, and returns its signature. The
// blockhash is read and the transfer processed in one step: two equal airdrops at once are two transfers, in two
// blocks, never one transaction twice.
func (n *Node) Airdrop(to solana.Key, lamports uint64) (string, error) {
	faucet := solana.Key(n.faucet.Public().(ed25519.PublicKey))
	n.mu.Lock()
	defer n.mu.Unlock()
	blockhash, _ := n.latest()
	tx, err := solana.NewLegacyTransaction(faucet, blockhash, solana.SystemTransfer(faucet, to, lamports))
	if err != nil {
		return "", err
	}
	tx = tx.Signed(0, [solana.SignatureSize]byte(ed25519.Sign(n.faucet, tx.Message.Bytes())))
	res, err := n.send(tx, tx.Serialize(), Options{})
	if err != nil {
		return "", err
	}
	if res.Err != nil {
		return "", fmt.Errorf("airdrop of %d lamports to %s failed: %s", lamports, to, res.Err.Message)
	}
	return res.Signature, nil
}

func signatureString(tx *solana.Transaction) string {
	return base58(tx.Signatures[0][:])
}
