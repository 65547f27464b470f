package main

import (
	"context"
	"fmt"
	"time"

	"github.com/sigil/sigil/examples/yieldagent"
	"github.com/sigil/sigil/internal/stack"
)

// runDemoBorrow is sigil demo borrow, the agent journey's second chapter: a policy-restricted agent borrows USDT
// against its vault position on Morpho Blue, within the limit its policies set.
func runDemoBorrow(ctx context.Context, e *env, args []string) error {
	fs := e.flags()
	dir := fs.String("dir", ".sigil", "data directory of a running sigil up")
	amount := fs.String("amount", "100", "USDC to enter into the vault, whose shares are the collateral")
	borrow := fs.String("borrow", "20", "USDT to borrow")
	limit := fs.String("limit", "30", "the most USDT the borrowing policy lets the agent borrow at once")
	cleanup := fs.Bool("cleanup", false, "delete the agent user and its policies at the end (the wallet stays)")
	if err := e.parse(fs, args); err != nil {
		return err
	}
	b, err := stack.ReadBootstrap(*dir)
	if err != nil {
		return err
	}
	if b.YieldURL == "" || b.ChainRPCURL == "" {
		return fmt.Errorf("bootstrap.json names no yield service or chain: start the whole stack with sigil up")
	}
	key, err := b.RootKey()
	if err != nil {
		return err
	}
	start := time.Now()
	sum, err := yieldagent.RunBorrow(ctx, yieldagent.Config{
		CoordinatorURL: b.CoordinatorURL, OrganizationID: b.OrganizationID, RootKey: key,
		YieldURL: b.YieldURL, YieldAPIKey: b.YieldAPIKey, RPCURL: b.ChainRPCURL, FaucetURL: b.FaucetURL,
		Network: b.Network, ChainID: b.ChainID, Amount: *amount, Cleanup: *cleanup,
	}, *borrow, *limit, newProgress(e.stdout))
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "\nSummary (%s)\n  agent user    %s\n  wallet        %s\n  market        %s\n  borrowed      %s USDT (policy limit %s)\n  health factor %s\n  transactions  %d\n  denied        %s\n",
		time.Since(start).Round(100*time.Millisecond), sum.AgentUserID, sum.WalletAddress, sum.MarketID, sum.Borrowed, sum.Limit,
		sum.HealthFactor, len(sum.Hashes), sum.Denial)
	return nil
}
