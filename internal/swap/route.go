package swap

import (
	"bytes"
	"context"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/sigil/sigil/internal/abis"
)

// pool is one Uniswap V3 pool of a pair.
type pool struct {
	Address common.Address
	Fee     uint32
}

// pairKey is a pair of tokens, in Uniswap's order (token0 below token1).
type pairKey struct{ token0, token1 common.Address }

func pair(a, b common.Address) pairKey {
	if bytes.Compare(a.Bytes(), b.Bytes()) > 0 {
		a, b = b, a
	}
	return pairKey{a, b}
}

// Hop is one pool a swap goes through.
type Hop struct {
	Pool     common.Address `json:"pool"`
	TokenIn  common.Address `json:"tokenIn"`
	TokenOut common.Address `json:"tokenOut"`
	Fee      uint32         `json:"fee"` // hundredths of a basis point
}

// path is a route through pools: one or two hops.
type path []Hop

// encode is Uniswap V3's path encoding: each token's 20 bytes with the pool fee's 3 bytes between them.
func (p path) encode() []byte {
	if len(p) == 0 {
		return nil
	}
	out := append([]byte{}, p[0].TokenIn.Bytes()...)
	for _, h := range p {
		out = append(out, byte(h.Fee>>16), byte(h.Fee>>8), byte(h.Fee))
		out = append(out, h.TokenOut.Bytes()...)
	}
	return out
}

// poolsCacheFor is how long the pools found for a pair are trusted: a pool opened later is found after that.
const poolsCacheFor = time.Minute

type pairPools struct {
	pools []pool
	at    time.Time
}

// paths lists the routes from tokenIn to tokenOut: every direct pool, and every pair of pools through one of the
// venue's intermediates. The pools of each pair are read from the factory (one batch for the pairs not known yet).
func (x *venue) paths(ctx context.Context, tokenIn, tokenOut common.Address) ([]path, error) {
	pairs := []pairKey{pair(tokenIn, tokenOut)}
	var via []common.Address
	for _, m := range x.Intermediates {
		if m != tokenIn && m != tokenOut {
			via = append(via, m)
			pairs = append(pairs, pair(tokenIn, m), pair(m, tokenOut))
		}
	}
	known, err := x.poolsOf(ctx, pairs)
	if err != nil {
		return nil, err
	}
	var out []path
	for _, p := range known[pair(tokenIn, tokenOut)] {
		out = append(out, path{{Pool: p.Address, TokenIn: tokenIn, TokenOut: tokenOut, Fee: p.Fee}})
	}
	for _, m := range via {
		for _, first := range known[pair(tokenIn, m)] {
			for _, second := range known[pair(m, tokenOut)] {
				out = append(out, path{{Pool: first.Address, TokenIn: tokenIn, TokenOut: m, Fee: first.Fee},
					{Pool: second.Address, TokenIn: m, TokenOut: tokenOut, Fee: second.Fee}})
			}
		}
	}
	return out, nil
}

// poolsOf returns the pools of each pair, asking the factory about the pairs it has not been asked about lately.
func (x *venue) poolsOf(ctx context.Context, pairs []pairKey) (map[pairKey][]pool, error) {
	now := time.Now()
	out := map[pairKey][]pool{}
	var missing []pairKey
	x.poolsMu.Lock()
	for _, k := range pairs {
		if e, ok := x.pools[k]; ok && now.Sub(e.at) < poolsCacheFor {
			out[k] = e.pools
		} else if !containsPair(missing, k) {
			missing = append(missing, k)
		}
	}
	x.poolsMu.Unlock()
	if len(missing) == 0 {
		return out, nil
	}
	b := &batch{}
	type asked struct {
		k   pairKey
		fee uint32
		i   int
	}
	var calls []asked
	for _, k := range missing {
		for _, fee := range x.FeeTiers {
			calls = append(calls, asked{k, fee, b.method(x.Factory, abis.UniswapV3Factory, "getPool", k.token0, k.token1, big.NewInt(int64(fee)))})
		}
	}
	if err := b.send(ctx, x); err != nil {
		return nil, err
	}
	found := map[pairKey][]pool{}
	for _, c := range calls {
		addr, err := b.address(c.i, abis.UniswapV3Factory, "getPool")
		if err != nil {
			return nil, &UpstreamError{CAIP2: x.CAIP2, Err: err}
		}
		if addr != (common.Address{}) {
			found[c.k] = append(found[c.k], pool{Address: addr, Fee: c.fee})
		}
	}
	x.poolsMu.Lock()
	defer x.poolsMu.Unlock()
	for _, k := range missing {
		x.pools[k] = pairPools{pools: found[k], at: now}
		out[k] = found[k]
	}
	return out, nil
}

func containsPair(list []pairKey, k pairKey) bool {
	for _, p := range list {
		if p == k {
			return true
		}
	}
	return false
}
