package coordinator

import (
	"fmt"
	"slices"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/policy"
)

// The activity types of this file.
var (
	createAPIKeysV2        = activity(api.CreateAPIKeysV2, on(resCredential, actCreate, policy.ParamUserID), validateCreateAPIKeys, execCreateAPIKeys).ownCredentials()
	deleteAPIKeys          = activity(api.DeleteAPIKeys, on(resCredential, actDelete, policy.ParamUserID, policy.ParamAPIKeyIDs), validateDeleteAPIKeys, execDeleteAPIKeys).ownCredentials()
	createAuthenticatorsV2 = activity(api.CreateAuthenticatorsV2, on(resCredential, actCreate), validateCreateAuthenticators, execCreateAuthenticators).ownCredentials()
	deleteAuthenticators   = activity(api.DeleteAuthenticators, on(resCredential, actDelete), validateDeleteAuthenticators, execDeleteAuthenticators).ownCredentials()
)

func validateCreateAPIKeys(p *api.CreateAPIKeysIntentV2) error {
	if err := checkID("parameters.userId", p.UserID); err != nil {
		return err
	}
	if len(p.APIKeys) == 0 || len(p.APIKeys) > maxItemsPerCall {
		return apierr.Invalid("parameters.apiKeys must list between 1 and %d keys", maxItemsPerCall)
	}
	for i, k := range p.APIKeys {
		if _, err := checkAPIKey(fmt.Sprintf("parameters.apiKeys[%d]", i), k); err != nil {
			return err
		}
	}
	return nil
}

func execCreateAPIKeys(x *execution, p *api.CreateAPIKeysIntentV2) (*api.CreateAPIKeysResult, error) {
	u, err := x.user(p.UserID)
	if err != nil {
		return nil, err
	}
	ids, err := x.addAPIKeys(x.org, u, "parameters.apiKeys", p.APIKeys, x.madeByStamp())
	if err != nil {
		return nil, err
	}
	u.UpdatedAt = x.now
	return &api.CreateAPIKeysResult{APIKeyIDs: ids}, nil
}

func validateDeleteAPIKeys(p *api.DeleteAPIKeysIntent) error {
	if err := checkID("parameters.userId", p.UserID); err != nil {
		return err
	}
	return checkIDs("parameters.apiKeyIds", p.APIKeyIDs, false)
}

func execDeleteAPIKeys(x *execution, p *api.DeleteAPIKeysIntent) (*api.DeleteAPIKeysResult, error) {
	u, err := x.user(p.UserID)
	if err != nil {
		return nil, err
	}
	for _, id := range p.APIKeyIDs {
		if !slices.ContainsFunc(u.APIKeys, func(k *APIKey) bool { return k.ID == id }) {
			return nil, apierr.NotFoundf("API key %s not found on user %s", id, u.ID)
		}
	}
	u.APIKeys = slices.DeleteFunc(u.APIKeys, func(k *APIKey) bool { return slices.Contains(p.APIKeyIDs, k.ID) })
	if err := x.keepRootAuthenticated(u); err != nil {
		return nil, err
	}
	u.UpdatedAt = x.now
	return &api.DeleteAPIKeysResult{APIKeyIDs: p.APIKeyIDs}, nil
}

func validateCreateAuthenticators(p *api.CreateAuthenticatorsIntentV2) error {
	if err := checkID("parameters.userId", p.UserID); err != nil {
		return err
	}
	if len(p.Authenticators) == 0 || len(p.Authenticators) > maxItemsPerCall {
		return apierr.Invalid("parameters.authenticators must list between 1 and %d authenticators", maxItemsPerCall)
	}
	for i, a := range p.Authenticators {
		if err := checkAuthenticator(fmt.Sprintf("parameters.authenticators[%d]", i), a); err != nil {
			return err
		}
	}
	return nil
}

func execCreateAuthenticators(x *execution, p *api.CreateAuthenticatorsIntentV2) (*api.CreateAuthenticatorsResult, error) {
	u, err := x.user(p.UserID)
	if err != nil {
		return nil, err
	}
	ids, err := x.addAuthenticators(x.org, u, "parameters.authenticators", p.Authenticators, x.madeByStamp())
	if err != nil {
		return nil, err
	}
	u.UpdatedAt = x.now
	return &api.CreateAuthenticatorsResult{AuthenticatorIDs: ids}, nil
}

func validateDeleteAuthenticators(p *api.DeleteAuthenticatorsIntent) error {
	if err := checkID("parameters.userId", p.UserID); err != nil {
		return err
	}
	return checkIDs("parameters.authenticatorIds", p.AuthenticatorIDs, false)
}

func execDeleteAuthenticators(x *execution, p *api.DeleteAuthenticatorsIntent) (*api.DeleteAuthenticatorsResult, error) {
	u, err := x.user(p.UserID)
	if err != nil {
		return nil, err
	}
	for _, id := range p.AuthenticatorIDs {
		if !slices.ContainsFunc(u.Authenticators, func(a *Authenticator) bool { return a.ID == id }) {
			return nil, apierr.NotFoundf("authenticator %s not found on user %s", id, u.ID)
		}
	}
	u.Authenticators = slices.DeleteFunc(u.Authenticators, func(a *Authenticator) bool { return slices.Contains(p.AuthenticatorIDs, a.ID) })
	if err := x.keepRootAuthenticated(u); err != nil {
		return nil, err
	}
	u.UpdatedAt = x.now
	return &api.DeleteAuthenticatorsResult{AuthenticatorIDs: p.AuthenticatorIDs}, nil
}

// keepRootAuthenticated refuses to leave a root user without any credential: an organization whose root quorum can
// no longer authenticate can never be changed again.
func (x *execution) keepRootAuthenticated(u *User) error {
	if x.org.IsRoot(u.ID) && len(u.APIKeys) == 0 && len(u.Authenticators) == 0 {
		return apierr.New(apierr.FailedPrecondition, "REQUEST_INVALID",
			"user %s is in the root quorum and would be left without any credential", u.ID)
	}
	return nil
}
