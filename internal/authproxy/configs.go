package authproxy

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/bundle"
	"github.com/sigil/sigil/internal/keys"
	"github.com/sigil/sigil/stamp"
)

// request is one admitted request: its configuration, body and client.
type request struct {
	cfg      *api.ResolveAuthProxyConfigResponse
	body     []byte
	clientIP string
}

// configCache reads configurations from the coordinator, keeping each for ttl (<= 0: not at all).
type configCache struct {
	ttl     time.Duration
	mu      sync.Mutex
	entries map[string]cachedConfig
}

type cachedConfig struct {
	cfg     *api.ResolveAuthProxyConfigResponse
	expires time.Time
}

// maxCachedConfigs bounds the cache; when full it is emptied, the simplest policy that cannot grow without bound.
const maxCachedConfigs = 10000

func newConfigCache(ttl time.Duration) *configCache {
	return &configCache{ttl: ttl, entries: map[string]cachedConfig{}}
}

func (c *configCache) get(ctx context.Context, s *Server, id string, now time.Time) (*api.ResolveAuthProxyConfigResponse, error) {
	if c.ttl > 0 {
		c.mu.Lock()
		e, ok := c.entries[id]
		c.mu.Unlock()
		if ok && now.Before(e.expires) {
			return e.cfg, nil
		}
	}
	cfg, err := s.service.ResolveAuthProxyConfig(ctx, id)
	if err != nil {
		return nil, coordinatorError(err)
	}
	if cfg.Config.ConfigID != id {
		return nil, fmt.Errorf("the coordinator answered configuration %s for %s", cfg.Config.ConfigID, id)
	}
	if c.ttl > 0 {
		c.mu.Lock()
		if len(c.entries) >= maxCachedConfigs {
			c.entries = map[string]cachedConfig{}
		}
		c.entries[id] = cachedConfig{cfg: cfg, expires: now.Add(c.ttl)}
		c.mu.Unlock()
	}
	return cfg, nil
}

// coordinatorError passes the coordinator's API errors through as they are and words a failure to reach it.
func coordinatorError(err error) error {
	var e *apierr.Error
	if errors.As(err, &e) {
		if e.Code == apierr.Unknown {
			// Not an API error body: a proxy or server in between answered.
			return apierr.New(apierr.Unavailable, "INTERNAL", "the coordinator answered %s", e.Message)
		}
		return e
	}
	var ae *client.ActivityError
	if errors.As(err, &ae) {
		if f := ae.Activity.Failure; f != nil {
			return apierr.FromBody(0, apierr.Body{Code: apierr.Code(f.Code), Message: f.Message, Details: f.Details})
		}
		return apierr.New(apierr.FailedPrecondition, "REQUEST_NOT_AUTHORIZED",
			"activity %s ended %s: the organization's policies must let the auth proxy user submit it alone", ae.Activity.ID, ae.Activity.Status)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return apierr.New(apierr.Unavailable, "INTERNAL", "the request was canceled or the coordinator did not answer in time")
	}
	return apierr.New(apierr.Unavailable, "INTERNAL", "the coordinator could not be reached; try again later")
}

// proxyKey decrypts the configuration's proxy key for one request. The plaintext is wiped as soon as the key is
// parsed; the key itself lives only as long as the request that uses it.
func (s *Server) proxyKey(cfg *api.ResolveAuthProxyConfigResponse) (*stamp.APIKey, error) {
	if cfg.EncryptedProxyKey == "" {
		return nil, apierr.Denied("auth proxy configuration %s has no key (disabled)", cfg.Config.ConfigID)
	}
	own := hex.EncodeToString(s.cfg.Identity.EncryptionPublicKey().Bytes())
	if cfg.EncryptionPublicKey != own {
		return nil, fmt.Errorf("configuration %s: its proxy key is encrypted to another proxy service key (%s); re-enable or rotate it with this proxy's key configured in the coordinator", cfg.Config.ConfigID, cfg.EncryptionPublicKey)
	}
	var ct bundle.Ciphertext
	if err := json.Unmarshal([]byte(cfg.EncryptedProxyKey), &ct); err != nil {
		return nil, fmt.Errorf("configuration %s: encrypted proxy key is not a ciphertext", cfg.Config.ConfigID)
	}
	plaintext, err := bundle.Open(s.cfg.Identity.EncryptionKey, ct)
	if err != nil {
		return nil, fmt.Errorf("configuration %s: %w", cfg.Config.ConfigID, err)
	}
	defer keys.Zero(plaintext)
	var p api.AuthProxyKeyPlaintext
	if err := json.Unmarshal(plaintext, &p); err != nil {
		return nil, fmt.Errorf("configuration %s: proxy key plaintext is not JSON", cfg.Config.ConfigID)
	}
	// The plaintext names its configuration: a ciphertext copied from another configuration is refused.
	if p.ConfigID != cfg.Config.ConfigID || p.OrganizationID != cfg.Config.OrganizationID || p.PublicKey != cfg.Config.ProxyPublicKey {
		return nil, fmt.Errorf("configuration %s: the proxy key was made for configuration %s of organization %s", cfg.Config.ConfigID, p.ConfigID, p.OrganizationID)
	}
	key, err := stamp.ParseAPIKey(stamp.CurveP256, p.PrivateKey)
	if err != nil {
		return nil, fmt.Errorf("configuration %s: %w", cfg.Config.ConfigID, err)
	}
	if key.PublicKeyHex() != p.PublicKey {
		return nil, fmt.Errorf("configuration %s: the proxy key does not match its public key", cfg.Config.ConfigID)
	}
	return key, nil
}

// coordinator returns a client of the coordinator that stamps with the request's proxy key.
func (s *Server) coordinator(rq *request) (*client.Client, error) {
	key, err := s.proxyKey(rq.cfg)
	if err != nil {
		return nil, err
	}
	return &client.Client{BaseURL: s.cfg.CoordinatorURL, Stamper: key, HTTP: s.cfg.HTTP, PollInterval: 100 * time.Millisecond}, nil
}
