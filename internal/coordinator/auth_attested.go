package coordinator

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/token"
	"github.com/sigil/sigil/stamp"
)

// attestedActivity is the one request an X-Stamp-Attested stamp may authenticate. The attesting token (a verification
// token, valid for up to a day, or an OIDC token) proves an identity, not a credential the user registered, so it
// opens a session and nothing else; the session key then stamps everything else.
const attestedActivity = "ACTIVITY_TYPE_STAMP_LOGIN"

// authenticateAttested verifies an X-Stamp-Attested stamp whose client key's signature over the body verifyStamp
// checked: the token that attests the key, and the user of org that the token names — by the contact a verification token verified, or by the
// OIDC identity (issuer, subject, audience) of an OIDC token. The token is not consumed: the current SDKs present
// the same verification token to create a sub-organization and then to log in.
func (c *Coordinator) authenticateAttested(ctx context.Context, org *Org, s *stamp.AttestedStamp, body []byte) (*principal, error) {
	var env struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(body, &env) != nil || env.Type != attestedActivity {
		return nil, apierr.Unauth("UNAUTHENTICATED", "X-Stamp-Attested authenticates only %s; stamp other requests with the session key it returns", attestedActivity)
	}
	p := &principal{Org: org, PublicKey: s.PublicKey, Scheme: string(stamp.SchemeP256), Signature: hex.EncodeToString(s.Signature)}
	switch s.Scheme {
	case stamp.AttestedSchemeVerificationToken:
		claims, user, err := c.attestedByVerificationToken(ctx, org, s)
		if err != nil {
			return nil, err
		}
		p.User, p.CredType, p.Attestation = user, api.CredentialOTPAuthKeyP256, &claims
	case stamp.AttestedSchemeOIDC:
		user, identity, err := c.attestedByOIDC(ctx, org, s)
		if err != nil {
			return nil, err
		}
		p.User, p.Identity, p.CredType = user, identity, "CREDENTIAL_TYPE_OAUTH_KEY_P256"
	default:
		return nil, apierr.Unauth("UNAUTHENTICATED", "malformed activity stamp: unknown X-Stamp-Attested scheme %q", s.Scheme)
	}
	return p, c.admit(ctx, org, s.PublicKey)
}

func (c *Coordinator) attestedByVerificationToken(ctx context.Context, org *Org, s *stamp.AttestedStamp) (token.VerificationClaims, *User, error) {
	k, err := c.ownKey(ctx, tokenKeyName)
	if err != nil {
		return token.VerificationClaims{}, nil, err
	}
	claims, err := token.VerifyVerificationToken(s.Token, &k.PublicKey, c.now())
	if err != nil {
		return claims, nil, apierr.Unauth("UNAUTHENTICATED", "X-Stamp-Attested: publicKeyAttestation is not a valid verification token: %s", err.Error())
	}
	if claims.PublicKey != s.PublicKey {
		return claims, nil, apierr.Unauth("SIGNATURE_INVALID", "X-Stamp-Attested: the verification token does not bind the stamp's public key")
	}
	if err := tokenInScope(claims, org); err != nil {
		return claims, nil, apierr.Unauth("UNAUTHENTICATED", "X-Stamp-Attested: %s", apierr.As(err).Message)
	}
	u, err := userByContact(org, claims.VerificationType, claims.Contact)
	if err != nil {
		return claims, nil, apierr.Unauth("CREDENTIAL_NOT_FOUND", "X-Stamp-Attested: %s", apierr.As(err).Message)
	}
	return claims, u, nil
}

func (c *Coordinator) attestedByOIDC(ctx context.Context, org *Org, s *stamp.AttestedStamp) (*User, *OAuthProvider, error) {
	claims, err := c.verifyOIDC(ctx, "publicKeyAttestation", s.Token, c.storedTokenKey(ctx), token.NonceForPublicKey(s.PublicKey))
	if e := (*apierr.Error)(nil); errors.As(err, &e) && e.Code != apierr.Unavailable {
		return nil, nil, apierr.New(apierr.Unauthenticated, "INVALID_OIDC_TOKEN", "X-Stamp-Attested: %s", e.Message)
	} else if err != nil {
		return nil, nil, err
	}
	if u, identity := userWithIdentity(org, claims); u != nil {
		return u, identity, nil
	}
	return nil, nil, apierr.Unauth("CREDENTIAL_NOT_FOUND", "X-Stamp-Attested: no user of organization %s has the OIDC identity the token names", org.ID)
}
