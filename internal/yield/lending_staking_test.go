package yield

import (
	"context"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/sigil/sigil/internal/contracts"
)

// Lending with Aave v3 signatures, on the dev chain's lending pool and on Aave v3's own contracts: approve the pool,
// supply; withdraw part, then everything (uint256.max).
func TestLendingEnterExit(t *testing.T) {
	for _, market := range []struct{ pool, aToken, aTokenArtifact, id string }{
		{contracts.Lending, contracts.LendingAUSDT, contracts.InterestToken, "sigil-dev-usdt-sigillend-lending"},
		{contracts.AavePoolName, contracts.AaveAUSDT, contracts.AaveAToken, "sigil-dev-usdt-aave-lending"},
	} {
		t.Run(market.pool, func(t *testing.T) {
			testLendingEnterExit(t, market.pool, market.aToken, market.aTokenArtifact, market.id)
		})
	}
}

func testLendingEnterExit(t *testing.T, poolName, aTokenName, aTokenArtifact, wantID string) {
	e := newEnv(t, envOptions{})
	usdt, pool, aToken := e.addr(contracts.USDT), e.addr(poolName), e.addr(aTokenName)
	id := e.yieldID(KindLending, pool.Hex(), "USDT")
	if id != wantID {
		t.Fatalf("lending id %s", id)
	}
	// The rate is the pool's current liquidity rate: Aave's own comes from its borrowers (about 4% a year).
	var y yieldDTO
	e.mustCall(e.key10, "GET", "/v1/yields/"+id, nil, 200, &y)
	if y.RewardRate.Total <= 0.01 || y.RewardRate.Total > 0.1 {
		t.Fatalf("%s earns %v a year", id, y.RewardRate.Total)
	}
	w := e.newWallet("1", map[string]string{"USDT": "1000"})
	a := w.act(e.key10, "enter", id, map[string]any{"amount": "300"})
	if len(a.Transactions) != 2 || a.Transactions[1].Type != "SUPPLY" {
		t.Fatalf("enter: %+v", a.Transactions)
	}
	approve, supply := unsigned(t, a.Transactions[0]), unsigned(t, a.Transactions[1])
	if approve.To != usdt.Hex() || !strings.Contains(approve.Data, strings.ToLower(pool.Hex()[2:])) {
		t.Fatalf("approval: %+v", approve)
	}
	// supply(address,uint256,address,uint16)
	if supply.To != pool.Hex() || selector(supply.Data) != "0x617ba037" {
		t.Fatalf("supply: %+v", supply)
	}
	before := e.tokenBalance(usdt, w.addr)
	receipts := w.execute(e.key10, a)
	if d := new(big.Int).Sub(before, e.tokenBalance(usdt, w.addr)); d.Cmp(baseUnits("300", 6)) != 0 {
		t.Fatalf("supplied %s", d)
	}
	if got := poolEventAmount(t, receipts, pool, "Supply"); got.Cmp(baseUnits("300", 6)) != 0 {
		t.Fatalf("the pool's Supply events say %s", got)
	}
	supplied := e.read(aToken, aTokenArtifact, "balanceOf", w.addr)
	if active := e.balances(e.key10, id, w.addr)["active"]; active.AmountRaw != supplied.String() || supplied.Sign() == 0 {
		t.Fatalf("active %+v, aToken balance %s", active, supplied)
	}

	a = w.act(e.key10, "exit", id, map[string]any{"amount": "100"})
	// withdraw(address,uint256,address)
	if u := unsigned(t, a.Transactions[0]); a.Transactions[0].Type != "WITHDRAW" || selector(u.Data) != "0x69328dec" || u.To != pool.Hex() {
		t.Fatalf("exit: %+v", u)
	}
	before = e.tokenBalance(usdt, w.addr)
	receipts = w.execute(e.key10, a)
	if d := new(big.Int).Sub(e.tokenBalance(usdt, w.addr), before); d.Cmp(baseUnits("100", 6)) != 0 {
		t.Fatalf("withdrew %s", d)
	}
	if got := poolEventAmount(t, receipts, pool, "Withdraw"); got.Cmp(baseUnits("100", 6)) != 0 {
		t.Fatalf("the pool's Withdraw events say %s", got)
	}

	// Interest accrues; a max exit withdraws all of it. Aave accrues by itself with block time, so an hour will do
	// (the chain is shared: long jumps pay the vaults of other tests in lumps that skew their sampled rates).
	if poolName == contracts.AavePoolName {
		e.step(time.Hour)
	} else {
		e.step(24 * time.Hour)
	}
	position := e.read(aToken, aTokenArtifact, "balanceOf", w.addr)
	if position.Cmp(baseUnits("200", 6)) <= 0 {
		t.Fatalf("no interest accrued: %s", position)
	}
	a = w.act(e.key10, "exit", id, map[string]any{"useMaxAmount": true})
	if *a.AmountRaw != position.String() {
		t.Fatalf("max exit amount %s, want %s", *a.AmountRaw, position)
	}
	before = e.tokenBalance(usdt, w.addr)
	receipts = w.execute(e.key10, a)
	// Aave's own index grows every second, so its withdrawal, a block later, pays a little more than was read.
	d := new(big.Int).Sub(e.tokenBalance(usdt, w.addr), before)
	if d.Cmp(position) < 0 || (poolName == contracts.Lending && d.Cmp(position) != 0) {
		t.Fatalf("max exit paid %s, want %s", d, position)
	}
	if got := poolEventAmount(t, receipts, pool, "Withdraw"); got.Cmp(d) != 0 {
		t.Fatalf("the pool's Withdraw events say %s, the wallet received %s", got, d)
	}
	if got := e.balances(e.key10, id, w.addr); len(got) != 0 {
		t.Fatalf("balances after the max exit: %+v", got)
	}
}

