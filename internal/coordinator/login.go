package coordinator

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/otp"
	"github.com/sigil/sigil/internal/policy"
	"github.com/sigil/sigil/internal/token"
)

// The activity types of this file.
var (
	otpLogin   = activity(api.OtpLogin, on(resAuth, actCreate, policy.ParamSessionProfile), validateOtpLoginV1, execOtpLoginV1).byParent().proxied()
	otpLoginV2 = activity(api.OtpLoginV2, on(resAuth, actCreate, policy.ParamSessionProfile), validateOtpLoginV2, execOtpLoginV2).byParent().proxied()
	stampLogin = activity(api.StampLogin, on(resAuth, actCreate, policy.ParamSessionProfile), validateStampLogin, execStampLogin).byParent()
)

// The login family: OTP_LOGIN turns a verification token into a session for the user whose contact it verified;
// STAMP_LOGIN makes a session for whoever stamped the request. A session is a P-256 key registered as an API key of
// the user that expires with the session, and a session JWT naming it.

// loginCredentialTypes are the credentials logins create; invalidateExisting removes a user's credentials of these
// types, never its API keys or passkeys.
var loginCredentialTypes = []string{api.CredentialLogin, api.CredentialOTPAuthKeyP256, "CREDENTIAL_TYPE_OAUTH_KEY_P256",
	api.CredentialEmailAuth, api.CredentialReadWriteSession, api.CredentialReadOnlySession, api.CredentialRecoverUser}

// maxTokenLen bounds a verification token (a few hundred bytes in practice).
const maxTokenLen = 4096

// otpLoginRequest is an OTP_LOGIN of either version.
type otpLoginRequest struct {
	token             string
	publicKey         string
	expirationSeconds string
	invalidate        bool
	signature         *api.ClientSignature
	signatureRequired bool   // OTP_LOGIN_V2
	profile           string // sessionProfileId
}

func loginV1(p *api.OtpLoginIntent) otpLoginRequest {
	return otpLoginRequest{token: p.VerificationToken, publicKey: p.PublicKey, expirationSeconds: p.ExpirationSeconds,
		invalidate: p.InvalidateExisting != nil && *p.InvalidateExisting, signature: p.ClientSignature, profile: p.SessionProfileID}
}

func loginV2(p *api.OtpLoginIntentV2) otpLoginRequest {
	return otpLoginRequest{token: p.VerificationToken, publicKey: p.PublicKey, expirationSeconds: p.ExpirationSeconds,
		invalidate: p.InvalidateExisting != nil && *p.InvalidateExisting, signature: p.ClientSignature, signatureRequired: true,
		profile: p.SessionProfileID}
}

func validateOtpLoginV1(p *api.OtpLoginIntent) error { return loginV1(p).validate() }
func validateOtpLoginV2(p *api.OtpLoginIntentV2) error {
	return loginV2(p).validate()
}

func (l otpLoginRequest) validate() error {
	if l.token == "" || len(l.token) > maxTokenLen {
		return apierr.Invalid("parameters.verificationToken must be the token VERIFY_OTP returned")
	}
	if _, err := sessionKeyHex("parameters.publicKey", l.publicKey); err != nil {
		return err
	}
	if l.signatureRequired && l.signature == nil {
		return apierr.Invalid("parameters.clientSignature is required by OTP_LOGIN_V2: sign the login message with the key the verification token binds")
	}
	if l.signature != nil && l.signature.Scheme != token.ClientSignatureSchemeP256 {
		return apierr.Invalid("parameters.clientSignature.scheme must be %s, got %q", token.ClientSignatureSchemeP256, l.signature.Scheme)
	}
	return checkExpiration(l.expirationSeconds)
}

func checkExpiration(s string) error {
	if s == "" {
		return nil
	}
	if _, err := parseExpiration(s); err != nil {
		return apierr.Invalid("parameters.expirationSeconds: %s", err.Error())
	}
	return nil
}

