package contracts_test

import (
	"context"
	"fmt"
	"math/big"
	"math/rand"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/sigil/sigil/internal/contracts"
)

// The ERC-4626 properties of a16z's erc4626-tests (ERC4626.prop.sol: its list, in our own Go), checked over the
// in-process EVM against every vault Sigil deploys, with amounts drawn at random from a seed the test names:
//
//   - asset, totalAssets, maxDeposit, maxMint, maxWithdraw, maxRedeem do not revert;
//   - convertToShares and convertToAssets do not depend on the caller;
//   - previewDeposit and previewRedeem never promise more than the call then gives, previewMint and previewWithdraw
//     never ask less than it then takes — each preview read as the call's own transaction sees the chain (the state
//     before it, at its block's number and time: the vaults accrue fees and interest by the second);
//   - no round trip (deposit-redeem, deposit-withdraw, redeem-deposit, redeem-mint, mint-withdraw, mint-redeem,
//     withdraw-mint, withdraw-deposit) leaves its caller with more than it started with.
//
// Between rounds the share price moves: yield is sent into a SimpleVault, and time passes, which accrues an
// AllocatorVault's fees and a Morpho market's interest.
func TestERC4626Properties(t *testing.T) {
	t.Parallel()
	chain := newTestChain(t)
	for _, v := range []struct {
		vault, asset string
		decimals     int
	}{
		{contracts.VaultUSDC, contracts.USDC, 6},
		{contracts.VaultDAI, contracts.DAI, 18},
		{contracts.VaultWETH, contracts.WETH, 18},
		{contracts.OAV10USDC, contracts.USDC, 6},
		{contracts.OAV20USDC, contracts.USDC, 6},
		{contracts.MorphoVaultUSDC, contracts.USDC, 6},
	} {
		t.Run(v.vault, func(t *testing.T) {
			c := chain.with(t)
			seed := time.Now().UnixNano()
			t.Logf("seed %d", seed)
			p := &props{c: c, t: t, vault: v.vault, asset: v.asset, decimals: v.decimals, rng: rand.New(rand.NewSource(seed))}
			for _, a := range []*account{c.alice, c.bob} {
				c.fund(a, v.asset, tokens(100_000, v.decimals))
				a.send(v.asset, "approve", c.addr(v.vault), maxUint256)
			}
			// The vault is not empty, and each account holds shares beyond what a round trip mints: undoing a trip
			// can take a share more than it gave, rounded in the vault's favour.
			c.alice.send(v.vault, "deposit", tokens(1000, v.decimals), c.alice.addr)
			c.bob.send(v.vault, "deposit", tokens(1000, v.decimals), c.bob.addr)
			for round := range 3 {
				p.views()
				p.previews(c.alice, c.bob)
				p.roundTrips(c.bob)
				p.movePrice(round)
			}
		})
	}
}

// props checks one vault.
type props struct {
	c            *testChain
	t            *testing.T
	vault, asset string
	decimals     int
	rng          *rand.Rand
}

// amount is a random amount from 1 to max (max at least 1).
func (p *props) amount(max *big.Int) *big.Int {
	if max.Sign() <= 0 {
		return big.NewInt(1)
	}
	return new(big.Int).Add(new(big.Int).Rand(p.rng, max), big.NewInt(1))
}

func (p *props) views() {
	p.t.Helper()
	alice, bob := p.c.alice.addr, p.c.bob.addr
	for _, m := range []struct {
		method string
		args   []any
	}{{"asset", nil}, {"totalAssets", nil}, {"maxDeposit", []any{bob}}, {"maxMint", []any{bob}},
		{"maxWithdraw", []any{alice}}, {"maxRedeem", []any{alice}}} {
		if _, err := p.view(bob, nil, m.method, m.args...); err != nil {
			p.t.Errorf("%s reverted: %v", m.method, err)
		}
	}
	amount := p.amount(tokensOf(p, 5000))
	for _, method := range []string{"convertToShares", "convertToAssets"} {
		one, err1 := p.view(alice, nil, method, amount)
		two, err2 := p.view(bob, nil, method, amount)
		if err1 != nil || err2 != nil || one.Cmp(two) != 0 {
			p.t.Errorf("%s(%s): %v for one caller, %v for another (%v, %v)", method, amount, one, two, err1, err2)
		}
	}
}

// tokensOf is whole tokens of the vault's asset.
func tokensOf(p *props, whole int64) *big.Int { return tokens(whole, p.decimals) }