// poolEventAmount sums the amounts of a pool's Aave v3 Supply or Withdraw events in the receipts: what the contract
// itself says moved, to hold the service's balances against.
func poolEventAmount(t *testing.T, receipts []*types.Receipt, pool common.Address, event string) *big.Int {
	t.Helper()
	aave := contracts.MustLoad(contracts.AavePool).ABI
	sum := new(big.Int)
	for _, r := range receipts {
		for _, l := range r.Logs {
			if l.Address != pool || len(l.Topics) == 0 || l.Topics[0] != aave.Events[event].ID {
				continue
			}
			values, err := aave.Unpack(event, l.Data)
			if err != nil {
				t.Fatal(err)
			}
			for i, in := range aave.Events[event].Inputs.NonIndexed() {
				if in.Name == "amount" {
					sum.Add(sum, values[i].(*big.Int))
				}
			}
		}
	}
	return sum
}

// Native staking through the fee wrapper (the dev catalogue's deposit fee), rewards claimed with a manage action,
// unstake, the cooldown, and the withdrawal with the balance's passthrough.
func TestNativeStakingWithFeeWrapper(t *testing.T) {
	e := newEnv(t, envOptions{})
	staking, wrapper := e.addr(contracts.Staking), e.addr(contracts.FeeWrapperName)
	id := e.yieldID(KindNativeStaking, staking.Hex(), "ETH")
	if id != "sigil-dev-eth-native-staking" {
		t.Fatalf("native staking id %s", id)
	}
	w := e.newWallet("20", nil)
	if got := e.balances(e.key10, id, w.addr); len(got) != 0 {
		t.Fatalf("balances before staking: %+v", got)
	}
	a := w.act(e.key10, "enter", id, map[string]any{"amount": "10"})
	stake := unsigned(t, a.Transactions[0])
	if len(a.Transactions) != 1 || a.Transactions[0].Type != "STAKE" || stake.To != wrapper.Hex() || stake.Value != "0x8ac7230489e80000" {
		t.Fatalf("stake: %+v", stake)
	}
	feeTo := e.chain.DevAccount()
	feeBefore := e.ethBalance(feeTo)
	amount := baseUnits("10", 18)
	fee := new(big.Int).Div(new(big.Int).Mul(amount, big.NewInt(e.yieldCfg(id).Fees.DepositBps)), big.NewInt(10_000))
	receipts := w.execute(e.key10, a)
	staked := e.read(staking, contracts.NativeStaking, "stakedOf", w.addr)
	if want := new(big.Int).Sub(amount, fee); staked.Cmp(want) != 0 {
		t.Fatalf("staked %s, want %s", staked, want)
	}
	// The fee recipient also produces the dev chain's blocks: it received the fee and the stake's tip, nothing else.
	if charged := e.event(receipts[0], wrapper, contracts.FeeWrapper, "FeeCharged"); charged[0].(*big.Int).Cmp(amount) != 0 ||
		charged[1].(*big.Int).Cmp(fee) != 0 || fee.Sign() == 0 {
		t.Fatalf("the wrapper charged %v, want %s of %s", charged, fee, amount)
	}
	got := new(big.Int).Sub(e.ethBalance(feeTo), feeBefore)
	if want := new(big.Int).Add(fee, e.tipsTo(feeTo, receipts...)); got.Cmp(want) != 0 {
		t.Fatalf("fee recipient got %s, want the fee %s and the tip: %s", got, fee, want)
	}
	b := e.balances(e.key10, id, w.addr)
	if b["active"].AmountRaw != staked.String() || !b["active"].IsEarning {
		t.Fatalf("active %+v", b["active"])
	}

	e.step(24 * time.Hour)
	rewards := e.read(staking, contracts.NativeStaking, "claimableRewards", w.addr)
	b = e.balances(e.key10, id, w.addr)
	claim := b["claimable"]
	if claim.AmountRaw != rewards.String() || rewards.Sign() == 0 || len(claim.PendingActions) != 1 || claim.PendingActions[0].Type != "CLAIM_REWARDS" {
		t.Fatalf("claimable %+v, rewards %s", claim, rewards)
	}
	var m actionDTO
	e.mustCall(e.key10, "POST", "/v1/actions/manage", map[string]any{"yieldId": id, "address": w.addr.Hex(),
		"action": "CLAIM_REWARDS", "passthrough": claim.PendingActions[0].Passthrough}, 201, &m)
	if m.Intent != "manage" || m.Type != "CLAIM_REWARDS" || len(m.Transactions) != 1 {
		t.Fatalf("claim action %+v", m)
	}
	receipts, paid := w.executeForEther(e.key10, m)
	claimed := e.event(receipts[0], staking, contracts.NativeStaking, "RewardsClaimed")[0].(*big.Int)
	if claimed.Cmp(rewards) != 0 || paid.Cmp(claimed) != 0 {
		t.Fatalf("claimed %s of %s rewards, the wallet received %s net of gas", claimed, rewards, paid)
	}

	a = w.act(e.key10, "exit", id, map[string]any{"amount": "4"})
	if a.Transactions[0].Type != "UNSTAKE" {
		t.Fatalf("exit %+v", a.Transactions)
	}
	w.execute(e.key10, a)
	b = e.balances(e.key10, id, w.addr)
	if b["exiting"].AmountRaw != baseUnits("4", 18).String() || b["exiting"].Date == nil || len(b["exiting"].PendingActions) != 0 {
		t.Fatalf("exiting %+v", b["exiting"])
	}
	// Too early: the manage action is refused with the cooldown's end.
	r := e.call(e.key10, "POST", "/v1/actions/manage", map[string]any{"yieldId": id, "address": w.addr.Hex(), "action": "WITHDRAW",
		"passthrough": encodePassthrough(passthrough{YieldID: id, Address: strings.ToLower(w.addr.Hex()), Action: "WITHDRAW"})})
	if r.status != 400 || !strings.Contains(string(r.body), "cooldown") {
		t.Fatalf("withdraw during the cooldown: %d %s", r.status, r.body)
	}
	if err := e.chain.AdvanceTime(contracts.DefaultStakingCooldown + time.Minute); err != nil {
		t.Fatal(err)
	}
	b = e.balances(e.key10, id, w.addr)
	wd := b["withdrawable"]
	if wd.AmountRaw != baseUnits("4", 18).String() || len(wd.PendingActions) != 1 || wd.PendingActions[0].Type != "WITHDRAW" {
		t.Fatalf("withdrawable %+v", wd)
	}
	// A passthrough is bound to its yield, address and action.
	r = e.call(e.key10, "POST", "/v1/actions/manage", map[string]any{"yieldId": id, "address": w.addr.Hex(), "action": "CLAIM_REWARDS",
		"passthrough": wd.PendingActions[0].Passthrough})
	if r.status != 400 || !strings.Contains(string(r.body), "passthrough") {
		t.Fatalf("passthrough for another action: %d %s", r.status, r.body)
	}
	e.mustCall(e.key10, "POST", "/v1/actions/manage", map[string]any{"yieldId": id, "address": w.addr.Hex(), "action": "WITHDRAW",
		"passthrough": wd.PendingActions[0].Passthrough}, 201, &m)
	receipts, paid = w.executeForEther(e.key10, m)
	withdrawn := e.event(receipts[0], staking, contracts.NativeStaking, "Withdrawn")[0].(*big.Int)
	if withdrawn.Cmp(baseUnits("4", 18)) != 0 || paid.Cmp(withdrawn) != 0 {
		t.Fatalf("withdrew %s of 4 ETH, the wallet received %s net of gas", withdrawn, paid)
	}
	remaining := new(big.Int).Sub(staked, baseUnits("4", 18))
	if b = e.balances(e.key10, id, w.addr); len(b) != 1 || b["active"].AmountRaw != remaining.String() {
		t.Fatalf("after the withdrawal: %+v, want only the %s still staked", b, remaining)
	}
}

