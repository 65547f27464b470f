package coordinator_test

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/bundle"
	"github.com/sigil/sigil/internal/testdb"
	"github.com/sigil/sigil/stamp"
	"github.com/sigil/sigil/stamp/softauthn"
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

// A session of a profile whose scope refuses exports, for 60 s, tries to escape it: an API key for its own user (the
// implicit permission on one's own credentials), a day-long session without a profile, a read-write session, a
// passkey. Each key or session it makes is bound by its profile and expires with it; a passkey, which nothing could
// bind so, is refused; the key it made cannot export the wallet.
func TestSessionProfileBindsWhatItsSessionsMake(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		clock := newClock()
		s := newStackAt(t, b, clock)
		org, root := s.boot.OrganizationID, s.boot.UserID
		w, _, err := s.root.CreateWallet(bg, org, api.CreateWalletIntent{WalletName: "w", Accounts: []api.WalletAccountParams{ethAccount()}})
		if err != nil {
			t.Fatal(err)
		}
		prof, _, err := s.root.CreateSessionProfile(bg, org, api.CreateSessionProfileIntent{SessionProfileName: "no exports",
			Scope: "activity.action != 'EXPORT'", ExpirationSeconds: "60"})
		if err != nil {
			t.Fatal(err)
		}
		sessionKey, _ := newKey(t, stamp.CurveP256)
		if _, _, err := s.root.StampLogin(bg, org, api.StampLoginIntent{PublicKey: sessionKey.PublicKeyHex(), SessionProfileID: prof.SessionProfileID}); err != nil {
			t.Fatal(err)
		}
		session := s.client(sessionKey)
		expires := clock.Now().Add(60 * time.Second)
		target, _ := bundle.NewTargetKey()
		export := func(c *client.Client) error {
			_, _, err := submitTypedAs(c, org, api.ExportWallet, api.ExportWalletIntent{WalletID: w.WalletID, TargetPublicKey: hex.EncodeToString(target.PublicKey().Bytes())})
			return err
		}
		if err := export(session); !client.IsCode(err, apierr.PermissionDenied) {
			t.Fatalf("an export by the session itself: %v", err)
		}

		// An API key for its own user.
		apiKey, params := newKey(t, stamp.CurveP256)
		created, _, err := session.CreateAPIKeys(bg, org, api.CreateAPIKeysIntentV2{UserID: root, APIKeys: []api.APIKeyParamsV2{params}})
		if err != nil {
			t.Fatalf("an API key made by the session: %v", err)
		}
		got, _ := s.root.GetAPIKey(bg, org, created.APIKeyIDs[0])
		if got.APIKey.Credential.SessionProfileID != prof.SessionProfileID || got.APIKey.ExpirationSeconds != "60" {
			t.Errorf("the API key the session made: %+v, want bound by the profile for 60 s", got.APIKey)
		}
		if err := export(s.client(apiKey)); !client.IsCode(err, apierr.PermissionDenied) || !strings.Contains(err.Error(), `session profile "no exports"`) {
			t.Fatalf("an export by the API key the session made: %v", err)
		}

		// A day-long session without a profile, from STAMP_LOGIN and from CREATE_READ_WRITE_SESSION.
		dayKey, _ := newKey(t, stamp.CurveP256)
		login, _, err := session.StampLogin(bg, org, api.StampLoginIntent{PublicKey: dayKey.PublicKeyHex(), ExpirationSeconds: "86400"})
		if err != nil {
			t.Fatalf("a session opened by the session: %v", err)
		}
		claims := sessionClaims(t, login.Session)
		if claims["session_profile_id"] != prof.SessionProfileID || int64(claims["exp"].(float64)) != expires.Unix() {
			t.Errorf("the session the session opened: %v, want the profile's, ending at %d", claims, expires.Unix())
		}
		if err := export(s.client(dayKey)); !client.IsCode(err, apierr.PermissionDenied) {
			t.Fatalf("an export by the session the session opened: %v", err)
		}
		other, _, err := s.root.CreateSessionProfile(bg, org, api.CreateSessionProfileIntent{SessionProfileName: "anything", Scope: "true"})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := session.StampLogin(bg, org, api.StampLoginIntent{PublicKey: mustKey(t).PublicKeyHex(), SessionProfileID: other.SessionProfileID}); !client.IsCode(err, apierr.PermissionDenied) {
			t.Errorf("a session of another profile, opened by the session: %v", err)
		}
		rw, _, err := session.CreateReadWriteSession(bg, org, api.CreateReadWriteSessionIntentV2{
			TargetPublicKey: hex.EncodeToString(target.PublicKey().Bytes()), ExpirationSeconds: "86400"})
		if err != nil {
			t.Fatalf("a read-write session made by the session: %v", err)
		}
		if got, _ := s.root.GetAPIKey(bg, org, rw.APIKeyID); got.APIKey.Credential.SessionProfileID != prof.SessionProfileID || got.APIKey.ExpirationSeconds != "60" {
			t.Errorf("the read-write session the session made: %+v", got.APIKey)
		}

		// A passkey: refused.
		passkey, err := softauthn.New("app.example", "https://app.example")
		if err != nil {
			t.Fatal(err)
		}
		reg, err := passkey.Register(softauthn.NewChallenge())
		if err != nil {
			t.Fatal(err)
		}
		var auth api.AuthenticatorParamsV2
		raw, _ := json.Marshal(reg)
		_ = json.Unmarshal(raw, &auth)
		auth.AuthenticatorName = "escape"
		if _, _, err := session.CreateAuthenticators(bg, org, api.CreateAuthenticatorsIntentV2{UserID: root, Authenticators: []api.AuthenticatorParamsV2{auth}}); !client.IsCode(err, apierr.PermissionDenied) {
			t.Errorf("a passkey registered by the session: %v", err)
		}

		// An e-mail address or a phone number, for its own user or a new one: refused, since a login code sent to it
		// would open a session the profile does not bind. Nothing is written.
		escapes := map[string]func() error{
			"UPDATE_USER_EMAIL": func() error {
				_, _, err := session.UpdateUserEmail(bg, org, api.UpdateUserEmailIntent{UserID: root, UserEmail: "escape@example.com"})
				return err
			},
			"UPDATE_USER_PHONE_NUMBER": func() error {
				_, _, err := session.UpdateUserPhoneNumber(bg, org, api.UpdateUserPhoneNumberIntent{UserID: root, UserPhoneNumber: "+15555550123"})
				return err
			},
			"UPDATE_USER": func() error {
				email := "escape@example.com"
				_, _, err := session.UpdateUser(bg, org, api.UpdateUserIntent{UserID: root, UserEmail: &email})
				return err
			},
			"CREATE_USERS": func() error {
				_, _, err := session.CreateUsers(bg, org, api.CreateUsersIntentV4{Users: []api.UserParamsV4{{UserName: "escapee",
					UserEmail: "escapee@example.com", APIKeys: []api.APIKeyParamsV2{}, Authenticators: []api.AuthenticatorParamsV2{},
					OauthProviders: []api.OauthProviderParamsV2{}, UserTags: []string{}}}})
				return err
			},
		}
		for name, escape := range escapes {
			if err := escape(); !client.IsCode(err, apierr.PermissionDenied) || !strings.Contains(err.Error(), "login code") {
				t.Errorf("%s by the session, setting a contact: %v", name, err)
			}
		}
		if u, err := s.root.GetUser(bg, org, root); err != nil || u.User.UserEmail != "" || u.User.UserPhoneNumber != "" {
			t.Errorf("the root user after the refused changes: %+v %v", u, err)
		}
		if users, err := s.root.ListUsers(bg, org); err != nil || len(users.Users) != 1 {
			t.Errorf("the organization's users after the refused CREATE_USERS: %v %v", users, err)
		}

		// When the session ends, so does everything it made.
		clock.Advance(61 * time.Second)
		for name, key := range map[string]*stamp.APIKey{"API key": apiKey, "session": dayKey} {
			if _, err := s.client(key).Whoami(bg, org); !client.IsCode(err, apierr.Unauthenticated) {
				t.Errorf("the %s the session made, after the session's end: %v", name, err)
			}
		}
	})
}

