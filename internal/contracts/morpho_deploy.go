package contracts

import (
	"math/big"

	"github.com/sigil/sigil/internal/abis"
)

// MorphoMarketParams is Morpho Blue's MarketParams (package abis holds it: the yield service reads markets too).
type MorphoMarketParams = abis.MorphoMarketParams

// The dev chain's Morpho Blue market: USDC lent against WETH at an 86% liquidation LTV (a value Morpho's governance
// enables on Ethereum), priced at 3,000 USDC per WETH by the package's oracle mock; its interest rate model is the
// package's IrmMock, whose borrow rate equals the utilisation, so the deployer's 20% utilisation pays suppliers 4% a
// year.
const (
	MorphoSeedSupply        = 1_000_000 // USDC the deployer deposits through the vault
	MorphoSeedBorrowPercent = 20
	morphoSeedCollateralETH = 200
)

var morphoLLTV = new(big.Int).Mul(big.NewInt(86), new(big.Int).Exp(big.NewInt(10), big.NewInt(16), nil))

// morpho deploys Morpho Blue (its own code, compiled from @morpho-org/morpho-blue as its build does), enables the
// interest rate model and LLTV, creates the USDC/WETH market, puts the ERC-4626 vault over it and gives the market a
// borrower.
func (d *deployer) morpho() {
	owner := d.s.Address()
	d.deploy(MorphoName, MorphoBlue, owner)
	irm := d.deploy(MorphoIrm, MorphoIrmMock)
	d.deploy(MorphoOracle, MorphoOracleMock)
	// Morpho's oracle price: one collateral unit in loan units, scaled by 10^36 (WETH has 18 decimals, USDC 6).
	d.call(MorphoOracle, MorphoOracleMock, "setPrice", new(big.Int).Mul(big.NewInt(3000), new(big.Int).Exp(big.NewInt(10), big.NewInt(24), nil)))
	d.call(MorphoName, MorphoBlue, "enableIrm", irm)
	d.call(MorphoName, MorphoBlue, "enableLltv", morphoLLTV)
	market := MorphoMarketParams{LoanToken: d.out[USDC], CollateralToken: d.out[WETH], Oracle: d.out[MorphoOracle], Irm: irm, Lltv: morphoLLTV}
	d.call(MorphoName, MorphoBlue, "createMarket", market)
	vault := d.deploy(MorphoVaultUSDC, MorphoMarketVault, d.out[MorphoName], market, "Sigil Morpho USDC", "smUSDC")

	supply := units(MorphoSeedSupply, 6)
	d.call(USDC, TestToken, "mint", owner, supply)
	d.call(USDC, TestToken, "approve", vault, supply)
	d.call(MorphoVaultUSDC, MorphoMarketVault, "deposit", supply, owner)
	collateral := units(morphoSeedCollateralETH, 18)
	d.send(WETH, WrappedEther, collateral, "deposit")
	d.call(WETH, WrappedEther, "approve", d.out[MorphoName], collateral)
	d.call(MorphoName, MorphoBlue, "supplyCollateral", market, collateral, owner, []byte{})
	d.call(MorphoName, MorphoBlue, "borrow", market, units(MorphoSeedSupply*MorphoSeedBorrowPercent/100, 6), new(big.Int), owner, owner)
}
