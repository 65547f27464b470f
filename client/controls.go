package client

import (
	"context"

	"github.com/sigil/sigil/api"
)

// CreateVelocityControl creates a velocity control, which policies read as controls.<identifier>.
func (c *Client) CreateVelocityControl(ctx context.Context, orgID string, p api.CreateVelocityControlIntent) (*api.CreateVelocityControlResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.CreateVelocityControl, p)
}

// DeleteVelocityControl deletes a velocity control that no policy reads.
func (c *Client) DeleteVelocityControl(ctx context.Context, orgID, id string) (*api.DeleteVelocityControlResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.DeleteVelocityControl, api.DeleteVelocityControlIntent{VelocityControlID: id})
}

// GetVelocityControl reads a velocity control.
func (c *Client) GetVelocityControl(ctx context.Context, orgID, id string) (*api.GetVelocityControlResponse, error) {
	return query(ctx, c, api.GetVelocityControl, api.GetVelocityControlRequest{OrganizationID: orgID, VelocityControlID: id})
}

// ListVelocityControls pages through the organization's velocity controls.
func (c *Client) ListVelocityControls(ctx context.Context, req api.ListVelocityControlsRequest) (*api.ListVelocityControlsResponse, error) {
	return query(ctx, c, api.ListVelocityControls, req)
}
