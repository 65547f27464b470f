package coordinator_test

import (
	"context"
	"crypto/ecdh"
	"encoding/hex"
	"encoding/json"
	"net"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/bundle"
	"github.com/sigil/sigil/internal/coordinator"
	"github.com/sigil/sigil/internal/notify"
	"github.com/sigil/sigil/internal/testdb"
	tokens "github.com/sigil/sigil/internal/token"
	"github.com/sigil/sigil/stamp"
	"github.com/sigil/sigil/stamp/softauthn"
)

// bundlePattern finds a credential bundle (base58check) alone on a line of a mailed message.
var bundlePattern = regexp.MustCompile(`(?m)^([1-9A-HJ-NP-Za-km-z]{80,})$`)

// lastBundle reads the credential bundle of the newest outbox message to the address.
func (s *otpStack) lastBundle(to string) string {
	s.t.Helper()
	entries := s.outbox.Entries()
	for i := len(entries) - 1; i >= 0; i-- {
		if entries[i].To != to {
			continue
		}
		if m := bundlePattern.FindStringSubmatch(entries[i].Text); m != nil {
			return m[1]
		}
	}
	s.t.Fatalf("no credential bundle mailed to %s", to)
	return ""
}

// openBundle decrypts a credential bundle with the target key and returns a stamper for the credential in it.
func openBundle(t *testing.T, target *ecdh.PrivateKey, credentials string) *stamp.APIKey {
	t.Helper()
	secret, err := bundle.OpenCredentialBundle(target, credentials)
	if err != nil {
		t.Fatal(err)
	}
	key, err := stamp.ParseAPIKey(stamp.CurveP256, hex.EncodeToString(secret))
	if err != nil {
		t.Fatal(err)
	}
	return key
}

func newTarget(t *testing.T) (*ecdh.PrivateKey, string) {
	t.Helper()
	k, err := bundle.NewTargetKey()
	if err != nil {
		t.Fatal(err)
	}
	return k, hex.EncodeToString(k.PublicKey().Bytes())
}

// credentialCount is how many API keys (sessions included) the user has.
func (s *otpStack) credentialCount(orgID, userID string) int {
	s.t.Helper()
	u, err := s.root.GetUser(context.Background(), orgID, userID)
	if err != nil {
		s.t.Fatal(err)
	}
	return len(u.User.APIKeys)
}

// EMAIL_AUTH mails the user a credential bundle that only the target key opens; the credential stamps as the user.
func TestEmailAuth(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := newOTPStack(t, b, coordinator.Config{})
		sub, userID := s.subOrgWithUser("ada@example.com", "")
		target, targetHex := newTarget(t)
		res, _, err := s.root.EmailAuth(ctx, sub, api.EmailAuthIntentV3{Email: "Ada@Example.com", TargetPublicKey: targetHex,
			ExpirationSeconds: "600", EmailCustomization: api.EmailAuthCustomizationParams{AppName: "Demo", MagicLinkTemplate: "https://app.example/auth?b=%s"}})
		if err != nil || res.UserID != userID || res.APIKeyID == "" {
			t.Fatalf("email_auth: %+v %v", res, err)
		}
		key := openBundle(t, target, s.lastBundle("ada@example.com"))
		if who, err := s.clientFor(key).Whoami(ctx, sub); err != nil || who.UserID != userID {
			t.Fatalf("whoami with the mailed credential: %+v %v", who, err)
		}
		got, _ := s.root.GetAPIKey(ctx, sub, res.APIKeyID)
		if got.APIKey.Credential.Type != api.CredentialEmailAuth || got.APIKey.ExpirationSeconds != "600" {
			t.Errorf("the credential: %+v", got.APIKey)
		}
		before := s.credentialCount(sub, userID)
		if _, _, err := s.root.EmailAuth(ctx, sub, api.EmailAuthIntentV3{Email: "nobody@example.com", TargetPublicKey: targetHex,
			EmailCustomization: api.EmailAuthCustomizationParams{AppName: "Demo"}}); !client.IsCode(err, apierr.NotFound) {
			t.Errorf("an address no user has: %v", err)
		}
		if _, _, err := s.root.EmailAuth(ctx, sub, api.EmailAuthIntentV3{Email: "ada@example.com", TargetPublicKey: "02ab",
			EmailCustomization: api.EmailAuthCustomizationParams{AppName: "Demo"}}); !client.IsCode(err, apierr.InvalidArgument) {
			t.Errorf("a bad target key: %v", err)
		}
		if n := s.credentialCount(sub, userID); n != before {
			t.Errorf("refused requests left credentials: %d, want %d", n, before)
		}
	})
}