// previews checks each action against its preview, as its own transaction sees the chain.
func (p *props) previews(caller, receiver *account) {
	p.t.Helper()
	assets := p.amount(tokensOf(p, 500))
	if preview, got := p.act(caller, "previewDeposit", []any{assets}, "deposit", assets, receiver.addr); got.shares.Cmp(preview) < 0 {
		p.t.Errorf("deposit(%s) minted %s shares, previewDeposit promised %s", assets, got.shares, preview)
	}
	shares := p.amount(p.c.uint(p.vault, "convertToShares", tokensOf(p, 500)))
	if preview, got := p.act(caller, "previewMint", []any{shares}, "mint", shares, receiver.addr); got.assets.Cmp(preview) > 0 {
		p.t.Errorf("mint(%s) took %s assets, previewMint asked %s", shares, got.assets, preview)
	}
	assets = p.amount(p.c.uint(p.vault, "maxWithdraw", receiver.addr))
	if preview, got := p.act(receiver, "previewWithdraw", []any{assets}, "withdraw", assets, caller.addr, receiver.addr); got.shares.Cmp(preview) > 0 {
		p.t.Errorf("withdraw(%s) burned %s shares, previewWithdraw asked %s", assets, got.shares, preview)
	}
	shares = p.amount(p.c.uint(p.vault, "maxRedeem", receiver.addr))
	if preview, got := p.act(receiver, "previewRedeem", []any{shares}, "redeem", shares, caller.addr, receiver.addr); got.assets.Cmp(preview) < 0 {
		p.t.Errorf("redeem(%s) paid %s assets, previewRedeem promised %s", shares, got.assets, preview)
	}
}

// moved is what an action moved: the shares minted or burned, the assets paid in or out (absolute values).
type moved struct{ shares, assets *big.Int }

// act sends method from the account and returns the preview (read as the action's transaction sees the chain) and
// what the action moved: the shares and assets of whichever of the two accounts they went to or came from.
func (p *props) act(from *account, previewMethod string, previewArgs []any, method string, args ...any) (*big.Int, moved) {
	p.t.Helper()
	holders := []common.Address{p.c.alice.addr, p.c.bob.addr}
	sharesBefore, assetsBefore := p.total(p.vault, holders), p.total(p.asset, holders)
	r := from.send(p.vault, method, args...)
	preview, err := p.view(from.addr, r, previewMethod, previewArgs...)
	if err != nil {
		p.t.Fatalf("%s: %v", previewMethod, err)
	}
	return preview, moved{abs(sub(p.total(p.vault, holders), sharesBefore)), abs(sub(p.total(p.asset, holders), assetsBefore))}
}

func (p *props) total(token string, holders []common.Address) *big.Int {
	sum := new(big.Int)
	for _, h := range holders {
		sum.Add(sum, p.c.balance(token, h))
	}
	return sum
}

func abs(x *big.Int) *big.Int { return new(big.Int).Abs(x) }

