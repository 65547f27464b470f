// Package yield is Sigil's yield-action service: a catalogue of yield opportunities (ERC-4626 vaults, allocator
// vaults with fees, Aave v3 lending, native and provider staking) read from a configuration file, and an HTTP API in
// the shape of the Yield.xyz API that builds the unsigned transactions to enter, exit and manage them, reads balances
// from the chain and tracks the transactions the caller broadcasts. It is self-custodial: it never holds a key.
//
// Every request carries an X-API-KEY. Keys are stored hashed; each belongs to a project, and the project's fee set (10
// or 20, fixed by its first key) decides the allocator vaults its keys see. Actions, transactions, projects, keys and
// price-per-share samples live in the coordinator's database (package store).
package yield

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/sigil/sigil/internal/metrics"
	"github.com/sigil/sigil/internal/seal"
	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/webhook"
)

// Config configures a Service.
type Config struct {
	Catalogue Catalogue
	Store     *store.Store
	// Clock is the time source of rate limits, action times and the receipt watcher's give-up time.
	// Default time.Now.
	Clock  func() time.Time
	Logger *slog.Logger // default slog.Default()
	// RateLimit is the number of requests one API key may make per 60-second window; default 6000.
	RateLimit int
	// PollInterval is how often the receipt watcher asks the chain about broadcast transactions; default 1s.
	PollInterval time.Duration
	// SampleInterval is how often price-per-share samples are taken for the reward rates; default 10 minutes.
	SampleInterval time.Duration
	// RateWindow is the window of block time the reward rates are computed over; default 7 days.
	RateWindow time.Duration
	// DropAfter is how long a broadcast transaction may stay unknown to the chain before it is marked FAILED;
	// default 30 minutes.
	DropAfter time.Duration
	// HTTPClient reaches the networks' JSON-RPC endpoints; default a client with a 10-second timeout.
	HTTPClient *http.Client
	// Metrics counts requests and chain calls, and is served at /metrics; nil counts nothing.
	Metrics *metrics.Metrics
	// SharedLimits counts the per-key rate limit in the database, for several processes over one PostgreSQL; nil
	// counts in this process.
	SharedLimits RequestCounter
	// Keyring seals the secrets of the projects' webhook endpoints at rest; without one, endpoints cannot be
	// registered nor deliveries signed.
	Keyring *seal.Keyring
	// WebhooksAllowPrivate lets endpoints be http URLs and private, loopback or link-local addresses: for local
	// development and tests only.
	WebhooksAllowPrivate bool
	// WebhookBackoff is the deliveries' retry schedule (webhook.Backoff's defaults: 10 s doubling to 1 h, 10 attempts).
	WebhookBackoff webhook.Backoff
	// WebhookPollInterval is how often the webhook worker looks for deliveries written by other processes (default 5 s).
	WebhookPollInterval time.Duration
}

