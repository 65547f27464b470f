package coordinator

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/policy"
	"github.com/sigil/sigil/stamp"
)

// The activity types of this file.
var (
	createUsersV3         = activity(api.CreateUsersV3, on(resUser, actCreate), validateCreateUsersV3, execCreateUsersV3)
	createUsersV4         = activity(api.CreateUsersV4, on(resUser, actCreate), validateCreateUsersV4, execCreateUsersV4)
	deleteUsers           = activity(api.DeleteUsers, on(resUser, actDelete, policy.ParamUserIDs), validateDeleteUsers, execDeleteUsers)
	updateUser            = activity(api.UpdateUser, on(resUser, actUpdate), validateUpdateUser, execUpdateUser)
	updateUserName        = activity(api.UpdateUserName, on(resUser, actUpdate), validateUpdateUserName, execUpdateUserName)
	updateUserEmail       = activity(api.UpdateUserEmail, on(resUser, actUpdate), validateUpdateUserEmail, execUpdateUserEmail)
	updateUserPhoneNumber = activity(api.UpdateUserPhoneNumber, on(resUser, actUpdate), validateUpdateUserPhone, execUpdateUserPhone)
	createAPIOnlyUsers    = activity(api.CreateAPIOnlyUsers, on(resUser, actCreate), validateCreateAPIOnlyUsers, execCreateAPIOnlyUsers)
)

func specsV3(users []api.UserParamsV3) []userSpec {
	out := make([]userSpec, len(users))
	for i, u := range users {
		out[i] = userSpec{path: fmt.Sprintf("parameters.users[%d]", i), Name: u.UserName, Email: u.UserEmail,
			Phone: u.UserPhoneNumber, APIKeys: u.APIKeys, Authenticators: u.Authenticators,
			OAuth: oauthV1(u.OauthProviders), Tags: u.UserTags}
	}
	return out
}

func specsV4(users []api.UserParamsV4) []userSpec {
	out := make([]userSpec, len(users))
	for i, u := range users {
		out[i] = userSpec{path: fmt.Sprintf("parameters.users[%d]", i), Name: u.UserName, Email: u.UserEmail,
			Phone: u.UserPhoneNumber, APIKeys: u.APIKeys, Authenticators: u.Authenticators,
			OAuth: oauthV2(u.OauthProviders), Tags: u.UserTags}
	}
	return out
}

// specsAPIOnly reads users of CREATE_API_ONLY_USERS: their keys are P-256, the first version's only curve.
func specsAPIOnly(users []api.APIOnlyUserParams) []userSpec {
	out := make([]userSpec, len(users))
	for i, u := range users {
		keys := make([]api.APIKeyParamsV2, len(u.APIKeys))
		for j, k := range u.APIKeys {
			keys[j] = api.APIKeyParamsV2{APIKeyName: k.APIKeyName, PublicKey: k.PublicKey, CurveType: api.CurveP256, ExpirationSeconds: k.ExpirationSeconds}
		}
		out[i] = userSpec{path: fmt.Sprintf("parameters.apiOnlyUsers[%d]", i), Name: u.UserName, Email: u.UserEmail,
			APIKeys: keys, Authenticators: []api.AuthenticatorParamsV2{}, OAuth: []oauthSpec{}, Tags: u.UserTags}
	}
	return out
}

func validateCreateAPIOnlyUsers(p *api.CreateAPIOnlyUsersIntent) error {
	return checkUserSpecs(specsAPIOnly(p.APIOnlyUsers))
}

func execCreateAPIOnlyUsers(x *execution, p *api.CreateAPIOnlyUsersIntent) (*api.CreateUsersResult, error) {
	return x.createUsers(specsAPIOnly(p.APIOnlyUsers))
}

func oauthV1(ps []api.OauthProviderParams) []oauthSpec {
	out := make([]oauthSpec, len(ps))
	for i, p := range ps {
		out[i] = oauthSpec{Name: p.ProviderName, Token: p.OidcToken}
	}
	return out
}

func oauthV2(ps []api.OauthProviderParamsV2) []oauthSpec {
	out := make([]oauthSpec, len(ps))
	for i, p := range ps {
		out[i] = oauthSpec{Name: p.ProviderName, Token: p.OidcToken, Claims: p.OidcClaims}
	}
	return out
}

func validateCreateUsersV3(p *api.CreateUsersIntentV3) error { return checkUserSpecs(specsV3(p.Users)) }
func validateCreateUsersV4(p *api.CreateUsersIntentV4) error { return checkUserSpecs(specsV4(p.Users)) }

