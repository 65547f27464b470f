package contracts

import "fmt"

// Names under which the fixtures are deployed: the keys of Addresses and of bootstrap.json's
// `contracts`. Tokens use their symbol; everything else is lower-case.
const (
	USDC      = "USDC"
	USDT      = "USDT"
	DAI       = "DAI"
	Incentive = "INCENTIVE"
	WETH      = "weth"

	VaultUSDC = "vault-usdc"
	VaultDAI  = "vault-dai"
	VaultWETH = "vault-weth"

	// OAV10USDC and OAV20USDC are the two pre-configured Optimized Allocator Vault sets (10% and
	// 20% performance fee), both over VaultUSDC.
	OAV10USDC = "oav10-usdc"
	OAV20USDC = "oav20-usdc"

	FeeWrapperName = "fee-wrapper"
	Pool           = "pool"

	Lending      = "lending-pool"
	LendingAUSDC = "lending-ausdc"
	LendingAUSDT = "lending-ausdt"

	Staking       = "staking"
	ProviderStake = "provider-staking"
	ProviderLST   = "provider-lst"

	// Aave v3's own contracts: the market's entry points and the aTokens of its reserves.
	AaveAddressesProvider = "aave-addresses-provider"
	AaveACL               = "aave-acl-manager"
	AavePoolName          = "aave-pool"
	AaveConfigurator      = "aave-pool-configurator"
	AaveDataProvider      = "aave-data-provider"
	AaveOracleName        = "aave-oracle"
	AaveAUSDC             = "aave-ausdc"
	AaveAUSDT             = "aave-ausdt"
	AaveAWETH             = "aave-aweth"

	// Morpho Blue, its USDC/WETH market's oracle, and the ERC-4626 vault that supplies to that market.
	MorphoName      = "morpho-blue"
	MorphoOracle    = "morpho-oracle"
	MorphoVaultUSDC = "morpho-vault-usdc"
	MorphoIrm       = "morpho-irm" // the interest rate model of both Morpho markets
	// MorphoVaultOracle prices the vault shares of the vault-collateral Morpho market (svUSDC lent against, USDT
	// borrowed: borrow_deploy.go).
	MorphoVaultOracle = "morpho-oracle-svusdc-usdt"
	// Delegate7702 is the code accounts delegate to (EIP-7702) to run a batch of calls in one transaction of their
	// own: what ETH_SEND_TRANSACTION sends several calls through.
	Delegate7702 = "batch-delegate"
	// Station is what gas sponsors call to run an account's signed batch (sponsored sends); the batch delegate takes
	// sponsored batches from it alone.
	Station = "gas-station"

	// Uniswap V3's own contracts (uniswap_deploy.go), its pools of the dev tokens, and Sigil's swap entry and bridge
	// over them.
	UniswapFactory            = "uniswap-v3-factory"
	UniswapRouter             = "uniswap-v3-swap-router"
	UniswapQuoter             = "uniswap-v3-quoter"
	UniswapPositionManager    = "uniswap-v3-position-manager"
	UniswapPositionDescriptor = "uniswap-v3-position-descriptor"
	UniswapPoolUSDCWETH       = "uniswap-v3-pool-usdc-weth"
	UniswapPoolUSDTWETH       = "uniswap-v3-pool-usdt-weth"
	UniswapPoolUSDCUSDT       = "uniswap-v3-pool-usdc-usdt"
	UniswapPoolDAIUSDC        = "uniswap-v3-pool-dai-usdc"
	UniswapPoolIncentiveUSDC  = "uniswap-v3-pool-inc-usdc"
	SwapRouterName            = "swap-fee-router"
	Bridge                    = "sigil-bridge"
)

// Fixture describes one deployed contract.
type Fixture struct {
	Name     string // key in Addresses
	Artifact string // the artifact whose ABI talks to it
	Asset    string // the fixture it takes deposits in; "" for native ETH or when not a deposit target
	Decimals uint8  // decimals of the token it is, or of its shares; 0 when it is not a token
}

