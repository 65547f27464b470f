package contracts

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// Sender sends transactions from one funded account (the deployer, which becomes the owner of the
// fixtures). Transact returns once the transaction is mined; a reverted transaction is an error.
type Sender interface {
	Address() common.Address
	Transact(ctx context.Context, to *common.Address, value *big.Int, data []byte) (*types.Receipt, error)
}

// Addresses maps fixture names (see Fixtures) to deployed addresses.
type Addresses map[string]common.Address

// AllocatorFees is the fee configuration of an AllocatorVault, in basis points.
type AllocatorFees struct {
	DepositFeeBps     *big.Int
	PerformanceFeeBps *big.Int
	ManagementFeeBps  *big.Int
	Recipient         common.Address
}

// Config parameterises the fixtures. Zero fields take the defaults of DefaultConfig.
type Config struct {
	// FeeRecipient receives the allocator vaults' and the fee wrapper's fees and is the integrator
	// of the provider staking's revenue share. Defaults to the deployer.
	FeeRecipient common.Address
	// Provider receives the provider staking's share of its validator fee. Defaults to the deployer.
	Provider common.Address

	OAVDepositFeeBps    int64 // deposit fee of both allocator vault sets; default 50 (0.5%)
	OAVManagementFeeBps int64 // annual management fee of both sets; default 100 (1%)
	FeeWrapperBps       int64 // the fee wrapper's deposit fee; default 50 (0.5%)
	ValidatorFeeBps     int64 // the provider's fee on staking rewards; default 1000 (10%)
	RevenueShareBps     int64 // the integrator's share of that fee, 5000 to 8500; default 7000
	StakingCooldown     time.Duration
	// PoolLiquidity is seeded on each side of the incentive/USDC pool, in whole tokens (1 INCENTIVE
	// trades for about 1 USDC). Default 1,000,000.
	PoolLiquidity int64
	// BridgeChains are the chain ids whose Sigil bridges this chain's bridge routes tokens to (its own id is
	// skipped); default DefaultBridgeChains.
	BridgeChains []int64
}

// Performance fees of the two pre-configured allocator vault sets.
const (
	OAV10PerformanceFeeBps = 1000
	OAV20PerformanceFeeBps = 2000
)

// DefaultStakingCooldown is the unstaking cooldown of both staking contracts by default.
const DefaultStakingCooldown = 10 * time.Minute

func (c Config) withDefaults(deployer common.Address) Config {
	setAddr := func(a *common.Address) {
		if *a == (common.Address{}) {
			*a = deployer
		}
	}
	setInt := func(v *int64, def int64) {
		if *v == 0 {
			*v = def
		}
	}
	setAddr(&c.FeeRecipient)
	setAddr(&c.Provider)
	setInt(&c.OAVDepositFeeBps, 50)
	setInt(&c.OAVManagementFeeBps, 100)
	setInt(&c.FeeWrapperBps, 50)
	setInt(&c.ValidatorFeeBps, 1000)
	setInt(&c.RevenueShareBps, 7000)
	setInt(&c.PoolLiquidity, 1_000_000)
	if c.BridgeChains == nil {
		c.BridgeChains = DefaultBridgeChains
	}
	if c.StakingCooldown == 0 {
		c.StakingCooldown = DefaultStakingCooldown
	}
	return c
}

// Deploy deploys every fixture from s, seeds the swap pool and returns their addresses. caller
// reads the addresses of the contracts that other contracts create (receipt tokens).
func Deploy(ctx context.Context, s Sender, caller bind.ContractCaller, cfg Config) (Addresses, error) {
	d := &deployer{ctx: ctx, s: s, caller: caller, cfg: cfg.withDefaults(s.Address()), out: Addresses{}}
	steps := []func(){
		d.tokens, d.vaults, d.pool, d.allocatorVaults, d.feeWrapper, d.lending, d.staking, d.aave, d.morpho, d.delegate,
		d.uniswap, // swaps: after the fixtures above, which keep their addresses
		d.borrowMarkets,
		d.earn,       // Earn: after the swaps and borrow markets, which keep their addresses
		d.morphoSeed, // last: see there
	}
	for _, step := range steps {
		step()
		if d.err != nil {
			return nil, d.err
		}
	}
	return d.out, nil
}

