package contracts

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"

	"github.com/sigil/sigil/internal/abis"
)

// AaveReserveInput is Aave v3's ConfiguratorInputTypes.InitReserveInput, what PoolConfigurator.initReserves takes.
type AaveReserveInput struct {
	ATokenImpl                  common.Address
	StableDebtTokenImpl         common.Address
	VariableDebtTokenImpl       common.Address
	UnderlyingAssetDecimals     uint8
	InterestRateStrategyAddress common.Address
	UnderlyingAsset             common.Address
	Treasury                    common.Address
	IncentivesController        common.Address
	ATokenName                  string
	ATokenSymbol                string
	VariableDebtTokenName       string
	VariableDebtTokenSymbol     string
	StableDebtTokenName         string
	StableDebtTokenSymbol       string
	Params                      []byte
}

// aaveReserve is how one asset is listed on the dev chain's Aave v3 market: the parameters of Aave's Ethereum market
// for the same kind of asset (stablecoins and WETH), rounded.
type aaveReserve struct {
	asset, aToken string // fixture names of the underlying token and of its aToken
	decimals      uint8
	priceUSD      int64 // the mock price feed's answer, 8 decimals as Chainlink's USD feeds
	// Interest rate strategy: optimal usage, base rate and slopes, as fractions.
	optimal, base, slope1, slope2  float64
	ltvBps, thresholdBps, bonusBps int64 // collateral parameters; bonus is 100% plus the liquidation bonus
	reserveFactorBps               int64
}

var aaveReserves = []aaveReserve{
	{USDC, AaveAUSDC, 6, 1_0000_0000, 0.90, 0, 0.065, 0.60, 7700, 8000, 10450, 1000},
	{USDT, AaveAUSDT, 6, 1_0000_0000, 0.90, 0, 0.065, 0.60, 7500, 7800, 10450, 1000},
	{WETH, AaveAWETH, 18, 3000_0000_0000, 0.80, 0, 0.033, 0.80, 8050, 8300, 10500, 1500},
}

// Utilisation the deployer gives each stablecoin reserve, so that suppliers earn from the first block as on a live
// market (about 4% a year): it supplies AaveSeedSupply of each, then borrows AaveSeedBorrowPercent of it against WETH.
const (
	AaveSeedSupply        = 1_000_000
	AaveSeedBorrowPercent = 80
	aaveSeedCollateralETH = 1_000 // WETH the deployer wraps and supplies as collateral (3,000,000 USD)
)

// aave deploys Aave v3's own contracts, as @aave/core-v3 publishes them, the way Aave's deployment scripts do: the
// addresses provider and ACL, the logic libraries linked into the Pool and the configurator implementations (each
// behind the provider's proxy), the oracle on mock Chainlink feeds, the token implementations and a rate strategy
// per reserve; then lists USDC, USDT and WETH and gives the stablecoins a borrower.
func (d *deployer) aave() {
	owner := d.s.Address()
	provider := d.deploy(AaveAddressesProvider, AavePoolAddressesProvider, "Sigil dev market", owner)
	d.call(AaveAddressesProvider, AavePoolAddressesProvider, "setACLAdmin", owner)
	d.call(AaveAddressesProvider, AavePoolAddressesProvider, "setACLManager", d.deploy(AaveACL, AaveACLManager, provider))
	for _, role := range []string{"addPoolAdmin", "addRiskAdmin", "addAssetListingAdmin"} {
		d.call(AaveACL, AaveACLManager, role, owner)
	}

	libs := map[string]common.Address{}
	for _, lib := range []string{AaveSupplyLogic, AaveBorrowLogic, AaveLiquidationLogic, AaveEModeLogic, AaveBridgeLogic, AavePoolLogic, AaveConfiguratorLogic} {
		libs[lib] = d.create(lib, nil)
	}
	libs[AaveFlashLoanLogic] = d.create(AaveFlashLoanLogic, libs) // it calls BorrowLogic
	d.call(AaveAddressesProvider, AavePoolAddressesProvider, "setPoolImpl", d.create(AavePool, libs, provider))
	d.read(AavePoolName, AaveAddressesProvider, AavePoolAddressesProvider, "getPool")
	d.call(AaveAddressesProvider, AavePoolAddressesProvider, "setPoolConfiguratorImpl", d.create(AavePoolConfigurator, libs))
	d.read(AaveConfigurator, AaveAddressesProvider, AavePoolAddressesProvider, "getPoolConfigurator")
	d.call(AaveAddressesProvider, AavePoolAddressesProvider, "setPoolDataProvider", d.deploy(AaveDataProvider, AaveProtocolDataProvider, provider))

	var assets, feeds []common.Address
	for _, r := range aaveReserves {
		assets = append(assets, d.out[r.asset])
		feeds = append(feeds, d.create(AaveMockAggregator, nil, big.NewInt(r.priceUSD)))
	}
	d.deploy(AaveOracleName, AaveOracle, provider, assets, feeds, common.Address{}, common.Address{}, big.NewInt(1_0000_0000))
	d.call(AaveAddressesProvider, AavePoolAddressesProvider, "setPriceOracle", d.out[AaveOracleName])
	d.listAaveReserves()
	d.seedAaveBorrowing()
}

