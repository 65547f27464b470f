package yield

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/sigil/sigil/internal/store"
)

// Every sampling (SampleNow: at start, then every SampleInterval) reads, in one batch per network, each yield's
// price-per-share sample (the value of a fixed number of shares of a vault or of the liquid staking token, the
// lending reserve's index, or a native stake with its rewards), stored with the block's time, and for lending and
// staking the annual rate the contract publishes now. A year is 365 days.
//
// Vaults (ERC-4626 and allocator vaults): the APY of the samples over the window (7 days of block time by default),
//
//	g   = (assets_last / shares_last) / (assets_first / shares_first)
//	APY = g^(year / Δt) − 1
//
// where first is the oldest sample in the window, last the newest and Δt the block time between them, however short
// (down to minRateSpan; the DTO's description names the span used). A service whose stored samples do not reach back
// over the window (a fresh database) backfills once, at its first sampling, from the node's history: the share price
// at the blocks head − 2^k (k = 0, 1, …) that are inside the window and at which the vault had shares (an empty vault's
// price says nothing about what it pays), and at the oldest such block, found by bisection below the oldest of those. An allocator vault pays its performance and management fees by minting
// shares, so its share price, and the rate, are already net of them.
//
// Until two samples at least minRateSpan apart exist (a fresh chain is idle: an empty vault's share price does not
// move, and the deploy's blocks span little block time after the Morpho market's borrower), a vault that publishes its current accrual rate — accrualRate(), an annual rate
// scaled by 10^18, not compounded, as Sigil's vaults do: the plain vault's owner-set rate, the allocator vault's net
// of its fees, the Morpho vault's market supply rate (borrow rate × utilisation × (1 − fee)) — is rated from it as a
// lending pool is below (compounded per second; the DTO's description says so). A vault that publishes none is rated
// 0 until its samples give a rate.
//
// Lending and staking: the contract's current rate, as of the last sampling (rate 0 until the first one).
//
//	lending           r = getReserveData(asset).currentLiquidityRate / 10^27       (Aave's annual rate in ray)
//	                  APY = (1 + r / n)^n − 1, n = seconds in a year               (compounded per second, as Aave does)
//	provider staking  r = rewardRateBps / 10^4 × (1 − validatorFeeBps / 10^4)      (the stakers' part of the gross rate)
//	                  APY = (1 + r / n)^n − 1                                      (rewards raise the token's rate)
//	native staking    APR = rewardRateBps / 10^4                                   (rewards are claimed, not compounded)
//
// A deposit fee (taken by the allocator vault or the fee wrapper) is in neither the share price nor the published
// rate; it is deducted for a year's holding: net APY = (1 + APY) × (1 − deposit fee) − 1, net APR = APR − deposit fee.

const (
	year        = 365 * 24 * time.Hour
	minRateSpan = time.Minute
	// maxBackfillPoints bounds the historical blocks a backfill reads (head − 2^k for k below it).
	maxBackfillPoints = 40
)

// rate is a yield's computed reward rate and latest share price.
type rate struct {
	total    float64
	known    bool
	price    float64 // latest price per share in the token; 0 when never sampled
	sampled  bool
	rateType string
	span     time.Duration // vaults: the block time between the samples the rate is computed from
	accrual  bool          // vaults: rated from the accrual rate the vault publishes, for want of samples
}

type rateBook struct {
	mu    sync.RWMutex
	rates map[string]rate
	// backfilled lists the vault yields whose history this process has already backfilled (or tried to).
	backfilled map[string]bool
	// published is the annual rate (a fraction) the contract of a lending or staking yield, or a vault's accrual
	// rate, published at the last sampling, by yield id.
	published map[string]float64
}

func newRateBook() *rateBook {
	return &rateBook{rates: map[string]rate{}, published: map[string]float64{}, backfilled: map[string]bool{}}
}

// setPublished records the annual rate a yield's contract published at the last sampling; nil forgets it (a vault
// that publishes none).
func (r *rateBook) setPublished(id string, apr *big.Rat) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if apr == nil {
		delete(r.published, id)
		return
	}
	r.published[id], _ = apr.Float64()
}

func (r *rateBook) getPublished(id string) (float64, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	apr, ok := r.published[id]
	return apr, ok
}

func (r *rateBook) get(id string) rate {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.rates[id]
}

func (r *rateBook) set(id string, v rate) {
	r.mu.Lock()
	r.rates[id] = v
	r.mu.Unlock()
}

// ratedByContract reports whether a kind's reward rate is the rate its contract publishes (not the samples').
func ratedByContract(kind string) bool {
	return kind == KindLending || kind == KindNativeStaking || kind == KindProviderStaking
}