func execOtpLoginV1(x *execution, p *api.OtpLoginIntent) (*api.OtpLoginResult, error) {
	return x.otpLogin(loginV1(p))
}

func execOtpLoginV2(x *execution, p *api.OtpLoginIntentV2) (*api.OtpLoginResult, error) {
	return x.otpLogin(loginV2(p))
}

// otpLogin checks the token (signature, expiry, scope, client signature, single use), finds the user whose contact
// it verified, marks the contact verified and opens a session for that user.
func (x *execution) otpLogin(l otpLoginRequest) (*api.OtpLoginResult, error) {
	ttl, err := x.sessionTTL(l.expirationSeconds)
	if err != nil {
		return nil, err
	}
	sessionKey, err := sessionKeyHex("parameters.publicKey", l.publicKey)
	if err != nil {
		return nil, err
	}
	k, err := x.tokenKey()
	if err != nil {
		return nil, err
	}
	claims, err := token.VerifyVerificationToken(l.token, &k.PublicKey, x.now)
	if err != nil {
		return nil, verificationTokenError(err)
	}
	if err := tokenInScope(claims, x.org); err != nil {
		return nil, err
	}
	if err := x.requireMethod(otpLoginMethod(claims.VerificationType)); err != nil {
		return nil, err
	}
	if err := checkLoginSignature(l, claims); err != nil {
		return nil, err
	}
	u, err := userByContact(x.org, claims.VerificationType, claims.Contact)
	if err != nil {
		return nil, err
	}
	fresh, err := x.tx.UseToken(x.ctx, claims.ID, x.org.ID, claims.ExpiresAt.UnixNano(), x.now.UnixNano())
	if err != nil {
		return nil, err
	}
	if !fresh {
		return nil, apierr.New(apierr.InvalidArgument, "REQUEST_INVALID", "verificationToken %s has already been used; verify a new code to log in again", claims.ID)
	}
	markVerified(u, claims)
	session, err := x.openSession(u, sessionKeySpec{publicKey: sessionKey, ttl: ttl, invalidate: l.invalidate,
		credType: api.CredentialOTPAuthKeyP256, profileID: l.profile, from: x.madeByFactor()})
	if err != nil {
		return nil, err
	}
	setSessionMethod(u, sessionKey, otpMethod(claims.VerificationType))
	return &api.OtpLoginResult{Session: session}, nil
}

func verificationTokenError(err error) error {
	return apierr.New(apierr.InvalidArgument, "REQUEST_INVALID", "parameters.verificationToken: %s", err.Error())
}

// tokenInScope: a verification token is usable in the organization that issued it and in that organization's
// sub-organizations.
func tokenInScope(c token.VerificationClaims, org *Org) error {
	if c.OrganizationID == org.ID || (org.ParentID != "" && c.OrganizationID == org.ParentID) {
		return nil
	}
	return apierr.Denied("the verification token was issued by organization %s; it can be used only there and in its direct sub-organizations, not in %s", c.OrganizationID, org.ID)
}

// checkLoginSignature requires the clientSignature when the token binds a key (and always for OTP_LOGIN_V2), and
// checks that it allows exactly this login.
func checkLoginSignature(l otpLoginRequest, c token.VerificationClaims) error {
	if c.PublicKey == "" {
		if l.signatureRequired {
			return apierr.Invalid("OTP_LOGIN_V2 needs a verification token bound to a client key (VERIFY_OTP with publicKey, or VERIFY_OTP_V2)")
		}
		if l.signature != nil {
			return apierr.Invalid("parameters.clientSignature was given, but the verification token binds no client key to check it with")
		}
		return nil
	}
	if l.signature == nil {
		return apierr.Invalid("parameters.clientSignature is required: the verification token binds a client key, so sign the login message with it")
	}
	cs := token.ClientSignature{PublicKey: l.signature.PublicKey, Scheme: l.signature.Scheme, Message: l.signature.Message, Signature: l.signature.Signature}
	if err := token.VerifyLoginSignature(cs, c, l.publicKey); err != nil {
		return apierr.Invalid("parameters.clientSignature: %s", err.Error())
	}
	return nil
}

