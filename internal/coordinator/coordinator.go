// Package coordinator is Sigil's signing and key-management service: the public HTTP API (/public/v1/submit/... and
// /public/v1/query/...), the activity engine that authenticates, fingerprints, decides, executes and records each
// activity, and the queries.
//
// The path of one activity: body (size-capped) → stamp parsed → envelope decoded strictly → type looked up in the
// registry → parameters decoded strictly and validated → credential found in the organization or its parent and the
// stamp verified → fingerprint = SHA-256 of the body → in one database transaction: insert-or-get by fingerprint
// (an identical body is one activity, executed once, in every process), decide, execute, record → respond.
package coordinator

import (
	"context"
	"crypto/ecdsa"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/sigil/sigil/internal/earn"
	"github.com/sigil/sigil/internal/metrics"
	"github.com/sigil/sigil/internal/notify"
	"github.com/sigil/sigil/internal/oidc"
	"github.com/sigil/sigil/internal/otp"
	"github.com/sigil/sigil/internal/seal"
	"github.com/sigil/sigil/internal/send"
	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/swap"
	"github.com/sigil/sigil/internal/token"
	"github.com/sigil/sigil/internal/webhook"
)

// Config tunes the coordinator. The zero value of each field means its default.
type Config struct {
	// MaxBodyBytes caps request bodies (default 1 MiB).
	MaxBodyBytes int64
	// RequestTimeout is how long the server works on one request before it gives up and answers DEADLINE_EXCEEDED
	// (default 30 seconds), so that no request holds a connection or a lock for long, whatever happens to it.
	RequestTimeout time.Duration
	// MaxTimestampAge is how old an activity's timestampMs may be (default 1 hour).
	MaxTimestampAge time.Duration
	// MaxTimestampSkew is how far in the future an activity's timestampMs may be (default 5 minutes).
	MaxTimestampSkew time.Duration
	// StrictPolicyErrors decides a DENY policy whose condition fails because the activity does not have what it reads
	// (eth.tx on a message signing, an activity.params the type lacks) as one that might apply: it denies. Off (the
	// default), such a policy does not apply, as in the reference; see docs/API.md, "Policies that cannot be evaluated".
	StrictPolicyErrors bool
	// AllowedOrigins lists the browser origins allowed to call the API ("*" allows any).
	AllowedOrigins []string
	// TrustedProxies are the proxies whose X-Forwarded-For names a request's client, for the IP allowlists
	// (allowlists.go); a request from any other peer is judged by the peer's own address.
	TrustedProxies []netip.Prefix
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Logger receives one line per request (default slog.Default()).
	Logger *slog.Logger
	// Metrics counts requests, activities and decisions, and is served at /metrics; nil counts nothing.
	Metrics *metrics.Metrics
	// Audit receives the audit stream, one JSON line per recorded activity (audit.go); nil writes none.
	Audit io.Writer
	// Keyring seals key material at rest. MasterKeyFile, when set, is where it was loaded from; the coordinator reads
	// it again when it meets a blob sealed under a version it does not hold (a rotation by another process).
	Keyring       *seal.Keyring
	MasterKeyFile string

	// OTP and login (see docs/OTP.md).
	//
	// Email delivers OTP e-mail (nil refuses OTP_TYPE_EMAIL); EmailFrom is the sender address when a request names
	// none. EmailSenderDomains are the domains whose addresses a request may name instead, as its sender or reply-to
	// address (none: EmailFrom only). EmailTemplates holds the organizations' custom templates
	// (emailCustomization.templateId). Logos fetches emailCustomization.logoUrl (default: a notify.LogoFetcher that
	// refuses private networks).
	Email              notify.EmailSender
	EmailFrom          string
	EmailSenderDomains notify.SenderDomains
	EmailTemplates     *notify.Templates
	Logos              *notify.LogoFetcher
	// SMS delivers OTP text messages (nil refuses OTP_TYPE_SMS).
	SMS notify.SMSSender
	// OTPLimits are the attempts, live codes, SMS rate limit and code lifetimes (default otp.DefaultLimits()).
	OTPLimits otp.Limits
	// VerificationTokenTTL is the default lifetime of a verification token (1 hour), MaxVerificationTokenTTL the
	// longest a VERIFY_OTP may ask for (24 hours).
	VerificationTokenTTL    time.Duration
	MaxVerificationTokenTTL time.Duration
	// SessionTTL is the default lifetime of a login session (15 minutes), MaxSessionTTL the longest a login may ask
	// for (30 days).
	SessionTTL    time.Duration
	MaxSessionTTL time.Duration
	// OIDC verifies the OIDC tokens of trusted issuers: X-Stamp-Attested with STAMP_ATTESTED_SCHEME_P256_OIDC,
	// OAUTH_LOGIN, the oauthProviders of new users and list_suborgs OIDC_TOKEN (nil: only the coordinator's own).
	OIDC *oidc.Verifier

	// OAuth (see docs/OAUTH.md).
	//
	// OIDCIssuerURL is the issuer of the OIDC tokens OAUTH2_AUTHENTICATE issues, signed with the token key; its
	// discovery document is OpenIDConfigurationHandler. Its tokens are always trusted. Empty: no tokens are issued.
	OIDCIssuerURL string
	// OAuth2Providers adds OAuth 2.0 providers, or replaces the built-in X and Discord, by the name credentials give
	// as provider; their ClientID and ClientSecret are ignored (each organization's credential supplies them).
	OAuth2Providers map[string]oidc.Provider
	// OAuth2HTTPClient performs code exchanges (default oidc.NewHTTPClient()).
	OAuth2HTTPClient *http.Client

	// AuthProxy identifies the auth proxy service (authproxy.go); nil refuses ENABLE_AUTH_PROXY.
	AuthProxy *AuthProxyService

	// Webhooks configures where and how webhook deliveries go (webhooks.go).
	Webhooks WebhookConfig

	// Networks are the EVM networks ETH_SEND_TRANSACTION sends on and the Solana clusters SOL_SEND_TRANSACTION sends
	// on, by CAIP-2 id (send.go, send_solana.go); nil for none. SendGiveUp
	// is how long a send not yet signed waits for its network's node (default 10 minutes); SendLease how long a send
	// worker holds a send (default 30 s): a step its node does not answer within two thirds of it is tried again.
	Networks              *send.Networks
	SendGiveUp, SendLease time.Duration
	// FundSponsor funds an organization's gas sponsor when it is created (sigil up: the dev chain's faucet); nil
	// leaves funding it to its operator.
	FundSponsor func(ctx context.Context, address common.Address) error
	// FundSolanaSponsor funds an organization's Solana fee sponsor when it is created (sigil up: the Solana dev node's
	// airdrop); nil leaves it to the operator.
	FundSolanaSponsor func(ctx context.Context, address string) error

	// SwapVenues are the networks swaps are quoted and executed on (swaps.go); nil for none (or UseSwapVenues).
	// SwapQuoteTTL is how long a quote may be executed (default 30 s).
	SwapVenues   *swap.Venues
	SwapQuoteTTL time.Duration
}

