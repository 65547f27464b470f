package coordinator

import (
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/policy"
	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/swap"
)

// Swaps (this file, swap_execute.go, swap_fees.go, swap_status.go): quotes priced from Uniswap V3's pools on the
// configured venues (package swap), their execution as a send through the send path — so nonces, EIP-7702 batches,
// sponsorship, status webhooks, policies on eth.tx and velocity controls apply to a swap as to any send — the
// organization's client fee and the claim of what it earned. The chain is read in each activity's Ahead step, before
// its transaction (or in it, for an activity executed by votes). Swap state lives in tables of its own (store/swaps.go), never in the organization document.

// resSwap is the resource of a quote: Sigil's choice, as the reference names none. Executing a swap and claiming its
// fees send transactions, so they are PRIVATE_KEY SIGN as every send is.
const resSwap = "SWAP"

// The activity types of swaps.
var (
	createSwapQuote = quoteActivity(api.CreateSwapQuote, quoteFacts, func(p *api.CreateSwapQuoteIntent) quoteParams {
		return quoteParams{p.SignWith, p.InputToken, p.OutputToken, p.InputAmount, p.SlippageBps, ""}
	})
	createSwapQuoteV2 = quoteActivity(api.CreateSwapQuoteV2, withDestination(quoteFacts), func(p *api.CreateSwapQuoteIntentV2) quoteParams {
		return quoteParams{p.SignWith, p.InputToken, p.OutputToken, p.InputAmount, p.SlippageBps, p.DestinationAddress}
	})
	upsertSwapConfig = activity(api.UpsertSwapConfig, on(resOrganization, actUpdate, policy.ParamFeeBps, policy.ParamStableFeeBps,
		policy.ParamFeeReceiverWalletAddress), validateUpsertSwapConfig, execUpsertSwapConfig)
)

// The query of swaps.
var getSwapStatus = query(api.GetSwapStatus, queryGetSwapStatus)

// Limits of swaps.
const (
	// maxSwapFeeBps caps the client fee, as SwapFeeRouter's MAX_FEE_BPS does on-chain.
	maxSwapFeeBps = 1_000
	// defaultSlippageBps is a quote's slippage when the request names none; maxSlippageBps the most it may name.
	defaultSlippageBps = 50
	maxSlippageBps     = 5_000
	// swapRPCTimeout bounds what one activity waits for the chains.
	swapRPCTimeout = 15 * time.Second
)

// quoteParams are a quote request's parameters, V1's and V2's alike (V1 has no destination).
type quoteParams struct {
	SignWith, InputToken, OutputToken, InputAmount, SlippageBps, DestinationAddress string
}

// quoteWork is a quote request as its steps see it: parsed by Check, priced by Fetch, recorded by Execute.
type quoteWork struct {
	signWith, destination common.Address
	in, out               swap.Asset
	amount                *big.Int
	slippageBps           int64
	config                store.SwapConfig // as the quote was priced with it
	configured            bool             // config is set
	quote                 *swap.Quote
	priced                bool  // price ran (ahead of the transaction, or in it)
	priceErr              error // and failed so
}

// price prices the quote once: ahead of the transaction, or in it when nothing ran ahead (an activity executed by
// votes, a dry run). The client fee is the organization's configuration as last read (cached: no round trip ahead of
// the transaction), which the transaction checks.
func (w *quoteWork) price(x *execution) error {
	if w.priced {
		return w.priceErr
	}
	if !w.configured {
		if w.config, w.priceErr = x.c.swapConfig(x.ctx, x.org.ID); w.priceErr != nil {
			w.priced = true
			return w.priceErr
		}
		w.configured = true
	}
	w.priced, w.priceErr = true, x.priceQuote(w)
	return w.priceErr
}

var quoteFacts = on(resSwap, actCreate, policy.ParamSignWith, policy.ParamInputToken, policy.ParamOutputToken, policy.ParamInputAmount,
	policy.ParamSlippageBps)

// withDestination adds activity.params.destination_address to the facts of a version that has it.
func withDestination(f facts) facts {
	return on(f.resource, f.action, append(slices.Clone(f.params), policy.ParamDestinationAddress)...)
}

