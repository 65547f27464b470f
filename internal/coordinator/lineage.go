package coordinator

import (
	"cmp"
	"strconv"
	"time"

	"github.com/sigil/sigil/apierr"
)

// Credentials made with credentials. A credential that an activity makes on the authority of the credential that
// stamped it — an API key registered, a session opened (STAMP_LOGIN, CREATE_READ_WRITE_SESSION,
// CREATE_READ_ONLY_SESSION), a passkey or an OIDC identity linked — is that credential in another form: whoever holds
// the one holds the other. Each records the credential that made it (CreatedBy) and the first credential of its line
// (Origin), and two rules follow:
//
//   - A session profile's limits hold for everything made with its sessions. An API key or a session made with a
//     credential bound by a profile is bound by the same profile (every request it stamps must satisfy the scope) and
//     expires when that credential does, at the latest. A passkey or an OIDC identity cannot be bound so (neither
//     expires, and each logs in afresh), and is not registered with such a credential at all; nor is an e-mail
//     address or phone number set with one, since a login code sent to it opens a session of its own.
//   - A line counts once toward MFA: of the credentials a user made from one first credential (and from those made
//     from it), at most one meets a step of an MFA policy (mfaProgress), so a key cannot approve for the second
//     factor what it approved for the first through a session or a passkey it made.
//
// A credential made on the authority of a factor of its own — an OTP code, a mailed bundle, an OIDC token — starts a
// line of its own, whoever submitted the login (usually the application's key); a session opened with an OIDC
// identity continues that identity's line, so an identity linked with a key is that key's line too.

// lineage is what a new credential takes from what it was made with.
type lineage struct {
	by      string    // the credential that stamped the activity making it, when that is known
	userID  string    // the user whose line origin is: the line is continued only by that user's credentials
	origin  string    // the first credential of the line ("" for a credential starting its own)
	profile string    // the session profile the new credential is bound by ("" for none)
	expires time.Time // with a profile: when the credential it was made with expires (zero: never)
	// lost: the credential that stamped the activity no longer exists (deleted while the activity waited for votes),
	// so what it was bound by is not known, and nothing is made with it.
	lost bool
}

// madeByStamp is the lineage of a credential the activity makes on the authority of its stamp: of the credential that
// submitted it, as the activity's record names it when votes execute the activity later.
func (x *execution) madeByStamp() lineage {
	if x.who == nil { // the server's own doing (the root organization of the first start)
		return lineage{}
	}
	u := x.who.User
	switch {
	case x.who.Identity != nil: // X-Stamp-Attested with an OIDC token: the identity's line
		return lineage{userID: u.ID, origin: cmp.Or(x.who.Identity.Origin, x.who.Identity.ID)}
	case x.who.CredID == "": // X-Stamp-Attested with a verification token: a factor of its own
		return lineage{}
	}
	for _, k := range u.APIKeys {
		if k.ID == x.who.CredID {
			l := lineage{by: k.ID, userID: u.ID, origin: cmp.Or(k.Origin, k.ID), profile: k.SessionProfileID}
			if l.profile != "" {
				l.expires = k.ExpiresAt
			}
			return l
		}
	}
	for _, a := range u.Authenticators {
		if a.ID == x.who.CredID {
			return lineage{by: a.ID, userID: u.ID, origin: cmp.Or(a.Origin, a.ID)}
		}
	}
	return lineage{lost: true}
}

// madeByFactor is the lineage of a credential the activity makes on the authority of a factor of its own (an OTP
// code, a mailed bundle): the stamping credential is recorded as its maker, and the credential starts a line of its
// own.
func (x *execution) madeByFactor() lineage { return lineage{by: x.who.CredID} }

// madeWithIdentity is the lineage of a credential made with the OIDC identity of u: it continues the identity's line.
func (x *execution) madeWithIdentity(u *User, identity *OAuthProvider) lineage {
	return lineage{by: x.who.CredID, userID: u.ID, origin: cmp.Or(identity.Origin, identity.ID)}
}

// usable refuses to make anything with a lineage whose maker is gone or has expired.
func (l lineage) usable(now time.Time) error {
	if l.lost {
		return apierr.New(apierr.FailedPrecondition, "REQUEST_INVALID",
			"the credential that submitted this activity no longer exists, so the credentials it would make cannot take its limits; submit it again")
	}
	if l.profile != "" && !l.expires.IsZero() && !now.Before(l.expires) {
		return apierr.Denied("the session that submitted this activity has expired; what it makes would expire with it")
	}
	return nil
}

// bindKey records the lineage on a new API key or session key of u and bounds the key by the profile: the key takes
// it, and expires when the credential it was made with does, at the latest.
func (l lineage) bindKey(u *User, k *APIKey, now time.Time) error {
	if err := l.usable(now); err != nil {
		return err
	}
	k.CreatedBy = l.by
	if l.userID == u.ID {
		k.Origin = l.origin
	}
	if l.profile == "" {
		return nil
	}
	if k.SessionProfileID != "" && k.SessionProfileID != l.profile {
		return apierr.Denied("this request was stamped by a session of session profile %s, and everything it makes keeps that profile; it cannot make a session of profile %s", l.profile, k.SessionProfileID)
	}
	k.SessionProfileID = l.profile
	if !l.expires.IsZero() && (k.ExpiresAt.IsZero() || k.ExpiresAt.After(l.expires)) {
		k.ExpiresAt = l.expires
		k.Expiration = strconv.FormatInt(int64(l.expires.Sub(k.CreatedAt)/time.Second), 10)
	}
	return nil
}

// bindFactor records the lineage on a new passkey or OIDC identity of u (what names it), refusing one made with a
// credential bound by a session profile: it would outlive the profile's expiry and escape its scope.
func (l lineage) bindFactor(what string, u *User, createdBy, origin *string, now time.Time) error {
	if err := l.usable(now); err != nil {
		return err
	}
	if l.profile != "" {
		return apierr.Denied("this request was stamped by a session of session profile %s, which cannot register %s: "+
			"it would never expire and would not be bound by the profile's scope; register it with a credential that no session profile binds", l.profile, what)
	}
	*createdBy = l.by
	if l.userID == u.ID {
		*origin = l.origin
	}
	return nil
}

// bindContact refuses an e-mail address or phone number (what names it, field where it is) set with a credential bound by a session
// profile: a code sent to it logs in afresh, and that session would be bound by neither the profile's scope nor its
// expiry. Clearing one is allowed.
func (l lineage) bindContact(field, what string, now time.Time) error {
	if err := l.usable(now); err != nil {
		return err
	}
	if l.profile != "" {
		return apierr.Denied("%s: this request was stamped by a session of session profile %s, which cannot set %s: "+
			"a login code sent to it would open a session the profile does not bind; set it with a credential that no session profile binds", field, l.profile, what)
	}
	return nil
}

// lineOf is the line of u's credential with the public key: its first credential's id (the public key itself for a
// credential u does not hold).
func lineOf(u *User, publicKey string) string {
	for _, k := range u.APIKeys {
		if k.PublicKey == publicKey {
			return cmp.Or(k.Origin, k.ID)
		}
	}
	for _, a := range u.Authenticators {
		if a.PublicKeyHex == publicKey {
			return cmp.Or(a.Origin, a.ID)
		}
	}
	return publicKey
}
