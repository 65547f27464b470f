// Package oidc verifies OpenID Connect ID tokens from trusted issuers and
// performs the OAuth 2.0 authorization-code exchange (with PKCE) against
// providers that issue no ID token of their own, such as X and Discord.
//
// Verification never talks to an issuer that is not configured: the token's
// unverified "iss" claim is looked up first, and only a trusted issuer's
// discovery document and JWKS are fetched. Keys are cached per issuer and
// refreshed at most once per refresh interval, whether the cache expired or
// a token names a key id the cache does not know.
//
// Every error returned by [Verifier.Verify] wraps exactly one of the
// exported Err* sentinels, so a caller can map it with errors.Is; likewise
// [Provider.Exchange] errors wrap one of the ErrOAuth2* sentinels and, when
// the provider answered with an error, a [*ProviderError].
package oidc