func (c Config) withDefaults() Config {
	if c.Clock == nil {
		c.Clock = time.Now
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.RateLimit <= 0 {
		c.RateLimit = 6000
	}
	if c.PollInterval <= 0 {
		c.PollInterval = time.Second
	}
	if c.SampleInterval <= 0 {
		c.SampleInterval = 10 * time.Minute
	}
	if c.RateWindow <= 0 {
		c.RateWindow = 7 * 24 * time.Hour
	}
	if c.DropAfter <= 0 {
		c.DropAfter = 30 * time.Minute
	}
	if c.HTTPClient == nil {
		// Keep enough idle connections to the node for concurrent requests: a new connection per batch costs
		// more than the batch on loopback.
		transport := http.DefaultTransport.(*http.Transport).Clone()
		transport.MaxIdleConnsPerHost = 64
		c.HTTPClient = &http.Client{Timeout: 10 * time.Second, Transport: transport}
	}
	return c
}

// Service is the yield service. Handler serves the API; Start runs the receipt watcher and the rate sampler.
type Service struct {
	cfg        Config
	store      *store.Store
	log        *slog.Logger
	now        func() time.Time
	networks   map[string]*Network
	clients    map[string]*chainClient
	yields     []*yieldEntry
	byID       map[string]*yieldEntry
	providers  []Provider
	markets    []*marketEntry // the Borrow API's (borrow_*.go)
	marketByID map[string]*marketEntry
	keys       *keyCache
	limiter    *limiter
	rates      *rateBook
	// started is when the service was created: the createdAt of its risk parameters.
	started     time.Time
	deployments deploymentCache // contracts' deployment blocks, found once (risk.go)

	wake      chan struct{} // nudges the receipt watcher after a submitted hash
	stop      chan struct{}
	running   sync.WaitGroup
	startOnce sync.Once
	closeOnce sync.Once

	// webhookWorker is the running webhook worker, woken when a change wrote deliveries; webhookJitter is its
	// backoff's randomness (nil: uniform), set by tests.
	webhookWorker atomic.Pointer[webhook.Worker]
	webhookJitter func(max time.Duration) time.Duration
}

// yieldEntry is one catalogue yield with its addresses parsed and its builder chosen.
type yieldEntry struct {
	cfg     YieldConfig
	network *Network
	client  *chainClient
	builder builder
	token   common.Address // zero for native staking
	output  common.Address // share, aToken or liquid staking token
	vault   common.Address
	pool    common.Address
	staking common.Address
	wrapper common.Address
	static  yieldDTO // everything but the reward rate and the share price
}

var builders = map[string]builder{
	KindERC4626:         vaultBuilder{},
	KindAllocatorVault:  vaultBuilder{},
	KindLending:         lendingBuilder{},
	KindNativeStaking:   nativeStakingBuilder{},
	KindProviderStaking: providerStakingBuilder{},
}

// New validates the catalogue and prepares the service. It does not talk to the chain: Start does.
func New(cfg Config) (*Service, error) {
	cfg = cfg.withDefaults()
	if cfg.Store == nil {
		return nil, errors.New("yield: Config.Store is required")
	}
	if err := cfg.Catalogue.Validate(); err != nil {
		return nil, fmt.Errorf("yield: catalogue: %w", err)
	}
	s := &Service{
		cfg: cfg, store: cfg.Store, log: cfg.Logger, now: cfg.Clock,
		networks: map[string]*Network{}, clients: map[string]*chainClient{}, byID: map[string]*yieldEntry{},
		providers: cfg.Catalogue.Providers,
		keys:      newKeyCache(),
		limiter:   &limiter{limit: cfg.RateLimit, window: time.Minute, windows: map[string]*window{}, shared: cfg.SharedLimits},
		rates:     newRateBook(),
		started:   cfg.Clock().UTC(),
		wake:      make(chan struct{}, 1),
		stop:      make(chan struct{}),
	}
	for i := range cfg.Catalogue.Networks {
		n := &cfg.Catalogue.Networks[i]
		c, err := dialNetwork(context.Background(), n, cfg.HTTPClient)
		if err != nil {
			s.closeClients()
			return nil, err
		}
		c.metrics = cfg.Metrics
		s.networks[n.ID], s.clients[n.ID] = n, c
	}
	for _, y := range cfg.Catalogue.Yields {
		e := &yieldEntry{cfg: y, network: s.networks[y.Network], client: s.clients[y.Network], builder: builders[y.Kind]}
		for _, a := range []struct {
			dst *common.Address
			src string
		}{{&e.token, y.Token.Address}, {&e.vault, y.Contracts.Vault}, {&e.pool, y.Contracts.Pool},
			{&e.staking, y.Contracts.Staking}, {&e.wrapper, y.Contracts.FeeWrapper}} {
			if a.src != "" {
				*a.dst = common.HexToAddress(a.src)
			}
		}
		if y.OutputToken != nil {
			e.output = common.HexToAddress(y.OutputToken.Address)
		}
		e.static = staticYieldDTO(e)
		s.yields = append(s.yields, e)
		s.byID[y.ID] = e
	}
	s.marketByID = map[string]*marketEntry{}
	for _, m := range cfg.Catalogue.Markets {
		e := newMarketEntry(m, s.networks[m.Network], s.clients[m.Network])
		s.markets = append(s.markets, e)
		s.marketByID[m.ID] = e
	}
	return s, nil
}

// Start checks the catalogue against the chain (chain ids, token decimals, vault assets, on-chain fees), loads the
// reward rates from the stored samples, takes a first sample, and runs the receipt watcher and the sampler until
// Close. A mismatch between the catalogue and the chain is an error: the service would build wrong transactions.
func (s *Service) Start(ctx context.Context) error {
	var err error
	s.startOnce.Do(func() {
		if err = s.verify(ctx); err != nil {
			return
		}
		if err = s.verifyMarkets(ctx); err != nil {
			return
		}
		if err = s.loadRates(ctx); err != nil {
			return
		}
		if err = s.SampleNow(ctx); err != nil {
			s.log.Warn("yield: first price sample failed; retrying on the next interval", "err", err)
			err = nil
		}
		s.every(s.cfg.PollInterval, s.wake, func(ctx context.Context) error { return s.PollReceipts(ctx) })
		s.every(s.cfg.SampleInterval, nil, func(ctx context.Context) error { return s.SampleNow(ctx) })
	})
	return err
}

// every runs f on a period (and whenever nudge fires) until Close; errors are logged.
func (s *Service) every(period time.Duration, nudge <-chan struct{}, f func(context.Context) error) {
	s.running.Add(1)
	go func() {
		defer s.running.Done()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		ticker := time.NewTicker(period)
		defer ticker.Stop()
		for {
			select {
			case <-s.stop:
				return
			case <-ticker.C:
			case <-nudge:
			}
			if err := f(ctx); err != nil {
				s.log.Warn("yield: background task failed", "err", err)
			}
		}
	}()
}

// Close stops the background tasks and closes the RPC clients. It does not close the store.
func (s *Service) Close() error {
	s.closeOnce.Do(func() {
		close(s.stop)
		s.running.Wait()
		s.closeClients()
	})
	return nil
}

func (s *Service) closeClients() {
	for _, c := range s.clients {
		c.close()
	}
}

// RPCStats reports the JSON-RPC calls and HTTP round trips made to a network since the service was created.
func (s *Service) RPCStats(network string) (calls, roundTrips int64) {
	c := s.clients[network]
	if c == nil {
		return 0, 0
	}
	return c.calls.Load(), c.roundTrips.Load()
}

// visibleYield finds a yield a key's fee set may see.
func (s *Service) visibleYield(id string, k *keyInfo) *yieldEntry {
	e := s.byID[id]
	if e == nil || !e.cfg.visibleTo(k.feeSet) {
		return nil
	}
	return e
}

func (s *Service) nowMillis() int64 { return s.now().UnixMilli() }
