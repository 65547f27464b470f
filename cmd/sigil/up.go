package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/sigil/sigil/internal/chain"
	"github.com/sigil/sigil/internal/coordinator"
	"github.com/sigil/sigil/internal/keys"
	"github.com/sigil/sigil/internal/notify"
	"github.com/sigil/sigil/internal/send"
	"github.com/sigil/sigil/internal/solanadev"
	"github.com/sigil/sigil/internal/stack"
)

// upFlags are the settings of sigil up, shared with sigil config print.
type upFlags struct {
	dir, listen, dbURL, masterKey, keyCommand                             *string
	yieldListen, proxyListen, dashboardListen                             *string
	solanaListen, framesListen, framesOrigins                             *string
	origins, otlp, auditPath                                              *string
	tlsCert, tlsKey                                                       *string
	expose, devChain, secondChain, prod, noDeliveries, strictPolicyErrors *bool
	delivery                                                              deliveryFlags
	networks                                                              []coordinator.Network
	networkSpecs                                                          []string
	sendNetworks                                                          *string
	trustedProxies                                                        []netip.Prefix
	chain                                                                 chainFlags
	oidc                                                                  oidcFlags
}

func (u *upFlags) register(fs *flag.FlagSet) {
	u.dir = fs.String("dir", ".sigil", "data directory (SQLite database, master key, bootstrap.json, dev chain, dev outbox)")
	u.listen = fs.String("listen", "127.0.0.1:8081", "coordinator listen address")
	u.dbURL = fs.String("database-url", "", "PostgreSQL URL (postgres://...); default: SQLite in --dir")
	u.masterKey = fs.String("master-key-file", "", "master key file sealing key material at rest (default DIR/master.key, created on first start; or the file's content in SIGIL_MASTER_KEY, or --master-key-command)")
	u.keyCommand = fs.String("master-key-command", "", "command (run with sh -c) that prints the master key file's content, e.g. a secret manager's CLI")
	u.chain.register(fs)
	u.yieldListen = fs.String("yield-listen", "127.0.0.1:8083", "yield service listen address")
	u.oidc.register(fs)
	u.proxyListen = fs.String("authproxy-listen", "127.0.0.1:8082", "auth proxy listen address")
	u.dashboardListen = fs.String("dashboard-listen", "127.0.0.1:8084", "organization dashboard listen address")
	u.solanaListen = fs.String("solana-listen", solanadev.DefaultListenAddr, "Solana dev node JSON-RPC listen address (it runs with the dev chain)")
	u.framesListen = fs.String("frames-listen", "127.0.0.1:8087", "export, import and export-and-sign frames' listen address: the origin apps embed them from (exportIframeUrl http://ADDR/export, importIframeUrl http://ADDR/import)")
	u.framesOrigins = fs.String("frames-allowed-origins", "", "comma-separated origins of the apps that may embed the frames (scheme://host:* for any port of a host; default: --allowed-origins less *)")
	u.origins = fs.String("allowed-origins", "http://127.0.0.1:*,http://localhost:*",
		"comma-separated browser origins allowed to call the coordinator (* for any; scheme://host:* for any port of a host)")
	fs.Func("trusted-proxies", "comma-separated addresses or CIDR blocks of the proxies in front of the coordinator: the IP allowlists take a request's address from their X-Forwarded-For, and from no one else's (default: none; the connection's peer is the client)",
		func(v string) error {
			ps, err := parsePrefixes(v)
			u.trustedProxies = append(u.trustedProxies, ps...)
			return err
		})
	u.otlp = fs.String("otlp-endpoint", "", "OTLP/HTTP collector receiving the services' spans, e.g. http://127.0.0.1:4318 (default: none)")
	u.auditPath = fs.String("audit-log", "", "file the coordinator appends its audit stream to, one JSON line per activity (default: none)")
	u.noDeliveries = fs.Bool("no-webhook-deliveries", false, "write webhook deliveries to the outbox but post none from this process: another sigil process sharing the PostgreSQL database (--database-url) posts them, so signing servers spend nothing on deliveries (docs/WEBHOOKS.md)")
	u.strictPolicyErrors = fs.Bool("strict-policy-errors", false, "a DENY policy whose condition cannot be evaluated because the activity does not have what it reads (eth.tx on a message signing) denies, instead of not applying as in the reference (docs/API.md)")
	u.expose = fs.Bool("expose", false, "allow listen addresses beyond loopback; the dev outbox is then neither served nor logs OTP codes (plain HTTP: put a TLS proxy in front)")
	u.prod = fs.Bool("prod", false, "production mode: no dev chain, no dev outbox, quiet as --expose; refuses to start without a master key you keep and an OTP sender (docs/DEPLOY.md)")
	u.delivery.register(fs)
	fs.Func("watch-network", "an EVM network or Solana cluster whose balance changes go to webhooks, eip155:ID=RPC_URL[,confirmations=N] or solana:GENESIS_PREFIX=RPC_URL (repeatable; the dev chains and the Solana dev node are watched anyway)",
		func(v string) error {
			n, err := parseNetwork(v)
			if err != nil {
				return err
			}
			u.networks, u.networkSpecs = append(u.networks, n), append(u.networkSpecs, v)
			return nil
		})
	u.sendNetworks = fs.String("networks", "", "file of the networks ETH_SEND_TRANSACTION and SOL_SEND_TRANSACTION send on, in the yield catalogue's format (its networks: chainId, or caip2 for a Solana cluster, rpcUrl, explorerUrl); the dev chain and the Solana dev node are added anyway")
	u.devChain = fs.Bool("dev-chain", true, "run the dev chain and the yield service on it; false in a deployment, where the yield service runs alone (sigil yield) on real networks")
	u.secondChain = fs.Bool("second-chain", true, "also run a second dev chain (chain id 1338, network sigil-dev-2, on the port after --chain-listen's) with the same contracts, so the yield service has two networks")
	u.tlsCert = fs.String("tls-cert", "", "PEM certificate (chain) the services listen with; with --tls-key, TLS on every listener but the dev chain's, as --expose allows; reloaded on SIGHUP")
	u.tlsKey = fs.String("tls-key", "", "PEM private key of --tls-cert")
	fs.String("config", "", "file of settings, one name = value per line, names as the flags'; flags and SIGIL_ variables override it")
}

