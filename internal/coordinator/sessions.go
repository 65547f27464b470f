package coordinator

import (
	"context"
	"crypto/ecdh"
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"strings"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/bundle"
	"github.com/sigil/sigil/internal/policy"
	"github.com/sigil/sigil/internal/token"
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
	key, credentials, err := x.bundledCredential(u, target, credentialSpec{name: p.APIKeyName, defaultName: "Read Write Session",
		ttl: ttl, invalidate: p.InvalidateExisting != nil && *p.InvalidateExisting, credType: api.CredentialReadWriteSession,
		from: x.madeByStamp()})
	if err != nil {
		return nil, err
	}
	return &api.CreateReadWriteSessionResultV2{OrganizationID: x.org.ID, OrganizationName: x.org.Name, UserID: u.ID,
		Username: u.Name, APIKeyID: key.ID, CredentialBundle: credentials}, nil
}

// credentialSpec describes a credential made for a user and handed over in a bundle.
type credentialSpec struct {
	name        string // apiKeyName; defaultName - <time> when empty
	defaultName string
	ttl         time.Duration
	invalidate  bool
	credType    string
	method      string // AUTHENTICATION_TYPE_* of how the user authenticated, for MFA policies; empty for none
	from        lineage
}

// bundledCredential makes a new P-256 key, registers it as a credential of u expiring after the spec's ttl, and
// returns it with its private key encrypted to target (a credential bundle, as @turnkey/crypto decrypts it). The
// private key exists nowhere else once the bundle is made.
func (x *execution) bundledCredential(u *User, target *ecdh.PublicKey, s credentialSpec) (*APIKey, string, error) {
	priv, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		return nil, "", err
	}
	name := s.name
	if name == "" {
		name = s.defaultName + " - " + x.now.UTC().Format(time.RFC3339)
	}
	key, _, err := x.registerSessionKey(u, sessionKeySpec{publicKey: compressedHex(priv.PublicKey()), name: name, ttl: s.ttl,
		invalidate: s.invalidate, credType: s.credType, from: s.from})
	if err != nil {
		return nil, "", err
	}
	key.Method = s.method
	secret := priv.Bytes()
	defer clear(secret)
	credentials, err := bundle.CredentialBundle(target, secret)
	if err != nil {
		return nil, "", err
	}
	return key, credentials, nil
}

