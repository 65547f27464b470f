package coordinator

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/keys"
	"github.com/sigil/sigil/internal/send"
	"github.com/sigil/sigil/internal/solanarpc"
)

// Chain data: what the networks the balance watchers follow (WatchBalances) say of an organization's wallet account
// addresses. Balances are read from the network's node at the last block the confirmed watcher read — the native
// coin and every token the network lists (Network.Tokens), EVM ones in one batched call — and kept per address until
// the watcher reads the next block. The supported assets are the network's native coin and its tokens, a token's
// symbol, name and decimals read from its contract when the configuration does not give them. The histories are
// what the confirmed watcher wrote as it read each block (chainhistory.go).

// The native coins of networks that configure none.
var (
	etherAsset = send.Token{Symbol: "ETH", Name: "Ether", Decimals: 18}
	solAsset   = send.Token{Symbol: "SOL", Name: "Solana", Decimals: 9}
)

// The SLIP-44 coin types of the native assets' CAIP-19 ids.
const (
	slip44Ether  = "60"
	slip44Solana = "501"
)

// chainNetwork is a followed network as chain data serves it.
type chainNetwork struct {
	Network
	solana bool
	evm    *rpc.Client       // nil for a Solana cluster
	sol    *solanarpc.Client // nil for an EVM network

	assetsMu sync.Mutex
	assets   []chainAsset           // the native coin first, then the tokens; nil until their metadata is read
	byToken  map[string]*chainAsset // the tokens by address as the address index keys it (EVM) or mint (Solana)
}

// chainAsset is an asset with its CAIP-19 id.
type chainAsset struct {
	send.Token
	CAIP19 string
}

// chains are the followed networks by CAIP-2 id.
type chains struct{ byID map[string]*chainNetwork }

// FollowChains makes the networks the ones chain data serves (WatchBalances does it too): the stack calls it before it
// starts the watchers, so that no query comes before it.
func (c *Coordinator) FollowChains(networks []Network) error {
	cs := &chains{byID: map[string]*chainNetwork{}}
	for _, n := range networks {
		cn := &chainNetwork{Network: n, solana: strings.HasPrefix(n.CAIP2, solanaNamespace)}
		if cn.solana {
			for _, t := range n.Tokens {
				if t.Symbol == "" || t.Address == "" {
					return fmt.Errorf("chain data: %s: an SPL token's mint, symbol, name and decimals must be configured", n.CAIP2)
				}
			}
			cn.sol = solanarpc.New(n.RPCURL)
		} else {
			client, err := rpc.DialOptions(context.Background(), n.RPCURL)
			if err != nil {
				return fmt.Errorf("chain data: %s: %w", n.CAIP2, err)
			}
			cn.evm = client
		}
		cs.byID[n.CAIP2] = cn
	}
	c.chainData.chains.Store(cs)
	return nil
}

// chainsState is the coordinator's chain data: the followed networks and the balances read at their last blocks.
type chainsState struct {
	chains   atomic.Pointer[chains]
	balances cache[*blockBalances]
}

// blockBalances are an address's balances at one block.
type blockBalances struct {
	block    uint64
	balances []api.AssetBalance
}

// followed finds a followed network by CAIP-2 id (a Solana alias resolved), as the queries name it.
func (c *Coordinator) followed(caip2 string) (*chainNetwork, error) {
	id := caip2
	if strings.HasPrefix(caip2, solanaNamespace) {
		if canonical, err := send.NormalizeSolanaCAIP2(caip2); err == nil {
			id = canonical
		}
	}
	if cs := c.chainData.chains.Load(); cs != nil {
		if n := cs.byID[id]; n != nil {
			return n, nil
		}
	}
	return nil, apierr.New(apierr.InvalidArgument, "INVALID_CAIP2", "caip2: %q is not a network this server follows (%s)", truncate(caip2, 80), c.followedNames())
}

