package coordinator

import (
	"context"
	"encoding/hex"
	"errors"

	"github.com/google/uuid"

	"sigil/apierr"
	"sigil/stamp"
	"sigil/store"
	"sigil/token"
)

// principal is who sent a request: the user and credential that signed it, found in the request's organization or its
// parent.
type principal struct {
	Org       *Org // the organization holding the credential
	User      *User
	CredID    string // the API key's or passkey's id
	CredType  string // CREDENTIAL_TYPE_*
	PublicKey string
	Scheme    string
	Signature string // hex
	ViaParent bool   // the credential belongs to the parent of the request's organization
	// Attestation is the verification token of an X-Stamp-Attested stamp (auth_attested.go): the user is the one
	// whose contact it verified.
	Attestation *token.VerificationClaims
}

// The documented authentication failures.
var (
	errNoStamp = apierr.Unauth("SIGNATURE_MISSING",
		"cannot authenticate public API activity request without a stamp (X-Stamp/X-Stamp-Webauthn header)")
	errKeyNotFound = apierr.Unauth("PUBLIC_KEY_NOT_FOUND",
		"public key could not be found in organization or its parent organization")
	errExpiredKey = apierr.Unauth("API_KEY_EXPIRED", "expired api key")
)

func errBadSignature(kind string) *apierr.Error {
	return apierr.Unauth("SIGNATURE_INVALID", "could not verify %s signature", kind)
}

// stampError maps a stamp parse failure to the documented answer, keeping the precise reason.
func stampError(err error) *apierr.Error {
	var se *stamp.Error
	if !errors.As(err, &se) {
		return apierr.Unauth("UNAUTHENTICATED", "malformed activity stamp")
	}
	switch se.Kind {
	case stamp.KindMissing:
		return errNoStamp
	case stamp.KindInvalidSignature:
		return apierr.Unauth("SIGNATURE_INVALID", "%s", se.Error())
	default:
		return apierr.Unauth("UNAUTHENTICATED", "malformed activity stamp: %s", se.Error())
	}
}

// loadOrg reads an organization for a request, answering the documented errors for bad or unknown ids. The document
// it returns may be shared with other requests: read it, never change it (activities change the one they lock).
func (c *Coordinator) loadOrg(ctx context.Context, id string) (*Org, error) {
	if _, err := uuid.Parse(id); err != nil {
		return nil, apierr.New(apierr.InvalidArgument, "INVALID_ORGANIZATION_ID", "malformed organization ID provided")
	}
	cached := c.orgs.get(id)
	known := int64(-1)
	if cached != nil {
		known = cached.version
	}
	row, err := c.store.GetOrgIfChanged(ctx, id, known)
	if errors.Is(err, store.ErrNotFound) {
		return nil, apierr.New(apierr.NotFound, "ORGANIZATION_NOT_FOUND", "no organization found with the given ID")
	}
	if err != nil {
		return nil, err
	}
	if row.Version == known {
		return cached, nil
	}
	org, err := decodeOrg(row)
	if err != nil {
		return nil, err
	}
	c.orgs.put(org)
	return org, nil
}

// authenticate verifies the stamp over the exact body and finds its credential in org or org's parent.
func (c *Coordinator) authenticate(ctx context.Context, org *Org, st stamp.Stamp, body []byte) (*principal, error) {
	candidates := []*Org{org}
	if org.ParentID != "" {
		parent, err := c.loadOrg(ctx, org.ParentID)
		if err != nil {
			return nil, err
		}
		candidates = append(candidates, parent)
	}
	switch s := st.(type) {
	case *stamp.APIKeyStamp:
		return c.authenticateAPIKey(candidates, s, body)
	case *stamp.WebAuthnStamp:
		return c.authenticatePasskey(ctx, candidates, s, body)
	case *stamp.AttestedStamp:
		return c.authenticateAttested(ctx, org, s, body)
	}
	return nil, errNoStamp
}

func (c *Coordinator) authenticateAPIKey(candidates []*Org, s *stamp.APIKeyStamp, body []byte) (*principal, error) {
	for i, o := range candidates {
		user, key := o.apiKeyByPublicKey(s.PublicKey)
		if key == nil {
			continue
		}
		if key.Curve != string(s.Curve) {
			return nil, errBadSignature("api key")
		}
		if err := s.Verify(body); err != nil {
			return nil, errBadSignature("api key")
		}
		if key.Expired(c.now()) {
			return nil, errExpiredKey
		}
		return &principal{
			Org: o, User: user, CredID: key.ID, CredType: key.Type, PublicKey: key.PublicKey,
			Scheme: string(s.Scheme), Signature: hex.EncodeToString(s.Signature), ViaParent: i > 0,
		}, nil
	}
	return nil, errKeyNotFound
}

func (c *Coordinator) authenticatePasskey(ctx context.Context, candidates []*Org, s *stamp.WebAuthnStamp, body []byte) (*principal, error) {
	for i, o := range candidates {
		user, a := o.authenticatorByCredentialID(s.CredentialID)
		if a == nil {
			continue
		}
		stored, err := c.store.SignCount(ctx, o.ID, a.CredentialID)
		if err != nil {
			return nil, err
		}
		cred := &stamp.WebAuthnCredential{
			CredentialID: a.CredentialID, PublicKey: a.PublicKeyCOSE, PublicKeyHex: a.PublicKeyHex,
			Algorithm: a.Algorithm, RPIDHash: a.RPIDHash, SignCount: stored,
		}
		assertion, err := s.Verify(body, cred)
		if err != nil {
			return nil, apierr.Unauth("SIGNATURE_INVALID", "could not verify passkey signature: %s", err.Error())
		}
		advanced, err := c.store.AdvanceSignCount(ctx, o.ID, a.CredentialID, assertion.SignCount)
		if err != nil {
			return nil, err
		}
		if !advanced {
			return nil, apierr.Unauth("SIGNATURE_INVALID", "passkey signature counter did not increase: replayed request or cloned authenticator")
		}
		return &principal{
			Org: o, User: user, CredID: a.ID, CredType: "CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR", PublicKey: a.PublicKeyHex,
			Scheme: "SIGNATURE_SCHEME_TK_API_P256", Signature: hex.EncodeToString(s.Signature), ViaParent: i > 0,
		}, nil
	}
	return nil, apierr.Unauth("CREDENTIAL_NOT_FOUND", "passkey credential could not be found in organization or its parent organization")
}