// listAaveReserves lists every reserve through the configurator, as a pool admin would.
func (d *deployer) listAaveReserves() {
	pool := d.out[AavePoolName]
	aToken := d.create(AaveAToken, nil, pool)
	stable := d.create(AaveStableDebtToken, nil, pool)
	variable := d.create(AaveVariableDebtToken, nil, pool)
	for _, r := range aaveReserves {
		strategy := d.create(AaveInterestRateStrategy, nil, d.out[AaveAddressesProvider],
			ray(r.optimal), ray(r.base), ray(r.slope1), ray(r.slope2), ray(0.005), ray(0.60), ray(0.01), ray(0.08), ray(0.20))
		symbol := r.asset
		if r.asset == WETH {
			symbol = "WETH"
		}
		// One reserve per transaction: three in one pass the gas cap of a transaction (2^24 since Osaka).
		d.call(AaveConfigurator, AavePoolConfigurator, "initReserves", []AaveReserveInput{{ATokenImpl: aToken, StableDebtTokenImpl: stable, VariableDebtTokenImpl: variable,
			UnderlyingAssetDecimals: r.decimals, InterestRateStrategyAddress: strategy, UnderlyingAsset: d.out[r.asset],
			Treasury: d.s.Address(), ATokenName: "Aave Sigil " + symbol, ATokenSymbol: "aSig" + symbol,
			VariableDebtTokenName: "Aave Sigil Variable Debt " + symbol, VariableDebtTokenSymbol: "variableDebtSig" + symbol,
			StableDebtTokenName: "Aave Sigil Stable Debt " + symbol, StableDebtTokenSymbol: "stableDebtSig" + symbol, Params: []byte{}}})
		asset := d.out[r.asset]
		d.call(AaveConfigurator, AavePoolConfigurator, "configureReserveAsCollateral", asset, big.NewInt(r.ltvBps), big.NewInt(r.thresholdBps), big.NewInt(r.bonusBps))
		d.call(AaveConfigurator, AavePoolConfigurator, "setReserveBorrowing", asset, true)
		d.call(AaveConfigurator, AavePoolConfigurator, "setReserveFactor", asset, big.NewInt(r.reserveFactorBps))
		d.readReserveAToken(r.aToken, asset)
	}
}

// seedAaveBorrowing supplies the stablecoins and borrows most of them against WETH, from the deployer.
func (d *deployer) seedAaveBorrowing() {
	owner := d.s.Address()
	pool := d.out[AavePoolName]
	collateral := units(aaveSeedCollateralETH, 18)
	d.send(WETH, WrappedEther, collateral, "deposit")
	d.call(WETH, WrappedEther, "approve", pool, collateral)
	d.call(AavePoolName, AavePool, "supply", d.out[WETH], collateral, owner, uint16(0))
	for _, token := range []string{USDC, USDT} {
		supply := units(AaveSeedSupply, 6)
		d.call(token, TestToken, "mint", owner, supply)
		d.call(token, TestToken, "approve", pool, supply)
		d.call(AavePoolName, AavePool, "supply", d.out[token], supply, owner, uint16(0))
		borrow := units(AaveSeedSupply*AaveSeedBorrowPercent/100, 6)
		d.call(AavePoolName, AavePool, "borrow", d.out[token], borrow, big.NewInt(2), uint16(0), owner) // 2: variable rate
	}
}

// readReserveAToken stores in out[name] the aToken the pool created for asset.
func (d *deployer) readReserveAToken(name string, asset common.Address) {
	if d.err != nil {
		return
	}
	values, err := MustLoad(AavePool).Call(d.ctx, d.caller, d.out[AavePoolName], "getReserveData", asset)
	if err != nil {
		d.err = err
		return
	}
	data, err := abis.AsReserveData(values[0])
	if err != nil {
		d.err = err
		return
	}
	d.out[name] = data.ATokenAddress
}

// ray is a fraction as a ray (10^27), to the precision a rate strategy needs.
func ray(f float64) *big.Int {
	bps := big.NewInt(int64(f*1_000_000 + 0.5))
	return bps.Mul(bps, new(big.Int).Exp(big.NewInt(10), big.NewInt(21), nil))
}
