package client

import (
	"context"
	"fmt"
	"time"

	"github.com/sigil/sigil/api"
)

// CreateSwapQuote prices a swap (CREATE_SWAP_QUOTE_V2, whose destination address may send the output elsewhere); the
// quote is executed with ExecuteSwap until it expires.
func (c *Client) CreateSwapQuote(ctx context.Context, orgID string, p api.CreateSwapQuoteIntentV2) (*api.CreateSwapQuoteResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.CreateSwapQuoteV2, p)
}

// ExecuteSwap executes a quote (EXECUTE_SWAP_V3): p restates what the quote committed to. GetSwapStatus, or
// WaitForSwap, follows the swap.
func (c *Client) ExecuteSwap(ctx context.Context, orgID string, p api.ExecuteSwapIntentV3) (*api.ExecuteSwapResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.ExecuteSwapV3, p)
}

// ExecuteQuote executes a quote as it was quoted.
func (c *Client) ExecuteQuote(ctx context.Context, orgID string, q api.SwapQuote, sponsor bool) (*api.ExecuteSwapResult, *api.Activity, error) {
	return c.ExecuteSwap(ctx, orgID, api.ExecuteSwapIntentV3{QuoteID: q.QuoteID, InputToken: q.InputToken, InputAmount: q.InputAmount,
		OutputToken: q.OutputToken, QuotedOutputAmount: q.OutputAmount, MinOutputAmount: q.MinOutputAmount, Sponsor: sponsor,
		DestinationAddress: q.DestinationAddress})
}

// UpsertSwapConfig sets the organization's client fee and the address it accrues to.
func (c *Client) UpsertSwapConfig(ctx context.Context, orgID string, p api.UpsertSwapConfigIntent) (*api.UpsertSwapConfigResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.UpsertSwapConfig, p)
}

// ClaimSwapFees pays the fee receiver the client fees accrued on one network, by a send from it.
func (c *Client) ClaimSwapFees(ctx context.Context, orgID string, p api.ClaimSwapFeesIntent) (*api.ClaimSwapFeesResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.ClaimSwapFees, p)
}

// GetSwapStatus reads a swap's status.
func (c *Client) GetSwapStatus(ctx context.Context, orgID, swapRequestID string) (*api.GetSwapStatusResponse, error) {
	return query(ctx, c, api.GetSwapStatus, api.GetSwapStatusRequest{OrganizationID: orgID, SwapRequestID: swapRequestID})
}

// SwapFailedError is a swap that ended FAILED: its status says why (and, across chains, what was refunded).
type SwapFailedError struct {
	Status *api.GetSwapStatusResponse
}

func (e *SwapFailedError) Error() string {
	if e.Status.Error != nil {
		return "swap failed: " + e.Status.Error.Reason + ": " + e.Status.Error.Message
	}
	return "swap failed"
}

// WaitForSwap polls a swap's status (every PollInterval) until it is COMPLETED, returned, or FAILED, returned with a
// *SwapFailedError; after timeout it gives up with the last status it read.
func (c *Client) WaitForSwap(ctx context.Context, orgID, swapRequestID string, timeout time.Duration) (*api.GetSwapStatusResponse, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	interval := c.PollInterval
	if interval == 0 {
		interval = 250 * time.Millisecond
	}
	var last *api.GetSwapStatusResponse
	for {
		st, err := c.GetSwapStatus(ctx, orgID, swapRequestID)
		switch {
		case err != nil && ctx.Err() == nil:
			return nil, err
		case err == nil && st.Status == api.SwapCompleted:
			return st, nil
		case err == nil && st.Status == api.SwapFailed:
			return st, &SwapFailedError{Status: st}
		case err == nil:
			last = st
		}
		select {
		case <-ctx.Done():
			if last == nil {
				return nil, fmt.Errorf("swap %s: no status within %s: %w", swapRequestID, timeout, ctx.Err())
			}
			return last, fmt.Errorf("swap %s still %s after %s: %w", swapRequestID, last.Status, timeout, ctx.Err())
		case <-time.After(interval):
		}
	}
}
