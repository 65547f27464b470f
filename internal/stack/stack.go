// Package stack starts and stops Sigil's services together, as `sigil up` runs them: the coordinator (with the dev
// mail outbox on its listener), the embedded dev chain, the yield service, the auth proxy and the organization
// dashboard, each on its own listener, over one database and one data directory, with the record of the first start
// in DIR/bootstrap.json. Tests start a whole stack the same way, on 127.0.0.1:0 in a temporary directory:
//
//	s, err := stack.Start(ctx, stack.Config{Dir: t.TempDir(), ChainEphemeral: true})
//	defer s.Close()
//	c := client.New(s.Bootstrap().CoordinatorURL, rootKey)
//
// StartCoordinator, StartYield and StartServer start one service alone, with the same lifetime rules: Close stops
// what was started in the reverse order of its start, and a start that fails midway closes what it had started.
package stack

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/sigil/sigil/internal/authproxy"
	"github.com/sigil/sigil/internal/chain"
	"github.com/sigil/sigil/internal/chain/devcatalogue"
	"github.com/sigil/sigil/internal/chain/devearn"
	"github.com/sigil/sigil/internal/contracts"
	"github.com/sigil/sigil/internal/coordinator"
	"github.com/sigil/sigil/internal/dashboard"
	"github.com/sigil/sigil/internal/metrics"
	"github.com/sigil/sigil/internal/notify"
	"github.com/sigil/sigil/internal/oidc"
	"github.com/sigil/sigil/internal/seal"
	"github.com/sigil/sigil/internal/send"
	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/tracing"
	"github.com/sigil/sigil/internal/yield"
)

// Config is a whole stack's settings. The zero value of each field but Dir means its default.
type Config struct {
	// Dir is the data directory, created if missing (mode 0700): the SQLite database, master.key, bootstrap.json,
	// authproxy.json, the dev outbox (outbox/), the dev chain (chain/) and the yield catalogue. Required.
	Dir string
	// DatabaseURL is a PostgreSQL URL (postgres://...); empty is SQLite in Dir.
	DatabaseURL string
	// NoWebhookDeliveries keeps this process from posting webhook deliveries (the coordinator's and the yield
	// service's): it still writes them to the outbox, and another process sharing the PostgreSQL database posts them,
	// so that signing servers spend nothing on deliveries. Refused on SQLite, where no other process could.
	NoWebhookDeliveries bool
	// MasterKeyFile seals key material at rest (default Dir/master.key, created on the first start). MasterKey (a key
	// file's content) or MasterKeyCommand (a command printing it) replace it: see MasterKeySource.
	MasterKeyFile    string
	MasterKey        []byte
	MasterKeyCommand string

	// Each service's listen address, host:port; empty is 127.0.0.1:0, a port the system picks. Bootstrap and
	// Services tell where each one listens.
	Listen, AuthProxyListen, YieldListen, DashboardListen, ChainListen string
	// SolanaListen is the Solana dev node's JSON-RPC address (it runs with the dev chain; "" picks a port).
	SolanaListen string
	// FramesListen is the export and import frames' address ("" picks a port); FramesAllowedOrigins the origins of
	// the apps that embed them (default: AllowedOrigins less "*"). See startFrames.
	FramesListen         string
	FramesAllowedOrigins []string

	// AllowedOrigins are the browser origins allowed to call the coordinator ("*" allows any); the dashboard's own
	// origins are always added.
	AllowedOrigins []string
	// TrustedProxies are the proxies in front of the coordinator whose X-Forwarded-For the IP allowlists believe.
	TrustedProxies []netip.Prefix
	// OIDC verifies the ID tokens of the trusted OIDC issuers (nil trusts none). OIDCIssuerURL is the issuer of the
	// OIDC tokens the coordinator issues (default: the coordinator's URL). OAuth2Providers add OAuth 2.0 providers or
	// replace built-in ones.
	OIDC            *oidc.Verifier
	OIDCIssuerURL   string
	OAuth2Providers map[string]oidc.Provider

	// ChainBlockPeriod also seals a block on this period when no transaction arrives (0: only on transactions).
	// ChainSimulate accrues yield on this period (0: off). ChainEphemeral keeps the chain in memory instead of
	// Dir/chain.
	ChainBlockPeriod, ChainSimulate time.Duration
	// ChainKeeper runs the dev liquidator on this period (0: off). ChainPriceWalkBps moves WETH's oracle price by up to
	// that many basis points at each simulator step (0: off).
	ChainKeeper       time.Duration
	ChainPriceWalkBps int64
	// ChainRewardPeriod is how often, in chain time, the dev chain publishes an Earn reward root (0: every 8 hours,
	// as Merkl does).
	ChainRewardPeriod time.Duration
	ChainEphemeral    bool
	// ChainRPC, when set, is an existing node (Anvil, Hardhat, geth --dev) that the dev chain's fixtures, faucet
	// and simulator use instead of an embedded node; ChainListen is then the faucet's alone.
	ChainRPC string
	// SecondChain also runs a second embedded dev chain (chain id SecondChainID, network SecondChainNetworkID) with
	// the same fixtures, listed by the yield service beside the first.
	SecondChain bool

	// Logger receives every service's log lines (default: discarded).
	Logger *slog.Logger
	// OTLPEndpoint receives every service's spans over OTLP/HTTP, http://127.0.0.1:4318 for example (empty: none).
	// Every service counts its requests either way and serves the stack's series at /metrics.
	OTLPEndpoint string
	// Audit receives the coordinator's audit stream, one JSON line per recorded activity (nil: none).
	Audit io.Writer
	// StrictPolicyErrors is the coordinator's rule for DENY policies that cannot be evaluated on an activity
	// (coordinator.Config.StrictPolicyErrors).
	StrictPolicyErrors bool
	// Exposed allows listen addresses beyond loopback. Without it (or TLS) Start refuses them: the stack is dev mode,
	// its dev outbox holds every OTP code and its services speak plain HTTP. With it the outbox is neither served nor
	// logs codes (its file in Dir still has them); TLS is then the job of a proxy in front.
	Exposed bool
	// Delivery configures real OTP senders (SMTP, Twilio); an unconfigured channel goes to the dev outbox.
	Delivery Delivery
	// Production is the production mode: no dev chain, no dev outbox (a channel without a sender refuses OTPs), quiet
	// as Exposed, and a refusal to start on dev defaults (checkProduction).
	Production bool
	// WatchNetworks are the EVM networks and Solana clusters whose balance changes the coordinator reports to webhooks,
	// besides the dev chains' and the Solana dev node's.
	WatchNetworks []coordinator.Network
	// SendNetworks are the EVM networks and Solana clusters the sending activities send on, besides the dev chain and
	// the Solana dev node (send.LoadNetworks reads them from a file in the yield catalogue's format).
	SendNetworks []send.Network
	// NoDevChain leaves out the dev chain and the yield service that runs on it: a deployment runs the yield service
	// alone (sigil yield) on real networks.
	NoDevChain bool
	// TLSCertFile and TLSKeyFile, when given, make every service listen with TLS (the dev chain excepted), with the
	// certificate reloaded by ReloadTLS. They allow addresses beyond loopback as Exposed does, with its quiet outbox.
	TLSCertFile, TLSKeyFile string
}

