// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {Address} from "@openzeppelin/contracts/utils/Address.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";
import {LiquidStakingToken} from "./LiquidStakingToken.sol";
import {IStakeFor} from "./interfaces/IStakeFor.sol";

/// @title ProviderStaking
/// @notice One staking provider's ETH staking with a liquid staking token. Stakers receive the
///         token at the pool's exchange rate. Rewards raise the rate after the provider's validator
///         fee, and that fee is split with a participating integrator by a revenue share of 50% to
///         85%. Unstaking burns the tokens, locks their ETH value and pays it after a cooldown.
///         The owner publishes the validators' current reward rate (`rewardRateBps`, before the
///         validator fee); the dev chain's simulator pays rewards at that rate.
contract ProviderStaking is IStakeFor, Ownable, ReentrancyGuard {
    using Math for uint256;

    uint256 private constant BPS = 10_000;
    uint256 public constant MIN_REVENUE_SHARE_BPS = 5_000;
    uint256 public constant MAX_REVENUE_SHARE_BPS = 8_500;
    uint256 public constant MAX_VALIDATOR_FEE_BPS = 3_000;

    struct PendingUnstake {
        uint256 amount;
        uint256 unlockTime;
    }

    LiquidStakingToken public immutable stakingToken;
    address public immutable provider;
    address public immutable integrator;
    uint256 public immutable validatorFeeBps;
    uint256 public immutable revenueShareBps;
    uint256 public immutable cooldown;

    /// @notice ETH backing the liquid staking token.
    uint256 public totalPooledEther;
    /// @notice The current reward rate of the pooled ether, gross: rewards paid per year per
    ///         pooled ether, in basis points (350 = 3.5% a year), before the validator fee.
    ///         Stakers earn rewardRateBps × (1 − validatorFeeBps / 10000), and since rewards raise
    ///         the token's exchange rate they compound. Set by the owner with `setRewardRate`.
    uint256 public rewardRateBps;
    /// @notice Validator fees owed to the provider and the integrator, claimable with `claimFees`.
    mapping(address => uint256) public feesOwed;
    mapping(address => PendingUnstake) public pendingUnstakeOf;

    error ZeroAmount();
    error NothingStaked();
    error RevenueShareOutOfRange(uint256 revenueShareBps, uint256 minimumBps, uint256 maximumBps);
    error ValidatorFeeAboveMaximum(uint256 validatorFeeBps, uint256 maximumBps);
    error NoPendingUnstake();
    error CooldownNotElapsed(uint256 unlockTime, uint256 nowTime);

    event Staked(address indexed payer, address indexed beneficiary, uint256 amount, uint256 shares);
    event UnstakeRequested(address indexed account, uint256 shares, uint256 amount, uint256 unlockTime);
    event Withdrawn(address indexed account, uint256 amount);
    event RewardsDistributed(uint256 amount, uint256 providerFee, uint256 integratorFee);
    event FeesClaimed(address indexed account, uint256 amount);
    event RewardRateUpdated(uint256 rewardRateBps);

    constructor(
        address provider_,
        address integrator_,
        uint256 validatorFeeBps_,
        uint256 revenueShareBps_,
        uint256 cooldown_,
        string memory tokenName,
        string memory tokenSymbol,
        address owner_
    ) Ownable(owner_) {
        if (revenueShareBps_ < MIN_REVENUE_SHARE_BPS || revenueShareBps_ > MAX_REVENUE_SHARE_BPS) {
            revert RevenueShareOutOfRange(revenueShareBps_, MIN_REVENUE_SHARE_BPS, MAX_REVENUE_SHARE_BPS);
        }
        if (validatorFeeBps_ > MAX_VALIDATOR_FEE_BPS) {
            revert ValidatorFeeAboveMaximum(validatorFeeBps_, MAX_VALIDATOR_FEE_BPS);
        }
        provider = provider_;
        integrator = integrator_;
        validatorFeeBps = validatorFeeBps_;
        revenueShareBps = revenueShareBps_;
        cooldown = cooldown_;
        stakingToken = new LiquidStakingToken(tokenName, tokenSymbol);
    }

    /// @notice Publishes the validators' current reward rate (annual, basis points, before the
    ///         validator fee; see `rewardRateBps`).
    function setRewardRate(uint256 rateBps) external onlyOwner {
        rewardRateBps = rateBps;
        emit RewardRateUpdated(rateBps);
    }

    function stake() external payable returns (uint256 shares) {
        return _stake(msg.sender);
    }

    function stakeFor(address beneficiary) external payable {
        _stake(beneficiary);
    }

    /// @notice ETH that `shares` of the liquid staking token are worth now.
    function convertToEther(uint256 shares) public view returns (uint256) {
        return shares.mulDiv(totalPooledEther + 1, stakingToken.totalSupply() + 1);
    }

    /// @notice Liquid staking token minted for staking `amount` of ETH now.
    function convertToShares(uint256 amount) public view returns (uint256) {
        return amount.mulDiv(stakingToken.totalSupply() + 1, totalPooledEther + 1);
    }

    /// @notice Burns `shares`, locks their ETH value and starts the cooldown. A new request adds to
    ///         the pending amount and restarts the cooldown.
    function requestUnstake(uint256 shares) external returns (uint256 amount) {
        if (shares == 0) revert ZeroAmount();
        amount = convertToEther(shares);
        stakingToken.burn(msg.sender, shares);
        totalPooledEther -= amount;
        PendingUnstake storage pending = pendingUnstakeOf[msg.sender];
        pending.amount += amount;
        pending.unlockTime = block.timestamp + cooldown;
        emit UnstakeRequested(msg.sender, shares, amount, pending.unlockTime);
    }

    function withdraw() external nonReentrant returns (uint256 amount) {
        PendingUnstake memory pending = pendingUnstakeOf[msg.sender];
        if (pending.amount == 0) revert NoPendingUnstake();
        if (block.timestamp < pending.unlockTime) revert CooldownNotElapsed(pending.unlockTime, block.timestamp);
        delete pendingUnstakeOf[msg.sender];
        amount = pending.amount;
        emit Withdrawn(msg.sender, amount);
        Address.sendValue(payable(msg.sender), amount);
    }

    /// @notice Adds `msg.value` of rewards: the validator fee is split between the integrator
    ///         (revenue share) and the provider, the rest raises the token's exchange rate.
    function distributeRewards() external payable {
        if (msg.value == 0) revert ZeroAmount();
        if (stakingToken.totalSupply() == 0) revert NothingStaked();
        uint256 fee = msg.value * validatorFeeBps / BPS;
        uint256 integratorFee = fee * revenueShareBps / BPS;
        uint256 providerFee = fee - integratorFee;
        feesOwed[integrator] += integratorFee;
        feesOwed[provider] += providerFee;
        totalPooledEther += msg.value - fee;
        emit RewardsDistributed(msg.value, providerFee, integratorFee);
    }

    function claimFees() external nonReentrant returns (uint256 amount) {
        amount = feesOwed[msg.sender];
        if (amount == 0) revert ZeroAmount();
        feesOwed[msg.sender] = 0;
        emit FeesClaimed(msg.sender, amount);
        Address.sendValue(payable(msg.sender), amount);
    }

    function _stake(address beneficiary) private returns (uint256 shares) {
        if (msg.value == 0) revert ZeroAmount();
        shares = convertToShares(msg.value);
        if (shares == 0) revert ZeroAmount();
        totalPooledEther += msg.value;
        stakingToken.mint(beneficiary, shares);
        emit Staked(msg.sender, beneficiary, msg.value, shares);
    }
}