// runUp is sigil up: the whole stack (package stack) until Ctrl-C.
func runUp(ctx context.Context, e *env, args []string) error {
	fs := e.flags()
	var u upFlags
	u.register(fs)
	if err := e.parse(fs, args); err != nil {
		return err
	}
	trusted, err := u.oidc.verifier()
	if err != nil {
		return err
	}
	audit, closeAudit, err := openAuditLog(*u.auditPath)
	if err != nil {
		return err
	}
	defer closeAudit()
	cf, of, dir := u.chain, u.oidc, u.dir
	delivery, err := u.delivery.config()
	if err != nil {
		return e.usageErrorf("%v", err)
	}
	logger := slog.New(slog.NewJSONHandler(e.stderr, nil))
	// The key's content is read from the environment, never from a flag: a command line is visible to every user.
	masterKey, _ := e.getenv("SIGIL_MASTER_KEY")
	var sendNetworks []send.Network
	if *u.sendNetworks != "" {
		if sendNetworks, err = send.LoadNetworks(*u.sendNetworks); err != nil {
			return fmt.Errorf("--networks: %w", err)
		}
	}
	s, err := stack.Start(ctx, stack.Config{Dir: *dir, DatabaseURL: *u.dbURL, MasterKeyFile: *u.masterKey,
		MasterKey: []byte(masterKey), MasterKeyCommand: *u.keyCommand,
		Listen: *u.listen, AuthProxyListen: *u.proxyListen, YieldListen: *u.yieldListen, DashboardListen: *u.dashboardListen,
		FramesListen: *u.framesListen, FramesAllowedOrigins: commaList(*u.framesOrigins),
		ChainListen: cf.listen, SolanaListen: *u.solanaListen, ChainRPC: cf.rpc, ChainBlockPeriod: cf.period, ChainSimulate: cf.simulate, ChainKeeper: cf.keeper, ChainPriceWalkBps: cf.priceWalk, ChainRewardPeriod: cf.rewards, ChainEphemeral: cf.ephemeral,
		SecondChain: *u.secondChain, AllowedOrigins: strings.Split(*u.origins, ","), TrustedProxies: u.trustedProxies, OIDC: trusted, OIDCIssuerURL: of.issuerURL, OAuth2Providers: of.providers,
		Logger: logger, OTLPEndpoint: *u.otlp, Audit: audit, Exposed: *u.expose, NoWebhookDeliveries: *u.noDeliveries, StrictPolicyErrors: *u.strictPolicyErrors, NoDevChain: !*u.devChain, Production: *u.prod, Delivery: delivery, WatchNetworks: u.networks, SendNetworks: sendNetworks, TLSCertFile: *u.tlsCert, TLSKeyFile: *u.tlsKey})
	if err != nil {
		return err
	}
	logger.Info("sigil is up", "coordinator", s.Bootstrap().CoordinatorURL, "database", s.Backend(), "bootstrap", stack.BootstrapPath(*dir))
	printWelcome(e.stderr, s, *dir, s.Bootstrap().DevOutboxURL != "")
	return serve(ctx, s, logger)
}

