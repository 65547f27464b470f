// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {Address} from "@openzeppelin/contracts/utils/Address.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {IStakeFor} from "./interfaces/IStakeFor.sol";

/// @title NativeStaking
/// @notice Native ETH staking: stake with value, request an unstake that unlocks after a cooldown,
///         withdraw once it has passed. Rewards sent with `distributeRewards` are shared pro rata to
///         the stakes at that moment and claimed separately. The owner publishes the current
///         reward rate (`rewardRateBps`); the dev chain's simulator pays rewards at that rate.
contract NativeStaking is IStakeFor, Ownable, ReentrancyGuard {
    uint256 private constant PRECISION = 1e18;

    struct PendingUnstake {
        uint256 amount;
        uint256 unlockTime;
    }

    uint256 public immutable cooldown;
    uint256 public totalStaked;
    mapping(address => uint256) public stakedOf;
    mapping(address => PendingUnstake) public pendingUnstakeOf;

    /// @notice Rewards per staked wei, scaled by 1e18, summed over every distribution.
    uint256 public rewardPerStake;
    /// @notice The current reward rate: ether paid per year per staked ether, in basis points
    ///         (350 = 3.5% a year). Rewards are claimed, not restaked, so it is an APR. Set by the
    ///         owner with `setRewardRate`.
    uint256 public rewardRateBps;
    mapping(address => uint256) private _rewardPerStakePaid;
    mapping(address => uint256) private _rewards;

    error ZeroAmount();
    error NothingStaked();
    error InsufficientStake(uint256 staked, uint256 requested);
    error NoPendingUnstake();
    error CooldownNotElapsed(uint256 unlockTime, uint256 nowTime);

    event Staked(address indexed payer, address indexed beneficiary, uint256 amount);
    event UnstakeRequested(address indexed account, uint256 amount, uint256 unlockTime);
    event Withdrawn(address indexed account, uint256 amount);
    event RewardsDistributed(uint256 amount, uint256 rewardPerStake);
    event RewardsClaimed(address indexed account, uint256 amount);
    event RewardRateUpdated(uint256 rewardRateBps);

    constructor(uint256 cooldown_, address owner_) Ownable(owner_) {
        cooldown = cooldown_;
    }

    /// @notice Publishes the current reward rate (annual, basis points; see `rewardRateBps`).
    function setRewardRate(uint256 rateBps) external onlyOwner {
        rewardRateBps = rateBps;
        emit RewardRateUpdated(rateBps);
    }

    function stake() external payable {
        _stake(msg.sender);
    }

    function stakeFor(address beneficiary) external payable {
        _stake(beneficiary);
    }

    /// @notice Moves `amount` out of the stake; it stops earning now and can be withdrawn after the
    ///         cooldown. A new request adds to the pending amount and restarts the cooldown.
    function requestUnstake(uint256 amount) external {
        if (amount == 0) revert ZeroAmount();
        _settle(msg.sender);
        uint256 staked = stakedOf[msg.sender];
        if (amount > staked) revert InsufficientStake(staked, amount);
        stakedOf[msg.sender] = staked - amount;
        totalStaked -= amount;
        PendingUnstake storage pending = pendingUnstakeOf[msg.sender];
        pending.amount += amount;
        pending.unlockTime = block.timestamp + cooldown;
        emit UnstakeRequested(msg.sender, amount, pending.unlockTime);
    }

    /// @notice Sends the pending unstake to the caller once its cooldown has passed.
    function withdraw() external nonReentrant returns (uint256 amount) {
        PendingUnstake memory pending = pendingUnstakeOf[msg.sender];
        if (pending.amount == 0) revert NoPendingUnstake();
        if (block.timestamp < pending.unlockTime) revert CooldownNotElapsed(pending.unlockTime, block.timestamp);
        delete pendingUnstakeOf[msg.sender];
        amount = pending.amount;
        emit Withdrawn(msg.sender, amount);
        Address.sendValue(payable(msg.sender), amount);
    }

    /// @notice Shares `msg.value` among the current stakes.
    function distributeRewards() external payable {
        if (msg.value == 0) revert ZeroAmount();
        if (totalStaked == 0) revert NothingStaked();
        rewardPerStake += msg.value * PRECISION / totalStaked;
        emit RewardsDistributed(msg.value, rewardPerStake);
    }

    function claimableRewards(address account) public view returns (uint256) {
        return _rewards[account] + stakedOf[account] * (rewardPerStake - _rewardPerStakePaid[account]) / PRECISION;
    }

    function claimRewards() external nonReentrant returns (uint256 amount) {
        _settle(msg.sender);
        amount = _rewards[msg.sender];
        if (amount == 0) revert ZeroAmount();
        _rewards[msg.sender] = 0;
        emit RewardsClaimed(msg.sender, amount);
        Address.sendValue(payable(msg.sender), amount);
    }

    function _stake(address beneficiary) private {
        if (msg.value == 0) revert ZeroAmount();
        _settle(beneficiary);
        stakedOf[beneficiary] += msg.value;
        totalStaked += msg.value;
        emit Staked(msg.sender, beneficiary, msg.value);
    }

    /// @dev Books the rewards earned by the account's stake so far before the stake changes.
    function _settle(address account) private {
        _rewards[account] = claimableRewards(account);
        _rewardPerStakePaid[account] = rewardPerStake;
    }
}
