package coordinator_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/chain"
	"github.com/sigil/sigil/internal/chain/devearn"
	"github.com/sigil/sigil/internal/contracts"
	"github.com/sigil/sigil/internal/coordinator"
	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/testdb"
	"github.com/sigil/sigil/internal/testwait"
	"github.com/sigil/sigil/stamp"
)

// earnChain is a dev chain whose simulated Merkl publishes a reward root every ten minutes of chain time, so that a
// test's jump in time stays within the hour a sponsored batch is valid for (its deadline is the server's clock).
func earnChain(t testing.TB) *chain.Node {
	t.Helper()
	node, err := chain.Start(bg, chain.Config{ListenAddr: "127.0.0.1:0", Logger: slog.New(slog.DiscardHandler),
		Simulator: chain.SimulatorConfig{RewardRootPeriod: 10 * time.Minute}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { node.Close() })
	return node
}

// earnStack is a sending stack on a dev chain with Earn on it.
func earnStack(t testing.TB, b testdb.Backend, node *chain.Node, more ...func(*coordinator.Config)) *stack {
	t.Helper()
	s := sendingStack(t, b, node, more...)
	useDevEarn(t, s, node)
	return s
}

// useDevEarn has the stack's coordinator run Earn on the dev chain's deployment.
func useDevEarn(t testing.TB, s *stack, node *chain.Node) {
	t.Helper()
	cat, err := devearn.Catalogue(bg, node.Bootstrap())
	if err != nil {
		t.Fatal(err)
	}
	s.coord.UseEarn(cat)
}

func usdcCAIP19(node *chain.Node) string {
	return caip2(node) + "/erc20:" + strings.ToLower(node.Contracts()[contracts.USDC].Hex())
}

// earnWait follows an Earn request to COMPLETED, failing the test on FAILED or after a generous deadline.
func earnWait(t testing.TB, c *client.Client, get func(context.Context) (string, string, string, error)) string {
	t.Helper()
	hash, err := c.WaitForEarn(bg, 60*time.Second, get)
	if err != nil {
		t.Fatal(err)
	}
	return hash
}

func (s *stack) deployWrapper(node *chain.Node, vault common.Address, feeBps, feeWallet string) *api.EarnDeployWrapperResult {
	s.t.Helper()
	org := s.boot.OrganizationID
	res, _, err := s.root.EarnDeployWrapper(bg, org, api.EarnDeployWrapperIntent{VaultAddress: vault.Hex(), ChainCaip2: caip2(node),
		ClientFeeBps: feeBps, ClientFeeWallet: feeWallet})
	if err != nil {
		s.t.Fatal(err)
	}
	earnWait(s.t, s.root, func(ctx context.Context) (string, string, string, error) {
		st, err := s.root.GetEarnDeployStatus(ctx, org, res.DeployRequestID)
		if err != nil {
			return "", "", "", err
		}
		return st.Status, st.DeployTxHash, st.Error, nil
	})
	return res
}

func wantAPIError(t *testing.T, err error, code apierr.Code, contains string) {
	t.Helper()
	var e *apierr.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v, want an API error (%d) containing %q", err, code, contains)
	}
	if e.Code != code || !strings.Contains(e.Message, contains) {
		t.Fatalf("error %d %q, want %d containing %q", e.Code, e.Message, code, contains)
	}
}

