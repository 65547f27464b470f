package coordinator_test

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"math/big"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/chain"
	"github.com/sigil/sigil/internal/chain/devcatalogue"
	"github.com/sigil/sigil/internal/contracts"
	"github.com/sigil/sigil/internal/coordinator"
	"github.com/sigil/sigil/internal/send"
	"github.com/sigil/sigil/internal/swap"
	"github.com/sigil/sigil/internal/testdb"
	"github.com/sigil/sigil/stamp"
)

// swapStack is a stack whose coordinator sends and swaps on the given dev chains, its send worker running.
func swapStack(t testing.TB, b testdb.Backend, clk *clock, nodes ...*chain.Node) *stack {
	t.Helper()
	var networks []send.Network
	var list []swap.Venue
	for _, n := range nodes {
		networks = append(networks, send.Network{CAIP2: caip2(n), RPCURL: n.RPCURL(), BatchDelegate: n.Contracts()[contracts.Delegate7702],
			GasStation: n.Contracts()[contracts.Station], NativeUSD: 3000, PollInterval: 20 * time.Millisecond})
		list = append(list, devcatalogue.SwapVenue(n.Bootstrap(), 100*time.Millisecond))
	}
	nws, err := send.NewNetworks(networks)
	if err != nil {
		t.Fatal(err)
	}
	venues, err := swap.NewVenues(list)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(venues.Close)
	s := newStackWith(t, b, clk, func(cfg *coordinator.Config) {
		cfg.Networks, cfg.SwapVenues = nws, venues
		cfg.FundSponsor = func(ctx context.Context, address common.Address) error {
			for _, n := range nodes {
				if _, err := n.Faucet().Fund(ctx, address, big.NewInt(params.Ether), nil); err != nil {
					return err
				}
			}
			return nil
		}
	})
	runSends(t, s.coord)
	return s
}