// quoteActivity is a version of CREATE_SWAP_QUOTE, whose parameters read as quoteParams.
func quoteActivity[P any](wire api.ActivityOf[P, api.CreateSwapQuoteResult], f facts, params func(*P) quoteParams) *Activity[P, *quoteWork, *quoteWork, api.CreateSwapQuoteResult] {
	return &Activity[P, *quoteWork, *quoteWork, api.CreateSwapQuoteResult]{
		activityInfo: newInfo(wire.ActivitySpec, f),
		Check:        func(p *P) (*quoteWork, error) { return checkQuote(params(p)) },
		Ahead:        func(x *execution, _ *P, w *quoteWork) *quoteWork { w.price(x); return w },
		Prepare: func(x *execution, _ *P, w *quoteWork, d *decisionRequest) (*quoteWork, error) {
			return w, x.prepareQuote(w, d)
		},
		Execute: func(x *execution, _ *P, w *quoteWork) (*api.CreateSwapQuoteResult, error) { return x.recordQuote(w) },
	}
}

func checkQuote(p quoteParams) (*quoteWork, error) {
	w := &quoteWork{slippageBps: defaultSlippageBps}
	var err error
	if w.signWith, err = evmAddress("parameters.signWith", p.SignWith); err != nil {
		return nil, err
	}
	if w.in, err = parseSwapAsset("parameters.inputToken", p.InputToken); err != nil {
		return nil, err
	}
	if w.out, err = parseSwapAsset("parameters.outputToken", p.OutputToken); err != nil {
		return nil, err
	}
	if w.amount, err = positiveAmount("parameters.inputAmount", p.InputAmount); err != nil {
		return nil, err
	}
	if p.SlippageBps != "" {
		if w.slippageBps, err = bpsParam("parameters.slippageBps", p.SlippageBps, maxSlippageBps); err != nil {
			return nil, err
		}
	}
	if p.DestinationAddress != "" {
		if w.destination, err = evmAddress("parameters.destinationAddress", p.DestinationAddress); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// priceQuote prices the quote against the pools, with the organization's client fee (the signer is checked in the
// transaction: the document seen ahead of it may be older than a wallet just created).
func (x *execution) priceQuote(w *quoteWork) error {
	venues, err := x.c.venues()
	if err != nil {
		return err
	}
	recipient := w.destination
	if recipient == (common.Address{}) {
		recipient = w.signWith
	}
	ctx, cancel := context.WithTimeout(x.ctx, swapRPCTimeout)
	defer cancel()
	w.quote, err = venues.Quote(ctx, swap.Request{From: w.signWith, Recipient: recipient, In: w.in, Out: w.out, AmountIn: w.amount,
		FeeBps: w.config.FeeBps, StableFeeBps: w.config.StableFeeBps, FeeReceiver: common.HexToAddress(w.config.FeeReceiver),
		SlippageBps: w.slippageBps, Validity: x.c.cfg.SwapQuoteTTL})
	return swapError(err)
}

// prepareQuote checks, in the transaction, that the signer is still the organization's and prices the quote with the
// client fee the transaction sees (again, if it is not the one the quote was priced with ahead), and gives the policy
// engine the signer.
func (x *execution) prepareQuote(w *quoteWork, d *decisionRequest) error {
	s, err := x.swapSigner(w.signWith)
	if err != nil {
		return err
	}
	now, err := x.tx.SwapConfig(x.ctx, x.org.ID)
	if errors.Is(err, store.ErrNotFound) {
		now, err = defaultSwapConfig(x.org.ID), nil
	}
	if err != nil {
		return err
	}
	x.c.swapConfigs.put(now)
	if !w.priced { // nothing ran ahead: price with what the transaction sees
		w.config, w.configured = now, true
	}
	if err := w.price(x); err != nil {
		return err
	}
	if now != w.config {
		// Changed since it was read (by another process, or while the quote was priced): price again with the
		// configuration the transaction sees. Rare, as the cache is corrected here.
		w.config, w.priced = now, false
		if err := w.price(x); err != nil {
			return err
		}
	}
	d.facts = &policy.Input{}
	s.facts(d.facts)
	d.walletID = s.groupID()
	return nil
}

// recordQuote stores the quote, to be executed until it expires.
func (x *execution) recordQuote(w *quoteWork) (*api.CreateSwapQuoteResult, error) {
	if w.quote == nil {
		return nil, errors.New("coordinator: a quote reached its execution unpriced")
	}
	if err := holds(w.quote, w.quote.Balance); err != nil {
		return nil, err
	}
	data, err := json.Marshal(w.quote)
	if err != nil {
		return nil, err
	}
	id, expires := newID(), x.now.Add(x.c.cfg.SwapQuoteTTL)
	if err := x.tx.InsertSwapQuote(x.ctx, store.SwapQuote{OrgID: x.org.ID, ID: id, ActivityID: x.activityID, Quote: data,
		CreatedAt: x.now.UnixMilli(), ExpiresAt: expires.UnixMilli()}, x.now.Add(-24*time.Hour).UnixMilli()); err != nil {
		return nil, err
	}
	venues, err := x.c.venues()
	if err != nil {
		return nil, err
	}
	return &api.CreateSwapQuoteResult{Quotes: []api.SwapQuote{renderQuote(venues, id, expires, w.quote)}}, nil
}

// renderQuote is a quote as the wire shows it.
func renderQuote(venues *swap.Venues, id string, expires time.Time, q *swap.Quote) api.SwapQuote {
	out := api.SwapQuote{QuoteID: id, Provider: swapProvider(q), OutputAmount: q.AmountOut.String(), MinOutputAmount: q.MinOut.String(),
		ExpiresAt: strconv.FormatInt(expires.UnixMilli(), 10), SlippageBps: strconv.FormatInt(q.SlippageBps, 10),
		ClientFeeBps: strconv.FormatInt(q.FeeBps, 10), EstimatedTimeSeconds: strconv.FormatInt(q.EstimatedSeconds, 10),
		SwapKind: q.Kind, InputToken: q.In.String(), OutputToken: q.Out.String(), InputAmount: q.AmountIn.String(),
		DestinationAddress: q.Recipient.Hex(), PriceImpactBps: strconv.FormatInt(q.PriceImpactBps, 10),
		Route: []api.SwapRouteStep{}, Fees: []api.SwapFee{}}
	if q.Fee.Sign() > 0 {
		out.Fees = append(out.Fees, api.SwapFee{Type: api.SwapFeeClient, Asset: q.In.String(), Amount: q.Fee.String(), Recipient: q.FeeReceiver.Hex()})
	}
	addLeg := func(l *swap.Leg) {
		for i, h := range l.Hops {
			out.Route = append(out.Route, api.SwapRouteStep{Type: api.SwapStepUniswapV3Pool, Caip2: l.CAIP2, Address: h.Pool.Hex(),
				InputToken: tokenAsset(l.CAIP2, h.TokenIn), OutputToken: tokenAsset(l.CAIP2, h.TokenOut), FeeTier: strconv.FormatUint(uint64(h.Fee), 10)})
			out.Fees = append(out.Fees, api.SwapFee{Type: api.SwapFeePool, Asset: tokenAsset(l.CAIP2, h.TokenIn), Amount: l.PoolFees[i].String()})
		}
	}
	addLeg(&q.Origin)
	if q.Bridge() {
		origin, _ := venues.Venue(q.Origin.CAIP2)
		out.Route = append(out.Route, api.SwapRouteStep{Type: api.SwapStepSigilBridge, Caip2: q.Origin.CAIP2, Address: origin.Bridge.Hex(),
			InputToken: tokenAsset(q.Origin.CAIP2, q.BridgeToken), OutputToken: tokenAsset(q.Dest.CAIP2, q.DestToken), DestinationCaip2: q.Dest.CAIP2})
		addLeg(q.Dest)
	}
	return out
}

func tokenAsset(caip2 string, token common.Address) string {
	return swap.Asset{CAIP2: caip2, Token: token}.String()
}

func swapProvider(q *swap.Quote) string {
	if q.Bridge() {
		return api.SwapProviderSigilBridge
	}
	return api.SwapProviderUniswapV3
}

// venues are the configured swap venues, or the refusal of a server with none.
func (c *Coordinator) venues() (*swap.Venues, error) {
	v := c.swapVenues.Load()
	if v == nil {
		return nil, apierr.New(apierr.FailedPrecondition, "SWAPS_NOT_CONFIGURED", "this server has no swap venue: it quotes and executes swaps only on networks configured with Uniswap V3 and Sigil's swap router")
	}
	return v, nil
}

// UseSwapVenues replaces the venues the coordinator swaps on (Config.SwapVenues): for venues, such as the dev chains',
// that start after the coordinator was made.
func (c *Coordinator) UseSwapVenues(v *swap.Venues) { c.swapVenues.Store(v) }

// swapSigner is the organization's signer of a swap's address: an Ethereum account of a wallet or a private key.
func (x *execution) swapSigner(addr common.Address) (*signer, error) {
	s, err := x.signer(addr.Hex())
	if err != nil {
		return nil, apierr.Invalid("parameters.signWith: no wallet account or private key %s in this organization", addr.Hex())
	}
	if _, err := s.ethereumAddress(); err != nil {
		return nil, err
	}
	return s, nil
}

// swapConfig is the organization's swap configuration (no client fee when it has none), as last read: a quote's
// transaction reads it again and prices anew if it changed.
func (c *Coordinator) swapConfig(ctx context.Context, orgID string) (store.SwapConfig, error) {
	if cfg, ok := c.swapConfigs.get(orgID); ok {
		return cfg, nil
	}
	cfg, err := c.store.SwapConfigOf(ctx, orgID)
	if errors.Is(err, store.ErrNotFound) {
		cfg, err = defaultSwapConfig(orgID), nil
	}
	if err != nil {
		return store.SwapConfig{}, err
	}
	c.swapConfigs.put(cfg)
	return cfg, nil
}

// swapConfigCache holds organizations' swap configurations as last read, so that pricing a quote ahead of its
// transaction costs no database round trip. It is bounded: when full, it starts over.
type swapConfigCache struct {
	mu sync.Mutex
	m  map[string]store.SwapConfig
}

const maxCachedSwapConfigs = 10_000

func (c *swapConfigCache) get(orgID string) (store.SwapConfig, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cfg, ok := c.m[orgID]
	return cfg, ok
}

func (c *swapConfigCache) put(cfg store.SwapConfig) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxCachedSwapConfigs {
		c.m = make(map[string]store.SwapConfig)
	}
	c.m[cfg.OrgID] = cfg
}

func (c *swapConfigCache) forget(orgID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, orgID)
}