// printWelcome says how to get in, as a dev server should: what runs where, who the root user is, a dashboard link
// that signs in by itself, and what to try next. The key travels in the link's fragment, which a browser never sends
// to a server; in dev mode only, where the terminal is the developer's.
func printWelcome(w io.Writer, s *stack.Stack, dir string, devMode bool) {
	b := s.Bootstrap()
	fmt.Fprintf(w, "\nSigil is up.\n")
	if devMode {
		fmt.Fprintf(w, "\nWARNING: DEV MODE. Every OTP code is kept in the dev inbox, the services speak plain HTTP on loopback, and\n"+
			"the root key below signs for the whole organization. Do not use it for anything of value.\n")
	}
	fmt.Fprintf(w, "\n")
	for _, svc := range s.Services() {
		fmt.Fprintf(w, "  %-14s %s\n", svc.Name, svc.URL)
	}
	fmt.Fprintf(w, "  %-14s %s\n", "bootstrap", stack.BootstrapPath(dir))
	fmt.Fprintf(w, "\n  organization   %s\n  root user      %s (API key %s)\n", b.OrganizationID, b.UserID, b.APIPublicKey)
	sealed := b.APIPrivateKeySealed != ""
	if sealed {
		fmt.Fprintf(w, "  root key       sealed in bootstrap.json under the master key\n")
	}
	if devMode {
		if b.DashboardURL != "" {
			fragment := url.Values{"org": {b.OrganizationID}, "pub": {b.APIPublicKey}, "key": {b.APIPrivateKey}}
			if b.YieldAPIKey != "" { // the Yields page's project key, kept for the tab
				fragment.Set("yield", b.YieldAPIKey)
			}
			fmt.Fprintf(w, "  sign in        %s/#%s\n", b.DashboardURL, fragment.Encode())
		}
		fmt.Fprintf(w, "  dev inbox      %s\n", b.DevOutboxURL)
		if b.FaucetURL != "" {
			fmt.Fprintf(w, "  faucet         %s (sigil chain fund ADDRESS --eth 1)\n", b.FaucetURL)
		}
		if b.YieldAPIKey != "" {
			fmt.Fprintf(w, "  yield API key  %s\n", b.YieldAPIKey)
		}
		if b.Solana != nil {
			fmt.Fprintf(w, "  solana         %s %s (sigil chain fund ADDRESS --sol 1)\n", b.Solana.CAIP2, b.Solana.RPCURL)
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	if sealed {
		fmt.Fprintf(w, "\nIn another terminal, given the master key:\n\n  export SIGIL_DIR=%s\n  sigil keys root --out root-key.json\n  sigil api whoami --key root-key.json\n", abs)
	} else {
		fmt.Fprintf(w, "\nIn another terminal:\n\n  export SIGIL_DIR=%s\n  sigil api whoami\n", abs)
	}
	if b.ChainRPCURL != "" {
		fmt.Fprintf(w, "  sigil demo yield      # a policy-restricted agent earns yield, end to end\n")
	}
	fmt.Fprintf(w, "  sigil demo web        # sign a user up through the auth proxy in a browser\n\n")
}

// openAuditLog opens the audit log of sigil up, appended to and readable by its owner only. Without a path it is
// nil: no audit stream. close syncs it to disk, since it is the record an operator keeps.
func openAuditLog(path string) (w io.Writer, close func() error, err error) {
	if path == "" {
		return nil, func() error { return nil }, nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("audit log: %w", err)
	}
	return f, func() error { return errors.Join(f.Sync(), f.Close()) }, nil
}

// serve waits until ctx ends (SIGINT, SIGTERM) or a service of s fails, then closes s, letting requests in flight
// finish.
func serve(ctx context.Context, s *stack.Stack, logger *slog.Logger) error {
	stopReloads := reloadTLSOnHangup(s, logger)
	defer stopReloads()
	err := s.Wait(ctx)
	logger.Info("shutting down")
	return errors.Join(err, s.Close())
}

// chainFlags are the dev chain's settings, shared by sigil up and sigil chain.
type chainFlags struct {
	listen    string
	rpc       string
	period    time.Duration
	simulate  time.Duration
	keeper    time.Duration
	priceWalk int64
	rewards   time.Duration
	ephemeral bool
}

func (c *chainFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.listen, "chain-listen", chain.DefaultListenAddr, "dev chain JSON-RPC and faucet listen address (the faucet's alone with --chain-rpc)")
	fs.StringVar(&c.rpc, "chain-rpc", "", "use the existing node at this JSON-RPC URL (Anvil, Hardhat, geth --dev) instead of an embedded dev chain: the fixtures are deployed there from Anvil's account 0")
	fs.DurationVar(&c.period, "chain-block-period", 0, "also seal a block on this period when no transaction arrives (0: only on transactions)")
	fs.DurationVar(&c.simulate, "chain-simulate", 30*time.Second, "accrue yield on the dev chain on this period (0: off)")
	fs.DurationVar(&c.keeper, "chain-keeper", 10*time.Second, "liquidate the dev chain's liquidatable Aave and Morpho positions on this period (0: off)")
	fs.Int64Var(&c.priceWalk, "chain-price-walk", 0, "move WETH's oracle price by up to this many basis points, up or down, at each simulator step (0: off)")
	fs.DurationVar(&c.rewards, "chain-reward-period", 8*time.Hour, "publish an Earn reward root on the dev chain every this much chain time, as Merkl does")
	fs.BoolVar(&c.ephemeral, "chain-ephemeral", false, "keep the dev chain in memory only")
}

// reloadTLSOnHangup reads the stack's certificate and key again on each SIGHUP, as servers do after a renewal; a pair
// that fails to load is logged and the certificate in use stays. The returned function stops listening for SIGHUP.
// Windows delivers no SIGHUP: there a renewed certificate takes a restart.
func reloadTLSOnHangup(s *stack.Stack, logger *slog.Logger) (stop func()) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-hup:
				if err := s.ReloadTLS(); err != nil {
					logger.Error("reloading the TLS certificate", "err", err)
				} else {
					logger.Info("reloaded the TLS certificate")
				}
			case <-done:
				return
			}
		}
	}()
	return func() { signal.Stop(hup); close(done) }
}