func rateTypeOf(kind string) string {
	if kind == KindNativeStaking {
		return "APR"
	}
	return "APY"
}

// claimBackfill reports whether the yield's history is still to be backfilled, and marks it done.
func (r *rateBook) claimBackfill(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.backfilled[id] {
		return false
	}
	r.backfilled[id] = true
	return true
}

// computeRate applies the vaults' formula above to samples sorted by block time (rateType APR: (g − 1) × year / Δt).
// It also returns Δt, the span of block time the rate is computed over.
func computeRate(samples []store.YieldPriceSample, window time.Duration, rateType string, depositBps int64) (float64, time.Duration, bool) {
	if len(samples) < 2 {
		return 0, 0, false
	}
	last := samples[len(samples)-1]
	first := samples[0]
	for _, s := range samples {
		if s.BlockTime >= last.BlockTime-int64(window/time.Second) {
			first = s
			break
		}
	}
	span := time.Duration(last.BlockTime-first.BlockTime) * time.Second
	if span < minRateSpan {
		return 0, 0, false
	}
	growth, ok := ratio(last, first)
	if !ok {
		return 0, 0, false
	}
	periods := float64(year) / float64(span)
	fee := float64(depositBps) / 10_000
	var r float64
	if rateType == "APR" {
		r = (growth-1)*periods - fee
	} else {
		r = math.Pow(growth, periods)*(1-fee) - 1
	}
	if math.IsNaN(r) || math.IsInf(r, 0) {
		return 0, 0, false
	}
	return r, span, true
}

// publishedRate applies the formulas above to a contract's annual rate apr (a fraction).
func publishedRate(apr float64, rateType string, depositBps int64) (float64, bool) {
	fee := float64(depositBps) / 10_000
	var r float64
	if rateType == "APR" {
		r = apr - fee
	} else {
		r = (1+compoundPerSecond(apr))*(1-fee) - 1
	}
	if math.IsNaN(r) || math.IsInf(r, 0) {
		return 0, false
	}
	return r, true
}

// compoundPerSecond is the APY of an annual rate compounded every second, (1 + apr/n)^n − 1 with n the seconds in a
// year, computed as expm1(n × log1p(apr/n)) so that small rates keep their precision.
func compoundPerSecond(apr float64) float64 {
	n := float64(year / time.Second)
	return math.Expm1(n * math.Log1p(apr/n))
}

// ratio is (assets_a/shares_a) / (assets_b/shares_b), computed exactly and rounded to a float at the end.
func ratio(a, b store.YieldPriceSample) (float64, bool) {
	num, ok1 := new(big.Int).SetString(a.Assets, 10)
	sa, ok2 := new(big.Int).SetString(a.Shares, 10)
	den, ok3 := new(big.Int).SetString(b.Assets, 10)
	sb, ok4 := new(big.Int).SetString(b.Shares, 10)
	if !ok1 || !ok2 || !ok3 || !ok4 || den.Sign() <= 0 || sa.Sign() <= 0 {
		return 0, false
	}
	r := new(big.Rat).SetFrac(new(big.Int).Mul(num, sb), new(big.Int).Mul(den, sa))
	f, _ := r.Float64()
	return f, true
}

// sharePrice is the latest sample's price of one whole share in whole tokens.
func sharePrice(s store.YieldPriceSample, shareDecimals, tokenDecimals uint8) float64 {
	assets, ok1 := new(big.Int).SetString(s.Assets, 10)
	shares, ok2 := new(big.Int).SetString(s.Shares, 10)
	if !ok1 || !ok2 || shares.Sign() == 0 {
		return 0
	}
	r := new(big.Rat).SetFrac(assets, shares)
	scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(absDiff(shareDecimals, tokenDecimals))), nil)
	if shareDecimals >= tokenDecimals {
		r.Mul(r, new(big.Rat).SetInt(scale))
	} else {
		r.Quo(r, new(big.Rat).SetInt(scale))
	}
	f, _ := r.Float64()
	return f
}

// shareDecimals are the decimals of a yield's share (its output token), or of its token when it has none.
func shareDecimals(e *yieldEntry) uint8 {
	if e.cfg.OutputToken != nil {
		return e.cfg.OutputToken.Decimals
	}
	return e.cfg.Token.Decimals
}

func absDiff(a, b uint8) uint8 {
	if a > b {
		return a - b
	}
	return b - a
}

