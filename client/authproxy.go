package client

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/sigil/sigil/api"
)

// The auth proxy configuration of an organization (coordinator activities and queries).

// EnableAuthProxy creates or re-enables the organization's proxy configuration (ENABLE_AUTH_PROXY).
func (c *Client) EnableAuthProxy(ctx context.Context, orgID string) (*api.EnableAuthProxyResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.EnableAuthProxy, api.EnableAuthProxyIntent{})
}

// UpdateAuthProxyConfig changes the settings that p names (UPDATE_AUTH_PROXY_CONFIG).
func (c *Client) UpdateAuthProxyConfig(ctx context.Context, orgID string, p api.UpdateAuthProxyConfigIntent) (*api.UpdateAuthProxyConfigResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.UpdateAuthProxyConfig, p)
}

// RotateAuthProxyKey replaces the proxy user's key (ROTATE_AUTH_PROXY_KEY).
func (c *Client) RotateAuthProxyKey(ctx context.Context, orgID string) (*api.RotateAuthProxyKeyResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.RotateAuthProxyKey, api.RotateAuthProxyKeyIntent{})
}

// DisableAuthProxy turns the configuration off and deletes its key (DISABLE_AUTH_PROXY).
func (c *Client) DisableAuthProxy(ctx context.Context, orgID string) (*api.DisableAuthProxyResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.DisableAuthProxy, api.DisableAuthProxyIntent{})
}

// GetAuthProxyConfig reads the organization's proxy configuration.
func (c *Client) GetAuthProxyConfig(ctx context.Context, orgID string) (*api.GetAuthProxyConfigResponse, error) {
	return query(ctx, c, api.GetAuthProxyConfig, api.OrganizationRequest{OrganizationID: orgID})
}

// ResolveAuthProxyConfig reads a configuration by id; the coordinator answers it only to the proxy service's key.
func (c *Client) ResolveAuthProxyConfig(ctx context.Context, configID string) (*api.ResolveAuthProxyConfigResponse, error) {
	return query(ctx, c, api.ResolveAuthProxyConfig, api.ResolveAuthProxyConfigRequest{ConfigID: configID})
}

// Proxy calls an auth proxy's /v1 endpoints as a browser app would: unstamped, with the configuration id header and,
// when Origin is set, an Origin header.
type Proxy struct {
	BaseURL  string
	ConfigID string
	Origin   string
	HTTP     *http.Client
}

// NewProxy returns a client of the proxy at baseURL for one configuration.
func NewProxy(baseURL, configID string) *Proxy {
	return &Proxy{BaseURL: strings.TrimSuffix(baseURL, "/"), ConfigID: configID, HTTP: &http.Client{Timeout: 30 * time.Second}}
}

// Call posts req to path (for example "/v1/otp_init") and decodes the answer into resp. Errors are *apierr.Error.
func (p *Proxy) Call(ctx context.Context, path string, req, resp any) error {
	raw, err := json.Marshal(req)
	if err != nil {
		return err
	}
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, p.BaseURL+path, bytes.NewReader(raw))
	if err != nil {
		return err
	}
	r.Header.Set("Content-Type", "application/json")
	if p.ConfigID != "" {
		r.Header.Set("X-Auth-Proxy-Config-Id", p.ConfigID)
	}
	if p.Origin != "" {
		r.Header.Set("Origin", p.Origin)
	}
	res, err := p.HTTP.Do(r)
	if err != nil {
		return err
	}
	return ReadResponse(res, resp)
}