// Earn end to end on the dev chain, through the Go SDK: the catalogue lists the Morpho vault and Aave's USDC reserve
// with their TVL and APY, a wrapper is deployed where the factory predicts (again: the same wrapper), a sponsored
// deposit lands in the Morpho vault through the wrapper, the position earns and shows it net of fees, MAX withdraws the
// exact share balance, the rewards the dev chain's Merkl published are claimed with their proof, and the client's fees
// are released to its fee wallet.
func TestEarnLifecycle(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		node := earnChain(t)
		s := earnStack(t, b, node)
		org := s.boot.OrganizationID
		feeWallet := s.ethWallet("fees")
		user := s.fundedWallet(node, "user", 0, 1_000_000_000) // 1,000 USDC, no ether: sponsored sends

		vaults, err := s.root.ListEarnVaults(bg, api.ListEarnVaultsRequest{OrganizationID: org, Caip19: usdcCAIP19(node)})
		if err != nil {
			t.Fatal(err)
		}
		if len(vaults.Vaults) != 2 {
			t.Fatalf("USDC vaults: %+v", vaults.Vaults)
		}
		morpho := node.Contracts()[contracts.MorphoVaultUSDC]
		for i, v := range vaults.Vaults {
			if v.APYPct == "" || v.APYPct == "0.000000" || v.TVL == "0" || v.Enabled {
				t.Errorf("vault %d: %+v", i, v)
			}
			if i > 0 {
				prev, _ := new(big.Int).SetString(vaults.Vaults[i-1].TVL, 10)
				cur, _ := new(big.Int).SetString(v.TVL, 10)
				if prev.Cmp(cur) < 0 {
					t.Errorf("vaults not sorted by TVL: %s before %s", prev, cur)
				}
			}
		}

		// Paged by vault address, in the same order; filtered by provider.
		first, err := s.root.ListEarnVaults(bg, api.ListEarnVaultsRequest{OrganizationID: org, Caip19: usdcCAIP19(node), PaginationOptions: &api.Pagination{Limit: "1"}})
		if err != nil || len(first.Vaults) != 1 || first.Vaults[0].VaultAddress != vaults.Vaults[0].VaultAddress || !first.PageInfo.HasNextPage {
			t.Fatalf("first page: %+v, %v", first, err)
		}
		second, err := s.root.ListEarnVaults(bg, api.ListEarnVaultsRequest{OrganizationID: org, Caip19: usdcCAIP19(node),
			PaginationOptions: &api.Pagination{Limit: "1", After: first.PageInfo.EndCursor}})
		if err != nil || len(second.Vaults) != 1 || second.Vaults[0].VaultAddress != vaults.Vaults[1].VaultAddress || second.PageInfo.HasNextPage || !second.PageInfo.HasPreviousPage {
			t.Fatalf("second page: %+v, %v", second, err)
		}
		aave, err := s.root.ListEarnVaults(bg, api.ListEarnVaultsRequest{OrganizationID: org, Caip19: usdcCAIP19(node), Provider: api.EarnProviderAave})
		if err != nil || len(aave.Vaults) != 1 || aave.Vaults[0].Provider != api.EarnProviderAave {
			t.Fatalf("Aave's vaults: %+v, %v", aave, err)
		}
		_, err = s.root.ListEarnVaults(bg, api.ListEarnVaultsRequest{OrganizationID: org, Caip19: usdcCAIP19(node), PaginationOptions: &api.Pagination{Limit: "101"}})
		wantAPIError(t, err, apierr.InvalidArgument, "between 1 and 100")
		_, err = s.root.ListEarnVaults(bg, api.ListEarnVaultsRequest{OrganizationID: org, Caip19: usdcCAIP19(node), Provider: "EARN_PROVIDER_COMPOUND"})
		wantAPIError(t, err, apierr.InvalidArgument, "is not EARN_PROVIDER_MORPHO or EARN_PROVIDER_AAVE")
		_, err = s.root.ListEarnVaults(bg, api.ListEarnVaultsRequest{OrganizationID: org, Caip19: "eip155:1337/slip44:60"})
		wantAPIError(t, err, apierr.InvalidArgument, "CAIP-19")

		dep := s.deployWrapper(node, morpho, "2000", feeWallet)
		again := s.deployWrapper(node, morpho, "2000", feeWallet)
		if *again != *dep {
			t.Fatalf("a repeated deployment is %+v, the first %+v", again, dep)
		}
		if code, _ := node.Client().CodeAt(bg, common.HexToAddress(dep.WrapperAddress), nil); len(code) == 0 {
			t.Fatal("no wrapper on chain")
		}
		enabled, err := s.root.ListEarnEnabledVaults(bg, api.ListEarnEnabledVaultsRequest{OrganizationID: org, IncludeExposure: ptr(true)})
		if err != nil {
			t.Fatal(err)
		}
		if len(enabled.EnabledVaults) != 1 || enabled.EnabledVaults[0].DeployStatus != api.EarnStatusCompleted ||
			enabled.EnabledVaults[0].ClientFeeBps != "2000" || len(enabled.EnabledVaults[0].Exposures) != 1 {
			t.Fatalf("enabled vaults: %+v", enabled.EnabledVaults)
		}

		sponsor := true
		deposit, _, err := s.root.EarnDeposit(bg, org, api.EarnDepositIntent{WrapperAddress: dep.WrapperAddress, SignWith: user,
			Assets: "100000000", ChainCaip2: caip2(node), Sponsor: &sponsor})
		if err != nil {
			t.Fatal(err)
		}
		earnWait(t, s.root, func(ctx context.Context) (string, string, string, error) {
			st, err := s.root.GetEarnDepositStatus(ctx, org, deposit.DepositRequestID)
			if err != nil {
				return "", "", "", err
			}
			return st.Status, st.DepositTxHash, st.Error, nil
		})
		positions, err := s.root.ListEarnPositions(bg, org, user)
		if err != nil {
			t.Fatal(err)
		}
		if len(positions.Positions) != 1 || positions.Positions[0].TotalDeposited != "100000000" {
			t.Fatalf("positions: %+v", positions.Positions)
		}
		if v, _ := new(big.Int).SetString(positions.Positions[0].CurrentValue, 10); v.Cmp(big.NewInt(99_999_990)) < 0 {
			t.Fatalf("the position is worth %s just after depositing 100 USDC", v)
		}

		// Two minutes of chain time, within the reward period: the position's MORPHO accrues, pending until a root
		// publishes it, and nothing is claimable yet.
		if err := node.AdvanceTime(2 * time.Minute); err != nil {
			t.Fatal(err)
		}
		if _, err := node.Simulator().Step(bg); err != nil {
			t.Fatal(err)
		}
		early, err := s.root.ListEarnRewards(bg, org, user, caip2(node))
		if err != nil || len(early.Rewards) != 1 || early.Rewards[0].Pending == "0" || early.Rewards[0].Claimable != "0" {
			t.Fatalf("rewards before a root: %+v, %v", early, err)
		}
		_, _, err = s.root.EarnClaimRewards(bg, org, api.EarnClaimRewardsIntent{SignWith: user, ChainCaip2: caip2(node), Sponsor: &sponsor})
		wantAPIError(t, err, apierr.InvalidArgument, "no reward claimable")

		// A quarter of an hour more: the vault's interest, and a reward root.
		if err := node.AdvanceTime(15 * time.Minute); err != nil {
			t.Fatal(err)
		}
		if _, err := node.Simulator().Step(bg); err != nil {
			t.Fatal(err)
		}
		positions, err = s.root.ListEarnPositions(bg, org, user)
		if err != nil {
			t.Fatal(err)
		}
		grown, _ := new(big.Int).SetString(positions.Positions[0].CurrentValue, 10)
		if grown.Cmp(big.NewInt(100_000_000)) <= 0 {
			t.Fatalf("a quarter of an hour earned nothing: %s", grown)
		}

		before := tokenBalance(t, node, contracts.USDC, user)
		withdraw, _, err := s.root.EarnWithdraw(bg, org, api.EarnWithdrawIntent{WrapperAddress: dep.WrapperAddress, SignWith: user,
			ChainCaip2: caip2(node), Sponsor: &sponsor, AmountValue: api.EarnWithdrawMax})
		if err != nil {
			t.Fatal(err)
		}
		earnWait(t, s.root, func(ctx context.Context) (string, string, string, error) {
			st, err := s.root.GetEarnWithdrawStatus(ctx, org, withdraw.WithdrawRequestID)
			if err != nil {
				return "", "", "", err
			}
			return st.Status, st.WithdrawTxHash, st.Error, nil
		})
		got := new(big.Int).Sub(tokenBalance(t, node, contracts.USDC, user), before)
		if got.Cmp(grown) < 0 {
			t.Fatalf("MAX withdrew %s, the position was worth %s", got, grown)
		}
		positions, err = s.root.ListEarnPositions(bg, org, user)
		if err != nil || len(positions.Positions) != 0 {
			t.Fatalf("after MAX: %+v, %v (no dust: the position is closed)", positions, err)
		}

		rewards, err := s.root.ListEarnRewards(bg, org, user, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(rewards.Rewards) != 1 || rewards.Rewards[0].Symbol != "MORPHO" || rewards.Rewards[0].Claimable == "0" {
			t.Fatalf("rewards: %+v", rewards.Rewards)
		}
		claimable, _ := new(big.Int).SetString(rewards.Rewards[0].Claimable, 10)
		claim, _, err := s.root.EarnClaimRewards(bg, org, api.EarnClaimRewardsIntent{SignWith: user, ChainCaip2: caip2(node), Sponsor: &sponsor})
		if err != nil {
			t.Fatal(err)
		}
		earnWait(t, s.root, func(ctx context.Context) (string, string, string, error) {
			st, err := s.root.GetEarnClaimRewardsStatus(ctx, org, claim.ClaimRequestID)
			if err != nil {
				return "", "", "", err
			}
			return st.Status, st.ClaimTxHash, st.Error, nil
		})
		if got := tokenBalance(t, node, contracts.RewardToken, user); got.Cmp(claimable) != 0 {
			t.Fatalf("claimed %s MORPHO, %s was claimable", got, claimable)
		}
		rewards, err = s.root.ListEarnRewards(bg, org, user, caip2(node))
		if err != nil || len(rewards.Rewards) != 1 || rewards.Rewards[0].Claimable != "0" || rewards.Rewards[0].Claimed != claimable.String() {
			t.Fatalf("after the claim: %+v, %v", rewards, err)
		}
		_, _, err = s.root.EarnClaimRewards(bg, org, api.EarnClaimRewardsIntent{SignWith: user, ChainCaip2: caip2(node), Sponsor: &sponsor})
		wantAPIError(t, err, apierr.InvalidArgument, "no reward claimable")

		enabled, err = s.root.ListEarnEnabledVaults(bg, api.ListEarnEnabledVaultsRequest{OrganizationID: org})
		if err != nil {
			t.Fatal(err)
		}
		fee, _ := new(big.Int).SetString(enabled.EnabledVaults[0].ClaimableClientFee, 10)
		if fee == nil || fee.Sign() == 0 {
			t.Fatalf("no client fee accrued: %+v", enabled.EnabledVaults[0])
		}
		fees, _, err := s.root.ClaimEarnFees(bg, org, api.ClaimEarnFeesIntent{WrapperAddress: dep.WrapperAddress})
		if err != nil {
			t.Fatal(err)
		}
		earnWait(t, s.root, func(ctx context.Context) (string, string, string, error) {
			st, err := s.root.GetClaimEarnFeesStatus(ctx, org, fees.ClaimRequestID)
			if err != nil {
				return "", "", "", err
			}
			return st.Status, st.ClaimTxHash, st.Error, nil
		})
		if got := tokenBalance(t, node, contracts.USDC, feeWallet); got.Cmp(fee) < 0 {
			t.Fatalf("the fee wallet received %s USDC, %s was claimable", got, fee)
		}
		_, _, err = s.root.ClaimEarnFees(bg, org, api.ClaimEarnFeesIntent{WrapperAddress: dep.WrapperAddress})
		wantAPIError(t, err, apierr.FailedPrecondition, "no fee of yours")

		// Paused: deposits refused, withdrawals not.
		if _, _, err := s.root.EarnSetWrapperState(bg, org, api.EarnSetWrapperStateIntent{WrapperAddress: dep.WrapperAddress, DepositsDisabled: true}); err != nil {
			t.Fatal(err)
		}
		_, _, err = s.root.EarnDeposit(bg, org, api.EarnDepositIntent{WrapperAddress: dep.WrapperAddress, SignWith: user, Assets: "1",
			ChainCaip2: caip2(node), Sponsor: &sponsor})
		wantAPIError(t, err, apierr.FailedPrecondition, "paused")
	})
}