// deployer keeps the first error so the steps read as a plain list of deployments.
type deployer struct {
	ctx    context.Context
	s      Sender
	caller bind.ContractCaller
	cfg    Config
	out    Addresses
	err    error
}

func (d *deployer) deploy(name, artifact string, args ...any) common.Address {
	addr := d.create(artifact, nil, args...)
	if d.err == nil {
		d.out[name] = addr
	}
	return addr
}

// create deploys an artifact, linked to libs when it calls libraries, without naming it among the fixtures: a
// library, an implementation behind a proxy, a price feed.
func (d *deployer) create(artifact string, libs map[string]common.Address, args ...any) common.Address {
	if d.err != nil {
		return common.Address{}
	}
	a, err := MustLoad(artifact).Link(libs)
	if err != nil {
		d.err = err
		return common.Address{}
	}
	data, err := a.DeployData(args...)
	if err != nil {
		d.err = err
		return common.Address{}
	}
	receipt, err := d.s.Transact(d.ctx, nil, nil, data)
	if err != nil {
		d.err = fmt.Errorf("deploy %s: %w", artifact, err)
		return common.Address{}
	}
	return receipt.ContractAddress
}

func (d *deployer) call(fixture, artifact, method string, args ...any) {
	d.send(fixture, artifact, nil, method, args...)
}

func (d *deployer) send(fixture, artifact string, value *big.Int, method string, args ...any) {
	if d.err != nil {
		return
	}
	data, err := MustLoad(artifact).Pack(method, args...)
	if err != nil {
		d.err = err
		return
	}
	to := d.out[fixture]
	if _, err := d.s.Transact(d.ctx, &to, value, data); err != nil {
		d.err = fmt.Errorf("%s.%s on %s: %w", artifact, method, fixture, err)
	}
}

// read stores in out[name] the address returned by a view function of fixture.
func (d *deployer) read(name, fixture, artifact, method string, args ...any) {
	if d.err != nil {
		return
	}
	values, err := MustLoad(artifact).Call(d.ctx, d.caller, d.out[fixture], method, args...)
	if err != nil {
		d.err = err
		return
	}
	addr, ok := values[0].(common.Address)
	if !ok || addr == (common.Address{}) {
		d.err = fmt.Errorf("%s.%s on %s returned no address", artifact, method, fixture)
		return
	}
	d.out[name] = addr
}

// delegate deploys the gas station and the EIP-7702 batch delegate fixed to it, last, so that the fixtures before
// them keep their addresses.
func (d *deployer) delegate() {
	station := d.deploy(Station, GasStation)
	d.deploy(Delegate7702, BatchDelegate, station)
}

func (d *deployer) tokens() {
	owner := d.s.Address()
	d.deploy(USDC, TestToken, "USD Coin (Sigil dev)", "USDC", uint8(6), owner)
	d.deploy(USDT, TestToken, "Tether USD (Sigil dev)", "USDT", uint8(6), owner)
	d.deploy(DAI, TestToken, "Dai Stablecoin (Sigil dev)", "DAI", uint8(18), owner)
	d.deploy(Incentive, TestToken, "Sigil Incentive", "INC", uint8(18), owner)
	d.deploy(WETH, WrappedEther)
}

func (d *deployer) vaults() {
	d.deploy(VaultUSDC, SimpleVault, d.out[USDC], "Sigil USDC Vault", "svUSDC")
	d.deploy(VaultDAI, SimpleVault, d.out[DAI], "Sigil DAI Vault", "svDAI")
	d.deploy(VaultWETH, SimpleVault, d.out[WETH], "Sigil WETH Vault", "svWETH")
}

