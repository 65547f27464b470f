// Package evm decodes and signs Ethereum transactions and EIP-712 typed data
// for the signing activities, and builds the views the policy engine sees
// (eth.tx, eth.eip_712, eth.eip_7702_authorization). It is pure: no network,
// no database. Encoding and hashing come from go-ethereum.
//
// # What the SDKs send (checked against @turnkey/viem 0.14.37 and viem 2.57.20)
//
//   - sign_transaction: viem's serializeTransaction of the unsigned
//     transaction, hex without 0x, type TRANSACTION_TYPE_ETHEREUM. Legacy
//     transactions are rlp([nonce, gasPrice, gas, to, value, data]) without a
//     chain id and rlp([..., chainId, 0, 0]) with one (EIP-155); typed ones
//     are type || rlp(fields without signature). EIP-4844 transactions are
//     sent as the bare body (sidecars: false); the SDK re-attaches the blobs
//     to the signature it gets back.
//   - signMessage (personal_sign): payload = hashMessage(message), the
//     32-byte EIP-191 digest as 0x-prefixed hex, PAYLOAD_ENCODING_HEXADECIMAL
//     with HASH_FUNCTION_NO_OP. The server signs the digest as is.
//   - signTypedData: payload = serializeTypedData(typedData), the JSON text,
//     PAYLOAD_ENCODING_EIP712 with HASH_FUNCTION_NO_OP. The server computes the
//     EIP-712 signing hash from the JSON and signs it.
//   - signAuthorization: payload = JSON {address, chainId, nonce},
//     PAYLOAD_ENCODING_EIP7702_AUTHORIZATION with HASH_FUNCTION_NO_OP.
package evm
