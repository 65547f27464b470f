// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC4626} from "@openzeppelin/contracts/interfaces/IERC4626.sol";
import {ERC4626} from "@openzeppelin/contracts/token/ERC20/extensions/ERC4626.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";
import {ISwapPool} from "./interfaces/ISwapPool.sol";

/// @title AllocatorVault
/// @notice An Optimized Allocator Vault: an ERC-4626 vault that invests everything in one underlying
///         ERC-4626 vault and charges three fees.
///         - Deposit fee: a share of every deposit, in the asset, sent to the fee recipient at deposit.
///         - Performance fee: a share of the profit (growth of total assets not caused by deposits or
///           withdrawals) since the last accrual, paid by minting shares to the fee recipient.
///         - Management fee: an annual rate on the assets at the last accrual, pro rata over the time
///           elapsed, also paid in minted shares.
///         Fees accrue on every deposit, mint, withdraw, redeem and harvest, so a depositor never pays
///         for profit made before they entered; the preview functions include the fees not yet accrued.
///         On harvest the vault sells its incentive tokens through the swap pool and reinvests the
///         proceeds. The performance fee can never be set below 10%.
contract AllocatorVault is ERC4626, Ownable {
    using Math for uint256;
    using SafeERC20 for IERC20;

    uint256 public constant MIN_PERFORMANCE_FEE_BPS = 1_000;
    uint256 public constant MAX_PERFORMANCE_FEE_BPS = 5_000;
    uint256 public constant MAX_MANAGEMENT_FEE_BPS = 500;
    uint256 public constant MAX_DEPOSIT_FEE_BPS = 200;
    uint256 private constant BPS = 10_000;
    uint256 private constant YEAR = 365 days;

    struct Fees {
        uint256 depositFeeBps;
        uint256 performanceFeeBps;
        uint256 managementFeeBps;
        address recipient;
    }

    IERC4626 public immutable underlyingVault;
    IERC20 public immutable incentiveToken;
    ISwapPool public immutable swapPool;

    uint256 public depositFeeBps;
    uint256 public performanceFeeBps;
    uint256 public managementFeeBps;
    address public feeRecipient;

    /// @notice Total assets right after the last fee accrual; profit is measured against it.
    uint256 public totalAssetsStamp;
    /// @notice Timestamp of the last fee accrual; the management fee runs from it.
    uint256 public lastAccrual;
    /// @notice Timestamp of the last harvest.
    uint256 public lastHarvest;
    /// @notice The annual rate, in the asset, at which incentives are expected to come in, not compounded,
    ///         scaled by 1e18 (1e18 = 100%). The owner publishes it; the dev chain's simulator pays it.
    uint256 public incentiveRate;

    error PerformanceFeeBelowMinimum(uint256 performanceFeeBps, uint256 minimumBps);
    error FeeAboveMaximum(uint256 feeBps, uint256 maximumBps);
    error ZeroFeeRecipient();

    event FeesUpdated(uint256 depositFeeBps, uint256 performanceFeeBps, uint256 managementFeeBps, address recipient);
    event DepositFeeCharged(address indexed payer, address indexed recipient, uint256 fee);
    event FeesAccrued(uint256 performanceFee, uint256 managementFee, uint256 feeShares, uint256 totalAssets);
    event IncentiveRateSet(uint256 rate);
    event Harvested(uint256 incentivesSold, uint256 assetsReceived, uint256 totalAssets);

    constructor(
        IERC4626 underlyingVault_,
        IERC20 incentiveToken_,
        ISwapPool swapPool_,
        string memory name_,
        string memory symbol_,
        Fees memory fees_,
        address owner_
    ) ERC20(name_, symbol_) ERC4626(IERC20(underlyingVault_.asset())) Ownable(owner_) {
        underlyingVault = underlyingVault_;
        incentiveToken = incentiveToken_;
        swapPool = swapPool_;
        _setFees(fees_);
        lastAccrual = block.timestamp;
        lastHarvest = block.timestamp;
    }

    // ---- ERC-4626 accounting ----

    /// @notice Idle assets plus the value of the underlying vault shares held.
    function totalAssets() public view override returns (uint256) {
        uint256 invested = underlyingVault.convertToAssets(underlyingVault.balanceOf(address(this)));
        return IERC20(asset()).balanceOf(address(this)) + invested;
    }

    /// @notice Fees that the next accrual would charge, in assets and in shares to mint.
    function pendingFees()
        public
        view
        returns (uint256 performanceFee, uint256 managementFee, uint256 feeShares, uint256 assetsNow)
    {
        assetsNow = totalAssets();
        if (assetsNow > totalAssetsStamp) {
            performanceFee = (assetsNow - totalAssetsStamp).mulDiv(performanceFeeBps, BPS);
        }
        managementFee = totalAssetsStamp.mulDiv(managementFeeBps * (block.timestamp - lastAccrual), BPS * YEAR);
        uint256 fee = Math.min(performanceFee + managementFee, assetsNow);
        if (fee > 0) {
            // Shares worth exactly `fee` after they are minted, at the ERC-4626 virtual-share price.
            feeShares = fee.mulDiv(totalSupply() + 1, assetsNow - fee + 1, Math.Rounding.Floor);
        }
    }

    function previewDeposit(uint256 assets) public view override returns (uint256) {
        return _convertToShares(assets - _depositFee(assets), Math.Rounding.Floor);
    }

    function previewMint(uint256 shares) public view override returns (uint256) {
        uint256 net = _convertToAssets(shares, Math.Rounding.Ceil);
        return net + _depositFeeOnNet(net);
    }

    function deposit(uint256 assets, address receiver) public override returns (uint256 shares) {
        _accrueFees();
        uint256 maxAssets = maxDeposit(receiver);
        if (assets > maxAssets) revert ERC4626ExceededMaxDeposit(receiver, assets, maxAssets);
        uint256 fee = _depositFee(assets);
        shares = _convertToShares(assets - fee, Math.Rounding.Floor);
        _depositWithFee(receiver, assets, fee, shares);
    }

    function mint(uint256 shares, address receiver) public override returns (uint256 assets) {
        _accrueFees();
        uint256 maxShares = maxMint(receiver);
        if (shares > maxShares) revert ERC4626ExceededMaxMint(receiver, shares, maxShares);
        uint256 net = _convertToAssets(shares, Math.Rounding.Ceil);
        uint256 fee = _depositFeeOnNet(net);
        assets = net + fee;
        _depositWithFee(receiver, assets, fee, shares);
    }

    function withdraw(uint256 assets, address receiver, address owner_) public override returns (uint256) {
        _accrueFees();
        return super.withdraw(assets, receiver, owner_);
    }

    function redeem(uint256 shares, address receiver, address owner_) public override returns (uint256) {
        _accrueFees();
        return super.redeem(shares, receiver, owner_);
    }

    // ---- harvest and administration ----

    function setIncentiveRate(uint256 rate) external onlyOwner {
        incentiveRate = rate;
        emit IncentiveRateSet(rate);
    }

    /// @notice The annual rate at which a share's value accrues now, not compounded, scaled by 1e18: the
    ///         underlying vault's accrual rate (when it publishes one) plus the incentive rate, less the
    ///         performance fee on that profit and the management fee.
    function accrualRate() external view returns (uint256) {
        uint256 gross = incentiveRate + _underlyingAccrualRate();
        uint256 net = gross.mulDiv(BPS - performanceFeeBps, BPS);
        uint256 management = managementFeeBps * (1e18 / BPS);
        return net > management ? net - management : 0;
    }

    /// @dev The underlying vault's accrualRate(), or 0 for a vault that does not publish one.
    function _underlyingAccrualRate() private view returns (uint256) {
        (bool ok, bytes memory ret) = address(underlyingVault).staticcall(abi.encodeWithSignature("accrualRate()"));
        return ok && ret.length >= 32 ? abi.decode(ret, (uint256)) : 0;
    }

    /// @notice Sells the incentive tokens held for the asset (at least `minAssetsOut`), invests every
    ///         idle asset in the underlying vault and accrues the fees.
    function harvest(uint256 minAssetsOut) external onlyOwner returns (uint256 assetsReceived) {
        uint256 incentives = incentiveToken.balanceOf(address(this));
        if (incentives > 0) {
            incentiveToken.forceApprove(address(swapPool), incentives);
            assetsReceived = swapPool.swap(address(incentiveToken), incentives, minAssetsOut, address(this));
        }
        _investIdle();
        _accrueFees();
        lastHarvest = block.timestamp;
        emit Harvested(incentives, assetsReceived, totalAssetsStamp);
    }

    /// @notice Changes the fees; what is owed at the old rates is accrued first.
    function setFees(Fees calldata fees_) external onlyOwner {
        _accrueFees();
        _setFees(fees_);
    }

    // ---- internals ----

    function _convertToShares(uint256 assets, Math.Rounding rounding) internal view override returns (uint256) {
        (,, uint256 feeShares, uint256 assetsNow) = pendingFees();
        return assets.mulDiv(totalSupply() + feeShares + 1, assetsNow + 1, rounding);
    }

    function _convertToAssets(uint256 shares, Math.Rounding rounding) internal view override returns (uint256) {
        (,, uint256 feeShares, uint256 assetsNow) = pendingFees();
        return shares.mulDiv(assetsNow + 1, totalSupply() + feeShares + 1, rounding);
    }

    function _depositWithFee(address receiver, uint256 assets, uint256 fee, uint256 shares) private {
        IERC20(asset()).safeTransferFrom(_msgSender(), address(this), assets);
        if (fee > 0) {
            IERC20(asset()).safeTransfer(feeRecipient, fee);
            emit DepositFeeCharged(_msgSender(), feeRecipient, fee);
        }
        _investIdle();
        _mint(receiver, shares);
        totalAssetsStamp = totalAssets();
        emit Deposit(_msgSender(), receiver, assets, shares);
    }

    function _withdraw(address caller, address receiver, address owner_, uint256 assets, uint256 shares)
        internal
        override
    {
        super._withdraw(caller, receiver, owner_, assets, shares);
        totalAssetsStamp = totalAssets();
    }

    /// @dev Pays out of idle assets first and redeems underlying shares for the rest.
    function _transferOut(address to, uint256 assets) internal override {
        uint256 idle = IERC20(asset()).balanceOf(address(this));
        if (idle < assets) {
            underlyingVault.withdraw(assets - idle, address(this), address(this));
        }
        super._transferOut(to, assets);
    }

    function _investIdle() private {
        uint256 idle = IERC20(asset()).balanceOf(address(this));
        if (idle == 0 || underlyingVault.previewDeposit(idle) == 0) return;
        IERC20(asset()).forceApprove(address(underlyingVault), idle);
        underlyingVault.deposit(idle, address(this));
    }

    function _accrueFees() private {
        (uint256 performanceFee, uint256 managementFee, uint256 feeShares, uint256 assetsNow) = pendingFees();
        if (feeShares > 0) {
            _mint(feeRecipient, feeShares);
            emit FeesAccrued(performanceFee, managementFee, feeShares, assetsNow);
        }
        totalAssetsStamp = assetsNow;
        lastAccrual = block.timestamp;
    }

    /// @dev The fee on a gross deposit, rounded up.
    function _depositFee(uint256 assets) private view returns (uint256) {
        return assets.mulDiv(depositFeeBps, BPS, Math.Rounding.Ceil);
    }

    /// @dev The fee to add to `net` so that the gross amount pays exactly `_depositFee(gross)` or less.
    function _depositFeeOnNet(uint256 net) private view returns (uint256) {
        return net.mulDiv(depositFeeBps, BPS - depositFeeBps, Math.Rounding.Ceil);
    }

    function _setFees(Fees memory fees_) private {
        if (fees_.performanceFeeBps < MIN_PERFORMANCE_FEE_BPS) {
            revert PerformanceFeeBelowMinimum(fees_.performanceFeeBps, MIN_PERFORMANCE_FEE_BPS);
        }
        if (fees_.performanceFeeBps > MAX_PERFORMANCE_FEE_BPS) {
            revert FeeAboveMaximum(fees_.performanceFeeBps, MAX_PERFORMANCE_FEE_BPS);
        }
        if (fees_.managementFeeBps > MAX_MANAGEMENT_FEE_BPS) {
            revert FeeAboveMaximum(fees_.managementFeeBps, MAX_MANAGEMENT_FEE_BPS);
        }
        if (fees_.depositFeeBps > MAX_DEPOSIT_FEE_BPS) {
            revert FeeAboveMaximum(fees_.depositFeeBps, MAX_DEPOSIT_FEE_BPS);
        }
        if (fees_.recipient == address(0)) revert ZeroFeeRecipient();
        depositFeeBps = fees_.depositFeeBps;
        performanceFeeBps = fees_.performanceFeeBps;
        managementFeeBps = fees_.managementFeeBps;
        feeRecipient = fees_.recipient;
        emit FeesUpdated(fees_.depositFeeBps, fees_.performanceFeeBps, fees_.managementFeeBps, fees_.recipient);
    }
}