func (c *Coordinator) followedNames() string {
	cs := c.chainData.chains.Load()
	if cs == nil || len(cs.byID) == 0 {
		return "it follows none"
	}
	var ids []string
	for id := range cs.byID {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return "it follows " + strings.Join(ids, ", ")
}

// address checks an address for the network's chain family and returns it as the address index keys it.
func (n *chainNetwork) address(a string) (string, error) {
	evmLike := common.IsHexAddress(a) && strings.HasPrefix(a, "0x")
	b, err := keys.Base58Decode(a)
	solanaLike := err == nil && len(b) == 32
	switch {
	case n.solana && solanaLike, !n.solana && evmLike:
		return addressKey(a), nil
	case n.solana && evmLike:
		return "", apierr.New(apierr.InvalidArgument, "INVALID_ADDRESS", "address: %s is an EVM address; %s is a Solana cluster", a, n.CAIP2)
	case !n.solana && solanaLike:
		return "", apierr.New(apierr.InvalidArgument, "INVALID_ADDRESS", "address: %s is a Solana address; %s is an EVM network", a, n.CAIP2)
	case n.solana:
		return "", apierr.New(apierr.InvalidArgument, "INVALID_ADDRESS", "address: %q is not a Solana address (32 bytes in base58)", truncate(a, 80))
	default:
		return "", apierr.New(apierr.InvalidArgument, "INVALID_ADDRESS", "address: %q is not an EVM address (0x and 40 hexadecimal digits)", truncate(a, 80))
	}
}

// walletAddress resolves a query's network and address, which must be a wallet account of the organization: private
// key addresses are not served, as the reference's.
func (r *reader) walletAddress(caip2, address string) (*chainNetwork, string, error) {
	n, err := r.c.followed(caip2)
	if err != nil {
		return nil, "", err
	}
	key, err := n.address(address)
	if err != nil {
		return nil, "", err
	}
	s, err := r.signer(address)
	switch {
	case err != nil:
		return nil, "", apierr.NotFoundf("address: %s is not a wallet account of organization %s", address, r.org.ID)
	case s.account == nil:
		return nil, "", apierr.Invalid("address: %s is a private key's address; only wallet account addresses are supported", address)
	}
	return n, key, nil
}

// caip19 is an asset's CAIP-19 id on the network.
func (n *chainNetwork) caip19(a send.Token) string {
	switch {
	case a.Address == "" && n.solana:
		return n.CAIP2 + "/slip44:" + slip44Solana
	case a.Address == "":
		return n.CAIP2 + "/slip44:" + slip44Ether
	case n.solana:
		return n.CAIP2 + "/token:" + a.Address
	default:
		return n.CAIP2 + "/erc20:" + strings.ToLower(a.Address)
	}
}

// supportedAssets are the network's native coin, then its tokens, their metadata read once from their contracts
// where the configuration lacks it.
func (n *chainNetwork) supportedAssets(ctx context.Context) ([]chainAsset, error) {
	n.assetsMu.Lock()
	defer n.assetsMu.Unlock()
	if n.assets == nil { // a node that did not answer is asked again next time
		assets, byToken, err := n.resolveAssets(ctx)
		if err != nil {
			return nil, err
		}
		n.assets, n.byToken = assets, byToken
	}
	return n.assets, nil
}

// token is a listed token by address or mint; nil for one the network does not list.
func (n *chainNetwork) token(ctx context.Context, address string) *chainAsset {
	if _, err := n.supportedAssets(ctx); err != nil {
		return nil
	}
	n.assetsMu.Lock()
	defer n.assetsMu.Unlock()
	return n.byToken[addressKey(address)]
}

func (n *chainNetwork) resolveAssets(ctx context.Context) ([]chainAsset, map[string]*chainAsset, error) {
	native := n.NativeToken
	if native.Symbol == "" {
		native = etherAsset
		if n.solana {
			native = solAsset
		}
	}
	native.Address = ""
	out := []chainAsset{{Token: native, CAIP19: n.caip19(native)}}
	var unknown []int
	for i, t := range n.Tokens {
		if t.Symbol == "" {
			unknown = append(unknown, i)
		}
	}
	var meta map[int]send.Token
	if len(unknown) > 0 { // EVM only: a Solana cluster's tokens are configured whole (FollowChains)
		var err error
		if meta, err = n.erc20Metadata(ctx, unknown); err != nil {
			return nil, nil, err
		}
	}
	for i, t := range n.Tokens {
		if m, ok := meta[i]; ok {
			t = m
		}
		out = append(out, chainAsset{Token: t, CAIP19: n.caip19(t)})
	}
	byToken := map[string]*chainAsset{}
	for i := range out[1:] {
		byToken[addressKey(out[i+1].Address)] = &out[i+1]
	}
	return out, byToken, nil
}

// The ERC-20 calls chain data makes.
var (
	erc20Symbol    = hexutil.MustDecode("0x95d89b41") // symbol()
	erc20Name      = hexutil.MustDecode("0x06fdde03") // name()
	erc20Decimals  = hexutil.MustDecode("0x313ce567") // decimals()
	erc20BalanceOf = hexutil.MustDecode("0x70a08231") // balanceOf(address)
)

// erc20Metadata reads the symbol, name and decimals of the tokens at the indexes, in one batch.
func (n *chainNetwork) erc20Metadata(ctx context.Context, indexes []int) (map[int]send.Token, error) {
	var batch []rpc.BatchElem
	results := make([][3]hexutil.Bytes, len(indexes))
	for j, i := range indexes {
		to := common.HexToAddress(n.Tokens[i].Address)
		for k, data := range [][]byte{erc20Symbol, erc20Name, erc20Decimals} {
			batch = append(batch, rpc.BatchElem{Method: "eth_call", Args: []any{callArgs(to, data), "latest"}, Result: &results[j][k]})
		}
	}
	if err := n.evm.BatchCallContext(ctx, batch); err != nil {
		return nil, fmt.Errorf("chain data: %s: token metadata: %w", n.CAIP2, err)
	}
	out := map[int]send.Token{}
	for j, i := range indexes {
		for _, e := range batch[j*3 : j*3+3] {
			if e.Error != nil {
				return nil, fmt.Errorf("chain data: %s: token %s does not answer as an ERC-20: %w", n.CAIP2, n.Tokens[i].Address, e.Error)
			}
		}
		symbol, err1 := abiString(results[j][0])
		name, err2 := abiString(results[j][1])
		decimals := new(big.Int).SetBytes(results[j][2])
		if err := errors.Join(err1, err2); err != nil || len(results[j][2]) != 32 || decimals.Cmp(big.NewInt(77)) > 0 {
			return nil, fmt.Errorf("chain data: %s: token %s does not answer as an ERC-20", n.CAIP2, n.Tokens[i].Address)
		}
		a := n.Tokens[i]
		a.Symbol, a.Name, a.Decimals = symbol, name, int(decimals.Int64())
		out[i] = a
	}
	return out, nil
}

func callArgs(to common.Address, data []byte) map[string]any {
	return map[string]any{"to": to, "data": hexutil.Bytes(data)}
}

// abiString decodes an ABI-encoded string return value; some old tokens return bytes32, read as text.
func abiString(b []byte) (string, error) {
	if len(b) == 32 {
		return strings.TrimRight(string(b), "\x00"), nil
	}
	if len(b) < 64 {
		return "", errors.New("not an ABI string")
	}
	off := new(big.Int).SetBytes(b[:32])
	if !off.IsUint64() || off.Uint64()+32 > uint64(len(b)) {
		return "", errors.New("not an ABI string")
	}
	o := off.Uint64()
	l := new(big.Int).SetBytes(b[o : o+32])
	if !l.IsUint64() || o+32+l.Uint64() > uint64(len(b)) || l.Uint64() > 256 {
		return "", errors.New("not an ABI string")
	}
	return string(b[o+32 : o+32+l.Uint64()]), nil
}

// The queries of this file and chainhistory.go.
var (
	getWalletAddressBalances  = query(api.GetWalletAddressBalances, queryGetWalletAddressBalances)
	listSupportedAssets       = query(api.ListSupportedAssets, queryListSupportedAssets)
	listEthTransactionHistory = query(api.ListEthTransactionHistory, queryListEthTransactionHistory)
	listSolTransactionHistory = query(api.ListSolTransactionHistory, queryListSolTransactionHistory)
)

func queryListSupportedAssets(r *reader, q *api.ListSupportedAssetsRequest) (*api.ListSupportedAssetsResponse, error) {
	n, err := r.c.followed(q.CAIP2)
	if err != nil {
		return nil, err
	}
	assets, err := n.supportedAssets(r.ctx)
	if err != nil {
		return nil, chainUnavailable(n.CAIP2, err)
	}
	out := &api.ListSupportedAssetsResponse{Assets: make([]api.AssetMetadata, 0, len(assets))}
	for _, a := range assets {
		out.Assets = append(out.Assets, api.AssetMetadata{CAIP19: a.CAIP19, Symbol: a.Symbol, Decimals: a.Decimals, LogoURL: a.LogoURI,
			Name: a.Name, Stable: a.Stable})
	}
	return out, nil
}

// chainUnavailable is the answer when a network's node does not answer a read (chain data, Earn, send statuses).
func chainUnavailable(caip2 string, err error) error {
	return apierr.New(apierr.Unavailable, "NETWORK_UNAVAILABLE", "%s: the node did not answer; try again (%s)", caip2, truncate(err.Error(), 200))
}

func queryGetWalletAddressBalances(r *reader, q *api.GetWalletAddressBalancesRequest) (*api.GetWalletAddressBalancesResponse, error) {
	n, key, err := r.walletAddress(q.CAIP2, q.Address)
	if err != nil {
		return nil, err
	}
	balances, err := r.c.balances(r.ctx, n, key, q.Address)
	if err != nil {
		return nil, chainUnavailable(n.CAIP2, err)
	}
	return &api.GetWalletAddressBalancesResponse{Balances: balances}, nil
}

// balances are an address's non-zero balances at the last block the confirmed watcher read, kept until it reads the
// next one.
func (c *Coordinator) balances(ctx context.Context, n *chainNetwork, key, address string) ([]api.AssetBalance, error) {
	block, err := c.watchedBlock(ctx, n)
	if err != nil {
		return nil, err
	}
	id := n.CAIP2 + "|" + key
	if kept, ok := c.chainData.balances.get(id); ok && kept.block == block {
		return kept.balances, nil
	}
	assets, err := n.supportedAssets(ctx)
	if err != nil {
		return nil, err
	}
	var amounts []*big.Int
	if n.solana {
		amounts, err = n.solanaBalances(ctx, address, assets)
	} else {
		amounts, err = n.evmBalances(ctx, common.HexToAddress(address), block, assets)
	}
	if err != nil {
		return nil, err
	}
	out := n.renderBalances(assets, amounts)
	c.chainData.balances.put(id, &blockBalances{block: block, balances: out}, func(old *blockBalances) bool { return old.block > block })
	return out, nil
}

// renderBalances are the non-zero amounts of the assets (in their order) as the reference shows them.
func (n *chainNetwork) renderBalances(assets []chainAsset, amounts []*big.Int) []api.AssetBalance {
	out := []api.AssetBalance{}
	for i, a := range assets {
		if amounts[i] == nil || amounts[i].Sign() == 0 {
			continue // the reference returns non-zero balances only
		}
		b := api.AssetBalance{CAIP19: a.CAIP19, Symbol: a.Symbol, Balance: amounts[i].String(), Decimals: a.Decimals, Name: a.Name,
			Display: &api.AssetBalanceDisplay{Crypto: displayAmount(amounts[i], a.Decimals)}}
		if n.solana && a.Address != "" {
			b.TokenProgram = splTokenProgram
		}
		out = append(out, b)
	}
	return out
}

// watchedBlock is the last block (slot) the network's confirmed watcher read; before it has read any, the node's
// head, which it is about to read.
func (c *Coordinator) watchedBlock(ctx context.Context, n *chainNetwork) (uint64, error) {
	cursor, found, err := c.store.ChainCursor(ctx, n.CAIP2, balanceWatchers[api.WebhookBalanceConfirmedUpdates])
	if err != nil {
		return 0, err
	}
	if found && cursor.Next > 0 {
		return cursor.Next - 1, nil
	}
	if n.solana {
		var slot uint64
		err := n.sol.Call(ctx, "getSlot", &slot, map[string]string{"commitment": "confirmed"})
		return slot, err
	}
	var head hexutil.Uint64
	err = n.evm.CallContext(ctx, &head, "eth_blockNumber")
	return uint64(head), err
}

// evmBalances reads the native balance and every token's at the block, in one batched call.
func (n *chainNetwork) evmBalances(ctx context.Context, owner common.Address, block uint64, assets []chainAsset) ([]*big.Int, error) {
	at := hexutil.EncodeUint64(block)
	results := make([]hexutil.Big, len(assets))
	raw := make([]hexutil.Bytes, len(assets))
	batch := make([]rpc.BatchElem, len(assets))
	for i, a := range assets {
		if a.Address == "" {
			batch[i] = rpc.BatchElem{Method: "eth_getBalance", Args: []any{owner, at}, Result: &results[i]}
			continue
		}
		data := append(slices.Clone(erc20BalanceOf), common.LeftPadBytes(owner.Bytes(), 32)...)
		batch[i] = rpc.BatchElem{Method: "eth_call", Args: []any{callArgs(common.HexToAddress(a.Address), data), at}, Result: &raw[i]}
	}
	if err := n.evm.BatchCallContext(ctx, batch); err != nil {
		return nil, err
	}
	out := make([]*big.Int, len(assets))
	for i, a := range assets {
		if err := batch[i].Error; err != nil {
			return nil, fmt.Errorf("balance of %s: %w", a.Symbol, err)
		}
		if a.Address == "" {
			out[i] = results[i].ToInt()
		} else if len(raw[i]) == 32 {
			out[i] = new(big.Int).SetBytes(raw[i])
		}
	}
	return out, nil
}

// splTokenProgram is the program of the SPL tokens chain data reads.
const splTokenProgram = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"

// solanaBalances reads the native balance and, when the cluster lists tokens, the owner's SPL token accounts, at
// confirmed commitment.
func (n *chainNetwork) solanaBalances(ctx context.Context, owner string, assets []chainAsset) ([]*big.Int, error) {
	confirmed := map[string]any{"commitment": "confirmed"}
	var native struct {
		Value uint64 `json:"value"`
	}
	if err := n.sol.Call(ctx, "getBalance", &native, owner, confirmed); err != nil {
		return nil, fmt.Errorf("getBalance: %w", err)
	}
	out := make([]*big.Int, len(assets))
	out[0] = new(big.Int).SetUint64(native.Value)
	if len(assets) == 1 {
		return out, nil
	}
	var accounts struct {
		Value []struct {
			Account struct {
				Data struct {
					Parsed struct {
						Info struct {
							Mint        string `json:"mint"`
							TokenAmount struct {
								Amount string `json:"amount"`
							} `json:"tokenAmount"`
						} `json:"info"`
					} `json:"parsed"`
				} `json:"data"`
			} `json:"account"`
		} `json:"value"`
	}
	err := n.sol.Call(ctx, "getTokenAccountsByOwner", &accounts, owner, map[string]string{"programId": splTokenProgram},
		map[string]any{"commitment": "confirmed", "encoding": "jsonParsed"})
	if err != nil {
		return nil, fmt.Errorf("getTokenAccountsByOwner: %w", err)
	}
	index := map[string]int{}
	for i, a := range assets[1:] {
		index[a.Address] = i + 1
	}
	for _, acc := range accounts.Value {
		info := acc.Account.Data.Parsed.Info
		i, ok := index[info.Mint]
		amount, valid := new(big.Int).SetString(info.TokenAmount.Amount, 10)
		if !ok || !valid {
			continue
		}
		if out[i] == nil {
			out[i] = new(big.Int)
		}
		out[i].Add(out[i], amount) // an owner may hold a mint in several token accounts
	}
	return out, nil
}

// displayAmount writes an amount in the asset's whole units, without trailing zeros: for people, never for arithmetic.
func displayAmount(amount *big.Int, decimals int) string {
	s := new(big.Int).Abs(amount).String()
	if decimals > 0 {
		if len(s) <= decimals {
			s = strings.Repeat("0", decimals-len(s)+1) + s
		}
		whole, frac := s[:len(s)-decimals], strings.TrimRight(s[len(s)-decimals:], "0")
		s = whole
		if frac != "" {
			s += "." + frac
		}
	}
	if amount.Sign() < 0 {
		s = "-" + s
	}
	return s
}

// uintString writes a block number or slot for the wire.
func uintString(n uint64) string { return strconv.FormatUint(n, 10) }
