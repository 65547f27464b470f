package coordinator

import (
	"context"
	"encoding/json"
	"errors"
	"slices"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/stamp"
)

// A wallet-kit app logs a passkey user in by sending STAMP_LOGIN to the organization it is configured with, the parent:
// until the user has picked a passkey, the app cannot know which sub-organization is theirs. The reference finds the
// sub-organization holding the credential, and so does this, for that one activity and among the named organization's
// own sub-organizations only. The activity then runs, and is recorded, in that sub-organization.

// loginsInSubOrg reports whether a request that no credential of its organization (or its parent) authenticates may
// be a sub-organization user's STAMP_LOGIN. Only the type is read, as bodyOrgID reads the organization: the strict
// decoding comes once the request is authenticated.
func loginsInSubOrg(st stamp.Stamp, body []byte, err error) bool {
	var e *apierr.Error
	if !errors.As(err, &e) || (e != errKeyNotFound && e != errPasskeyNotFound) {
		return false
	}
	if _, attested := st.(*stamp.AttestedStamp); attested {
		return false
	}
	var q struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(body, &q)
	return q.Type == api.StampLogin.Type
}

// subOrgLogin authenticates a STAMP_LOGIN sent to parent by the credential of a user of one of parent's
// sub-organizations, and returns that sub-organization. A credential held in several of them is ambiguous: once the
// stamp is verified, the caller hears that it must name the sub-organization.
func (c *Coordinator) subOrgLogin(ctx context.Context, parent *Org, st stamp.Stamp, body []byte) (*Org, *principal, error) {
	kind, value := indexPublicKey, ""
	switch s := st.(type) {
	case *stamp.APIKeyStamp:
		value = s.PublicKey
	case *stamp.WebAuthnStamp:
		kind, value = indexCredentialID, s.CredentialID
	}
	hits, err := c.store.FindIndex(ctx, kind, value)
	if err != nil {
		return nil, nil, err
	}
	var subIDs []string
	for _, h := range hits {
		if h.ParentID == parent.ID && !slices.Contains(subIDs, h.OrgID) {
			subIDs = append(subIDs, h.OrgID)
		}
	}
	if len(subIDs) == 0 {
		return nil, nil, orNotFound(nil, nil, st)
	}
	sub, err := c.loadOrg(ctx, subIDs[0])
	if err != nil {
		return nil, nil, err
	}
	who, err := c.authenticateIn(ctx, sub, st, body)
	if who == nil || err != nil {
		return nil, nil, orNotFound(who, err, st)
	}
	if len(subIDs) > 1 {
		return nil, nil, apierr.Invalid("the credential belongs to users of several sub-organizations of %s; send STAMP_LOGIN to the user's own", parent.ID)
	}
	return sub, who, nil
}