// DevChainETHPriceUSD is the price at which the dev chain's ETH counts against gas-spend limits of sponsored sends.
const DevChainETHPriceUSD = 3000

// ShutdownTimeout is how long Close lets the requests in flight finish, over all services.
const ShutdownTimeout = 15 * time.Second

// DevOutboxPath is where the coordinator's listener lists the messages the dev outbox received.
const DevOutboxPath = "/dev/outbox"

// AuthProxyIdentityFile is the auth proxy service's keys in the data directory (mode 0600), created on the first start.
const AuthProxyIdentityFile = "authproxy.json"

// Service is one service of a stack and the URL it answers at.
type Service struct {
	Name, URL string
}

// Stack is a set of started services. Its methods may be called from any goroutine.
type Stack struct {
	logger   *slog.Logger
	closers  []closer // in the order of start
	servers  []*server
	extra    []Service // services that serve themselves (the dev chain)
	errc     chan error
	serving  sync.WaitGroup
	deadline time.Time // of the graceful shutdown, set when Close begins

	closeOnce sync.Once
	closeErr  error

	store *store.Store
	coord *coordinator.Coordinator
	boot  Bootstrap
	tls   *certReloader // the listeners' certificate; nil serves plain HTTP
	// fileKeys seals the private keys that bootstrap.json and authproxy.json hold: the master key in production mode;
	// nil in dev mode, which keeps them in clear for sigil api, sigil demo and the tests.
	fileKeys *seal.Keyring
	// noWebhookDeliveries: this process writes webhook deliveries but another posts them (Config.NoWebhookDeliveries).
	noWebhookDeliveries bool
}

type closer struct {
	name  string
	close func() error
}

// server is one HTTP service on its own listener; handler is set once the service is built, before serving.
type server struct {
	name, url string
	ln        net.Listener
	handler   http.Handler
	srv       *http.Server
}

func newStack(logger *slog.Logger) *Stack {
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &Stack{logger: logger}
}

