package client

import (
	"context"

	"sigil/api"
)

func (c *Client) CreateWallet(ctx context.Context, orgID string, p api.CreateWalletIntent) (*api.CreateWalletResult, *api.Activity, error) {
	return submit[api.CreateWalletResult](ctx, c, orgID, "CREATE_WALLET", p)
}

func (c *Client) CreateWalletAccounts(ctx context.Context, orgID string, p api.CreateWalletAccountsIntent) (*api.CreateWalletAccountsResult, *api.Activity, error) {
	return submit[api.CreateWalletAccountsResult](ctx, c, orgID, "CREATE_WALLET_ACCOUNTS", p)
}

func (c *Client) UpdateWallet(ctx context.Context, orgID string, p api.UpdateWalletIntent) (*api.UpdateWalletResult, *api.Activity, error) {
	return submit[api.UpdateWalletResult](ctx, c, orgID, "UPDATE_WALLET", p)
}

func (c *Client) DeleteWallets(ctx context.Context, orgID string, p api.DeleteWalletsIntent) (*api.DeleteWalletsResult, *api.Activity, error) {
	return submit[api.DeleteWalletsResult](ctx, c, orgID, "DELETE_WALLETS", p)
}

func (c *Client) CreatePrivateKeys(ctx context.Context, orgID string, p api.CreatePrivateKeysIntentV2) (*api.CreatePrivateKeysResultV2, *api.Activity, error) {
	return submit[api.CreatePrivateKeysResultV2](ctx, c, orgID, "CREATE_PRIVATE_KEYS_V2", p)
}

func (c *Client) DeletePrivateKeys(ctx context.Context, orgID string, p api.DeletePrivateKeysIntent) (*api.DeletePrivateKeysResult, *api.Activity, error) {
	return submit[api.DeletePrivateKeysResult](ctx, c, orgID, "DELETE_PRIVATE_KEYS", p)
}

// SignTransaction signs an unsigned Ethereum transaction (hex) with a wallet account address or private key; the
// result is the signed transaction, hex without 0x.
func (c *Client) SignTransaction(ctx context.Context, orgID string, p api.SignTransactionIntentV2) (*api.SignTransactionResult, *api.Activity, error) {
	return submit[api.SignTransactionResult](ctx, c, orgID, "SIGN_TRANSACTION_V2", p)
}

func (c *Client) SignRawPayload(ctx context.Context, orgID string, p api.SignRawPayloadIntentV2) (*api.SignRawPayloadResult, *api.Activity, error) {
	return submit[api.SignRawPayloadResult](ctx, c, orgID, "SIGN_RAW_PAYLOAD_V2", p)
}

func (c *Client) SignRawPayloads(ctx context.Context, orgID string, p api.SignRawPayloadsIntent) (*api.SignRawPayloadsResult, *api.Activity, error) {
	return submit[api.SignRawPayloadsResult](ctx, c, orgID, "SIGN_RAW_PAYLOADS", p)
}

func (c *Client) ListWallets(ctx context.Context, orgID string) (*api.ListWalletsResponse, error) {
	return query[api.ListWalletsResponse](ctx, c, "list_wallets", api.OrganizationRequest{OrganizationID: orgID})
}

func (c *Client) GetWallet(ctx context.Context, orgID, walletID string) (*api.GetWalletResponse, error) {
	return query[api.GetWalletResponse](ctx, c, "get_wallet", api.GetWalletRequest{OrganizationID: orgID, WalletID: walletID})
}

func (c *Client) ListWalletAccounts(ctx context.Context, req api.ListWalletAccountsRequest) (*api.ListWalletAccountsResponse, error) {
	return query[api.ListWalletAccountsResponse](ctx, c, "list_wallet_accounts", req)
}

func (c *Client) GetWalletAccount(ctx context.Context, req api.GetWalletAccountRequest) (*api.GetWalletAccountResponse, error) {
	return query[api.GetWalletAccountResponse](ctx, c, "get_wallet_account", req)
}

func (c *Client) ListPrivateKeys(ctx context.Context, orgID string) (*api.ListPrivateKeysResponse, error) {
	return query[api.ListPrivateKeysResponse](ctx, c, "list_private_keys", api.OrganizationRequest{OrganizationID: orgID})
}

func (c *Client) GetPrivateKey(ctx context.Context, orgID, keyID string) (*api.GetPrivateKeyResponse, error) {
	return query[api.GetPrivateKeyResponse](ctx, c, "get_private_key", api.GetPrivateKeyRequest{OrganizationID: orgID, PrivateKeyID: keyID})
}
