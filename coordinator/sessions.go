package coordinator

import (
	"context"
	"crypto/ecdh"
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"time"

	"sigil/api"
	"sigil/apierr"
	"sigil/bundle"
	"sigil/token"
)

// Sessions the coordinator makes for a user already authenticated, as the reference's SDKs ask for them:
//
//   - a read-write session (CREATE_READ_WRITE_SESSION_V2): a new P-256 key, registered as a credential of the user
//     that expires, returned encrypted to the caller's target key as a credential bundle; the client stamps with it;
//   - a read-only session (CREATE_READ_ONLY_SESSION): a session token the SDKs send as X-Session on queries, valid
//     for an hour. Its public key names a credential of type CREDENTIAL_TYPE_READ_ONLY_SESSION registered for it,
//     which has no private key anywhere: deleting that credential (or invalidateExisting at the next login)
//     revokes the session, and it can never stamp anything.

const readOnlySessionTTL = time.Hour

// The activity types of this file.
var (
	createReadWriteSessionV2 = activity(api.CreateReadWriteSessionV2, on(resAuth, actCreate),
		validateCreateReadWriteSession, execCreateReadWriteSession)
	createReadOnlySession = activity(api.CreateReadOnlySession, on(resAuth, actCreate), nil, execCreateReadOnlySession)
)

func validateCreateReadWriteSession(p *api.CreateReadWriteSessionIntentV2) error {
	if _, err := bundle.ParsePublicKeyHex(p.TargetPublicKey); err != nil {
		return apierr.Invalid("parameters.targetPublicKey: %s", err.Error())
	}
	if p.UserID != "" {
		if err := checkID("parameters.userId", p.UserID); err != nil {
			return err
		}
	}
	if p.APIKeyName != "" {
		return checkName("parameters.apiKeyName", p.APIKeyName)
	}
	return nil
}

func execCreateReadWriteSession(x *execution, p *api.CreateReadWriteSessionIntentV2) (*api.CreateReadWriteSessionResultV2, error) {
	u := x.who.User
	if p.UserID != "" {
		var err error
		if u, err = x.user(p.UserID); err != nil {
			return nil, err
		}
	}
	ttl, err := x.sessionTTL(p.ExpirationSeconds)
	if err != nil {
		return nil, err
	}
	target, _ := bundle.ParsePublicKeyHex(p.TargetPublicKey)
	priv, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	name := p.APIKeyName
	if name == "" {
		name = "Read Write Session - " + x.now.UTC().Format(time.RFC3339)
	}
	key, err := x.registerSessionKey(u, compressedHex(priv.PublicKey()), name, ttl, p.InvalidateExisting != nil && *p.InvalidateExisting,
		api.CredentialReadWriteSession)
	if err != nil {
		return nil, err
	}
	secret := priv.Bytes()
	defer clear(secret)
	credentials, err := bundle.CredentialBundle(target, secret)
	if err != nil {
		return nil, err
	}
	return &api.CreateReadWriteSessionResultV2{OrganizationID: x.org.ID, OrganizationName: x.org.Name, UserID: u.ID,
		Username: u.Name, APIKeyID: key.ID, CredentialBundle: credentials}, nil
}

func execCreateReadOnlySession(x *execution, _ *api.CreateReadOnlySessionIntent) (*api.CreateReadOnlySessionResult, error) {
	u := x.who.User
	// The session's key is a name, not a key anyone holds: its private half is dropped here.
	priv, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	key, err := x.registerSessionKey(u, compressedHex(priv.PublicKey()), "", readOnlySessionTTL, false, api.CredentialReadOnlySession)
	if err != nil {
		return nil, err
	}
	session, err := x.sessionToken(u, key.PublicKey, token.SessionTypeReadOnly, key.ExpiresAt)
	if err != nil {
		return nil, err
	}
	return &api.CreateReadOnlySessionResult{OrganizationID: x.org.ID, OrganizationName: x.org.Name, UserID: u.ID,
		Username: u.Name, Session: session, SessionExpiry: strconv.FormatInt(key.ExpiresAt.Unix(), 10)}, nil
}

// compressedHex is a P-256 public key as the credentials are registered: compressed, in hex.
func compressedHex(pub *ecdh.PublicKey) string {
	k, err := token.ParseP256PublicKey(hex.EncodeToString(pub.Bytes()))
	if err != nil {
		panic(err) // a key just generated on the curve
	}
	out, _ := token.CompressedPublicKeyHex(k)
	return out
}

// readOnlySession authenticates a query by its X-Session header: a read-only session of a user of the organization
// the query names, not expired, whose credential still exists.
func (c *Coordinator) readOnlySession(ctx context.Context, org *Org, session string) (*principal, error) {
	k, err := c.ownKey(ctx, tokenKeyName)
	if err != nil {
		return nil, err
	}
	claims, err := token.VerifySession(session, &k.PublicKey, c.now())
	if err != nil || claims.SessionType != token.SessionTypeReadOnly {
		return nil, apierr.Unauth("UNAUTHENTICATED", "X-Session is not a valid read-only session of this server (it may have expired)")
	}
	if claims.OrganizationID != org.ID {
		return nil, apierr.Unauth("UNAUTHENTICATED", "the read-only session is for organization %s, not %s", claims.OrganizationID, org.ID)
	}
	u, key := org.apiKeyByPublicKey(claims.PublicKey)
	if key == nil || u.ID != claims.UserID || key.Type != api.CredentialReadOnlySession || key.Expired(c.now()) {
		return nil, apierr.Unauth("UNAUTHENTICATED", "the read-only session has been revoked or has expired")
	}
	return &principal{Org: org, User: u, CredID: key.ID, CredType: key.Type, PublicKey: key.PublicKey}, nil
}