// A sub-organization created with disableEmailAuth refuses EMAIL_AUTH, and an organization may turn it off with the
// reference's feature set to false; nothing is written or mailed.
func TestEmailAuthDisabled(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := newOTPStack(t, b, coordinator.Config{})
		_, params := newKey(t, stamp.CurveP256)
		one, yes := int32(1), true
		created, _, err := s.root.CreateSubOrganization(ctx, s.boot.OrganizationID, api.CreateSubOrganizationIntentV8{
			SubOrganizationName: "no email auth", RootQuorumThreshold: &one, DisableEmailAuth: &yes, DisableEmailRecovery: &yes,
			RootUsers: []api.RootUserParamsV5{{UserName: "bo", UserEmail: "bo@example.com", APIKeys: []api.APIKeyParamsV2{params},
				Authenticators: []api.AuthenticatorParamsV2{}, OauthProviders: []api.OauthProviderParamsV2{}}}})
		if err != nil {
			t.Fatal(err)
		}
		sub, userID := created.SubOrganizationID, created.RootUserIDs[0]
		_, targetHex := newTarget(t)
		mails := len(s.outbox.Entries())
		if _, _, err := s.root.EmailAuth(ctx, sub, api.EmailAuthIntentV3{Email: "bo@example.com", TargetPublicKey: targetHex,
			EmailCustomization: api.EmailAuthCustomizationParams{AppName: "Demo"}}); !client.IsCode(err, apierr.FailedPrecondition) {
			t.Errorf("email_auth in a sub-organization created with disableEmailAuth: %v", err)
		}
		if _, _, err := s.root.InitUserEmailRecovery(ctx, sub, api.InitUserEmailRecoveryIntentV2{Email: "bo@example.com", TargetPublicKey: targetHex,
			EmailCustomization: api.EmailAuthCustomizationParams{AppName: "Demo"}}); !client.IsCode(err, apierr.FailedPrecondition) {
			t.Errorf("recovery in a sub-organization created with disableEmailRecovery: %v", err)
		}
		if n := s.credentialCount(sub, userID); n != 1 {
			t.Errorf("refused requests left credentials: %d, want 1", n)
		}
		// The parent turns e-mail auth off for all its sub-organizations.
		other, _ := s.subOrgWithUser("cy@example.com", "")
		if _, _, err := s.root.SetOrganizationFeature(ctx, s.boot.OrganizationID, api.SetOrganizationFeatureIntent{Name: "FEATURE_NAME_EMAIL_AUTH", Value: "false"}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.root.EmailAuth(ctx, other, api.EmailAuthIntentV3{Email: "cy@example.com", TargetPublicKey: targetHex,
			EmailCustomization: api.EmailAuthCustomizationParams{AppName: "Demo"}}); !client.IsCode(err, apierr.FailedPrecondition) {
			t.Errorf("email_auth with FEATURE_NAME_EMAIL_AUTH false in the parent: %v", err)
		}
		if n := len(s.outbox.Entries()); n != mails {
			t.Errorf("refused requests mailed %d messages", n-mails)
		}
	})
}

