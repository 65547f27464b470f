package coordinator

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/internal/send"
	"github.com/sigil/sigil/internal/store"
)

// Balance webhooks: a watcher per configured EVM network reads every block, finds the native and ERC-20 transfers
// to and from the organizations' wallet account addresses (the address index), and writes BALANCE_CONFIRMED_UPDATES
// for a block as soon as it is read and BALANCE_FINALIZED_UPDATES once Confirmations more blocks are on top of it.
// Each watcher keeps a cursor per event type in the database, moved in the transaction that writes the block's
// deliveries, so a restart neither misses nor repeats a block. A first start begins at the network's head: history
// is not replayed.
//
// A reorganisation shows as a cursor whose last block is no longer on the chain (another hash at its height, or a
// head below it). The watcher then walks back to the common ancestor, comparing the hashes of the blocks it read
// (kept reorgWindow back) with the node's, and reads again from there: the changes of the new blocks are reported,
// and those that stayed are reported again under the same event id, which a receiver already deduplicates. A
// confirmed change whose block was dropped is not withdrawn (there is no such event). A finalized one is: a
// reorganisation deeper than the confirmation depth withdraws each finalized event of a replaced block by an event
// with "removed": true (withdrawals).

// Network is an EVM network or a Solana cluster whose balance changes the coordinator reports.
type Network struct {
	CAIP2  string // eip155:<chain id>, or solana:<genesis hash prefix>
	RPCURL string
	// NativeToken is the network's coin (default ETH, or SOL on a Solana cluster), and Tokens the ERC-20 tokens or
	// SPL mints whose balances chain data reports (chaindata.go).
	NativeToken send.Token
	Tokens      []send.Token
	// Confirmations are the blocks on top of a block before its changes are final (EVM; default 12). A Solana
	// cluster says itself which slots are confirmed and finalized.
	Confirmations uint64
	PollInterval  time.Duration // default 1 s
}

// maxBlocksPerPoll bounds the blocks one poll reads, so that a watcher far behind catches up in steps.
const maxBlocksPerPoll = 100

var transferTopic = crypto.Keccak256Hash([]byte("Transfer(address,address,uint256)"))

// balanceChange is one transfer touching an address, from that address's side.
type balanceChange struct {
	Address   string `json:"address"`
	Direction string `json:"direction"` // "in" or "out"
	Asset     asset  `json:"asset"`
	Amount    string `json:"amount"` // in the asset's smallest unit
	TxHash    string `json:"transactionHash"`
	LogIndex  *uint  `json:"logIndex,omitempty"` // ERC-20 transfers only
	// Fee is the transaction's fee, in the amount, for the fee payer of a Solana transaction (lamports).
	Fee   string `json:"fee,omitempty"`
	Block uint64 `json:"-"`
}

type asset struct {
	Type     string `json:"type"`               // "native" or "erc20"
	Contract string `json:"contract,omitempty"` // the token, for erc20
}

// balanceEvent is the body of a balance delivery.
type balanceEvent struct {
	Type           string `json:"type"`
	Network        string `json:"network"`
	OrganizationID string `json:"organizationId"` // the organization the address belongs to
	balanceChange
	BlockNumber string `json:"blockNumber"`
	BlockHash   string `json:"blockHash"`
	Timestamp   string `json:"timestamp"` // the block's, unix seconds
	// Removed withdraws a finalized event whose block a reorganisation deeper than the confirmation depth replaced
	// (Sigil's; Turnkey has no such event): the change did not happen after all.
	Removed bool `json:"removed,omitempty"`
}

// WatchBalances watches the networks until ctx ends, each on its own: an EVM network (eip155:) by the watcher of this
// file, a Solana cluster (solana:) by that of balances_solana.go. An unreachable node is retried at the next poll.
func (c *Coordinator) WatchBalances(ctx context.Context, networks []Network) error {
	if err := c.FollowChains(networks); err != nil {
		return err
	}
	var wg sync.WaitGroup
	for _, n := range networks {
		if strings.HasPrefix(n.CAIP2, solanaNamespace) {
			wg.Go(func() { c.watchSolana(ctx, n) })
		} else {
			wg.Go(func() { c.watchNetwork(ctx, n) })
		}
	}
	wg.Wait()
	return nil
}

func (c *Coordinator) watchNetwork(ctx context.Context, n Network) {
	if n.Confirmations == 0 {
		n.Confirmations = 12
	}
	var client *ethclient.Client
	defer func() {
		if client != nil {
			client.Close()
		}
	}()
	c.everyPoll(ctx, n, func(ctx context.Context) error {
		if client == nil {
			cl, err := ethclient.DialContext(ctx, n.RPCURL)
			if err != nil {
				return err
			}
			client = cl
		}
		return c.pollNetwork(ctx, client, n)
	})
}