// userByContact finds the one user of org with the e-mail address (any case) or phone number a token verified.
func userByContact(org *Org, verificationType, contact string) (*User, error) {
	for _, u := range org.Users {
		switch otp.Type(verificationType) {
		case otp.TypeEmail:
			if u.Email != "" && strings.EqualFold(u.Email, contact) {
				return u, nil
			}
		case otp.TypeSMS:
			if u.Phone != "" && u.Phone == contact {
				return u, nil
			}
		}
	}
	what := "e-mail address"
	if otp.Type(verificationType) == otp.TypeSMS {
		what = "phone number"
	}
	return nil, apierr.NotFoundf("no user of organization %s has the %s %s that the verification token verified", org.ID, what, contact)
}

func markVerified(u *User, c token.VerificationClaims) {
	if otp.Type(c.VerificationType) == otp.TypeSMS {
		u.PhoneVerified = true
	} else {
		u.EmailVerified = true
	}
}

func validateStampLogin(p *api.StampLoginIntent) error {
	if _, err := sessionKeyHex("parameters.publicKey", p.PublicKey); err != nil {
		return err
	}
	return checkExpiration(p.ExpirationSeconds)
}

// execStampLogin opens a session for the user that stamped the request, with an API key, a passkey, a session key or
// an attested client key (X-Stamp-Attested, see auth.go).
func execStampLogin(x *execution, p *api.StampLoginIntent) (*api.StampLoginResult, error) {
	if x.who.ViaParent {
		return nil, apierr.Denied("STAMP_LOGIN logs in the user that stamped the request, who must belong to organization %s; a parent organization's credential cannot", x.org.ID)
	}
	ttl, err := x.sessionTTL(p.ExpirationSeconds)
	if err != nil {
		return nil, err
	}
	sessionKey, err := sessionKeyHex("parameters.publicKey", p.PublicKey)
	if err != nil {
		return nil, err
	}
	if a := x.who.Attestation; a != nil {
		markVerified(x.who.User, *a)
	}
	session, err := x.openSession(x.who.User, sessionKeySpec{publicKey: sessionKey, ttl: ttl, invalidate: p.InvalidateExisting != nil && *p.InvalidateExisting,
		credType: api.CredentialLogin, profileID: p.SessionProfileID, from: x.madeByStamp()})
	if err != nil {
		return nil, err
	}
	return &api.StampLoginResult{Session: session}, nil
}

func (x *execution) sessionTTL(expirationSeconds string) (time.Duration, error) {
	if expirationSeconds == "" {
		return x.c.cfg.SessionTTL, nil
	}
	secs, err := parseExpiration(expirationSeconds)
	if err != nil {
		return 0, apierr.Invalid("parameters.expirationSeconds: %s", err.Error())
	}
	ttl := time.Duration(secs) * time.Second
	if ttl > x.c.cfg.MaxSessionTTL {
		return 0, apierr.Invalid("parameters.expirationSeconds: %d seconds is more than the maximum session of %d", secs, int64(x.c.cfg.MaxSessionTTL/time.Second))
	}
	return ttl, nil
}

// sessionKeySpec is a session key to register as a credential of a user.
type sessionKeySpec struct {
	publicKey  string // compressed hex
	name       string // empty: session-<unix milliseconds>
	ttl        time.Duration
	invalidate bool // remove every other login credential of the user
	credType   string
	profileID  string  // the session profile the login asks for; "" for none
	from       lineage // what it is made with (lineage.go)
}