// Bad input is refused with the reference's errors and sends nothing: an unknown vault, a fee over the cap, a fee
// wallet outside the organization, zero and negative amounts, more than the balance, a wrapper that is not the
// organization's (deployed on chain by hand: recorded once earn_deploy_wrapper names its configuration, without a send),
// a wrapper past the organization's limit.
func TestEarnRefusals(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		node := earnChain(t)
		s := earnStack(t, b, node)
		org := s.boot.OrganizationID
		feeWallet, user := s.ethWallet("fees"), s.fundedWallet(node, "user", 1, 5_000_000)
		morpho := node.Contracts()[contracts.MorphoVaultUSDC].Hex()
		deploy := func(vault, fee, wallet string) error {
			_, _, err := s.root.EarnDeployWrapper(bg, org, api.EarnDeployWrapperIntent{VaultAddress: vault, ChainCaip2: caip2(node), ClientFeeBps: fee, ClientFeeWallet: wallet})
			return err
		}
		wantAPIError(t, deploy("0x000000000000000000000000000000000000dEaD", "100", feeWallet), apierr.NotFound, "not a vault of the Earn catalogue")
		wantAPIError(t, deploy(morpho, "4001", feeWallet), apierr.InvalidArgument, "over the maximum of 4000")
		wantAPIError(t, deploy(morpho, "-1", feeWallet), apierr.InvalidArgument, "whole number of basis points")
		wantAPIError(t, deploy(morpho, "100", "0x000000000000000000000000000000000000bEEF"), apierr.InvalidArgument, "not a wallet account of this organization")
		wantAPIError(t, deploy(morpho, "100", feeWallet+"00"), apierr.InvalidArgument, "must be a 0x address")

		// A wrapper of this configuration deployed through the factory by hand: not the organization's until it deploys it.
		data, err := contracts.MustLoad(contracts.EarnWrapperFactory).Pack("deployVaultWrapper", common.HexToAddress(morpho), big.NewInt(100), common.HexToAddress(feeWallet))
		if err != nil {
			t.Fatal(err)
		}
		by := s.fundedWallet(node, "deployer", 1, 0)
		id := mustSend(t, s, by, caip2(node), api.EthCallParams{To: node.Contracts()[contracts.EarnFactory].Hex(), Data: "0x" + common.Bytes2Hex(data)})
		if _, err := s.waitSend(id); err != nil {
			t.Fatal(err)
		}
		pred, err := contracts.MustLoad(contracts.EarnWrapperFactory).Call(bg, node.Client(), node.Contracts()[contracts.EarnFactory], "predictVaultWrapper",
			common.HexToAddress(morpho), big.NewInt(100), common.HexToAddress(feeWallet))
		if err != nil {
			t.Fatal(err)
		}
		foreign := pred[0].(common.Address).Hex()
		deposit := func(wrapper, assets string) error {
			_, _, err := s.root.EarnDeposit(bg, org, api.EarnDepositIntent{WrapperAddress: wrapper, SignWith: user, Assets: assets, ChainCaip2: caip2(node)})
			return err
		}
		wantAPIError(t, deposit(foreign, "1"), apierr.FailedPrecondition, "not a wrapper this organization deployed")
		wantAPIError(t, deposit(morpho, "1"), apierr.FailedPrecondition, "not a wrapper this organization deployed")

		dep := s.deployWrapper(node, common.HexToAddress(morpho), "100", feeWallet)
		if dep.WrapperAddress != foreign {
			t.Fatalf("deployed %s, the factory predicted %s", dep.WrapperAddress, foreign)
		}
		wantAPIError(t, deposit(dep.WrapperAddress, "0"), apierr.InvalidArgument, "more than zero")
		wantAPIError(t, deposit(dep.WrapperAddress, "-5"), apierr.InvalidArgument, "more than zero")
		wantAPIError(t, deposit(dep.WrapperAddress, "1.5"), apierr.InvalidArgument, "decimal amount")
		wantAPIError(t, deposit(dep.WrapperAddress, "5000001"), apierr.FailedPrecondition, "is more than the USDC")
		_, _, err = s.root.EarnWithdraw(bg, org, api.EarnWithdrawIntent{WrapperAddress: dep.WrapperAddress, SignWith: user, ChainCaip2: caip2(node), AmountValue: "MAX"})
		wantAPIError(t, err, apierr.FailedPrecondition, "holds no position")

		if nonce, err := node.Client().NonceAt(bg, common.HexToAddress(user), nil); err != nil || nonce != 0 {
			t.Fatalf("the user's wallet sent %d transactions (%v); refusals send nothing", nonce, err)
		}
		if reqs, err := s.store.EarnPositionRequests(bg, org, strings.ToLower(user)); err != nil || len(reqs) != 0 {
			t.Fatalf("refusals recorded %d requests (%v)", len(reqs), err)
		}

		// At the limit of wrappers (100, the others recorded here directly), a new configuration is refused with a 429
		// and nothing sent; a configuration the organization has is the same wrapper still.
		if err := s.store.Write(bg, func(tx *store.Tx) error {
			for i := 1; i < 100; i++ {
				w := strings.ToLower(common.BigToAddress(big.NewInt(int64(0x1000 + i))).Hex())
				if err := tx.InsertEarnWrapper(bg, store.EarnWrapper{OrgID: org, Network: caip2(node), Wrapper: w, Vault: strings.ToLower(morpho),
					Splitter: w, ClientFeeWallet: strings.ToLower(feeWallet), DeployRequestID: "none"}); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		feeNonce, _ := node.Client().NonceAt(bg, common.HexToAddress(feeWallet), nil)
		wantAPIError(t, deploy(morpho, "200", feeWallet), apierr.ResourceExhausted, "100 Earn wrappers")
		if again := s.deployWrapper(node, common.HexToAddress(morpho), "100", feeWallet); *again != *dep {
			t.Fatalf("at the limit, the organization's own configuration is %+v, was %+v", again, dep)
		}
		if nonce, _ := node.Client().NonceAt(bg, common.HexToAddress(feeWallet), nil); nonce != feeNonce {
			t.Fatalf("the fee wallet sent %d transactions at the limit", nonce-feeNonce)
		}
	})
}

// Policies see what Earn signs: a velocity control capping a user's USDC outflow caps its deposits (the approval moves
// the asset), and activity.params holds the intent (a DENY on sponsored deposits, one on deposits over an amount).
func TestEarnPolicies(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		node := earnChain(t)
		s := earnStack(t, b, node)
		org := s.boot.OrganizationID
		dep := s.deployWrapper(node, node.Contracts()[contracts.MorphoVaultUSDC], "100", s.ethWallet("fees"))
		user := s.fundedWallet(node, "user", 1, 500_000_000)
		bobID, bob := s.createUser(org, s.root, "bob")
		control := dailyUSDC("150")
		control.DataSource.ChainAssetTransfer.Definition[0].CAIP19 = usdcCAIP19(node)
		if _, _, err := s.root.CreateVelocityControl(bg, org, control); err != nil {
			t.Fatal(err)
		}
		s.policy("daily cap", api.EffectAllow, "activity.resource == 'PRIVATE_KEY' && activity.action == 'SIGN' && controls.daily_usdc",
			"approvers.any(user, user.id == '"+bobID+"')")
		s.policy("no sponsored deposits", api.EffectDeny, "activity.type == 'ACTIVITY_TYPE_EARN_DEPOSIT' && activity.params.sponsor == true", "")
		s.policy("no deposit over 120 USDC", api.EffectDeny, "activity.type == 'ACTIVITY_TYPE_EARN_DEPOSIT' && activity.params.assets > 120000000", "")
		deposit := func(assets string, sponsor bool) error {
			_, _, err := bob.EarnDeposit(bg, org, api.EarnDepositIntent{WrapperAddress: dep.WrapperAddress, SignWith: user, Assets: assets,
				ChainCaip2: caip2(node), Sponsor: &sponsor})
			return err
		}
		wantAPIError(t, deposit("1000000", true), apierr.PermissionDenied, "")
		wantAPIError(t, deposit("120000001", false), apierr.PermissionDenied, "") // within the cap, over the policy's bound
		if err := deposit("100000000", false); err != nil {
			t.Fatalf("100 USDC under a 150 USDC cap: %v", err)
		}
		wantAPIError(t, deposit("60000000", false), apierr.PermissionDenied, "")
		if err := deposit("50000000", false); err != nil {
			t.Fatalf("150 USDC in all under a 150 USDC cap: %v", err)
		}
	})
}