// Fixtures lists every deployed contract in deployment order.
var Fixtures = []Fixture{
	{USDC, TestToken, "", 6},
	{USDT, TestToken, "", 6},
	{DAI, TestToken, "", 18},
	{Incentive, TestToken, "", 18},
	{WETH, WrappedEther, "", 18},
	{VaultUSDC, SimpleVault, USDC, 6},
	{VaultDAI, SimpleVault, DAI, 18},
	{VaultWETH, SimpleVault, WETH, 18},
	{Pool, ConstantProductPool, "", 18},
	{OAV10USDC, AllocatorVault, USDC, 6},
	{OAV20USDC, AllocatorVault, USDC, 6},
	{FeeWrapperName, FeeWrapper, "", 0},
	{Lending, LendingPool, "", 0},
	{LendingAUSDC, InterestToken, USDC, 6},
	{LendingAUSDT, InterestToken, USDT, 6},
	{Staking, NativeStaking, "", 0},
	{ProviderStake, ProviderStaking, "", 0},
	{ProviderLST, LiquidStakingToken, "", 18},
	{AaveAddressesProvider, AavePoolAddressesProvider, "", 0},
	{AaveACL, AaveACLManager, "", 0},
	{AavePoolName, AavePool, "", 0},
	{AaveConfigurator, AavePoolConfigurator, "", 0},
	{AaveDataProvider, AaveProtocolDataProvider, "", 0},
	{AaveOracleName, AaveOracle, "", 0},
	{AaveAUSDC, AaveAToken, USDC, 6},
	{AaveAUSDT, AaveAToken, USDT, 6},
	{AaveAWETH, AaveAToken, WETH, 18},
	{MorphoName, MorphoBlue, "", 0},
	{MorphoIrm, MorphoIrmMock, "", 0},
	{MorphoOracle, MorphoOracleMock, "", 0},
	{MorphoVaultUSDC, MorphoMarketVault, USDC, 6},
	{Station, GasStation, "", 0},
	{Delegate7702, BatchDelegate, "", 0},
	// swaps (uniswap_deploy.go)
	{UniswapFactory, UniswapV3Factory, "", 0},
	{UniswapPositionDescriptor, UniswapV3PositionDescriptor, "", 0},
	{UniswapPositionManager, UniswapV3PositionManager, "", 0},
	{UniswapRouter, UniswapV3SwapRouter, "", 0},
	{UniswapQuoter, UniswapV3QuoterV2, "", 0},
	{UniswapPoolUSDCWETH, UniswapV3Pool, "", 0},
	{UniswapPoolUSDTWETH, UniswapV3Pool, "", 0},
	{UniswapPoolUSDCUSDT, UniswapV3Pool, "", 0},
	{UniswapPoolDAIUSDC, UniswapV3Pool, "", 0},
	{UniswapPoolIncentiveUSDC, UniswapV3Pool, "", 0},
	{SwapRouterName, SwapFeeRouter, "", 0},
	{Bridge, SigilBridge, "", 0},
	// borrow
	{MorphoVaultOracle, MorphoOracleMock, "", 0},
}

// FixtureNamed returns the fixture with that name.
func FixtureNamed(name string) (Fixture, bool) {
	for _, f := range Fixtures {
		if f.Name == name {
			return f, true
		}
	}
	return Fixture{}, false
}

// Tokens lists the ERC-20 test tokens the faucet can mint, by fixture name.
func Tokens() []string { return []string{USDC, USDT, DAI, Incentive} }

// ForFixture returns the artifact (ABI and bytecode) of the contract deployed as fixture name.
func ForFixture(name string) (*Artifact, error) {
	f, ok := FixtureNamed(name)
	if !ok {
		return nil, fmt.Errorf("contracts: no fixture named %q", name)
	}
	return Load(f.Artifact)
}