// sharedSwapChains are two dev chains (1337 and 1338) with the bridge's relayer between them, shared by the swap
// tests that read no exact pool state (each works with wallets of its own).
var sharedSwapChains = sync.OnceValues(func() ([2]*chain.Node, error) {
	var nodes [2]*chain.Node
	for i, id := range []int64{1337, 1338} {
		n, err := chain.Start(context.Background(), chain.Config{ListenAddr: "127.0.0.1:0", ChainID: id,
			NetworkID: "swaps-" + strconv.FormatInt(id, 10), Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			return nodes, err
		}
		nodes[i] = n
	}
	chain.NewRelayer(nodes[:], slog.New(slog.DiscardHandler)).Start(50 * time.Millisecond)
	return nodes, nil
})

func swapChains(t testing.TB) [2]*chain.Node {
	t.Helper()
	nodes, err := sharedSwapChains()
	if err != nil {
		t.Fatal(err)
	}
	return nodes
}

// asset is a fixture's CAIP-19 id on a dev chain.
func asset(n *chain.Node, fixture string) string {
	return "eip155:" + n.ChainID().String() + "/erc20:" + n.Contracts()[fixture].Hex()
}

func tokenBalance(t testing.TB, n *chain.Node, fixture string, holder string) *big.Int {
	t.Helper()
	out, err := contracts.MustLoad(contracts.TestToken).Call(bg, n.Client(), n.Contracts()[fixture], "balanceOf", common.HexToAddress(holder))
	if err != nil {
		t.Fatal(err)
	}
	return out[0].(*big.Int)
}

func mustQuote(t testing.TB, c *client.Client, org string, p api.CreateSwapQuoteIntentV2) api.SwapQuote {
	t.Helper()
	res, _, err := c.CreateSwapQuote(bg, org, p)
	if err != nil {
		t.Fatalf("quote %+v: %v", p, err)
	}
	if len(res.Quotes) != 1 {
		t.Fatalf("%d quotes", len(res.Quotes))
	}
	return res.Quotes[0]
}

func mustSwap(t testing.TB, s *stack, c *client.Client, q api.SwapQuote, sponsor bool) *api.GetSwapStatusResponse {
	t.Helper()
	org := s.boot.OrganizationID
	res, _, err := c.ExecuteQuote(bg, org, q, sponsor)
	if err != nil {
		t.Fatalf("execute quote %s: %v", q.QuoteID, err)
	}
	if res.QuoteID != q.QuoteID || res.Provider != q.Provider || res.SwapRequestID == "" {
		t.Fatalf("execution result %+v", res)
	}
	st, err := s.root.WaitForSwap(bg, org, res.SwapRequestID, time.Minute)
	if err != nil {
		t.Fatalf("swap %s: %+v %v", res.SwapRequestID, st, err)
	}
	return st
}

// A quote is QuoterV2's simulation of the route against the pools, net of the client fee, with the fees and route it
// takes; executed, the swap gives exactly that (the pools have not moved), the fee accrues to the receiver on-chain,
// and the receiver claims it. A quote executes once.
func TestSwapQuoteExecuteAndClaim(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		node := devChain(t)
		s := swapStack(t, b, nil, node)
		org := s.boot.OrganizationID
		from := s.fundedWallet(node, "trader", 1, 5_000_000_000)
		feeTo := s.fundedWallet(node, "fees", 1, 0)
		cfg, _, err := s.root.UpsertSwapConfig(bg, org, api.UpsertSwapConfigIntent{FeeReceiverWalletAddress: &feeTo, FeeBps: ptr("30"), StableFeeBps: ptr("5")})
		if err != nil || cfg.FeeBps != "30" || cfg.StableFeeBps != "5" || cfg.FeeReceiverWalletAddress != common.HexToAddress(feeTo).Hex() {
			t.Fatalf("upsert_swap_config: %+v %v", cfg, err)
		}

		q := mustQuote(t, s.root, org, api.CreateSwapQuoteIntentV2{SignWith: from, InputToken: asset(node, contracts.USDC),
			OutputToken: asset(node, contracts.WETH), InputAmount: "1000000000", SlippageBps: "100"})
		out, _ := new(big.Int).SetString(q.OutputAmount, 10)
		path := append(append(node.Contracts()[contracts.USDC].Bytes(), 0, 0x01, 0xf4), node.Contracts()[contracts.WETH].Bytes()...)
		truth, err := contracts.MustLoad(contracts.UniswapV3QuoterV2).Call(bg, node.Client(), node.Contracts()[contracts.UniswapQuoter], "quoteExactInput", path, big.NewInt(997_000_000))
		if err != nil {
			t.Fatal(err)
		}
		if out.Cmp(truth[0].(*big.Int)) != 0 {
			t.Fatalf("quoted %s, QuoterV2 gives %s for 997 USDC", out, truth[0])
		}
		want := new(big.Int).Div(new(big.Int).Mul(out, big.NewInt(9900)), big.NewInt(10_000))
		if q.Provider != api.SwapProviderUniswapV3 || q.SwapKind != "SAME_CHAIN" || q.ClientFeeBps != "30" || q.SlippageBps != "100" ||
			q.MinOutputAmount != want.String() || q.DestinationAddress != common.HexToAddress(from).Hex() {
			t.Fatalf("quote %+v", q)
		}
		if len(q.Route) != 1 || q.Route[0].Address != node.Contracts()[contracts.UniswapPoolUSDCWETH].Hex() || q.Route[0].FeeTier != "500" {
			t.Fatalf("route %+v, want the USDC/WETH 0.05%% pool", q.Route)
		}
		if len(q.Fees) != 2 || q.Fees[0] != (api.SwapFee{Type: "CLIENT", Asset: lowerAsset(node, contracts.USDC), Amount: "3000000", Recipient: common.HexToAddress(feeTo).Hex()}) ||
			q.Fees[1].Type != "POOL" || q.Fees[1].Amount != "498500" {
			t.Fatalf("fees %+v, want 3 USDC to the receiver and 0.05%% of 997 USDC to the pool", q.Fees)
		}
		if impact, _ := strconv.Atoi(q.PriceImpactBps); impact < 0 || impact > 10 {
			t.Fatalf("price impact of 1,000 USDC in a 900,000 USDC pool: %s bps", q.PriceImpactBps)
		}
		if exp, _ := strconv.ParseInt(q.ExpiresAt, 10, 64); math.Abs(float64(exp-time.Now().Add(30*time.Second).UnixMilli())) > 10_000 {
			t.Fatalf("quote expires at %s", q.ExpiresAt)
		}

		st := mustSwap(t, s, s.root, q, false)
		if st.Status != "COMPLETED" || st.OutputAmount != q.OutputAmount || st.OriginTxHash == "" || st.SwapKind != "SAME_CHAIN" || st.InputAmount != "1000000000" {
			t.Fatalf("status %+v", st)
		}
		if got := tokenBalance(t, node, contracts.WETH, from); got.Cmp(out) != 0 {
			t.Fatalf("received %s WETH units, quoted %s", got, out)
		}
		if got := tokenBalance(t, node, contracts.USDC, from); got.Int64() != 4_000_000_000 {
			t.Fatalf("USDC left %s", got)
		}
		if _, _, err := s.root.ExecuteQuote(bg, org, q, false); !client.IsCode(err, apierr.FailedPrecondition) {
			t.Fatalf("a second execution of the quote: %v", err)
		}

		claim, _, err := s.root.ClaimSwapFees(bg, org, api.ClaimSwapFeesIntent{})
		if err != nil || claim.Caip2 != caip2(node) || len(claim.Fees) != 1 || claim.Fees[0].Amount != "3000000" {
			t.Fatalf("claim: %+v %v", claim, err)
		}
		if sent, err := s.waitSend(claim.SendTransactionStatusID); err != nil || sent.TxStatus != "INCLUDED" {
			t.Fatalf("claim send: %+v %v", sent, err)
		}
		if got := tokenBalance(t, node, contracts.USDC, feeTo); got.Int64() != 3_000_000 {
			t.Fatalf("the fee receiver holds %s USDC units after the claim", got)
		}
		if _, _, err := s.root.ClaimSwapFees(bg, org, api.ClaimSwapFeesIntent{}); !client.IsCode(err, apierr.FailedPrecondition) {
			t.Fatalf("a claim with nothing accrued: %v", err)
		}
	})
}

