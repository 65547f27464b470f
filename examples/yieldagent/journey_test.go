package yieldagent_test

import (
	"context"
	"math/big"
	"strings"
	"testing"
	"time"

	"sigil/examples/yieldagent"
	"sigil/stack"
)

// The journey against a fresh stack: the agent enters, holds across one accrual and earns, exits, is refused the
// transfer no policy allows, and cleans up after itself.
func TestJourneyEarnsAndCleansUp(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	s, err := stack.Start(ctx, stack.Config{Dir: t.TempDir(), ChainEphemeral: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b := s.Bootstrap()
	key, err := b.RootKey()
	if err != nil {
		t.Fatal(err)
	}
	sum, err := yieldagent.Run(ctx, yieldagent.Config{CoordinatorURL: b.CoordinatorURL, OrganizationID: b.OrganizationID, RootKey: key,
		YieldURL: b.YieldURL, YieldAPIKey: b.YieldAPIKey, RPCURL: b.ChainRPCURL, FaucetURL: b.FaucetURL, Network: b.Network,
		ChainID: b.ChainID, Amount: "100", Cleanup: true}, quiet{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", *sum)
	earned, _, ok := strings.Cut(sum.Earned, " USDC")
	if r, valid := new(big.Rat).SetString(earned); !ok || !valid || r.Sign() <= 0 || r.Cmp(big.NewRat(1, 1)) >= 0 {
		t.Errorf("earned %q holding 100 USDC for 30 days at a few percent a year", sum.Earned)
	}
	if !strings.HasPrefix(sum.BalanceAfterExit, "active "+earned+" USDC") {
		t.Errorf("after redeeming the 100 USDC deposited, the vault holds %q; want the earnings %s", sum.BalanceAfterExit, earned)
	}
	if !strings.Contains(sum.Denial, "\"deposit into the vault") || len(sum.Hashes) != 3 {
		t.Errorf("denial %q after %d transactions", sum.Denial, len(sum.Hashes))
	}
}

type quiet struct{}

func (quiet) Start(string) {}
func (quiet) Done(string)  {}
func (quiet) Fail(error)   {}
