// Package token issues and verifies the JWTs the coordinator hands out and
// publishes the public half of its signing key as a JWK Set.
//
// Three kinds of token exist, and two of them are not standard JWTs, because
// the official SDKs parse them with their own code:
//
//   - Verification tokens (VERIFY_OTP results): ES256 over SHA-256 of the
//     signing input, but "exp" is a millisecond-epoch string.
//   - Session tokens (OTP_LOGIN, OAUTH_LOGIN, STAMP_LOGIN results): "exp" is
//     a number of seconds, and the signature is over
//     SHA-256(SHA-256(signing input)) — a double hash.
//   - OIDC ID tokens issued by the coordinator itself: standard ES256 JWTs
//     with a "kid" header, built with github.com/golang-jwt/jwt/v5.
//
// The SDKs decode the payload of the first two with the browser's atob, which
// knows only the standard base64 alphabet. Payloads are therefore encoded so
// that their base64url form never contains '-' or '_' (see encodeSegment), which
// makes base64url and base64 agree.
//
// The package also builds and verifies the clientSignature that proves the
// holder of a verification token's key asked for a given login or signup.
//
// The package is pure: keys and the current time are passed in.
package token