// SampleNow reads every yield's share price and, for lending and staking, the rate its contract publishes (one batch
// per network), stores the samples and recomputes the rates. Stored samples of later blocks than the chain's head come
// from a chain that was reset and are dropped.
func (s *Service) SampleNow(ctx context.Context) error {
	var errs []error
	for id, c := range s.clients {
		b := c.newBatch()
		h := b.head()
		type pending struct {
			e    *yieldEntry
			read samplePlan
		}
		var reads []pending
		for _, e := range s.yields {
			if e.network.ID == id {
				reads = append(reads, pending{e, e.builder.sample(e, b)})
			}
		}
		if err := b.run(ctx); err != nil {
			errs = append(errs, fmt.Errorf("sample network %s: %w", id, err))
			continue
		}
		samples := make([]store.YieldPriceSample, 0, len(reads))
		for _, p := range reads {
			got := p.read()
			samples = append(samples, store.YieldPriceSample{YieldID: p.e.cfg.ID, BlockNumber: int64(h.Number),
				BlockTime: int64(h.Time), Shares: got.shares.String(), Assets: got.assets.String()})
			s.rates.setPublished(p.e.cfg.ID, got.apr)
		}
		keepFrom := int64(h.Time) - 2*int64(s.cfg.RateWindow/time.Second)
		err := s.store.Write(ctx, func(tx *store.Tx) error {
			for _, p := range samples {
				if err := tx.DeleteYieldPriceSamplesAfter(ctx, p.YieldID, p.BlockNumber); err != nil {
					return err
				}
			}
			if err := tx.PutYieldPriceSamples(ctx, samples...); err != nil {
				return err
			}
			return tx.DeleteYieldPriceSamplesBefore(ctx, keepFrom)
		})
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if err := s.backfill(ctx, c, h); err != nil {
			errs = append(errs, fmt.Errorf("backfill network %s: %w", id, err))
		}
	}
	return errors.Join(append(errs, s.loadRates(ctx))...)
}

// backfill stores, for the network's vault yields whose stored samples do not reach back over the window and that
// this process has not backfilled yet, the share price at earlier blocks read from the node's history: the blocks
// head − 2^k, then, between the oldest of them at which a vault had shares in the window and the next one down, the
// oldest such block, found by bisection. The second step matters where blocks are uneven in time, as on a dev chain:
// a deposit followed by a jump of hours and a simulator step of a few dozen blocks leaves every head − 2^k either after
// the jump or before the deposit, and the rate would wait for the next sampling. Samples outside the window, of blocks
// where the vault had no shares, and reads the node cannot answer (no archive state, no contract yet) are left out;
// only a node that does not answer at all is an error.
func (s *Service) backfill(ctx context.Context, c *chainClient, h *head) error {
	windowStart := int64(h.Time) - int64(s.cfg.RateWindow/time.Second)
	var todo []*yieldEntry
	for _, e := range s.yields {
		if e.client != c || ratedByContract(e.cfg.Kind) || !s.rates.claimBackfill(e.cfg.ID) {
			continue
		}
		stored, err := s.store.YieldPriceSamples(ctx, e.cfg.ID, 0)
		if err != nil {
			return fmt.Errorf("yield: read price samples: %w", err)
		}
		if len(stored) > 0 && stored[0].BlockTime <= windowStart {
			continue // the window is covered
		}
		todo = append(todo, e)
	}
	if len(todo) == 0 {
		return nil
	}
	var points []*pricePoint
	searches := make([]*bisection, len(todo))
	for i, e := range todo {
		searches[i] = &bisection{entry: e, bad: -1}
		for k := 0; k < maxBackfillPoints && uint64(1)<<k <= uint64(h.Number); k++ {
			points = append(points, &pricePoint{entry: e, block: uint64(h.Number) - uint64(1)<<k})
		}
	}
	if err := readPricePoints(ctx, c, points); err != nil {
		return err
	}
	var samples []store.YieldPriceSample
	for _, p := range points {
		if !p.usable(windowStart) {
			continue
		}
		samples = append(samples, p.sample())
	}
	// Each vault's search runs from its oldest usable point down to the next point, which was not usable.
	for i, b := range searches {
		for _, p := range points {
			if p.entry != todo[i] {
				continue
			}
			if p.usable(windowStart) {
				b.good, b.bad = p, -1
			} else if b.good != nil && b.bad < 0 {
				b.bad = int64(p.block)
			}
		}
	}
	oldest, err := bisect(ctx, c, searches, windowStart)
	if err != nil {
		return err
	}
	samples = append(samples, oldest...)
	if len(samples) == 0 {
		return nil
	}
	return s.store.Write(ctx, func(tx *store.Tx) error { return tx.PutYieldPriceSamples(ctx, samples...) })
}