// An Earn deposit that waits for an approval is read again when the approval completes it: what the chain says then
// decides. A deposit the wallet can no longer cover when it is approved is refused and sends nothing; one it can is
// sent, its request polled to COMPLETED.
func TestEarnApproval(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		node := earnChain(t)
		s := earnStack(t, b, node)
		org := s.boot.OrganizationID
		dep := s.deployWrapper(node, node.Contracts()[contracts.MorphoVaultUSDC], "100", s.ethWallet("fees"))
		user := s.fundedWallet(node, "user", 1, 100_000_000)
		_, carol := s.createUser(org, s.root, "carol")
		s.policy("carol's deposits need the root", api.EffectAllow, "activity.type == 'ACTIVITY_TYPE_EARN_DEPOSIT'",
			"approvers.any(user, user.id == '"+s.boot.UserID+"')")
		deposit := func(assets string) *api.Activity {
			_, a, err := carol.EarnDeposit(bg, org, api.EarnDepositIntent{WrapperAddress: dep.WrapperAddress, SignWith: user, Assets: assets,
				ChainCaip2: caip2(node)})
			if !isConsensusNeeded(err) {
				t.Fatalf("carol's deposit: %v, want it to wait for the root's approval", err)
			}
			return a
		}

		// 80 USDC waits; the wallet sends 30 of its 100 away; approved, the deposit no longer fits and sends nothing.
		late := deposit("80000000")
		if _, err := s.waitSend(mustSend(t, s, user, caip2(node), api.EthCallParams{To: node.Contracts()[contracts.USDC].Hex(),
			Data: usdcTransfer(common.HexToAddress(s.ethWallet("elsewhere")), 30_000_000)})); err != nil {
			t.Fatal(err)
		}
		_, err := s.root.ApproveActivity(bg, org, late.Fingerprint)
		wantAPIError(t, err, apierr.FailedPrecondition, "is more than the USDC")
		if reqs, err := s.store.EarnPositionRequests(bg, org, strings.ToLower(user)); err != nil || len(reqs) != 0 {
			t.Fatalf("the refused deposit recorded %d requests (%v)", len(reqs), err)
		}

		// 70 USDC waits and fits when approved: the approval completes it, and its request is polled to COMPLETED.
		a := deposit("70000000")
		done, err := s.root.ApproveActivity(bg, org, a.Fingerprint)
		var res api.EarnDepositResult
		if err != nil || done.Status != api.StatusCompleted || json.Unmarshal(done.Result[api.EarnDeposit.ResultKey], &res) != nil || res.DepositRequestID == "" {
			t.Fatalf("approved deposit: %+v, %v", done, err)
		}
		earnWait(t, s.root, func(ctx context.Context) (string, string, string, error) {
			st, err := s.root.GetEarnDepositStatus(ctx, org, res.DepositRequestID)
			if err != nil {
				return "", "", "", err
			}
			return st.Status, st.DepositTxHash, st.Error, nil
		})
		positions, err := s.root.ListEarnPositions(bg, org, user)
		if err != nil || len(positions.Positions) != 1 || positions.Positions[0].TotalDeposited != "70000000" {
			t.Fatalf("positions after the approved deposit: %+v, %v", positions, err)
		}
	})
}