// deliveryFlags configure the real OTP senders. Their secrets (SMTP password, Twilio auth token) are better given as
// SIGIL_SMTP_PASSWORD and SIGIL_TWILIO_AUTH_TOKEN than on a command line every user of the machine can read.
type deliveryFlags struct {
	smtpHost, smtpUser, smtpPassword, smtpSecurity, emailFrom string
	senderDomains                                             string
	smtpPort                                                  int
	twilioSID, twilioToken, twilioFrom, twilioService         string
	twilioBaseURL                                             string
}

func (d *deliveryFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&d.smtpHost, "smtp-host", "", "SMTP server OTP e-mail is sent through (default: the dev outbox; none in --prod)")
	fs.IntVar(&d.smtpPort, "smtp-port", 587, "SMTP server port")
	fs.StringVar(&d.smtpSecurity, "smtp-security", "starttls", "starttls, tls (implicit, port 465) or plain (a relay on this host only; no credentials)")
	fs.StringVar(&d.smtpUser, "smtp-username", "", "SMTP user name (empty: no AUTH)")
	fs.StringVar(&d.smtpPassword, "smtp-password", "", "SMTP password; better in SIGIL_SMTP_PASSWORD")
	fs.StringVar(&d.emailFrom, "email-from", "", "sender of OTP e-mail when a request names none (default sigil@localhost)")
	fs.StringVar(&d.senderDomains, "email-sender-domains", "", "comma-separated domains whose addresses requests may name as their sender or reply-to: DOMAIN for every organization, ORGANIZATION_ID=DOMAIN for one (default: none, --email-from only)")
	fs.StringVar(&d.twilioSID, "twilio-account-sid", "", "Twilio account SID OTP text messages are sent with (default: the dev outbox; none in --prod)")
	fs.StringVar(&d.twilioToken, "twilio-auth-token", "", "Twilio auth token; better in SIGIL_TWILIO_AUTH_TOKEN")
	fs.StringVar(&d.twilioFrom, "twilio-from", "", "Twilio number messages come from (E.164), or use --twilio-messaging-service-sid")
	fs.StringVar(&d.twilioService, "twilio-messaging-service-sid", "", "Twilio messaging service that picks the sender")
	fs.StringVar(&d.twilioBaseURL, "twilio-base-url", "", "Twilio API base URL (default https://api.twilio.com)")
}

