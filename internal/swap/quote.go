package swap

import (
	"context"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/sigil/sigil/internal/abis"
)

// Request asks for a quote: AmountIn of In, paid by From, for Out delivered to Recipient.
type Request struct {
	From, Recipient common.Address
	In, Out         Asset
	AmountIn        *big.Int
	// FeeBps is the client fee, in basis points of the input, paid to FeeReceiver; StableFeeBps replaces it when both
	// tokens are stablecoins (negative: not set).
	FeeBps, StableFeeBps int64
	FeeReceiver          common.Address
	// SlippageBps is how far under the quoted output the swap may still execute.
	SlippageBps int64
	// Validity is how long the quote may be executed; the calls' on-chain deadline leaves a margin past it, counted
	// in chain time.
	Validity time.Duration
}

// The kinds of swaps, as get_swap_status names them.
const (
	SameChain  = "SAME_CHAIN"
	CrossChain = "CROSS_CHAIN"
)

// Quote is a priced swap: what it gives, through which pools, and everything its execution needs, so that the calls
// built from it are the ones quoted.
type Quote struct {
	Kind             string         `json:"kind"`
	From             common.Address `json:"from"`
	Recipient        common.Address `json:"recipient"`
	FeeReceiver      common.Address `json:"feeReceiver"`
	In               Asset          `json:"in"`
	Out              Asset          `json:"out"`
	AmountIn         *big.Int       `json:"amountIn"`
	FeeBps           int64          `json:"feeBps"` // the client fee applied
	Fee              *big.Int       `json:"fee"`    // of the input, to FeeReceiver
	SlippageBps      int64          `json:"slippageBps"`
	AmountOut        *big.Int       `json:"amountOut"`
	MinOut           *big.Int       `json:"minOut"`
	PriceImpactBps   int64          `json:"priceImpactBps"`
	Origin           Leg            `json:"origin"`
	Dest             *Leg           `json:"dest,omitempty"` // cross-chain: the bridge's release and swap
	Deadline         int64          `json:"deadline"`       // on-chain, unix seconds of the origin chain
	EstimatedSeconds int64          `json:"estimatedSeconds"`
	DestFromBlock    uint64         `json:"destFromBlock,omitempty"` // where the release is looked for
	BridgeToken      common.Address `json:"bridgeToken,omitzero"`    // what the bridge carries, on the origin chain
	DestToken        common.Address `json:"destToken,omitzero"`      // and on the destination chain
	// Balance is what From held of the input when the quote was priced: the caller refuses a quote of more.
	Balance *big.Int `json:"balance"`
}

// Leg is the part of a swap on one chain: its pools (none when it only carries the bridged token), what goes in and
// comes out, the least it accepts, and each pool's fee in that pool's input token.
type Leg struct {
	CAIP2     string     `json:"caip2"`
	Hops      []Hop      `json:"hops"`
	AmountIn  *big.Int   `json:"amountIn"`
	AmountOut *big.Int   `json:"amountOut"`
	MinOut    *big.Int   `json:"minOut"`
	PoolFees  []*big.Int `json:"poolFees"`
	// rate is output per input at the pools' prices before the swap, net of their fees (for the price impact).
	rate *big.Float
}

// Bridge is whether the quote crosses chains through the bridge.
func (q *Quote) Bridge() bool { return q.Kind == CrossChain }

