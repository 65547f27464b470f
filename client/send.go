package client

import (
	"context"
	"fmt"
	"time"

	"github.com/sigil/sigil/api"
)

// EthSendTransaction hands calls to the coordinator, which signs, broadcasts and watches them; the result names the
// send, whose status WaitForSendTransaction follows.
func (c *Client) EthSendTransaction(ctx context.Context, orgID string, p api.EthSendTransactionIntentV2) (*api.EthSendTransactionResultV2, *api.Activity, error) {
	return submit(ctx, c, orgID, api.EthSendTransactionV2, p)
}

// EthSendRawTransaction hands a signed transaction to the coordinator to broadcast and watch; its status is read by its
// hash.
func (c *Client) EthSendRawTransaction(ctx context.Context, orgID string, p api.EthSendRawTransactionIntent) (*api.EthSendRawTransactionResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.EthSendRawTransaction, p)
}

// EthUndelegate7702 removes an account's EIP-7702 delegation (a send, whose status WaitForSendTransaction follows).
func (c *Client) EthUndelegate7702(ctx context.Context, orgID string, p api.EthUndelegate7702Intent) (*api.EthUndelegate7702Result, *api.Activity, error) {
	return submit(ctx, c, orgID, api.EthUndelegate7702, p)
}

// UpsertGasUsageConfig sets the billing organization's gas-spend limits of sponsored sends.
func (c *Client) UpsertGasUsageConfig(ctx context.Context, orgID string, p api.UpsertGasUsageConfigIntent) (*api.UpsertGasUsageConfigResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.UpsertGasUsageConfig, p)
}

// GetGasUsage reads an organization's sponsored gas spend in its window against its limit.
func (c *Client) GetGasUsage(ctx context.Context, orgID string) (*api.GetGasUsageResponse, error) {
	return query(ctx, c, api.GetGasUsage, api.GetGasUsageRequest{OrganizationID: orgID})
}

// GetSendTransactionStatus reads a send's status by its id (or, for a raw send, its transaction hash).
func (c *Client) GetSendTransactionStatus(ctx context.Context, orgID, id string) (*api.GetSendTransactionStatusResponse, error) {
	return query(ctx, c, api.GetSendTransactionStatus, api.GetSendTransactionStatusRequest{OrganizationID: orgID, SendTransactionStatusID: id})
}

// GetNonces reads an address's next nonce on a network.
func (c *Client) GetNonces(ctx context.Context, req api.GetNoncesRequest) (*api.GetNoncesResponse, error) {
	return query(ctx, c, api.GetNonces, req)
}

// SendFailedError is a send that ended FAILED: its status holds the reason.
type SendFailedError struct {
	Status *api.GetSendTransactionStatusResponse
}

func (e *SendFailedError) Error() string {
	return "send failed: " + e.Status.TxError
}

// WaitForSendTransaction polls a send's status (every PollInterval) until it is INCLUDED, returned, or FAILED, returned
// with a *SendFailedError; after timeout it gives up with the last status it read.
func (c *Client) WaitForSendTransaction(ctx context.Context, orgID, id string, timeout time.Duration) (*api.GetSendTransactionStatusResponse, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	interval := c.PollInterval
	if interval == 0 {
		interval = 250 * time.Millisecond
	}
	var last *api.GetSendTransactionStatusResponse
	for {
		st, err := c.GetSendTransactionStatus(ctx, orgID, id)
		switch {
		case err != nil && ctx.Err() == nil:
			return nil, err
		case err == nil && st.TxStatus == api.TxStatusIncluded:
			return st, nil
		case err == nil && st.TxStatus == api.TxStatusFailed:
			return st, &SendFailedError{Status: st}
		case err == nil:
			last = st
		}
		select {
		case <-ctx.Done():
			if last == nil {
				return nil, fmt.Errorf("send %s: no status within %s: %w", id, timeout, ctx.Err())
			}
			why := ""
			if last.TxError != "" {
				why = " (" + last.TxError + ")"
			}
			return last, fmt.Errorf("send %s still %s after %s%s: %w", id, last.TxStatus, timeout, why, ctx.Err())
		case <-time.After(interval):
		}
	}
}