// everyPoll calls poll each PollInterval (default 1 s) until ctx ends; an error is logged and the next poll tries again.
func (c *Coordinator) everyPoll(ctx context.Context, n Network, poll func(context.Context) error) {
	interval := n.PollInterval
	if interval <= 0 {
		interval = time.Second
	}
	for {
		if err := poll(ctx); err != nil && ctx.Err() == nil {
			c.cfg.Logger.Warn("balance watcher", "network", n.CAIP2, "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(interval):
		}
	}
}

// The watchers' cursors, by event type.
var balanceWatchers = map[string]string{api.WebhookBalanceConfirmedUpdates: "balance-confirmed", api.WebhookBalanceFinalizedUpdates: "balance-finalized"}

// pollNetwork reads the blocks each watcher has not read yet: confirmed up to the head, finalized up to the head less
// the confirmations.
func (c *Coordinator) pollNetwork(ctx context.Context, client *ethclient.Client, n Network) error {
	head, err := client.BlockNumber(ctx)
	if err != nil {
		return err
	}
	for eventType, watcher := range balanceWatchers {
		last := head
		if eventType == api.WebhookBalanceFinalizedUpdates {
			if head < n.Confirmations {
				continue
			}
			last = head - n.Confirmations
		}
		cursor, err := c.balanceCursor(ctx, n.CAIP2, watcher, last)
		if err != nil {
			return err
		}
		next, err := c.rewindOnReorg(ctx, client, n, eventType, watcher, head, cursor)
		if err != nil {
			return err
		}
		for b := next; b <= last && b < next+maxBlocksPerPoll; b++ {
			if err := c.readBlock(ctx, client, n, eventType, watcher, b); err != nil {
				return err
			}
		}
	}
	return nil
}

// balanceCursor is the watcher's cursor. On a first start it is written at the block after last: history is not
// replayed.
func (c *Coordinator) balanceCursor(ctx context.Context, network, watcher string, last uint64) (store.ChainCursor, error) {
	cursor, found, err := c.store.ChainCursor(ctx, network, watcher)
	if err != nil || found {
		return cursor, err
	}
	cursor.Next = last + 1
	return cursor, c.store.Write(ctx, func(tx *store.Tx) error { return tx.SetChainCursor(ctx, network, watcher, cursor) })
}

// rewindOnReorg returns the block the watcher reads next: its cursor's, or the block after the common ancestor when
// the last block it read is no longer on the chain. The ancestor is the latest block whose hash the watcher kept
// (store.ChainBlocks, reorgWindow of them) that the node still has at its height; without one, the watcher reads again
// from the oldest block it kept, or, having kept none (a cursor older than the kept hashes), from the confirmation
// depth back. The finalized events of the blocks read again are withdrawn (withdrawals), in the transaction that
// moves the cursor back.
func (c *Coordinator) rewindOnReorg(ctx context.Context, client *ethclient.Client, n Network, eventType, watcher string, head uint64, cursor store.ChainCursor) (uint64, error) {
	if cursor.LastHash == "" || cursor.Next == 0 {
		return cursor.Next, nil
	}
	last := cursor.Next - 1
	if head >= last {
		h, err := client.HeaderByNumber(ctx, new(big.Int).SetUint64(last))
		if err != nil {
			return 0, fmt.Errorf("block %d: %w", last, err)
		}
		if h.Hash().Hex() == cursor.LastHash {
			return cursor.Next, nil
		}
	}
	from, found, err := c.commonAncestor(ctx, client, n, watcher, head, last)
	if err != nil {
		return 0, err
	}
	if !found && from == last { // no hashes kept (a cursor older than them): the confirmation depth back
		from = min(cursor.Next, head+1)
		from -= min(from, n.Confirmations)
	}
	c.cfg.Logger.Warn("balance watcher: the chain was reorganised; reading its blocks again from the common ancestor", "network", n.CAIP2,
		"watcher", watcher, "lastBlock", last, "lastHash", cursor.LastHash, "head", head, "from", from, "ancestorFound", found)
	var withdrawals []store.WebhookDelivery
	if eventType == api.WebhookBalanceFinalizedUpdates {
		if withdrawals, err = c.withdrawals(ctx, n, from); err != nil {
			return 0, err
		}
	}
	var withdrawn bool
	err = c.store.Write(ctx, func(tx *store.Tx) error {
		var err error
		if withdrawn, err = enqueueNewEvents(ctx, tx, withdrawals); err != nil {
			return err
		}
		if err := tx.ForgetChainBlocks(ctx, n.CAIP2, watcher, from); err != nil {
			return err
		}
		if eventType == api.WebhookBalanceConfirmedUpdates { // the histories it wrote (chainhistory.go) are read again
			if err := tx.ForgetChainTransactions(ctx, n.CAIP2, from); err != nil {
				return err
			}
		}
		return tx.SetChainCursor(ctx, n.CAIP2, watcher, store.ChainCursor{Next: from})
	})
	if err != nil {
		return 0, err
	}
	if withdrawn {
		c.notifyWebhooks()
	}
	return from, nil
}

// reorgWindow is how many blocks behind its cursor a watcher keeps the hashes of: the deepest reorganisation it
// follows back to the common ancestor.
const reorgWindow = 256

// commonAncestor walks back from the block before last, comparing the hashes the watcher kept with the node's, and
// returns the block after the latest that matches (found). When none matches it returns the lowest block it found
// replaced: the watcher read nothing before it, or forgot it (a fork deeper than reorgWindow), so it knows no better
// place to read again from; last when it had nothing to compare.
func (c *Coordinator) commonAncestor(ctx context.Context, client *ethclient.Client, n Network, watcher string, head, last uint64) (next uint64, found bool, err error) {
	lowest := last - min(last, reorgWindow)
	kept, err := c.store.ChainBlocks(ctx, n.CAIP2, watcher, lowest, last)
	if err != nil {
		return 0, false, err
	}
	next = last
	for b := last; b > lowest; {
		b--
		hash, ok := kept[b]
		if !ok {
			break
		}
		if b <= head {
			h, err := client.HeaderByNumber(ctx, new(big.Int).SetUint64(b))
			if err != nil {
				return 0, false, fmt.Errorf("block %d: %w", b, err)
			}
			if h.Hash().Hex() == hash {
				return b + 1, true, nil
			}
		}
		next = b
	}
	return next, false, nil
}

// withdrawnPrefix begins the event id of a withdrawal: "withdrawn:" and the id of the finalized event it withdraws.
const withdrawnPrefix = "withdrawn:"

// withdrawals are, for every finalized balance event of the network's blocks from a height on (blocks a
// reorganisation replaced), an event that withdraws it: the same body with "removed": true, under the event id
// withdrawnPrefix + its own, to the same endpoint (at its URL as it is now; none if it was deleted or deactivated)
// and subject, after it. Turnkey has no such event; without it a receiver would keep a finalized change the chain no
// longer has.
func (c *Coordinator) withdrawals(ctx context.Context, n Network, from uint64) ([]store.WebhookDelivery, error) {
	sent, err := c.store.WebhookDeliveriesSince(ctx, api.WebhookBalanceFinalizedUpdates, n.CAIP2+":", int64(from), withdrawnPrefix)
	if err != nil {
		return nil, err
	}
	endpoints := map[string]*WebhookEndpoint{} // by id, nil when gone or inactive
	var ds []store.WebhookDelivery
	for _, d := range sent {
		e, seen := endpoints[d.EndpointID]
		if !seen {
			e = c.billingEndpoint(ctx, d.OrgID, d.EndpointID)
			endpoints[d.EndpointID] = e
		}
		if e == nil {
			continue
		}
		var ev balanceEvent
		if err := json.Unmarshal(d.Body, &ev); err != nil {
			return nil, fmt.Errorf("withdrawing balance event %s: %w", d.EventID, err)
		}
		ev.Removed = true
		body, err := json.Marshal(ev)
		if err != nil {
			return nil, err
		}
		ds = append(ds, store.WebhookDelivery{ID: store.NewDeliveryID(), EventID: withdrawnPrefix + d.EventID, EndpointID: e.ID, OrgID: d.OrgID,
			Tenant: d.Tenant, URL: e.URL,
			EventType: d.EventType, Subject: d.Subject, Sequence: d.Sequence, Body: body, CreatedAt: c.now().UnixNano()})
	}
	return ds, nil
}

// billingEndpoint is an active endpoint of the organization's billing organization (its parent, or itself), which
// balance events go to; nil when there is none by that id.
func (c *Coordinator) billingEndpoint(ctx context.Context, orgID, endpointID string) *WebhookEndpoint {
	org, err := c.loadOrg(ctx, orgID)
	if err == nil && org.ParentID != "" {
		org, err = c.loadOrg(ctx, org.ParentID)
	}
	if err != nil {
		return nil
	}
	if e := org.webhook(endpointID); e != nil && e.Active {
		return e
	}
	return nil
}

// enqueueNewEvents writes the deliveries whose event its endpoint has not had yet, and says whether it wrote any.
func enqueueNewEvents(ctx context.Context, tx *store.Tx, ds []store.WebhookDelivery) (bool, error) {
	var fresh []store.WebhookDelivery
	for _, d := range ds {
		done, err := tx.WebhookEventExists(ctx, d.EndpointID, d.EventID)
		if err != nil {
			return false, err
		}
		if !done {
			fresh = append(fresh, d)
		}
	}
	return len(fresh) > 0, tx.EnqueueWebhookDeliveries(ctx, fresh)
}

// readBlock writes the block's balance events for the watcher's type, and for the confirmed watcher its history
// entries (chainhistory.go), and moves its cursor past it, in one transaction.
func (c *Coordinator) readBlock(ctx context.Context, client *ethclient.Client, n Network, eventType, watcher string, number uint64) error {
	block, err := client.BlockByNumber(ctx, new(big.Int).SetUint64(number))
	if err != nil {
		return fmt.Errorf("block %d: %w", number, err)
	}
	logs, err := transferLogs(ctx, client, block)
	if err != nil {
		return err
	}
	ref := blockRef{Number: number, Hash: block.Hash().Hex(), Time: strconv.FormatUint(block.Time(), 10)}
	ds, err := c.balanceDeliveries(ctx, n, eventType, ref, blockChanges(block, logs))
	if err != nil {
		return err
	}
	var history []store.ChainTransaction
	if eventType == api.WebhookBalanceConfirmedUpdates {
		if history, err = c.evmHistory(ctx, client, n, block, logs); err != nil {
			return err
		}
	}
	return c.commitBalances(ctx, n.CAIP2, watcher, ds, history, ref, true)
}

// blockRef is what a balance event says of its block: its number (a Solana cluster's slot), hash (blockhash) and
// time (unix seconds; "" when the node does not know it).
type blockRef struct {
	Number     uint64
	Hash, Time string
}

// commitBalances writes a block's deliveries and history entries and moves the watcher's cursor past it, in one
// transaction; keepHash also keeps the block's hash, to find the common ancestor after a reorganisation (EVM).
func (c *Coordinator) commitBalances(ctx context.Context, network, watcher string, ds []store.WebhookDelivery, history []store.ChainTransaction,
	block blockRef, keepHash bool) error {
	err := c.store.Write(ctx, func(tx *store.Tx) error {
		if err := tx.EnqueueWebhookDeliveries(ctx, ds); err != nil {
			return err
		}
		if err := tx.RecordChainTransactions(ctx, history); err != nil {
			return err
		}
		if keepHash {
			if err := tx.RecordChainBlock(ctx, network, watcher, block.Number, block.Hash, reorgWindow); err != nil {
				return err
			}
		}
		return tx.SetChainCursor(ctx, network, watcher, store.ChainCursor{Next: block.Number + 1, LastHash: block.Hash})
	})
	if err == nil && len(ds) > 0 {
		c.notifyWebhooks()
	}
	return err
}

// transferLogs are the block's Transfer(address,address,uint256) events (ERC-20, and ERC-721, which blockChanges skips).
func transferLogs(ctx context.Context, client *ethclient.Client, block *types.Block) ([]types.Log, error) {
	hash := block.Hash()
	logs, err := client.FilterLogs(ctx, ethereum.FilterQuery{BlockHash: &hash, Topics: [][]common.Hash{{transferTopic}}})
	if err != nil {
		return nil, fmt.Errorf("logs of block %d: %w", block.NumberU64(), err)
	}
	return logs, nil
}

// blockChanges are the block's native transfers (value from sender to recipient) and ERC-20 Transfer events, each seen
// from both of its addresses.
func blockChanges(block *types.Block, logs []types.Log) []balanceChange {
	var out []balanceChange
	signer := types.LatestSignerForChainID(nil)
	for _, tx := range block.Transactions() {
		if tx.Value().Sign() == 0 || tx.To() == nil {
			continue
		}
		if tx.ChainId().Sign() != 0 {
			signer = types.LatestSignerForChainID(tx.ChainId())
		}
		from, err := types.Sender(signer, tx)
		if err != nil {
			continue
		}
		native := asset{Type: "native"}
		out = append(out, balanceChange{Address: from.Hex(), Direction: "out", Asset: native, Amount: tx.Value().String(), TxHash: tx.Hash().Hex(), Block: block.NumberU64()},
			balanceChange{Address: tx.To().Hex(), Direction: "in", Asset: native, Amount: tx.Value().String(), TxHash: tx.Hash().Hex(), Block: block.NumberU64()})
	}
	for _, l := range logs {
		if len(l.Topics) != 3 || len(l.Data) != 32 { // an ERC-721 Transfer has its id as a third topic
			continue
		}
		token := asset{Type: "erc20", Contract: l.Address.Hex()}
		amount := new(big.Int).SetBytes(l.Data).String()
		from, to := common.BytesToAddress(l.Topics[1].Bytes()), common.BytesToAddress(l.Topics[2].Bytes())
		idx := l.Index
		out = append(out, balanceChange{Address: from.Hex(), Direction: "out", Asset: token, Amount: amount, TxHash: l.TxHash.Hex(), LogIndex: &idx, Block: block.NumberU64()},
			balanceChange{Address: to.Hex(), Direction: "in", Asset: token, Amount: amount, TxHash: l.TxHash.Hex(), LogIndex: &idx, Block: block.NumberU64()})
	}
	return out
}

// balanceDeliveries are the outbox rows of the changes that touch an organization's address: one per endpoint of the
// organization's billing organization (itself, or its parent) subscribed to the event type.
func (c *Coordinator) balanceDeliveries(ctx context.Context, n Network, eventType string, block blockRef, changes []balanceChange) ([]store.WebhookDelivery, error) {
	hitsOf := map[string][]store.IndexHit{} // by address: an address is on both ends of its transfers, and in several
	orgs := map[string]*Org{}               // billing organizations by id, each read once a block (nil: gone)
	var ds []store.WebhookDelivery
	for _, ch := range changes {
		key := addressKey(ch.Address)
		hits, seen := hitsOf[key]
		if !seen {
			var err error
			if hits, err = c.addressOwners(ctx, key); err != nil {
				return nil, err
			}
			hitsOf[key] = hits
		}
		for _, hit := range hits {
			billing := cmp.Or(hit.ParentID, hit.OrgID)
			org, read := orgs[billing]
			if !read {
				org, _ = c.loadOrg(ctx, billing) // nil when deleted meanwhile
				orgs[billing] = org
			}
			if org == nil {
				continue
			}
			var body []byte
			for _, e := range org.Webhooks {
				if !e.wantsBalance(eventType, n.CAIP2, ch.Address) {
					continue
				}
				if body == nil {
					var err error
					body, err = json.Marshal(balanceEvent{Type: eventType, Network: n.CAIP2, OrganizationID: hit.OrgID, balanceChange: ch,
						BlockNumber: strconv.FormatUint(block.Number, 10), BlockHash: block.Hash, Timestamp: block.Time})
					if err != nil {
						return nil, err
					}
				}
				ds = append(ds, store.WebhookDelivery{ID: store.NewDeliveryID(), EventID: balanceEventID(eventType, n.CAIP2, ch, block.Hash),
					EndpointID: e.ID, OrgID: hit.OrgID, Tenant: billing, URL: e.URL, EventType: eventType, Subject: n.CAIP2 + ":" + key,
					Sequence: int64(block.Number), Body: body, CreatedAt: c.now().UnixNano()})
			}
		}
	}
	return ds, nil
}

// balanceEventID names a change the same way on every attempt and every read of its block: the event type, the
// network, the transaction (and log), the address and the side; a finalized change also its block, so that a change
// finalized again in another block after a reorganisation withdrew it is a new event, not a duplicate.
func balanceEventID(eventType, network string, ch balanceChange, blockHash string) string {
	parts := []string{"confirmed", network, ch.TxHash}
	if eventType == api.WebhookBalanceFinalizedUpdates {
		parts[0] = "finalized"
	}
	if ch.LogIndex != nil {
		parts[2] += ":" + strconv.FormatUint(uint64(*ch.LogIndex), 10)
	}
	parts = append(parts, addressKey(ch.Address), ch.Direction)
	if eventType == api.WebhookBalanceFinalizedUpdates {
		parts = append(parts, blockHash)
	}
	return strings.Join(parts, ":")
}

// wantsBalance reports whether the endpoint receives the balance event: subscribed to its type, and its filters
// (networks, addresses) hold it.
func (e *WebhookEndpoint) wantsBalance(eventType, network, address string) bool {
	if !e.Active {
		return false
	}
	for _, s := range e.Subscriptions {
		if s.Active && s.EventType == eventType && s.Filters.matchesBalance(network, address) {
			return true
		}
	}
	return false
}
