package coordinator

import "github.com/sigil/sigil/api"

// The wire forms of the organization's resources.

func renderUser(u *User) api.User {
	out := api.User{
		UserID: u.ID, UserName: u.Name, UserEmail: u.Email, UserPhoneNumber: u.Phone,
		Authenticators: []api.Authenticator{}, APIKeys: []api.APIKey{}, UserTags: append([]string{}, u.Tags...),
		OauthProviders: []api.OauthProvider{}, CreatedAt: api.NewTimestamp(u.CreatedAt),
		UpdatedAt: api.NewTimestamp(u.UpdatedAt), MfaPolicies: renderMfaPolicies(u),
	}
	for _, k := range u.APIKeys {
		out.APIKeys = append(out.APIKeys, renderAPIKey(k))
	}
	for _, a := range u.Authenticators {
		out.Authenticators = append(out.Authenticators, renderAuthenticator(a))
	}
	for _, p := range u.OAuthProviders {
		out.OauthProviders = append(out.OauthProviders, api.OauthProvider{
			ProviderID: p.ID, ProviderName: p.Name, Issuer: p.Issuer, Audience: p.Audience, Subject: p.Subject,
			CreatedAt: api.NewTimestamp(p.CreatedAt), UpdatedAt: api.NewTimestamp(p.UpdatedAt),
		})
	}
	return out
}

func renderAPIKey(k *APIKey) api.APIKey {
	return api.APIKey{
		Credential: api.Credential{PublicKey: k.PublicKey, Type: k.Type, SessionProfileID: k.SessionProfileID}, APIKeyID: k.ID, APIKeyName: k.Name,
		CreatedAt: api.NewTimestamp(k.CreatedAt), UpdatedAt: api.NewTimestamp(k.UpdatedAt), ExpirationSeconds: k.Expiration,
	}
}

func renderAuthenticator(a *Authenticator) api.Authenticator {
	return api.Authenticator{
		Transports: append([]string{}, a.Transports...), AttestationType: a.AttestationType, AAGUID: a.AAGUID,
		CredentialID: a.CredentialID, Model: a.Model(),
		Credential:      api.Credential{PublicKey: a.PublicKeyHex, Type: api.CredentialWebAuthn},
		AuthenticatorID: a.ID, AuthenticatorName: a.Name,
		CreatedAt: api.NewTimestamp(a.CreatedAt), UpdatedAt: api.NewTimestamp(a.UpdatedAt),
	}
}

// Model names the authenticator's model when its AAGUID says nothing more specific.
func (a *Authenticator) Model() string {
	if a.AAGUID == "" || a.AAGUID == "00000000-0000-0000-0000-000000000000" {
		return "Unknown passkey"
	}
	return "Passkey " + a.AAGUID
}

func renderTag(t *Tag) api.Tag {
	return api.Tag{TagID: t.ID, TagName: t.Name, TagType: api.TagTypeUser,
		CreatedAt: api.NewTimestamp(t.CreatedAt), UpdatedAt: api.NewTimestamp(t.UpdatedAt)}
}

func renderOrg(o *Org) api.OrganizationData {
	out := api.OrganizationData{
		OrganizationID: o.ID, Name: o.Name, Users: []api.User{}, Policies: []api.Policy{}, PrivateKeys: []api.PrivateKey{},
		Invitations: []api.Invitation{}, Tags: []api.Tag{}, Features: []api.Feature{}, Wallets: []api.Wallet{},
		RootQuorum: &api.Quorum{Threshold: o.RootQuorum.Threshold, UserIDs: append([]string{}, o.RootQuorum.UserIDs...)},
	}
	for _, u := range o.Users {
		out.Users = append(out.Users, renderUser(u))
	}
	for _, t := range o.Tags {
		out.Tags = append(out.Tags, renderTag(t))
	}
	for _, inv := range o.Invitations {
		out.Invitations = append(out.Invitations, renderInvitation(inv))
	}
	for _, p := range o.Policies {
		out.Policies = append(out.Policies, renderPolicy(p))
	}
	for _, w := range o.Wallets {
		out.Wallets = append(out.Wallets, renderWallet(w))
	}
	for _, k := range o.PrivateKeys {
		out.PrivateKeys = append(out.PrivateKeys, renderPrivateKey(k))
	}
	for name, v := range o.Features {
		out.Features = append(out.Features, api.Feature{Name: name, Value: v})
	}
	return out
}
