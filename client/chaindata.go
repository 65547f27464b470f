package client

import (
	"context"

	"github.com/sigil/sigil/api"
)

func (c *Client) GetWalletAddressBalances(ctx context.Context, req api.GetWalletAddressBalancesRequest) (*api.GetWalletAddressBalancesResponse, error) {
	return query(ctx, c, api.GetWalletAddressBalances, req)
}

func (c *Client) ListSupportedAssets(ctx context.Context, req api.ListSupportedAssetsRequest) (*api.ListSupportedAssetsResponse, error) {
	return query(ctx, c, api.ListSupportedAssets, req)
}

func (c *Client) ListEthTransactionHistory(ctx context.Context, req api.ListTransactionHistoryRequest) (*api.ListEthTransactionHistoryResponse, error) {
	return query(ctx, c, api.ListEthTransactionHistory, req)
}

func (c *Client) ListSolTransactionHistory(ctx context.Context, req api.ListTransactionHistoryRequest) (*api.ListSolTransactionHistoryResponse, error) {
	return query(ctx, c, api.ListSolTransactionHistory, req)
}
