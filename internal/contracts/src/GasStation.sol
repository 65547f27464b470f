// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {BatchDelegate} from "./BatchDelegate.sol";

/// @title GasStation
/// @notice What a gas sponsor calls to run an account's signed batch: the sponsor pays the gas, the account's
///         delegate (BatchDelegate, fixed to this station) checks the account's signature, nonce and deadline and
///         runs the calls from the account. The station holds nothing and trusts nothing: anyone may submit a
///         batch an account signed, and nothing else.
contract GasStation {
    /// @notice Runs calls an account signed, through its delegate.
    function execute(
        address payable account,
        BatchDelegate.Call[] calldata calls,
        uint256 nonce,
        uint256 deadline,
        bytes calldata signature
    ) external {
        BatchDelegate(account).executeSponsored(calls, nonce, deadline, signature);
    }
}