// sessionClaims decodes a session JWT's claims (its signature is checked elsewhere).
func sessionClaims(t *testing.T, session string) map[string]any {
	t.Helper()
	payload, err := base64.RawURLEncoding.DecodeString(strings.Split(session, ".")[1])
	if err != nil {
		t.Fatal(err)
	}
	var claims map[string]any
	if err := json.Unmarshal(payload, &claims); err != nil {
		t.Fatal(err)
	}
	return claims
}

func mustKey(t *testing.T) *stamp.APIKey {
	k, _ := newKey(t, stamp.CurveP256)
	return k
}

// What a profiled session makes through an activity that waits (here for a second factor) takes the profile when the
// activity executes, even if the session deleted itself meanwhile: the activity then fails rather than make a key
// that nothing binds.
func TestSessionProfileBindsWhatWaitingActivitiesMake(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newStack(t, b)
		org, root := s.boot.OrganizationID, s.boot.UserID
		passkey := s.addPasskey(org, root)
		if _, _, err := s.root.CreateMfaPolicy(bg, org, api.CreateMfaPolicyIntent{UserID: root, MfaPolicyName: "new keys need the passkey",
			Condition: "activity.resource == 'CREDENTIAL' && activity.action == 'CREATE'", RequiredAuthenticationMethods: steps(api.AuthPasskey)}); err != nil {
			t.Fatal(err)
		}
		prof, _, err := s.root.CreateSessionProfile(bg, org, api.CreateSessionProfileIntent{SessionProfileName: "no exports",
			Scope: "activity.action != 'EXPORT'", ExpirationSeconds: "600"})
		if err != nil {
			t.Fatal(err)
		}
		open := func() (*client.Client, string) {
			key := mustKey(t)
			if _, _, err := s.root.StampLogin(bg, org, api.StampLoginIntent{PublicKey: key.PublicKeyHex(), SessionProfileID: prof.SessionProfileID}); err != nil {
				t.Fatal(err)
			}
			keys, _ := s.root.GetAPIKeys(bg, org, root)
			for _, k := range keys.APIKeys {
				if k.Credential.PublicKey == key.PublicKeyHex() {
					return s.client(key), k.APIKeyID
				}
			}
			t.Fatal("the session key is not registered")
			return nil, ""
		}
		held := func(session *client.Client) (*api.Activity, string) {
			_, params := newKey(t, stamp.CurveP256)
			_, a, _ := session.CreateAPIKeys(bg, org, api.CreateAPIKeysIntentV2{UserID: root, APIKeys: []api.APIKeyParamsV2{params}})
			if a == nil || a.Status != api.StatusAuthenticatorsNeeded {
				t.Fatalf("an API key needing the passkey: %+v", a)
			}
			return a, params.PublicKey
		}
		keyOf := func(publicKey string) *api.APIKey {
			keys, _ := s.root.GetAPIKeys(bg, org, root)
			for _, k := range keys.APIKeys {
				if k.Credential.PublicKey == publicKey {
					return &k
				}
			}
			return nil
		}

		session, _ := open()
		a, pub := held(session)
		if done, err := s.client(passkey).ApproveActivity(bg, org, a.Fingerprint); err != nil || done.Status != api.StatusCompleted {
			t.Fatalf("the passkey's approval: %+v %v", done, err)
		}
		if k := keyOf(pub); k == nil || k.Credential.SessionProfileID != prof.SessionProfileID {
			t.Errorf("the key made when the passkey approved: %+v, want bound by the profile", k)
		}

		session, sessionID := open()
		a, pub = held(session)
		if _, _, err := session.DeleteAPIKeys(bg, org, api.DeleteAPIKeysIntent{UserID: root, APIKeyIDs: []string{sessionID}}); err != nil {
			t.Fatal(err)
		}
		if done, err := s.client(passkey).ApproveActivity(bg, org, a.Fingerprint); err == nil || (done != nil && done.Status == api.StatusCompleted) {
			t.Errorf("the approval of a key whose session is gone: %+v %v", done, err)
		}
		if k := keyOf(pub); k != nil {
			t.Errorf("a key was made for a session that is gone: %+v", k)
		}
	})
}