// An Earn deposit's send is a send like any other: the endpoints subscribed to SEND_TRANSACTION_STATUS_UPDATES receive
// its BROADCASTING and INCLUDED statuses, from the depositing wallet, with the hash get_earn_deposit_status reports.
func TestEarnWebhooks(t *testing.T) {
	t.Parallel()
	node := earnChain(t)
	s := earnStack(t, testdb.SQLite(t), node, func(c *coordinator.Config) {
		c.Webhooks = coordinator.WebhookConfig{AllowPrivateNetworks: true, PollInterval: 50 * time.Millisecond}
	})
	runWebhooks(t, s.coord)
	org := s.boot.OrganizationID
	dep := s.deployWrapper(node, node.Contracts()[contracts.MorphoVaultUSDC], "100", s.ethWallet("fees"))
	rc := newReceiver(t, s, 0)
	s.subscribe(rc.srv.URL, `{"networks":["`+caip2(node)+`"]}`, api.WebhookSendTransactionUpdates)
	user := s.fundedWallet(node, "user", 1, 10_000_000)
	deposit, _, err := s.root.EarnDeposit(bg, org, api.EarnDepositIntent{WrapperAddress: dep.WrapperAddress, SignWith: user, Assets: "10000000",
		ChainCaip2: caip2(node)})
	if err != nil {
		t.Fatal(err)
	}
	hash := earnWait(t, s.root, func(ctx context.Context) (string, string, string, error) {
		st, err := s.root.GetEarnDepositStatus(ctx, org, deposit.DepositRequestID)
		if err != nil {
			return "", "", "", err
		}
		return st.Status, st.DepositTxHash, st.Error, nil
	})
	var sendID any
	for _, status := range []string{api.TxStatusBroadcasting, api.TxStatusIncluded} {
		body := rc.awaitBody(status, func(eventType string, b map[string]any) bool {
			eth, _ := b["eth"].(map[string]any)
			return eventType == api.WebhookSendTransactionUpdates && b["from"] == strings.ToLower(user) && b["txStatus"] == status && eth["txHash"] == hash
		})
		if sendID != nil && body["sendTransactionStatusId"] != sendID {
			t.Errorf("%s is of send %v, BROADCASTING of %v", status, body["sendTransactionStatusId"], sendID)
		}
		sendID = body["sendTransactionStatusId"]
	}
}

