// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";
import {EarnWrapper} from "./EarnWrapper.sol";

/// @title EarnFeeSplitter
/// @notice Holds the fee shares an EarnWrapper mints and divides them between its two payees, the client and the
///         platform, in the ratio of their fees (a payment splitter). A payee's release redeems its part of the shares
///         into the wrapper's asset, paid to the payee: fees arrive as the asset, never as shares. Anyone may trigger a
///         release; the assets only ever go to the payee.
contract EarnFeeSplitter {
    using Math for uint256;

    address public immutable factory;
    address public immutable client;
    address public immutable platform;
    uint256 public immutable clientFeeBps;
    uint256 public immutable platformFeeBps;

    /// @notice The wrapper whose fee shares this splits, set once by the factory that deploys both.
    EarnWrapper public wrapper;

    /// @notice Shares released to each payee so far, and to both.
    mapping(address payee => uint256) public released;
    uint256 public totalReleased;

    error NotPayee(address account);
    error NothingToRelease(address payee);
    error AlreadyInitialized();
    error Unauthorized(address caller);

    event FeeReleased(address indexed payee, uint256 shares, uint256 assets);

    constructor(address client_, address platform_, uint256 clientFeeBps_, uint256 platformFeeBps_) {
        factory = msg.sender;
        client = client_;
        platform = platform_;
        clientFeeBps = clientFeeBps_;
        platformFeeBps = platformFeeBps_;
    }

    /// @notice Binds the splitter to its wrapper; the factory calls it once, right after deploying the wrapper.
    function initialize(EarnWrapper wrapper_) external {
        if (msg.sender != factory) revert Unauthorized(msg.sender);
        if (address(wrapper) != address(0)) revert AlreadyInitialized();
        wrapper = wrapper_;
    }

    /// @notice The fee shares a payee may release now: its part of all the shares received, less what it released.
    ///         Counts the shares the wrapper owes the splitter but has not minted yet, which a release mints first.
    function releasable(address payee) public view returns (uint256) {
        uint256 bps = _bpsOf(payee);
        if (bps == 0) return 0;
        uint256 received = wrapper.balanceOf(address(this)) + wrapper.pendingFeeShares() + totalReleased;
        uint256 due = received.mulDiv(bps, clientFeeBps + platformFeeBps);
        return due > released[payee] ? due - released[payee] : 0;
    }

    /// @notice What a payee's releasable shares redeem for now, in the wrapper's asset.
    function releasableAssets(address payee) external view returns (uint256) {
        return wrapper.previewRedeem(releasable(payee));
    }

    /// @notice Redeems the payee's releasable shares and pays the asset to the payee.
    function release(address payee) external returns (uint256 assets) {
        if (payee != client && payee != platform) revert NotPayee(payee);
        wrapper.accrueFee();
        uint256 shares = releasable(payee);
        if (shares == 0) revert NothingToRelease(payee);
        released[payee] += shares;
        totalReleased += shares;
        assets = wrapper.redeem(shares, payee, address(this));
        emit FeeReleased(payee, shares, assets);
    }

    function _bpsOf(address payee) private view returns (uint256) {
        if (payee == client) return clientFeeBps;
        if (payee == platform) return platformFeeBps;
        return 0;
    }
}
