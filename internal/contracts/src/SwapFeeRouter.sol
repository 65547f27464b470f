// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Address} from "@openzeppelin/contracts/utils/Address.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {ISwapRouter} from "@uniswap/v3-periphery/contracts/interfaces/ISwapRouter.sol";

interface IWETH9 is IERC20 {
    function deposit() external payable;
    function withdraw(uint256 amount) external;
}

interface ISigilBridge {
    function lock(address token, uint256 amount, uint256 destChainId, address recipient, bytes calldata destPath,
        uint256 destMinOut, bytes32 ref) external returns (bytes32 id);
}

/// @title SwapFeeRouter
/// @notice Sigil's entry to Uniswap V3: it pulls the input from the caller, keeps the integrator's client fee
///         (credited to the fee receiver, who claims it with `claim`), swaps the rest through Uniswap's own
///         SwapRouter with the caller's minimum output — so slippage is enforced on-chain — and sends the output to
///         the recipient, or hands it to Sigil's bridge for delivery on another chain. Native ETH in is wrapped,
///         and out unwrapped, through WETH9. The contract holds nothing but the accrued fees.
contract SwapFeeRouter is ReentrancyGuard {
    using SafeERC20 for IERC20;

    uint256 private constant BPS = 10_000;
    /// @notice The largest client fee, as a share of the input, that a swap may carry.
    uint256 public constant MAX_FEE_BPS = 1_000;
    /// @notice The token address that stands for native ETH, in and out.
    address public constant NATIVE = address(0);

    ISwapRouter public immutable router;
    IWETH9 public immutable weth;

    /// @notice Client fees accrued to each receiver, by token, until claimed.
    mapping(address receiver => mapping(address token => uint256)) public accrued;

    /// @notice One swap. `path` is Uniswap V3's (token, fee, token, ...), starting with the input token (WETH for
    ///         native ETH); `amountIn` is what the caller pays, the fee included.
    struct Swap {
        bytes path;
        address tokenIn;
        uint256 amountIn;
        uint256 fee;
        address feeReceiver;
        address recipient;
        uint256 amountOutMinimum;
        uint256 deadline;
        bytes32 ref;
    }

    /// @notice Where a cross-chain swap's output goes: the bridge, the destination chain, and the swap the bridge
    ///         makes there (an empty path delivers the bridged token itself) with its minimum output.
    struct BridgeLeg {
        ISigilBridge bridge;
        uint256 destChainId;
        bytes destPath;
        uint256 destMinOut;
    }

    error ZeroAmount();
    error FeeAboveMaximum(uint256 fee, uint256 maximum);
    error ZeroFeeReceiver();
    error ZeroRecipient();
    error WrongValue(uint256 sent, uint256 expected);
    error BadPath();
    error Expired(uint256 deadline);
    error TooLittleReceived(uint256 amount, uint256 minimum);
    error NotWeth();

    event Swapped(bytes32 indexed ref, address indexed sender, address indexed recipient, address tokenIn,
        address tokenOut, uint256 amountIn, uint256 fee, uint256 amountOut);
    event FeeAccrued(address indexed receiver, address indexed token, uint256 amount);
    event FeesClaimed(address indexed receiver, address indexed token, uint256 amount);

    constructor(ISwapRouter router_, IWETH9 weth_) {
        router = router_;
        weth = weth_;
    }

    /// @notice Swaps on this chain and sends the output to `s.recipient`: as native ETH when `unwrapOutput` (the
    ///         path must then end in WETH). Needs an allowance of `s.amountIn` to this contract, or `msg.value` of
    ///         it for native ETH in.
    function swap(Swap calldata s, bool unwrapOutput) external payable nonReentrant returns (uint256 amountOut) {
        if (s.recipient == address(0)) revert ZeroRecipient();
        (address tokenIn, uint256 net) = _collect(s);
        if (s.path.length == 0) revert BadPath();
        address tokenOut = _checkPath(s.path, tokenIn);
        if (unwrapOutput && tokenOut != address(weth)) revert NotWeth();
        amountOut = _swap(s, tokenIn, net, unwrapOutput ? address(this) : s.recipient);
        if (unwrapOutput) {
            weth.withdraw(amountOut);
            Address.sendValue(payable(s.recipient), amountOut);
            tokenOut = NATIVE;
        }
        emit Swapped(s.ref, msg.sender, s.recipient, s.tokenIn, tokenOut, s.amountIn, s.fee, amountOut);
    }

    /// @notice Swaps on this chain into the token the bridge carries (no swap when the path is empty), then locks it
    ///         in the bridge for `s.recipient` on the destination chain, where the bridge's relayer releases it
    ///         through `leg.destPath`. `s.amountOutMinimum` bounds what is locked.
    function swapAndBridge(Swap calldata s, BridgeLeg calldata leg) external payable nonReentrant returns (bytes32 id) {
        if (s.recipient == address(0)) revert ZeroRecipient();
        (address token, uint256 amount) = _collect(s);
        if (s.path.length > 0) {
            address tokenOut = _checkPath(s.path, token);
            amount = _swap(s, token, amount, address(this));
            token = tokenOut;
        } else {
            if (block.timestamp > s.deadline) revert Expired(s.deadline);
            if (amount < s.amountOutMinimum) revert TooLittleReceived(amount, s.amountOutMinimum);
        }
        IERC20(token).forceApprove(address(leg.bridge), amount);
        id = leg.bridge.lock(token, amount, leg.destChainId, s.recipient, leg.destPath, leg.destMinOut, s.ref);
        emit Swapped(s.ref, msg.sender, s.recipient, s.tokenIn, token, s.amountIn, s.fee, amount);
    }

    /// @notice Pays `receiver` every fee accrued to it in `tokens`. Anyone may call it: the fees go to the receiver
    ///         alone.
    function claim(address receiver, address[] calldata tokens) external nonReentrant {
        for (uint256 i = 0; i < tokens.length; i++) {
            uint256 amount = accrued[receiver][tokens[i]];
            if (amount == 0) continue;
            accrued[receiver][tokens[i]] = 0;
            IERC20(tokens[i]).safeTransfer(receiver, amount);
            emit FeesClaimed(receiver, tokens[i], amount);
        }
    }

    /// @notice Takes the input from the caller and credits the fee; returns the token swapped and what is left of it.
    function _collect(Swap calldata s) private returns (address token, uint256 net) {
        if (s.amountIn == 0) revert ZeroAmount();
        uint256 maximum = s.amountIn * MAX_FEE_BPS / BPS;
        if (s.fee > maximum) revert FeeAboveMaximum(s.fee, maximum);
        if (s.fee > 0 && s.feeReceiver == address(0)) revert ZeroFeeReceiver();
        if (s.tokenIn == NATIVE) {
            if (msg.value != s.amountIn) revert WrongValue(msg.value, s.amountIn);
            weth.deposit{value: msg.value}();
            token = address(weth);
        } else {
            if (msg.value != 0) revert WrongValue(msg.value, 0);
            IERC20(s.tokenIn).safeTransferFrom(msg.sender, address(this), s.amountIn);
            token = s.tokenIn;
        }
        if (s.fee > 0) {
            accrued[s.feeReceiver][token] += s.fee;
            emit FeeAccrued(s.feeReceiver, token, s.fee);
        }
        net = s.amountIn - s.fee;
    }

    function _swap(Swap calldata s, address tokenIn, uint256 amount, address to) private returns (uint256) {
        IERC20(tokenIn).forceApprove(address(router), amount);
        return router.exactInput(ISwapRouter.ExactInputParams({
            path: s.path, recipient: to, deadline: s.deadline, amountIn: amount, amountOutMinimum: s.amountOutMinimum
        }));
    }

    /// @notice Checks that a path is well formed (20 bytes per token, 3 per fee) and starts with tokenIn; returns its
    ///         last token.
    function _checkPath(bytes calldata path, address tokenIn) private pure returns (address) {
        if (path.length < 43 || (path.length - 20) % 23 != 0 || address(bytes20(path[:20])) != tokenIn) revert BadPath();
        return address(bytes20(path[path.length - 20:]));
    }

    /// @notice Takes ETH only from WETH9, when unwrapping.
    receive() external payable {
        if (msg.sender != address(weth)) revert NotWeth();
    }
}
