// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ERC4626, ERC20, IERC20} from "@openzeppelin/contracts/token/ERC20/extensions/ERC4626.sol";
import {IERC20Metadata} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Metadata.sol";
import {IERC4626} from "@openzeppelin/contracts/interfaces/IERC4626.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {IAaveV3Pool} from "./interfaces/IAaveV3Pool.sol";

/// @title EarnWrapper
/// @notice An Earn fee wrapper: an ERC-4626 vault that holds one position in an underlying yield source (an ERC-4626
///         vault, such as a Morpho vault, or an Aave v3 reserve) and takes its fees out of the yield alone, never the
///         principal. As the position earns, the interest since the last interaction is split: `feeBps()` of it is
///         minted as wrapper shares to the fee splitter (the client's and the platform's fees together), the rest
///         stays with the depositors, MetaMorpho's way of taking a performance fee. Nothing about it can change after
///         deployment: the source, the fees and the splitter are immutable, it has no owner, and deposits, withdrawals
///         and transfers have no gate.
/// @dev Shares carry `18 - decimals` more decimals than the asset (virtual shares against the inflation attack). The
///      wrapper is permissionless on chain; pausing deposits is the API's business, not the contract's.
contract EarnWrapper is ERC4626, ReentrancyGuard {
    using SafeERC20 for IERC20;
    using Math for uint256;

    uint256 private constant BPS = 10_000;
    /// @notice The most a client may take of the yield, and the most both fees may take together.
    uint256 public constant MAX_CLIENT_FEE_BPS = 4_000;
    uint256 public constant MAX_TOTAL_FEE_BPS = 5_000;

    /// @notice The ERC-4626 vault the wrapper deposits into (zero for an Aave reserve).
    IERC4626 public immutable vault;
    /// @notice The Aave v3 pool the wrapper supplies to (zero for a vault), and the reserve's aToken.
    IAaveV3Pool public immutable aavePool;
    IERC20 public immutable aToken;

    /// @notice Where the fee shares go: the splitter that divides them between the client and the platform.
    address public immutable splitter;
    uint256 public immutable clientFeeBps;
    uint256 public immutable platformFeeBps;

    /// @notice The wrapper's assets after the last interaction, fees paid: interest is what grew beyond them.
    uint256 public lastTotalAssets;

    uint8 private immutable _offset;

    error FeeAboveMaximum(uint256 clientFeeBps, uint256 platformFeeBps);
    error ZeroAddress();
    error WrongAsset(address expected, address got);

    event FeeAccrued(uint256 interest, uint256 feeShares, uint256 totalAssets);

    /// @param asset_ the asset deposited and withdrawn
    /// @param vault_ the ERC-4626 vault over asset_ to deposit into; zero when aavePool_ is given
    /// @param aavePool_ the Aave v3 pool whose asset_ reserve to supply to; zero when vault_ is given
    constructor(
        IERC20 asset_,
        IERC4626 vault_,
        IAaveV3Pool aavePool_,
        address splitter_,
        uint256 clientFeeBps_,
        uint256 platformFeeBps_,
        string memory name_,
        string memory symbol_
    ) ERC4626(asset_) ERC20(name_, symbol_) {
        if (clientFeeBps_ > MAX_CLIENT_FEE_BPS || clientFeeBps_ + platformFeeBps_ > MAX_TOTAL_FEE_BPS) {
            revert FeeAboveMaximum(clientFeeBps_, platformFeeBps_);
        }
        if (splitter_ == address(0) || (address(vault_) == address(0)) == (address(aavePool_) == address(0))) {
            revert ZeroAddress();
        }
        vault = vault_;
        aavePool = aavePool_;
        splitter = splitter_;
        clientFeeBps = clientFeeBps_;
        platformFeeBps = platformFeeBps_;
        _offset = uint8(18 - Math.min(18, IERC20Metadata(address(asset_)).decimals()));
        if (address(vault_) != address(0)) {
            if (vault_.asset() != address(asset_)) revert WrongAsset(address(asset_), vault_.asset());
            aToken = IERC20(address(0));
            asset_.forceApprove(address(vault_), type(uint256).max);
        } else {
            address a = aavePool_.getReserveData(address(asset_)).aTokenAddress;
            if (a == address(0)) revert WrongAsset(address(asset_), address(0));
            aToken = IERC20(a);
            asset_.forceApprove(address(aavePool_), type(uint256).max);
        }
    }

    /// @notice Both fees together, in basis points of the yield.
    function feeBps() public view returns (uint256) {
        return clientFeeBps + platformFeeBps;
    }

    /// @notice What the wrapper's position in its source is worth now, interest included, before fees.
    function totalAssets() public view override returns (uint256) {
        if (address(vault) != address(0)) return vault.previewRedeem(vault.balanceOf(address(this)));
        return aToken.balanceOf(address(this));
    }

    /// @notice The fee shares the interest since the last interaction owes the splitter (minted at the next one).
    function pendingFeeShares() public view returns (uint256 feeShares) {
        (feeShares,) = _accruedFeeShares();
    }

    /// @notice Mints the fee shares the interest owes the splitter now; anyone may call it (the splitter does, before
    ///         it releases fees).
    function accrueFee() external nonReentrant {
        _accrueFee();
    }

    /// @notice What the source lets out now: the vault's own limit, or the Aave reserve's idle liquidity.
    function liquidity() public view returns (uint256) {
        if (address(vault) != address(0)) return vault.maxWithdraw(address(this));
        return IERC20(asset()).balanceOf(address(aToken));
    }

    function maxWithdraw(address owner) public view override returns (uint256) {
        return Math.min(super.maxWithdraw(owner), liquidity());
    }

    function maxRedeem(address owner) public view override returns (uint256) {
        return Math.min(super.maxRedeem(owner), _convertToShares(liquidity(), Math.Rounding.Floor));
    }

    function deposit(uint256 assets, address receiver) public override nonReentrant returns (uint256) {
        _accrueFee();
        return super.deposit(assets, receiver);
    }

    function mint(uint256 shares, address receiver) public override nonReentrant returns (uint256) {
        _accrueFee();
        return super.mint(shares, receiver);
    }

    function withdraw(uint256 assets, address receiver, address owner) public override nonReentrant returns (uint256) {
        _accrueFee();
        return super.withdraw(assets, receiver, owner);
    }

    function redeem(uint256 shares, address receiver, address owner) public override nonReentrant returns (uint256) {
        _accrueFee();
        return super.redeem(shares, receiver, owner);
    }

    function _decimalsOffset() internal view override returns (uint8) {
        return _offset;
    }

    // Conversions count the fee shares not yet minted, so that previews made between interactions match what the next
    // interaction does (it mints them first).
    function _convertToShares(uint256 assets, Math.Rounding rounding) internal view override returns (uint256) {
        (uint256 feeShares, uint256 total) = _accruedFeeShares();
        return assets.mulDiv(totalSupply() + feeShares + 10 ** _offset, total + 1, rounding);
    }

    function _convertToAssets(uint256 shares, Math.Rounding rounding) internal view override returns (uint256) {
        (uint256 feeShares, uint256 total) = _accruedFeeShares();
        return shares.mulDiv(total + 1, totalSupply() + feeShares + 10 ** _offset, rounding);
    }

    function _deposit(address caller, address receiver, uint256 assets, uint256 shares) internal override {
        super._deposit(caller, receiver, assets, shares);
        if (address(vault) != address(0)) vault.deposit(assets, address(this));
        else aavePool.supply(asset(), assets, address(this), 0);
        lastTotalAssets = totalAssets();
    }

    function _withdraw(address caller, address receiver, address owner, uint256 assets, uint256 shares)
        internal
        override
    {
        if (caller != owner) _spendAllowance(owner, caller, shares);
        _burn(owner, shares);
        if (address(vault) != address(0)) vault.withdraw(assets, receiver, address(this));
        else aavePool.withdraw(asset(), assets, receiver);
        lastTotalAssets = totalAssets();
        emit Withdraw(caller, receiver, owner, assets, shares);
    }

    /// @dev The fee shares owed for the interest since lastTotalAssets, priced so that minting them leaves the other
    ///      holders exactly the interest less the fee; and the assets now.
    function _accruedFeeShares() private view returns (uint256 feeShares, uint256 total) {
        total = totalAssets();
        uint256 last = lastTotalAssets;
        if (total <= last || feeBps() == 0) return (0, total);
        uint256 feeAssets = (total - last).mulDiv(feeBps(), BPS);
        feeShares = feeAssets.mulDiv(totalSupply() + 10 ** _offset, total - feeAssets + 1, Math.Rounding.Floor);
    }

    function _accrueFee() private {
        (uint256 feeShares, uint256 total) = _accruedFeeShares();
        if (feeShares > 0) {
            _mint(splitter, feeShares);
            emit FeeAccrued(total - lastTotalAssets, feeShares, total);
        }
        lastTotalAssets = total;
    }
}
