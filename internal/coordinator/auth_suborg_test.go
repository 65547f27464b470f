package coordinator_test

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/testdb"
	"github.com/sigil/sigil/stamp"
	"github.com/sigil/sigil/stamp/softauthn"
)

// A sub-organization user's passkey logs in with STAMP_LOGIN sent to the parent, as the wallet kit sends it: the
// session is the user's, in their sub-organization. Nothing else sent to the parent finds the credential, and a
// credential that users of two sub-organizations hold is refused.
func TestStampLoginThroughTheParent(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newStack(t, b)
		parent := s.boot.OrganizationID
		passkey, err := softauthn.New("app.example", "https://app.example")
		if err != nil {
			t.Fatal(err)
		}
		reg, err := passkey.Register(softauthn.NewChallenge())
		if err != nil {
			t.Fatal(err)
		}
		var authenticator api.AuthenticatorParamsV2
		raw, _ := json.Marshal(reg)
		_ = json.Unmarshal(raw, &authenticator)
		authenticator.AuthenticatorName = "laptop"
		_, keyParams := newKey(t, stamp.CurveP256)
		params := subOrgParams("Carol", keyParams)
		params.RootUsers[0].Authenticators = []api.AuthenticatorParamsV2{authenticator}
		sub, _, err := s.root.CreateSubOrganization(bg, parent, params)
		if err != nil {
			t.Fatal(err)
		}

		carol := s.client(passkey)
		_, sessionPub := newP256(t)
		res, activity, err := carol.StampLogin(bg, parent, api.StampLoginIntent{PublicKey: sessionPub})
		if err != nil {
			t.Fatal(err)
		}
		if activity.OrganizationID != sub.SubOrganizationID {
			t.Fatalf("the login ran in %s, not in the sub-organization %s", activity.OrganizationID, sub.SubOrganizationID)
		}
		payload, _ := base64.RawURLEncoding.DecodeString(strings.Split(res.Session, ".")[1])
		var claims struct {
			OrganizationID string `json:"organization_id"`
			UserID         string `json:"user_id"`
		}
		if err := json.Unmarshal(payload, &claims); err != nil || claims.OrganizationID != sub.SubOrganizationID || claims.UserID != sub.RootUserIDs[0] {
			t.Fatalf("session claims %+v %v", claims, err)
		}

		// Only STAMP_LOGIN looks in the sub-organizations.
		if _, err := carol.Whoami(bg, parent); !client.IsCode(err, apierr.Unauthenticated) {
			t.Fatalf("whoami in the parent with a sub-organization's passkey: %v", err)
		}
		if _, _, err := carol.UpdateOrganizationName(bg, parent, api.UpdateOrganizationNameIntent{OrganizationName: "Carol's"}); !client.IsCode(err, apierr.Unauthenticated) {
			t.Fatalf("an activity in the parent with a sub-organization's passkey: %v", err)
		}

		// One API key, root user of two sub-organizations: which one is meant is the caller's to say.
		shared, sharedParams := newKey(t, stamp.CurveP256)
		for _, name := range []string{"Dan", "Eve"} {
			if _, _, err := s.root.CreateSubOrganization(bg, parent, subOrgParams(name, sharedParams)); err != nil {
				t.Fatal(err)
			}
		}
		if _, _, err := s.client(shared).StampLogin(bg, parent, api.StampLoginIntent{PublicKey: sessionPub}); !client.IsCode(err, apierr.InvalidArgument) {
			t.Fatalf("a key of two sub-organizations: %v", err)
		}
	})
}
