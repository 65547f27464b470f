package coordinator

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"

	"github.com/google/uuid"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/token"
	"github.com/sigil/sigil/stamp"
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
	// whose contact it verified. Identity is the OIDC identity of one with an OIDC token.
	Attestation *token.VerificationClaims
	Identity    *OAuthProvider
}

// The documented answers for a request's organization.
var (
	errBadOrgID    = apierr.New(apierr.InvalidArgument, "INVALID_ORGANIZATION_ID", "malformed organization ID provided")
	errOrgNotFound = apierr.New(apierr.NotFound, "ORGANIZATION_NOT_FOUND", "no organization found with the given ID")
)

// The documented authentication failures.
var (
	errNoStamp = apierr.Unauth("SIGNATURE_MISSING",
		"cannot authenticate public API activity request without a stamp (X-Stamp/X-Stamp-Webauthn header)")
	errKeyNotFound = apierr.Unauth("PUBLIC_KEY_NOT_FOUND",
		"public key could not be found in organization or its parent organization")
	errExpiredKey      = apierr.Unauth("API_KEY_EXPIRED", "expired api key")
	errPasskeyNotFound = apierr.Unauth("CREDENTIAL_NOT_FOUND",
		"passkey credential could not be found in organization or its parent organization")
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

// verifyStamp checks the signature of a stamp that carries its own public key (an API key's, an attested client
// key's) over the exact body, before anything of the body is read. A passkey's signature can only be checked against
// the credential it names, which authenticatePasskey finds first.
func verifyStamp(st stamp.Stamp, body []byte) error {
	switch s := st.(type) {
	case *stamp.APIKeyStamp:
		if s.Verify(body) != nil {
			return errBadSignature("api key")
		}
	case *stamp.AttestedStamp:
		if s.Verify(body) != nil {
			return errBadSignature("attested client key")
		}
	}
	return nil
}

// bodyOrgID reads the organizationId of a request body, judging nothing else of it: only to know where to look for
// the credential. The strict decoding, with its errors, comes once the request is authenticated.
func bodyOrgID(body []byte) string {
	var q struct {
		OrganizationID string `json:"organizationId"`
	}
	_ = json.Unmarshal(body, &q)
	return q.OrganizationID
}

// unknownOrg answers a request naming an organization that is malformed or does not exist. Only the holder of a key
// registered in some organization hears that answer; anyone else hears that the key was not found, as for an
// organization that exists but is not theirs, so that no one learns which organizations exist by asking.
func (c *Coordinator) unknownOrg(ctx context.Context, st stamp.Stamp, answer *apierr.Error) error {
	if s, ok := st.(*stamp.APIKeyStamp); ok {
		hits, err := c.store.FindIndex(ctx, indexPublicKey, s.PublicKey)
		if err != nil {
			return err
		}
		if len(hits) > 0 {
			return answer
		}
	}
	return orNotFound(nil, nil, st)
}

// requestOrg reads the organization a stamped request names, for authenticating it: a body that is not JSON, and an
// unknown or malformed id, are answered by unknownOrg.
func (c *Coordinator) requestOrg(ctx context.Context, st stamp.Stamp, body []byte) (*Org, error) {
	if !json.Valid(body) {
		return nil, c.unknownOrg(ctx, st, decodeRequest(body, &struct{}{}).(*apierr.Error))
	}
	org, err := c.loadOrg(ctx, bodyOrgID(body))
	if errors.Is(err, errBadOrgID) || errors.Is(err, errOrgNotFound) {
		return nil, c.unknownOrg(ctx, st, err.(*apierr.Error))
	}
	return org, err
}

// loadOrg reads an organization for a request, answering the documented errors for bad or unknown ids. The document
// it returns may be shared with other requests: read it, never change it (activities change the one they lock).
func (c *Coordinator) loadOrg(ctx context.Context, id string) (*Org, error) {
	if _, err := uuid.Parse(id); err != nil {
		return nil, errBadOrgID
	}
	cached := c.orgs.get(id)
	known := int64(-1)
	if cached != nil {
		known = cached.version
	}
	row, err := c.store.GetOrgIfChanged(ctx, id, known)
	if errors.Is(err, store.ErrNotFound) {
		return nil, errOrgNotFound
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

// authenticateSubmission finds an activity's organization (orgID, as the body names it) and who submitted it. It
// trusts a cached organization document without asking the database whether it is current, because the activity's
// transaction reads the document again under the organization's lock and finds the credential there again
// (principal.refresh). Only a request the cached document does not authenticate is tried again on the stored document,
// which another process may have changed.
func (c *Coordinator) authenticateSubmission(ctx context.Context, st stamp.Stamp, body []byte, orgID string) (*Org, *principal, error) {
	if cached := c.orgs.get(orgID); cached != nil {
		who, err := c.authenticate(ctx, cached, st, body)
		if e := (*apierr.Error)(nil); !errors.As(err, &e) || e.Code != apierr.Unauthenticated {
			return cached, who, err
		}
	}
	org, err := c.requestOrg(ctx, st, body)
	if err != nil {
		return nil, nil, err
	}
	who, err := c.authenticate(ctx, org, st, body)
	if loginsInSubOrg(st, body, err) {
		return c.subOrgLogin(ctx, org, st, body) // auth_suborg.go
	}
	return org, who, err
}

// authenticate verifies the stamp over the exact body and finds its credential in org or, failing that, in org's
// parent.
func (c *Coordinator) authenticate(ctx context.Context, org *Org, st stamp.Stamp, body []byte) (*principal, error) {
	if s, ok := st.(*stamp.AttestedStamp); ok {
		return c.authenticateAttested(ctx, org, s, body)
	}
	who, err := c.authenticateIn(ctx, org, st, body)
	if who != nil || err != nil || org.ParentID == "" {
		return who, orNotFound(who, err, st)
	}
	parent, err := c.loadOrg(ctx, org.ParentID)
	if errors.Is(err, errOrgNotFound) { // deleted since its sub-organization was read
		return nil, orNotFound(nil, nil, st)
	}
	if err != nil {
		return nil, err
	}
	who, err = c.authenticateIn(ctx, parent, st, body)
	if who != nil {
		who.ViaParent = true
	}
	return who, orNotFound(who, err, st)
}

// authenticateIn authenticates a stamp by a credential of o; nil and no error when o has no such credential.
func (c *Coordinator) authenticateIn(ctx context.Context, o *Org, st stamp.Stamp, body []byte) (*principal, error) {
	switch s := st.(type) {
	case *stamp.APIKeyStamp:
		return c.authenticateAPIKey(ctx, o, s)
	case *stamp.WebAuthnStamp:
		return c.authenticatePasskey(ctx, o, s, body)
	}
	return nil, errNoStamp
}

// orNotFound is the documented answer for a stamp whose credential neither organization holds.
func orNotFound(who *principal, err error, st stamp.Stamp) error {
	if who != nil || err != nil {
		return err
	}
	if _, ok := st.(*stamp.WebAuthnStamp); ok {
		return errPasskeyNotFound
	}
	return errKeyNotFound
}

// authenticateAPIKey finds the API key of a stamp whose signature verifyStamp checked, and admits the request by the
// organization's IP allowlists (allowlists.go).
func (c *Coordinator) authenticateAPIKey(ctx context.Context, o *Org, s *stamp.APIKeyStamp) (*principal, error) {
	user, key := o.apiKeyByPublicKey(s.PublicKey)
	if key == nil {
		return nil, nil
	}
	if key.Curve != string(s.Curve) || key.Type == api.CredentialReadOnlySession {
		// The signature verified (verifyStamp) under the curve the stamp claims; a read-only session's key has no
		// private half anywhere, and never stamps.
		return nil, errBadSignature("api key")
	}
	if key.Expired(c.now()) {
		return nil, errExpiredKey
	}
	if err := c.admit(ctx, o, key.PublicKey); err != nil {
		return nil, err
	}
	return &principal{
		Org: o, User: user, CredID: key.ID, CredType: key.Type, PublicKey: key.PublicKey,
		Scheme: string(s.Scheme), Signature: hex.EncodeToString(s.Signature),
	}, nil
}

func (c *Coordinator) authenticatePasskey(ctx context.Context, o *Org, s *stamp.WebAuthnStamp, body []byte) (*principal, error) {
	user, a := o.authenticatorByCredentialID(s.CredentialID)
	if a == nil {
		return nil, nil
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
	if err := c.admit(ctx, o, a.PublicKeyHex); err != nil { // before the counter moves: a refused request stores nothing
		return nil, err
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
		Scheme: "SIGNATURE_SCHEME_TK_API_P256", Signature: hex.EncodeToString(s.Signature),
	}, nil
}