// INIT_OTP_AUTH and OTP_AUTH: a code to a user's contact, exchanged for a credential bundle; a wrong code is counted
// and gives nothing.
func TestOtpAuth(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := newOTPStack(t, b, coordinator.Config{})
		sub, userID := s.subOrgWithUser("lin@example.com", "+14155550123")
		init, a, err := s.root.InitOtpAuth(ctx, sub, api.InitOtpAuthIntentV3{OtpType: "OTP_TYPE_EMAIL", Contact: "lin@example.com", AppName: "Demo"})
		if err != nil || init.OtpID == "" || a.Type != "ACTIVITY_TYPE_INIT_OTP_AUTH_V3" {
			t.Fatalf("init_otp_auth: %+v %v", init, err)
		}
		target, targetHex := newTarget(t)
		before := s.credentialCount(sub, userID)
		if _, _, err := s.root.OtpAuth(ctx, sub, api.OtpAuthIntent{OtpID: init.OtpID, OtpCode: "WRONG0000", TargetPublicKey: targetHex}); !client.IsCode(err, apierr.InvalidArgument) {
			t.Fatalf("a wrong code: %v", err)
		}
		if n := s.credentialCount(sub, userID); n != before {
			t.Errorf("a wrong code left a credential")
		}
		res, act, err := s.root.OtpAuth(ctx, sub, api.OtpAuthIntent{OtpID: init.OtpID, OtpCode: s.lastCode("lin@example.com"), TargetPublicKey: targetHex})
		if err != nil || res.UserID != userID {
			t.Fatalf("otp_auth: %+v %v", res, err)
		}
		var recorded api.OtpAuthIntent
		if err := json.Unmarshal(act.Intent["otpAuthIntent"], &recorded); err != nil || recorded.OtpCode != api.Redacted {
			t.Errorf("the record holds the code: %s", act.Intent["otpAuthIntent"])
		}
		key := openBundle(t, target, res.CredentialBundle)
		if who, err := s.clientFor(key).Whoami(ctx, sub); err != nil || who.UserID != userID {
			t.Fatalf("whoami with the OTP credential: %+v %v", who, err)
		}
		if _, _, err := s.root.OtpAuth(ctx, sub, api.OtpAuthIntent{OtpID: init.OtpID, OtpCode: s.lastCode("lin@example.com"), TargetPublicKey: targetHex}); !client.IsCode(err, apierr.InvalidArgument) {
			t.Errorf("a used code again: %v", err)
		}
		if _, _, err := s.root.InitOtpAuth(ctx, sub, api.InitOtpAuthIntentV3{OtpType: "OTP_TYPE_EMAIL", Contact: "stranger@example.com", AppName: "Demo"}); !client.IsCode(err, apierr.NotFound) {
			t.Errorf("a code for a contact no user has: %v", err)
		}
	})
}

// E-mail recovery: the mailed recovery credential registers a new passkey, once, and can do nothing else.
func TestEmailRecovery(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := newOTPStack(t, b, coordinator.Config{})
		sub, userID := s.subOrgWithUser("rae@example.com", "")
		target, targetHex := newTarget(t)
		res, _, err := s.root.InitUserEmailRecovery(ctx, sub, api.InitUserEmailRecoveryIntentV2{Email: "rae@example.com", TargetPublicKey: targetHex,
			EmailCustomization: api.EmailAuthCustomizationParams{AppName: "Demo"}})
		if err != nil || res.UserID != userID {
			t.Fatalf("init_user_email_recovery: %+v %v", res, err)
		}
		recovery := s.clientFor(openBundle(t, target, s.lastBundle("rae@example.com")))
		if _, _, err := recovery.UpdateOrganizationName(ctx, sub, api.UpdateOrganizationNameIntent{OrganizationName: "taken"}); !client.IsCode(err, apierr.PermissionDenied) {
			t.Errorf("another activity with the recovery credential: %v", err)
		}
		passkey, err := softauthn.New("app.example", "https://app.example")
		if err != nil {
			t.Fatal(err)
		}
		reg, err := passkey.Register(softauthn.NewChallenge())
		if err != nil {
			t.Fatal(err)
		}
		var params api.AuthenticatorParamsV2
		raw, _ := json.Marshal(reg)
		_ = json.Unmarshal(raw, &params)
		params.AuthenticatorName = "new laptop"
		rec, _, err := recovery.RecoverUser(ctx, sub, api.RecoverUserIntent{UserID: userID, Authenticator: params})
		if err != nil || len(rec.AuthenticatorID) != 1 {
			t.Fatalf("recover_user: %+v %v", rec, err)
		}
		if who, err := s.clientFor(passkey).Whoami(ctx, sub); err != nil || who.UserID != userID {
			t.Fatalf("whoami with the recovered passkey: %+v %v", who, err)
		}
		if _, err := recovery.Whoami(ctx, sub); !client.IsCode(err, apierr.Unauthenticated) {
			t.Errorf("the recovery credential after use: %v", err)
		}
		// RECOVER_USER with any other credential is refused.
		if _, _, err := s.root.RecoverUser(ctx, s.boot.OrganizationID, api.RecoverUserIntent{UserID: s.boot.UserID, Authenticator: params}); !client.IsCode(err, apierr.PermissionDenied) {
			t.Errorf("recover_user with an API key: %v", err)
		}
	})
}

