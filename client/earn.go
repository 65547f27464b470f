package client

import (
	"context"
	"fmt"
	"time"

	"github.com/sigil/sigil/api"
)

// Earn: fee wrappers in front of curated vaults, deposits, withdrawals, rewards and fees. Each activity that moves
// funds returns a request id; its status query (or WaitForEarn) follows it to COMPLETED or FAILED.

// EarnDeployWrapper enables a vault for the organization by deploying its fee wrapper.
func (c *Client) EarnDeployWrapper(ctx context.Context, orgID string, p api.EarnDeployWrapperIntent) (*api.EarnDeployWrapperResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.EarnDeployWrapper, p)
}

// EarnSetWrapperState pauses or resumes deposits to a wrapper.
func (c *Client) EarnSetWrapperState(ctx context.Context, orgID string, p api.EarnSetWrapperStateIntent) (*api.EarnSetWrapperStateResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.EarnSetWrapperState, p)
}

// EarnDeposit deposits a wallet's assets into a wrapper.
func (c *Client) EarnDeposit(ctx context.Context, orgID string, p api.EarnDepositIntent) (*api.EarnDepositResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.EarnDeposit, p)
}

// EarnWithdraw withdraws an amount (or api.EarnWithdrawMax, the whole position) from a wrapper.
func (c *Client) EarnWithdraw(ctx context.Context, orgID string, p api.EarnWithdrawIntent) (*api.EarnWithdrawResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.EarnWithdraw, p)
}

// EarnClaimRewards claims a wallet's claimable rewards on a chain.
func (c *Client) EarnClaimRewards(ctx context.Context, orgID string, p api.EarnClaimRewardsIntent) (*api.EarnClaimRewardsResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.EarnClaimRewards, p)
}

// ClaimEarnFees releases the client's fees of a wrapper to its fee wallet.
func (c *Client) ClaimEarnFees(ctx context.Context, orgID string, p api.ClaimEarnFeesIntent) (*api.ClaimEarnFeesResult, *api.Activity, error) {
	return submit(ctx, c, orgID, api.ClaimEarnFees, p)
}

// GetEarnDeployStatus reads a wrapper deployment's status.
func (c *Client) GetEarnDeployStatus(ctx context.Context, orgID, id string) (*api.GetEarnDeployStatusResponse, error) {
	return query(ctx, c, api.GetEarnDeployStatus, api.GetEarnDeployStatusRequest{OrganizationID: orgID, DeployRequestID: id})
}

// GetEarnDepositStatus reads a deposit's status.
func (c *Client) GetEarnDepositStatus(ctx context.Context, orgID, id string) (*api.GetEarnDepositStatusResponse, error) {
	return query(ctx, c, api.GetEarnDepositStatus, api.GetEarnDepositStatusRequest{OrganizationID: orgID, DepositRequestID: id})
}

// GetEarnWithdrawStatus reads a withdrawal's status.
func (c *Client) GetEarnWithdrawStatus(ctx context.Context, orgID, id string) (*api.GetEarnWithdrawStatusResponse, error) {
	return query(ctx, c, api.GetEarnWithdrawStatus, api.GetEarnWithdrawStatusRequest{OrganizationID: orgID, WithdrawRequestID: id})
}

// GetEarnClaimRewardsStatus reads a rewards claim's status.
func (c *Client) GetEarnClaimRewardsStatus(ctx context.Context, orgID, id string) (*api.GetEarnClaimRewardsStatusResponse, error) {
	return query(ctx, c, api.GetEarnClaimRewardsStatus, api.GetEarnClaimRewardsStatusRequest{OrganizationID: orgID, ClaimRequestID: id})
}

// GetClaimEarnFeesStatus reads a fee claim's status.
func (c *Client) GetClaimEarnFeesStatus(ctx context.Context, orgID, id string) (*api.GetClaimEarnFeesStatusResponse, error) {
	return query(ctx, c, api.GetClaimEarnFeesStatus, api.GetClaimEarnFeesStatusRequest{OrganizationID: orgID, ClaimRequestID: id})
}

// ListEarnVaults lists the catalogue's vaults of an asset, by TVL.
func (c *Client) ListEarnVaults(ctx context.Context, req api.ListEarnVaultsRequest) (*api.ListEarnVaultsResponse, error) {
	return query(ctx, c, api.ListEarnVaults, req)
}

// ListEarnEnabledVaults lists the organization's wrappers.
func (c *Client) ListEarnEnabledVaults(ctx context.Context, req api.ListEarnEnabledVaultsRequest) (*api.ListEarnEnabledVaultsResponse, error) {
	return query(ctx, c, api.ListEarnEnabledVaults, req)
}

// ListEarnPositions lists a wallet's positions.
func (c *Client) ListEarnPositions(ctx context.Context, orgID, wallet string) (*api.ListEarnPositionsResponse, error) {
	return query(ctx, c, api.ListEarnPositions, api.ListEarnPositionsRequest{OrganizationID: orgID, WalletAddress: wallet})
}

// ListEarnRewards lists a wallet's rewards (on one chain when caip2 is given).
func (c *Client) ListEarnRewards(ctx context.Context, orgID, wallet, caip2 string) (*api.ListEarnRewardsResponse, error) {
	return query(ctx, c, api.ListEarnRewards, api.ListEarnRewardsRequest{OrganizationID: orgID, WalletAddress: wallet, Caip2: caip2})
}

// EarnFailedError is an Earn request that ended FAILED, with why.
type EarnFailedError struct{ Reason string }

func (e *EarnFailedError) Error() string { return "earn request failed: " + e.Reason }

// WaitForEarn polls an Earn request's status (get reads it: one of the status methods above, with the id bound) every
// PollInterval until it is COMPLETED (its transaction hash is returned) or FAILED (an *EarnFailedError); after timeout
// it gives up.
func (c *Client) WaitForEarn(ctx context.Context, timeout time.Duration, get func(context.Context) (status, txHash, reason string, err error)) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	interval := c.PollInterval
	if interval == 0 {
		interval = 250 * time.Millisecond
	}
	last := ""
	for {
		status, hash, reason, err := get(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			return "", err
		case err == nil && status == api.EarnStatusCompleted:
			return hash, nil
		case err == nil && status == api.EarnStatusFailed:
			return hash, &EarnFailedError{Reason: reason}
		case err == nil:
			last = status
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("earn request still %q after %s: %w", last, timeout, ctx.Err())
		case <-time.After(interval):
		}
	}
}