func execCreateReadOnlySession(x *execution, _ *api.CreateReadOnlySessionIntent) (*api.CreateReadOnlySessionResult, error) {
	u := x.who.User
	// The session's key is a name, not a key anyone holds: its private half is dropped here.
	priv, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	key, _, err := x.registerSessionKey(u, sessionKeySpec{publicKey: compressedHex(priv.PublicKey()), ttl: readOnlySessionTTL,
		credType: api.CredentialReadOnlySession, from: x.madeByStamp()})
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

// SessionProfile limits the sessions issued with it (Turnkey's session profiles): every request made with such a
// session must satisfy Scope, a condition of the policy language, and the session lasts at most ExpirationSeconds.
// Profiles are created in an organization (usually the parent of the users' sub-organizations) and never change.
type SessionProfile struct {
	ID                string    `json:"id"`
	Name              string    `json:"name"`
	Scope             string    `json:"scope"`
	ExpirationSeconds string    `json:"expirationSeconds,omitempty"`
	Notes             string    `json:"notes,omitempty"`
	CreatedAt         time.Time `json:"createdAt"`
}

// maxTTL is the longest session the profile allows; 0 for no cap.
func (p *SessionProfile) maxTTL() time.Duration {
	secs, err := parseExpiration(p.ExpirationSeconds)
	if err != nil || p.ExpirationSeconds == "" {
		return 0
	}
	return time.Duration(secs) * time.Second
}

const resSessionProfile = "SESSION_PROFILE"

// The session profile activity and queries.
var (
	createSessionProfile = activity(api.CreateSessionProfile, on(resSessionProfile, actCreate), validateCreateSessionProfile, execCreateSessionProfile)
	getSessionProfile    = query(api.GetSessionProfile, queryGetSessionProfile)
	getSessionProfiles   = query(api.GetSessionProfiles, queryGetSessionProfiles)
)

func validateCreateSessionProfile(p *api.CreateSessionProfileIntent) error {
	if err := checkName("parameters.sessionProfileName", p.SessionProfileName); err != nil {
		return err
	}
	if strings.TrimSpace(p.Scope) == "" {
		return apierr.Invalid("parameters.scope must be a condition of the policy language (true allows every request)")
	}
	if _, err := policy.Compile(p.Scope, policy.Condition); err != nil {
		return apierr.Invalid("parameters.scope: invalid session profile scope: %s", compileMessage(err))
	}
	if len(p.Notes) > maxNotesLen {
		return apierr.Invalid("parameters.notes is longer than %d bytes", maxNotesLen)
	}
	return checkExpiration(p.ExpirationSeconds)
}

func execCreateSessionProfile(x *execution, p *api.CreateSessionProfileIntent) (*api.CreateSessionProfileResult, error) {
	for _, sp := range x.org.SessionProfiles {
		if sp.Name == p.SessionProfileName {
			return nil, apierr.New(apierr.AlreadyExists, "REQUEST_INVALID", "a session profile named %q already exists (%s); profiles never change, create one with another name", sp.Name, sp.ID)
		}
	}
	sp := &SessionProfile{ID: newID(), Name: p.SessionProfileName, Scope: p.Scope, ExpirationSeconds: p.ExpirationSeconds,
		Notes: p.Notes, CreatedAt: x.now}
	x.org.SessionProfiles = append(x.org.SessionProfiles, sp)
	return &api.CreateSessionProfileResult{SessionProfileID: sp.ID}, nil
}

func renderSessionProfile(sp *SessionProfile) api.SessionProfile {
	return api.SessionProfile{SessionProfileID: sp.ID, SessionProfileName: sp.Name, Scope: sp.Scope,
		ExpirationSeconds: sp.ExpirationSeconds, Notes: sp.Notes, CreatedAt: api.NewTimestamp(sp.CreatedAt), UpdatedAt: api.NewTimestamp(sp.CreatedAt)}
}

func queryGetSessionProfile(r *reader, q *api.GetSessionProfileRequest) (*api.GetSessionProfileResponse, error) {
	if err := checkID("sessionProfileId", q.SessionProfileID); err != nil {
		return nil, err
	}
	sp, err := r.c.sessionProfile(r.ctx, r.org, q.SessionProfileID)
	if err != nil {
		return nil, err
	}
	return &api.GetSessionProfileResponse{SessionProfile: renderSessionProfile(sp)}, nil
}

func queryGetSessionProfiles(r *reader, _ *api.OrganizationRequest) (*api.GetSessionProfilesResponse, error) {
	out := &api.GetSessionProfilesResponse{SessionProfiles: []api.SessionProfile{}}
	for _, sp := range r.org.SessionProfiles {
		out.SessionProfiles = append(out.SessionProfiles, renderSessionProfile(sp))
	}
	return out, nil
}

// sessionProfile finds a profile in the organization or its parent (where an application's profiles usually are).
func (c *Coordinator) sessionProfile(ctx context.Context, org *Org, id string) (*SessionProfile, error) {
	for o := org; o != nil; {
		for _, sp := range o.SessionProfiles {
			if sp.ID == id {
				return sp, nil
			}
		}
		if o.ParentID == "" {
			break
		}
		parent, err := c.loadOrg(ctx, o.ParentID)
		if err != nil {
			return nil, err
		}
		o = parent
	}
	return nil, apierr.NotFoundf("no session profile %s in organization %s or its parent", id, org.ID)
}

// enforceProfile denies an activity made with a session key of a session profile whose scope does not allow it: the
// scope is evaluated on what the policy engine reads of the activity (in), like a policy's condition. An error in
// the scope denies too.
func (x *execution) enforceProfile(input func() *policy.Input, budget *policy.Budget) error {
	if x.who.CredID == "" {
		return nil
	}
	var profileID string
	for _, k := range x.who.User.APIKeys {
		if k.ID == x.who.CredID {
			profileID = k.SessionProfileID
		}
	}
	if profileID == "" {
		return nil
	}
	sp, err := x.c.sessionProfile(x.ctx, x.org, profileID)
	if err != nil {
		return apierr.Denied("the session's profile %s no longer exists", profileID)
	}
	scope, err := x.c.compile(sp.Scope, policy.Condition)
	if err != nil {
		return apierr.Denied("the session's profile %q has a scope that no longer compiles: %v", sp.Name, err)
	}
	ok, err := scope.EvalWithin(input(), budget)
	if refusal := asBudgetRefusal(err); refusal != nil {
		return refusal
	}
	if err != nil || !ok {
		reason := "false"
		if err != nil {
			reason = err.Error()
		}
		return apierr.Denied("this session was issued with session profile %q, whose scope does not allow this request (%s)", sp.Name, reason)
	}
	return nil
}