// Native staking without a deposit fee stakes directly with stake().
func TestNativeStakingDirect(t *testing.T) {
	e := newEnv(t, envOptions{edit: func(c *Catalogue) {
		for i := range c.Yields {
			if c.Yields[i].Kind == KindNativeStaking {
				c.Yields[i].Fees = Fees{}
				c.Yields[i].Contracts.FeeWrapper = ""
			}
		}
	}})
	staking := e.addr(contracts.Staking)
	id := e.yieldID(KindNativeStaking, staking.Hex(), "ETH")
	w := e.newWallet("5", nil)
	if got := e.balances(e.key20, id, w.addr); len(got) != 0 {
		t.Fatalf("balances before staking: %+v", got)
	}
	a := w.act(e.key20, "enter", id, map[string]any{"amount": "2.5"})
	// stake()
	if u := unsigned(t, a.Transactions[0]); u.To != staking.Hex() || u.Data != "0x3a4b66f1" || u.Value != "0x22b1c8c1227a0000" {
		t.Fatalf("direct stake: %+v", u)
	}
	w.execute(e.key20, a)
	if got := e.read(staking, contracts.NativeStaking, "stakedOf", w.addr); got.Cmp(baseUnits("2.5", 18)) != 0 {
		t.Fatalf("staked %s", got)
	}
	a = w.act(e.key20, "exit", id, map[string]any{"useMaxAmount": true})
	w.execute(e.key20, a)
	if got := e.read(staking, contracts.NativeStaking, "stakedOf", w.addr); got.Sign() != 0 {
		t.Fatalf("still staked %s", got)
	}
}