func (c Config) withDefaults() Config {
	if c.MaxBodyBytes == 0 {
		c.MaxBodyBytes = 1 << 20
	}
	if c.RequestTimeout == 0 {
		c.RequestTimeout = 30 * time.Second
	}
	if c.MaxTimestampAge == 0 {
		c.MaxTimestampAge = time.Hour
	}
	if c.MaxTimestampSkew == 0 {
		c.MaxTimestampSkew = 5 * time.Minute
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Logos == nil {
		c.Logos = &notify.LogoFetcher{}
	}
	if c.OTPLimits == (otp.Limits{}) {
		c.OTPLimits = otp.DefaultLimits()
	}
	if c.VerificationTokenTTL == 0 {
		c.VerificationTokenTTL = token.DefaultVerificationTTL
	}
	if c.MaxVerificationTokenTTL == 0 {
		c.MaxVerificationTokenTTL = token.MaxVerificationTTL
	}
	if c.SessionTTL == 0 {
		c.SessionTTL = token.DefaultSessionTTL
	}
	if c.MaxSessionTTL == 0 {
		c.MaxSessionTTL = 30 * 24 * time.Hour
	}
	if c.SwapQuoteTTL == 0 {
		c.SwapQuoteTTL = 30 * time.Second
	}
	return c
}

// Coordinator is the service. It is safe for concurrent use.
type Coordinator struct {
	cfg          Config
	store        *store.Store
	ops          *registry // every activity type and query it serves
	audit        *auditor
	exprs        exprCache
	orgs         orgCache
	blobs        cache[[]byte]           // sealed blobs by row id: ciphertext only, so that signing reads no row
	accountMemos accountCache            // which wallet account a signWith names, so that signing reads no row (wallet_accounts.go)
	interfaces   cache[*parsedInterface] // parsed contract interfaces by id (they never change)
	vault        *vault
	costly       costlyGate // the costly policy evaluations running (evalbudget.go)

	ownKeysMu sync.Mutex
	ownKeys   map[string]*ecdsa.PrivateKey

	oauth *oauthState

	webhookWorker atomic.Pointer[webhook.Worker]     // this process's delivery worker, while RunWebhooks runs
	webhookQueue  atomic.Pointer[store.WebhookQueue] // its queue, whose outcomes list_webhook_deliveries writes first
	sendWorker    atomic.Pointer[send.Worker]        // this process's send worker, while RunSends runs
	networks      atomic.Pointer[send.Networks]      // the networks it sends on (Config.Networks, or UseNetworks)
	swapVenues    atomic.Pointer[swap.Venues]        // the networks it swaps on (Config.SwapVenues, or UseSwapVenues)
	swapConfigs   swapConfigCache                    // organizations' swap configurations as last read (swaps.go)
	earn          atomic.Pointer[earn.Catalogue]     // Earn's networks and vaults (UseEarn); nil: Earn is off

	chainData      chainsState         // the networks the balance watchers follow, and the balances read there (chaindata.go)
	allowlistRules cache[*parsedRules] // IP allowlists' rules parsed, by their stored text (allowlists.go)
}

// New returns a coordinator over a store.
func New(s *store.Store, cfg Config) *Coordinator {
	cfg = cfg.withDefaults()
	c := &Coordinator{cfg: cfg, store: s, ops: newRegistry(), audit: newAuditor(cfg.Audit), vault: &vault{ring: cfg.Keyring, path: cfg.MasterKeyFile, now: cfg.Now},
		ownKeys: map[string]*ecdsa.PrivateKey{}, oauth: newOAuthState(cfg)}
	c.networks.Store(cfg.Networks)
	c.swapVenues.Store(cfg.SwapVenues)
	c.costly.now = cfg.Now
	return c
}

func (c *Coordinator) now() time.Time { return c.cfg.Now().UTC() }
