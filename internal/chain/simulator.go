package chain

import (
	"context"
	"fmt"
	"math/big"
	"slices"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/sigil/sigil/internal/abis"
	"github.com/sigil/sigil/internal/contracts"
)

// SimulatorConfig sets the yield the simulator pays, as annual rates in basis points, and how
// often it runs. Zero rates take the defaults; a negative rate turns that source off.
//
// Every rate is published on chain when the fixtures are deployed: each plain vault's accrualRate
// and each allocator vault's incentiveRate (annual, 10^18 = 100%), each lending reserve's
// liquidity rate (getReserveData's currentLiquidityRate, a ray) and each staking contract's
// rewardRateBps. From then on the simulator pays what the contracts publish, so SetVaultRate,
// SetLendingRate and SetStakingRate (or the owner calling the contracts' setters) change what is
// paid, and the rate fields only matter for a new deployment.
type SimulatorConfig struct {
	// Period between automatic steps; 0 runs no automatic step (Step still works).
	Period time.Duration

	VaultAPRBps     int64 // interest minted into the plain ERC-4626 vaults; default 500 (5%)
	LendingAPRBps   int64 // liquidity rate published by both lending reserves; default 400
	StakingAPRBps   int64 // reward rate published by both staking contracts; default 350
	IncentiveAPRBps int64 // incentive tokens given to the allocator vaults (sold on harvest); default 200
	// SwapTradeBps is the largest trade a step makes in each Uniswap pool, in basis points of its depth, to keep the
	// prices moving (simulator_swaps.go); default 30; negative: no trades.
	SwapTradeBps int64

	// PriceWalkBps, if positive, moves WETH's oracle price at each step by a random 1 to PriceWalkBps basis points, up
	// or down (oracle_sim.go): a market that moves by itself, so positions drift toward liquidation as on a live
	// network. 0 (the default) leaves prices where SetPrice puts them.
	PriceWalkBps int64
}

func (c SimulatorConfig) withDefaults() SimulatorConfig {
	set := func(v *int64, def int64) {
		if *v == 0 {
			*v = def
		}
	}
	set(&c.VaultAPRBps, 500)
	set(&c.LendingAPRBps, 400)
	set(&c.StakingAPRBps, 350)
	set(&c.IncentiveAPRBps, 200)
	set(&c.SwapTradeBps, defaultSwapTradeBps)
	return c
}

// Simulator makes yield happen on the dev chain. Each step pays, for the chain time elapsed since
// the previous step, rate × balance × elapsed / year to every yield source: the asset minted into
// the plain vaults, interest into the lending market, ether rewards to both staking contracts,
// incentive tokens to the allocator vaults, which are then harvested. Share prices, receipt
// balances and rewards therefore move the way APYs say they should. Lending and staking are paid
// at the rate their contracts publish at the time of the step (for the whole elapsed time).
type Simulator struct {
	client    *ethclient.Client
	sender    *Account
	addresses contracts.Addresses
	cfg       SimulatorConfig

	mu       sync.Mutex
	lastTime uint64 // chain time of the last step
}

// StepReport tells what one step paid.
type StepReport struct {
	// Elapsed is the chain time the step paid for.
	Elapsed time.Duration
	// Paid maps a fixture name to what it received, in base units of what was paid: the vault's
	// asset, the lending reserve's asset, wei for staking, incentive tokens for allocator vaults,
	// and for a Uniswap pool the input of the trade the step made in it.
	Paid map[string]*big.Int
	// Prices maps an asset's fixture name to the USD price (8 decimals) the step's price walk set.
	Prices map[string]*big.Int
}

// NewSimulator returns a simulator that pays from sender, the owner of the fixtures. Its first
// step pays for the time since now (the latest block).
func NewSimulator(client *ethclient.Client, sender *Account, addresses contracts.Addresses, cfg SimulatorConfig) (*Simulator, error) {
	head, err := client.HeaderByNumber(context.Background(), nil)
	if err != nil {
		return nil, fmt.Errorf("chain: simulator: read latest block: %w", err)
	}
	return &Simulator{client: client, sender: sender, addresses: addresses, cfg: cfg.withDefaults(), lastTime: head.Time}, nil
}

