// Package swap quotes and builds token swaps on Uniswap V3 for the coordinator's swap activities: which pools join
// two tokens, what a swap gives (QuoterV2's simulation against the pools as they are: on-chain truth, not a price
// feed), its price impact and fees, the calls that execute it through Sigil's SwapFeeRouter (the client fee, the
// on-chain minimum output) and, across chains, through Sigil's bridge; and what an executed swap gave, read from its
// receipt and the destination chain's logs. It speaks JSON-RPC with the ABIs of package abis and links nothing of the
// dev chain, so pointed at another deployment of Uniswap V3 (with SwapFeeRouter and SigilBridge beside it) it works
// unchanged.
package swap

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/sigil/sigil/internal/abis"
)

// Token is a token a venue swaps. The native coin has the zero address; its swaps go through WETH.
type Token struct {
	Address  common.Address
	Symbol   string
	Decimals uint8
	// Stable marks a stablecoin: a swap between two of them takes the stable-pair client fee.
	Stable bool
}

// Venue is one network's swap deployment.
type Venue struct {
	CAIP2  string // eip155:<chain id>
	RPCURL string
	// Uniswap V3's factory and QuoterV2, and Sigil's SwapFeeRouter, which executes swaps over Uniswap's SwapRouter.
	Factory, Quoter, Router common.Address
	// Bridge is Sigil's bridge on this network (zero: no cross-chain swaps from or to it).
	Bridge common.Address
	// WETH is the wrapped native coin, which native swaps go through.
	WETH common.Address
	// Tokens are the tokens quotes accept; a token not listed is refused.
	Tokens []Token
	// FeeTiers are the pool fees looked for between two tokens, in hundredths of a basis point (default 100, 500,
	// 3000, 10000).
	FeeTiers []uint32
	// Intermediates are the tokens a two-hop route may pass through (default: none, direct pools only).
	Intermediates []common.Address
	// BridgeTokens are the tokens the bridge carries to other networks (their addresses there are the bridge's routes).
	BridgeTokens []common.Address
	// BridgeSeconds is how long the relayer takes to release a lock, for the quote's estimate (default 6).
	BridgeSeconds int64
}

// DefaultFeeTiers are Uniswap V3's fee tiers on Ethereum.
var DefaultFeeTiers = []uint32{100, 500, 3000, 10000}

// Venues are the configured venues by CAIP-2 id, each with its JSON-RPC client and what it has learnt of its pools.
type Venues struct {
	byCAIP2 map[string]*venue
}

type venue struct {
	Venue
	chainID int64
	rpc     *rpc.Client

	poolsMu sync.Mutex
	pools   map[pairKey]pairPools // the pools of each pair, as the factory last said
}

// NewVenues checks the venues and makes their clients (which connect on first use).
func NewVenues(list []Venue) (*Venues, error) {
	v := &Venues{byCAIP2: map[string]*venue{}}
	var errs []error
	for i, c := range list {
		id, err := chainOf(c.CAIP2)
		if err != nil {
			errs = append(errs, fmt.Errorf("swap venues[%d]: %w", i, err))
			continue
		}
		if v.byCAIP2[c.CAIP2] != nil {
			errs = append(errs, fmt.Errorf("swap venues[%d]: %s is configured twice", i, c.CAIP2))
			continue
		}
		if c.Factory == (common.Address{}) || c.Quoter == (common.Address{}) || c.Router == (common.Address{}) || c.WETH == (common.Address{}) {
			errs = append(errs, fmt.Errorf("swap venues[%d]: %s needs a factory, a quoter, a router and WETH", i, c.CAIP2))
			continue
		}
		client, err := rpc.DialOptions(context.Background(), c.RPCURL, rpc.WithHTTPClient(&http.Client{}))
		if err != nil {
			errs = append(errs, fmt.Errorf("swap venues[%d]: %s: %w", i, c.CAIP2, err))
			continue
		}
		if len(c.FeeTiers) == 0 {
			c.FeeTiers = DefaultFeeTiers
		}
		if c.BridgeSeconds == 0 {
			c.BridgeSeconds = 6
		}
		v.byCAIP2[c.CAIP2] = &venue{Venue: c, chainID: id, rpc: client, pools: map[pairKey]pairPools{}}
	}
	if err := errors.Join(errs...); err != nil {
		v.Close()
		return nil, err
	}
	return v, nil
}