// Bad input gets a clear error and sends nothing: unknown tokens and networks, amounts that are zero, negative or
// more than the balance, a slippage or a fee over its cap, an unknown, altered or expired quote.
func TestSwapRefusesBadInput(t *testing.T) {
	t.Parallel()
	nodes := swapChains(t)
	node := nodes[0]
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		clk := newClock()
		s := swapStack(t, b, clk, nodes[:]...)
		org := s.boot.OrganizationID
		from := s.fundedWallet(node, "trader", 1, 100_000_000)
		usdc, weth := asset(node, contracts.USDC), asset(node, contracts.WETH)
		quote := func(p api.CreateSwapQuoteIntentV2) error {
			_, _, err := s.root.CreateSwapQuote(bg, org, p)
			return err
		}
		ok := api.CreateSwapQuoteIntentV2{SignWith: from, InputToken: usdc, OutputToken: weth, InputAmount: "50000000"}
		with := func(f func(*api.CreateSwapQuoteIntentV2)) api.CreateSwapQuoteIntentV2 { p := ok; f(&p); return p }
		for name, c := range map[string]struct {
			p    api.CreateSwapQuoteIntentV2
			code apierr.Code
			msg  string
		}{
			"unknown token": {with(func(p *api.CreateSwapQuoteIntentV2) {
				p.OutputToken = "eip155:1337/erc20:0x00000000000000000000000000000000000000aa"
			}), apierr.InvalidArgument, "is not a token swaps accept"},
			"unknown network": {with(func(p *api.CreateSwapQuoteIntentV2) {
				p.OutputToken = "eip155:999/erc20:" + node.Contracts()[contracts.WETH].Hex()
			}), apierr.InvalidArgument, "swaps run on"},
			"not an asset id":  {with(func(p *api.CreateSwapQuoteIntentV2) { p.InputToken = "USDC" }), apierr.InvalidArgument, "parameters.inputToken"},
			"same token":       {with(func(p *api.CreateSwapQuoteIntentV2) { p.OutputToken = usdc }), apierr.InvalidArgument, "nothing to swap"},
			"zero amount":      {with(func(p *api.CreateSwapQuoteIntentV2) { p.InputAmount = "0" }), apierr.InvalidArgument, "more than zero"},
			"negative amount":  {with(func(p *api.CreateSwapQuoteIntentV2) { p.InputAmount = "-5" }), apierr.InvalidArgument, "decimal amount"},
			"over the balance": {with(func(p *api.CreateSwapQuoteIntentV2) { p.InputAmount = "100000001" }), apierr.FailedPrecondition, "less than 100000001"},
			"foreign signer":   {with(func(p *api.CreateSwapQuoteIntentV2) { p.SignWith = "0x00000000000000000000000000000000000000bb" }), apierr.InvalidArgument, "no wallet account"},
			"slippage cap":     {with(func(p *api.CreateSwapQuoteIntentV2) { p.SlippageBps = "5001" }), apierr.InvalidArgument, "over the cap"},
			"bad destination":  {with(func(p *api.CreateSwapQuoteIntentV2) { p.DestinationAddress = "bob" }), apierr.InvalidArgument, "parameters.destinationAddress"},
			"native across":    {with(func(p *api.CreateSwapQuoteIntentV2) { p.OutputToken = "eip155:1338/slip44:60" }), apierr.InvalidArgument, "ask for WETH"},
		} {
			if err := quote(c.p); err == nil {
				t.Errorf("%s: quoted", name)
			} else {
				expectErr(t, name, err, c.code, c.msg)
			}
		}
		for name, c := range map[string]struct {
			p   api.UpsertSwapConfigIntent
			msg string
		}{
			"fee over the cap":        {api.UpsertSwapConfigIntent{FeeReceiverWalletAddress: &from, FeeBps: ptr("1001")}, "over the cap of 1000"},
			"stable fee over the cap": {api.UpsertSwapConfigIntent{FeeReceiverWalletAddress: &from, StableFeeBps: ptr("2000")}, "over the cap"},
			"fee without receiver":    {api.UpsertSwapConfigIntent{FeeBps: ptr("10")}, "give one"},
			"receiver not an address": {api.UpsertSwapConfigIntent{FeeReceiverWalletAddress: ptr("0x12")}, "0x address"},
		} {
			_, _, err := s.root.UpsertSwapConfig(bg, org, c.p)
			expectErr(t, name, err, apierr.InvalidArgument, c.msg)
		}

		q := mustQuote(t, s.root, org, ok)
		exec := func(f func(*api.ExecuteSwapIntentV3)) error {
			p := api.ExecuteSwapIntentV3{QuoteID: q.QuoteID, InputToken: q.InputToken, InputAmount: q.InputAmount, OutputToken: q.OutputToken,
				QuotedOutputAmount: q.OutputAmount, MinOutputAmount: q.MinOutputAmount}
			f(&p)
			_, _, err := s.root.ExecuteSwap(bg, org, p)
			return err
		}
		plus1 := func(s string) string { n, _ := new(big.Int).SetString(s, 10); return n.Add(n, big.NewInt(1)).String() }
		for name, c := range map[string]struct {
			f    func(*api.ExecuteSwapIntentV3)
			code apierr.Code
			msg  string
		}{
			"altered minimum":     {func(p *api.ExecuteSwapIntentV3) { p.MinOutputAmount = plus1(p.MinOutputAmount) }, apierr.InvalidArgument, "parameters.minOutputAmount"},
			"altered quote":       {func(p *api.ExecuteSwapIntentV3) { p.QuotedOutputAmount = plus1(p.QuotedOutputAmount) }, apierr.InvalidArgument, "parameters.quotedOutputAmount"},
			"altered input":       {func(p *api.ExecuteSwapIntentV3) { p.InputAmount = plus1(p.InputAmount) }, apierr.InvalidArgument, "parameters.inputAmount"},
			"altered output":      {func(p *api.ExecuteSwapIntentV3) { p.OutputToken = asset(node, contracts.DAI) }, apierr.InvalidArgument, "parameters.outputToken"},
			"altered destination": {func(p *api.ExecuteSwapIntentV3) { p.DestinationAddress = "0x00000000000000000000000000000000000000bb" }, apierr.InvalidArgument, "parameters.destinationAddress"},
			"unknown quote":       {func(p *api.ExecuteSwapIntentV3) { p.QuoteID = "6b0c3c4e-9f0a-4a47-9a55-3d7d0c0b1e2f" }, apierr.NotFound, "no swap quote"},
			"solana blockhash":    {func(p *api.ExecuteSwapIntentV3) { p.RecentBlockhash = "11111111111111111111111111111111" }, apierr.InvalidArgument, "Solana"},
			"sponsor and nonce":   {func(p *api.ExecuteSwapIntentV3) { p.Sponsor, p.EvmNonce = true, "0" }, apierr.InvalidArgument, "parameters.evmNonce"},
		} {
			expectErr(t, name, exec(c.f), c.code, c.msg)
		}
		clk.Advance(31 * time.Second)
		expectErr(t, "expired", exec(func(*api.ExecuteSwapIntentV3) {}), apierr.FailedPrecondition, "expired")

		// Nothing was sent: the account never signed, and holds what it was given.
		if n, err := node.Client().PendingNonceAt(bg, common.HexToAddress(from)); err != nil || n != 0 {
			t.Fatalf("the account's nonce is %d (%v)", n, err)
		}
		if got := tokenBalance(t, node, contracts.USDC, from); got.Int64() != 100_000_000 {
			t.Fatalf("USDC left %s", got)
		}
	})
}

