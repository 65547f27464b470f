// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Metadata} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Metadata.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";
import {InterestToken} from "./InterestToken.sol";

/// @title LendingPool
/// @notice A supply-only lending market whose entry points have the signatures of Aave v3's Pool
///         (`supply`, `withdraw`, `getReserveNormalizedIncome`, `getReservesList` and the
///         `Supply`/`Withdraw` events), so calldata built for Aave works against it.
///         Interest is whatever surplus of a reserve's asset the pool holds above what it owes:
///         `accrueInterest` turns that surplus into a higher liquidity index, which raises every
///         InterestToken balance. The dev chain's simulator mints the interest into the pool.
contract LendingPool is Ownable, ReentrancyGuard {
    using SafeERC20 for IERC20;
    using Math for uint256;

    uint256 private constant RAY = 1e27;

    struct Reserve {
        InterestToken aToken;
        uint256 liquidityIndex;
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
        _reserves[asset] = Reserve({aToken: aToken, liquidityIndex: RAY});
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
        emit InterestAccrued(asset, interest, newIndex);
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
