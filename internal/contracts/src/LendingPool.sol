// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Metadata} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Metadata.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";
import {SafeCast} from "@openzeppelin/contracts/utils/math/SafeCast.sol";
import {InterestToken} from "./InterestToken.sol";

/// @notice Aave v3's DataTypes.ReserveConfigurationMap: the reserve's settings packed in one word.
struct ReserveConfigurationMap {
    uint256 data;
}

/// @notice Aave v3's DataTypes.ReserveDataLegacy, what its Pool's `getReserveData` returns, field for field.
///         Rates and indexes are rays (1e27); rates are annual (APR), Aave compounding them per second.
struct ReserveDataLegacy {
    ReserveConfigurationMap configuration;
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

/// @title LendingPool
/// @notice A supply-only lending market whose entry points have the signatures of Aave v3's Pool
///         (`supply`, `withdraw`, `getReserveData`, `getReserveNormalizedIncome`,
///         `getReservesList` and the `Supply`/`Withdraw`/`ReserveDataUpdated` events), so calldata
///         and readers built for Aave work against it.
///         Interest is whatever surplus of a reserve's asset the pool holds above what it owes:
///         `accrueInterest` turns that surplus into a higher liquidity index, which raises every
///         InterestToken balance. Each reserve publishes a current liquidity rate, set by the
///         owner, in Aave's terms (an annual rate in ray); the dev chain's simulator reads it and
///         mints the interest it promises into the pool.
contract LendingPool is Ownable, ReentrancyGuard {
    using SafeERC20 for IERC20;
    using Math for uint256;
    using SafeCast for uint256;

    uint256 private constant RAY = 1e27;

    struct Reserve {
        InterestToken aToken;
        uint256 liquidityIndex;
        uint128 currentLiquidityRate;
        uint40 lastUpdateTimestamp;
        uint16 id;
    }

    mapping(address => Reserve) private _reserves;
    address[] private _reservesList;

    error ReserveNotListed(address asset);
    error ReserveAlreadyListed(address asset);
    error ZeroAmount();
    error InsufficientSupply(address user, uint256 balance, uint256 requested);

    event ReserveInitialized(address indexed asset, address indexed aToken);
    event Supply(
        address indexed reserve, address user, address indexed onBehalfOf, uint256 amount, uint16 indexed referralCode
    );
    event Withdraw(address indexed reserve, address indexed user, address indexed to, uint256 amount);
    event InterestAccrued(address indexed reserve, uint256 interest, uint256 liquidityIndex);
    /// @notice Aave v3's event for a change of a reserve's rates or indexes; here emitted when the
    ///         owner sets the liquidity rate (the pool has no borrowing: those rates and the
    ///         variable borrow index are 0).
    event ReserveDataUpdated(
        address indexed reserve,
        uint256 liquidityRate,
        uint256 stableBorrowRate,
        uint256 variableBorrowRate,
        uint256 liquidityIndex,
        uint256 variableBorrowIndex
    );

    constructor(address owner_) Ownable(owner_) {}

    /// @notice Lists `asset` and deploys its receipt token.
    function initReserve(address asset, string calldata aTokenName, string calldata aTokenSymbol)
        external
        onlyOwner
        returns (address)
    {
        if (address(_reserves[asset].aToken) != address(0)) revert ReserveAlreadyListed(asset);
        InterestToken aToken =
            new InterestToken(asset, aTokenName, aTokenSymbol, IERC20Metadata(asset).decimals());
        _reserves[asset] = Reserve({
            aToken: aToken,
            liquidityIndex: RAY,
            currentLiquidityRate: 0,
            lastUpdateTimestamp: uint40(block.timestamp),
            id: _reservesList.length.toUint16()
        });
        _reservesList.push(asset);
        emit ReserveInitialized(asset, address(aToken));
        return address(aToken);
    }

    /// @notice Aave v3: supplies `amount` of `asset`, crediting the receipt token to `onBehalfOf`.
    function supply(address asset, uint256 amount, address onBehalfOf, uint16 referralCode) external nonReentrant {
        Reserve storage reserve = _reserve(asset);
        if (amount == 0) revert ZeroAmount();
        IERC20(asset).safeTransferFrom(msg.sender, address(this), amount);
        reserve.aToken.mint(onBehalfOf, amount, reserve.liquidityIndex);
        emit Supply(asset, msg.sender, onBehalfOf, amount, referralCode);
    }

    /// @notice Aave v3: withdraws `amount` of `asset` (all of it for type(uint256).max) to `to`.
    function withdraw(address asset, uint256 amount, address to) external nonReentrant returns (uint256) {
        Reserve storage reserve = _reserve(asset);
        uint256 balance = reserve.aToken.balanceOf(msg.sender);
        if (amount == type(uint256).max) amount = balance;
        if (amount == 0) revert ZeroAmount();
        if (amount > balance) revert InsufficientSupply(msg.sender, balance, amount);
        reserve.aToken.burn(msg.sender, amount, reserve.liquidityIndex);
        IERC20(asset).safeTransfer(to, amount);
        emit Withdraw(asset, msg.sender, to, amount);
        return amount;
    }

    /// @notice Distributes the reserve's surplus (assets held above what suppliers are owed) to the
    ///         suppliers by raising the liquidity index. Anyone may call it; it only ever gives away
    ///         tokens that were sent to the pool.
    function accrueInterest(address asset) external returns (uint256 interest) {
        Reserve storage reserve = _reserve(asset);
        uint256 scaledTotal = reserve.aToken.scaledTotalSupply();
        if (scaledTotal == 0) return 0;
        uint256 owed = scaledTotal.mulDiv(reserve.liquidityIndex, RAY);
        uint256 held = IERC20(asset).balanceOf(address(this));
        if (held <= owed) return 0;
        uint256 newIndex = held.mulDiv(RAY, scaledTotal);
        if (newIndex <= reserve.liquidityIndex) return 0;
        interest = held - owed;
        reserve.liquidityIndex = newIndex;
        reserve.lastUpdateTimestamp = uint40(block.timestamp);
        emit InterestAccrued(asset, interest, newIndex);
    }

    /// @notice Sets the reserve's current liquidity rate: the annual rate suppliers earn, in ray
    ///         (1e27 = 100% a year), which Aave compounds per second:
    ///         APY = (1 + rate / secondsPerYear) ^ secondsPerYear - 1, a year being 365 days.
    ///         It is what the pool publishes; interest is still paid by sending the asset to the
    ///         pool and calling `accrueInterest`.
    function setLiquidityRate(address asset, uint256 rateRay) external onlyOwner {
        Reserve storage reserve = _reserve(asset);
        reserve.currentLiquidityRate = rateRay.toUint128();
        reserve.lastUpdateTimestamp = uint40(block.timestamp);
        emit ReserveDataUpdated(asset, rateRay, 0, 0, reserve.liquidityIndex, 0);
    }

    /// @notice Aave v3: the reserve's state in Aave's `ReserveDataLegacy` layout. Fields the pool
    ///         has no notion of (configuration, borrowing, debt tokens, rate strategy, treasury,
    ///         unbacked, isolation mode) are 0. Like Aave, an asset that is not listed reads as
    ///         all zeros (no aToken) rather than reverting.
    function getReserveData(address asset) external view returns (ReserveDataLegacy memory data) {
        Reserve storage reserve = _reserves[asset];
        if (address(reserve.aToken) == address(0)) return data;
        data.liquidityIndex = reserve.liquidityIndex.toUint128();
        data.currentLiquidityRate = reserve.currentLiquidityRate;
        data.lastUpdateTimestamp = reserve.lastUpdateTimestamp;
        data.id = reserve.id;
        data.aTokenAddress = address(reserve.aToken);
    }

    /// @notice Aave v3: the reserve's liquidity index, a ray.
    function getReserveNormalizedIncome(address asset) external view returns (uint256) {
        return _reserve(asset).liquidityIndex;
    }

    /// @notice The receipt token of `asset`.
    function getReserveAToken(address asset) external view returns (address) {
        return address(_reserve(asset).aToken);
    }

    /// @notice Aave v3: the listed assets.
    function getReservesList() external view returns (address[] memory) {
        return _reservesList;
    }

    function _reserve(address asset) private view returns (Reserve storage reserve) {
        reserve = _reserves[asset];
        if (address(reserve.aToken) == address(0)) revert ReserveNotListed(asset);
    }
}
