package client

import (
	"context"

	"github.com/sigil/sigil/api"
)

// CreateSmartContractInterface uploads an ABI (or IDL) for an address, for policies on the calls made to it.
func (c *Client) CreateSmartContractInterface(ctx context.Context, orgID string, p api.CreateSmartContractInterfaceIntent) (*api.CreateSmartContractInterfaceResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.CreateSmartContractInterface, p)
}

// DeleteSmartContractInterface removes an uploaded interface.
func (c *Client) DeleteSmartContractInterface(ctx context.Context, orgID, id string) (*api.DeleteSmartContractInterfaceResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.DeleteSmartContractInterface, api.DeleteSmartContractInterfaceIntent{SmartContractInterfaceID: id})
}

// GetSmartContractInterface reads an uploaded interface with its body.
func (c *Client) GetSmartContractInterface(ctx context.Context, orgID, id string) (*api.GetSmartContractInterfaceResponse, error) {
	return query(ctx, c, api.GetSmartContractInterface, api.GetSmartContractInterfaceRequest{OrganizationID: orgID, SmartContractInterfaceID: id})
}

// GetSmartContractInterfaces lists the organization's uploaded interfaces.
func (c *Client) GetSmartContractInterfaces(ctx context.Context, orgID string) (*api.GetSmartContractInterfacesResponse, error) {
	return query(ctx, c, api.GetSmartContractInterfaces, api.OrganizationRequest{OrganizationID: orgID})
}