// Quote prices a request against the pools as they are now: every route between the tokens is simulated by QuoterV2
// and the best is kept; across chains, through each token the bridge carries. It refuses (RefusedError) an unknown
// token, a pair no pool joins and an amount the pools cannot fill; what From holds is in the quote (Balance) for the
// caller to hold it to.
func (v *Venues) Quote(ctx context.Context, r Request) (*Quote, error) {
	if r.AmountIn == nil || r.AmountIn.Sign() <= 0 {
		return nil, refused("inputAmount", "must be a positive amount of base units")
	}
	ox, err := v.get(r.In.CAIP2)
	if err != nil {
		return nil, refused("inputToken", "%s", err)
	}
	tIn, in, err := ox.swapToken(r.In, "inputToken")
	if err != nil {
		return nil, err
	}
	dx, err := v.get(r.Out.CAIP2)
	if err != nil {
		return nil, refused("outputToken", "%s", err)
	}
	tOut, out, err := dx.swapToken(r.Out, "outputToken")
	if err != nil {
		return nil, err
	}
	q := &Quote{Kind: SameChain, From: r.From, Recipient: r.Recipient, FeeReceiver: r.FeeReceiver, In: r.In, Out: r.Out,
		AmountIn: new(big.Int).Set(r.AmountIn), FeeBps: r.FeeBps, SlippageBps: r.SlippageBps, EstimatedSeconds: 2}
	if in.Stable && out.Stable && r.StableFeeBps >= 0 {
		q.FeeBps = r.StableFeeBps
	}
	q.Fee = bpsOf(q.AmountIn, q.FeeBps)
	net := new(big.Int).Sub(q.AmountIn, q.Fee)
	if net.Sign() <= 0 {
		return nil, refused("inputAmount", "%s base units pay no more than the client fee", q.AmountIn)
	}
	if q.Fee.Sign() > 0 && q.FeeReceiver == (common.Address{}) {
		return nil, unavailable("inputAmount", "a client fee of %d bps applies but no fee receiver is configured", q.FeeBps)
	}
	if ox == dx {
		err = ox.quoteSameChain(ctx, q, tIn, tOut, net, r.Validity)
	} else {
		err = v.quoteCrossChain(ctx, q, ox, dx, tIn, tOut, net, r.Validity)
	}
	if err != nil {
		return nil, err
	}
	q.MinOut = lessSlippage(q.AmountOut, q.SlippageBps)
	if q.Dest != nil && len(q.Dest.Hops) > 0 {
		q.Dest.MinOut = q.MinOut
	}
	ideal := new(big.Float).SetInt(net)
	ideal.Mul(ideal, q.Origin.rate)
	if q.Dest != nil {
		ideal.Mul(ideal, q.Dest.rate)
	}
	q.PriceImpactBps = impactBps(ideal, q.AmountOut)
	return q, nil
}

// swapToken is the token a swap of an asset goes through (WETH for the native coin) and the asset's listing.
func (x *venue) swapToken(a Asset, field string) (common.Address, Token, error) {
	t, ok := x.token(a.Token)
	if !ok {
		return common.Address{}, Token{}, refused(field, "%s is not a token swaps accept on %s (%s)", a, x.CAIP2, x.tokenList())
	}
	if a.Native {
		return x.WETH, t, nil
	}
	return a.Token, t, nil
}

func (x *venue) tokenList() string {
	s := ""
	for i, t := range x.Tokens {
		if i > 0 {
			s += ", "
		}
		s += t.Symbol
	}
	return s
}

func (x *venue) symbol(addr common.Address) string {
	if t, ok := x.token(addr); ok && t.Symbol != "" {
		return t.Symbol
	}
	return addr.Hex()
}

// quoteSameChain prices the swap through the best route between the two tokens.
func (x *venue) quoteSameChain(ctx context.Context, q *Quote, tIn, tOut common.Address, net *big.Int, validity time.Duration) error {
	if tIn == tOut {
		return refused("outputToken", "is the input token, or its wrapped form: there is nothing to swap")
	}
	paths, err := x.paths(ctx, tIn, tOut)
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return refused("outputToken", "no Uniswap V3 pool joins %s and %s on %s, directly or through another token", x.symbol(tIn), x.symbol(tOut), x.CAIP2)
	}
	b := &batch{}
	ih, ib := b.head(), x.queueBalance(b, q.From, q.In)
	c := x.queue(b, paths, net)
	if err := b.send(ctx, x); err != nil {
		return err
	}
	if err := x.readBalance(b, ib, q); err != nil {
		return err
	}
	h, err := b.headOf(ih)
	if err != nil {
		return &UpstreamError{CAIP2: x.CAIP2, Err: err}
	}
	leg, err := c.best(b)
	if err != nil {
		return err
	}
	q.Origin, q.AmountOut = *leg, leg.AmountOut
	q.Origin.MinOut = lessSlippage(leg.AmountOut, q.SlippageBps)
	q.Deadline = deadline(h, validity)
	return nil
}

