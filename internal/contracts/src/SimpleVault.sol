// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {ERC4626} from "@openzeppelin/contracts/token/ERC20/extensions/ERC4626.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/// @title SimpleVault
/// @notice A plain ERC-4626 vault. Its assets are its token balance, so yield is whatever is sent to
///         it (the dev chain's simulator mints interest into it), which raises the share price.
contract SimpleVault is ERC4626, Ownable {
    /// @notice The annual rate at which the vault's assets accrue now, not compounded, scaled by 1e18
    ///         (1e18 = 100%). The owner publishes it; the dev chain's simulator pays the vault at this
    ///         rate, so a reader knows what an empty vault will pay before its share price has moved.
    uint256 public accrualRate;

    event AccrualRateSet(uint256 rate);

    constructor(IERC20 asset_, string memory name_, string memory symbol_)
        ERC20(name_, symbol_)
        ERC4626(asset_)
        Ownable(msg.sender)
    {}

    function setAccrualRate(uint256 rate) external onlyOwner {
        accrualRate = rate;
        emit AccrualRateSet(rate);
    }
}
