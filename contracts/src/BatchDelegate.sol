// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title BatchDelegate
/// @notice The code an externally owned account delegates to (EIP-7702) so that one transaction of its own runs
///         several calls in order, all of them or none.
/// @dev Reviewed against EIP-7702's security considerations:
///      - Who may call: only the account itself (msg.sender == address(this)), that is the account's own transaction
///        sent to itself. No one else can make a delegated account call anything, so a delegation grants no one a
///        power the key did not already have.
///      - Replay: there is no signature to replay here. The delegation itself is an authorization the account's key
///        signs for one chain id (never 0, which would be valid on every chain) and the account's next nonce, so it
///        is used once, on one chain.
///      - Storage: none. A delegation to this contract leaves nothing behind when it is removed or replaced, and
///        nothing another delegate could misread as its own.
///      - Initialization: none is needed, so there is no window in which someone else could initialize it.
///      - Receiving: a delegated account still receives ETH (receive) and safe transfers of ERC-721 and ERC-1155
///        tokens, as it did with no code.
///      A deadline belongs to signed intents that someone else submits (sponsorship); this contract has none.
contract BatchDelegate {
    struct Call {
        address to;
        uint256 value;
        bytes data;
    }

    error Unauthorized(address caller);

    /// @notice Runs the calls in order from the account; the first that reverts reverts the batch with its reason.
    function execute(Call[] calldata calls) external payable {
        if (msg.sender != address(this)) revert Unauthorized(msg.sender);
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