// Swaps go through the send path: a velocity control capping a wallet's USDC outflow caps its swaps (the approval of
// the input counts), and policies read the swap's parameters (activity.params) and the transaction (eth.tx).
func TestSwapPoliciesAndVelocityControls(t *testing.T) {
	t.Parallel()
	nodes := swapChains(t)
	node := nodes[0]
	s := swapStack(t, testdb.SQLite(t), nil, nodes[:]...)
	org := s.boot.OrganizationID
	bobID, bob := s.createUser(org, s.root, "bob")
	from := s.fundedWallet(node, "bob's", 1, 2_000_000_000)
	usdc := asset(node, contracts.USDC)
	control := api.CreateVelocityControlIntent{Name: "daily USDC", Identifier: "daily_usdc",
		DataSource: api.VelocityControlDataSource{ChainAssetTransfer: &api.ChainAssetTransferSource{
			Definition: []api.AssetDefinition{{CAIP19: "eip155:1337/erc20:" + node.Contracts()[contracts.USDC].Hex(), Decimals: "6"}}}},
		Aggregation: api.VelocityAggregation{Method: api.AggregationSum, Operator: api.OperatorLessThanOrEqual, Threshold: "1000",
			Window: api.VelocityWindow{Rolling: &api.RollingWindow{Duration: "86400"}}, GroupBy: api.VelocityGroupBy{Wallet: &api.Empty{}}}}
	if _, _, err := s.root.CreateVelocityControl(bg, org, control); err != nil {
		t.Fatal(err)
	}
	for _, p := range []api.CreatePolicyIntentV3{
		{PolicyName: "quotes", Effect: api.EffectAllow, Consensus: "approvers.any(user, user.id == '" + bobID + "')",
			Condition: "activity.resource == 'SWAP' && activity.params.input_token == '" + usdc + "'"},
		{PolicyName: "swaps within the daily cap, to this router", Effect: api.EffectAllow, Consensus: "approvers.any(user, user.id == '" + bobID + "')",
			Condition: "activity.type == 'ACTIVITY_TYPE_EXECUTE_SWAP_V3' && controls.daily_usdc && activity.params.input_amount <= 700000000"},
		{PolicyName: "never to elsewhere", Effect: api.EffectDeny,
			Condition: "activity.type == 'ACTIVITY_TYPE_EXECUTE_SWAP_V3' && eth.tx.to != '" + lower(node.Contracts()[contracts.USDC]) +
				"' && eth.tx.to != '" + lower(node.Contracts()[contracts.SwapRouterName]) + "'"},
	} {
		if _, _, err := s.root.CreatePolicy(bg, org, p); err != nil {
			t.Fatal(err)
		}
	}
	quote := func(amount string) api.SwapQuote {
		return mustQuote(t, bob, org, api.CreateSwapQuoteIntentV2{SignWith: from, InputToken: usdc, OutputToken: asset(node, contracts.WETH), InputAmount: amount})
	}
	denied := func(what string, q api.SwapQuote) {
		t.Helper()
		if _, _, err := bob.ExecuteQuote(bg, org, q, false); !client.IsCode(err, apierr.PermissionDenied) {
			t.Fatalf("%s: %v, want a denial", what, err)
		}
	}
	if _, _, err := bob.CreateSwapQuote(bg, org, api.CreateSwapQuoteIntentV2{SignWith: from, InputToken: "eip155:1337/slip44:60",
		OutputToken: usdc, InputAmount: "1000000000000000"}); !client.IsCode(err, apierr.PermissionDenied) {
		t.Fatalf("a quote of an input the policy does not name: %v", err)
	}
	denied("800 USDC, over the swap's own limit", quote("800000000"))
	if st := mustSwap(t, s, bob, quote("600000000"), false); st.Status != "COMPLETED" {
		t.Fatalf("600 USDC: %+v", st)
	}
	denied("500 USDC more: 1,100 in the day", quote("500000000"))
	if st := mustSwap(t, s, bob, quote("400000000"), false); st.Status != "COMPLETED" {
		t.Fatalf("400 USDC more, exactly the cap: %+v", st)
	}
	denied("one USDC more", quote("1000000"))
	if got := tokenBalance(t, node, contracts.USDC, from); got.Int64() != 1_000_000_000 {
		t.Fatalf("USDC left %s, want 1,000 of 2,000 (only the allowed swaps sent)", got)
	}
}