func execCreateUsersV3(x *execution, p *api.CreateUsersIntentV3) (*api.CreateUsersResult, error) {
	return x.createUsers(specsV3(p.Users))
}

func execCreateUsersV4(x *execution, p *api.CreateUsersIntentV4) (*api.CreateUsersResult, error) {
	return x.createUsers(specsV4(p.Users))
}

func (x *execution) createUsers(specs []userSpec) (*api.CreateUsersResult, error) {
	res := &api.CreateUsersResult{UserIDs: []string{}}
	for _, s := range specs {
		u, err := x.addUser(x.org, s)
		if err != nil {
			return nil, err
		}
		res.UserIDs = append(res.UserIDs, u.ID)
	}
	return res, nil
}

// addUser creates a user with its credentials in org (the execution's organization or a new sub-organization).
func (x *execution) addUser(org *Org, s userSpec) (*User, error) {
	if len(org.Users) >= maxUsersPerOrg {
		return nil, limitReached("organization %s has %d users, the most an organization may have", org.ID, maxUsersPerOrg)
	}
	u := &User{ID: newID(), Name: s.Name, Email: s.Email, Phone: s.Phone, Tags: []string{}, APIKeys: []*APIKey{},
		Authenticators: []*Authenticator{}, OAuthProviders: []*OAuthProvider{}, CreatedAt: x.now, UpdatedAt: x.now}
	if err := checkContactFree(org, u.ID, s.path, s.Email, s.Phone); err != nil {
		return nil, err
	}
	from := x.madeByStamp()
	if err := x.contactsAllowed(from, s.path, s.Email, s.Phone); err != nil {
		return nil, err
	}
	for i, tagID := range s.Tags {
		if org.Tag(tagID) == nil {
			return nil, apierr.NotFoundf("%s.userTags[%d]: tag %s not found", s.path, i, tagID)
		}
		u.Tags = append(u.Tags, tagID)
	}
	org.Users = append(org.Users, u)
	if _, err := x.addAPIKeys(org, u, s.path+".apiKeys", s.APIKeys, from); err != nil {
		return nil, err
	}
	if _, err := x.addAuthenticators(org, u, s.path+".authenticators", s.Authenticators, from); err != nil {
		return nil, err
	}
	if err := x.addOAuthProviders(org, u, s.path+".oauthProviders", s.OAuth, from); err != nil {
		return nil, err
	}
	return u, nil
}

// checkContactFree refuses an e-mail address or phone number another user of the organization already has: logins by
// contact must find exactly one user.
func checkContactFree(org *Org, userID, path, email, phone string) error {
	for _, o := range org.Users {
		if o.ID == userID {
			continue
		}
		if email != "" && strings.EqualFold(o.Email, email) {
			return apierr.Conflict("%s.userEmail: another user of this organization already has %s", path, email)
		}
		if phone != "" && o.Phone == phone {
			return apierr.Conflict("%s.userPhoneNumber: another user of this organization already has %s", path, phone)
		}
	}
	return nil
}

// addAPIKeys registers API keys of u, made as from says (lineage.go).
func (x *execution) addAPIKeys(org *Org, u *User, path string, keys []api.APIKeyParamsV2, from lineage) ([]string, error) {
	ids := make([]string, 0, len(keys))
	for i, k := range keys {
		p := fmt.Sprintf("%s[%d]", path, i)
		pub, err := checkAPIKey(p, k)
		if err != nil {
			return nil, err
		}
		if owner, _ := org.apiKeyByPublicKey(pub); owner != nil {
			return nil, apierr.Conflict("%s.publicKey: this public key is already registered in the organization", p)
		}
		key := &APIKey{ID: newID(), Name: k.APIKeyName, PublicKey: pub, Curve: k.CurveType,
			Type: credentialType(k.CurveType), Expiration: k.ExpirationSeconds, CreatedAt: x.now, UpdatedAt: x.now}
		if k.ExpirationSeconds != "" {
			secs, _ := parseExpiration(k.ExpirationSeconds)
			key.ExpiresAt = x.now.Add(time.Duration(secs) * time.Second)
		}
		if err := from.bindKey(u, key, x.now); err != nil {
			return nil, err
		}
		if err := u.admitAPIKey(key, x.now); err != nil {
			return nil, err
		}
		ids = append(ids, key.ID)
	}
	return ids, nil
}

func credentialType(curve string) string {
	switch curve {
	case api.CurveSecp256k1:
		return api.CredentialAPIKeySecp256
	case api.CurveEd25519:
		return api.CredentialAPIKeyEd25519
	}
	return api.CredentialAPIKeyP256
}

