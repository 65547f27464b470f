// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC4626, ERC20, IERC20} from "@openzeppelin/contracts/token/ERC20/extensions/ERC4626.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";
import {IMorpho, MarketParams, Market, Id} from "@morpho-org/morpho-blue/src/interfaces/IMorpho.sol";
import {IIrm} from "@morpho-org/morpho-blue/src/interfaces/IIrm.sol";
import {MathLib, WAD} from "@morpho-org/morpho-blue/src/libraries/MathLib.sol";
import {MarketParamsLib} from "@morpho-org/morpho-blue/src/libraries/MarketParamsLib.sol";
import {MorphoBalancesLib} from "@morpho-org/morpho-blue/src/libraries/periphery/MorphoBalancesLib.sol";

/// @title MorphoMarketVault
/// @notice An ERC-4626 vault that supplies every deposit to one Morpho Blue market and withdraws from it on exit:
/// MetaMorpho's role for a single market (MetaMorpho's own sources are not published to a package registry).
/// Its assets are the vault's supply position, interest included as Morpho accrues it (MorphoBalancesLib), so the
/// share price grows with block time; withdrawals are capped by the market's idle liquidity.
contract MorphoMarketVault is ERC4626 {
    using SafeERC20 for IERC20;
    using MorphoBalancesLib for IMorpho;
    using MarketParamsLib for MarketParams;
    using MathLib for uint256;

    IMorpho public immutable morpho;
    MarketParams private _market;

    constructor(IMorpho morpho_, MarketParams memory market_, string memory name_, string memory symbol_)
        ERC4626(IERC20(market_.loanToken))
        ERC20(name_, symbol_)
    {
        morpho = morpho_;
        _market = market_;
        IERC20(market_.loanToken).forceApprove(address(morpho_), type(uint256).max);
    }

    /// @notice The Morpho Blue market the vault supplies to.
    function marketParams() external view returns (MarketParams memory) {
        return _market;
    }

    /// @notice The market's id in Morpho Blue.
    function marketId() external view returns (Id) {
        return _market.id();
    }

    /// @notice The annual rate at which the vault's supply accrues now, not compounded, scaled by 1e18 (1e18 = 100%):
    /// the market's borrow rate from its interest rate model, times its utilisation, less Morpho's fee. Morpho
    /// compounds it at every accrual; the vault's share price follows.
    function accrualRate() external view returns (uint256) {
        Market memory m = morpho.market(_market.id());
        if (m.totalSupplyAssets == 0) return 0;
        uint256 borrowRate = IIrm(_market.irm).borrowRateView(_market, m); // per second, scaled by 1e18
        uint256 utilization = uint256(m.totalBorrowAssets).wDivDown(m.totalSupplyAssets);
        return (borrowRate * 365 days).wMulDown(utilization).wMulDown(WAD - m.fee);
    }

    function totalAssets() public view override returns (uint256) {
        return morpho.expectedSupplyAssets(_market, address(this));
    }

    function maxWithdraw(address owner) public view override returns (uint256) {
        return Math.min(super.maxWithdraw(owner), _liquidity());
    }

    function maxRedeem(address owner) public view override returns (uint256) {
        return Math.min(super.maxRedeem(owner), _convertToShares(_liquidity(), Math.Rounding.Floor));
    }

    function _deposit(address caller, address receiver, uint256 assets, uint256 shares) internal override {
        super._deposit(caller, receiver, assets, shares);
        morpho.supply(_market, assets, 0, address(this), "");
    }

    function _withdraw(address caller, address receiver, address owner, uint256 assets, uint256 shares)
        internal
        override
    {
        morpho.withdraw(_market, assets, 0, address(this), address(this));
        super._withdraw(caller, receiver, owner, assets, shares);
    }

    /// @dev What the market can pay out now: supplied less borrowed, interest accrued.
    function _liquidity() private view returns (uint256) {
        (uint256 supplied,, uint256 borrowed,) = morpho.expectedMarketBalances(_market);
        return supplied - borrowed;
    }
}