func lower(a common.Address) string { return "0x" + common.Bytes2Hex(a.Bytes()) }

// A sponsored swap: the account holds no ether, the organization's gas sponsor pays, and the output goes to the
// quote's destination address; native ETH in and out.
func TestSwapSponsoredToADestination(t *testing.T) {
	t.Parallel()
	nodes := swapChains(t)
	node := nodes[0]
	s := swapStack(t, testdb.SQLite(t), nil, nodes[:]...)
	org := s.boot.OrganizationID
	from := s.fundedWallet(node, "no gas", 0, 1_000_000_000)
	to := common.HexToAddress("0x00000000000000000000000000000000000d0e51")
	q := mustQuote(t, s.root, org, api.CreateSwapQuoteIntentV2{SignWith: from, InputToken: asset(node, contracts.USDC),
		OutputToken: asset(node, contracts.DAI), InputAmount: "500000000", DestinationAddress: to.Hex()})
	st := mustSwap(t, s, s.root, q, true)
	if st.Status != "COMPLETED" || st.DestinationAddress != to.Hex() || tokenBalance(t, node, contracts.DAI, to.Hex()).String() != st.OutputAmount {
		t.Fatalf("status %+v; the destination holds %s DAI units", st, tokenBalance(t, node, contracts.DAI, to.Hex()))
	}
	if eth, _ := node.Client().BalanceAt(bg, common.HexToAddress(from), nil); eth.Sign() != 0 {
		t.Fatalf("the account paid gas: it holds %s wei", eth)
	}

	// Native ETH in: the value rides with the swap, no approval.
	rich := s.fundedWallet(node, "ether", 3, 0)
	q = mustQuote(t, s.root, org, api.CreateSwapQuoteIntentV2{SignWith: rich, InputToken: "eip155:1337/slip44:60",
		OutputToken: asset(node, contracts.USDT), InputAmount: "1000000000000000000"})
	if len(q.Route) == 0 || q.Route[0].InputToken != lowerAsset(node, contracts.WETH) {
		t.Fatalf("route of ETH to USDT: %+v, want it through WETH", q.Route)
	}
	if st := mustSwap(t, s, s.root, q, false); st.Status != "COMPLETED" || tokenBalance(t, node, contracts.USDT, rich).String() != st.OutputAmount {
		t.Fatalf("ETH in: %+v", st)
	}
}

