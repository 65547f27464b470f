package client

import (
	"context"

	"github.com/sigil/sigil/api"
)

func (c *Client) CreateWallet(ctx context.Context, orgID string, p api.CreateWalletIntent) (*api.CreateWalletResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.CreateWallet, p)
}

func (c *Client) CreateWalletAccounts(ctx context.Context, orgID string, p api.CreateWalletAccountsIntent) (*api.CreateWalletAccountsResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.CreateWalletAccounts, p)
}

func (c *Client) UpdateWallet(ctx context.Context, orgID string, p api.UpdateWalletIntent) (*api.UpdateWalletResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.UpdateWallet, p)
}

func (c *Client) DeleteWallets(ctx context.Context, orgID string, p api.DeleteWalletsIntent) (*api.DeleteWalletsResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.DeleteWallets, p)
}

func (c *Client) CreatePrivateKeys(ctx context.Context, orgID string, p api.CreatePrivateKeysIntentV2) (*api.CreatePrivateKeysResultV2, *api.Activity, error) {
	return submit(ctx, c, orgID, api.CreatePrivateKeysV2, p)
}

func (c *Client) DeletePrivateKeys(ctx context.Context, orgID string, p api.DeletePrivateKeysIntent) (*api.DeletePrivateKeysResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.DeletePrivateKeys, p)
}

// SignTransaction signs an unsigned Ethereum transaction (hex) with a wallet account address or private key; the
// result is the signed transaction, hex without 0x.
func (c *Client) SignTransaction(ctx context.Context, orgID string, p api.SignTransactionIntentV2) (*api.SignTransactionResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.SignTransactionV2, p)
}

func (c *Client) SignRawPayload(ctx context.Context, orgID string, p api.SignRawPayloadIntentV2) (*api.SignRawPayloadResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.SignRawPayloadV2, p)
}

func (c *Client) SignRawPayloads(ctx context.Context, orgID string, p api.SignRawPayloadsIntent) (*api.SignRawPayloadsResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.SignRawPayloads, p)
}

func (c *Client) ListWallets(ctx context.Context, orgID string) (*api.ListWalletsResponse, error) {
	return query(ctx, c, api.ListWallets, api.OrganizationRequest{OrganizationID: orgID})
}

func (c *Client) GetWallet(ctx context.Context, orgID, walletID string) (*api.GetWalletResponse, error) {
	return query(ctx, c, api.GetWallet, api.GetWalletRequest{OrganizationID: orgID, WalletID: walletID})
}

func (c *Client) ListWalletAccounts(ctx context.Context, req api.ListWalletAccountsRequest) (*api.ListWalletAccountsResponse, error) {
	return query(ctx, c, api.ListWalletAccounts, req)
}

func (c *Client) GetWalletAccount(ctx context.Context, req api.GetWalletAccountRequest) (*api.GetWalletAccountResponse, error) {
	return query(ctx, c, api.GetWalletAccount, req)
}

func (c *Client) ListPrivateKeys(ctx context.Context, orgID string) (*api.ListPrivateKeysResponse, error) {
	return query(ctx, c, api.ListPrivateKeys, api.OrganizationRequest{OrganizationID: orgID})
}

func (c *Client) GetPrivateKey(ctx context.Context, orgID, keyID string) (*api.GetPrivateKeyResponse, error) {
	return query(ctx, c, api.GetPrivateKey, api.GetPrivateKeyRequest{OrganizationID: orgID, PrivateKeyID: keyID})
}

// CreatePrivateKeyTag creates a private key tag.
func (c *Client) CreatePrivateKeyTag(ctx context.Context, orgID string, p api.CreatePrivateKeyTagIntent) (*api.CreatePrivateKeyTagResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.CreatePrivateKeyTag, p)
}

// UpdatePrivateKeyTag renames a private key tag and changes the keys it labels.
func (c *Client) UpdatePrivateKeyTag(ctx context.Context, orgID string, p api.UpdatePrivateKeyTagIntent) (*api.UpdatePrivateKeyTagResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.UpdatePrivateKeyTag, p)
}

// DeletePrivateKeyTags deletes private key tags.
func (c *Client) DeletePrivateKeyTags(ctx context.Context, orgID string, ids []string) (*api.DeletePrivateKeyTagsResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.DeletePrivateKeyTags, api.DeletePrivateKeyTagsIntent{PrivateKeyTagIDs: ids})
}

// ListPrivateKeyTags lists the organization's private key tags.
func (c *Client) ListPrivateKeyTags(ctx context.Context, orgID string) (*api.ListPrivateKeyTagsResponse, error) {
	return query(ctx, c, api.ListPrivateKeyTags, api.OrganizationRequest{OrganizationID: orgID})
}

// DeleteWalletAccounts deletes wallet accounts.
func (c *Client) DeleteWalletAccounts(ctx context.Context, orgID string, p api.DeleteWalletAccountsIntent) (*api.DeleteWalletAccountsResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.DeleteWalletAccounts, p)
}