// A sub-organization created with disableOtpEmailAuth refuses e-mail codes for its users: INIT_OTP_AUTH in it, and
// OTP_LOGIN with a token the parent's INIT_OTP and VERIFY_OTP issued; SMS codes, not disabled, still work. The
// parent turning FEATURE_NAME_OTP_EMAIL_AUTH off stops its own INIT_OTP.
func TestOtpEmailAuthDisabled(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := newOTPStack(t, b, coordinator.Config{})
		parent := s.boot.OrganizationID
		_, params := newKey(t, stamp.CurveP256)
		one, yes := int32(1), true
		created, _, err := s.root.CreateSubOrganization(ctx, parent, api.CreateSubOrganizationIntentV8{
			SubOrganizationName: "no email codes", RootQuorumThreshold: &one, DisableOtpEmailAuth: &yes,
			RootUsers: []api.RootUserParamsV5{{UserName: "di", UserEmail: "di@example.com", UserPhoneNumber: "+14155550199",
				APIKeys: []api.APIKeyParamsV2{params}, Authenticators: []api.AuthenticatorParamsV2{}, OauthProviders: []api.OauthProviderParamsV2{}}}})
		if err != nil {
			t.Fatal(err)
		}
		sub := created.SubOrganizationID
		if _, _, err := s.root.InitOtpAuth(ctx, sub, api.InitOtpAuthIntentV3{OtpType: api.OtpTypeEmail, Contact: "di@example.com", AppName: "Demo"}); !client.IsCode(err, apierr.FailedPrecondition) {
			t.Errorf("init_otp_auth by e-mail: %v", err)
		}
		if _, _, err := s.root.InitOtpAuth(ctx, sub, api.InitOtpAuthIntentV3{OtpType: api.OtpTypeSMS, Contact: "+14155550199", AppName: "Demo"}); err != nil {
			t.Errorf("init_otp_auth by SMS: %v", err)
		}
		init, _, err := s.root.InitOtp(ctx, parent, api.InitOtpIntentV2{OtpType: api.OtpTypeEmail, Contact: "di@example.com", AppName: "Demo"})
		if err != nil {
			t.Fatal(err)
		}
		clientKey, clientPub := newP256(t)
		ver, _, err := s.root.VerifyOtp(ctx, parent, api.VerifyOtpIntent{OtpID: init.OtpID, OtpCode: s.lastCode("di@example.com"), PublicKey: clientPub})
		if err != nil {
			t.Fatal(err)
		}
		claims, _ := tokens.VerifyVerificationToken(ver.VerificationToken, s.tokenKey(), s.clock.Now())
		_, sessionPub := newP256(t)
		cs, _ := client.LoginSignature(clientKey, claims.ID, sessionPub)
		if _, _, err := s.root.OtpLogin(ctx, sub, api.OtpLoginIntent{VerificationToken: ver.VerificationToken, PublicKey: sessionPub, ClientSignature: cs}); !client.IsCode(err, apierr.FailedPrecondition) {
			t.Errorf("otp_login by e-mail code in the sub-organization: %v", err)
		}
		if n := s.credentialCount(sub, created.RootUserIDs[0]); n != 1 {
			t.Errorf("refused logins left credentials: %d", n)
		}
		if _, _, err := s.root.SetOrganizationFeature(ctx, parent, api.SetOrganizationFeatureIntent{Name: "FEATURE_NAME_OTP_EMAIL_AUTH", Value: "false"}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.root.InitOtp(ctx, parent, api.InitOtpIntentV2{OtpType: api.OtpTypeEmail, Contact: "di@example.com", AppName: "Demo"}); !client.IsCode(err, apierr.FailedPrecondition) {
			t.Errorf("init_otp with FEATURE_NAME_OTP_EMAIL_AUTH false: %v", err)
		}
	})
}