// openSession registers a session key of u and returns the session JWT. With a session profile, the session is typed
// by the profile's name, and every request made with it must satisfy the profile's scope (enforceProfile).
func (x *execution) openSession(u *User, s sessionKeySpec) (string, error) {
	key, profile, err := x.registerSessionKey(u, s)
	if err != nil {
		return "", err
	}
	claims := token.SessionClaims{ExpiresAt: key.ExpiresAt, PublicKey: key.PublicKey, SessionType: token.SessionTypeReadWrite,
		UserID: u.ID, OrganizationID: x.org.ID}
	if profile != nil {
		claims.SessionType, claims.SessionProfileID, claims.Scope = profile.Name, profile.ID, profile.Scope
	}
	return x.sessionClaims(claims)
}

// registerSessionKey registers a session key as a credential of u, expiring after its ttl, and returns it with the
// session profile that binds it (nil for none). Expired login credentials of u are removed on the way, and with
// invalidate every other login credential too. The profile is the one the login asks for (found in the organization
// or its parent), or the one binding the credential the session is made with, which the session keeps (lineage.go):
// the session then lasts at most the profile's expiration, and no longer than the credential it is made with.
func (x *execution) registerSessionKey(u *User, s sessionKeySpec) (*APIKey, *SessionProfile, error) {
	if err := s.from.usable(x.now); err != nil {
		return nil, nil, err
	}
	profileID := s.profileID
	if inherited := s.from.profile; inherited != "" {
		if profileID != "" && profileID != inherited {
			return nil, nil, apierr.Denied("this request was stamped by a session of session profile %s, and the sessions it opens keep that profile; it cannot ask for profile %s", inherited, profileID)
		}
		profileID = inherited
	}
	var profile *SessionProfile
	ttl := s.ttl
	if profileID != "" {
		var err error
		if profile, err = x.c.sessionProfile(x.ctx, x.org, profileID); err != nil {
			return nil, nil, err
		}
		if cap := profile.maxTTL(); cap > 0 && ttl > cap {
			ttl = cap
		}
	}
	u.APIKeys = slices.DeleteFunc(u.APIKeys, func(k *APIKey) bool {
		return slices.Contains(loginCredentialTypes, k.Type) && (s.invalidate || k.Expired(x.now))
	})
	if owner, key := x.org.apiKeyByPublicKey(s.publicKey); owner != nil {
		if owner.ID != u.ID || !slices.Contains(loginCredentialTypes, key.Type) {
			return nil, nil, apierr.Conflict("parameters.publicKey: this public key is already registered in the organization; generate a new key for each session")
		}
		// The same session key logging in again: its session is renewed.
		u.APIKeys = slices.DeleteFunc(u.APIKeys, func(k *APIKey) bool { return k == key })
	}
	name := s.name
	if name == "" {
		name = "session-" + strconv.FormatInt(x.now.UnixMilli(), 10)
	}
	key := &APIKey{ID: newID(), Name: name, PublicKey: s.publicKey, Curve: api.CurveP256, Type: s.credType,
		Expiration: strconv.FormatInt(int64(ttl/time.Second), 10), ExpiresAt: x.now.Add(ttl), CreatedAt: x.now, UpdatedAt: x.now}
	if profile != nil {
		key.SessionProfileID = profile.ID
	}
	if err := s.from.bindKey(u, key, x.now); err != nil {
		return nil, nil, err
	}
	if err := u.admitAPIKey(key, x.now); err != nil { // a session past the limit replaces an expired or the oldest one
		return nil, nil, err
	}
	u.UpdatedAt = x.now
	return key, profile, nil
}

// sessionToken is the session JWT of u for a session key.
func (x *execution) sessionToken(u *User, sessionKey, sessionType string, expires time.Time) (string, error) {
	return x.sessionClaims(token.SessionClaims{ExpiresAt: expires, PublicKey: sessionKey, SessionType: sessionType,
		UserID: u.ID, OrganizationID: x.org.ID})
}

// sessionClaims signs a session JWT.
func (x *execution) sessionClaims(c token.SessionClaims) (string, error) {
	k, err := x.tokenKey()
	if err != nil {
		return "", err
	}
	session, err := token.IssueSession(k, c)
	if err != nil {
		return "", errors.Join(errors.New("issue session"), err)
	}
	return session, nil
}