func defaultSwapConfig(orgID string) store.SwapConfig {
	return store.SwapConfig{OrgID: orgID, StableFeeBps: -1}
}

// swapError is a swap package error as the API answers it.
func swapError(err error) error {
	var refused *swap.RefusedError
	var upstream *swap.UpstreamError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &refused) && refused.Precondition:
		return apierr.New(apierr.FailedPrecondition, "REQUEST_INVALID", "parameters.%s: %s", refused.Field, refused.Reason)
	case errors.As(err, &refused):
		return apierr.Invalid("parameters.%s: %s", refused.Field, refused.Reason)
	case errors.As(err, &upstream):
		return apierr.New(apierr.Unavailable, "NETWORK_UNAVAILABLE", "%s: the node did not answer; try again", upstream.CAIP2)
	}
	return err
}

// holds refuses a swap of more than the payer held when the chain was read.
func holds(q *swap.Quote, balance *big.Int) error {
	if balance == nil || balance.Cmp(q.AmountIn) < 0 {
		return apierr.New(apierr.FailedPrecondition, "REQUEST_INVALID", "parameters.inputAmount: %s holds %s base units of %s, less than %s",
			q.From.Hex(), balance, q.In, q.AmountIn)
	}
	return nil
}

// The configuration of swaps.

func validateUpsertSwapConfig(p *api.UpsertSwapConfigIntent) error {
	if p.FeeReceiverWalletAddress != nil && *p.FeeReceiverWalletAddress != "" {
		if _, err := evmAddress("parameters.feeReceiverWalletAddress", *p.FeeReceiverWalletAddress); err != nil {
			return err
		}
	}
	if p.FeeBps != nil {
		if _, err := bpsParam("parameters.feeBps", *p.FeeBps, maxSwapFeeBps); err != nil {
			return err
		}
	}
	if p.StableFeeBps != nil && *p.StableFeeBps != "" {
		if _, err := bpsParam("parameters.stableFeeBps", *p.StableFeeBps, maxSwapFeeBps); err != nil {
			return err
		}
	}
	return nil
}

