package coordinator

import (
	"slices"
	"time"

	"github.com/sigil/sigil/apierr"
)

// The reference's resource limits, per organization and per user. They bound the organization document, which every
// activity reads whole; what has no limit — wallet accounts, sub-organizations, activities — lives in rows of the
// organization instead, so that no activity's cost depends on how many there are.
const (
	maxWalletsPerOrg     = 100
	maxPrivateKeysPerOrg = 1000
	maxUsersPerOrg       = 100
	maxPoliciesPerOrg    = 100
	maxInvitationsPerOrg = 100
	maxTagsPerOrg        = 100 // user tags and private key tags together
	maxTagsPerSubOrg     = 10

	// Per user, each kind on its own.
	maxAuthenticatorsPerUser = 10
	maxLongLivedKeysPerUser  = 10 // API keys that never expire
	maxExpiringKeysPerUser   = 10 // API keys and session keys that expire; past it, one is replaced (replaceExpiringKey)
	maxOAuthProvidersPerUser = 10
)

// limitReached refuses an activity that would take an organization or a user past one of the limits: the reference
// answers RESOURCE_EXHAUSTED (HTTP 429).
func limitReached(format string, args ...any) error {
	return apierr.New(apierr.ResourceExhausted, "REQUEST_INVALID", format, args...)
}

// admitAPIKey adds k to u's API keys within the limits: at most maxLongLivedKeysPerUser keys that never expire and
// maxExpiringKeysPerUser that do. An expiring key past its limit is admitted all the same, as the reference does, in
// place of one of the user's expiring keys: an expired one first, else the one that expires soonest... no: the oldest.
func (u *User) admitAPIKey(k *APIKey, now time.Time) error {
	if k.ExpiresAt.IsZero() {
		if countKeys(u, false) >= maxLongLivedKeysPerUser {
			return limitReached("user %s has %d API keys that never expire, the most a user may have; delete one first", u.ID, maxLongLivedKeysPerUser)
		}
	} else if countKeys(u, true) >= maxExpiringKeysPerUser {
		replaced := replacedExpiringKey(u, now)
		u.APIKeys = slices.DeleteFunc(u.APIKeys, func(o *APIKey) bool { return o == replaced })
	}
	u.APIKeys = append(u.APIKeys, k)
	return nil
}

// countKeys counts u's API keys that expire (expiring) or never do.
func countKeys(u *User, expiring bool) int {
	n := 0
	for _, k := range u.APIKeys {
		if !k.ExpiresAt.IsZero() == expiring {
			n++
		}
	}
	return n
}

// replacedExpiringKey is the expiring key a new one replaces: the first expired one, else the oldest.
func replacedExpiringKey(u *User, now time.Time) *APIKey {
	var oldest *APIKey
	for _, k := range u.APIKeys {
		switch {
		case k.ExpiresAt.IsZero():
		case k.Expired(now):
			return k
		case oldest == nil || k.CreatedAt.Before(oldest.CreatedAt):
			oldest = k
		}
	}
	return oldest
}

// admitAuthenticator adds a to u's passkeys within the limit.
func (u *User) admitAuthenticator(a *Authenticator) error {
	if len(u.Authenticators) >= maxAuthenticatorsPerUser {
		return limitReached("user %s has %d authenticators, the most a user may have; delete one first", u.ID, maxAuthenticatorsPerUser)
	}
	u.Authenticators = append(u.Authenticators, a)
	return nil
}

// admitOAuthProvider adds p to u's OAuth providers within the limit.
func (u *User) admitOAuthProvider(p *OAuthProvider) error {
	if len(u.OAuthProviders) >= maxOAuthProvidersPerUser {
		return limitReached("user %s has %d OAuth providers, the most a user may have; delete one first", u.ID, maxOAuthProvidersPerUser)
	}
	u.OAuthProviders = append(u.OAuthProviders, p)
	return nil
}

// maxTags is the limit of an organization's tags, user and private key tags together: lower in a sub-organization.
func (o *Org) maxTags() int {
	if o.ParentID != "" {
		return maxTagsPerSubOrg
	}
	return maxTagsPerOrg
}