// A sub-organization's wallets deposit into their parent's wrappers, see their positions, and see the parent's
// wrappers without the client's fee and fee wallet; deploying, pausing and claiming fees stay the parent's, and the
// parent's status queries do not answer for a sub-organization's requests.
func TestEarnSubOrganization(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		node := earnChain(t)
		s := earnStack(t, b, node)
		org := s.boot.OrganizationID
		feeWallet := s.ethWallet("fees")
		dep := s.deployWrapper(node, node.Contracts()[contracts.MorphoVaultUSDC], "100", feeWallet)
		key, params := newKey(t, stamp.CurveSecp256k1)
		sub, _, err := s.root.CreateSubOrganization(bg, org, subOrgParams("Alice", params))
		if err != nil {
			t.Fatal(err)
		}
		subID, alice := sub.SubOrganizationID, s.client(key)
		w, _, err := alice.CreateWallet(bg, subID, api.CreateWalletIntent{WalletName: "alice", Accounts: []api.WalletAccountParams{ethAccount()}})
		if err != nil {
			t.Fatal(err)
		}
		user := w.Addresses[0]
		if _, err := node.Faucet().Fund(bg, common.HexToAddress(user), big.NewInt(1e18), map[string]*big.Int{"USDC": big.NewInt(20_000_000)}); err != nil {
			t.Fatal(err)
		}

		deposit, _, err := alice.EarnDeposit(bg, subID, api.EarnDepositIntent{WrapperAddress: dep.WrapperAddress, SignWith: user, Assets: "20000000",
			ChainCaip2: caip2(node)})
		if err != nil {
			t.Fatal(err)
		}
		earnWait(t, alice, func(ctx context.Context) (string, string, string, error) {
			st, err := alice.GetEarnDepositStatus(ctx, subID, deposit.DepositRequestID)
			if err != nil {
				return "", "", "", err
			}
			return st.Status, st.DepositTxHash, st.Error, nil
		})
		if _, err := s.root.GetEarnDepositStatus(bg, org, deposit.DepositRequestID); !client.IsCode(err, apierr.NotFound) {
			t.Errorf("the parent reading its sub-organization's deposit by id: %v", err)
		}
		positions, err := alice.ListEarnPositions(bg, subID, user)
		if err != nil || len(positions.Positions) != 1 || positions.Positions[0].TotalDeposited != "20000000" ||
			positions.Positions[0].WrapperAddress != dep.WrapperAddress {
			t.Fatalf("the sub-organization's positions: %+v, %v", positions, err)
		}
		enabled, err := alice.ListEarnEnabledVaults(bg, api.ListEarnEnabledVaultsRequest{OrganizationID: subID})
		if err != nil || len(enabled.EnabledVaults) != 1 {
			t.Fatalf("the sub-organization's enabled vaults: %+v, %v", enabled, err)
		}
		if v := enabled.EnabledVaults[0]; v.ClientFeeWallet != "" || v.ClaimableClientFee != "" || v.TotalDeposited == "0" {
			t.Errorf("a sub-organization sees the parent's fee: %+v", v)
		}

		_, _, err = alice.EarnDeployWrapper(bg, subID, api.EarnDeployWrapperIntent{VaultAddress: node.Contracts()[contracts.MorphoVaultUSDC].Hex(),
			ChainCaip2: caip2(node), ClientFeeBps: "100", ClientFeeWallet: user})
		wantAPIError(t, err, apierr.PermissionDenied, "only callable by a parent organization")
		_, _, err = alice.EarnSetWrapperState(bg, subID, api.EarnSetWrapperStateIntent{WrapperAddress: dep.WrapperAddress, DepositsDisabled: true})
		wantAPIError(t, err, apierr.PermissionDenied, "only callable by a parent organization")
		_, _, err = alice.ClaimEarnFees(bg, subID, api.ClaimEarnFeesIntent{WrapperAddress: dep.WrapperAddress})
		wantAPIError(t, err, apierr.PermissionDenied, "only callable by a parent organization")
		_, err = alice.ListEarnVaults(bg, api.ListEarnVaultsRequest{OrganizationID: subID, Caip19: usdcCAIP19(node)})
		wantAPIError(t, err, apierr.PermissionDenied, "only callable by a parent organization")
	})
}

