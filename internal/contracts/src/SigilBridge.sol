// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {ISwapRouter} from "@uniswap/v3-periphery/contracts/interfaces/ISwapRouter.sol";

/// @title SigilBridge
/// @notice Sigil's lock-and-release bridge, deployed on each chain it joins. `lock` takes a token on this chain and
///         announces it (Locked); Sigil's relayer, watching, calls `release` on the destination chain's bridge, which
///         pays the recipient out of the inventory it holds there — after swapping it through Uniswap V3 when the
///         lock asked for a swap, or, when that swap would give less than its minimum, as the bridged token itself
///         (a refund). Each lock is released once: its id names its chain, bridge and number. The relayers are
///         trusted to release only what was locked; the owner sets them, the routes between chains and the inventory.
contract SigilBridge is Ownable, ReentrancyGuard {
    using SafeERC20 for IERC20;

    ISwapRouter public immutable router;

    /// @notice The token a lock of `token` towards `chainId` is released as there (zero: no route).
    mapping(address token => mapping(uint256 chainId => address)) public routes;
    mapping(address => bool) public relayers;
    /// @notice Locks made on this chain so far: the number of the next one.
    uint256 public lockCount;
    /// @notice Locks of other chains released here.
    mapping(bytes32 id => bool) public released;

    /// @notice A lock to release, as the origin chain's Locked event describes it.
    struct Lock {
        bytes32 id;
        bytes32 ref;
        uint256 originChainId;
        address token; // on this chain: the route's destination token
        uint256 amount;
        address recipient;
        bytes destPath;
        uint256 destMinOut;
    }

    error ZeroAmount();
    error ZeroRecipient();
    error NoRoute(address token, uint256 chainId);
    error BadPath();
    error NotRelayer(address caller);
    error AlreadyReleased(bytes32 id);
    error WrongChain(uint256 chainId);

    event Locked(bytes32 indexed id, bytes32 indexed ref, address indexed sender, address token, uint256 amount,
        uint256 destChainId, address destToken, address recipient, bytes destPath, uint256 destMinOut);
    event Released(bytes32 indexed id, bytes32 indexed ref, address indexed recipient, address tokenOut, uint256 amountOut,
        bool refunded);
    event RouteSet(address indexed token, uint256 indexed chainId, address destToken);
    event RelayerSet(address indexed relayer, bool allowed);

    constructor(ISwapRouter router_, address owner_) Ownable(owner_) {
        router = router_;
    }

    modifier onlyRelayer() {
        if (!relayers[msg.sender]) revert NotRelayer(msg.sender);
        _;
    }

    function setRelayer(address relayer, bool allowed) external onlyOwner {
        relayers[relayer] = allowed;
        emit RelayerSet(relayer, allowed);
    }

    function setRoute(address token, uint256 chainId, address destToken) external onlyOwner {
        routes[token][chainId] = destToken;
        emit RouteSet(token, chainId, destToken);
    }

    /// @notice Moves inventory out of the bridge.
    function withdraw(IERC20 token, uint256 amount, address to) external onlyOwner {
        token.safeTransfer(to, amount);
    }

    /// @notice Takes `amount` of `token` from the caller for `recipient` on `destChainId`, where it is released as
    ///         the route's token, swapped along `destPath` (which must start with it) unless that is empty.
    function lock(address token, uint256 amount, uint256 destChainId, address recipient, bytes calldata destPath,
        uint256 destMinOut, bytes32 ref) external nonReentrant returns (bytes32 id) {
        if (amount == 0) revert ZeroAmount();
        if (recipient == address(0)) revert ZeroRecipient();
        address destToken = routes[token][destChainId];
        if (destToken == address(0)) revert NoRoute(token, destChainId);
        if (destPath.length > 0 && (destPath.length < 43 || (destPath.length - 20) % 23 != 0
                || address(bytes20(destPath[:20])) != destToken)) revert BadPath();
        IERC20(token).safeTransferFrom(msg.sender, address(this), amount);
        id = keccak256(abi.encode(block.chainid, address(this), lockCount++));
        emit Locked(id, ref, msg.sender, token, amount, destChainId, destToken, recipient, destPath, destMinOut);
    }

    /// @notice Releases a lock of another chain: its swap's output to the recipient, or the bridged token itself
    ///         when there is no swap or the swap would give less than its minimum.
    function release(Lock calldata l) external nonReentrant onlyRelayer returns (uint256 amountOut, bool refunded) {
        if (l.originChainId == block.chainid) revert WrongChain(l.originChainId);
        if (released[l.id]) revert AlreadyReleased(l.id);
        released[l.id] = true;
        if (l.destPath.length > 0) {
            IERC20(l.token).forceApprove(address(router), l.amount);
            try router.exactInput(ISwapRouter.ExactInputParams({path: l.destPath, recipient: l.recipient,
                deadline: block.timestamp, amountIn: l.amount, amountOutMinimum: l.destMinOut})) returns (uint256 out) {
                emit Released(l.id, l.ref, l.recipient, address(bytes20(l.destPath[l.destPath.length - 20:])), out, false);
                return (out, false);
            } catch {
                IERC20(l.token).forceApprove(address(router), 0);
                refunded = true;
            }
        }
        IERC20(l.token).safeTransfer(l.recipient, l.amount);
        emit Released(l.id, l.ref, l.recipient, l.token, l.amount, refunded);
        return (l.amount, refunded);
    }
}
