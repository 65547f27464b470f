// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC4626} from "@openzeppelin/contracts/interfaces/IERC4626.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {Address} from "@openzeppelin/contracts/utils/Address.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {IStakeFor} from "./interfaces/IStakeFor.sol";

/// @title FeeWrapper
/// @notice Takes an integrator's deposit fee atomically: a vault deposit or a native ETH stake made
///         through it pays `feeBps` of the amount (rounded down) to the fee recipient and puts the
///         rest in, in the same transaction. The depositor still receives the protocol's own
///         receipt (vault shares, stake or liquid staking token).
contract FeeWrapper is Ownable, ReentrancyGuard {
    using SafeERC20 for IERC20;

    uint256 private constant BPS = 10_000;
    uint256 public constant MAX_FEE_BPS = 1_000;

    uint256 public feeBps;
    address public feeRecipient;

    error FeeAboveMaximum(uint256 feeBps, uint256 maximumBps);
    error ZeroFeeRecipient();
    error ZeroAmount();

    event FeeUpdated(uint256 feeBps, address recipient);
    event FeeCharged(address indexed payer, address indexed token, address indexed target, uint256 amount, uint256 fee);

    constructor(uint256 feeBps_, address feeRecipient_, address owner_) Ownable(owner_) {
        _setFee(feeBps_, feeRecipient_);
    }

    /// @notice Fee charged on `amount`.
    function feeOf(uint256 amount) public view returns (uint256) {
        return amount * feeBps / BPS;
    }

    /// @notice Pulls `assets` of the vault's asset from the caller, pays the fee and deposits the
    ///         rest into `vault` for `receiver`. Needs an allowance to this contract.
    function deposit(IERC4626 vault, uint256 assets, address receiver) external nonReentrant returns (uint256 shares) {
        if (assets == 0) revert ZeroAmount();
        IERC20 asset = IERC20(vault.asset());
        uint256 fee = feeOf(assets);
        asset.safeTransferFrom(msg.sender, address(this), assets);
        if (fee > 0) asset.safeTransfer(feeRecipient, fee);
        asset.forceApprove(address(vault), assets - fee);
        shares = vault.deposit(assets - fee, receiver);
        emit FeeCharged(msg.sender, address(asset), address(vault), assets, fee);
    }

    /// @notice Pays the fee out of `msg.value` and stakes the rest with `staking` for `receiver`.
    function stake(IStakeFor staking, address receiver) external payable nonReentrant {
        if (msg.value == 0) revert ZeroAmount();
        uint256 fee = feeOf(msg.value);
        if (fee > 0) Address.sendValue(payable(feeRecipient), fee);
        staking.stakeFor{value: msg.value - fee}(receiver);
        emit FeeCharged(msg.sender, address(0), address(staking), msg.value, fee);
    }

    function setFee(uint256 feeBps_, address feeRecipient_) external onlyOwner {
        _setFee(feeBps_, feeRecipient_);
    }

    function _setFee(uint256 feeBps_, address feeRecipient_) private {
        if (feeBps_ > MAX_FEE_BPS) revert FeeAboveMaximum(feeBps_, MAX_FEE_BPS);
        if (feeRecipient_ == address(0)) revert ZeroFeeRecipient();
        feeBps = feeBps_;
        feeRecipient = feeRecipient_;
        emit FeeUpdated(feeBps_, feeRecipient_);
    }
}
