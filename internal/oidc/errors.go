package oidc

import (
	"errors"
	"fmt"
)

// Errors of ID-token verification. All but ErrDiscovery mean the token
// itself is unacceptable; ErrDiscovery means the issuer could not be reached
// or served unusable metadata, so the same token may verify later.
var (
	ErrMalformed       = errors.New("oidc: malformed token")
	ErrUntrustedIssuer = errors.New("oidc: untrusted issuer")
	ErrUnsupportedAlg  = errors.New("oidc: unsupported signing algorithm")
	ErrDiscovery       = errors.New("oidc: issuer discovery failed")
	ErrUnknownKey      = errors.New("oidc: unknown signing key")
	ErrBadSignature    = errors.New("oidc: bad signature")
	ErrExpired         = errors.New("oidc: token expired")
	ErrNotYetValid     = errors.New("oidc: token not yet valid")
	ErrWrongAudience   = errors.New("oidc: wrong audience")
	ErrNonceMismatch   = errors.New("oidc: nonce mismatch")
)

// Errors of the OAuth 2.0 code exchange.
var (
	// ErrOAuth2BadRequest: the caller's parameters are unusable (checked
	// before any network call).
	ErrOAuth2BadRequest = errors.New("oauth2: invalid exchange request")
	// ErrOAuth2Rejected: the provider refused the code or the access token
	// (invalid_grant, invalid_client, 401 from user info, ...).
	ErrOAuth2Rejected = errors.New("oauth2: provider rejected the request")
	// ErrOAuth2Unavailable: the provider could not be reached, timed out
	// or answered with a server error.
	ErrOAuth2Unavailable = errors.New("oauth2: provider unavailable")
	// ErrOAuth2BadResponse: the provider answered successfully but with
	// something we cannot use (no access token, no subject, not JSON, too big).
	ErrOAuth2BadResponse = errors.New("oauth2: unusable provider response")
)

// ProviderError is an error answer of an OAuth 2.0 provider. It unwraps to
// ErrOAuth2Rejected (4xx) or ErrOAuth2Unavailable (5xx, 429).
type ProviderError struct {
	Provider    string // Provider.Name
	Endpoint    string // "token" or "userinfo"
	StatusCode  int    // HTTP status
	Code        string // RFC 6749 "error", e.g. "invalid_grant"; may be empty
	Description string // RFC 6749 "error_description"; may be empty
}

func (e *ProviderError) Error() string {
	msg := fmt.Sprintf("oauth2: %s %s endpoint answered HTTP %d", e.Provider, e.Endpoint, e.StatusCode)
	if e.Code != "" {
		msg += ": " + e.Code
	}
	if e.Description != "" {
		msg += " (" + e.Description + ")"
	}
	return msg
}

func (e *ProviderError) Unwrap() error {
	if e.StatusCode >= 500 || e.StatusCode == 429 {
		return ErrOAuth2Unavailable
	}
	return ErrOAuth2Rejected
}

// truncate shortens attacker-controlled strings before they go into errors.
func truncate(s string) string {
	const limit = 120
	if len(s) <= limit {
		return s
	}
	return s[:limit] + "…"
}

func truncateAll(values []string) []string {
	out := make([]string, len(values))
	for i, s := range values {
		out[i] = truncate(s)
	}
	return out
}
