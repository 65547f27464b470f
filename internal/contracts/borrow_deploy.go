package contracts

import (
	"math/big"
)

// The dev chain's second Morpho Blue market, for borrowing against a vault position: the shares of the plain USDC
// vault (svUSDC) as collateral, USDT lent, at the 86% LLTV the first market uses, priced by an oracle mock that the
// simulator keeps at the share's value (internal/chain/oracle_sim.go), as a vault-rate oracle does on a live market.
// The deployer lends MorphoVaultMarketSupply USDT. It borrows none: its collateral would be vault shares, and a vault
// nobody has deposited into stays so on a fresh chain (docs/YIELD.md, "Reward rates"); with IrmMock's borrow rate equal
// to the utilisation, the market's rates are 0 until its first borrower.
const MorphoVaultMarketSupply = 1_000_000

// MorphoVaultMarket is the market's parameters, from the deployed addresses.
func MorphoVaultMarket(a Addresses) MorphoMarketParams {
	return MorphoMarketParams{LoanToken: a[USDT], CollateralToken: a[VaultUSDC], Oracle: a[MorphoVaultOracle],
		Irm: a[MorphoIrm], Lltv: new(big.Int).Set(morphoLLTV)}
}

// MorphoUSDCMarket is the parameters of the first market (USDC lent against WETH), from the deployed addresses.
func MorphoUSDCMarket(a Addresses) MorphoMarketParams {
	return MorphoMarketParams{LoanToken: a[USDC], CollateralToken: a[WETH], Oracle: a[MorphoOracle], Irm: a[MorphoIrm],
		Lltv: new(big.Int).Set(morphoLLTV)}
}

// oracleScale is Morpho's ORACLE_PRICE_SCALE: a price is loan units per collateral unit, times 10^36.
var oracleScale = new(big.Int).Exp(big.NewInt(10), big.NewInt(36), nil)

// MorphoOraclePrice is the price a Morpho oracle answers for a collateral worth collateralUSD and a loan token worth
// loanUSD (both in the same unit, such as Aave's 8-decimal USD), with their decimals: loan units per collateral unit,
// scaled by 10^36. A vault share's collateralUSD is the value of one whole share.
func MorphoOraclePrice(collateralUSD, loanUSD *big.Int, collateralDecimals, loanDecimals uint8) *big.Int {
	p := new(big.Int).Mul(oracleScale, collateralUSD)
	p.Mul(p, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(loanDecimals)), nil))
	return p.Div(p, new(big.Int).Mul(loanUSD, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(collateralDecimals)), nil)))
}

// borrowMarkets deploys the vault-collateral market and lends into it (after every other fixture, so that theirs keep their
// addresses).
func (d *deployer) borrowMarkets() {
	owner := d.s.Address()
	oracle := d.deploy(MorphoVaultOracle, MorphoOracleMock)
	// One whole share is worth one USDC before the vault earns anything; the simulator follows its share price.
	d.call(MorphoVaultOracle, MorphoOracleMock, "setPrice", MorphoOraclePrice(big.NewInt(1), big.NewInt(1), 6, 6))
	market := MorphoVaultMarket(d.out)
	market.Oracle = oracle
	d.call(MorphoName, MorphoBlue, "createMarket", market)

	supply := units(MorphoVaultMarketSupply, 6)
	d.call(USDT, TestToken, "mint", owner, supply)
	d.call(USDT, TestToken, "approve", d.out[MorphoName], supply)
	d.call(MorphoName, MorphoBlue, "supply", market, supply, new(big.Int), owner, []byte{})
}
