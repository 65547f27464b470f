// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @notice Staking contracts that accept native ETH on behalf of another account.
interface IStakeFor {
    function stakeFor(address beneficiary) external payable;
}