// quoteCrossChain prices the swap through each token the origin's bridge carries to the destination: a swap into it
// on the origin chain (none when it is the input), the bridge, and a swap out of it on the destination chain (none
// when it is the output); the route that gives most is kept.
func (v *Venues) quoteCrossChain(ctx context.Context, q *Quote, ox, dx *venue, tIn, tOut common.Address, net *big.Int, validity time.Duration) error {
	if ox.Bridge == (common.Address{}) || dx.Bridge == (common.Address{}) {
		return refused("outputToken", "no bridge joins %s and %s: swaps stay on one chain", ox.CAIP2, dx.CAIP2)
	}
	if q.Out.Native {
		return refused("outputToken", "the bridge delivers tokens: ask for WETH (%s/erc20:%s) on %s instead of the native coin",
			dx.CAIP2, dx.WETH.Hex(), dx.CAIP2)
	}
	q.Kind, q.EstimatedSeconds = CrossChain, 2+dx.BridgeSeconds
	type option struct {
		token, destToken common.Address
		route            int
		origin           *candidates
		leg              *Leg
		dest             *candidates
		inventory        int
	}
	var options []*option
	b := &batch{}
	ih, ib := b.head(), ox.queueBalance(b, q.From, q.In)
	for _, token := range ox.BridgeTokens {
		o := &option{token: token, route: b.method(ox.Bridge, abis.SigilBridge, "routes", token, big.NewInt(dx.chainID))}
		if token != tIn {
			paths, err := ox.paths(ctx, tIn, token)
			if err != nil {
				return err
			}
			if len(paths) == 0 {
				continue
			}
			o.origin = ox.queue(b, paths, net)
		}
		options = append(options, o)
	}
	if err := b.send(ctx, ox); err != nil {
		return err
	}
	if err := ox.readBalance(b, ib, q); err != nil {
		return err
	}
	h, err := b.headOf(ih)
	if err != nil {
		return &UpstreamError{CAIP2: ox.CAIP2, Err: err}
	}
	db := &batch{}
	idh := db.head()
	var viable []*option
	for _, o := range options {
		dest, err := b.address(o.route, abis.SigilBridge, "routes")
		if err != nil {
			return &UpstreamError{CAIP2: ox.CAIP2, Err: err}
		}
		if _, listed := dx.token(dest); dest == (common.Address{}) || !listed {
			continue
		}
		o.destToken = dest
		if o.origin == nil {
			o.leg = &Leg{CAIP2: ox.CAIP2, Hops: []Hop{}, AmountIn: net, AmountOut: net, PoolFees: []*big.Int{}, rate: big.NewFloat(1)}
		} else if o.leg, err = o.origin.best(b); err != nil {
			continue
		}
		o.inventory = db.method(dest, abis.ERC20, "balanceOf", dx.Bridge)
		if dest != tOut {
			paths, err := dx.paths(ctx, dest, tOut)
			if err != nil {
				return err
			}
			if len(paths) == 0 {
				continue
			}
			o.dest = dx.queue(db, paths, o.leg.AmountOut)
		}
		viable = append(viable, o)
	}
	if len(viable) == 0 {
		return refused("outputToken", "no route through the bridge from %s on %s to %s on %s", ox.symbol(tIn), ox.CAIP2, dx.symbol(tOut), dx.CAIP2)
	}
	if err := db.send(ctx, dx); err != nil {
		return err
	}
	dh, err := db.headOf(idh)
	if err != nil {
		return &UpstreamError{CAIP2: dx.CAIP2, Err: err}
	}
	var best *option
	var bestDest *Leg
	var short error
	for _, o := range viable {
		inventory, err := db.uint(o.inventory, abis.ERC20, "balanceOf")
		if err != nil {
			return &UpstreamError{CAIP2: dx.CAIP2, Err: err}
		}
		if inventory.Cmp(o.leg.AmountOut) < 0 {
			short = unavailable("inputAmount", "the bridge holds %s base units of %s on %s, less than the %s this swap carries",
				inventory, dx.symbol(o.destToken), dx.CAIP2, o.leg.AmountOut)
			continue
		}
		dest := &Leg{CAIP2: dx.CAIP2, Hops: []Hop{}, AmountIn: o.leg.AmountOut, AmountOut: o.leg.AmountOut, PoolFees: []*big.Int{}, rate: big.NewFloat(1)}
		if o.dest != nil {
			if dest, err = o.dest.best(db); err != nil {
				continue
			}
		}
		if best == nil || dest.AmountOut.Cmp(bestDest.AmountOut) > 0 {
			best, bestDest = o, dest
		}
	}
	if best == nil {
		if short != nil {
			return short
		}
		return unavailable("inputAmount", "the pools cannot fill %s base units along any route through the bridge", net)
	}
	q.Origin, q.Dest, q.AmountOut = *best.leg, bestDest, bestDest.AmountOut
	q.Origin.MinOut = lessSlippage(best.leg.AmountOut, q.SlippageBps)
	if len(q.Origin.Hops) == 0 {
		q.Origin.MinOut = net
	}
	q.BridgeToken, q.DestToken = best.token, best.destToken
	q.Deadline, q.DestFromBlock = deadline(h, validity), uint64(dh.Number)
	return nil
}