// E-mail auth is bounded like OTP codes: at most OTPLimits.MaxLiveCodes live mailed credentials per user, unless the
// request invalidates them; the refusal mails nothing.
func TestEmailAuthLimit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newOTPStack(t, testdb.SQLite(t), coordinator.Config{})
	sub, _ := s.subOrgWithUser("eve@example.com", "")
	_, targetHex := newTarget(t)
	send := func(invalidate bool) error {
		_, _, err := s.root.EmailAuth(ctx, sub, api.EmailAuthIntentV3{Email: "eve@example.com", TargetPublicKey: targetHex,
			InvalidateExisting: &invalidate, EmailCustomization: api.EmailAuthCustomizationParams{AppName: "Demo"}})
		return err
	}
	for i := range 3 {
		if err := send(false); err != nil {
			t.Fatalf("e-mail auth %d: %v", i+1, err)
		}
	}
	mails := len(s.outbox.Entries())
	if err := send(false); !client.IsCode(err, apierr.ResourceExhausted) {
		t.Errorf("a fourth live credential: %v", err)
	}
	if n := len(s.outbox.Entries()); n != mails {
		t.Errorf("the refusal mailed %d messages", n-mails)
	}
	if err := send(true); err != nil {
		t.Errorf("with invalidateExisting: %v", err)
	}
}

// E-mail auth over SMTP: the bundle arrives in the message; when the mail server is down the activity fails with
// UNAVAILABLE and the credential it made is rolled back with it.
func TestEmailAuthOverSMTP(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		mb := startMailbox(t)
		sender, err := notify.NewSMTPSender(notify.SMTPConfig{Host: "127.0.0.1", Port: mb.addr.Port, Security: notify.Plain})
		if err != nil {
			t.Fatal(err)
		}
		mailer := &switchable{to: sender}
		s := newOTPStack(t, b, coordinator.Config{Email: mailer})
		sub, userID := s.subOrgWithUser("kit@example.com", "")
		target, targetHex := newTarget(t)
		send := func() error {
			_, _, err := s.root.EmailAuth(ctx, sub, api.EmailAuthIntentV3{Email: "kit@example.com", TargetPublicKey: targetHex,
				EmailCustomization: api.EmailAuthCustomizationParams{AppName: "Demo"}})
			return err
		}
		if err := send(); err != nil {
			t.Fatal(err)
		}
		m, _ := mb.last(t)
		found := bundlePattern.FindStringSubmatch(strings.ReplaceAll(textPart(t, m), "\r\n", "\n"))
		if found == nil {
			t.Fatalf("no bundle in the mailed text:\n%s", textPart(t, m))
		}
		if who, err := s.clientFor(openBundle(t, target, found[1])).Whoami(ctx, sub); err != nil || who.UserID != userID {
			t.Fatalf("whoami with the credential mailed over SMTP: %+v %v", who, err)
		}
		before := s.credentialCount(sub, userID)
		l, _ := net.Listen("tcp", "127.0.0.1:0")
		down := l.Addr().(*net.TCPAddr).Port
		l.Close()
		dead, _ := notify.NewSMTPSender(notify.SMTPConfig{Host: "127.0.0.1", Port: down, Security: notify.Plain, DialTimeout: time.Second})
		mailer.set(dead)
		if err := send(); !client.IsCode(err, apierr.Unavailable) {
			t.Errorf("the mail server down: %v", err)
		}
		if n := s.credentialCount(sub, userID); n != before {
			t.Errorf("an undelivered e-mail left its credential: %d, want %d", n, before)
		}
	})
}