// Start starts every service of `sigil up`, in this order: the database and master key, the coordinator (on the
// first start it creates the root organization, with a root user and a P-256 API key, and records it in
// bootstrap.json), the dev chain, the yield service (creating its two dev projects' API keys when bootstrap.json
// lacks them), the auth proxy (enabling the root organization's proxy configuration on the first start, through the
// coordinator's API in this process) and the dashboard. Each is recorded in bootstrap.json as it starts; every
// listener serves once all of them are ready, so a service that answers means the whole stack is up.
func Start(ctx context.Context, cfg Config) (_ *Stack, err error) {
	if cfg, err = settle(cfg); err != nil {
		return nil, err
	}
	s := newStack(cfg.Logger)
	s.noWebhookDeliveries = cfg.NoWebhookDeliveries
	defer s.closeOnError(&err)
	if err := s.lockDir(cfg.Dir); err != nil {
		return nil, err
	}
	if s.tls, err = newCertReloader(cfg.TLSCertFile, cfg.TLSKeyFile); err != nil {
		return nil, err
	}
	stopTracing, err := tracing.Setup(ctx, cfg.OTLPEndpoint, "sigil")
	if err != nil {
		return nil, err
	}
	s.onClose("tracing", func() error { return stopTracing(context.Background()) })
	st, ring, keyPath, err := s.openStore(ctx, cfg.Dir, cfg.DatabaseURL,
		MasterKeySource{File: cfg.MasterKeyFile, Content: cfg.MasterKey, Command: cfg.MasterKeyCommand})
	if err != nil {
		return nil, err
	}
	// One set of series for the process, served by each service at /metrics.
	m := metrics.New()
	st.Measure(m)
	if cfg.Production {
		s.fileKeys = ring
	}
	proxyID, err := authproxy.LoadOrCreateIdentity(filepath.Join(cfg.Dir, AuthProxyIdentityFile), s.fileKeys)
	if err != nil {
		return nil, fmt.Errorf("auth proxy identity: %w", err)
	}
	// The dashboard's listener is bound before the coordinator is made: the coordinator's CORS must allow the
	// dashboard's origin, whose port the system may pick.
	dash, err := s.listen("dashboard", cfg.DashboardListen)
	if err != nil {
		return nil, err
	}
	coordSrv, api, err := s.startCoordinator(ctx, cfg, st, ring, keyPath, m, proxyID, origins(dash.ln))
	if err != nil {
		return nil, err
	}
	networks, yieldSrvs, err := s.startNetworks(ctx, cfg, st, ring, m)
	if err != nil {
		return nil, err
	}
	proxySrv, err := s.startAuthProxy(ctx, cfg, st, m, proxyID, api, coordSrv.url)
	if err != nil {
		return nil, err
	}
	dash.handler = dashboard.Handler(dashboard.Config{CoordinatorURL: coordSrv.url, AuthProxyURL: proxySrv.url, OrganizationID: s.boot.OrganizationID,
		Chains: dashboardChains(networks, &s.boot), YieldURL: s.boot.YieldURL})
	s.boot.DashboardURL = dash.url
	framesSrv, err := s.startFrames(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("frames: %w", err)
	}
	if err := s.save(cfg.Dir); err != nil {
		return nil, err
	}
	servers := slices.Concat([]*server{coordSrv}, yieldSrvs, []*server{proxySrv, dash})
	if framesSrv != nil {
		servers = append(servers, framesSrv)
	}
	s.serve(servers...)
	return s, nil
}

// settle checks a configuration and returns it with what production mode and TLS imply.
func settle(cfg Config) (Config, error) {
	if cfg.Dir == "" {
		return cfg, errors.New("stack: Config.Dir is required")
	}
	if cfg.Production {
		if err := checkProduction(cfg); err != nil {
			return cfg, err
		}
		cfg.NoDevChain, cfg.Exposed = true, true
	}
	cfg.Exposed = cfg.Exposed || cfg.TLSCertFile != ""
	if err := checkLoopback(cfg); err != nil {
		return cfg, err
	}
	if cfg.NoWebhookDeliveries && cfg.DatabaseURL == "" {
		return cfg, errors.New("stack: posting no webhook deliveries needs a PostgreSQL database (--database-url) that another process posting them shares; with SQLite nothing would deliver them")
	}
	return cfg, nil
}

// startCoordinator makes and starts the coordinator, with its webhook deliveries unless another process posts them,
// creates the root organization on the first start, and records it. It returns the coordinator's listener (its
// handler set; in dev mode with the dev outbox beside the API) and the API's handler. dashOrigins are the dashboard's
// browser origins, which the coordinator's CORS allows.
func (s *Stack) startCoordinator(ctx context.Context, cfg Config, st *store.Store, ring *seal.Keyring, keyPath string,
	m *metrics.Metrics, proxyID *authproxy.Identity, dashOrigins []string) (*server, http.Handler, error) {
	email, sms, outbox, err := cfg.Delivery.senders(cfg.Dir, cfg.Production, cfg.Exposed, s.logger)
	if err != nil {
		return nil, nil, err
	}
	srv, err := s.listen("coordinator", cfg.Listen)
	if err != nil {
		return nil, nil, err
	}
	coord := coordinator.New(st, coordinator.Config{Logger: s.logger, Metrics: m, Audit: cfg.Audit, StrictPolicyErrors: cfg.StrictPolicyErrors,
		AllowedOrigins: append(slices.Clone(cfg.AllowedOrigins), dashOrigins...), TrustedProxies: cfg.TrustedProxies,
		Keyring: ring, MasterKeyFile: keyPath, Email: email, EmailFrom: cmp.Or(cfg.Delivery.EmailFrom, "sigil@localhost"),
		EmailSenderDomains: cfg.Delivery.SenderDomains, SMS: sms,
		OIDC: cfg.OIDC, OIDCIssuerURL: cmp.Or(cfg.OIDCIssuerURL, srv.url), OAuth2Providers: cfg.OAuth2Providers,
		AuthProxy: &coordinator.AuthProxyService{EncryptionKey: proxyID.EncryptionPublicKey(), ServiceKey: proxyID.ServicePublicKey()},
		// In dev mode webhooks may go to local receivers (http, loopback); exposed, only to public https URLs.
		Webhooks: coordinator.WebhookConfig{AllowPrivateNetworks: !cfg.Exposed},
		// Gas sponsors are funded from every dev chain's faucet, once they run (their URLs are recorded before the send
		// worker, which creates the sponsors, starts).
		FundSponsor: func(ctx context.Context, address common.Address) error {
			for _, c := range s.boot.Chains {
				if _, err := chain.RequestFunds(ctx, http.DefaultClient, c.FaucetURL, chain.FundRequest{Address: address.Hex(), ETH: "10"}); err != nil {
					return err
				}
			}
			return nil
		},
		FundSolanaSponsor: s.fundSolanaSponsor})
	if err := coord.Start(ctx); err != nil {
		return nil, nil, err
	}
	if !s.noWebhookDeliveries {
		s.runWebhooks("webhook deliveries", coord.RunWebhooks)
	}
	s.coord = coord
	api := coord.Handler()
	srv.handler = api
	if !cfg.Exposed && outbox != nil {
		srv.handler = devHandler(api, outbox)
	}
	if s.boot, err = ensureRoot(ctx, coord, cfg.Dir, s.fileKeys); err != nil {
		return nil, nil, err
	}
	s.boot.CoordinatorURL, s.boot.DevOutboxURL = srv.url, ""
	if !cfg.Exposed && outbox != nil {
		s.boot.DevOutboxURL = srv.url + DevOutboxPath
	}
	if err := s.save(cfg.Dir); err != nil {
		return nil, nil, err
	}
	return srv, api, nil
}