const secondsPerYear = 365 * 24 * 3600

// Step pays the yield for the chain time elapsed since the previous step. Steps never overlap.
func (s *Simulator) Step(ctx context.Context) (StepReport, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	head, err := s.client.HeaderByNumber(ctx, nil)
	if err != nil {
		return StepReport{}, fmt.Errorf("chain: simulator: read latest block: %w", err)
	}
	report := StepReport{Paid: map[string]*big.Int{}, Prices: map[string]*big.Int{}}
	if head.Time <= s.lastTime {
		return report, nil
	}
	elapsed := head.Time - s.lastTime
	report.Elapsed = time.Duration(elapsed) * time.Second
	st := &step{s: s, ctx: ctx, elapsed: new(big.Int).SetUint64(elapsed), report: report, seed: head.Time}
	for _, pay := range []func(){st.vaults, st.lending, st.staking, st.allocators, st.priceWalk,
		st.swapPools, // simulator_swaps.go
	} {
		pay()
		if st.err != nil {
			return report, fmt.Errorf("chain: simulator: %w", st.err)
		}
	}
	s.lastTime = head.Time
	return report, nil
}

// step is one simulator step; it keeps the first error so the payments read as a list.
type step struct {
	s       *Simulator
	ctx     context.Context
	elapsed *big.Int
	report  StepReport
	seed    uint64 // of the step's randomness: the chain time it runs at
	err     error
}

// accrual is base × rate × elapsed / (scale × year), rounded down, for an annual rate given in
// units of scale (10^4 for basis points, wad for 10^18, ray for 10^27).
func (st *step) accrual(base, rate, scale *big.Int) *big.Int {
	if rate.Sign() <= 0 || base.Sign() <= 0 {
		return new(big.Int)
	}
	n := new(big.Int).Mul(base, rate)
	n.Mul(n, st.elapsed)
	return n.Div(n, new(big.Int).Mul(scale, big.NewInt(secondsPerYear)))
}

func (st *step) read(fixture, method string, args ...any) *big.Int {
	if st.err != nil {
		return new(big.Int)
	}
	v, err := readUint(st.ctx, st.s.client, st.s.addresses, fixture, method, args...)
	if err != nil {
		st.err = err
		return new(big.Int)
	}
	return v
}

func (st *step) send(fixture string, value *big.Int, method string, args ...any) {
	if st.err != nil {
		return
	}
	st.err = sendTo(st.ctx, st.s.sender, st.s.addresses, fixture, value, method, args...)
}

// liquidityRate reads the current liquidity rate (a ray) a lending reserve publishes.
func (st *step) liquidityRate(asset string) *big.Int {
	if st.err != nil {
		return new(big.Int)
	}
	d, err := reserveData(st.ctx, st.s.client, st.s.addresses, asset)
	if err != nil {
		st.err = err
		return new(big.Int)
	}
	return d.CurrentLiquidityRate
}

// giveToken puts amount of a token fixture in holder: minted for test tokens, wrapped for WETH.
func (st *step) giveToken(token string, holder common.Address, amount *big.Int) {
	if token == contracts.WETH {
		st.send(contracts.WETH, amount, "deposit")
		st.send(contracts.WETH, nil, "transfer", holder, amount)
		return
	}
	st.send(token, nil, "mint", holder, amount)
}

func (st *step) vaults() {
	for _, vault := range plainVaults {
		interest := st.accrual(st.read(vault, "totalAssets"), st.read(vault, "accrualRate"), wad)
		if interest.Sign() == 0 {
			continue
		}
		f, _ := contracts.FixtureNamed(vault)
		st.giveToken(f.Asset, st.s.addresses[vault], interest)
		st.report.Paid[vault] = interest
	}
}

func (st *step) lending() {
	for _, receipt := range []string{contracts.LendingAUSDC, contracts.LendingAUSDT} {
		f, _ := contracts.FixtureNamed(receipt)
		interest := st.accrual(st.read(receipt, "totalSupply"), st.liquidityRate(f.Asset), ray)
		if interest.Sign() == 0 {
			continue
		}
		st.giveToken(f.Asset, st.s.addresses[contracts.Lending], interest)
		st.send(contracts.Lending, nil, "accrueInterest", st.s.addresses[f.Asset])
		st.report.Paid[receipt] = interest
	}
}

