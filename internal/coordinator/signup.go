package coordinator

import (
	"encoding/json"
	"strings"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/otp"
	"github.com/sigil/sigil/internal/token"
	"github.com/sigil/sigil/stamp/clientsig"
)

// A CREATE_SUB_ORGANIZATION may carry a verification token (the auth proxy's signup after an OTP): the root user
// whose e-mail address or phone number the token verified starts verified. When the token binds a client key, the
// clientSignature must be that key's signature over the signup usage: exactly this root user's contact and
// credentials, for this token. The token is not consumed: the SDKs present it again to log in.

// signupToken is the verification part of a sub-organization to create.
type signupToken struct {
	token     string
	signature *api.ClientSignature
	usages    []clientsig.SignupUsage // per root user, in order: what a client signature must name
}

// signupUsage describes one root user as the signup message of @turnkey/core names it.
func signupUsage(email, phone string, apiKeys, authenticators, oauthProviders any) clientsig.SignupUsage {
	raw := func(v any) json.RawMessage {
		b, _ := json.Marshal(v)
		return b
	}
	return clientsig.SignupUsage{APIKeys: raw(apiKeys), Authenticators: raw(authenticators), OAuthProviders: raw(oauthProviders),
		Email: email, PhoneNumber: phone}
}

func signupTokenV7(p *api.CreateSubOrganizationIntentV7) signupToken {
	s := signupToken{token: p.VerificationToken, signature: p.ClientSignature}
	for _, u := range p.RootUsers {
		s.usages = append(s.usages, signupUsage(u.UserEmail, u.UserPhoneNumber, u.APIKeys, u.Authenticators, u.OauthProviders))
	}
	return s
}

func signupTokenV8(p *api.CreateSubOrganizationIntentV8) signupToken {
	s := signupToken{token: p.VerificationToken, signature: p.ClientSignature}
	for _, u := range p.RootUsers {
		s.usages = append(s.usages, signupUsage(u.UserEmail, u.UserPhoneNumber, u.APIKeys, u.Authenticators, u.OauthProviders))
	}
	return s
}

func (s signupToken) validate() error {
	if s.token == "" {
		if s.signature != nil {
			return apierr.Invalid("parameters.clientSignature was given without a parameters.verificationToken to check it against")
		}
		return nil
	}
	if len(s.token) > maxTokenLen {
		return apierr.Invalid("parameters.verificationToken must be the token VERIFY_OTP returned")
	}
	if s.signature != nil && s.signature.Scheme != clientsig.SchemeP256 {
		return apierr.Invalid("parameters.clientSignature.scheme must be %s, got %q", clientsig.SchemeP256, s.signature.Scheme)
	}
	return nil
}

// apply checks the token against the organization creating the sub-organization and marks the verified contact of
// the new root user it names.
func (s signupToken) apply(x *execution, sub *Org) error {
	if s.token == "" {
		return nil
	}
	k, err := x.tokenKey()
	if err != nil {
		return err
	}
	claims, err := token.VerifyVerificationToken(s.token, &k.PublicKey, x.now)
	if err != nil {
		return verificationTokenError(err)
	}
	if claims.OrganizationID != x.org.ID {
		return apierr.Denied("the verification token was issued by organization %s; a sub-organization of %s can be created only with a token %s issued", claims.OrganizationID, x.org.ID, x.org.ID)
	}
	i := rootUserWithContact(sub, claims)
	if i < 0 {
		return apierr.Invalid("parameters.verificationToken verified %s, which none of parameters.rootUsers has", claims.Contact)
	}
	switch {
	case claims.PublicKey != "" && s.signature == nil:
		return apierr.Invalid("parameters.clientSignature is required: the verification token binds a client key, so sign the signup message with it")
	case claims.PublicKey == "" && s.signature != nil:
		return apierr.Invalid("parameters.clientSignature was given, but the verification token binds no client key to check it with")
	case claims.PublicKey != "":
		if err := token.VerifySignupSignature(*s.signature, claims, s.usages[i]); err != nil {
			return apierr.Invalid("parameters.clientSignature: %s", err.Error())
		}
	}
	markVerified(sub.Users[i], claims)
	return nil
}

// rootUserWithContact is the index of the new organization's user with the token's contact, or -1.
func rootUserWithContact(sub *Org, c token.VerificationClaims) int {
	for i, u := range sub.Users {
		switch otp.Type(c.VerificationType) {
		case otp.TypeEmail:
			if u.Email != "" && strings.EqualFold(u.Email, c.Contact) {
				return i
			}
		case otp.TypeSMS:
			if u.Phone != "" && u.Phone == c.Contact {
				return i
			}
		}
	}
	return -1
}