// startNetworks starts, unless cfg.NoDevChain, the dev chains with the yield service on them and the Solana dev node;
// then the balance watcher over them and the networks cfg names, and the send worker. It returns the networks watched
// and the yield service's listener, if it started.
func (s *Stack) startNetworks(ctx context.Context, cfg Config, st *store.Store, ring *seal.Keyring, m *metrics.Metrics) ([]coordinator.Network, []*server, error) {
	var servers []*server
	networks := slices.Clone(cfg.WatchNetworks)
	sendNetworks := slices.Clone(cfg.SendNetworks)
	if !cfg.NoDevChain {
		yieldSrv, err := s.startDevChain(ctx, cfg, st, ring, m)
		if err != nil {
			return nil, nil, err
		}
		servers = append(servers, yieldSrv)
		// Balance webhooks of the dev chains (a change is final two blocks later: a dev chain seals a block per
		// transaction, or per --chain-block-period), and the networks sends go to.
		for _, c := range s.boot.Chains {
			caip2 := "eip155:" + strconv.FormatInt(c.ChainID, 10)
			networks = append(networks, coordinator.Network{CAIP2: caip2, RPCURL: c.RPCURL, Confirmations: 2, Tokens: devTokens(c)})
			sendNetworks = append(sendNetworks, send.Network{CAIP2: caip2, Name: c.Name, RPCURL: c.RPCURL,
				BatchDelegate: common.HexToAddress(c.Contracts[contracts.Delegate7702]), GasStation: common.HexToAddress(c.Contracts[contracts.Station]),
				NativeUSD: DevChainETHPriceUSD, PollInterval: 100 * time.Millisecond})
		}
		if err := s.startSwaps(s.boot.Chains); err != nil { // swaps.go
			return nil, nil, fmt.Errorf("swap venues: %w", err)
		}
		sol, err := s.startSolanaDev(ctx, cfg)
		if err != nil {
			return nil, nil, err
		}
		sendNetworks = append(sendNetworks, sol)
		networks = append(networks, coordinator.Network{CAIP2: sol.CAIP2, RPCURL: sol.RPCURL}) // its balance webhooks too
	}
	networks = withAssets(networks, sendNetworks)
	if err := s.coord.FollowChains(networks); err != nil {
		return nil, nil, err
	}
	if len(networks) > 0 {
		s.runWebhooks("balance watcher", func(ctx context.Context) error { return s.coord.WatchBalances(ctx, networks) })
	}
	if len(sendNetworks) > 0 {
		nws, err := send.NewNetworks(sendNetworks)
		if err != nil {
			return nil, nil, fmt.Errorf("send networks: %w", err)
		}
		s.coord.UseNetworks(nws)
		s.runWebhooks("send worker", s.coord.RunSends)
	}
	if !cfg.NoDevChain {
		// Earn on the dev chains: their wrapper factory, reward distributor and rewards API, and curated vaults.
		cat, err := devearn.Catalogue(ctx, s.boot.Chains...)
		if err != nil {
			return nil, nil, fmt.Errorf("earn catalogue: %w", err)
		}
		s.coord.UseEarn(cat)
	}
	return networks, servers, nil
}

// devTokens are the dev chain's test tokens, which chain data reports balances of (their symbols, names and decimals
// are read from their contracts).
func devTokens(c chain.Bootstrap) []send.Token {
	var out []send.Token
	for _, name := range []string{contracts.USDC, contracts.USDT, contracts.DAI, contracts.WETH, contracts.Incentive} {
		if addr, ok := c.Contracts[name]; ok {
			out = append(out, send.Token{Address: addr})
		}
	}
	return out
}

// withAssets gives each watched network that lists no assets of its own those of the networks file's entry of the
// same CAIP-2 id (send.LoadNetworks), for chain data.
func withAssets(watched []coordinator.Network, described []send.Network) []coordinator.Network {
	for i, w := range watched {
		for _, d := range described {
			if d.CAIP2 == w.CAIP2 && len(w.Tokens) == 0 && w.NativeToken.Symbol == "" {
				watched[i].NativeToken, watched[i].Tokens = d.NativeToken, d.Tokens
			}
		}
	}
	return watched
}

