// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {MerkleProof} from "@openzeppelin/contracts/utils/cryptography/MerkleProof.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/// @title EarnRewardDistributor
/// @notice Pays out rewards the way Merkl's Distributor does: an updater publishes, from time to time, the root of a
///         Merkle tree whose leaves are keccak256(abi.encode(user, token, amount)) with amount the user's cumulative
///         reward in that token so far; a user claims with a proof of its leaf against the live root and receives the
///         amount less what it has claimed before. Only the user, or an operator it named, may claim its rewards
///         (Merkl's NotWhitelisted otherwise), and they are paid to the user. Pairs are hashed in sorted order
///         (OpenZeppelin's MerkleProof, Merkl's own rule).
contract EarnRewardDistributor is Ownable {
    using SafeERC20 for IERC20;

    struct MerkleTree {
        bytes32 merkleRoot;
        /// @dev Where the tree's leaves are published (Merkl: an IPFS hash); here a hash of the published file.
        bytes32 ipfsHash;
    }

    struct Claim {
        uint208 amount;
        uint48 timestamp;
        bytes32 merkleRoot;
    }

    /// @notice The live tree, and when it was published.
    MerkleTree public tree;
    uint48 public lastUpdate;

    /// @notice Who may publish roots besides the owner.
    mapping(address => uint256) public canUpdateMerkleRoot;
    /// @notice What each user has claimed of each token, cumulatively, and against which root.
    mapping(address user => mapping(address token => Claim)) public claimed;
    /// @notice Operators a user allows to claim for it (1: allowed).
    mapping(address user => mapping(address operator => uint256)) public operators;

    error InvalidLengths();
    error InvalidProof();
    error NotWhitelisted();
    error NotTrusted();

    event Claimed(address indexed user, address indexed token, uint256 amount);
    event TreeUpdated(bytes32 merkleRoot, bytes32 ipfsHash, uint48 timestamp);
    event OperatorToggled(address indexed user, address indexed operator, bool isWhitelisted);
    event TrustedToggled(address indexed updater, bool trusted);

    constructor(address owner_) Ownable(owner_) {}

    /// @notice The root claims are checked against.
    function getMerkleRoot() public view returns (bytes32) {
        return tree.merkleRoot;
    }

    /// @notice Publishes a new tree: every later claim is checked against its root.
    function updateTree(MerkleTree calldata tree_) external {
        if (msg.sender != owner() && canUpdateMerkleRoot[msg.sender] != 1) revert NotTrusted();
        tree = tree_;
        lastUpdate = uint48(block.timestamp);
        emit TreeUpdated(tree_.merkleRoot, tree_.ipfsHash, lastUpdate);
    }

    /// @notice Lets updater publish roots (or stops it).
    function toggleTrusted(address updater) external onlyOwner {
        uint256 trusted = 1 - canUpdateMerkleRoot[updater];
        canUpdateMerkleRoot[updater] = trusted;
        emit TrustedToggled(updater, trusted == 1);
    }

    /// @notice Lets operator claim the caller's rewards (or stops it). The rewards still go to the caller.
    function toggleOperator(address operator) external {
        uint256 allowed = 1 - operators[msg.sender][operator];
        operators[msg.sender][operator] = allowed;
        emit OperatorToggled(msg.sender, operator, allowed == 1);
    }

    /// @notice Claims, for each i, users[i]'s cumulative amounts[i] of tokens[i] with proofs[i] against the live root,
    ///         paying users[i] what it has not claimed yet.
    function claim(address[] calldata users, address[] calldata tokens, uint256[] calldata amounts, bytes32[][] calldata proofs)
        external
    {
        uint256 n = users.length;
        if (n == 0 || n != tokens.length || n != amounts.length || n != proofs.length) revert InvalidLengths();
        bytes32 root = getMerkleRoot();
        for (uint256 i; i < n; i++) {
            address user = users[i];
            address token = tokens[i];
            uint256 amount = amounts[i];
            if (msg.sender != user && operators[user][msg.sender] != 1) revert NotWhitelisted();
            bytes32 leaf = keccak256(abi.encode(user, token, amount));
            if (!MerkleProof.verifyCalldata(proofs[i], root, leaf)) revert InvalidProof();
            uint256 toSend = amount - claimed[user][token].amount;
            claimed[user][token] = Claim(uint208(amount), uint48(block.timestamp), root);
            if (toSend > 0) IERC20(token).safeTransfer(user, toSend);
            emit Claimed(user, token, toSend);
        }
    }
}
