package solanadev

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"sigil/solana"
)

type rpcBlock struct {
	Blockhash, PreviousBlockhash string
	ParentSlot, BlockHeight      uint64
	BlockTime                    *int64
	Transactions                 []struct {
		Transaction struct {
			Signatures []string
			Message    struct{ AccountKeys []string }
		}
		Meta struct {
			Fee                       uint64
			PreBalances, PostBalances []uint64
			Err                       json.RawMessage
		}
		Version json.RawMessage
	}
}

func slotAt(t *testing.T, n *Node, commitment string) uint64 {
	var s uint64
	_ = json.Unmarshal(mustCall(t, n, "getSlot", map[string]string{"commitment": commitment}), &s)
	return s
}

func TestBlocks(t *testing.T) {
	file := filepath.Join(t.TempDir(), "ledger.json")
	n := devNode(t, file)
	alice, bob := funded(t, n, 2_000_000_000), newKeypair()
	sig, err := send(t, n, signed(t, n, []keypair{alice}, solana.SystemTransfer(alice.pub, bob.pub, 300_000_000)), nil)
	if err != nil {
		t.Fatal(err)
	}
	slot := slotAt(t, n, "processed")
	opts := map[string]any{"encoding": "json", "transactionDetails": "full", "commitment": "confirmed", "maxSupportedTransactionVersion": 0}
	if _, err := call(t, n, "getBlock", slot, opts); err == nil || err.Code != codeBlockNotAvailable {
		t.Fatalf("the processed block at confirmed: %+v", err)
	}
	n.mu.Lock()
	n.st.Slot++ // an empty block on top: the transaction's is confirmed
	n.mu.Unlock()
	if got := slotAt(t, n, "confirmed"); got != slot {
		t.Fatalf("confirmed slot %d, want %d", got, slot)
	}
	if got := slotAt(t, n, "finalized"); got != 0 {
		t.Fatalf("finalized slot %d, want 0", got)
	}
	var b rpcBlock
	_ = json.Unmarshal(mustCall(t, n, "getBlock", slot, opts), &b)
	if len(b.Transactions) != 1 || b.ParentSlot != slot-1 || b.BlockHeight != slot || b.BlockTime == nil || b.Blockhash == b.PreviousBlockhash {
		t.Fatalf("block %+v", b)
	}
	tx := b.Transactions[0]
	if tx.Transaction.Signatures[0] != sig || tx.Meta.Fee != LamportsPerSignature || string(tx.Meta.Err) != "null" ||
		tx.Transaction.Message.AccountKeys[0] != alice.pub.String() || tx.Transaction.Message.AccountKeys[1] != bob.pub.String() ||
		!slices.Equal(tx.Meta.PreBalances[:2], []uint64{2_000_000_000, 0}) ||
		!slices.Equal(tx.Meta.PostBalances[:2], []uint64{2_000_000_000 - 300_000_000 - LamportsPerSignature, 300_000_000}) ||
		string(tx.Version) != `"legacy"` {
		t.Fatalf("transaction %+v", tx)
	}
	if _, err := call(t, n, "getBlock", slot+1, map[string]string{"commitment": "processed"}); err == nil || err.Code != codeInvalidParams {
		t.Fatalf("getBlock at processed: %+v", err)
	}

	// A restart skips the slot the node was down for.
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	n = devNode(t, file)
	n.mu.Lock()
	n.st.Slot += FinalizedDepth
	skipped := n.st.Skipped[0]
	n.mu.Unlock()
	if skipped != slot+2 {
		t.Fatalf("skipped slot %d, want %d", skipped, slot+2)
	}
	if _, err := call(t, n, "getBlock", skipped, opts); err == nil || err.Code != codeSlotSkipped {
		t.Fatalf("the skipped slot: %+v", err)
	}
	var after rpcBlock
	_ = json.Unmarshal(mustCall(t, n, "getBlock", skipped+1, opts), &after)
	if after.ParentSlot != slot+1 || after.BlockHeight != skipped || len(after.Transactions) != 0 || after.BlockTime != nil {
		t.Fatalf("the block after the skipped slot %+v", after)
	}
	var blocks []uint64
	_ = json.Unmarshal(mustCall(t, n, "getBlocks", slot-1, skipped+1, map[string]string{"commitment": "finalized"}), &blocks)
	if !slices.Equal(blocks, []uint64{slot - 1, slot, slot + 1, skipped + 1}) {
		t.Fatalf("getBlocks %v", blocks)
	}
	_ = json.Unmarshal(mustCall(t, n, "getBlocksWithLimit", slot, 3, map[string]string{"commitment": "confirmed"}), &blocks)
	if !slices.Equal(blocks, []uint64{slot, slot + 1, skipped + 1}) {
		t.Fatalf("getBlocksWithLimit %v", blocks)
	}
	var height uint64
	_ = json.Unmarshal(mustCall(t, n, "getBlockHeight", map[string]string{"commitment": "processed"}), &height)
	if want := slotAt(t, n, "processed") - 1; height != want {
		t.Fatalf("block height %d, want %d (the slot less the one skipped)", height, want)
	}
	if _, err := call(t, n, "getBlocks", 0, maxSlotRange+1); err == nil || err.Code != codeInvalidParams {
		t.Fatalf("a range too large: %+v", err)
	}
}

func TestBlocksCleanedUp(t *testing.T) {
	n := devNode(t, "")
	n.mu.Lock()
	for i := range History + History/5 + 1 {
		n.st.Slot++
		n.st.Txs[string(rune(i))] = &TxRecord{Slot: n.st.Slot}
		n.bySlot[n.st.Slot] = string(rune(i))
	}
	n.prune()
	first := n.st.FirstBlock
	n.st.Slot += FinalizedDepth
	n.mu.Unlock()
	if r := mustCall(t, n, "getFirstAvailableBlock"); string(r) != jsonUint(first) || first == 0 {
		t.Fatalf("first available block %s, want %d", r, first)
	}
	if _, err := call(t, n, "getBlock", first-1); err == nil || err.Code != codeBlockCleanedUp {
		t.Fatalf("a cleaned up block: %+v", err)
	}
	var blocks []uint64
	_ = json.Unmarshal(mustCall(t, n, "getBlocksWithLimit", 0, 2), &blocks)
	if !slices.Equal(blocks, []uint64{first, first + 1}) {
		t.Fatalf("getBlocksWithLimit from 0: %v", blocks)
	}
}

func jsonUint(v uint64) string { b, _ := json.Marshal(v); return string(b) }