// startAuthProxy enables the root organization's auth proxy configuration on the first start, through the
// coordinator's API in this process, and makes the auth proxy, forwarding to the coordinator at coordURL. It records
// both and returns the proxy's listener, its handler set.
func (s *Stack) startAuthProxy(ctx context.Context, cfg Config, st *store.Store, m *metrics.Metrics, proxyID *authproxy.Identity,
	api http.Handler, coordURL string) (*server, error) {
	configID, err := ensureRootAuthProxy(ctx, api, proxyID, &s.boot, s.fileKeys)
	if err != nil {
		return nil, fmt.Errorf("enable the auth proxy of the root organization: %w", err)
	}
	proxy, err := authproxy.New(authproxy.Config{CoordinatorURL: coordURL, Identity: proxyID, Logger: s.logger, Metrics: m,
		Buckets: s.sharedBuckets(st)})
	if err != nil {
		return nil, err
	}
	srv, err := s.listen("auth proxy", cfg.AuthProxyListen)
	if err != nil {
		return nil, err
	}
	srv.handler = proxy.Handler()
	s.boot.AuthProxyURL, s.boot.AuthProxyConfigID = srv.url, configID
	return srv, nil
}

// dashboardChains are the watched EVM networks, whose balances the dashboard shows: the dev chains' with their
// contracts (the page shows those that are ERC-20 tokens: the test tokens, vault shares and lending receipts). The
// watched Solana clusters are left out: the page and its relay read EVM balances only.
func dashboardChains(networks []coordinator.Network, boot *Bootstrap) []dashboard.Chain {
	var out []dashboard.Chain
	for _, n := range networks {
		if !strings.HasPrefix(n.CAIP2, "eip155:") {
			continue
		}
		c := dashboard.Chain{CAIP2: n.CAIP2, Name: n.CAIP2, RPCURL: n.RPCURL}
		for _, dev := range boot.Chains {
			if n.RPCURL != dev.RPCURL {
				continue
			}
			c.Name = dev.Name
			for _, name := range slices.Sorted(maps.Keys(dev.Contracts)) {
				c.Tokens = append(c.Tokens, dev.Contracts[name])
			}
		}
		out = append(out, c)
	}
	return out
}

// startDevChain starts the dev chain (and the second one, with cfg.SecondChain) and the yield service on them, and
// records them in the bootstrap record: the first in its top-level fields, every one in chains.
func (s *Stack) startDevChain(ctx context.Context, cfg Config, st *store.Store, ring *seal.Keyring, m *metrics.Metrics) (*server, error) {
	configs := []chain.Config{chainConfig(cfg, s.logger)}
	if cfg.SecondChain {
		configs = append(configs, secondChainConfig(cfg, configs[0]))
	}
	s.boot.Chains = nil
	var nodes []*chain.Node
	for _, c := range configs {
		node, err := chain.Start(ctx, c)
		if err != nil {
			return nil, fmt.Errorf("dev chain %s: %w", cmp.Or(c.NetworkID, chain.NetworkID), err)
		}
		s.onClose("dev chain", node.Close)
		nb := node.Bootstrap()
		s.extra = append(s.extra, Service{Name: strings.TrimPrefix(nb.Name, "Sigil "), URL: node.RPCURL()})
		s.boot.Chains = append(s.boot.Chains, nb)
		nodes = append(nodes, node)
	}
	s.startRelayer(nodes, s.logger) // swaps.go
	nb := s.boot.Chains[0]
	s.boot.ChainRPCURL, s.boot.ChainID, s.boot.FaucetURL, s.boot.Network, s.boot.Contracts = nb.RPCURL, nb.ChainID, nb.FaucetURL, nb.NetworkID, nb.Contracts
	if err := s.save(cfg.Dir); err != nil {
		return nil, err
	}
	yieldSrv, err := s.startDevYield(ctx, cfg, st, ring, s.boot.Chains, m)
	if err != nil {
		return nil, fmt.Errorf("yield service: %w", err)
	}
	return yieldSrv, nil
}

// checkLoopback refuses a listen address beyond loopback unless cfg.Exposed: an empty host or 0.0.0.0 listens on
// every interface, and a host name other than localhost may resolve anywhere.
func checkLoopback(cfg Config) error {
	if cfg.Exposed {
		return nil
	}
	for _, l := range []struct{ flag, addr string }{{"listen", cfg.Listen}, {"authproxy-listen", cfg.AuthProxyListen},
		{"yield-listen", cfg.YieldListen}, {"dashboard-listen", cfg.DashboardListen}, {"chain-listen", cfg.ChainListen},
		{"solana-listen", cfg.SolanaListen}, {"frames-listen", cfg.FramesListen}} {
		if l.addr == "" || isLoopback(l.addr) {
			continue
		}
		return fmt.Errorf("stack: %s %s is beyond loopback, and this dev stack serves its OTP codes in the dev outbox over "+
			"plain HTTP; listen on 127.0.0.1, serve TLS (--tls-cert, --tls-key), or allow it with --expose behind a TLS proxy", l.flag, l.addr)
	}
	return nil
}

func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// chainConfig is the dev chain of a stack: its data in DIR/chain unless ephemeral.
func chainConfig(cfg Config, logger *slog.Logger) chain.Config {
	c := chain.Config{ListenAddr: cmp.Or(cfg.ChainListen, "127.0.0.1:0"), RPCURL: cfg.ChainRPC, BlockPeriod: cfg.ChainBlockPeriod, Logger: logger,
		Simulator: chain.SimulatorConfig{Period: cfg.ChainSimulate, PriceWalkBps: cfg.ChainPriceWalkBps, RewardRootPeriod: cfg.ChainRewardPeriod}, KeeperPeriod: cfg.ChainKeeper}
	if !cfg.ChainEphemeral {
		c.DataDir = filepath.Join(cfg.Dir, "chain")
	}
	return c
}

