// Package stamp creates and verifies the request stamps of the public API: a signature over the exact raw request
// body, carried in one of three headers.
//
//   - X-Stamp: an API key signature (P-256, secp256k1 or Ed25519). See [APIKey], [ParseAPIKeyStamp].
//   - X-Stamp-Webauthn: a passkey assertion. See [ParseWebAuthnStamp]; passkeys are registered with
//     [VerifyRegistration].
//   - X-Stamp-Attested: a P-256 signature by a client key bound to a verification token or an OIDC token.
//     See [ParseAttestedStamp].
//
// A server calls [FromHeaders] once per request, switches on the concrete type of the returned [Stamp], verifies
// it over the raw body (never a re-serialisation of it) and then looks the credential up in its store. Every
// failure is an [*Error] whose [Kind] says how the caller should be answered; errors.Is works with [ErrMissing],
// [ErrMalformed], [ErrUnknownScheme], [ErrInvalidSignature] and [ErrInvalidAttestation].
//
// A stamp carries no time and no nonce: the body does (timestampMs), and the activity engine treats an identical
// body as the same activity, which is what makes a replayed stamp harmless. The same holds for passkeys whose
// authenticator never counts (counter 0).
//
// The package is pure: no I/O, no clock, no mutable globals. The only randomness is key generation and the
// nonces of P-256 signing, both from crypto/rand. (go-webauthn, for attestations that carry certificates, checks
// their validity period against the system clock.)
package stamp
