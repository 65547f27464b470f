package coordinator

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/internal/keys"
	"github.com/sigil/sigil/internal/solana"
	"github.com/sigil/sigil/internal/solanarpc"
	"github.com/sigil/sigil/internal/store"
)

// Balance webhooks of a Solana cluster: the watcher reads every block the cluster lists (getBlocks; a skipped slot
// has none) at the commitment of its event type — BALANCE_CONFIRMED_UPDATES at confirmed, BALANCE_FINALIZED_UPDATES
// at finalized — and reports, for each transaction, the native SOL change of each of its accounts that is an
// organization's address: postBalance − preBalance, the fee included for the fee payer (whose event also says the fee).
// A failed transaction changes only its fee payer's balance, by the fee. SPL tokens are not reported. Its cursors,
// deliveries and filters are the EVM watcher's (balances.go); a block's deliveries are written with the cursor moved
// past it, and a batch of blocks without any moves the cursor once at its end (reading an empty block again after a
// restart sends nothing). A finalized block is never replaced, so there is nothing to withdraw; a confirmed block
// the cluster abandons (optimistic confirmation broken, which takes a third of the stake misbehaving) is not
// followed: its confirmed events stay, and the finalized event is the one to act on.

const solanaNamespace = "solana:"

// The commitment each event type reads blocks at.
var solanaCommitments = map[string]string{api.WebhookBalanceConfirmedUpdates: "confirmed", api.WebhookBalanceFinalizedUpdates: "finalized"}

func (c *Coordinator) watchSolana(ctx context.Context, n Network) {
	rpc := solanarpc.New(n.RPCURL)
	c.everyPoll(ctx, n, func(ctx context.Context) error { return c.pollSolana(ctx, rpc, n) })
}

// pollSolana reads, for each event type, the blocks up to the cluster's latest at its commitment, maxBlocksPerPoll
// slots at most.
func (c *Coordinator) pollSolana(ctx context.Context, rpc *solanarpc.Client, n Network) error {
	for eventType, watcher := range balanceWatchers {
		commitment := map[string]string{"commitment": solanaCommitments[eventType]}
		var last uint64
		if err := rpc.Call(ctx, "getSlot", &last, commitment); err != nil {
			return fmt.Errorf("getSlot: %w", err)
		}
		cursor, err := c.balanceCursor(ctx, n.CAIP2, watcher, last)
		if err != nil {
			return err
		}
		if cursor.Next > last {
			continue
		}
		end := min(last, cursor.Next+maxBlocksPerPoll-1)
		var slots []uint64
		if err := rpc.Call(ctx, "getBlocks", &slots, cursor.Next, end, commitment); err != nil {
			return fmt.Errorf("getBlocks %d-%d: %w", cursor.Next, end, err)
		}
		for _, slot := range slots {
			if err := c.readSolanaBlock(ctx, rpc, n, eventType, watcher, slot); err != nil {
				return err
			}
		}
		if err := c.commitBalances(ctx, n.CAIP2, watcher, nil, nil, blockRef{Number: end}, false); err != nil {
			return err
		}
	}
	return nil
}

// solanaBlock is what the watcher reads of getBlock's answer (encoding base64, transactionDetails full), each
// transaction parsed (solana.ParseTransaction).
type solanaBlock struct {
	Blockhash    string          `json:"blockhash"`
	BlockTime    *int64          `json:"blockTime"`
	Transactions []solanaBlockTx `json:"transactions"`
}

// solanaBlockTx is one transaction of a block: its wire form, its status meta, and the transaction parsed (nil when
// it does not parse, and then it is not read).
type solanaBlockTx struct {
	Transaction []string `json:"transaction"` // [base64, "base64"]
	Meta        *struct {
		Err          json.RawMessage `json:"err"`
		Fee          uint64          `json:"fee"`
		PreBalances  []uint64        `json:"preBalances"`
		PostBalances []uint64        `json:"postBalances"`
		// The token accounts' balances before and after, by owner and mint (chainhistory.go reads SPL transfers there).
		PreTokenBalances  []solanaTokenBalance `json:"preTokenBalances"`
		PostTokenBalances []solanaTokenBalance `json:"postTokenBalances"`
		LoadedAddresses   struct {
			Writable []string `json:"writable"`
			Readonly []string `json:"readonly"`
		} `json:"loadedAddresses"`
	} `json:"meta"`
	parsed *solana.Transaction
}