// addAuthenticators registers passkeys of u, made as from says (lineage.go).
func (x *execution) addAuthenticators(org *Org, u *User, path string, as []api.AuthenticatorParamsV2, from lineage) ([]string, error) {
	ids := make([]string, 0, len(as))
	for i, a := range as {
		p := fmt.Sprintf("%s[%d]", path, i)
		ts := make([]stamp.Transport, len(a.Attestation.Transports))
		for j, t := range a.Attestation.Transports {
			ts[j] = stamp.Transport(t)
		}
		cred, err := stamp.VerifyRegistration(a.Challenge, stamp.Attestation{
			CredentialID: a.Attestation.CredentialID, ClientDataJSON: a.Attestation.ClientDataJSON,
			AttestationObject: a.Attestation.AttestationObject, Transports: ts,
		})
		if err != nil {
			return nil, apierr.Invalid("%s.attestation: %s", p, err.Error())
		}
		if owner, _ := org.authenticatorByCredentialID(cred.CredentialID); owner != nil {
			return nil, apierr.Conflict("%s: this passkey is already registered in the organization", p)
		}
		auth := &Authenticator{ID: newID(), Name: a.AuthenticatorName, CredentialID: cred.CredentialID,
			PublicKeyCOSE: cred.PublicKey, PublicKeyHex: cred.PublicKeyHex, Algorithm: cred.Algorithm,
			AAGUID: cred.AAGUID, AttestationType: cred.AttestationType, AttestationFormat: cred.AttestationFormat,
			RPIDHash: cred.RPIDHash, Transports: a.Attestation.Transports, CreatedAt: x.now, UpdatedAt: x.now}
		if auth.Transports == nil {
			auth.Transports = []string{}
		}
		if err := from.bindFactor("a passkey", u, &auth.CreatedBy, &auth.Origin, x.now); err != nil {
			return nil, err
		}
		if err := u.admitAuthenticator(auth); err != nil {
			return nil, err
		}
		ids = append(ids, auth.ID)
	}
	return ids, nil
}

// addOAuthProviders links OIDC identities to u, made as from says (lineage.go).
func (x *execution) addOAuthProviders(org *Org, u *User, path string, ps []oauthSpec, from lineage) error {
	for i, p := range ps {
		claims := p.Claims
		if claims == nil {
			c, err := x.oidcIdentity(fmt.Sprintf("%s[%d].oidcToken", path, i), p.Token)
			if err != nil {
				return err
			}
			claims = c
		}
		for _, other := range org.Users {
			for _, op := range other.OAuthProviders {
				if op.Issuer == claims.Iss && op.Subject == claims.Sub && op.Audience == claims.Aud {
					return apierr.Conflict("%s[%d]: this OIDC identity already belongs to a user of the organization", path, i)
				}
			}
		}
		op := &OAuthProvider{ID: newID(), Name: p.Name, Issuer: claims.Iss, Subject: claims.Sub, Audience: claims.Aud,
			CreatedAt: x.now, UpdatedAt: x.now}
		if err := from.bindFactor("an OIDC identity", u, &op.CreatedBy, &op.Origin, x.now); err != nil {
			return err
		}
		if err := u.admitOAuthProvider(op); err != nil {
			return err
		}
	}
	return nil
}

func validateDeleteUsers(p *api.DeleteUsersIntent) error {
	return checkIDs("parameters.userIds", p.UserIDs, false)
}

func execDeleteUsers(x *execution, p *api.DeleteUsersIntent) (*api.DeleteUsersResult, error) {
	for _, id := range p.UserIDs {
		if _, err := x.user(id); err != nil {
			return nil, err
		}
		if x.org.IsRoot(id) {
			return nil, apierr.New(apierr.FailedPrecondition, "REQUEST_INVALID",
				"user %s is in the root quorum; remove it from the quorum with UPDATE_ROOT_QUORUM first", id)
		}
	}
	x.org.Users = slices.DeleteFunc(x.org.Users, func(u *User) bool { return slices.Contains(p.UserIDs, u.ID) })
	return &api.DeleteUsersResult{UserIDs: p.UserIDs}, nil
}

func validateUpdateUser(p *api.UpdateUserIntent) error {
	if err := checkID("parameters.userId", p.UserID); err != nil {
		return err
	}
	if p.UserName != "" {
		if err := checkName("parameters.userName", p.UserName); err != nil {
			return err
		}
	}
	if p.UserEmail != nil && *p.UserEmail != "" {
		if err := checkEmail("parameters.userEmail", *p.UserEmail); err != nil {
			return err
		}
	}
	if p.UserPhoneNumber != nil && *p.UserPhoneNumber != "" {
		if err := checkPhone("parameters.userPhoneNumber", *p.UserPhoneNumber); err != nil {
			return err
		}
	}
	if p.UserTagIDs != nil {
		return checkIDs("parameters.userTagIds", *p.UserTagIDs, true)
	}
	return nil
}