// execUpsertSwapConfig applies what the intent gives over the configuration there is.
func execUpsertSwapConfig(x *execution, p *api.UpsertSwapConfigIntent) (*api.UpsertSwapConfigResult, error) {
	cfg, err := x.tx.SwapConfig(x.ctx, x.org.ID)
	if errors.Is(err, store.ErrNotFound) {
		cfg, err = defaultSwapConfig(x.org.ID), nil
	}
	if err != nil {
		return nil, err
	}
	if p.FeeReceiverWalletAddress != nil {
		cfg.FeeReceiver = ""
		if *p.FeeReceiverWalletAddress != "" {
			cfg.FeeReceiver = common.HexToAddress(*p.FeeReceiverWalletAddress).Hex()
		}
	}
	if p.FeeBps != nil {
		cfg.FeeBps, _ = strconv.ParseInt(*p.FeeBps, 10, 64)
	}
	if p.StableFeeBps != nil {
		cfg.StableFeeBps = -1
		if *p.StableFeeBps != "" {
			cfg.StableFeeBps, _ = strconv.ParseInt(*p.StableFeeBps, 10, 64)
		}
	}
	if (cfg.FeeBps > 0 || cfg.StableFeeBps > 0) && cfg.FeeReceiver == "" {
		return nil, apierr.Invalid("parameters.feeReceiverWalletAddress: a client fee is paid to an address; give one")
	}
	cfg.UpdatedAt = x.now.UnixNano()
	if err := x.tx.PutSwapConfig(x.ctx, cfg); err != nil {
		return nil, err
	}
	x.c.swapConfigs.forget(x.org.ID) // read afresh by the next quote (one read before the commit is corrected by its transaction)
	out := &api.UpsertSwapConfigResult{FeeReceiverWalletAddress: cfg.FeeReceiver, FeeBps: strconv.FormatInt(cfg.FeeBps, 10)}
	if cfg.StableFeeBps >= 0 {
		out.StableFeeBps = strconv.FormatInt(cfg.StableFeeBps, 10)
	}
	return out, nil
}

