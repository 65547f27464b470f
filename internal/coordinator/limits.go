package coordinator

import "github.com/sigil/sigil/apierr"

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