// parse parses the block's transactions.
func (b *solanaBlock) parse() {
	for i := range b.Transactions {
		tx := &b.Transactions[i]
		if len(tx.Transaction) != 2 || tx.Transaction[1] != "base64" {
			continue
		}
		raw, err := base64.StdEncoding.DecodeString(tx.Transaction[0])
		if err != nil {
			continue
		}
		if p, err := solana.ParseTransaction(raw); err == nil && len(p.Signatures) > 0 {
			tx.parsed = p
		}
	}
}

// accountKeys are the transaction's accounts, as its balances are indexed: the message's keys, then the addresses
// loaded from lookup tables.
func (tx *solanaBlockTx) accountKeys() []string {
	keys := make([]string, 0, len(tx.parsed.Message.AccountKeys)+len(tx.Meta.LoadedAddresses.Writable)+len(tx.Meta.LoadedAddresses.Readonly))
	for _, k := range tx.parsed.Message.AccountKeys {
		keys = append(keys, k.String())
	}
	keys = append(keys, tx.Meta.LoadedAddresses.Writable...)
	return append(keys, tx.Meta.LoadedAddresses.Readonly...)
}

// signature is the transaction's id: its first signature.
func (tx *solanaBlockTx) signature() string { return keys.Base58Encode(tx.parsed.Signatures[0][:]) }

// readSolanaBlock writes the block's balance events for the watcher's type, and for the confirmed watcher its history
// entries (chainhistory.go), moving its cursor past it, when it has any; the caller moves the cursor past blocks
// without.
func (c *Coordinator) readSolanaBlock(ctx context.Context, rpc *solanarpc.Client, n Network, eventType, watcher string, slot uint64) error {
	var block solanaBlock
	err := rpc.Call(ctx, "getBlock", &block, slot, map[string]any{"encoding": "base64", "transactionDetails": "full", "rewards": false,
		"commitment": solanaCommitments[eventType], "maxSupportedTransactionVersion": 0})
	if err != nil {
		return fmt.Errorf("getBlock %d: %w", slot, err)
	}
	block.parse()
	ref := blockRef{Number: slot, Hash: block.Blockhash}
	if block.BlockTime != nil {
		ref.Time = strconv.FormatInt(*block.BlockTime, 10)
	}
	ds, err := c.balanceDeliveries(ctx, n, eventType, ref, block.changes(slot))
	if err != nil {
		return err
	}
	var history []store.ChainTransaction
	if eventType == api.WebhookBalanceConfirmedUpdates {
		if history, err = c.solanaHistory(ctx, n, slot, &block); err != nil {
			return err
		}
	}
	if len(ds) == 0 && len(history) == 0 {
		return nil
	}
	return c.commitBalances(ctx, n.CAIP2, watcher, ds, history, ref, false)
}

// changes are the native balance changes of the block's transactions, one per account whose balance moved.
func (b *solanaBlock) changes(slot uint64) []balanceChange {
	var out []balanceChange
	native := asset{Type: "native"}
	for _, tx := range b.Transactions {
		m := tx.Meta
		if m == nil || tx.parsed == nil {
			continue // a node that keeps no status meta: nothing to read the changes from
		}
		for i, key := range tx.accountKeys() {
			if i >= len(m.PreBalances) || i >= len(m.PostBalances) || m.PreBalances[i] == m.PostBalances[i] {
				continue
			}
			ch := balanceChange{Address: key, Direction: "in", Asset: native, TxHash: tx.signature(), Block: slot}
			if m.PostBalances[i] > m.PreBalances[i] {
				ch.Amount = strconv.FormatUint(m.PostBalances[i]-m.PreBalances[i], 10)
			} else {
				ch.Direction, ch.Amount = "out", strconv.FormatUint(m.PreBalances[i]-m.PostBalances[i], 10)
			}
			if i == 0 {
				ch.Fee = strconv.FormatUint(m.Fee, 10)
			}
			out = append(out, ch)
		}
	}
	return out
}