// Provider staking: a liquid staking token whose rate rises with rewards; the exit converts ETH to the token rounding
// up; validator rebates show in the provider, read from the chain.
func TestProviderStaking(t *testing.T) {
	e := newEnv(t, envOptions{})
	staking, lst := e.addr(contracts.ProviderStake), e.addr(contracts.ProviderLST)
	id := e.yieldID(KindProviderStaking, staking.Hex(), "ETH")
	if id != "sigil-dev-eth-sigil-validators-staking" {
		t.Fatalf("provider staking id %s", id)
	}
	var y yieldDTO
	e.mustCall(e.key10, "GET", "/v1/yields/"+id, nil, 200, &y)
	if !y.Mechanics.PossibleFeeTakingMechanisms.ValidatorRebates || !y.Metadata.PossibleFeeTakingMechanisms.ValidatorRebates ||
		y.Mechanics.CooldownPeriod == nil || y.Mechanics.CooldownPeriod.Seconds != int64(contracts.DefaultStakingCooldown/time.Second) {
		t.Fatalf("provider staking mechanics %+v", y.Mechanics)
	}
	w := e.newWallet("10", nil)
	if got := e.balances(e.key10, id, w.addr); len(got) != 0 {
		t.Fatalf("balances before staking: %+v", got)
	}
	a := w.act(e.key10, "enter", id, map[string]any{"amount": "6"})
	// stake()
	if u := unsigned(t, a.Transactions[0]); u.To != staking.Hex() || u.Data != "0x3a4b66f1" {
		t.Fatalf("stake %+v", u)
	}
	w.execute(e.key10, a)
	e.step(24 * time.Hour)

	held := e.read(lst, contracts.LiquidStakingToken, "balanceOf", w.addr)
	worth := e.read(staking, contracts.ProviderStaking, "convertToEther", held)
	active := e.balances(e.key10, id, w.addr)["active"]
	if active.AmountRaw != worth.String() || *active.ShareAmountRaw != held.String() || worth.Cmp(baseUnits("6", 18)) <= 0 {
		t.Fatalf("active %+v, want %s for %s shares", active, worth, held)
	}

	a = w.act(e.key10, "exit", id, map[string]any{"amount": "2"})
	w.execute(e.key10, a)
	pending, err := contracts.MustLoad(contracts.ProviderStaking).Call(context.Background(), e.eth, staking, "pendingUnstakeOf", w.addr)
	if err != nil {
		t.Fatal(err)
	}
	locked := pending[0].(*big.Int)
	if locked.Cmp(baseUnits("2", 18)) < 0 || locked.Cmp(new(big.Int).Add(baseUnits("2", 18), big.NewInt(2))) > 0 {
		t.Fatalf("unstake locked %s, want 2 ETH (rounded up by at most a wei)", locked)
	}
	if ex := e.balances(e.key10, id, w.addr)["exiting"]; ex.AmountRaw != locked.String() {
		t.Fatalf("exiting %+v", ex)
	}
	if err := e.chain.AdvanceTime(contracts.DefaultStakingCooldown + time.Minute); err != nil {
		t.Fatal(err)
	}
	wd := e.balances(e.key10, id, w.addr)["withdrawable"]
	var m actionDTO
	e.mustCall(e.key10, "POST", "/v1/actions/manage", map[string]any{"yieldId": id, "address": w.addr.Hex(), "action": "WITHDRAW",
		"passthrough": wd.PendingActions[0].Passthrough}, 201, &m)
	receipts, paid := w.executeForEther(e.key10, m)
	withdrawn := e.event(receipts[0], staking, contracts.ProviderStaking, "Withdrawn")[0].(*big.Int)
	if withdrawn.Cmp(locked) != 0 || paid.Cmp(locked) != 0 {
		t.Fatalf("withdrew %s of the %s unstaked, the wallet received %s net of gas", withdrawn, locked, paid)
	}

	// The provider's revenue share and the integrator's accrued fees, as the contract has them.
	var providers page[providerDTO]
	e.mustCall(e.key10, "GET", "/v1/providers", nil, 200, &providers)
	var p *providerDTO
	for i := range providers.Items {
		if providers.Items[i].ID == "sigil-validators" {
			p = &providers.Items[i]
		}
	}
	if providers.Total != 5 || providers.Offset != 0 || providers.Limit != 20 {
		t.Fatalf("providers page %d/%d/%d", providers.Total, providers.Offset, providers.Limit)
	}
	if p == nil || p.Type != "validator_provider" || p.RevShare == nil || p.RevShare.Standard.MinRevShare != 0.5 ||
		p.RevShare.Standard.MaxRevShare != 0.85 || p.RevenueShare == nil || *p.RevenueShare != 0.7 || len(p.IntegratorFeesOwed) != 1 {
		t.Fatalf("provider %+v", p)
	}
	owed := e.read(staking, contracts.ProviderStaking, "feesOwed", e.chain.DevAccount())
	if got := p.IntegratorFeesOwed[0]; got.AmountRaw != owed.String() || owed.Sign() == 0 {
		t.Fatalf("integrator fees %+v, chain says %s", got, owed)
	}

	// Staking one wei now mints no token: the simulation catches the revert and nothing is handed out.
	r := e.call(e.key10, "POST", "/v1/actions/enter", map[string]any{"yieldId": id, "address": w.addr.Hex(),
		"arguments": map[string]any{"amount": "0.000000000000000001"}})
	if r.status != 400 || !strings.Contains(string(r.body), "would fail on chain") || !strings.Contains(string(r.body), "ZeroAmount") {
		t.Fatalf("reverting stake: %d %s", r.status, r.body)
	}
}