func execUpdateUser(x *execution, p *api.UpdateUserIntent) (*api.UserIDResult, error) {
	u, err := x.user(p.UserID)
	if err != nil {
		return nil, err
	}
	if p.UserName != "" {
		u.Name = p.UserName
	}
	if p.UserEmail != nil {
		if err := x.setEmail(u, *p.UserEmail); err != nil {
			return nil, err
		}
	}
	if p.UserPhoneNumber != nil {
		if err := x.setPhone(u, *p.UserPhoneNumber); err != nil {
			return nil, err
		}
	}
	if p.UserTagIDs != nil {
		for i, id := range *p.UserTagIDs {
			if x.org.Tag(id) == nil {
				return nil, apierr.NotFoundf("parameters.userTagIds[%d]: tag %s not found", i, id)
			}
		}
		u.Tags = slices.Clone(*p.UserTagIDs)
	}
	u.UpdatedAt = x.now
	return &api.UserIDResult{UserID: u.ID}, nil
}

// contactsAllowed refuses an e-mail address or phone number set by a credential a session profile binds (lineage.go).
func (x *execution) contactsAllowed(from lineage, path, email, phone string) error {
	if email != "" {
		if err := from.bindContact(path+".userEmail", "an e-mail address", x.now); err != nil {
			return err
		}
	}
	if phone != "" {
		if err := from.bindContact(path+".userPhoneNumber", "a phone number", x.now); err != nil {
			return err
		}
	}
	return nil
}

func (x *execution) setEmail(u *User, email string) error {
	if err := checkContactFree(x.org, u.ID, "parameters", email, ""); err != nil {
		return err
	}
	if !strings.EqualFold(u.Email, email) {
		if err := x.contactsAllowed(x.madeByStamp(), "parameters", email, ""); err != nil {
			return err
		}
		u.EmailVerified = false
	}
	u.Email = email
	return nil
}

func (x *execution) setPhone(u *User, phone string) error {
	if err := checkContactFree(x.org, u.ID, "parameters", "", phone); err != nil {
		return err
	}
	if u.Phone != phone {
		if err := x.contactsAllowed(x.madeByStamp(), "parameters", "", phone); err != nil {
			return err
		}
		u.PhoneVerified = false
	}
	u.Phone = phone
	return nil
}

func validateUpdateUserName(p *api.UpdateUserNameIntent) error {
	if err := checkID("parameters.userId", p.UserID); err != nil {
		return err
	}
	return checkName("parameters.userName", p.UserName)
}

func execUpdateUserName(x *execution, p *api.UpdateUserNameIntent) (*api.UserIDResult, error) {
	u, err := x.user(p.UserID)
	if err != nil {
		return nil, err
	}
	u.Name, u.UpdatedAt = p.UserName, x.now
	return &api.UserIDResult{UserID: u.ID}, nil
}

func validateUpdateUserEmail(p *api.UpdateUserEmailIntent) error {
	if err := checkID("parameters.userId", p.UserID); err != nil {
		return err
	}
	if p.UserEmail == "" {
		return nil
	}
	return checkEmail("parameters.userEmail", p.UserEmail)
}

func execUpdateUserEmail(x *execution, p *api.UpdateUserEmailIntent) (*api.UserIDResult, error) {
	u, err := x.user(p.UserID)
	if err != nil {
		return nil, err
	}
	if err := x.setEmail(u, p.UserEmail); err != nil {
		return nil, err
	}
	u.UpdatedAt = x.now
	return &api.UserIDResult{UserID: u.ID}, nil
}

func validateUpdateUserPhone(p *api.UpdateUserPhoneNumberIntent) error {
	if err := checkID("parameters.userId", p.UserID); err != nil {
		return err
	}
	if p.UserPhoneNumber == "" {
		return nil
	}
	return checkPhone("parameters.userPhoneNumber", p.UserPhoneNumber)
}

func execUpdateUserPhone(x *execution, p *api.UpdateUserPhoneNumberIntent) (*api.UserIDResult, error) {
	u, err := x.user(p.UserID)
	if err != nil {
		return nil, err
	}
	if err := x.setPhone(u, p.UserPhoneNumber); err != nil {
		return nil, err
	}
	u.UpdatedAt = x.now
	return &api.UserIDResult{UserID: u.ID}, nil
}