// Across the two dev chains a swap goes through Sigil's bridge, and the quote says so: the origin's swap into the
// bridged token, the bridge, and the destination's swap out of it; the relayer releases it there. A destination swap
// that can no longer give the quote's minimum delivers the bridged token instead: FAILED, with the refund.
func TestCrossChainSwapThroughTheBridge(t *testing.T) {
	t.Parallel()
	nodes := swapChains(t)
	a, b := nodes[0], nodes[1]
	s := swapStack(t, testdb.SQLite(t), nil, nodes[:]...)
	org := s.boot.OrganizationID
	from := s.fundedWallet(a, "traveller", 1, 0)
	if _, err := a.Faucet().Fund(bg, common.HexToAddress(from), nil, map[string]*big.Int{contracts.DAI: new(big.Int).Mul(big.NewInt(2_000), big.NewInt(1e18))}); err != nil {
		t.Fatal(err)
	}
	q := mustQuote(t, s.root, org, api.CreateSwapQuoteIntentV2{SignWith: from, InputToken: asset(a, contracts.DAI),
		OutputToken: asset(b, contracts.WETH), InputAmount: "1500000000000000000000"})
	if q.Provider != api.SwapProviderSigilBridge || q.SwapKind != "CROSS_CHAIN" {
		t.Fatalf("cross-chain quote %+v", q)
	}
	checkBridgeRoute(t, q.Route, a, b, lowerAsset(b, contracts.WETH))
	before := tokenBalance(t, b, contracts.WETH, from)
	st := mustSwap(t, s, s.root, q, false)
	if st.Status != "COMPLETED" || len(st.DestinationTxHashes) != 1 || st.OriginTxHash == "" || st.SwapKind != "CROSS_CHAIN" {
		t.Fatalf("status %+v", st)
	}
	if got := new(big.Int).Sub(tokenBalance(t, b, contracts.WETH, from), before); got.String() != st.OutputAmount {
		t.Fatalf("received %s WETH units on 1338, the status says %s", got, st.OutputAmount)
	}
	if out, _ := new(big.Int).SetString(st.OutputAmount, 10); out.Cmp(mustInt(q.MinOutputAmount)) < 0 {
		t.Fatalf("received %s, under the quote's minimum %s", out, q.MinOutputAmount)
	}

	// The destination's price moves past the quote's slippage before the swap executes: the origin's part goes
	// through, the bridge's release cannot give the minimum and delivers the bridged USDC instead.
	if _, err := a.Faucet().Fund(bg, common.HexToAddress(from), nil, map[string]*big.Int{contracts.USDC: big.NewInt(400_000_000)}); err != nil {
		t.Fatal(err)
	}
	q = mustQuote(t, s.root, org, api.CreateSwapQuoteIntentV2{SignWith: from, InputToken: asset(a, contracts.USDC),
		OutputToken: asset(b, contracts.DAI), InputAmount: "400000000", SlippageBps: "10"})
	checkBridgeRoute(t, q.Route, a, b, lowerAsset(b, contracts.DAI))
	pushPrice(t, b, contracts.USDC, contracts.DAI, 100)
	res, _, err := s.root.ExecuteQuote(bg, org, q, false)
	if err != nil {
		t.Fatal(err)
	}
	st, err = s.root.WaitForSwap(bg, org, res.SwapRequestID, time.Minute)
	var failed *client.SwapFailedError
	if !errors.As(err, &failed) || st.Error == nil || st.Error.Reason != api.SwapProviderFillFailed || st.Refund == nil ||
		st.Refund.Asset != lowerAsset(b, contracts.USDC) || st.Refund.Amount != "400000000" || st.OutputAmount != "" {
		t.Fatalf("refunded swap %+v (%v)", st, err)
	}
	if got := tokenBalance(t, b, contracts.USDC, from); got.Int64() != 400_000_000 {
		t.Fatalf("the refund left %s USDC units on 1338", got)
	}
}

