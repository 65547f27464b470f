// The Ethereum cryptography of the export-and-sign frame, bundled into static/assets/ethereum-crypto.js by build.sh:
// secp256k1 and Keccak-256 from the noble libraries (audited, without dependencies), since WebCrypto has neither.
// The frame sees three functions and nothing else of the libraries.
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { keccak_256 } from "@noble/hashes/sha3.js";

globalThis.SigilEthereumCrypto = Object.freeze({
  keccak256: (bytes) => keccak_256(bytes),
  // publicKey is the uncompressed public key (65 bytes, 0x04 first) of a 32-byte secret; it throws for a secret that
  // is not a key (zero, or not below the group order).
  publicKey: (secret) => secp256k1.getPublicKey(secret, false),
  // sign signs a 32-byte digest as it is (no hashing), deterministically (RFC 6979) and with a low s, and returns the
  // recovery id with r and s (32 bytes each).
  sign(digest, secret) {
    const sig = secp256k1.sign(digest, secret, { prehash: false, lowS: true, format: "recovered" });
    return { recovery: sig[0], r: sig.slice(1, 33), s: sig.slice(33, 65) };
  },
});
