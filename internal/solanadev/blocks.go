package solanadev

import (
	"encoding/json"
	"fmt"
)

// Blocks. Each slot has a block (empty, or holding the one transaction committed in it) except the slots the node
// skipped, as a cluster skips the slots of a leader that produced nothing: each time it starts again over a state
// file, the slot it was down for — and, when its last run ended without saving the ledger (killed), every slot that
// run may have produced since its last save, by the time that passed, so that no slot a client saw is produced
// again. A block's height is its slot less the slots skipped before it. The node keeps the blocks of the
// transactions it remembers (History): older ones are cleaned up, from FirstBlock down.

// JSON-RPC error codes of Solana's block methods.
const (
	codeBlockCleanedUp    = -32001
	codeBlockNotAvailable = -32004
	codeSlotSkipped       = -32007
	// maxSlotRange is the most slots getBlocks and getBlocksWithLimit cover, as the RPC's.
	maxSlotRange = 500_000
)

// slotRange is a run of slots, From to To included.
type slotRange struct {
	From uint64 `json:"from"`
	To   uint64 `json:"to"`
}

// skip skips the count slots after the current one and moves to the next: a restart. The caller holds mu.
func (n *Node) skip(count uint64) {
	r := slotRange{From: n.st.Slot + 1, To: n.st.Slot + count}
	n.st.Skipped = append(n.st.Skipped, r)
	n.st.Slot = r.To + 1
}

// skippedRange is the run of skipped slots holding slot, if any. The caller holds mu.
func (n *Node) skippedRange(slot uint64) (slotRange, bool) {
	for _, r := range n.st.Skipped {
		if r.From <= slot && slot <= r.To {
			return r, true
		}
	}
	return slotRange{}, false
}

// height is the block height of a slot: the blocks up to it, less the genesis block. The caller holds mu.
func (n *Node) height(slot uint64) uint64 {
	h := slot
	for _, r := range n.st.Skipped {
		if r.From <= slot {
			h -= min(r.To, slot) - r.From + 1
		}
	}
	return h
}

// blockAtOrBefore is the latest slot up to slot that has a block. Skipped runs are never adjacent (a block follows
// each), so one step back past a run finds one. The caller holds mu.
func (n *Node) blockAtOrBefore(slot uint64) uint64 {
	if r, skipped := n.skippedRange(slot); skipped {
		return r.From - 1
	}
	return slot
}

// parent is the slot of the block before a slot's (the genesis block is its own parent). The caller holds mu.
func (n *Node) parent(slot uint64) uint64 {
	if slot == 0 {
		return 0
	}
	return n.blockAtOrBefore(slot - 1)
}

// head is the latest slot with a block at a commitment (the RPC's default: finalized). The caller holds mu.
func (n *Node) head(commitment string) uint64 {
	depth := uint64(FinalizedDepth)
	switch commitment {
	case "processed":
		depth = 0
	case "confirmed":
		depth = ConfirmedDepth
	}
	return n.blockAtOrBefore(n.st.Slot - min(n.st.Slot, depth))
}

// atLeastConfirmed refuses the processed commitment, which reads of blocks and transactions do not take.
func atLeastConfirmed(commitment string) *rpcError {
	if commitment == "processed" {
		return invalidParams("Method does not support commitment below `confirmed`")
	}
	return nil
}

// blockCommitmentParam is commitmentParam for the reads of blocks, which refuse the processed commitment.
func blockCommitmentParam(params []json.RawMessage, i int) (string, *rpcError) {
	c, err := commitmentParam(params, i)
	if err == nil {
		err = atLeastConfirmed(c)
	}
	return c, err
}

// commitmentParam reads the commitment of a config object parameter.
func commitmentParam(params []json.RawMessage, i int) (string, *rpcError) {
	var opt struct {
		Commitment string `json:"commitment"`
	}
	if i < len(params) && len(params[i]) > 0 && params[i][0] != '{' {
		return "", nil // a positional parameter, not the config
	}
	if err := param(params, i, &opt, false); err != nil {
		return "", err
	}
	switch opt.Commitment {
	case "", "processed", "confirmed", "finalized":
		return opt.Commitment, nil
	}
	return "", invalidParams("Invalid params: unknown commitment %q", opt.Commitment)
}

