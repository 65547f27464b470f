// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @title LiquidStakingToken
/// @notice A staking provider's liquid staking token. Its value in ETH rises as rewards are added to
///         the provider's pool; only the staking contract that deployed it mints and burns.
contract LiquidStakingToken is ERC20 {
    address public immutable minter;

    error OnlyMinter(address caller);

    constructor(string memory name_, string memory symbol_) ERC20(name_, symbol_) {
        minter = msg.sender;
    }

    modifier onlyMinter() {
        if (msg.sender != minter) revert OnlyMinter(msg.sender);
        _;
    }

    function mint(address to, uint256 amount) external onlyMinter {
        _mint(to, amount);
    }

    function burn(address from, uint256 amount) external onlyMinter {
        _burn(from, amount);
    }
}
