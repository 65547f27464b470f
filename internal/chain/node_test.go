package chain

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/sigil/sigil/internal/contracts"
	"github.com/sigil/sigil/internal/units"
)

// shared is one dev chain used by every test that does not need its own: starting and deploying
// costs about a second.
var shared *Node

func TestMain(m *testing.M) {
	if dir := os.Getenv(childDirEnv); dir != "" {
		runKilledChild(dir) // never returns: the parent test kills this process
	}
	code := m.Run()
	if shared != nil {
		shared.Close()
	}
	os.Exit(code)
}

var quietLog = slog.New(slog.NewTextHandler(io.Discard, nil))

func sharedNode(t testing.TB) *Node {
	t.Helper()
	if shared == nil {
		// Ephemeral (no data directory); TestRestartKeepsBalancesAndContracts covers persistence.
		n, err := Start(context.Background(), Config{ListenAddr: "127.0.0.1:0", Logger: quietLog})
		if err != nil {
			t.Fatalf("start dev chain: %v", err)
		}
		shared = n
	}
	return shared
}

// user is a fresh key funded by the faucet, sending through the node's HTTP JSON-RPC.
type user struct {
	*Account
	key *ecdsa.PrivateKey
}

func newUser(t *testing.T, n *Node, client *ethclient.Client, eth string, tokens map[string]string) *user {
	t.Helper()
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	u := &user{Account: NewAccount(client, key, n.ChainID()), key: key}
	if _, err := n.Faucet().FundUnits(t.Context(), FundRequest{Address: u.Address().Hex(), ETH: eth, Tokens: tokens}); err != nil {
		t.Fatalf("fund user: %v", err)
	}
	return u
}

func (u *user) call(t *testing.T, n *Node, fixture string, value *big.Int, method string, args ...any) {
	t.Helper()
	f, _ := contracts.FixtureNamed(fixture)
	data, err := contracts.MustLoad(f.Artifact).Pack(method, args...)
	if err != nil {
		t.Fatal(err)
	}
	to := n.Contracts()[fixture]
	if _, err := u.Transact(t.Context(), &to, value, data); err != nil {
		t.Fatalf("%s.%s: %v", fixture, method, err)
	}
}