// config turns the flags into the stack's delivery settings.
func (d *deliveryFlags) config() (stack.Delivery, error) {
	out := stack.Delivery{EmailFrom: d.emailFrom}
	var err error
	if out.SenderDomains, err = notify.ParseSenderDomains(strings.Split(d.senderDomains, ",")); err != nil {
		return out, fmt.Errorf("--email-sender-domains: %w", err)
	}
	if d.smtpHost != "" {
		sec, ok := map[string]notify.Security{"starttls": notify.StartTLS, "tls": notify.ImplicitTLS, "plain": notify.Plain}[d.smtpSecurity]
		if !ok {
			return out, fmt.Errorf("--smtp-security %q: want starttls, tls or plain", d.smtpSecurity)
		}
		out.SMTP = &notify.SMTPConfig{Host: d.smtpHost, Port: d.smtpPort, Username: d.smtpUser, Password: d.smtpPassword, Security: sec}
	}
	if d.twilioSID != "" {
		out.Twilio = &notify.TwilioConfig{BaseURL: d.twilioBaseURL, AccountSID: d.twilioSID, AuthToken: d.twilioToken,
			From: d.twilioFrom, MessagingServiceSID: d.twilioService}
	}
	return out, nil
}

// parseNetwork reads --watch-network: eip155:CHAIN_ID=RPC_URL, optionally followed by ,confirmations=N, or
// solana:GENESIS_HASH_PREFIX=RPC_URL (a Solana cluster says itself what is confirmed and finalized).
func parseNetwork(v string) (coordinator.Network, error) {
	caip2, rest, ok := strings.Cut(v, "=")
	evm := strings.HasPrefix(caip2, "eip155:")
	if !ok || !evm && !strings.HasPrefix(caip2, "solana:") {
		return coordinator.Network{}, fmt.Errorf("want eip155:CHAIN_ID=RPC_URL[,confirmations=N] or solana:GENESIS_HASH_PREFIX=RPC_URL, got %q", v)
	}
	if _, err := strconv.ParseUint(strings.TrimPrefix(caip2, "eip155:"), 10, 64); evm && err != nil {
		return coordinator.Network{}, fmt.Errorf("%q: the chain id is not a number", caip2)
	}
	if ref := strings.TrimPrefix(caip2, "solana:"); !evm && !validSolanaReference(ref) {
		return coordinator.Network{}, fmt.Errorf("%q: want solana: and the first 32 characters (base58) of the cluster's genesis hash", caip2)
	}
	rpc, opts, _ := strings.Cut(rest, ",")
	if opts != "" && !evm {
		return coordinator.Network{}, fmt.Errorf("%q: a Solana cluster takes no options", opts)
	}
	if u, err := url.Parse(rpc); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return coordinator.Network{}, fmt.Errorf("%q: the RPC URL must be an http or https URL with a host", rpc)
	}
	n := coordinator.Network{CAIP2: caip2, RPCURL: rpc}
	if opts != "" {
		depth, ok := strings.CutPrefix(opts, "confirmations=")
		c, err := strconv.ParseUint(depth, 10, 32)
		if !ok || err != nil {
			return coordinator.Network{}, fmt.Errorf("%q: want confirmations=N", opts)
		}
		n.Confirmations = c
	}
	return n, nil
}

// validSolanaReference reports whether ref is a CAIP-2 reference of a Solana cluster: 1 to 32 base58 characters.
func validSolanaReference(ref string) bool {
	if ref == "" || len(ref) > 32 {
		return false
	}
	_, err := keys.Base58Decode(ref)
	return err == nil
}

// parsePrefixes reads --trusted-proxies: addresses (a /32 or /128 each) and CIDR blocks, comma-separated.
func parsePrefixes(v string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range strings.Split(v, ",") {
		f = strings.TrimSpace(f)
		if p, err := netip.ParsePrefix(f); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(f)
		if err != nil {
			return nil, fmt.Errorf("%q is not an IP address or a CIDR block", f)
		}
		out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
	}
	return out, nil
}

// commaList splits a comma-separated flag; empty is none.
func commaList(s string) []string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	return strings.Split(s, ",")
}