// Second dev chain: its own chain id and network id, so that the yield service's network filters and balances across
// networks have two networks to tell apart.
const (
	SecondChainID        = 1338
	SecondChainNetworkID = "sigil-dev-2"
)

// secondChainConfig is the second dev chain: always embedded, on the port after the first's (or a port the system
// picks when the first's does), its data in DIR/chain-2.
func secondChainConfig(cfg Config, first chain.Config) chain.Config {
	c := first
	c.RPCURL, c.ChainID, c.NetworkID, c.Name = "", SecondChainID, SecondChainNetworkID, chain.NetworkName+" 2"
	if host, port, err := net.SplitHostPort(first.ListenAddr); err == nil {
		if n, err := strconv.Atoi(port); err == nil && n > 0 {
			c.ListenAddr = net.JoinHostPort(host, strconv.Itoa(n+1))
		}
	}
	if c.DataDir != "" {
		c.DataDir = filepath.Join(cfg.Dir, "chain-2")
	}
	return c
}

// startDevYield writes the dev chain's catalogue (DIR/yield-catalogue.json), starts the yield service on it, and
// creates the two dev projects' API keys (one on each fee set) that bootstrap.json lacks.
func (s *Stack) startDevYield(ctx context.Context, cfg Config, st *store.Store, ring *seal.Keyring, chains []chain.Bootstrap, m *metrics.Metrics) (*server, error) {
	cat, err := devcatalogue.Write(ctx, filepath.Join(cfg.Dir, yield.DefaultCatalogueFile), chains...)
	if err != nil {
		return nil, fmt.Errorf("yield catalogue: %w", err)
	}
	// In dev mode webhooks may go to local receivers (http, loopback); exposed, only to public https URLs.
	srv, svc, err := s.startYield(ctx, yield.Config{Catalogue: cat, Store: st, Logger: s.logger, Metrics: m, Keyring: ring,
		WebhooksAllowPrivate: !cfg.Exposed}, cfg.YieldListen)
	if err != nil {
		return nil, err
	}
	s.boot.YieldURL = srv.url
	if err := ensureYieldKeys(ctx, svc, &s.boot); err != nil {
		return nil, err
	}
	return srv, s.save(cfg.Dir)
}

func (s *Stack) startYield(ctx context.Context, cfg yield.Config, listen string) (*server, *yield.Service, error) {
	if cfg.Store.Backend() == "postgres" { // several processes may serve it: they count one rate limit
		cfg.SharedLimits = cfg.Store
	}
	svc, err := yield.New(cfg)
	if err != nil {
		return nil, nil, err
	}
	s.onClose("yield service", svc.Close)
	if err := svc.Start(ctx); err != nil {
		return nil, nil, err
	}
	srv, err := s.listen("yield service", listen)
	if err != nil {
		return nil, nil, err
	}
	if !s.noWebhookDeliveries {
		s.runWebhooks("yield webhook deliveries", svc.RunWebhooks)
	}
	srv.handler = svc.Handler()
	return srv, svc, nil
}

// CoordinatorConfig is a coordinator alone: no outbox, chain, auth proxy, yield service or bootstrap record.
type CoordinatorConfig struct {
	Dir, DatabaseURL, MasterKeyFile string // as in Config
	MasterKey                       []byte
	MasterKeyCommand                string
	Listen                          string // default 127.0.0.1:0
	Logger                          *slog.Logger
	// Webhooks configures the coordinator's webhook deliveries, which it runs.
	Webhooks coordinator.WebhookConfig
	// TLSCertFile and TLSKeyFile, when given, serve the API with TLS (as in Config).
	TLSCertFile, TLSKeyFile string
}

// StartCoordinator starts a coordinator alone over the database, serving its API on cfg.Listen; Coordinator gives
// it, to create root organizations in the process. It is what the benchmark measures.
func StartCoordinator(ctx context.Context, cfg CoordinatorConfig) (_ *Stack, err error) {
	if cfg.Dir == "" {
		return nil, errors.New("stack: CoordinatorConfig.Dir is required")
	}
	s := newStack(cfg.Logger)
	defer s.closeOnError(&err)
	if s.tls, err = newCertReloader(cfg.TLSCertFile, cfg.TLSKeyFile); err != nil {
		return nil, err
	}
	st, ring, keyPath, err := s.openStore(ctx, cfg.Dir, cfg.DatabaseURL,
		MasterKeySource{File: cfg.MasterKeyFile, Content: cfg.MasterKey, Command: cfg.MasterKeyCommand})
	if err != nil {
		return nil, err
	}
	srv, err := s.listen("coordinator", cfg.Listen)
	if err != nil {
		return nil, err
	}
	coord := coordinator.New(st, coordinator.Config{Logger: s.logger, Keyring: ring, MasterKeyFile: keyPath, Webhooks: cfg.Webhooks})
	if err := coord.Start(ctx); err != nil {
		return nil, err
	}
	s.runWebhooks("webhook deliveries", coord.RunWebhooks)
	s.coord, srv.handler = coord, coord.Handler()
	s.serve(srv)
	return s, nil
}