func (st *step) staking() {
	for fixture, base := range map[string]string{
		contracts.Staking:       "totalStaked",
		contracts.ProviderStake: "totalPooledEther",
	} {
		rewards := st.accrual(st.read(fixture, base), st.read(fixture, "rewardRateBps"), bps)
		if rewards.Sign() == 0 {
			continue
		}
		st.send(fixture, rewards, "distributeRewards")
		st.report.Paid[fixture] = rewards
	}
}

// allocators gives each allocator vault incentive tokens worth the incentive rate it publishes at
// the pool's price, then harvests it (sell, reinvest, accrue fees).
func (st *step) allocators() {
	incentiveReserve := st.read(contracts.Pool, "reserve0")
	usdcReserve := st.read(contracts.Pool, "reserve1")
	for _, vault := range allocatorVaults {
		assets := st.read(vault, "totalAssets")
		if assets.Sign() == 0 || usdcReserve.Sign() == 0 {
			continue
		}
		worth := st.accrual(assets, st.read(vault, "incentiveRate"), wad)
		incentives := new(big.Int).Div(new(big.Int).Mul(worth, incentiveReserve), usdcReserve)
		minOut := new(big.Int)
		if incentives.Sign() > 0 {
			st.send(contracts.Incentive, nil, "mint", st.s.addresses[vault], incentives)
			st.report.Paid[vault] = incentives
			// Accept up to 1% less than the quote, in case someone else traded in between.
			held := st.read(contracts.Incentive, "balanceOf", st.s.addresses[vault])
			quote := st.read(contracts.Pool, "getAmountOut", st.s.addresses[contracts.Incentive], held)
			minOut.Div(new(big.Int).Mul(quote, big.NewInt(99)), big.NewInt(100))
		}
		st.send(vault, nil, "harvest", minOut)
	}
}

// The scales of annual rates: basis points (the staking contracts'), wad (10^18, the vaults') and
// ray (10^27, Aave's rates and indexes).
var (
	bps = big.NewInt(10_000)
	wad = new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil)
	ray = new(big.Int).Exp(big.NewInt(10), big.NewInt(27), nil)
)

// plainVaults are the fixtures paid at the accrual rate they publish; allocatorVaults are paid
// incentives at theirs.
var (
	plainVaults     = []string{contracts.VaultUSDC, contracts.VaultDAI, contracts.VaultWETH}
	allocatorVaults = []string{contracts.OAV10USDC, contracts.OAV20USDC}
)

// lendingReserves are the lending pool's listed assets (fixture names).
var lendingReserves = []string{contracts.USDC, contracts.USDT}

// stakingContracts are the fixtures that publish a reward rate.
var stakingContracts = []string{contracts.Staking, contracts.ProviderStake}

