package client

import (
	"context"

	"github.com/sigil/sigil/api"
)

// InitImportSecrets makes one-time keys for the caller's next IMPORT_SECRETS, in signed target bundles
// (@turnkey/crypto's encryptSecretToBundle encrypts to them).
func (c *Client) InitImportSecrets(ctx context.Context, orgID string, p api.InitImportSecretsIntent) (*api.InitImportSecretsResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.InitImportSecrets, p)
}

// ImportSecrets imports secrets encrypted to the keys of the last InitImportSecrets.
func (c *Client) ImportSecrets(ctx context.Context, orgID string, p api.ImportSecretsIntent) (*api.ImportSecretsResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.ImportSecrets, p)
}

// ExportSecrets exports secrets encrypted to the target keys the parameters name.
func (c *Client) ExportSecrets(ctx context.Context, orgID string, p api.ExportSecretsIntent) (*api.ExportSecretsResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.ExportSecrets, p)
}

func (c *Client) DeleteSecrets(ctx context.Context, orgID string, p api.DeleteSecretsIntent) (*api.DeleteSecretsResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.DeleteSecrets, p)
}

func (c *Client) ListSecrets(ctx context.Context, req api.ListSecretsRequest) (*api.ListSecretsResponse, error) {
	return query(ctx, c, api.ListSecrets, req)
}
