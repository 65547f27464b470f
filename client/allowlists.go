package client

import (
	"context"

	"github.com/sigil/sigil/api"
)

// SetIPAllowlist replaces the organization's IP allowlist, or an API key's (publicKey).
func (c *Client) SetIPAllowlist(ctx context.Context, orgID string, p api.SetIPAllowlistIntent) (*api.SetIPAllowlistResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.SetIPAllowlist, p)
}

func (c *Client) RemoveIPAllowlist(ctx context.Context, orgID string, p api.RemoveIPAllowlistIntent) (*api.RemoveIPAllowlistResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.RemoveIPAllowlist, p)
}

func (c *Client) GetIPAllowlist(ctx context.Context, req api.GetIPAllowlistRequest) (*api.GetIPAllowlistResponse, error) {
	return query(ctx, c, api.GetIPAllowlist, req)
}
