// Package authproxy is Sigil's auth proxy: a multi-tenant front door that lets browser apps sign users up and in
// (OTP, OAuth) without a backend of their own.
//
// For each request to /v1/<endpoint>, in this order: the client IP's rate limit; the configuration named by
// X-Auth-Proxy-Config-Id, read from the coordinator with the proxy service's own key (missing header 400, unknown
// configuration 404, disabled 403); the request's Origin against the configuration's allowed origins (403, and no
// coordinator call); the configuration's rate limit (429 with Retry-After); the body, size-capped and decoded
// strictly (400); then the configuration's proxy key is decrypted in memory for this request only, the activity is
// built, stamped and sent to the coordinator's public HTTP API, and its result is returned flattened. Errors have the
// coordinator's {code, message, details} shape.
//
// The proxy holds no state of its own: configurations live in the coordinator (ENABLE_AUTH_PROXY and friends), and
// the proxy key reaches the proxy only as an HPKE ciphertext addressed to its Identity.
package authproxy

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/edge"
	"github.com/sigil/sigil/internal/metrics"
)

// Config tunes the proxy. The zero value of each field but CoordinatorURL and Identity means its default.
type Config struct {
	// CoordinatorURL is the coordinator's public API (for example http://127.0.0.1:8081).
	CoordinatorURL string
	// Identity is the proxy service's keys (required).
	Identity *Identity
	// HTTP reaches the coordinator (default: a client with a 30 s timeout and keep-alive connections).
	HTTP *http.Client
	// MaxBodyBytes caps request bodies (default 64 KiB: a signup with passkey attestations fits many times).
	MaxBodyBytes int64
	// ConfigRate and ConfigBurst limit the requests of one configuration (default 50 a second, bursts of 100);
	// IPRate and IPBurst those of one client IP (default 10 a second, bursts of 20). A negative rate disables a limit.
	ConfigRate  float64
	ConfigBurst int
	IPRate      float64
	IPBurst     int
	// ConfigTTL is how long a configuration read from the coordinator is reused (default 1 s; negative: read it for
	// every request). Reading it costs a stamped round trip to the coordinator, most of what the proxy adds to a
	// request; a second keeps that off the common path while a change made in the dashboard (or a disable) still
	// applies within a second.
	ConfigTTL time.Duration
	// ClientIP names the client of a request for its rate limit (default: the connection's remote address).
	ClientIP func(*http.Request) string
	// Now is the clock of the rate limits and the cache (default time.Now).
	Now func() time.Time
	// Logger receives one line per request (default slog.Default()). Bodies, keys and tokens are never logged.
	Logger *slog.Logger
	// Metrics counts requests and is served at /metrics; nil counts nothing.
	Metrics *metrics.Metrics
	// Buckets hold the rate limits' token buckets when several proxies serve one deployment (the store over
	// PostgreSQL); nil keeps them in this process.
	Buckets TokenBuckets
}

func (c Config) withDefaults() Config {
	if c.HTTP == nil {
		c.HTTP = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64, IdleConnTimeout: 90 * time.Second}}
	}
	if c.ConfigTTL == 0 {
		c.ConfigTTL = time.Second
	}
	if c.MaxBodyBytes == 0 {
		c.MaxBodyBytes = 64 << 10
	}
	if c.ConfigRate == 0 {
		c.ConfigRate, c.ConfigBurst = 50, 100
	}
	if c.IPRate == 0 {
		c.IPRate, c.IPBurst = 10, 20
	}
	if c.ClientIP == nil {
		c.ClientIP = remoteIP
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	c.CoordinatorURL = strings.TrimSuffix(c.CoordinatorURL, "/")
	return c
}

// Server is the proxy. It is safe for concurrent use.
type Server struct {
	cfg      Config
	service  *client.Client // stamps with the service key
	configs  *configCache
	byConfig rateLimiter
	byIP     rateLimiter
}

// New returns a proxy for the coordinator at cfg.CoordinatorURL.
func New(cfg Config) (*Server, error) {
	if cfg.Identity == nil {
		return nil, errors.New("authproxy: an Identity is required")
	}
	if cfg.CoordinatorURL == "" {
		return nil, errors.New("authproxy: a CoordinatorURL is required")
	}
	cfg = cfg.withDefaults()
	svc := &client.Client{BaseURL: cfg.CoordinatorURL, Stamper: cfg.Identity.ServiceKey, HTTP: cfg.HTTP}
	return &Server{cfg: cfg, service: svc, configs: newConfigCache(cfg.ConfigTTL),
		byConfig: newRateLimiter(cfg.Buckets, "config", cfg.ConfigRate, cfg.ConfigBurst),
		byIP:     newRateLimiter(cfg.Buckets, "ip", cfg.IPRate, cfg.IPBurst)}, nil
}

// ConfigIDHeader carries the configuration id (the SDKs spell it X-Auth-Proxy-Config-ID; header names are
// case-insensitive).
const ConfigIDHeader = "X-Auth-Proxy-Config-Id"

// allowedHeaders are the request headers browsers may send to the proxy.
const allowedHeaders = "Content-Type, X-Auth-Proxy-Config-Id, X-Captcha-Token, X-Client-Version"

