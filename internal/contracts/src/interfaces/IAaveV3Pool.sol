// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice The part of Aave v3's Pool an Earn wrapper over a reserve calls, with the Pool's own signatures.
interface IAaveV3Pool {
    /// @notice Aave v3's DataTypes.ReserveData (3.0): the reserve's configuration bitmap, indexes, rates, its tokens.
    struct ReserveData {
        uint256 configuration;
        uint128 liquidityIndex;
        uint128 currentLiquidityRate;
        uint128 variableBorrowIndex;
        uint128 currentVariableBorrowRate;
        uint128 currentStableBorrowRate;
        uint40 lastUpdateTimestamp;
        uint16 id;
        address aTokenAddress;
        address stableDebtTokenAddress;
        address variableDebtTokenAddress;
        address interestRateStrategyAddress;
        uint128 accruedToTreasury;
        uint128 unbacked;
        uint128 isolationModeTotalDebt;
    }

    function supply(address asset, uint256 amount, address onBehalfOf, uint16 referralCode) external;

    function withdraw(address asset, uint256 amount, address to) external returns (uint256);

    function getReserveData(address asset) external view returns (ReserveData memory);
}
