package yieldagent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sigil/sigil/examples/yieldagent"
	"github.com/sigil/sigil/internal/stack"
)

// The journey against a fresh stack, on its second dev chain: the agent enters, holds across one accrual and earns,
// exits, is refused the transfer no policy allows, and cleans up after itself; the yield service's balances across
// both networks show the earnings on the second and nothing on the first.
func TestJourneyEarnsAndCleansUp(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	s, err := stack.Start(ctx, stack.Config{Dir: t.TempDir(), ChainEphemeral: true, SecondChain: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b := s.Bootstrap()
	key, err := b.RootKey()
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Chains) != 2 || b.Chains[1].ChainID != stack.SecondChainID || b.Chains[1].RPCURL == b.ChainRPCURL {
		t.Fatalf("dev chains %+v", b.Chains)
	}
	second := b.Chains[1]
	config := func(protocol string) yieldagent.Config {
		return yieldagent.Config{CoordinatorURL: b.CoordinatorURL, OrganizationID: b.OrganizationID, RootKey: key,
			YieldURL: b.YieldURL, YieldAPIKey: b.YieldAPIKey, RPCURL: second.RPCURL, FaucetURL: second.FaucetURL, Network: second.NetworkID,
			ChainID: second.ChainID, Amount: "100", Cleanup: true, Protocol: protocol}
	}
	// The same journey, policies and all, through Morpho Blue's and Aave v3's own contracts: each earns and is refused.
	for _, tc := range []struct{ protocol, enterPolicy string }{{"morpho", "deposit into the vault"}, {"aave", "supply to the pool"}} {
		sum, err := yieldagent.Run(ctx, config(tc.protocol), quiet{})
		if err != nil {
			t.Fatalf("%s: %v", tc.protocol, err)
		}
		earned, _, _ := strings.Cut(sum.Earned, " USDC")
		if r, ok := new(big.Rat).SetString(earned); !ok || r.Sign() <= 0 || r.Cmp(big.NewRat(1, 1)) >= 0 || !strings.Contains(sum.YieldID, "-"+tc.protocol) && tc.protocol == "aave" {
			t.Errorf("%s: earned %q in %s", tc.protocol, sum.Earned, sum.YieldID)
		}
		if !strings.Contains(sum.Denial, "\""+tc.enterPolicy) || len(sum.Hashes) != 3 {
			t.Errorf("%s: denial %q after %d transactions", tc.protocol, sum.Denial, len(sum.Hashes))
		}
	}
	if _, err := yieldagent.Run(ctx, config("compound"), quiet{}); err == nil || !strings.Contains(err.Error(), "vault, morpho, aave") {
		t.Errorf("an unknown protocol: %v", err)
	}

	sum, err := yieldagent.Run(ctx, config("vault"), quiet{})
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
	if !strings.HasPrefix(sum.YieldID, stack.SecondChainNetworkID+"-") {
		t.Errorf("the journey on %s used yield %s", stack.SecondChainNetworkID, sum.YieldID)
	}

	var across struct {
		Items []struct {
			YieldID  string `json:"yieldId"`
			Balances []struct {
				Type, Amount string
			} `json:"balances"`
		} `json:"items"`
		Errors []any `json:"errors"`
	}
	body, _ := json.Marshal(map[string]any{"queries": []map[string]string{
		{"address": sum.WalletAddress, "network": b.Network}, {"address": sum.WalletAddress, "network": second.NetworkID}}})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, b.YieldURL+"/v1/yields/balances", bytes.NewReader(body))
	req.Header.Set("X-API-KEY", b.YieldAPIKey)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if err := json.NewDecoder(res.Body).Decode(&across); err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("balances across networks: %d %v", res.StatusCode, err)
	}
	if len(across.Items) != 1 || across.Items[0].YieldID != sum.YieldID || len(across.Errors) != 0 ||
		across.Items[0].Balances[0].Amount != earned {
		t.Errorf("balances across both networks %+v, want the earnings %s in %s alone", across, earned, sum.YieldID)
	}

	// By default the journey picks the first yield that earns now: the plain vault, whose rate was known from the
	// first sampling on this fresh chain (its published accrual rate, before any price history).
	live, err := yieldagent.Run(ctx, config(""), quiet{})
	if err != nil || live.RewardRate <= 0 || !strings.Contains(live.YieldID, "-svusdc-") {
		t.Fatalf("the default journey picked %s at %v: %v", live.YieldID, live.RewardRate, err)
	}
}

type quiet struct{}

func (quiet) Start(string) {}
func (quiet) Done(string)  {}
func (quiet) Fail(error)   {}

// The second chapter against a fresh stack: the agent borrows against its vault shares within its policies' limit,
// is refused by the coordinator a borrow above it, repays everything and takes its shares back.
func TestBorrowChapter(t *testing.T) {
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
	cfg := yieldagent.Config{CoordinatorURL: b.CoordinatorURL, OrganizationID: b.OrganizationID, RootKey: key,
		YieldURL: b.YieldURL, YieldAPIKey: b.YieldAPIKey, RPCURL: b.ChainRPCURL, FaucetURL: b.FaucetURL, Network: b.Network,
		ChainID: b.ChainID, Amount: "100", Cleanup: true}
	sum, err := yieldagent.RunBorrow(ctx, cfg, "20", "30", quiet{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", *sum)
	// 100 USDC of shares at an 86% LLTV carry 86 USDT: 20 borrowed leaves a health factor of 4.3, and 31 more (above the
	// policy's 30) would still be within the market's limit.
	if !strings.HasPrefix(sum.HealthFactor, "4.3") || !strings.Contains(sum.MarketID, "morpho-blue") {
		t.Errorf("health factor %q on %s", sum.HealthFactor, sum.MarketID)
	}
	if !strings.Contains(sum.Denial, "31 USDT") || !strings.Contains(sum.Denial, "borrow at most 30 USDT") {
		t.Errorf("denial %q", sum.Denial)
	}
	// approve + deposit, approve + supplyCollateral, borrow, approve + repay, withdrawCollateral.
	if len(sum.Hashes) != 8 {
		t.Errorf("%d transactions", len(sum.Hashes))
	}
}
