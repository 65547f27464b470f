package solanadev

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/sigil/sigil/internal/solana"
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
	if skipped != (slotRange{slot + 2, slot + 2}) {
		t.Fatalf("skipped %+v, want the slot %d alone", skipped, slot+2)
	}
	if _, err := call(t, n, "getBlock", skipped.From, opts); err == nil || err.Code != codeSlotSkipped {
		t.Fatalf("the skipped slot: %+v", err)
	}
	var after rpcBlock
	_ = json.Unmarshal(mustCall(t, n, "getBlock", skipped.From+1, opts), &after)
	if after.ParentSlot != slot+1 || after.BlockHeight != skipped.From || len(after.Transactions) != 0 || after.BlockTime != nil {
		t.Fatalf("the block after the skipped slot %+v", after)
	}
	var blocks []uint64
	_ = json.Unmarshal(mustCall(t, n, "getBlocks", slot-1, skipped.From+1, map[string]string{"commitment": "finalized"}), &blocks)
	if !slices.Equal(blocks, []uint64{slot - 1, slot, slot + 1, skipped.From + 1}) {
		t.Fatalf("getBlocks %v", blocks)
	}
	_ = json.Unmarshal(mustCall(t, n, "getBlocksWithLimit", slot, 3, map[string]string{"commitment": "confirmed"}), &blocks)
	if !slices.Equal(blocks, []uint64{slot, slot + 1, skipped.From + 1}) {
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

// A node killed (its ledger not saved at the end) produced slots its state file does not know: started again, it
// skips every slot that run may have produced, by the time since its last save, rather than produce one again.
func TestKilledNodeSkipsTheSlotsItMayHaveProduced(t *testing.T) {
	file := filepath.Join(t.TempDir(), "ledger.json")
	clock := time.Unix(1_800_000_000, 0)
	start := func() *Node {
		n, err := Start(context.Background(), Config{ListenAddr: "127.0.0.1:0", SlotPeriod: time.Hour, StateFile: file, Now: func() time.Time { return clock }})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	n := start()
	funded(t, n, lamportsPerSOL) // saved
	n.mu.Lock()
	n.st.Slot += 5 // five slots unsaved, seen by a client
	n.mu.Unlock()
	seen := slotAt(t, n, "processed")
	n.stop() // killed: no save
	<-n.done
	_ = n.srv.Close()
	clock = clock.Add(5*time.Hour + time.Minute) // the five slots' time, and some

	n = start()
	n.mu.Lock()
	skipped := n.st.Skipped
	n.st.Slot++ // a block on top: the slots before are confirmed
	n.mu.Unlock()
	if len(skipped) != 1 || skipped[0].From > seen-4 || skipped[0].To < seen {
		t.Fatalf("skipped %+v after a kill; the killed run had shown slot %d", skipped, seen)
	}
	if got := slotAt(t, n, "processed"); got <= seen {
		t.Fatalf("slot %d after the kill, not past %d", got, seen)
	}
	if _, err := call(t, n, "getBlock", seen, map[string]string{"commitment": "confirmed"}); err == nil || err.Code != codeSlotSkipped {
		t.Fatalf("a slot the killed run showed: %+v", err)
	}
	if err := n.Close(); err != nil { // a clean stop: the next start skips one slot
		t.Fatal(err)
	}
	n = start()
	t.Cleanup(func() { _ = n.Close() })
	n.mu.Lock()
	last := n.st.Skipped[len(n.st.Skipped)-1]
	n.mu.Unlock()
	if len(n.st.Skipped) != 2 || last.From != last.To {
		t.Fatalf("after a clean stop: skipped %+v", n.st.Skipped)
	}
}

const lamportsPerSOL = 1_000_000_000

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
