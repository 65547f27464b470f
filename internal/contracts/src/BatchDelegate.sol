// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";

/// @title BatchDelegate
/// @notice The code an externally owned account delegates to (EIP-7702) so that several calls run as one transaction,
///         in order, all of them or none: sent by the account itself (execute), or by a gas sponsor through the
///         GasStation with the account's EIP-712 signature over the calls (executeSponsored).
/// @dev Reviewed against EIP-7702's security considerations:
///      - Who may call: execute only the account itself (msg.sender == address(this)); executeSponsored only the
///        GasStation fixed at deployment, and only with the account's signature over exactly these calls. No one
///        else can make a delegated account call anything.
///      - Replay: a sponsored batch's signature is for one chain id and one account (the EIP-712 domain's chainId
///        and verifyingContract, the account itself), and one nonce of the account's sponsored batches, used once;
///        signatures are not malleable (OpenZeppelin's ECDSA refuses high s).
///      - Deadline: a sponsored batch after its deadline is refused, so a signature cannot be held and used later.
///      - Storage: one slot, the sponsored-batch nonce, at an ERC-7201 namespaced location that no other delegate
///        laying out its storage from slot 0 overlaps. It outlives a removed delegation, so a signature used once
///        stays used if the account delegates here again.
///      - Initialization: none is needed, so there is no window in which someone else could initialize it.
///      - Receiving: a delegated account still receives ETH (receive) and safe transfers of ERC-721 and ERC-1155
///        tokens, as it did with no code.
contract BatchDelegate {
    struct Call {
        address to;
        uint256 value;
        bytes data;
    }

    error Unauthorized(address caller);
    error Expired(uint256 deadline);
    error BadNonce(uint256 expected, uint256 given);
    error BadSignature();

    /// @notice The only caller of executeSponsored.
    address public immutable station;

    bytes32 private constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    bytes32 private constant CALL_TYPEHASH = keccak256("Call(address to,uint256 value,bytes data)");
    bytes32 private constant BATCH_TYPEHASH =
        keccak256("BatchExecution(Call[] calls,uint256 nonce,uint256 deadline)Call(address to,uint256 value,bytes data)");
    /// @dev keccak256(abi.encode(uint256(keccak256("sigil.batchdelegate.nonce")) - 1)) & ~bytes32(uint256(0xff))
    bytes32 private constant NONCE_SLOT = 0x41958aa71b52c4d75f6688ba452f3e75e10b4f62b3788d50c545f7152b41bf00;

    constructor(address station_) {
        station = station_;
    }

    /// @notice Runs the calls in order from the account; the first that reverts reverts the batch with its reason.
    function execute(Call[] calldata calls) external payable {
        if (msg.sender != address(this)) revert Unauthorized(msg.sender);
        _run(calls);
    }

    /// @notice Runs calls the account signed (EIP-712 BatchExecution), submitted and paid for by a gas sponsor
    ///         through the station.
    function executeSponsored(Call[] calldata calls, uint256 nonce, uint256 deadline, bytes calldata signature)
        external
    {
        if (msg.sender != station) revert Unauthorized(msg.sender);
        if (block.timestamp > deadline) revert Expired(deadline);
        uint256 expected = sponsoredNonce();
        if (nonce != expected) revert BadNonce(expected, nonce);
        bytes32 digest = keccak256(abi.encodePacked("\x19\x01", domainSeparator(), _hashBatch(calls, nonce, deadline)));
        if (ECDSA.recover(digest, signature) != address(this)) revert BadSignature();
        bytes32 slot = NONCE_SLOT;
        assembly {
            sstore(slot, add(nonce, 1))
        }
        _run(calls);
    }

    /// @notice The nonce the account's next sponsored batch signs.
    function sponsoredNonce() public view returns (uint256 n) {
        bytes32 slot = NONCE_SLOT;
        assembly {
            n := sload(slot)
        }
    }

    /// @notice The EIP-712 domain of the account's sponsored batches: this chain, this account.
    function domainSeparator() public view returns (bytes32) {
        return keccak256(
            abi.encode(DOMAIN_TYPEHASH, keccak256("SigilBatchDelegate"), keccak256("1"), block.chainid, address(this))
        );
    }

    function _hashBatch(Call[] calldata calls, uint256 nonce, uint256 deadline) private pure returns (bytes32) {
        bytes32[] memory hashes = new bytes32[](calls.length);
        for (uint256 i = 0; i < calls.length; i++) {
            hashes[i] = keccak256(abi.encode(CALL_TYPEHASH, calls[i].to, calls[i].value, keccak256(calls[i].data)));
        }
        return keccak256(abi.encode(BATCH_TYPEHASH, keccak256(abi.encodePacked(hashes)), nonce, deadline));
    }

    function _run(Call[] calldata calls) private {
        for (uint256 i = 0; i < calls.length; i++) {
            (bool ok, bytes memory reason) = calls[i].to.call{value: calls[i].value}(calls[i].data);
            if (!ok) {
                assembly {
                    revert(add(reason, 32), mload(reason))
                }
            }
        }
    }

    receive() external payable {}

    function onERC721Received(address, address, uint256, bytes calldata) external pure returns (bytes4) {
        return this.onERC721Received.selector;
    }

    function onERC1155Received(address, address, uint256, uint256, bytes calldata) external pure returns (bytes4) {
        return this.onERC1155Received.selector;
    }

    function onERC1155BatchReceived(address, address, uint256[] calldata, uint256[] calldata, bytes calldata)
        external
        pure
        returns (bytes4)
    {
        return this.onERC1155BatchReceived.selector;
    }
}