// YieldConfig is the yield service alone, on a catalogue of networks and yields.
type YieldConfig struct {
	Dir, DatabaseURL, MasterKeyFile string // as in Config; the master key seals the webhook endpoints' secrets
	// Catalogue is the networks and yields file (default Dir/yield-catalogue.json, which Start writes for the dev
	// chain). A missing file is an error that wraps os.ErrNotExist.
	Catalogue string
	Listen    string // default 127.0.0.1:0
	// RateLimit is the requests one API key may make per 60-second window (default yield's).
	RateLimit int
	// WebhooksAllowPrivate lets webhook endpoints be http URLs and private or loopback addresses: development only.
	WebhooksAllowPrivate bool
	Logger               *slog.Logger
}

// StartYield starts the yield service alone over the database.
func StartYield(ctx context.Context, cfg YieldConfig) (_ *Stack, err error) {
	if cfg.Dir == "" {
		return nil, errors.New("stack: YieldConfig.Dir is required")
	}
	cat, err := yield.LoadCatalogue(cmp.Or(cfg.Catalogue, filepath.Join(cfg.Dir, yield.DefaultCatalogueFile)))
	if err != nil {
		return nil, err
	}
	s := newStack(cfg.Logger)
	defer s.closeOnError(&err)
	st, ring, _, err := s.openStore(ctx, cfg.Dir, cfg.DatabaseURL, MasterKeySource{File: cfg.MasterKeyFile})
	if err != nil {
		return nil, err
	}
	srv, _, err := s.startYield(ctx, yield.Config{Catalogue: cat, Store: st, Logger: s.logger, RateLimit: cfg.RateLimit,
		Keyring: ring, WebhooksAllowPrivate: cfg.WebhooksAllowPrivate}, cfg.Listen)
	if err != nil {
		return nil, err
	}
	s.serve(srv)
	return s, nil
}

// StartServer serves one handler alone on addr (default 127.0.0.1:0) under the name.
func StartServer(name, addr string, h http.Handler) (*Stack, error) {
	return StartHandler(ServerConfig{Name: name, Addr: addr, Handler: h, Exposed: true})
}

// ServerConfig is one handler served alone (StartHandler), as sigil up serves each of its services.
type ServerConfig struct {
	Name, Addr string // Addr "" is 127.0.0.1:0
	Handler    http.Handler
	// TLSCertFile and TLSKeyFile, when given, serve TLS 1.2 or later with the certificate ReloadTLS reads again.
	TLSCertFile, TLSKeyFile string
	// Exposed allows an address beyond loopback without TLS (behind a TLS proxy); with neither, Start refuses one.
	Exposed bool
}

// StartHandler serves cfg.Handler alone: with TLS when given, and beyond loopback only with TLS or Exposed.
func StartHandler(cfg ServerConfig) (_ *Stack, err error) {
	s := newStack(nil)
	defer s.closeOnError(&err)
	if s.tls, err = newCertReloader(cfg.TLSCertFile, cfg.TLSKeyFile); err != nil {
		return nil, err
	}
	if cfg.Addr != "" && !isLoopback(cfg.Addr) && s.tls == nil && !cfg.Exposed {
		return nil, fmt.Errorf("stack: %s %s is beyond loopback over plain HTTP; serve TLS (--tls-cert, --tls-key), or allow it with --expose behind a TLS proxy",
			cfg.Name, cfg.Addr)
	}
	srv, err := s.listen(cfg.Name, cfg.Addr)
	if err != nil {
		return nil, err
	}
	srv.handler = cfg.Handler
	s.serve(srv)
	return s, nil
}

// openStore opens the data directory (created if missing), the database and the master key (created on the first
// start).
func (s *Stack) openStore(ctx context.Context, dir, dbURL string, key MasterKeySource) (*store.Store, *seal.Keyring, string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, nil, "", err
	}
	ring, keyPath, err := key.load(ctx, dir)
	if err != nil {
		return nil, nil, "", err
	}
	st, err := store.Open(ctx, dbURL, dir)
	if err != nil {
		return nil, nil, "", err
	}
	s.store = st
	s.onClose("database", st.Close)
	return st, ring, keyPath, nil
}

// devHandler serves the coordinator's API with, on the same listener, the dev outbox.
func devHandler(api http.Handler, outbox *notify.Outbox) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET "+DevOutboxPath, outbox)
	mux.Handle("/", api)
	return mux
}

// origins are the browser origins of a page served on ln. On the loopback address the page is also reachable as
// localhost, the host name passkeys need (WebAuthn refuses IP addresses as relying party).
func origins(ln net.Listener) []string {
	addr := ln.Addr().(*net.TCPAddr)
	out := []string{"http://" + addr.String()}
	if addr.IP.IsLoopback() {
		out = append(out, "http://localhost:"+strconv.Itoa(addr.Port))
	}
	return out
}

// save writes the stack's bootstrap record to DIR/bootstrap.json.
func (s *Stack) save(dir string) error { return WriteBootstrap(dir, &s.boot) }