// SetLendingRate publishes rateRay (Aave's currentLiquidityRate: an annual rate in ray, 10^27 =
// 100%) as the liquidity rate of the lending reserve of asset (USDC or USDT); later steps pay it.
func (s *Simulator) SetLendingRate(ctx context.Context, asset string, rateRay *big.Int) error {
	if !slices.Contains(lendingReserves, asset) {
		return fmt.Errorf("chain: simulator: %q is not a lending reserve (%v)", asset, lendingReserves)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return sendTo(ctx, s.sender, s.addresses, contracts.Lending, nil, "setLiquidityRate", s.addresses[asset], rateRay)
}

// SetStakingRate publishes rateBps (an annual rate in basis points) as the reward rate of a
// staking contract (contracts.Staking or contracts.ProviderStake; the provider's is before its
// validator fee); later steps pay it.
func (s *Simulator) SetStakingRate(ctx context.Context, fixture string, rateBps int64) error {
	if !slices.Contains(stakingContracts, fixture) {
		return fmt.Errorf("chain: simulator: %q is not a staking contract (%v)", fixture, stakingContracts)
	}
	if rateBps < 0 {
		return fmt.Errorf("chain: simulator: negative reward rate %d", rateBps)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return sendTo(ctx, s.sender, s.addresses, fixture, nil, "setRewardRate", big.NewInt(rateBps))
}

// SetVaultRate publishes rateWad (an annual rate, 10^18 = 100%) as a plain vault's accrual rate
// or an allocator vault's incentive rate; later steps pay it.
func (s *Simulator) SetVaultRate(ctx context.Context, fixture string, rateWad *big.Int) error {
	if rateWad.Sign() < 0 {
		return fmt.Errorf("chain: simulator: negative rate %s", rateWad)
	}
	var method string
	switch {
	case slices.Contains(allocatorVaults, fixture):
		method = "setIncentiveRate"
	case slices.Contains(plainVaults, fixture):
		method = "setAccrualRate"
	default:
		return fmt.Errorf("chain: simulator: %s is not a vault the simulator pays", fixture)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return sendTo(ctx, s.sender, s.addresses, fixture, nil, method, rateWad)
}

// publishRates sets the configured rates on freshly deployed fixtures (a negative rate publishes
// 0: that source pays nothing).
func publishRates(ctx context.Context, sender *Account, addresses contracts.Addresses, cfg SimulatorConfig) error {
	cfg = cfg.withDefaults()
	bpsToWad := func(rateBps int64) *big.Int {
		return new(big.Int).Mul(big.NewInt(max(rateBps, 0)), new(big.Int).Div(wad, bps))
	}
	for _, vault := range plainVaults {
		if err := sendTo(ctx, sender, addresses, vault, nil, "setAccrualRate", bpsToWad(cfg.VaultAPRBps)); err != nil {
			return err
		}
	}
	for _, vault := range allocatorVaults {
		if err := sendTo(ctx, sender, addresses, vault, nil, "setIncentiveRate", bpsToWad(cfg.IncentiveAPRBps)); err != nil {
			return err
		}
	}
	lending := new(big.Int).Mul(big.NewInt(max(cfg.LendingAPRBps, 0)), new(big.Int).Div(ray, big.NewInt(10_000)))
	for _, asset := range lendingReserves {
		if err := sendTo(ctx, sender, addresses, contracts.Lending, nil, "setLiquidityRate", addresses[asset], lending); err != nil {
			return err
		}
	}
	for _, fixture := range stakingContracts {
		if err := sendTo(ctx, sender, addresses, fixture, nil, "setRewardRate", big.NewInt(max(cfg.StakingAPRBps, 0))); err != nil {
			return err
		}
	}
	return nil
}

func sendTo(ctx context.Context, sender *Account, addresses contracts.Addresses, fixture string, value *big.Int, method string, args ...any) error {
	f, _ := contracts.FixtureNamed(fixture)
	data, err := contracts.MustLoad(f.Artifact).Pack(method, args...)
	if err != nil {
		return err
	}
	to := addresses[fixture]
	if _, err := sender.Transact(ctx, &to, value, data); err != nil {
		return fmt.Errorf("%s.%s: %w", fixture, method, err)
	}
	return nil
}

func readUint(ctx context.Context, client *ethclient.Client, addresses contracts.Addresses, fixture, method string, args ...any) (*big.Int, error) {
	f, _ := contracts.FixtureNamed(fixture)
	out, err := contracts.MustLoad(f.Artifact).Call(ctx, client, addresses[fixture], method, args...)
	if err != nil {
		return nil, err
	}
	v, _ := out[0].(*big.Int)
	if v == nil {
		return nil, fmt.Errorf("%s.%s returned no number", fixture, method)
	}
	return v, nil
}

// reserveData reads the lending pool's getReserveData of an asset fixture.
func reserveData(ctx context.Context, client *ethclient.Client, addresses contracts.Addresses, asset string) (abis.ReserveData, error) {
	out, err := contracts.MustLoad(contracts.LendingPool).Call(ctx, client, addresses[contracts.Lending], "getReserveData", addresses[asset])
	if err != nil {
		return abis.ReserveData{}, err
	}
	return abis.AsReserveData(out[0])
}