// The parameters of swaps.

func evmAddress(path, s string) (common.Address, error) {
	if len(s) != 42 || !common.IsHexAddress(s) || s[:2] != "0x" {
		return common.Address{}, apierr.Invalid("%s must be a 0x address, got %q", path, s)
	}
	a := common.HexToAddress(s)
	if a == (common.Address{}) {
		return common.Address{}, apierr.Invalid("%s must not be the zero address", path)
	}
	return a, nil
}

func parseSwapAsset(path, s string) (swap.Asset, error) {
	a, err := swap.ParseAsset(s)
	if err != nil {
		return swap.Asset{}, apierr.Invalid("%s: %s", path, err.Error())
	}
	return a, nil
}

// positiveAmount reads a decimal amount of base units, above zero and within 256 bits.
func positiveAmount(path, s string) (*big.Int, error) {
	n, ok := new(big.Int).SetString(s, 10)
	if !ok || !isDigits(s) || n.BitLen() > 256 {
		return nil, apierr.Invalid("%s must be a decimal amount of base units, got %q", path, s)
	}
	if n.Sign() == 0 {
		return nil, apierr.Invalid("%s must be more than zero", path)
	}
	return n, nil
}

// bpsParam reads basis points, from 0 to most.
func bpsParam(path, s string, most int64) (int64, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || !isDigits(s) {
		return 0, apierr.Invalid("%s must be a whole number of basis points, got %q", path, s)
	}
	if n > most {
		return 0, apierr.Invalid("%s: %d basis points is over the cap of %d", path, n, most)
	}
	return n, nil
}