// sharedBuckets are the auth proxy's rate-limit buckets when several processes may serve the database (PostgreSQL):
// kept in it, and swept of idle ones every minute. On SQLite, one process: nil, buckets in memory.
func (s *Stack) sharedBuckets(st *store.Store) authproxy.TokenBuckets {
	if st.Backend() != "postgres" {
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(time.Minute)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case now := <-tick.C:
				if err := st.SweepRateLimits(ctx, now.Add(-10*time.Minute)); err != nil && ctx.Err() == nil {
					s.logger.Warn("sweeping rate-limit buckets", "err", err)
				}
			}
		}
	}()
	s.onClose("rate-limit sweeper", func() error { cancel(); <-done; return nil })
	return st
}

// runWebhooks runs a service's webhook worker (the coordinator's or the yield service's RunWebhooks) until the stack
// closes.
func (s *Stack) runWebhooks(name string, run func(context.Context) error) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx) }()
	s.onClose(name, func() error {
		cancel()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
		return nil
	})
}

// onClose registers what Close undoes, in the reverse order of registration.
func (s *Stack) onClose(name string, f func() error) {
	s.closers = append(s.closers, closer{name, f})
}

// listenFlags are the flags of sigil up that set each service's address, for errors a person can act on.
var listenFlags = map[string]string{"coordinator": "listen", "auth proxy": "authproxy-listen", "yield service": "yield-listen",
	"dashboard": "dashboard-listen", "frames": "frames-listen", "mcp": "http"}

// listen binds addr (default 127.0.0.1:0) for the service; Close closes the listener.
func (s *Stack) listen(name, addr string) (*server, error) {
	ln, err := net.Listen("tcp", cmp.Or(addr, "127.0.0.1:0"))
	if err != nil {
		return nil, fmt.Errorf("%s: %w (its address is set with --%s)", name, err, listenFlags[name])
	}
	s.onClose(name+" listener", func() error {
		if err := ln.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
			return err
		}
		return nil
	})
	scheme := "http://"
	if s.tls != nil {
		scheme = "https://"
	}
	return &server{name: name, url: scheme + ln.Addr().String(), ln: ln}, nil
}

// serve starts serving each server on its listener. Close shuts them down gracefully in the reverse order, so that a
// front end (the auth proxy) stops before the coordinator it calls, and waits until each has stopped serving.
func (s *Stack) serve(servers ...*server) {
	s.errc = make(chan error, len(servers))
	s.onClose("serving", func() error { s.serving.Wait(); return nil })
	for _, sv := range servers {
		sv.srv = &http.Server{Handler: sv.handler, ReadHeaderTimeout: 10 * time.Second}
		if s.tls != nil {
			sv.srv.TLSConfig = s.tls.config()
		}
		s.servers = append(s.servers, sv)
		s.onClose(sv.name, func() error {
			ctx, cancel := context.WithDeadline(context.Background(), s.deadline)
			defer cancel()
			return sv.srv.Shutdown(ctx)
		})
		s.serving.Go(func() {
			serve := func() error { return sv.srv.Serve(sv.ln) }
			if s.tls != nil {
				serve = func() error { return sv.srv.ServeTLS(sv.ln, "", "") }
			}
			if err := serve(); err != nil && !errors.Is(err, http.ErrServerClosed) {
				s.errc <- fmt.Errorf("%s: %w", sv.name, err)
			}
		})
	}
}

// closeOnError closes what a failed start had started; an error closing it is added to the start's.
func (s *Stack) closeOnError(err *error) {
	if *err != nil {
		if cerr := s.Close(); cerr != nil {
			*err = errors.Join(*err, cerr)
		}
	}
}

// Wait blocks until ctx ends, then returns nil, or until a service stops serving on its own, then returns why. It
// does not close the stack.
func (s *Stack) Wait(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return nil
	case err := <-s.errc:
		return err
	}
}

// Close stops every service in the reverse order of their start, letting requests in flight finish (up to
// ShutdownTimeout in all), and returns the errors met. Later calls return the first call's result.
func (s *Stack) Close() error {
	s.closeOnce.Do(func() {
		s.deadline = time.Now().Add(ShutdownTimeout)
		var errs []error
		for i := len(s.closers) - 1; i >= 0; i-- {
			if err := s.closers[i].close(); err != nil {
				errs = append(errs, fmt.Errorf("close %s: %w", s.closers[i].name, err))
			}
		}
		s.closeErr = errors.Join(errs...)
	})
	return s.closeErr
}

// Bootstrap is what the stack recorded in DIR/bootstrap.json: the root organization and its key, and where each
// service listens. It is empty for a stack made by StartCoordinator, StartYield or StartServer.
func (s *Stack) Bootstrap() Bootstrap {
	b := s.boot
	if b.Contracts != nil {
		b.Contracts = maps.Clone(b.Contracts)
	}
	return b
}

// Services lists the stack's services and their URLs: the HTTP services in the order they were started, then the
// dev chain's JSON-RPC endpoint.
func (s *Stack) Services() []Service {
	var out []Service
	for _, sv := range s.servers {
		out = append(out, Service{Name: sv.name, URL: sv.url})
	}
	return append(out, s.extra...)
}

// Coordinator is the stack's coordinator, nil when it runs none.
func (s *Stack) Coordinator() *coordinator.Coordinator { return s.coord }

// Backend names the database the stack runs on ("sqlite" or "postgres"), empty when it has none.
func (s *Stack) Backend() string {
	if s.store == nil {
		return ""
	}
	return s.store.Backend()
}