func getSlot(n *Node, params []json.RawMessage) (any, *rpcError) {
	c, err := commitmentParam(params, 0)
	if err != nil {
		return nil, err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.head(c), nil
}

func getBlockHeight(n *Node, params []json.RawMessage) (any, *rpcError) {
	c, err := commitmentParam(params, 0)
	if err != nil {
		return nil, err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.height(n.head(c)), nil
}

func getFirstAvailableBlock(n *Node, _ []json.RawMessage) (any, *rpcError) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.st.FirstBlock, nil
}

// blocks are the slots with a block from start to end (both included), at most limit of them. The caller holds mu.
func (n *Node) blocks(start, end uint64, limit int) []uint64 {
	out := []uint64{}
	for s := max(start, n.st.FirstBlock); s <= end && len(out) < limit; s++ {
		if r, skipped := n.skippedRange(s); skipped {
			s = r.To
			continue
		}
		out = append(out, s)
	}
	return out
}

func getBlocks(n *Node, params []json.RawMessage) (any, *rpcError) {
	var start uint64
	if err := param(params, 0, &start, true); err != nil {
		return nil, err
	}
	var end *uint64
	config := 1
	if len(params) > 1 && len(params[1]) > 0 && params[1][0] != '{' {
		if err := param(params, 1, &end, false); err != nil {
			return nil, err
		}
		config = 2
	}
	c, err := blockCommitmentParam(params, config)
	if err != nil {
		return nil, err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	last := n.head(c)
	if end != nil {
		last = *end
	}
	if last >= start && last-start > maxSlotRange {
		return nil, invalidParams("Slot range too large; max %d", maxSlotRange)
	}
	return n.blocks(start, min(last, n.head(c)), maxSlotRange+1), nil
}

func getBlocksWithLimit(n *Node, params []json.RawMessage) (any, *rpcError) {
	var start uint64
	var limit int
	if err := param(params, 0, &start, true); err != nil {
		return nil, err
	}
	if err := param(params, 1, &limit, true); err != nil {
		return nil, err
	}
	if limit < 0 || limit > maxSlotRange {
		return nil, invalidParams("Limit too large; max %d", maxSlotRange)
	}
	c, err := blockCommitmentParam(params, 2)
	if err != nil {
		return nil, err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.blocks(start, n.head(c), limit), nil
}

func getBlock(n *Node, params []json.RawMessage) (any, *rpcError) {
	var slot uint64
	if err := param(params, 0, &slot, true); err != nil {
		return nil, err
	}
	opt := struct {
		Encoding                       string `json:"encoding"`
		TransactionDetails             string `json:"transactionDetails"`
		Rewards                        *bool  `json:"rewards"`
		Commitment                     string `json:"commitment"`
		MaxSupportedTransactionVersion *int   `json:"maxSupportedTransactionVersion"`
	}{TransactionDetails: "full"}
	if len(params) > 1 && len(params[1]) > 0 && params[1][0] == '"' { // the deprecated form: the encoding alone
		if err := param(params, 1, &opt.Encoding, false); err != nil {
			return nil, err
		}
	} else if err := param(params, 1, &opt, false); err != nil {
		return nil, err
	}
	if err := atLeastConfirmed(opt.Commitment); err != nil {
		return nil, err
	}
	switch opt.TransactionDetails {
	case "full", "signatures", "none":
	default:
		return nil, invalidParams("Invalid params: transactionDetails %q is not supported by the Sigil dev node (full, signatures, none)", opt.TransactionDetails)
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	switch {
	case slot < n.st.FirstBlock:
		return nil, &rpcError{Code: codeBlockCleanedUp, Message: fmt.Sprintf("Block %d cleaned up, does not exist on node. First available block: %d", slot, n.st.FirstBlock)}
	case slot > n.head(opt.Commitment):
		return nil, &rpcError{Code: codeBlockNotAvailable, Message: fmt.Sprintf("Block not available for slot %d", slot)}
	case n.isSkipped(slot):
		return nil, &rpcError{Code: codeSlotSkipped, Message: fmt.Sprintf("Slot %d was skipped, or missing due to ledger jump to recent snapshot", slot)}
	}
	parent := n.parent(slot)
	block := map[string]any{"blockhash": blockhashOf(n.genesis, slot).String(), "previousBlockhash": blockhashOf(n.genesis, parent).String(),
		"parentSlot": parent, "blockHeight": n.height(slot), "blockTime": nil}
	if opt.Rewards == nil || *opt.Rewards {
		block["rewards"] = []any{}
	}
	sig, has := n.bySlot[slot]
	if !has {
		switch opt.TransactionDetails {
		case "full":
			block["transactions"] = []any{}
		case "signatures":
			block["signatures"] = []string{}
		}
		return block, nil
	}
	rec := n.st.Txs[sig]
	block["blockTime"] = rec.BlockTime
	switch opt.TransactionDetails {
	case "signatures":
		block["signatures"] = []string{sig}
	case "full":
		tx, err := encodedTransaction(rec, opt.Encoding, opt.MaxSupportedTransactionVersion)
		if err != nil {
			return nil, err
		}
		block["transactions"] = []any{tx}
	}
	return block, nil
}

func (n *Node) isSkipped(slot uint64) bool {
	_, skipped := n.skippedRange(slot)
	return skipped
}

// indexBlocks indexes the remembered transactions by slot. The caller holds mu.
func (n *Node) indexBlocks() {
	n.bySlot = make(map[uint64]string, len(n.st.Txs))
	for sig, rec := range n.st.Txs {
		n.bySlot[rec.Slot] = sig
	}
}
