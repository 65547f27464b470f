// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Metadata} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Metadata.sol";
import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";

/// @notice The lending pool as seen by its receipt tokens.
interface IReserveIncome {
    function getReserveNormalizedIncome(address asset) external view returns (uint256);
}

/// @title InterestToken
/// @notice The interest-bearing receipt token of one LendingPool reserve, like an Aave v3 aToken:
///         balances are stored scaled by the reserve's liquidity index (a ray, 1e27) and read back
///         multiplied by the current index, so every holder's balance grows as interest accrues.
///         Only the pool mints and burns. Transfers move the scaled amount that is worth `amount`.
contract InterestToken is IERC20Metadata {
    using Math for uint256;

    uint256 private constant RAY = 1e27;

    address public immutable pool;
    address public immutable underlyingAsset;
    string private _name;
    string private _symbol;
    uint8 private immutable _decimals;

    mapping(address => uint256) private _scaledBalances;
    mapping(address => mapping(address => uint256)) private _allowances;
    uint256 private _scaledTotalSupply;

    error OnlyPool(address caller);
    error InsufficientBalance(address account, uint256 balance, uint256 needed);
    error InsufficientAllowance(address spender, uint256 allowance, uint256 needed);
    error ZeroAddress();
    error ZeroScaledAmount();

    constructor(address underlyingAsset_, string memory name_, string memory symbol_, uint8 decimals_) {
        pool = msg.sender;
        underlyingAsset = underlyingAsset_;
        _name = name_;
        _symbol = symbol_;
        _decimals = decimals_;
    }

    modifier onlyPool() {
        if (msg.sender != pool) revert OnlyPool(msg.sender);
        _;
    }

    function name() external view returns (string memory) {
        return _name;
    }

    function symbol() external view returns (string memory) {
        return _symbol;
    }

    function decimals() external view returns (uint8) {
        return _decimals;
    }

    function balanceOf(address account) public view returns (uint256) {
        return _scaledBalances[account].mulDiv(_index(), RAY);
    }

    function totalSupply() external view returns (uint256) {
        return _scaledTotalSupply.mulDiv(_index(), RAY);
    }

    function scaledBalanceOf(address account) external view returns (uint256) {
        return _scaledBalances[account];
    }

    function scaledTotalSupply() external view returns (uint256) {
        return _scaledTotalSupply;
    }

    function allowance(address owner, address spender) external view returns (uint256) {
        return _allowances[owner][spender];
    }

    function approve(address spender, uint256 amount) external returns (bool) {
        if (spender == address(0)) revert ZeroAddress();
        _allowances[msg.sender][spender] = amount;
        emit Approval(msg.sender, spender, amount);
        return true;
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        _transfer(msg.sender, to, amount);
        return true;
    }

    function transferFrom(address from, address to, uint256 amount) external returns (bool) {
        uint256 allowed = _allowances[from][msg.sender];
        if (allowed != type(uint256).max) {
            if (allowed < amount) revert InsufficientAllowance(msg.sender, allowed, amount);
            _allowances[from][msg.sender] = allowed - amount;
        }
        _transfer(from, to, amount);
        return true;
    }

    /// @notice Credits `amount` of the underlying at `index`; rounds the scaled amount down.
    function mint(address to, uint256 amount, uint256 index) external onlyPool {
        uint256 scaled = amount.mulDiv(RAY, index);
        if (scaled == 0) revert ZeroScaledAmount();
        _scaledBalances[to] += scaled;
        _scaledTotalSupply += scaled;
        emit Transfer(address(0), to, amount);
    }

    /// @notice Debits `amount` of the underlying at `index`; rounds the scaled amount up.
    function burn(address from, uint256 amount, uint256 index) external onlyPool {
        uint256 scaled = amount.mulDiv(RAY, index, Math.Rounding.Ceil);
        uint256 balance = _scaledBalances[from];
        if (balance < scaled) revert InsufficientBalance(from, balance.mulDiv(index, RAY), amount);
        _scaledBalances[from] = balance - scaled;
        _scaledTotalSupply -= scaled;
        emit Transfer(from, address(0), amount);
    }

    function _transfer(address from, address to, uint256 amount) private {
        if (to == address(0)) revert ZeroAddress();
        uint256 index = _index();
        uint256 scaled = amount.mulDiv(RAY, index, Math.Rounding.Ceil);
        uint256 balance = _scaledBalances[from];
        if (balance < scaled) revert InsufficientBalance(from, balance.mulDiv(index, RAY), amount);
        _scaledBalances[from] = balance - scaled;
        _scaledBalances[to] += scaled;
        emit Transfer(from, to, amount);
    }

    function _index() private view returns (uint256) {
        return IReserveIncome(pool).getReserveNormalizedIncome(underlyingAsset);
    }
}
