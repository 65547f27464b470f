package coordinator

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/store"
)

// Transaction histories. The confirmed balance watcher, as it reads a block, writes an entry for each transaction and
// each wallet account address the transaction touches (its sender, its recipient, a party to one of its ERC-20
// transfers or, on Solana, one of its accounts or the owner of one of its token accounts), in the transaction that
// moves its cursor past the block: a history survives restarts and misses no block the watcher read. When a
// reorganisation makes the watcher read blocks again, the entries of the blocks from the common ancestor on are
// deleted in the transaction that moves its cursor back, and written again as the new blocks are read (balances.go).
// An entry is stored as the address sees it (its transfers' directions); its status (FINALIZED once the finalized
// watcher has read its block, CONFIRMED before) and whether the coordinator sent it (a send of the organization with
// its hash) are found when it is read. Histories begin when the watcher first reads a network: earlier blocks are not
// replayed.

// evmHistory is the history entries of an EVM block: for every transaction touching an organization's address, one
// entry per such address. transfers are the block's ERC-20 Transfer logs (blockChanges read them).
func (c *Coordinator) evmHistory(ctx context.Context, client *ethclient.Client, n Network, block *types.Block, transfers []types.Log) ([]store.ChainTransaction, error) {
	txs := block.Transactions()
	parties := make([][]common.Address, len(txs)) // the addresses each transaction touches
	senders := make([]common.Address, len(txs))
	position := map[common.Hash]int{}
	for i, tx := range txs {
		position[tx.Hash()] = i
		from, err := types.Sender(types.LatestSignerForChainID(tx.ChainId()), tx)
		if err != nil {
			continue
		}
		senders[i] = from
		parties[i] = append(parties[i], from)
		if tx.To() != nil {
			parties[i] = append(parties[i], *tx.To())
		}
	}
	for _, l := range transfers {
		if i, ok := position[l.TxHash]; ok && len(l.Topics) == 3 {
			parties[i] = append(parties[i], common.BytesToAddress(l.Topics[1].Bytes()), common.BytesToAddress(l.Topics[2].Bytes()))
		}
	}
	hits, err := c.orgAddresses(ctx, parties)
	if err != nil || len(hits) == 0 {
		return nil, err
	}
	cn, err := c.followed(n.CAIP2)
	if err != nil {
		return nil, err
	}
	var out []store.ChainTransaction
	for i, tx := range txs {
		touched := touchedBy(parties[i], hits)
		if len(touched) == 0 {
			continue
		}
		receipt, err := client.TransactionReceipt(ctx, tx.Hash())
		if err != nil {
			return nil, fmt.Errorf("receipt of %s: %w", tx.Hash().Hex(), err)
		}
		for _, a := range touched {
			item := evmEntry(ctx, cn, block, tx, senders[i], receipt, a)
			raw, err := json.Marshal(item)
			if err != nil {
				return nil, err
			}
			out = append(out, store.ChainTransaction{Network: n.CAIP2, Address: addressKey(a.Hex()), Block: block.NumberU64(), Position: i,
				TxHash: tx.Hash().Hex(), Item: raw})
		}
	}
	return out, nil
}

