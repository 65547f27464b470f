package client

import (
	"context"

	"github.com/sigil/sigil/api"
)

// CreateWebhookEndpoint registers a URL that receives the organization's events (and its sub-organizations').
func (c *Client) CreateWebhookEndpoint(ctx context.Context, orgID string, p api.CreateWebhookEndpointIntent) (*api.CreateWebhookEndpointResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.CreateWebhookEndpoint, p)
}

// UpdateWebhookEndpoint changes an endpoint's URL, name or whether it is active.
func (c *Client) UpdateWebhookEndpoint(ctx context.Context, orgID string, p api.UpdateWebhookEndpointIntent) (*api.UpdateWebhookEndpointResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.UpdateWebhookEndpoint, p)
}

// DeleteWebhookEndpoint removes an endpoint; its undelivered events are dropped.
func (c *Client) DeleteWebhookEndpoint(ctx context.Context, orgID, endpointID string) (*api.DeleteWebhookEndpointResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.DeleteWebhookEndpoint, api.DeleteWebhookEndpointIntent{EndpointID: endpointID})
}

// ReplayWebhookDeliveries queues an endpoint's dead deliveries again, the named ones or (none named) all of them, under
// their event ids (a Sigil activity).
func (c *Client) ReplayWebhookDeliveries(ctx context.Context, orgID string, p api.ReplayWebhookDeliveriesIntent) (*api.ReplayWebhookDeliveriesResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.ReplayWebhookDeliveries, p)
}

// ListWebhookEndpoints lists the organization's endpoints.
func (c *Client) ListWebhookEndpoints(ctx context.Context, orgID string) (*api.ListWebhookEndpointsResponse, error) {
	return query(ctx, c, api.ListWebhookEndpoints, api.OrganizationRequest{OrganizationID: orgID})
}

// ListWebhookDeliveries lists an endpoint's latest deliveries and what became of them (a Sigil query).
func (c *Client) ListWebhookDeliveries(ctx context.Context, q api.ListWebhookDeliveriesRequest) (*api.ListWebhookDeliveriesResponse, error) {
	return query(ctx, c, api.ListWebhookDeliveries, q)
}