func read(t *testing.T, n *Node, fixture, method string, args ...any) *big.Int {
	t.Helper()
	f, _ := contracts.FixtureNamed(fixture)
	out, err := contracts.MustLoad(f.Artifact).Call(t.Context(), n.Client(), n.Contracts()[fixture], method, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out[0].(*big.Int)
}

func dialHTTP(t *testing.T, n *Node) *ethclient.Client {
	t.Helper()
	client, err := ethclient.Dial(n.RPCURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)
	return client
}

func TestNodeServesJSONRPCWithTheFixtures(t *testing.T) {
	n := sharedNode(t)
	client := dialHTTP(t, n)
	id, err := client.ChainID(t.Context())
	if err != nil {
		t.Fatalf("eth_chainId over HTTP: %v", err)
	}
	if id.Int64() != DefaultChainID {
		t.Fatalf("chain id %s, want %d", id, DefaultChainID)
	}
	if err := contracts.Verify(t.Context(), client, n.Contracts()); err != nil {
		t.Fatal(err)
	}
	b := n.Bootstrap()
	if b.NetworkID != "sigil-dev" || b.ChainID != DefaultChainID || b.RPCURL != n.RPCURL() || b.FaucetURL != n.RPCURL()+"faucet" {
		t.Fatalf("bootstrap = %+v", b)
	}
	if len(b.Contracts) != len(contracts.Fixtures) || b.Contracts[contracts.OAV10USDC] != n.Contracts()[contracts.OAV10USDC].Hex() {
		t.Fatalf("bootstrap contracts = %v", b.Contracts)
	}
	// A transaction from a new account through HTTP is mined and visible.
	u := newUser(t, n, client, "1", nil)
	to := common.HexToAddress("0x000000000000000000000000000000000000dEaD")
	if _, err := u.Transact(t.Context(), &to, big.NewInt(12345), nil); err != nil {
		t.Fatal(err)
	}
	got, err := client.BalanceAt(t.Context(), to, nil)
	if err != nil || got.Cmp(big.NewInt(12345)) < 0 {
		t.Fatalf("balance of recipient = %v, %v", got, err)
	}
	// eth_getLogs works without the log index: the pool's seeding emitted LiquidityAdded.
	pool := contracts.MustLoad(contracts.ConstantProductPool).ABI
	logs, err := client.FilterLogs(t.Context(), ethereum.FilterQuery{
		FromBlock: big.NewInt(0),
		Addresses: []common.Address{n.Contracts()[contracts.Pool]},
		Topics:    [][]common.Hash{{pool.Events["LiquidityAdded"].ID}},
	})
	if err != nil || len(logs) == 0 {
		t.Fatalf("eth_getLogs for LiquidityAdded: %d logs, %v", len(logs), err)
	}
}

func TestSimulatorStepPaysYield(t *testing.T) {
	n := sharedNode(t)
	client := n.Client()
	u := newUser(t, n, client, "50", map[string]string{"USDC": "20000", "USDT": "5000"})
	addr := n.Contracts()
	u.call(t, n, contracts.USDC, nil, "approve", addr[contracts.VaultUSDC], maxUint256)
	u.call(t, n, contracts.VaultUSDC, nil, "deposit", tokens(10_000, 6), u.Address())
	u.call(t, n, contracts.USDC, nil, "approve", addr[contracts.OAV20USDC], maxUint256)
	u.call(t, n, contracts.OAV20USDC, nil, "deposit", tokens(5_000, 6), u.Address())
	u.call(t, n, contracts.USDT, nil, "approve", addr[contracts.Lending], maxUint256)
	u.call(t, n, contracts.Lending, nil, "supply", addr[contracts.USDT], tokens(5_000, 6), u.Address(), uint16(0))
	u.call(t, n, contracts.Staking, tokens(10, 18), "stake")

	sim := n.Simulator()
	if _, err := sim.Step(t.Context()); err != nil { // pays up to now, so the next step covers exactly the jump
		t.Fatal(err)
	}
	vaultAssets := read(t, n, contracts.VaultUSDC, "totalAssets")
	aUSDT := read(t, n, contracts.LendingAUSDT, "balanceOf", u.Address())
	staked := read(t, n, contracts.Staking, "totalStaked")
	oavAssets := read(t, n, contracts.OAV20USDC, "totalAssets")
	claimable := read(t, n, contracts.Staking, "claimableRewards", u.Address())

	if err := n.AdvanceTime(30 * 24 * time.Hour); err != nil {
		t.Fatal(err)
	}
	report, err := sim.Step(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if report.Elapsed < 30*24*time.Hour {
		t.Fatalf("step paid for %s, want at least 30 days", report.Elapsed)
	}
	elapsed := big.NewInt(int64(report.Elapsed / time.Second))
	want := func(base *big.Int, bps int64) *big.Int {
		v := new(big.Int).Mul(base, big.NewInt(bps))
		v.Mul(v, elapsed)
		return v.Div(v, big.NewInt(10_000*secondsPerYear))
	}
	wantEq(t, "vault interest paid", report.Paid[contracts.VaultUSDC], want(vaultAssets, 500))
	// The vault also receives what the allocator vaults reinvest on harvest, hence at least.
	if got := read(t, n, contracts.VaultUSDC, "totalAssets"); got.Cmp(add(vaultAssets, report.Paid[contracts.VaultUSDC])) < 0 {
		t.Fatalf("vault assets %s, want at least %s + %s", got, vaultAssets, report.Paid[contracts.VaultUSDC])
	}
	// The only USDT supplier gets all the interest (less one unit of index rounding at most).
	gotInterest := sub(read(t, n, contracts.LendingAUSDT, "balanceOf", u.Address()), aUSDT)
	if d := sub(report.Paid[contracts.LendingAUSDT], gotInterest); d.Sign() < 0 || d.Cmp(big.NewInt(1)) > 0 {
		t.Fatalf("supplier earned %s, simulator paid %s", gotInterest, report.Paid[contracts.LendingAUSDT])
	}
	wantEq(t, "staking rewards paid", report.Paid[contracts.Staking], want(staked, 350))
	if got := sub(read(t, n, contracts.Staking, "claimableRewards", u.Address()), claimable); got.Sign() <= 0 {
		t.Fatalf("staker's claimable rewards did not grow")
	}
	if report.Paid[contracts.OAV20USDC] == nil || read(t, n, contracts.OAV20USDC, "totalAssets").Cmp(oavAssets) <= 0 {
		t.Fatalf("allocator vault did not grow: paid %v incentives", report.Paid[contracts.OAV20USDC])
	}
	wantEq(t, "incentives left unsold", read(t, n, contracts.Incentive, "balanceOf", addr[contracts.OAV20USDC]), new(big.Int))

	// A second step right away pays (almost) nothing: steps pay for elapsed time only.
	again, err := sim.Step(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if again.Elapsed > time.Minute {
		t.Fatalf("second step paid for %s", again.Elapsed)
	}
}

// The vault, lending and staking rates are published on chain (the configured ones at deployment)
// and the simulator pays what the contracts publish, also after the owner changes it.
func TestSimulatorPaysThePublishedRates(t *testing.T) {
	n := sharedNode(t)
	addr := n.Contracts()
	bpsRay := new(big.Int).Div(ray, big.NewInt(10_000))
	liquidityRate := func(asset string) *big.Int {
		t.Helper()
		d, err := reserveData(t.Context(), n.Client(), addr, asset)
		if err != nil {
			t.Fatal(err)
		}
		return d.CurrentLiquidityRate
	}
	for _, asset := range []string{contracts.USDC, contracts.USDT} {
		wantEq(t, asset+" liquidity rate", liquidityRate(asset), new(big.Int).Mul(big.NewInt(400), bpsRay))
	}
	for _, fixture := range []string{contracts.Staking, contracts.ProviderStake} {
		wantEq(t, fixture+" reward rate", read(t, n, fixture, "rewardRateBps"), big.NewInt(350))
	}
	bpsWad := new(big.Int).Div(wad, bps)
	for _, vault := range plainVaults {
		wantEq(t, vault+" accrual rate", read(t, n, vault, "accrualRate"), new(big.Int).Mul(big.NewInt(500), bpsWad))
	}
	for _, vault := range allocatorVaults {
		wantEq(t, vault+" incentive rate", read(t, n, vault, "incentiveRate"), new(big.Int).Mul(big.NewInt(200), bpsWad))
	}

	u := newUser(t, n, n.Client(), "50", map[string]string{"USDC": "10000", "DAI": "3000"})
	u.call(t, n, contracts.USDC, nil, "approve", addr[contracts.Lending], maxUint256)
	u.call(t, n, contracts.Lending, nil, "supply", addr[contracts.USDC], tokens(8_000, 6), u.Address(), uint16(0))
	u.call(t, n, contracts.ProviderStake, tokens(20, 18), "stake")
	u.call(t, n, contracts.DAI, nil, "approve", addr[contracts.VaultDAI], maxUint256)
	u.call(t, n, contracts.VaultDAI, nil, "deposit", tokens(3_000, 18), u.Address())

	sim := n.Simulator()
	rate := new(big.Int).Mul(big.NewInt(987_654_321), big.NewInt(1e17))    // 9.87654321% a year
	vaultRate := new(big.Int).Mul(big.NewInt(1_234_567), big.NewInt(1e11)) // 12.34567% a year
	t.Cleanup(func() {
		ctx := context.Background()
		if err := sim.SetLendingRate(ctx, contracts.USDC, new(big.Int).Mul(big.NewInt(400), bpsRay)); err != nil {
			t.Error(err)
		}
		if err := sim.SetStakingRate(ctx, contracts.ProviderStake, 350); err != nil {
			t.Error(err)
		}
		if err := sim.SetVaultRate(ctx, contracts.VaultDAI, new(big.Int).Mul(big.NewInt(500), bpsWad)); err != nil {
			t.Error(err)
		}
	})
	if err := sim.SetVaultRate(t.Context(), contracts.VaultDAI, vaultRate); err != nil {
		t.Fatal(err)
	}
	if err := sim.SetVaultRate(t.Context(), contracts.Staking, vaultRate); err == nil {
		t.Fatal("SetVaultRate accepted a staking contract")
	}
	if err := sim.SetVaultRate(t.Context(), contracts.VaultDAI, big.NewInt(-1)); err == nil {
		t.Fatal("SetVaultRate accepted a negative rate")
	}
	wantEq(t, "published accrual rate", read(t, n, contracts.VaultDAI, "accrualRate"), vaultRate)
	if err := sim.SetLendingRate(t.Context(), contracts.USDC, rate); err != nil {
		t.Fatal(err)
	}
	if err := sim.SetStakingRate(t.Context(), contracts.ProviderStake, 725); err != nil {
		t.Fatal(err)
	}
	if err := sim.SetStakingRate(t.Context(), contracts.USDC, 1); err == nil {
		t.Fatal("SetStakingRate accepted a token")
	}
	wantEq(t, "published liquidity rate", liquidityRate(contracts.USDC), rate)
	wantEq(t, "published reward rate", read(t, n, contracts.ProviderStake, "rewardRateBps"), big.NewInt(725))

	if _, err := sim.Step(t.Context()); err != nil {
		t.Fatal(err)
	}
	supplied := read(t, n, contracts.LendingAUSDC, "totalSupply")
	pooled := read(t, n, contracts.ProviderStake, "totalPooledEther")
	vaultAssets := read(t, n, contracts.VaultDAI, "totalAssets")
	if err := n.AdvanceTime(10 * 24 * time.Hour); err != nil {
		t.Fatal(err)
	}
	report, err := sim.Step(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	elapsed := big.NewInt(int64(report.Elapsed / time.Second))
	interest := new(big.Int).Mul(supplied, rate)
	interest.Mul(interest, elapsed).Div(interest, new(big.Int).Mul(ray, big.NewInt(secondsPerYear)))
	wantEq(t, "lending interest paid", report.Paid[contracts.LendingAUSDC], interest)
	rewards := new(big.Int).Mul(pooled, big.NewInt(725))
	rewards.Mul(rewards, elapsed).Div(rewards, big.NewInt(10_000*secondsPerYear))
	wantEq(t, "provider staking rewards paid", report.Paid[contracts.ProviderStake], rewards)
	vaultInterest := new(big.Int).Mul(vaultAssets, vaultRate)
	vaultInterest.Mul(vaultInterest, elapsed).Div(vaultInterest, new(big.Int).Mul(wad, big.NewInt(secondsPerYear)))
	wantEq(t, "vault interest paid", report.Paid[contracts.VaultDAI], vaultInterest)
}

func TestRestartKeepsBalancesAndContracts(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{DataDir: dir, ListenAddr: "127.0.0.1:0", Logger: quietLog}
	first, err := Start(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	holder := common.HexToAddress("0x00000000000000000000000000000000000b0b00")
	if _, err := first.Faucet().FundUnits(t.Context(), FundRequest{Address: holder.Hex(), ETH: "2.5", Tokens: map[string]string{"DAI": "42.000000000000000001"}}); err != nil {
		t.Fatal(err)
	}
	addresses, dev := first.Contracts(), first.DevAccount()
	devNonce, err := first.Client().NonceAt(t.Context(), dev, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}

	cfg.BlockPeriod = 50 * time.Millisecond
	second, err := Start(t.Context(), cfg)
	if err != nil {
		t.Fatalf("restart: %v", err)
	}
	defer second.Close()
	if second.DevAccount() != dev {
		t.Fatalf("dev account changed from %s to %s", dev, second.DevAccount())
	}
	for name, addr := range addresses {
		if second.Contracts()[name] != addr {
			t.Fatalf("%s moved from %s to %s", name, addr, second.Contracts()[name])
		}
	}
	if nonce, _ := second.Client().NonceAt(t.Context(), dev, nil); nonce != devNonce {
		t.Fatalf("dev account nonce %d after restart, was %d: the fixtures were deployed again", nonce, devNonce)
	}
	eth, err := second.Client().BalanceAt(t.Context(), holder, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantEq(t, "ETH after restart", eth, mustUnits(t, "2.5", 18))
	wantEq(t, "DAI after restart", read(t, second, contracts.DAI, "balanceOf", holder), mustUnits(t, "42.000000000000000001", 18))

	// With a block period, blocks keep coming without transactions.
	start, err := second.Client().BlockNumber(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	for {
		if now, _ := second.Client().BlockNumber(ctx); now >= start+2 {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal("no block sealed on the block period")
		case <-time.After(20 * time.Millisecond):
		}
	}

	// Another chain id on the same directory is refused before anything is opened.
	second.Close()
	cfg.ChainID = 31337
	if n, err := Start(t.Context(), cfg); err == nil {
		n.Close()
		t.Fatal("restart with another chain id succeeded")
	}
}

// A data directory whose fixtures were deployed from other artifacts (an older Sigil, whose record
// has no fingerprint) gets the fixtures deployed again, with their rates published, instead of
// running on contracts that lack what the rest of Sigil calls.
func TestRestartRedeploysFixturesOfOtherArtifacts(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{DataDir: dir, ListenAddr: "127.0.0.1:0", Logger: quietLog}
	first, err := Start(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	old := first.Contracts()
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	rec, err := readRecord(dir)
	if err != nil || rec == nil || rec.Artifacts != contracts.Fingerprint() {
		t.Fatalf("deployment record %+v, %v: want the artifacts' fingerprint", rec, err)
	}
	rec.Artifacts = ""
	if err := writeRecord(dir, *rec); err != nil {
		t.Fatal(err)
	}

	second, err := Start(t.Context(), cfg)
	if err != nil {
		t.Fatalf("restart: %v", err)
	}
	defer second.Close()
	for name, addr := range second.Contracts() {
		if old[name] == addr {
			t.Fatalf("%s kept its address %s: the fixtures were not deployed again", name, addr)
		}
	}
	if err := contracts.Verify(t.Context(), second.Client(), second.Contracts()); err != nil {
		t.Fatal(err)
	}
	wantEq(t, "published reward rate", read(t, second, contracts.Staking, "rewardRateBps"), big.NewInt(350))
	if rec, _ := readRecord(dir); rec == nil || rec.Artifacts != contracts.Fingerprint() || rec.Contracts[contracts.Lending] != second.Contracts()[contracts.Lending] {
		t.Fatalf("record after the redeployment: %+v", rec)
	}
}

func TestConfigRefusesNonLoopbackListener(t *testing.T) {
	for _, tc := range []struct {
		addr string
		ok   bool
	}{
		{"127.0.0.1:8545", true},
		{"localhost:0", true},
		{"[::1]:8545", true},
		{"0.0.0.0:8545", false},
		{"192.168.1.5:8545", false},
		{"8545", false},
		{"127.0.0.1:99999", false},
	} {
		_, _, err := Config{ListenAddr: tc.addr}.withDefaults().validate()
		if (err == nil) != tc.ok {
			t.Errorf("listen %q: err = %v, want ok = %v", tc.addr, err, tc.ok)
		}
	}
	if _, _, err := (Config{ListenAddr: "0.0.0.0:8545", AllowNonLoopback: true}).withDefaults().validate(); err != nil {
		t.Errorf("AllowNonLoopback: %v", err)
	}
}

// BenchmarkFirstStart measures a start on an empty data directory: genesis plus the deployment
// of every fixture.
func BenchmarkFirstStart(b *testing.B) {
	for b.Loop() {
		n, err := Start(context.Background(), Config{DataDir: b.TempDir(), ListenAddr: "127.0.0.1:0", Logger: quietLog})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		n.Close()
		b.StartTimer()
	}
}

// BenchmarkRestart measures starting the dev chain on an existing data directory (deployment
// record present) and stopping it.
func BenchmarkRestart(b *testing.B) {
	dir := b.TempDir()
	cfg := Config{DataDir: dir, ListenAddr: "127.0.0.1:0", Logger: quietLog}
	n, err := Start(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	n.Close()
	b.ResetTimer()
	for b.Loop() {
		n, err := Start(context.Background(), cfg)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		n.Close()
		b.StartTimer()
	}
}

var maxUint256 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))

func tokens(whole int64, decimals int) *big.Int {
	return new(big.Int).Mul(big.NewInt(whole), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(decimals)), nil))
}

func mustUnits(t *testing.T, s string, decimals uint8) *big.Int {
	t.Helper()
	v, err := units.Parse(s, decimals)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func add(a, b *big.Int) *big.Int { return new(big.Int).Add(a, b) }
func sub(a, b *big.Int) *big.Int { return new(big.Int).Sub(a, b) }

func wantEq(t *testing.T, what string, got, want *big.Int) {
	t.Helper()
	if got == nil || got.Cmp(want) != 0 {
		t.Fatalf("%s = %v, want %s", what, got, want)
	}
}

// BenchmarkTransact measures one transaction from send to mined (and visible at "latest"), on an
// ephemeral chain and on one with a data directory (one fsync per block).
func BenchmarkTransact(b *testing.B) {
	to := common.HexToAddress("0x000000000000000000000000000000000000bEEF")
	run := func(b *testing.B, n *Node) {
		for b.Loop() {
			if _, err := n.dev.Transact(context.Background(), &to, big.NewInt(1), nil); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("ephemeral", func(b *testing.B) { run(b, sharedNode(b)) })
	b.Run("persistent", func(b *testing.B) {
		n, err := Start(context.Background(), Config{DataDir: b.TempDir(), ListenAddr: "127.0.0.1:0", Logger: quietLog})
		if err != nil {
			b.Fatal(err)
		}
		defer n.Close()
		run(b, n)
	})
}

func TestPeriodicTasksRunUntilClose(t *testing.T) {
	n := newNode(Config{Logger: quietLog})
	calls := make(chan struct{}, 100)
	n.every(time.Millisecond, func(ctx context.Context) error {
		calls <- struct{}{}
		return nil
	})
	for range 3 {
		select {
		case <-calls:
		case <-time.After(10 * time.Second):
			t.Fatal("periodic task did not run")
		}
	}
	n.cancel()
	n.background.Wait() // returns only once the task's goroutine has stopped
	if n.ctx.Err() == nil {
		t.Fatal("context not cancelled")
	}
}

// childDirEnv makes the test binary run a dev chain for TestStateSurvivesAKill instead of tests.
const childDirEnv = "SIGIL_CHAIN_TEST_CHILD_DIR"

var killProbe = common.HexToAddress("0x00000000000000000000000000000000000DEAD1")

func runKilledChild(dir string) {
	n, err := Start(context.Background(), Config{DataDir: dir, ListenAddr: "127.0.0.1:0", Logger: quietLog})
	if err != nil {
		fmt.Println("start:", err)
		os.Exit(1)
	}
	for i := range 5 { // a few blocks after the deployment, like a session of use
		if _, err := n.Faucet().FundUnits(context.Background(), FundRequest{Address: killProbe.Hex(), ETH: "1", Tokens: map[string]string{"USDC": strconv.Itoa(i + 1)}}); err != nil {
			fmt.Println("fund:", err)
			os.Exit(1)
		}
	}
	// A receipt is visible as soon as its block is sealed, a moment before the block is synced to disk; advancing
	// the time returns only once every block before it is on disk.
	if err := n.AdvanceTime(time.Second); err != nil {
		fmt.Println("advance:", err)
		os.Exit(1)
	}
	fmt.Println("funded")
	select {}
}

// TestStateSurvivesAKill kills a process running the dev chain without letting it close, then
// starts the chain again on its directory: what was mined before the kill is still there.
func TestStateSurvivesAKill(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childDirEnv+"="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if strings.TrimSpace(line) != "funded" {
		t.Fatalf("child dev chain: %q", line)
	}
	rec, err := readRecord(dir)
	if err != nil || rec == nil {
		t.Fatalf("deployment record after the kill: %v, %v", rec, err)
	}

	n, err := Start(t.Context(), Config{DataDir: dir, ListenAddr: "127.0.0.1:0", Logger: quietLog})
	if err != nil {
		t.Fatalf("start after a kill: %v", err)
	}
	defer n.Close()
	for name, addr := range rec.Contracts {
		if n.Contracts()[name] != addr {
			t.Fatalf("%s redeployed after the kill: %s, was %s", name, n.Contracts()[name], addr)
		}
	}
	eth, err := n.Client().BalanceAt(t.Context(), killProbe, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantEq(t, "ETH after the kill", eth, tokens(5, 18))
	wantEq(t, "USDC after the kill", read(t, n, contracts.USDC, "balanceOf", killProbe), tokens(15, 6))
}

func TestCORSOriginsReachJSONRPC(t *testing.T) {
	n, err := Start(t.Context(), Config{ListenAddr: "127.0.0.1:0", CORSOrigins: []string{"http://localhost:3000"}, Logger: quietLog})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	for origin, allowed := range map[string]bool{"http://localhost:3000": true, "https://evil.example": false} {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodOptions, n.RPCURL(), nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "content-type")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get("Access-Control-Allow-Origin") == origin; got != allowed {
			t.Errorf("origin %s: allowed = %v, want %v", origin, got, allowed)
		}
	}
}
