package client

import (
	"context"

	"github.com/sigil/sigil/api"
)

// SolSendTransaction hands a Solana transaction to the coordinator to sign with each of signWiths, broadcast and
// watch; WaitForSendTransaction follows its status.
func (c *Client) SolSendTransaction(ctx context.Context, orgID string, p api.SolSendTransactionIntentV2) (*api.SolSendTransactionResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.SolSendTransactionV2, p)
}
