// Package keys derives, addresses and uses the key material of HD wallets.
//
// It covers BIP-39 mnemonics and seeds, BIP-32 derivation on secp256k1, SLIP-10
// derivation on Ed25519 (hardened only) and NIST P-256, BIP-32 path parsing,
// the address formats the public API names (ADDRESS_FORMAT_*), and signing
// with each curve. The package is pure: no I/O besides crypto/rand, no mutable
// globals.
//
// # Wiping secrets
//
// Mnemonics, seeds and private keys are passed as byte slices so that callers
// can overwrite them with [Zero] (or [Node.Zero]) as soon as they are done.
// Go cannot guarantee that no other copy survives:
//   - the garbage collector may have moved or copied a value before it was wiped;
//   - crypto/pbkdf2 and crypto/hmac keep internal copies of their key material
//     (the PBKDF2 password is converted to a string, the HMAC pads live in the
//     hash state) that callers cannot reach;
//   - values converted to string (JSON decoding, string(b)) are immutable and
//     stay in memory until the collector reuses it;
//   - registers and stack slots are not cleared.
//
// Wiping therefore shortens the time a secret sits in memory; it is not a
// guarantee. Keep the plaintext lifetime short: open the sealed blob, derive,
// sign, wipe, in one call.
package keys