func (d *deployer) pool() {
	pool := d.deploy(Pool, ConstantProductPool, d.out[Incentive], d.out[USDC])
	incentive := units(d.cfg.PoolLiquidity, 18)
	usdc := units(d.cfg.PoolLiquidity, 6)
	owner := d.s.Address()
	d.call(Incentive, TestToken, "mint", owner, incentive)
	d.call(USDC, TestToken, "mint", owner, usdc)
	d.call(Incentive, TestToken, "approve", pool, incentive)
	d.call(USDC, TestToken, "approve", pool, usdc)
	d.call(Pool, ConstantProductPool, "addLiquidity", incentive, usdc, owner)
}

func (d *deployer) allocatorVaults() {
	for _, set := range []struct {
		name, label, symbol string
		performanceFeeBps   int64
	}{
		{OAV10USDC, "Sigil Allocator USDC (10% fee)", "oavUSDC10", OAV10PerformanceFeeBps},
		{OAV20USDC, "Sigil Allocator USDC (20% fee)", "oavUSDC20", OAV20PerformanceFeeBps},
	} {
		fees := AllocatorFees{
			DepositFeeBps:     big.NewInt(d.cfg.OAVDepositFeeBps),
			PerformanceFeeBps: big.NewInt(set.performanceFeeBps),
			ManagementFeeBps:  big.NewInt(d.cfg.OAVManagementFeeBps),
			Recipient:         d.cfg.FeeRecipient,
		}
		d.deploy(set.name, AllocatorVault, d.out[VaultUSDC], d.out[Incentive], d.out[Pool],
			set.label, set.symbol, fees, d.s.Address())
	}
}

func (d *deployer) feeWrapper() {
	d.deploy(FeeWrapperName, FeeWrapper, big.NewInt(d.cfg.FeeWrapperBps), d.cfg.FeeRecipient, d.s.Address())
}

func (d *deployer) lending() {
	d.deploy(Lending, LendingPool, d.s.Address())
	d.call(Lending, LendingPool, "initReserve", d.out[USDC], "Sigil Lending USDC", "slUSDC")
	d.call(Lending, LendingPool, "initReserve", d.out[USDT], "Sigil Lending USDT", "slUSDT")
	d.read(LendingAUSDC, Lending, LendingPool, "getReserveAToken", d.out[USDC])
	d.read(LendingAUSDT, Lending, LendingPool, "getReserveAToken", d.out[USDT])
}

func (d *deployer) staking() {
	cooldown := big.NewInt(int64(d.cfg.StakingCooldown / time.Second))
	owner := d.s.Address()
	d.deploy(Staking, NativeStaking, cooldown, owner)
	d.deploy(ProviderStake, ProviderStaking, d.cfg.Provider, d.cfg.FeeRecipient,
		big.NewInt(d.cfg.ValidatorFeeBps), big.NewInt(d.cfg.RevenueShareBps), cooldown,
		"Sigil Provider Staked ETH", "spETH", owner)
	d.read(ProviderLST, ProviderStake, ProviderStaking, "stakingToken")
}

// units is whole * 10^decimals.
func units(whole int64, decimals int) *big.Int {
	return new(big.Int).Mul(big.NewInt(whole), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(decimals)), nil))
}

// Verify checks that every fixture in a has code on the chain, so a saved deployment record can be
// trusted after a restart.
func Verify(ctx context.Context, reader bind.ContractCaller, a Addresses) error {
	var missing []error
	for _, f := range Fixtures {
		addr, ok := a[f.Name]
		if !ok {
			missing = append(missing, fmt.Errorf("%s is not in the deployment record", f.Name))
			continue
		}
		code, err := reader.CodeAt(ctx, addr, nil)
		if err != nil {
			return fmt.Errorf("read code of %s at %s: %w", f.Name, addr, err)
		}
		if len(code) == 0 {
			missing = append(missing, fmt.Errorf("%s has no code at %s", f.Name, addr))
		}
	}
	return errors.Join(missing...)
}