// queueBalance queues what the payer holds of the input.
func (x *venue) queueBalance(b *batch, holder common.Address, a Asset) int {
	if a.Native {
		return b.balance(holder)
	}
	return b.method(a.Token, abis.ERC20, "balanceOf", holder)
}

// readBalance reads what the payer holds of the input into the quote.
func (x *venue) readBalance(b *batch, i int, q *Quote) error {
	var err error
	if q.In.Native {
		q.Balance, err = b.balanceOf(i)
	} else {
		q.Balance, err = b.uint(i, abis.ERC20, "balanceOf")
	}
	if err != nil {
		return &UpstreamError{CAIP2: x.CAIP2, Err: err}
	}
	return nil
}

// candidates are the routes of one leg queued for QuoterV2: each route's output, its first hop's for a two-hop route
// (the amount its second pool takes), and the price of every pool on it.
type candidates struct {
	x      *venue
	paths  []path
	amount *big.Int
	full   []int
	first  []int
	slot0  map[common.Address]int
}

type quoteSingleParams struct {
	TokenIn, TokenOut common.Address
	AmountIn, Fee     *big.Int
	SqrtPriceLimitX96 *big.Int
}

func (x *venue) queue(b *batch, paths []path, amount *big.Int) *candidates {
	c := &candidates{x: x, paths: paths, amount: amount, slot0: map[common.Address]int{}}
	for _, p := range paths {
		c.full = append(c.full, b.method(x.Quoter, abis.UniswapV3Quoter, "quoteExactInput", p.encode(), amount))
		first := -1
		if len(p) > 1 {
			first = b.method(x.Quoter, abis.UniswapV3Quoter, "quoteExactInputSingle", quoteSingleParams{TokenIn: p[0].TokenIn,
				TokenOut: p[0].TokenOut, AmountIn: amount, Fee: big.NewInt(int64(p[0].Fee)), SqrtPriceLimitX96: new(big.Int)})
		}
		c.first = append(c.first, first)
		for _, h := range p {
			if _, ok := c.slot0[h.Pool]; !ok {
				c.slot0[h.Pool] = b.method(h.Pool, abis.UniswapV3Pool, "slot0")
			}
		}
	}
	return c
}