// pricePoint is a vault's share price at a block of the node's history: the block's header, the vault's
// convertToAssets(10^27) and its totalSupply there.
type pricePoint struct {
	entry          *yieldEntry
	block          uint64
	head           *head
	assets, supply *big.Int
}

// usable reports whether the point is a sample of the window: its block was read, is not older than the window, and
// the vault had shares there (an empty vault's price says nothing about what it pays).
func (p *pricePoint) usable(windowStart int64) bool {
	return p.head != nil && p.head.Time != 0 && int64(p.head.Time) >= windowStart && p.assets.Sign() > 0 && p.supply.Sign() > 0
}

func (p *pricePoint) sample() store.YieldPriceSample {
	return store.YieldPriceSample{YieldID: p.entry.cfg.ID, BlockNumber: int64(p.head.Number), BlockTime: int64(p.head.Time),
		Shares: ray.String(), Assets: p.assets.String()}
}

// readPricePoints reads the points in one batch, each block's header once. Single reads the node cannot answer leave
// their values zero; only a node that does not answer at all is an error.
func readPricePoints(ctx context.Context, c *chainClient, points []*pricePoint) error {
	if len(points) == 0 {
		return nil
	}
	b := c.newBatch()
	heads := map[uint64]*head{}
	for _, p := range points {
		n := hexutil.Uint64(p.block)
		if heads[p.block] == nil {
			heads[p.block] = new(head)
			b.add(heads[p.block], "eth_getBlockByNumber", n, false)
		}
		p.head = heads[p.block]
		p.assets = b.uintAt(p.entry.vault, &erc4626ABI, n, "convertToAssets", ray)
		p.supply = b.uintAt(p.entry.vault, &erc4626ABI, n, "totalSupply")
	}
	if err := b.run(ctx); err != nil {
		var up *upstreamError
		if errors.As(err, &up) {
			return err
		}
	}
	return nil
}

// bisection searches one vault's history for the oldest usable block between bad (not usable; −1: below block 0)
// and good's block (usable).
type bisection struct {
	entry *yieldEntry
	good  *pricePoint
	bad   int64
}

// bisect runs the searches side by side, one batch a round, and returns the sample at each search's oldest usable
// block when it is older than the point it started from.
func bisect(ctx context.Context, c *chainClient, searches []*bisection, windowStart int64) ([]store.YieldPriceSample, error) {
	start := map[*bisection]uint64{}
	for _, b := range searches {
		if b.good != nil {
			start[b] = b.good.block
		}
	}
	for {
		var mids []*pricePoint
		var of []*bisection
		for _, b := range searches {
			if b.good != nil && int64(b.good.block)-b.bad > 1 {
				mids = append(mids, &pricePoint{entry: b.entry, block: uint64((b.bad + int64(b.good.block)) / 2)})
				of = append(of, b)
			}
		}
		if len(mids) == 0 {
			break
		}
		if err := readPricePoints(ctx, c, mids); err != nil {
			return nil, err
		}
		for i, p := range mids {
			if p.usable(windowStart) {
				of[i].good = p
			} else {
				of[i].bad = int64(p.block)
			}
		}
	}
	var samples []store.YieldPriceSample
	for _, b := range searches {
		if b.good != nil && b.good.block != start[b] {
			samples = append(samples, b.good.sample())
		}
	}
	return samples, nil
}

// loadRates recomputes every yield's rate: from its stored samples (vaults) or from the rate its contract published at
// the last sampling (lending, staking), and its share price from the latest sample.
func (s *Service) loadRates(ctx context.Context) error {
	for _, e := range s.yields {
		samples, err := s.store.YieldPriceSamples(ctx, e.cfg.ID, 0)
		if err != nil {
			return fmt.Errorf("yield: read price samples: %w", err)
		}
		r := rate{rateType: rateTypeOf(e.cfg.Kind)}
		if ratedByContract(e.cfg.Kind) {
			if apr, ok := s.rates.getPublished(e.cfg.ID); ok {
				r.total, r.known = publishedRate(apr, r.rateType, e.cfg.Fees.DepositBps)
			}
		} else {
			r.total, r.span, r.known = computeRate(samples, s.cfg.RateWindow, r.rateType, e.cfg.Fees.DepositBps)
			if apr, ok := s.rates.getPublished(e.cfg.ID); ok && !r.known {
				r.total, r.known = publishedRate(apr, r.rateType, e.cfg.Fees.DepositBps)
				r.accrual = r.known
			}
		}
		if n := len(samples); n > 0 {
			r.price, r.sampled = sharePrice(samples[n-1], shareDecimals(e), e.cfg.Token.Decimals), true
		}
		s.rates.set(e.cfg.ID, r)
	}
	return nil
}
