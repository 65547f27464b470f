// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";

/// @title ConstantProductPool
/// @notice A two-token x*y=k pool with a 0.3% swap fee. The allocator vaults sell their incentive
///         tokens through it on harvest. Liquidity providers receive this contract's own ERC-20 shares.
contract ConstantProductPool is ERC20, ReentrancyGuard {
    using SafeERC20 for IERC20;

    uint256 public constant FEE_BPS = 30;
    uint256 private constant BPS = 10_000;

    IERC20 public immutable token0;
    IERC20 public immutable token1;
    uint256 public reserve0;
    uint256 public reserve1;

    error UnknownToken(address token);
    error ZeroAmount();
    error InsufficientOutput(uint256 amountOut, uint256 minAmountOut);
    error InsufficientLiquidity();

    event LiquidityAdded(address indexed provider, address indexed to, uint256 amount0, uint256 amount1, uint256 liquidity);
    event LiquidityRemoved(address indexed provider, address indexed to, uint256 amount0, uint256 amount1, uint256 liquidity);
    event Swap(address indexed sender, address indexed tokenIn, uint256 amountIn, uint256 amountOut, address indexed to);

    constructor(IERC20 token0_, IERC20 token1_) ERC20("Sigil Constant Product LP", "SIGIL-LP") {
        token0 = token0_;
        token1 = token1_;
    }

    /// @notice Deposits both tokens and mints pool shares to `to`. After the first deposit the
    ///         shares follow the scarcer side, so amounts off the current ratio donate the excess.
    function addLiquidity(uint256 amount0, uint256 amount1, address to) external nonReentrant returns (uint256 liquidity) {
        if (amount0 == 0 || amount1 == 0) revert ZeroAmount();
        uint256 supply = totalSupply();
        if (supply == 0) {
            liquidity = Math.sqrt(amount0 * amount1);
        } else {
            liquidity = Math.min(amount0 * supply / reserve0, amount1 * supply / reserve1);
        }
        if (liquidity == 0) revert InsufficientLiquidity();
        token0.safeTransferFrom(msg.sender, address(this), amount0);
        token1.safeTransferFrom(msg.sender, address(this), amount1);
        reserve0 += amount0;
        reserve1 += amount1;
        _mint(to, liquidity);
        emit LiquidityAdded(msg.sender, to, amount0, amount1, liquidity);
    }

    /// @notice Burns `liquidity` shares of the caller and sends the matching reserves to `to`.
    function removeLiquidity(uint256 liquidity, address to) external nonReentrant returns (uint256 amount0, uint256 amount1) {
        uint256 supply = totalSupply();
        amount0 = liquidity * reserve0 / supply;
        amount1 = liquidity * reserve1 / supply;
        if (amount0 == 0 && amount1 == 0) revert ZeroAmount();
        _burn(msg.sender, liquidity);
        reserve0 -= amount0;
        reserve1 -= amount1;
        token0.safeTransfer(to, amount0);
        token1.safeTransfer(to, amount1);
        emit LiquidityRemoved(msg.sender, to, amount0, amount1, liquidity);
    }

    /// @notice The output of selling `amountIn` of `tokenIn` at the current reserves, fee included.
    function getAmountOut(address tokenIn, uint256 amountIn) public view returns (uint256) {
        (uint256 reserveIn, uint256 reserveOut) = _reserves(tokenIn);
        uint256 amountInWithFee = amountIn * (BPS - FEE_BPS);
        return amountInWithFee * reserveOut / (reserveIn * BPS + amountInWithFee);
    }

    /// @notice Sells `amountIn` of `tokenIn` (pulled from the caller) for the other token, sent to `to`.
    function swap(address tokenIn, uint256 amountIn, uint256 minAmountOut, address to)
        external
        nonReentrant
        returns (uint256 amountOut)
    {
        if (amountIn == 0) revert ZeroAmount();
        amountOut = getAmountOut(tokenIn, amountIn);
        if (amountOut == 0 || amountOut < minAmountOut) revert InsufficientOutput(amountOut, minAmountOut);
        bool zeroForOne = tokenIn == address(token0);
        (IERC20 input, IERC20 output) = zeroForOne ? (token0, token1) : (token1, token0);
        input.safeTransferFrom(msg.sender, address(this), amountIn);
        if (zeroForOne) {
            reserve0 += amountIn;
            reserve1 -= amountOut;
        } else {
            reserve1 += amountIn;
            reserve0 -= amountOut;
        }
        output.safeTransfer(to, amountOut);
        emit Swap(msg.sender, tokenIn, amountIn, amountOut, to);
    }

    function _reserves(address tokenIn) private view returns (uint256 reserveIn, uint256 reserveOut) {
        if (tokenIn == address(token0)) return (reserve0, reserve1);
        if (tokenIn == address(token1)) return (reserve1, reserve0);
        revert UnknownToken(tokenIn);
    }
}