// checkBridgeRoute checks that a route crosses from a to b once, through the bridge, and ends in out.
func checkBridgeRoute(t *testing.T, route []api.SwapRouteStep, a, b *chain.Node, out string) {
	t.Helper()
	bridges := 0
	for _, r := range route {
		switch {
		case r.Type == api.SwapStepSigilBridge:
			bridges++
			if r.Caip2 != caip2(a) || r.DestinationCaip2 != caip2(b) || r.Address != a.Contracts()[contracts.Bridge].Hex() {
				t.Fatalf("bridge step %+v", r)
			}
		case bridges == 0 && r.Caip2 != caip2(a), bridges == 1 && r.Caip2 != caip2(b):
			t.Fatalf("route %+v: a pool on the wrong side of the bridge", route)
		}
	}
	if bridges != 1 || route[len(route)-1].OutputToken != out {
		t.Fatalf("route %+v: want one bridge and %s at the end", route, out)
	}
}

func lowerAsset(n *chain.Node, fixture string) string {
	return "eip155:" + n.ChainID().String() + "/erc20:" + lower(n.Contracts()[fixture])
}

func mustInt(s string) *big.Int {
	n, ok := new(big.Int).SetString(s, 10)
	if !ok {
		panic(s)
	}
	return n
}

// pushPrice sells a large amount of one token for another in their pool on a chain, moving its price far.
func pushPrice(t *testing.T, n *chain.Node, sell, buy string, fee int64) {
	t.Helper()
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	trader := chain.NewAccount(n.Client(), key, n.ChainID())
	amount := new(big.Int).Mul(big.NewInt(300_000), big.NewInt(1_000_000))
	if _, err := n.Faucet().Fund(bg, trader.Address(), big.NewInt(params.Ether), map[string]*big.Int{sell: amount}); err != nil {
		t.Fatal(err)
	}
	router := n.Contracts()[contracts.UniswapRouter]
	transact := func(to common.Address, artifact, method string, args ...any) {
		data, err := contracts.MustLoad(artifact).Pack(method, args...)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := trader.Transact(bg, &to, nil, data); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
	}
	transact(n.Contracts()[sell], contracts.TestToken, "approve", router, amount)
	transact(router, contracts.UniswapV3SwapRouter, "exactInputSingle", exactInputSingle{TokenIn: n.Contracts()[sell],
		TokenOut: n.Contracts()[buy], Fee: big.NewInt(fee), Recipient: trader.Address(), Deadline: big.NewInt(math.MaxInt64),
		AmountIn: amount, AmountOutMinimum: new(big.Int), SqrtPriceLimitX96: new(big.Int)})
}

type exactInputSingle struct {
	TokenIn, TokenOut common.Address
	Fee               *big.Int
	Recipient         common.Address
	Deadline          *big.Int
	AmountIn          *big.Int
	AmountOutMinimum  *big.Int
	SqrtPriceLimitX96 *big.Int
}