// roundTrips runs each round trip from the account's own balance and checks it ends with no more than it began.
func (p *props) roundTrips(a *account) {
	p.t.Helper()
	me := a.addr
	assets := func() *big.Int { return p.c.balance(p.asset, me) }
	shares := func() *big.Int { return p.c.balance(p.vault, me) }
	trips := []struct {
		name string
		run  func()
	}{
		{"deposit then redeem", func() {
			a0, s0 := assets(), shares()
			x := p.amount(tokensOf(p, 300))
			a.send(p.vault, "deposit", x, me)
			a.send(p.vault, "redeem", sub(shares(), s0), me, me)
			if gain := sub(assets(), a0); gain.Sign() > 0 {
				p.t.Errorf("depositing %s and redeeming the shares gained %s", x, gain)
			}
		}},
		{"deposit then withdraw", func() {
			x := p.amount(tokensOf(p, 300))
			s0 := shares()
			a.send(p.vault, "deposit", x, me)
			got := sub(shares(), s0)
			a.send(p.vault, "withdraw", x, me, me)
			if burned := sub(add(s0, got), shares()); burned.Cmp(got) < 0 {
				p.t.Errorf("withdrawing the %s deposited burned %s shares, fewer than the %s it minted", x, burned, got)
			}
		}},
		{"redeem then deposit", func() {
			s := p.amount(div(shares(), 4))
			a0 := assets()
			a.send(p.vault, "redeem", s, me, me)
			s1 := shares()
			a.send(p.vault, "deposit", sub(assets(), a0), me)
			if again := sub(shares(), s1); again.Cmp(s) > 0 {
				p.t.Errorf("depositing what redeeming %s shares paid minted %s", s, again)
			}
		}},
		{"redeem then mint", func() {
			s := p.amount(div(shares(), 4))
			a0 := assets()
			a.send(p.vault, "redeem", s, me, me)
			paid := sub(assets(), a0)
			a1 := assets()
			a.send(p.vault, "mint", s, me)
			if cost := sub(a1, assets()); cost.Cmp(paid) < 0 {
				p.t.Errorf("minting back %s shares cost %s, less than the %s redeeming them paid", s, cost, paid)
			}
		}},
		{"mint then withdraw", func() {
			s := p.amount(p.c.uint(p.vault, "convertToShares", tokensOf(p, 300)))
			a0 := assets()
			a.send(p.vault, "mint", s, me)
			cost := sub(a0, assets())
			s1 := shares()
			a.send(p.vault, "withdraw", cost, me, me)
			if burned := sub(s1, shares()); burned.Cmp(s) < 0 {
				p.t.Errorf("withdrawing the %s that minting %s shares cost burned %s", cost, s, burned)
			}
		}},
		{"mint then redeem", func() {
			s := p.amount(p.c.uint(p.vault, "convertToShares", tokensOf(p, 300)))
			a0 := assets()
			a.send(p.vault, "mint", s, me)
			a.send(p.vault, "redeem", s, me, me)
			if gain := sub(assets(), a0); gain.Sign() > 0 {
				p.t.Errorf("minting and redeeming %s shares gained %s", s, gain)
			}
		}},
		{"withdraw then mint", func() {
			x := p.amount(div(p.c.uint(p.vault, "maxWithdraw", me), 4))
			s0 := shares()
			a.send(p.vault, "withdraw", x, me, me)
			burned := sub(s0, shares())
			a1 := assets()
			a.send(p.vault, "mint", burned, me)
			if cost := sub(a1, assets()); cost.Cmp(x) < 0 {
				p.t.Errorf("minting back the %s shares withdrawing %s burned cost only %s", burned, x, cost)
			}
		}},
		{"withdraw then deposit", func() {
			x := p.amount(div(p.c.uint(p.vault, "maxWithdraw", me), 4))
			s0 := shares()
			a.send(p.vault, "withdraw", x, me, me)
			burned := sub(s0, shares())
			s1 := shares()
			a.send(p.vault, "deposit", x, me)
			if again := sub(shares(), s1); again.Cmp(burned) > 0 {
				p.t.Errorf("depositing back the %s withdrawn minted %s shares, more than the %s burned", x, again, burned)
			}
		}},
	}
	for _, trip := range trips {
		trip.run()
	}
}

func div(x *big.Int, n int64) *big.Int { return new(big.Int).Div(x, big.NewInt(n)) }

// movePrice changes the share price between rounds: yield into a SimpleVault, time for the others.
func (p *props) movePrice(round int) {
	switch p.vault {
	case contracts.VaultUSDC, contracts.VaultDAI, contracts.VaultWETH:
		yield := tokensOf(p, int64(7+round))
		p.c.fund(p.c.owner, p.asset, yield)
		p.c.owner.send(p.asset, "transfer", p.c.addr(p.vault), yield)
	default:
		p.c.advance(time.Duration(1+round) * 24 * time.Hour)
	}
}

// view reads a view function of the vault from an address: as the transaction of receipt r saw the chain (the state
// of the block before, at r's block number and time), or at the latest block when r is nil.
func (p *props) view(from common.Address, r *types.Receipt, method string, args ...any) (*big.Int, error) {
	art := artifactOf(p.t, p.vault)
	data, err := art.Pack(method, args...)
	if err != nil {
		p.t.Fatal(err)
	}
	to := p.c.addr(p.vault)
	msg := ethereum.CallMsg{From: from, To: &to, Data: data}
	var out []byte
	if r == nil {
		out, err = p.c.client.CallContract(context.Background(), msg, nil)
	} else {
		// eth_simulateV1 over the block before r's, with r's number and time: the call's own block context.
		sim := p.c.client.(interface {
			SimulateV1(context.Context, ethclient.SimulateOptions, *rpc.BlockNumberOrHash) ([]ethclient.SimulateBlockResult, error)
		})
		base := rpc.BlockNumberOrHashWithNumber(rpc.BlockNumber(r.BlockNumber.Int64() - 1))
		var res []ethclient.SimulateBlockResult
		res, err = sim.SimulateV1(context.Background(), ethclient.SimulateOptions{BlockStateCalls: []ethclient.SimulateBlock{{
			BlockOverrides: &ethereum.BlockOverrides{Number: new(big.Int).Set(r.BlockNumber), Time: p.c.blockTime(r)},
			Calls:          []ethereum.CallMsg{msg},
		}}}, &base)
		switch {
		case err != nil:
		case len(res) != 1 || len(res[0].Calls) != 1:
			p.t.Fatalf("eth_simulateV1 gave %d blocks", len(res))
		case res[0].Calls[0].Error != nil:
			err = fmt.Errorf("%s reverted: %s", method, res[0].Calls[0].Error.Message)
		default:
			out = res[0].Calls[0].ReturnValue
		}
	}
	if err != nil {
		return nil, err
	}
	vals, err := art.ABI.Unpack(method, out)
	if err != nil {
		return nil, err
	}
	if n, ok := vals[0].(*big.Int); ok {
		return n, nil
	}
	return new(big.Int), nil // asset(): an address, read without reverting
}

