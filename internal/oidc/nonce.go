package oidc

import (
	"crypto/sha256"
	"encoding/hex"
)

// PublicKeyNonce is the nonce that binds an ID token to a client key:
// lowercase hex of SHA-256 over the key's string form exactly as the client
// sends it (the hex-encoded public key), as the official SDKs compute it for
// oauth_login, oauth2_authenticate and OIDC-attested stamps.
func PublicKeyNonce(publicKey string) string {
	sum := sha256.Sum256([]byte(publicKey))
	return hex.EncodeToString(sum[:])
}