// A swap is its organization's own: another organization (here a sub-organization, whose root user is another
// tenant's) cannot execute its quote, read its swap, quote from its account nor claim its fees by naming its fee
// receiver as its own; nothing is sent.
func TestSwapsAreTheOrganizationsOwn(t *testing.T) {
	t.Parallel()
	nodes := swapChains(t)
	node := nodes[0]
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := swapStack(t, b, nil, nodes[:]...)
		org := s.boot.OrganizationID
		from := s.fundedWallet(node, "owner", 1, 200_000_000)
		feeTo := s.fundedWallet(node, "owner's fees", 0, 0)
		if _, _, err := s.root.UpsertSwapConfig(bg, org, api.UpsertSwapConfigIntent{FeeReceiverWalletAddress: &feeTo, FeeBps: ptr("50")}); err != nil {
			t.Fatal(err)
		}
		usdc, weth := asset(node, contracts.USDC), asset(node, contracts.WETH)
		swapped, _, err := s.root.ExecuteQuote(bg, org, mustQuote(t, s.root, org, api.CreateSwapQuoteIntentV2{SignWith: from, InputToken: usdc,
			OutputToken: weth, InputAmount: "100000000"}), false)
		if err != nil {
			t.Fatal(err)
		}
		if st, err := s.root.WaitForSwap(bg, org, swapped.SwapRequestID, time.Minute); err != nil || st.Status != api.SwapCompleted {
			t.Fatalf("the owner's swap: %+v %v", st, err)
		}
		pending := mustQuote(t, s.root, org, api.CreateSwapQuoteIntentV2{SignWith: from, InputToken: usdc, OutputToken: weth, InputAmount: "50000000"})

		key, params := newKey(t, stamp.CurveP256)
		sub, _, err := s.root.CreateSubOrganization(bg, org, subOrgParams("other-tenant", params))
		if err != nil {
			t.Fatal(err)
		}
		other, otherOrg := s.client(key), sub.SubOrganizationID
		w, _, err := other.CreateWallet(bg, otherOrg, api.CreateWalletIntent{WalletName: "other", Accounts: []api.WalletAccountParams{ethAccount()}})
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = other.ExecuteQuote(bg, otherOrg, pending, false)
		expectErr(t, "another organization's quote", err, apierr.NotFound, "no swap quote")
		_, err = other.GetSwapStatus(bg, otherOrg, swapped.SwapRequestID)
		expectErr(t, "another organization's swap", err, apierr.NotFound, "no swap")
		_, _, err = other.CreateSwapQuote(bg, otherOrg, api.CreateSwapQuoteIntentV2{SignWith: from, InputToken: usdc, OutputToken: weth, InputAmount: "1000000"})
		expectErr(t, "another organization's account", err, apierr.InvalidArgument, "no wallet account")
		if _, _, err := other.UpsertSwapConfig(bg, otherOrg, api.UpsertSwapConfigIntent{FeeReceiverWalletAddress: &feeTo}); err != nil {
			t.Fatal(err)
		}
		_, _, err = other.ClaimSwapFees(bg, otherOrg, api.ClaimSwapFeesIntent{})
		expectErr(t, "another organization's fee receiver", err, apierr.FailedPrecondition, "no wallet account or private key of this organization")

		// Nothing was sent for the other tenant: the owner's quote is still unexecuted, its fees unclaimed.
		if got := tokenBalance(t, node, contracts.USDC, feeTo); got.Sign() != 0 {
			t.Fatalf("the fee receiver was paid %s", got)
		}
		if n, err := node.Client().PendingNonceAt(bg, common.HexToAddress(w.Addresses[0])); err != nil || n != 0 {
			t.Fatalf("the other tenant's account sent %d transactions (%v)", n, err)
		}
		if st := mustSwap(t, s, s.root, pending, false); st.Status != api.SwapCompleted {
			t.Fatalf("the owner's quote, executed after the other tenant's attempt: %+v", st)
		}
	})
}

// A process prices a quote ahead of its transaction with the organization's swap configuration as it last read it; one
// changed meanwhile by another process of the deployment is the one the transaction sees, and the quote is priced
// anew with it rather than recorded with the old fee or refused.
func TestSwapQuoteTakesAConfigurationAnotherProcessChanged(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		node := devChain(t)
		s := swapStack(t, b, nil, node)
		org := s.boot.OrganizationID
		from := s.fundedWallet(node, "trader", 1, 5_000_000_000)
		feeTo := s.fundedWallet(node, "fees", 1, 0)
		params := api.CreateSwapQuoteIntentV2{SignWith: from, InputToken: asset(node, contracts.USDC), OutputToken: asset(node, contracts.WETH), InputAmount: "1000000000"}
		if q := mustQuote(t, s.root, org, params); q.ClientFeeBps != "0" {
			t.Fatalf("a quote with no configuration: fee %s bps", q.ClientFeeBps)
		}
		second := (&stack{t: t, srv: secondCoordinator(t, s, b), stamps: s.stamps}).client(s.boot.APIKey)
		if _, _, err := second.UpsertSwapConfig(bg, org, api.UpsertSwapConfigIntent{FeeReceiverWalletAddress: &feeTo, FeeBps: ptr("30")}); err != nil {
			t.Fatal(err)
		}
		q := mustQuote(t, s.root, org, params)
		if q.ClientFeeBps != "30" || len(q.Fees) == 0 || q.Fees[0].Amount != "3000000" || q.Fees[0].Recipient != common.HexToAddress(feeTo).Hex() {
			t.Fatalf("the quote after another process set a 30 bps fee: %+v", q)
		}
	})
}
