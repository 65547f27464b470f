package coordinator

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"net/http"

	"github.com/sigil/sigil/internal/edge"
	"github.com/sigil/sigil/internal/keys"
	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/token"
)

// tokenKeyName is the coordinator's own key that signs verification tokens, sessions and OTP target bundles, and
// from which the OTP code-hash secret is derived. Its public half is published at /.well-known/jwks.json.
const tokenKeyName = "token"

// tokenKey returns the token key inside an activity's transaction. Once committed it is cached like every own key;
// until then it is read, or created, through the transaction itself: on SQLite the transaction holds the only write
// connection, so the separate write of Coordinator.ownKey would wait on it forever. A key created here is not cached,
// because the transaction may still roll back.
func (x *execution) tokenKey() (*ecdsa.PrivateKey, error) {
	c := x.c
	// Coordinator.ownKey holds the mutex while it creates a key with a write of its own, which on SQLite waits for
	// this transaction: never wait for the mutex here, read the store instead.
	if c.ownKeysMu.TryLock() {
		k, ok := c.ownKeys[tokenKeyName]
		c.ownKeysMu.Unlock()
		if ok {
			return k, nil
		}
	}
	id := "coordinator/" + tokenKeyName
	scalar, err := x.openSecret(id)
	if err == nil {
		defer keys.Zero(scalar)
		k, err := p256Key(scalar)
		if err != nil {
			return nil, err
		}
		if c.ownKeysMu.TryLock() {
			c.ownKeys[tokenKeyName] = k
			c.ownKeysMu.Unlock()
		}
		return k, nil
	}
	if !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	if scalar, err = x.createTokenKey(id); err != nil {
		return nil, err
	}
	defer keys.Zero(scalar)
	return p256Key(scalar)
}

// createTokenKey reads the key an earlier write of this transaction (or a concurrent process) stored, or stores a
// new one, through the transaction.
func (x *execution) createTokenKey(id string) ([]byte, error) {
	if s, err := x.tx.GetSecret(x.ctx, id); err == nil {
		return x.c.vault.open(id, s.Blob)
	} else if !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	scalar, err := k.Bytes()
	if err != nil {
		return nil, err
	}
	blob, err := x.c.vault.seal(id, scalar)
	if err != nil {
		return nil, err
	}
	stored, err := x.tx.PutSecretIfAbsent(x.ctx, store.Secret{ID: id, Blob: blob, CreatedAt: x.now.UnixNano()})
	if err != nil {
		return nil, err
	}
	if !stored {
		keys.Zero(scalar)
		return x.createTokenKey(id)
	}
	return scalar, nil
}

// otpHashSecret derives the server secret OTP codes are hashed with from the token key (HKDF-SHA256 with its own
// label), so a leaked database holds neither codes nor what would let an attacker test guesses offline.
func otpHashSecret(k *ecdsa.PrivateKey) ([]byte, error) {
	scalar, err := k.Bytes()
	if err != nil {
		return nil, err
	}
	defer keys.Zero(scalar)
	return hkdf.Key(sha256.New, scalar, nil, "sigil/otp/code-hash/v1", 32)
}

// JWKSHandler serves GET /.well-known/jwks.json: the public key that verification tokens and sessions are signed
// with, so relying parties can check them. The key is created on first use.
func (c *Coordinator) JWKSHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			edge.Fail(w, r, edge.Errorf(http.StatusMethodNotAllowed, "method not allowed"))
			return
		}
		set, err := c.JWKS(r.Context())
		if err == nil {
			w.Header().Set("Cache-Control", "public, max-age=300")
		}
		edge.Respond(w, r, set, err)
	})
}

// JWKS returns the token key's public half as a JWK Set, creating the key on first use. Calling it at start-up creates
// the key before the first request needs it.
func (c *Coordinator) JWKS(ctx context.Context) (token.JWKS, error) {
	k, err := c.ownKey(ctx, tokenKeyName)
	if err != nil {
		return token.JWKS{}, err
	}
	return token.NewJWKS(&k.PublicKey)
}
