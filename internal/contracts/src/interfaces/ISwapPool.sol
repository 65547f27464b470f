// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @notice The part of ConstantProductPool that the allocator vaults use to sell incentives.
interface ISwapPool {
    function getAmountOut(address tokenIn, uint256 amountIn) external view returns (uint256);
    function swap(address tokenIn, uint256 amountIn, uint256 minAmountOut, address to) external returns (uint256);
}
