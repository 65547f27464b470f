// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Metadata} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Metadata.sol";
import {IERC4626} from "@openzeppelin/contracts/interfaces/IERC4626.sol";
import {Create2} from "@openzeppelin/contracts/utils/Create2.sol";
import {EarnWrapper} from "./EarnWrapper.sol";
import {EarnFeeSplitter} from "./EarnFeeSplitter.sol";
import {IAaveV3Pool} from "./interfaces/IAaveV3Pool.sol";

/// @title EarnWrapperFactory
/// @notice Deploys Earn fee wrappers and their fee splitters at addresses that follow from what they are (CREATE2):
///         the source (an ERC-4626 vault, or an Aave v3 pool's reserve of an asset), the client's fee and its wallet,
///         and this factory's platform fee and wallet. The same configuration always has the same addresses, so a
///         deployment can be named before it is mined and a repeated one is recognised; another fee or wallet is
///         another wrapper. Anyone may deploy: a wrapper takes no one's funds and has no owner.
contract EarnWrapperFactory {
    /// @notice The platform's fee on the yield of every wrapper deployed here, and the wallet it is paid to.
    address public immutable platform;
    uint256 public immutable platformFeeBps;

    error SamePayee(address wallet);

    event WrapperDeployed(
        address indexed wrapper,
        address indexed splitter,
        address indexed source,
        address asset,
        uint256 clientFeeBps,
        address clientFeeWallet
    );

    constructor(address platform_, uint256 platformFeeBps_) {
        platform = platform_;
        platformFeeBps = platformFeeBps_;
    }

    /// @notice Deploys the wrapper of an ERC-4626 vault for a client's fee, and its splitter.
    function deployVaultWrapper(IERC4626 vault, uint256 clientFeeBps, address clientFeeWallet)
        external
        returns (address wrapper, address splitter)
    {
        return _deploy(address(vault), IERC20(vault.asset()), true, clientFeeBps, clientFeeWallet);
    }

    /// @notice Deploys the wrapper of an Aave v3 pool's reserve of asset for a client's fee, and its splitter.
    function deployAaveWrapper(IAaveV3Pool pool, IERC20 asset, uint256 clientFeeBps, address clientFeeWallet)
        external
        returns (address wrapper, address splitter)
    {
        return _deploy(address(pool), asset, false, clientFeeBps, clientFeeWallet);
    }

    /// @notice The addresses deployVaultWrapper gives these arguments, deployed or not.
    function predictVaultWrapper(IERC4626 vault, uint256 clientFeeBps, address clientFeeWallet)
        external
        view
        returns (address wrapper, address splitter)
    {
        return _predict(address(vault), IERC20(vault.asset()), true, clientFeeBps, clientFeeWallet);
    }

    /// @notice The addresses deployAaveWrapper gives these arguments, deployed or not.
    function predictAaveWrapper(IAaveV3Pool pool, IERC20 asset, uint256 clientFeeBps, address clientFeeWallet)
        external
        view
        returns (address wrapper, address splitter)
    {
        return _predict(address(pool), asset, false, clientFeeBps, clientFeeWallet);
    }

    function _deploy(address source, IERC20 asset, bool isVault, uint256 clientFeeBps, address clientFeeWallet)
        private
        returns (address wrapper, address splitter)
    {
        if (clientFeeWallet == platform) revert SamePayee(clientFeeWallet);
        bytes32 salt = _salt(source, asset, clientFeeBps, clientFeeWallet);
        splitter = Create2.deploy(0, salt, _splitterCode(clientFeeBps, clientFeeWallet));
        wrapper = Create2.deploy(0, salt, _wrapperCode(source, asset, isVault, splitter, clientFeeBps));
        EarnFeeSplitter(splitter).initialize(EarnWrapper(wrapper));
        emit WrapperDeployed(wrapper, splitter, source, address(asset), clientFeeBps, clientFeeWallet);
    }

    function _predict(address source, IERC20 asset, bool isVault, uint256 clientFeeBps, address clientFeeWallet)
        private
        view
        returns (address wrapper, address splitter)
    {
        bytes32 salt = _salt(source, asset, clientFeeBps, clientFeeWallet);
        splitter = Create2.computeAddress(salt, keccak256(_splitterCode(clientFeeBps, clientFeeWallet)));
        wrapper = Create2.computeAddress(salt, keccak256(_wrapperCode(source, asset, isVault, splitter, clientFeeBps)));
    }

    function _salt(address source, IERC20 asset, uint256 clientFeeBps, address clientFeeWallet)
        private
        pure
        returns (bytes32)
    {
        return keccak256(abi.encode(source, asset, clientFeeBps, clientFeeWallet));
    }

    function _splitterCode(uint256 clientFeeBps, address clientFeeWallet) private view returns (bytes memory) {
        return abi.encodePacked(
            type(EarnFeeSplitter).creationCode, abi.encode(clientFeeWallet, platform, clientFeeBps, platformFeeBps)
        );
    }

    function _wrapperCode(address source, IERC20 asset, bool isVault, address splitter, uint256 clientFeeBps)
        private
        view
        returns (bytes memory)
    {
        string memory symbol = IERC20Metadata(address(asset)).symbol();
        return abi.encodePacked(
            type(EarnWrapper).creationCode,
            abi.encode(
                asset,
                isVault ? source : address(0),
                isVault ? address(0) : source,
                splitter,
                clientFeeBps,
                platformFeeBps,
                string.concat("Sigil Earn ", symbol),
                string.concat("se", symbol)
            )
        );
    }
}
