package solanadev

import (
	"encoding/json"
	"fmt"
)

// Blocks. Each slot has a block (empty, or holding the one transaction committed in it) except the slots the node
// skipped: one each time it starts again over a state file, the slot it was down for, as a cluster skips the slots
// of a leader that produced nothing. A block's height is its slot less the slots skipped before it. The node keeps
// the blocks of the transactions it remembers (History): older ones are cleaned up, from FirstBlock down.

// JSON-RPC error codes of Solana's block methods.
const (
	codeBlockCleanedUp    = -32001
	codeBlockNotAvailable = -32004
	codeSlotSkipped       = -32007
	// maxSlotRange is the most slots getBlocks and getBlocksWithLimit cover, as the RPC's.
	maxSlotRange = 500_000
)

// skip marks the slot after the current one skipped and moves to the next: a restart. The caller holds mu.
func (n *Node) skip() {
	n.st.Slot++
	n.st.Skipped = append(n.st.Skipped, n.st.Slot)
	n.skipped[n.st.Slot] = true
	n.st.Slot++
}

// height is the block height of a slot: the blocks up to it, less the genesis block. The caller holds mu.
func (n *Node) height(slot uint64) uint64 {
	h := slot
	for _, s := range n.st.Skipped {
		if s <= slot {
			h--
		}
	}
	return h
}

// parent is the slot of the block before a slot's (the genesis block is its own parent). The caller holds mu.
func (n *Node) parent(slot uint64) uint64 {
	for p := slot; p > 0; {
		p--
		if !n.skipped[p] {
			return p
		}
	}
	return 0
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
	s := n.st.Slot - min(n.st.Slot, depth)
	if n.skipped[s] {
		s = n.parent(s)
	}
	return s
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
		if !n.skipped[s] {
			out = append(out, s)
		}
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
	c, err := commitmentParam(params, config)
	if err != nil {
		return nil, err
	}
	if c == "processed" {
		return nil, invalidParams("Method does not support commitment below `confirmed`")
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
	c, err := commitmentParam(params, 2)
	if err != nil {
		return nil, err
	}
	if c == "processed" {
		return nil, invalidParams("Method does not support commitment below `confirmed`")
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
	if opt.Commitment == "processed" {
		return nil, invalidParams("Method does not support commitment below `confirmed`")
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
	case n.skipped[slot]:
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

// indexBlocks indexes the remembered transactions by slot and the skipped slots. The caller holds mu.
func (n *Node) indexBlocks() {
	n.bySlot = make(map[uint64]string, len(n.st.Txs))
	for sig, rec := range n.st.Txs {
		n.bySlot[rec.Slot] = sig
	}
	n.skipped = make(map[uint64]bool, len(n.st.Skipped))
	for _, s := range n.st.Skipped {
		n.skipped[s] = true
	}
}