// best is the route that gives most, as a leg; a route QuoterV2 cannot fill (a pool without the liquidity) is left
// out.
func (c *candidates) best(b *batch) (*Leg, error) {
	var leg *Leg
	for i, p := range c.paths {
		out, err := b.uint(c.full[i], abis.UniswapV3Quoter, "quoteExactInput")
		if err != nil || out.Sign() == 0 {
			continue
		}
		if leg != nil && out.Cmp(leg.AmountOut) <= 0 {
			continue
		}
		inputs := []*big.Int{c.amount}
		if c.first[i] >= 0 {
			mid, err := b.uint(c.first[i], abis.UniswapV3Quoter, "quoteExactInputSingle")
			if err != nil {
				continue
			}
			inputs = append(inputs, mid)
		}
		rate, err := c.rate(b, p)
		if err != nil {
			return nil, &UpstreamError{CAIP2: c.x.CAIP2, Err: err}
		}
		leg = &Leg{CAIP2: c.x.CAIP2, Hops: p, AmountIn: c.amount, AmountOut: out, rate: rate}
		for j, h := range p {
			leg.PoolFees = append(leg.PoolFees, new(big.Int).Div(new(big.Int).Mul(inputs[j], big.NewInt(int64(h.Fee))), big.NewInt(1_000_000)))
		}
	}
	if leg == nil {
		return nil, unavailable("inputAmount", "the pools cannot fill %s base units along any route", c.amount)
	}
	return leg, nil
}

// rate is what a unit of the path's input buys at its pools' prices before the swap, net of their fees.
func (c *candidates) rate(b *batch, p path) (*big.Float, error) {
	r := new(big.Float).SetPrec(128).SetInt64(1)
	q96 := new(big.Float).SetInt(new(big.Int).Lsh(big.NewInt(1), 96))
	for _, h := range p {
		values, err := b.unpack(c.slot0[h.Pool], abis.UniswapV3Pool, "slot0")
		if err != nil {
			return nil, err
		}
		sqrtP, ok := values[0].(*big.Int)
		if !ok || sqrtP.Sign() == 0 {
			return nil, fmt.Errorf("pool %s has no price", h.Pool)
		}
		s := new(big.Float).SetPrec(128).Quo(new(big.Float).SetInt(sqrtP), q96)
		price := new(big.Float).Mul(s, s) // token1 per token0
		if pair(h.TokenIn, h.TokenOut).token0 != h.TokenIn {
			price.Quo(big.NewFloat(1), price)
		}
		r.Mul(r, price)
		r.Mul(r, big.NewFloat(1-float64(h.Fee)/1_000_000))
	}
	return r, nil
}

// bpsOf is amount × bps / 10,000, rounded down.
func bpsOf(amount *big.Int, bps int64) *big.Int {
	return new(big.Int).Div(new(big.Int).Mul(amount, big.NewInt(bps)), big.NewInt(10_000))
}

// lessSlippage is the least a swap quoted at amount may give: amount less slippageBps, rounded down.
func lessSlippage(amount *big.Int, slippageBps int64) *big.Int {
	return bpsOf(amount, 10_000-slippageBps)
}

// impactBps is how far under ideal (the output at the pools' prices before the swap, net of their fees) the quoted
// output is, in basis points rounded to the nearest; never negative.
func impactBps(ideal *big.Float, out *big.Int) int64 {
	if ideal.Sign() <= 0 {
		return 0
	}
	ratio, _ := new(big.Float).Quo(new(big.Float).SetInt(out), ideal).Float64()
	impact := (1 - ratio) * 10_000
	if impact < 0 {
		return 0
	}
	return int64(impact + 0.5)
}

// deadline is the calls' on-chain deadline: the quote's validity past the chain's latest block, and two minutes for
// the send to be included.
func deadline(h *head, validity time.Duration) int64 {
	return int64(h.Time) + int64(validity/time.Second) + 120
}