// Close closes the venues' clients.
func (v *Venues) Close() {
	for _, x := range v.byCAIP2 {
		x.rpc.Close()
	}
}

// List is the venues' CAIP-2 ids, sorted.
func (v *Venues) List() []string {
	var out []string
	for id := range v.byCAIP2 {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// Venue is the configuration of the venue of a CAIP-2 id.
func (v *Venues) Venue(caip2 string) (Venue, bool) {
	x, ok := v.byCAIP2[caip2]
	if !ok {
		return Venue{}, false
	}
	return x.Venue, true
}

func (v *Venues) get(caip2 string) (*venue, error) {
	if x, ok := v.byCAIP2[caip2]; ok {
		return x, nil
	}
	return nil, fmt.Errorf("swaps run on %s; %s is not one of them", strings.Join(v.List(), ", "), caip2)
}

// token is the venue's token of an address (the zero address: the native coin).
func (x *venue) token(addr common.Address) (Token, bool) {
	i := slices.IndexFunc(x.Tokens, func(t Token) bool { return t.Address == addr })
	if i < 0 {
		return Token{}, false
	}
	return x.Tokens[i], true
}

// Asset is a token on a network, as a CAIP-19 id names it: eip155:<chain>/erc20:<address>, or eip155:<chain>/slip44:60
// for the native coin.
type Asset struct {
	CAIP2  string
	Token  common.Address // zero for the native coin
	Native bool
}

// ParseAsset reads a CAIP-19 id of an EVM asset.
func ParseAsset(id string) (Asset, error) {
	chain, rest, ok := strings.Cut(id, "/")
	if _, err := chainOf(chain); err != nil || !ok {
		return Asset{}, fmt.Errorf("%q is not a CAIP-19 asset id such as eip155:1/erc20:0x... (a token) or eip155:1/slip44:60 (the native coin)", id)
	}
	switch ns, ref, _ := strings.Cut(rest, ":"); {
	case ns == "slip44" && ref == "60":
		return Asset{CAIP2: chain, Native: true}, nil
	case ns == "erc20" && common.IsHexAddress(ref) && strings.HasPrefix(ref, "0x") && len(ref) == 42:
		a := common.HexToAddress(ref)
		if a == (common.Address{}) {
			return Asset{}, fmt.Errorf("%q names the zero address", id)
		}
		return Asset{CAIP2: chain, Token: a}, nil
	}
	return Asset{}, fmt.Errorf("%q is not a CAIP-19 asset id such as eip155:1/erc20:0x... (a token) or eip155:1/slip44:60 (the native coin)", id)
}

// String is the asset's CAIP-19 id, its address in lower case (as velocity controls match it).
func (a Asset) String() string {
	if a.Native {
		return a.CAIP2 + "/slip44:60"
	}
	return a.CAIP2 + "/erc20:" + strings.ToLower(a.Token.Hex())
}

// MarshalText writes the asset as its CAIP-19 id.
func (a Asset) MarshalText() ([]byte, error) { return []byte(a.String()), nil }

// UnmarshalText reads a CAIP-19 id.
func (a *Asset) UnmarshalText(b []byte) error {
	parsed, err := ParseAsset(string(b))
	if err != nil {
		return err
	}
	*a = parsed
	return nil
}

// chainOf is the chain id of an EVM CAIP-2 id.
func chainOf(caip2 string) (int64, error) {
	rest, ok := strings.CutPrefix(caip2, "eip155:")
	id, err := strconv.ParseInt(rest, 10, 64)
	if !ok || err != nil || id <= 0 || strconv.FormatInt(id, 10) != rest {
		return 0, fmt.Errorf("%q is not an EVM CAIP-2 id (eip155:<chain id>)", caip2)
	}
	return id, nil
}

// Balance is what holder has of an asset.
func (v *Venues) Balance(ctx context.Context, a Asset, holder common.Address) (*big.Int, error) {
	x, err := v.get(a.CAIP2)
	if err != nil {
		return nil, err
	}
	b := &batch{}
	i := x.queueBalance(b, holder, a)
	if err := b.send(ctx, x); err != nil {
		return nil, err
	}
	var n *big.Int
	if a.Native {
		n, err = b.balanceOf(i)
	} else {
		n, err = b.uint(i, abis.ERC20, "balanceOf")
	}
	if err != nil {
		return nil, &UpstreamError{CAIP2: a.CAIP2, Err: err}
	}
	return n, nil
}
