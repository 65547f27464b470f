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
)

// A session issued with a session profile: capped to the profile's expiration, typed by its name, and limited to the
// requests its scope allows — even for a root user.
func TestSessionProfiles(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newStack(t, b)
		org := s.boot.OrganizationID
		prof, _, err := s.root.CreateSessionProfile(bg, org, api.CreateSessionProfileIntent{SessionProfileName: "wallets only",
			Scope: "activity.resource == 'WALLET'", ExpirationSeconds: "300"})
		if err != nil {
			t.Fatal(err)
		}
		key, _ := newKey(t, stamp.CurveP256)
		login, _, err := s.root.StampLogin(bg, org, api.StampLoginIntent{PublicKey: key.PublicKeyHex(), ExpirationSeconds: "900", SessionProfileID: prof.SessionProfileID})
		if err != nil {
			t.Fatal(err)
		}
		payload, _ := base64.RawURLEncoding.DecodeString(strings.Split(login.Session, ".")[1])
		var claims map[string]any
		_ = json.Unmarshal(payload, &claims)
		if claims["session_type"] != "wallets only" || claims["session_profile_id"] != prof.SessionProfileID || claims["scope"] != "activity.resource == 'WALLET'" {
			t.Errorf("session claims = %v", claims)
		}
		keys, _ := s.root.GetAPIKeys(bg, org, s.boot.UserID)
		for _, k := range keys.APIKeys {
			if k.Credential.PublicKey == key.PublicKeyHex() && (k.ExpirationSeconds != "300" || k.Credential.SessionProfileID != prof.SessionProfileID) {
				t.Errorf("the session key = %+v, want 300 s and the profile", k)
			}
		}
		session := s.client(key)
		if _, _, err := session.CreateWallet(bg, org, api.CreateWalletIntent{WalletName: "in scope", Accounts: []api.WalletAccountParams{ethAccount()}}); err != nil {
			t.Fatalf("an activity in the scope: %v", err)
		}
		_, _, err = session.UpdateOrganizationName(bg, org, api.UpdateOrganizationNameIntent{OrganizationName: "out of scope"})
		if !client.IsCode(err, apierr.PermissionDenied) || !strings.Contains(err.Error(), `session profile "wallets only"`) {
			t.Fatalf("an activity out of the scope, by a root user's session: %v", err)
		}
		if _, _, err := s.root.StampLogin(bg, org, api.StampLoginIntent{PublicKey: key.PublicKeyHex(), SessionProfileID: "6f3c7a52-2d8e-4b8a-9d55-111111111111"}); !client.IsCode(err, apierr.NotFound) {
			t.Errorf("a login with an unknown profile: %v", err)
		}
		if _, _, err := s.root.CreateSessionProfile(bg, org, api.CreateSessionProfileIntent{SessionProfileName: "wallets only", Scope: "true"}); err == nil || !strings.Contains(err.Error(), "already exists") {
			t.Errorf("a second profile with the name: %v", err)
		}
		if _, _, err := s.root.CreateSessionProfile(bg, org, api.CreateSessionProfileIntent{SessionProfileName: "bad", Scope: "activity.resorce == 'X'"}); !client.IsCode(err, apierr.InvalidArgument) || !strings.Contains(err.Error(), "did you mean") {
			t.Errorf("a scope that does not compile: %v", err)
		}
		list, err := s.root.GetSessionProfiles(bg, org)
		if err != nil || len(list.SessionProfiles) != 1 || list.SessionProfiles[0].Scope != "activity.resource == 'WALLET'" {
			t.Fatalf("get_session_profiles = %+v %v", list, err)
		}
	})
}