// orgAddresses are the addresses among the parties that are an organization's wallet account's, asked at once: chain
// data serves the histories of wallet accounts only, as the reference does.
func (c *Coordinator) orgAddresses(ctx context.Context, parties [][]common.Address) (map[string]bool, error) {
	var keys []string
	seen := map[string]bool{}
	for _, ps := range parties {
		for _, p := range ps {
			if k := addressKey(p.Hex()); !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	return c.store.HeldAddresses(ctx, keys)
}

// touchedBy is each organization address among the parties, once.
func touchedBy(parties []common.Address, hits map[string]bool) []common.Address {
	var out []common.Address
	for _, p := range parties {
		if hits[addressKey(p.Hex())] && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// evmEntry is a transaction as address a sees it.
func evmEntry(ctx context.Context, cn *chainNetwork, block *types.Block, tx *types.Transaction, from common.Address,
	receipt *types.Receipt, a common.Address) api.EthTransactionHistoryItem {
	native := cn.nativeAsset(ctx)
	fee := new(big.Int).Mul(new(big.Int).SetUint64(receipt.GasUsed), receiptPrice(receipt, tx))
	if receipt.BlobGasPrice != nil {
		fee.Add(fee, new(big.Int).Mul(new(big.Int).SetUint64(receipt.BlobGasUsed), receipt.BlobGasPrice))
	}
	failed := receipt.Status == types.ReceiptStatusFailed
	item := api.EthTransactionHistoryItem{TransactionHash: tx.Hash().Hex(), Block: blockOf(block.NumberU64(), block.Hash().Hex(), int64(block.Time())),
		From: from.Hex(), Fee: api.TransactionHistoryFee{Amount: fee.String(), CAIP19: native.CAIP19},
		Transfers: []api.TransactionHistoryTransfer{}, ExecutionFailed: &failed}
	to := receipt.ContractAddress
	if tx.To() != nil {
		to = *tx.To()
		item.To = to.Hex()
	}
	if failed {
		return item // it moved nothing but its fee
	}
	if tx.Value().Sign() > 0 {
		if from == a {
			item.Transfers = append(item.Transfers, transferOf(api.TransferOut, &native, tx.Value(), to.Hex()))
		}
		if to == a {
			item.Transfers = append(item.Transfers, transferOf(api.TransferIn, &native, tx.Value(), from.Hex()))
		}
	}
	for _, l := range receipt.Logs {
		if len(l.Topics) != 3 || l.Topics[0] != transferTopic || len(l.Data) != 32 {
			continue
		}
		src, dst := common.BytesToAddress(l.Topics[1].Bytes()), common.BytesToAddress(l.Topics[2].Bytes())
		amount := new(big.Int).SetBytes(l.Data)
		token := cn.token(ctx, l.Address.Hex())
		if src == a {
			item.Transfers = append(item.Transfers, transferOf(api.TransferOut, token, amount, dst.Hex()))
		}
		if dst == a {
			item.Transfers = append(item.Transfers, transferOf(api.TransferIn, token, amount, src.Hex()))
		}
	}
	return item
}

// receiptPrice is what each unit of gas cost: the receipt's effective price, or the transaction's own on a node that
// does not report it.
func receiptPrice(r *types.Receipt, tx *types.Transaction) *big.Int {
	if r.EffectiveGasPrice != nil && r.EffectiveGasPrice.Sign() > 0 {
		return r.EffectiveGasPrice
	}
	return tx.GasPrice()
}

// nativeAsset is the network's coin as chain data describes it.
func (n *chainNetwork) nativeAsset(ctx context.Context) chainAsset {
	if assets, err := n.supportedAssets(ctx); err == nil {
		return assets[0]
	}
	native := etherAsset
	if n.solana {
		native = solAsset
	}
	if n.NativeToken.Symbol != "" {
		native = n.NativeToken
	}
	native.Address = ""
	return chainAsset{Token: native, CAIP19: n.caip19(native)}
}

// transferOf is a transfer of an asset (nil: one the network does not list, shown without it).
func transferOf(direction string, a *chainAsset, amount *big.Int, counterparty string) api.TransactionHistoryTransfer {
	t := api.TransactionHistoryTransfer{Direction: direction, Amount: amount.String(), Counterparty: counterparty}
	if a != nil {
		t.Asset = &api.TransactionHistoryAsset{CAIP19: a.CAIP19, Symbol: a.Symbol, Name: a.Name, Decimals: a.Decimals}
		t.Display = &api.TransactionHistoryDisplay{Crypto: displayAmount(amount, a.Decimals)}
	}
	return t
}

// blockOf is a history entry's block; unix time 0 means the node did not say when it was made.
func blockOf(number uint64, hash string, unix int64) api.TransactionHistoryBlock {
	b := api.TransactionHistoryBlock{Number: uintString(number), Hash: hash}
	if unix > 0 {
		b.Timestamp = time.Unix(unix, 0).UTC().Format(time.RFC3339)
	}
	return b
}

// solanaHistory is the history entries of a Solana block: for every transaction one of whose accounts is an
// organization's address, one entry per such address.
func (c *Coordinator) solanaHistory(ctx context.Context, n Network, slot uint64, b *solanaBlock) ([]store.ChainTransaction, error) {
	parties := make([][]string, len(b.Transactions))
	var keys []string
	for i, tx := range b.Transactions {
		if tx.parsed == nil || tx.Meta == nil {
			continue
		}
		parties[i] = append(tx.accountKeys(), tx.tokenOwners()...)
		keys = append(keys, parties[i]...)
	}
	found, err := c.store.HeldAddresses(ctx, keys)
	if err != nil || len(found) == 0 {
		return nil, err
	}
	cn, err := c.followed(n.CAIP2)
	if err != nil {
		return nil, err
	}
	native := cn.nativeAsset(ctx)
	var blockTime int64
	if b.BlockTime != nil {
		blockTime = *b.BlockTime
	}
	var out []store.ChainTransaction
	for i, tx := range b.Transactions {
		var touched []string
		for _, k := range parties[i] {
			if found[k] && !slices.Contains(touched, k) {
				touched = append(touched, k)
			}
		}
		for _, a := range touched {
			item := tx.historyEntry(slot, b.Blockhash, blockTime, native, func(mint string) *chainAsset { return cn.token(ctx, mint) }, a)
			raw, err := json.Marshal(item)
			if err != nil {
				return nil, err
			}
			out = append(out, store.ChainTransaction{Network: n.CAIP2, Address: a, Block: slot, Position: i, TxHash: item.Signature, Item: raw})
		}
	}
	return out, nil
}

// historyEntry is a Solana transaction as address a sees it: its fee, signers, the System Program transfers to or from
// a, and its SPL token transfers (tokenTransfers); token finds a mint's asset (nil for one the cluster does not list).
func (tx *solanaBlockTx) historyEntry(slot uint64, blockhash string, blockTime int64, native chainAsset, token func(mint string) *chainAsset,
	a string) api.SolTransactionHistoryItem {
	m := &tx.parsed.Message
	failed := len(tx.Meta.Err) > 0 && string(tx.Meta.Err) != "null"
	item := api.SolTransactionHistoryItem{Signature: tx.signature(), Block: blockOf(slot, blockhash, blockTime),
		FeePayer: m.AccountKeys[0].String(), Signers: []api.SolTransactionHistorySigner{},
		Fee:       api.TransactionHistoryFee{Amount: strconv.FormatUint(tx.Meta.Fee, 10), CAIP19: native.CAIP19},
		Transfers: []api.TransactionHistoryTransfer{}, ExecutionFailed: &failed}
	for i := range int(m.Header.NumRequiredSignatures) {
		item.Signers = append(item.Signers, api.SolTransactionHistorySigner{Address: m.AccountKeys[i].String(), Writable: m.IsWritable(i)})
	}
	if failed {
		return item
	}
	for _, t := range tx.parsed.Parsed.Transfers {
		amount := new(big.Int).SetUint64(t.Amount)
		if t.From == a {
			item.Transfers = append(item.Transfers, transferOf(api.TransferOut, &native, amount, t.To))
		}
		if t.To == a {
			item.Transfers = append(item.Transfers, transferOf(api.TransferIn, &native, amount, t.From))
		}
	}
	for _, t := range tx.tokenTransfers(a) {
		item.Transfers = append(item.Transfers, transferOf(t.direction, token(t.mint), t.amount, t.counterparty))
	}
	return item
}

// solanaTokenBalance is a token account's balance in a transaction's meta, before or after it.
type solanaTokenBalance struct {
	Mint          string `json:"mint"`
	Owner         string `json:"owner"`
	UITokenAmount struct {
		Amount string `json:"amount"`
	} `json:"uiTokenAmount"`
}

// tokenOwners are the owners of the token accounts whose balances the transaction's meta lists: a transfer to a
// wallet's token account names the account, not the wallet, among the transaction's keys.
func (tx *solanaBlockTx) tokenOwners() []string {
	var out []string
	for _, b := range slices.Concat(tx.Meta.PreTokenBalances, tx.Meta.PostTokenBalances) {
		if b.Owner != "" {
			out = append(out, b.Owner)
		}
	}
	return out
}

// tokenTransfer is the change of one mint's holdings of an owner in a transaction.
type tokenTransfer struct {
	mint, direction, counterparty string
	amount                        *big.Int
}

// tokenTransfers are the SPL token transfers of the transaction as owner sees them, by mint: what the owner's token
// accounts of the mint hold after it less what they held before, IN when it grew, OUT when it shrank. The
// counterparty is the one other owner whose holdings of the mint moved the other way, "" when there are several (or
// none: a mint or a burn).
func (tx *solanaBlockTx) tokenTransfers(owner string) []tokenTransfer {
	deltas := map[string]map[string]*big.Int{} // by mint, then owner
	add := func(balances []solanaTokenBalance, sign int) {
		for _, b := range balances {
			amount, ok := new(big.Int).SetString(b.UITokenAmount.Amount, 10)
			if !ok || b.Owner == "" || b.Mint == "" {
				continue
			}
			if deltas[b.Mint] == nil {
				deltas[b.Mint] = map[string]*big.Int{}
			}
			if deltas[b.Mint][b.Owner] == nil {
				deltas[b.Mint][b.Owner] = new(big.Int)
			}
			if sign < 0 {
				amount.Neg(amount)
			}
			deltas[b.Mint][b.Owner].Add(deltas[b.Mint][b.Owner], amount)
		}
	}
	add(tx.Meta.PreTokenBalances, -1)
	add(tx.Meta.PostTokenBalances, 1)
	var out []tokenTransfer
	for _, mint := range slices.Sorted(maps.Keys(deltas)) {
		mine := deltas[mint][owner]
		if mine == nil || mine.Sign() == 0 {
			continue
		}
		t := tokenTransfer{mint: mint, direction: api.TransferIn, amount: new(big.Int).Abs(mine)}
		if mine.Sign() < 0 {
			t.direction = api.TransferOut
		}
		var others []string
		for o, d := range deltas[mint] {
			if o != owner && d.Sign() == -mine.Sign() {
				others = append(others, o)
			}
		}
		if len(others) == 1 {
			t.counterparty = others[0]
		}
		out = append(out, t)
	}
	return out
}

// A history page's cursor is "<block>_<position>": opaque to callers, valid for the address and network it came from.
func historyCursor(c store.HistoryCursor) string {
	return strconv.FormatUint(c.Block, 10) + "_" + strconv.Itoa(c.Position)
}

func parseHistoryCursor(path, s string) (*store.HistoryCursor, error) {
	if s == "" {
		return nil, nil
	}
	block, pos, ok := strings.Cut(s, "_")
	b, err1 := strconv.ParseUint(block, 10, 63)
	p, err2 := strconv.ParseUint(pos, 10, 31)
	if !ok || err1 != nil || err2 != nil || strconv.FormatUint(b, 10) != block || strconv.FormatUint(p, 10) != pos {
		return nil, apierr.Invalid("%s: %q is not a cursor of a transaction history page (use pageInfo.endCursor or startCursor)", path, truncate(s, 40))
	}
	return &store.HistoryCursor{Block: b, Position: int(p)}, nil
}

// historyPage reads a page of the address's history with the query's pagination, and says where it stands.
func (r *reader) historyPage(n *chainNetwork, key string, p *api.Pagination) ([]store.ChainTransaction, *api.PageInfo, error) {
	limit, after, before, err := pageLimit(p)
	if err != nil {
		return nil, nil, err
	}
	page := store.HistoryPage{Network: n.CAIP2, Address: key, Limit: limit + 1} // one more says whether there is a next page
	if page.After, err = parseHistoryCursor("paginationOptions.after", after); err != nil {
		return nil, nil, err
	}
	if page.Before, err = parseHistoryCursor("paginationOptions.before", before); err != nil {
		return nil, nil, err
	}
	rows, err := r.c.store.ChainTransactions(r.ctx, page)
	if err != nil {
		return nil, nil, err
	}
	info := &api.PageInfo{}
	more := len(rows) > limit
	if more && page.Before != nil {
		rows = rows[1:] // read newest first from the cursor up: the extra one is the newest
	} else if more {
		rows = rows[:limit]
	}
	if page.Before != nil {
		info.HasNextPage, info.HasPreviousPage = true, more
	} else {
		info.HasNextPage, info.HasPreviousPage = more, page.After != nil
	}
	if len(rows) > 0 {
		info.StartCursor = historyCursor(store.HistoryCursor{Block: rows[0].Block, Position: rows[0].Position})
		last := rows[len(rows)-1]
		info.EndCursor = historyCursor(store.HistoryCursor{Block: last.Block, Position: last.Position})
	}
	return rows, info, nil
}

// historyFacts are what an entry's reader adds when it is read: the block the finalized watcher has read up to, and
// the organization's sends among the page's transactions.
type historyFacts struct {
	finalized uint64 // blocks up to it are final; 0 before the finalized watcher read one
	sent      map[string]store.SentTransaction
}

func (r *reader) historyFacts(n *chainNetwork, rows []store.ChainTransaction) (historyFacts, error) {
	var f historyFacts
	cursor, found, err := r.c.store.ChainCursor(r.ctx, n.CAIP2, balanceWatchers[api.WebhookBalanceFinalizedUpdates])
	if err != nil {
		return f, err
	}
	if found && cursor.Next > 0 {
		f.finalized = cursor.Next - 1
	}
	hashes := make([]string, 0, len(rows))
	for _, row := range rows {
		hashes = append(hashes, row.TxHash)
	}
	f.sent, err = r.c.store.SentTransactions(r.ctx, r.org.ID, hashes)
	return f, err
}

func (f historyFacts) status(block uint64) string {
	if f.finalized > 0 && block <= f.finalized {
		return api.TxHistoryFinalized
	}
	return api.TxHistoryConfirmed
}

// origin says whether the coordinator sent a transaction, and how.
func (f historyFacts) origin(hash string) (string, *api.TransactionHistoryTurnkey) {
	s, ok := f.sent[hash]
	if !ok {
		return api.OriginExternal, nil
	}
	return api.OriginSigil, &api.TransactionHistoryTurnkey{Sponsored: s.Sponsored, ActivityFingerprint: wireFingerprint(s.ActivityFingerprint),
		SubmittedAt: time.Unix(0, s.SubmittedAt).UTC().Format(time.RFC3339)}
}

func queryListEthTransactionHistory(r *reader, q *api.ListTransactionHistoryRequest) (*api.ListEthTransactionHistoryResponse, error) {
	n, key, err := r.walletAddress(q.CAIP2, q.Address)
	if err != nil {
		return nil, err
	}
	if n.solana {
		return nil, apierr.New(apierr.InvalidArgument, "INVALID_CAIP2", "caip2: %s is a Solana cluster; list_eth_transaction_history lists EVM networks (use list_sol_transaction_history)", n.CAIP2)
	}
	rows, info, err := r.historyPage(n, key, q.PaginationOptions)
	if err != nil {
		return nil, err
	}
	facts, err := r.historyFacts(n, rows)
	if err != nil {
		return nil, err
	}
	out := &api.ListEthTransactionHistoryResponse{Transactions: make([]api.EthTransactionHistoryItem, 0, len(rows)), PageInfo: info}
	for _, row := range rows {
		var item api.EthTransactionHistoryItem
		if err := json.Unmarshal(row.Item, &item); err != nil {
			return nil, fmt.Errorf("history entry %s: %w", row.TxHash, err)
		}
		item.Status = facts.status(row.Block)
		item.Origin, item.Turnkey = facts.origin(row.TxHash)
		out.Transactions = append(out.Transactions, item)
	}
	return out, nil
}

func queryListSolTransactionHistory(r *reader, q *api.ListTransactionHistoryRequest) (*api.ListSolTransactionHistoryResponse, error) {
	n, key, err := r.walletAddress(q.CAIP2, q.Address)
	if err != nil {
		return nil, err
	}
	if !n.solana {
		return nil, apierr.New(apierr.InvalidArgument, "INVALID_CAIP2", "caip2: %s is an EVM network; list_sol_transaction_history lists Solana clusters (use list_eth_transaction_history)", n.CAIP2)
	}
	rows, info, err := r.historyPage(n, key, q.PaginationOptions)
	if err != nil {
		return nil, err
	}
	facts, err := r.historyFacts(n, rows)
	if err != nil {
		return nil, err
	}
	out := &api.ListSolTransactionHistoryResponse{Transactions: make([]api.SolTransactionHistoryItem, 0, len(rows)), PageInfo: info}
	for _, row := range rows {
		var item api.SolTransactionHistoryItem
		if err := json.Unmarshal(row.Item, &item); err != nil {
			return nil, fmt.Errorf("history entry %s: %w", row.TxHash, err)
		}
		item.Status = facts.status(row.Block)
		item.Origin, item.Turnkey = facts.origin(row.TxHash)
		out.Transactions = append(out.Transactions, item)
	}
	return out, nil
}