// The FeeWrapper deposits into a vault for a fee: it is no ERC-4626 vault itself, so its part of the properties is the
// deposit path. Its fee does not depend on the caller; a deposit through it takes exactly the amount from the caller,
// pays exactly feeOf of it to the fee recipient and gives the receiver at least the vault's previewDeposit of the rest
// (read as the deposit's transaction sees the chain); and no round trip through it (deposit through the wrapper, redeem
// from the vault) gives back more than the amount less the fee.
func TestFeeWrapperProperties(t *testing.T) {
	t.Parallel()
	c := newTestChain(t)
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	wrapper := c.addr(contracts.FeeWrapperName)
	p := &props{c: c, t: t, vault: contracts.VaultUSDC, asset: contracts.USDC, decimals: 6, rng: rng}
	c.fund(c.alice, contracts.USDC, tokens(100_000, 6))
	c.alice.send(contracts.USDC, "approve", wrapper, maxUint256)
	c.alice.send(contracts.USDC, "approve", c.addr(contracts.VaultUSDC), maxUint256)
	c.alice.send(contracts.VaultUSDC, "deposit", tokens(1000, 6), c.alice.addr)
	feeOf := func(from common.Address, amount *big.Int) *big.Int {
		data, err := artifactOf(t, contracts.FeeWrapperName).Pack("feeOf", amount)
		if err != nil {
			t.Fatal(err)
		}
		out, err := c.client.CallContract(context.Background(), ethereum.CallMsg{From: from, To: &wrapper, Data: data}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return new(big.Int).SetBytes(out)
	}
	for range 8 {
		x := p.amount(tokens(5000, 6))
		fee := feeOf(c.alice.addr, x)
		if other := feeOf(c.bob.addr, x); other.Cmp(fee) != 0 {
			t.Errorf("feeOf(%s): %s for one caller, %s for another", x, fee, other)
		}
		assets0, shares0 := c.balance(contracts.USDC, c.alice.addr), c.balance(contracts.VaultUSDC, c.alice.addr)
		feeTo0 := c.balance(contracts.USDC, c.feeTo)
		r := c.alice.send(contracts.FeeWrapperName, "deposit", c.addr(contracts.VaultUSDC), x, c.alice.addr)
		preview, err := p.view(c.alice.addr, r, "previewDeposit", sub(x, fee))
		if err != nil {
			t.Fatal(err)
		}
		wantEq(t, "assets taken", sub(assets0, c.balance(contracts.USDC, c.alice.addr)), x)
		wantEq(t, "fee paid", sub(c.balance(contracts.USDC, c.feeTo), feeTo0), fee)
		minted := sub(c.balance(contracts.VaultUSDC, c.alice.addr), shares0)
		if minted.Cmp(preview) < 0 {
			t.Errorf("a deposit of %s through the wrapper minted %s shares, previewDeposit of %s after the fee promised %s", x, minted, sub(x, fee), preview)
		}
		assets1 := c.balance(contracts.USDC, c.alice.addr)
		c.alice.send(contracts.VaultUSDC, "redeem", minted, c.alice.addr, c.alice.addr)
		if back := sub(c.balance(contracts.USDC, c.alice.addr), assets1); back.Cmp(sub(x, fee)) > 0 {
			t.Errorf("redeeming what a deposit of %s through the wrapper minted gave back %s, more than %s less its fee %s", x, back, x, fee)
		}
	}
	_, err := c.alice.trySend(nil, contracts.FeeWrapperName, "deposit", c.addr(contracts.VaultUSDC), new(big.Int), c.alice.addr)
	wantRevert(t, err, artifactOf(t, contracts.FeeWrapperName).Name, "ZeroAmount")
}
