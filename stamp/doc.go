// Package stamp creates and verifies the request stamps of the public API: a signature over the exact raw request
// body, carried in one of three headers.
//
//   - X-Stamp: an API key signature (P-256, secp256k1 or Ed25519). See [APIKey], [ParseAPIKeyStamp].
//   - X-Stamp-WebAuthn: a passkey assertion. See [ParseWebAuthnStamp], [VerifyRegistration].
//   - X-Stamp-Attested: a P-256 signature by a client key bound to a verification token or an OIDC token.
//     See [ParseAttestedStamp].
//
// A server calls [FromHeaders] once per request, switches on the concrete type of the returned [Stamp], verifies
// it over the raw body and then looks the credential up in its store. Every failure is an [*Error] whose [Kind]
// says how the caller should be answered.
//
// The package is pure: no I/O, no globals beyond constants, no clock. The only randomness is key generation and
// the nonces of ECDSA signing, both from crypto/rand.
package stamp