// Handler serves /v1/<endpoint>, their CORS preflights, and /healthz, /readyz (the coordinator ready) and /metrics,
// behind the HTTP edge: bodies capped at
// MaxBodyBytes, errors as google.rpc.Status, one log line per request.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/{name}", func(w http.ResponseWriter, r *http.Request) {
		res, err := s.serve(w.Header(), r)
		edge.Respond(w, r, res, err)
	})
	mux.HandleFunc("OPTIONS /v1/{name}", s.preflight)
	svc := &edge.Service{Format: edge.RPCStatus, Logger: s.cfg.Logger, Message: "authproxy request", MaxBodyBytes: s.cfg.MaxBodyBytes,
		Name: "authproxy", Metrics: s.cfg.Metrics}
	svc.MountOps(mux, edge.Check{Name: "coordinator", Probe: s.coordinatorAnswers})
	mux.Handle("/", edge.Func(func(r *http.Request) (any, error) {
		return nil, apierr.NotFoundf("no route for %s %s; the proxy serves POST /v1/<endpoint>", r.Method, r.URL.Path)
	}))
	return svc.Wrap(mux)
}

// coordinatorAnswers checks that the coordinator the proxy forwards to is ready.
func (s *Server) coordinatorAnswers(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(s.cfg.CoordinatorURL, "/")+"/readyz", nil)
	if err != nil {
		return err
	}
	res, err := s.cfg.HTTP.Do(req)
	if err != nil {
		return err
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("the coordinator answers /readyz with %s", res.Status)
	}
	return nil
}

// preflightCORS answers every origin's preflight: browsers send no header values with it (no configuration id), so it
// cannot be checked against a configuration. The real request is checked in full (admit).
var preflightCORS = &edge.CORS{Origins: []string{"*"}, Methods: "POST, OPTIONS", Headers: allowedHeaders}

func (s *Server) preflight(w http.ResponseWriter, r *http.Request) {
	if _, ok := endpoints[r.PathValue("name")]; !ok {
		edge.Fail(w, r, apierr.NotFoundf("no proxy endpoint /v1/%s", r.PathValue("name")))
		return
	}
	preflightCORS.Preflight(w, r)
}

// serve runs one proxied request through the checks of the package comment, in that order; h is the answer's header.
func (s *Server) serve(h http.Header, r *http.Request) (any, error) {
	if id := r.Header.Get(ConfigIDHeader); id != "" && len(id) <= 64 {
		edge.Note(r, slog.String("config", id))
	}
	ep, ok := endpoints[r.PathValue("name")]
	if !ok {
		return nil, apierr.NotFoundf("no proxy endpoint /v1/%s", r.PathValue("name"))
	}
	now := s.cfg.Now()
	ip := s.cfg.ClientIP(r)
	if ok, wait, err := s.byIP.take(r.Context(), ip, now); err != nil || !ok {
		return nil, cmp.Or[error](err, rateLimited(wait, "too many requests from this client"))
	}
	rq, err := s.admit(h, r, now)
	if err != nil {
		return nil, err
	}
	if rq.body, err = edge.ReadBody(r); err != nil {
		return nil, err
	}
	rq.clientIP = ip
	return ep(s, r.Context(), rq)
}

// admit finds the request's configuration and checks its origin and rate limit; it sets the CORS headers of an
// allowed browser origin on h.
func (s *Server) admit(h http.Header, r *http.Request, now time.Time) (*request, error) {
	id := r.Header.Get(ConfigIDHeader)
	if id == "" {
		return nil, apierr.Invalid("the %s header is required: it names the auth proxy configuration (see the dashboard's AUTH section)", ConfigIDHeader)
	}
	if _, err := uuid.Parse(id); err != nil {
		return nil, apierr.Invalid("the %s header must be a configuration id (a UUID)", ConfigIDHeader)
	}
	cfg, err := s.configs.get(r.Context(), s, id, now)
	if err != nil {
		return nil, err
	}
	if !cfg.Config.Enabled {
		return nil, apierr.Denied("auth proxy configuration %s is disabled", id)
	}
	origin := r.Header.Get("Origin")
	if !edge.OriginAllowed(cfg.Config.AllowedOrigins, origin) {
		if origin == "" {
			return nil, apierr.Denied("this configuration allows only listed origins, and the request has no Origin header")
		}
		return nil, apierr.Denied("origin %s is not allowed by auth proxy configuration %s", origin, id)
	}
	if origin != "" {
		edge.AllowOrigin(h, origin)
	}
	if ok, wait, err := s.byConfig.take(r.Context(), id, now); err != nil || !ok {
		return nil, cmp.Or[error](err, rateLimited(wait, "too many requests for this auth proxy configuration"))
	}
	return &request{cfg: cfg}, nil
}

// rateLimitError is a 429 that carries its Retry-After.
type rateLimitError struct {
	err  *apierr.Error
	wait time.Duration
}

func (e *rateLimitError) Error() string { return e.err.Error() }

func rateLimited(wait time.Duration, msg string) *rateLimitError {
	return &rateLimitError{err: apierr.New(apierr.ResourceExhausted, "RATE_LIMIT_EXCEEDED", "%s; retry in %ss", msg, retrySeconds(wait)), wait: wait}
}

func retrySeconds(wait time.Duration) string {
	secs := int64((wait + time.Second - 1) / time.Second)
	if secs < 1 {
		secs = 1
	}
	return strconv.FormatInt(secs, 10)
}

// Status and Render make it an edge.WireError: the 429 body with its Retry-After header.
func (e *rateLimitError) Status() int { return e.err.Status() }

func (e *rateLimitError) Render(h http.Header) any {
	h.Set("Retry-After", retrySeconds(e.wait))
	return e.err.Render(h)
}

// remoteIP is the connection's remote address without its port.
func remoteIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