// A request whose transaction reverts is FAILED, with the revert decoded from Earn's own contracts: two fee claims
// read before either is sent both pass; one releases the fee, and the other reverts with the splitter's
// NothingToRelease.
func TestEarnFailedStatus(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		node := earnChain(t)
		s := idleSendingStack(t, b, node)
		useDevEarn(t, s, node)
		stop := startSends(s.coord)
		org := s.boot.OrganizationID
		feeWallet := s.fundedWallet(node, "fees", 1, 0)
		dep := s.deployWrapper(node, node.Contracts()[contracts.MorphoVaultUSDC], "2000", feeWallet)
		user := s.fundedWallet(node, "user", 1, 100_000_000)
		wait := func(get func(context.Context) (string, string, string, error)) { earnWait(t, s.root, get) }
		deposit, _, err := s.root.EarnDeposit(bg, org, api.EarnDepositIntent{WrapperAddress: dep.WrapperAddress, SignWith: user, Assets: "100000000",
			ChainCaip2: caip2(node)})
		if err != nil {
			t.Fatal(err)
		}
		wait(func(ctx context.Context) (string, string, string, error) {
			st, err := s.root.GetEarnDepositStatus(ctx, org, deposit.DepositRequestID)
			if err != nil {
				return "", "", "", err
			}
			return st.Status, st.DepositTxHash, st.Error, nil
		})
		// A quarter of an hour of interest (within the hour a sponsored claim's deadline allows), then a withdrawal: the
		// wrapper mints the fee's shares to its splitter.
		if err := node.AdvanceTime(15 * time.Minute); err != nil {
			t.Fatal(err)
		}
		withdraw, _, err := s.root.EarnWithdraw(bg, org, api.EarnWithdrawIntent{WrapperAddress: dep.WrapperAddress, SignWith: user,
			ChainCaip2: caip2(node), AmountValue: "1000000"})
		if err != nil {
			t.Fatal(err)
		}
		wait(func(ctx context.Context) (string, string, string, error) {
			st, err := s.root.GetEarnWithdrawStatus(ctx, org, withdraw.WithdrawRequestID)
			if err != nil {
				return "", "", "", err
			}
			return st.Status, st.WithdrawTxHash, st.Error, nil
		})

		stop() // both claims are read and recorded before either is sent
		var ids []string
		for range 2 {
			res, _, err := s.root.ClaimEarnFees(bg, org, api.ClaimEarnFeesIntent{WrapperAddress: dep.WrapperAddress})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, res.ClaimRequestID)
		}
		if st, err := s.root.GetClaimEarnFeesStatus(bg, org, ids[0]); err != nil || st.Status != api.EarnStatusPending || st.ClaimTxHash != "" {
			t.Fatalf("a claim not yet sent: %+v, %v", st, err)
		}
		t.Cleanup(startSends(s.coord))
		statuses := make([]*api.GetClaimEarnFeesStatusResponse, 2)
		for i, id := range ids {
			testwait.Until(t, "claim "+id+" to leave PENDING", func() bool {
				st, err := s.root.GetClaimEarnFeesStatus(bg, org, id)
				if err != nil {
					t.Fatal(err)
				}
				statuses[i] = st
				return st.Status != api.EarnStatusPending
			})
		}
		// The worker sends them in either order: one releases the fee, the other finds nothing left.
		if statuses[0].Status == api.EarnStatusFailed {
			statuses[0], statuses[1] = statuses[1], statuses[0]
		}
		if st := statuses[0]; st.Status != api.EarnStatusCompleted || st.ClaimTxHash == "" {
			t.Fatalf("one claim: %+v, want COMPLETED with its hash", st)
		}
		want := `NothingToRelease{"payee":"` + common.HexToAddress(feeWallet).Hex() + `"}`
		if st := statuses[1]; st.Status != api.EarnStatusFailed || !strings.HasSuffix(st.Error, want) {
			t.Fatalf("the other claim: %+v, want FAILED with the splitter's %s", st, want)
		}
	})
}
