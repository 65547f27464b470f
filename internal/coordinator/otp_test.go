package coordinator_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/bundle"
	"github.com/sigil/sigil/internal/coordinator"
	"github.com/sigil/sigil/internal/testdb"
	tokens "github.com/sigil/sigil/internal/token"
)

func jwkKey(k tokens.JWK) (*ecdsa.PublicKey, error) {
	x, err := base64.RawURLEncoding.DecodeString(k.X)
	if err != nil {
		return nil, err
	}
	y, err := base64.RawURLEncoding.DecodeString(k.Y)
	if err != nil {
		return nil, err
	}
	return &ecdsa.PublicKey{Curve: elliptic.P256(), X: new(big.Int).SetBytes(x), Y: new(big.Int).SetBytes(y)}, nil
}

func hexScalar(k *ecdsa.PrivateKey) string {
	return hex.EncodeToString(k.D.FillBytes(make([]byte, 32)))
}

// userVerified reads the stored user's verification flags.
func (s *otpStack) userVerified(orgID, userID string) (email, phone bool) {
	s.t.Helper()
	row, err := s.store.GetOrg(context.Background(), orgID)
	if err != nil {
		s.t.Fatal(err)
	}
	var doc struct {
		Users []struct {
			ID            string `json:"id"`
			EmailVerified bool   `json:"emailVerified"`
			PhoneVerified bool   `json:"phoneVerified"`
		} `json:"users"`
	}
	if err := json.Unmarshal(row.Data, &doc); err != nil {
		s.t.Fatal(err)
	}
	for _, u := range doc.Users {
		if u.ID == userID {
			return u.EmailVerified, u.PhoneVerified
		}
	}
	s.t.Fatalf("user %s not in %s", userID, orgID)
	return
}

// The first specification's flow, as the auth proxy drives it: INIT_OTP_V2 and VERIFY_OTP in the parent, OTP_LOGIN
// in the user's sub-organization with the parent's key; then the session key stamps requests until it expires.
func TestOTPLoginEmail(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := newOTPStack(t, b, coordinator.Config{})
		parent := s.boot.OrganizationID
		sub, userID := s.subOrgWithUser("Ada@Example.com", "")

		init, a, err := s.root.InitOtp(ctx, parent, api.InitOtpIntentV2{OtpType: api.OtpTypeEmail, Contact: "ada@example.com", AppName: "Demo"})
		if err != nil {
			t.Fatal(err)
		}
		if a.Type != "ACTIVITY_TYPE_INIT_OTP_V2" || a.Intent["initOtpIntentV2"] == nil {
			t.Fatalf("activity %s with intent %v", a.Type, a.Intent)
		}
		code := s.lastCode("ada@example.com")
		if len(code) != 9 || strings.ContainsAny(code, "ILOU") {
			t.Fatalf("code %q: want 9 Crockford Base32 characters", code)
		}
		clientKey, clientPub := newP256(t)
		ver, va, err := s.root.VerifyOtp(ctx, parent, api.VerifyOtpIntent{OtpID: init.OtpID, OtpCode: strings.ToLower(code), PublicKey: clientPub})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(va.Intent["verifyOtpIntent"]), code) {
			t.Fatal("the activity record shows the code in clear")
		}
		claims, err := tokens.VerifyVerificationToken(ver.VerificationToken, s.tokenKey(), s.clock.Now())
		if err != nil {
			t.Fatal(err)
		}
		// The token logs in: only the answer shows it; the record every reader of the organization sees does not.
		read, err := s.root.GetActivity(ctx, parent, va.ID)
		if err != nil {
			t.Fatal(err)
		}
		var recorded api.VerifyOtpResult
		if err := json.Unmarshal(read.Activity.Result["verifyOtpResult"], &recorded); err != nil || recorded.VerificationToken != api.Redacted {
			t.Fatalf("get_activity of VERIFY_OTP shows %s (%v)", read.Activity.Result["verifyOtpResult"], err)
		}
		if claims.Contact != "ada@example.com" || claims.VerificationType != api.OtpTypeEmail || claims.OrganizationID != parent || claims.PublicKey != clientPub {
			t.Fatalf("claims %+v", claims)
		}
		if d := claims.ExpiresAt.Sub(s.clock.Now()); d < 59*time.Minute || d > time.Hour {
			t.Fatalf("token lives %s, want the default hour", d)
		}

		sessionKey, sessionPub := newP256(t)
		cs, err := client.LoginSignature(clientKey, claims.ID, sessionPub)
		if err != nil {
			t.Fatal(err)
		}
		login, la, err := s.root.OtpLogin(ctx, sub, api.OtpLoginIntent{VerificationToken: ver.VerificationToken, PublicKey: sessionPub, ClientSignature: cs})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(la.Intent["otpLoginIntent"]), ver.VerificationToken) {
			t.Fatal("the activity record shows the verification token in clear")
		}
		sess, err := tokens.VerifySession(login.Session, s.tokenKey(), s.clock.Now())
		if err != nil {
			t.Fatal(err)
		}
		if sess.UserID != userID || sess.OrganizationID != sub || sess.PublicKey != sessionPub || sess.SessionType != tokens.SessionTypeReadWrite {
			t.Fatalf("session %+v", sess)
		}
		if d := sess.ExpiresAt.Sub(s.clock.Now()); d < 14*time.Minute || d > 15*time.Minute {
			t.Fatalf("session lives %s, want the default 15 minutes", d)
		}
		if email, _ := s.userVerified(sub, userID); !email {
			t.Fatal("the user's e-mail address is not marked verified")
		}

		session := s.clientFor(sessionStamper(t, sessionKey))
		who, err := session.Whoami(ctx, sub)
		if err != nil {
			t.Fatal(err)
		}
		if who.UserID != userID || who.OrganizationID != sub {
			t.Fatalf("whoami %+v", who)
		}
		keys, err := s.root.GetAPIKeys(ctx, sub, userID)
		if err != nil {
			t.Fatal(err)
		}
		if !hasCredential(keys.APIKeys, sessionPub, api.CredentialOTPAuthKeyP256) {
			t.Fatalf("session key not listed as %s: %+v", api.CredentialOTPAuthKeyP256, keys.APIKeys)
		}

		s.clock.Advance(15*time.Minute + time.Second)
		_, err = session.Whoami(ctx, sub)
		if !client.IsCode(err, apierr.Unauthenticated) || !strings.Contains(err.Error(), "expired") {
			t.Fatalf("whoami after the session expired: %v, want an expired key", err)
		}
	})
}

func hasCredential(keys []api.APIKey, pub, typ string) bool {
	for _, k := range keys {
		if k.Credential.PublicKey == pub && k.Credential.Type == typ {
			return true
		}
	}
	return false
}

// The current SDKs' flow: INIT_OTP_V3, the code encrypted to its target bundle, VERIFY_OTP_V2, OTP_LOGIN_V2; and
// STAMP_LOGIN stamped with X-Stamp-Attested by the key the token binds.
func TestOTPLoginEncryptedAndStampLogin(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := newOTPStack(t, b, coordinator.Config{})
		parent := s.boot.OrganizationID
		sub, userID := s.subOrgWithUser("bo@example.com", "+14155550100")

		init, _, err := s.root.InitOtpV3(ctx, parent, api.InitOtpIntentV3{OtpType: api.OtpTypeSMS, Contact: "+1 (415) 555-0100",
			AppName: "Demo", OtpLength: ptr(int32(6)), Alphanumeric: ptr(false), ExpirationSeconds: "600"})
		if err != nil {
			t.Fatal(err)
		}
		code := s.lastCode("+14155550100")
		if len(code) != 6 || strings.Trim(code, "0123456789") != "" {
			t.Fatalf("code %q: want 6 digits", code)
		}
		clientKey, clientPub := newP256(t)
		enc, err := bundle.EncryptOTP(init.OtpEncryptionTargetBundle, s.tokenKey(), code, clientPub)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.root.VerifyOtp(ctx, parent, api.VerifyOtpIntent{OtpID: init.OtpID, OtpCode: code}); err == nil || !strings.Contains(err.Error(), "VERIFY_OTP_V2") {
			t.Fatalf("VERIFY_OTP of an INIT_OTP_V3 code: %v, want a refusal naming VERIFY_OTP_V2", err)
		}
		ver, _, err := s.root.VerifyOtpV2(ctx, parent, api.VerifyOtpIntentV2{OtpID: init.OtpID, EncryptedOtpBundle: enc})
		if err != nil {
			t.Fatal(err)
		}
		claims, err := tokens.VerifyVerificationToken(ver.VerificationToken, s.tokenKey(), s.clock.Now())
		if err != nil || claims.PublicKey != clientPub || claims.VerificationType != api.OtpTypeSMS || claims.Contact != "+14155550100" {
			t.Fatalf("claims %+v, %v", claims, err)
		}

		_, sessionPub := newP256(t)
		cs, _ := client.LoginSignature(clientKey, claims.ID, sessionPub)
		if _, _, err := s.root.OtpLoginV2(ctx, sub, api.OtpLoginIntentV2{VerificationToken: ver.VerificationToken, PublicKey: sessionPub, ClientSignature: cs}); err != nil {
			t.Fatal(err)
		}
		if _, phone := s.userVerified(sub, userID); !phone {
			t.Fatal("the user's phone number is not marked verified")
		}

		// STAMP_LOGIN with the attested client key, which the token still vouches for.
		attested := s.clientFor(client.AttestedStamper{Key: clientKey, Token: ver.VerificationToken})
		stampKey, stampPub := newP256(t)
		res, a, err := attested.StampLogin(ctx, sub, api.StampLoginIntent{PublicKey: stampPub, InvalidateExisting: ptr(true), ExpirationSeconds: "60"})
		if err != nil {
			t.Fatal(err)
		}
		if a.Votes[0].UserID != userID {
			t.Fatalf("STAMP_LOGIN approved by %s, want the attested user %s", a.Votes[0].UserID, userID)
		}
		sess, err := tokens.VerifySession(res.Session, s.tokenKey(), s.clock.Now())
		if err != nil || sess.UserID != userID || sess.PublicKey != stampPub {
			t.Fatalf("session %+v, %v", sess, err)
		}
		keys, _ := s.root.GetAPIKeys(ctx, sub, userID)
		if hasCredential(keys.APIKeys, sessionPub, api.CredentialOTPAuthKeyP256) || !hasCredential(keys.APIKeys, stampPub, api.CredentialLogin) {
			t.Fatalf("invalidateExisting: keys %+v, want only the new session", keys.APIKeys)
		}
		if who, err := s.clientFor(sessionStamper(t, stampKey)).Whoami(ctx, sub); err != nil || who.UserID != userID {
			t.Fatalf("whoami with the STAMP_LOGIN session: %+v, %v", who, err)
		}
		// The attested key itself is no credential: it authenticates STAMP_LOGIN and nothing else.
		if _, err := attested.Whoami(ctx, sub); !client.IsCode(err, apierr.Unauthenticated) {
			t.Fatalf("whoami stamped with X-Stamp-Attested: %v, want 401", err)
		}
		// A key the token does not bind cannot use it.
		other, _ := newP256(t)
		_, _, err = s.clientFor(client.AttestedStamper{Key: other, Token: ver.VerificationToken}).StampLogin(ctx, sub, api.StampLoginIntent{PublicKey: stampPub})
		if !client.IsCode(err, apierr.Unauthenticated) {
			t.Fatalf("attested stamp by another key: %v, want 401", err)
		}
	})
}

// TestVerifyOtpAttempts: three wrong entries kill a code, even the right code fails after that, and every wrong
// entry counts although its activity fails and its writes are otherwise undone.
func TestVerifyOtpAttempts(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := newOTPStack(t, b, coordinator.Config{})
		org := s.boot.OrganizationID
		init, _, err := s.root.InitOtp(ctx, org, api.InitOtpIntentV2{OtpType: api.OtpTypeEmail, Contact: "cy@example.com", AppName: "Demo", Alphanumeric: ptr(false)})
		if err != nil {
			t.Fatal(err)
		}
		code := s.lastCode("cy@example.com")
		wrong := "A" + code[1:]
		for i, want := range []string{"Invalid OTP code: 2 attempt(s) left", "Invalid OTP code: 1 attempt(s) left", "Invalid OTP code: no attempts left"} {
			_, _, err := s.root.VerifyOtp(ctx, org, api.VerifyOtpIntent{OtpID: init.OtpID, OtpCode: wrong})
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("wrong entry %d: %v, want %q", i+1, err, want)
			}
		}
		_, _, err = s.root.VerifyOtp(ctx, org, api.VerifyOtpIntent{OtpID: init.OtpID, OtpCode: code})
		if err == nil || !strings.Contains(err.Error(), "no attempts left") {
			t.Fatalf("right code after three wrong ones: %v, want a dead code", err)
		}
	})
}

func TestOTPBadInput(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := newOTPStack(t, b, coordinator.Config{})
		parent := s.boot.OrganizationID
		sub, _ := s.subOrgWithUser("dee@example.com", "")
		stranger, _ := s.subOrgWithUser("eve@example.com", "")

		// issue verifies a fresh code for contact in org and returns the token and the key it binds.
		issue := func(org, contact string) (string, tokens.VerificationClaims, *ecdsa.PrivateKey) {
			t.Helper()
			init, _, err := s.root.InitOtp(ctx, org, api.InitOtpIntentV2{OtpType: api.OtpTypeEmail, Contact: contact, AppName: "Demo"})
			if err != nil {
				t.Fatal(err)
			}
			k, pub := newP256(t)
			ver, _, err := s.root.VerifyOtp(ctx, org, api.VerifyOtpIntent{OtpID: init.OtpID, OtpCode: s.lastCode(contact), PublicKey: pub})
			if err != nil {
				t.Fatal(err)
			}
			c, err := tokens.VerifyVerificationToken(ver.VerificationToken, s.tokenKey(), s.clock.Now())
			if err != nil {
				t.Fatal(err)
			}
			return ver.VerificationToken, c, k
		}
		login := func(org, tok string, c tokens.VerificationClaims, k *ecdsa.PrivateKey) error {
			_, pub := newP256(t)
			cs, _ := client.LoginSignature(k, c.ID, pub)
			_, _, err := s.root.OtpLogin(ctx, org, api.OtpLoginIntent{VerificationToken: tok, PublicKey: pub, ClientSignature: cs})
			return err
		}

		t.Run("wrong and expired codes", func(t *testing.T) {
			init, _, err := s.root.InitOtp(ctx, parent, api.InitOtpIntentV2{OtpType: api.OtpTypeEmail, Contact: "dee@example.com", AppName: "Demo", ExpirationSeconds: "60"})
			if err != nil {
				t.Fatal(err)
			}
			code := s.lastCode("dee@example.com")
			expectErr(t, "wrong code", verify(s, parent, init.OtpID, flip(code)), apierr.InvalidArgument, "Invalid OTP code")
			s.clock.Advance(61 * time.Second)
			expectErr(t, "expired code", verify(s, parent, init.OtpID, code), apierr.InvalidArgument, "OTP code expired")
			expectErr(t, "unknown otp", verify(s, parent, "00000000-0000-4000-8000-000000000000", code), apierr.NotFound, "not found")
		})

		t.Run("limits", func(t *testing.T) {
			for range 3 {
				if _, _, err := s.root.InitOtp(ctx, parent, api.InitOtpIntentV2{OtpType: api.OtpTypeEmail, Contact: "flo@example.com", AppName: "Demo"}); err != nil {
					t.Fatal(err)
				}
			}
			_, _, err := s.root.InitOtp(ctx, parent, api.InitOtpIntentV2{OtpType: api.OtpTypeEmail, Contact: "FLO@example.com", AppName: "Demo"})
			expectErr(t, "fourth live code", err, apierr.ResourceExhausted, "Max number of OTPs have been initiated")
			for i := range 3 {
				_, _, err := s.root.InitOtp(ctx, parent, api.InitOtpIntentV2{OtpType: api.OtpTypeSMS, Contact: "+1415555020" + string(rune('0'+i)), AppName: "Demo", UserIdentifier: "ip-hash"})
				if err != nil {
					t.Fatal(err)
				}
			}
			_, _, err = s.root.InitOtp(ctx, parent, api.InitOtpIntentV2{OtpType: api.OtpTypeSMS, Contact: "+14155550209", AppName: "Demo", UserIdentifier: "ip-hash"})
			expectErr(t, "fourth SMS for one identifier", err, apierr.ResourceExhausted, "too many OTP requests")
			s.clock.Advance(3*time.Minute + time.Second)
			if _, _, err := s.root.InitOtp(ctx, parent, api.InitOtpIntentV2{OtpType: api.OtpTypeSMS, Contact: "+14155550209", AppName: "Demo", UserIdentifier: "ip-hash"}); err != nil {
				t.Fatalf("SMS after the window: %v", err)
			}
		})

		t.Run("tokens", func(t *testing.T) {
			tok, c, k := issue(parent, "dee@example.com")
			if err := login(sub, tok, c, k); err != nil {
				t.Fatal(err)
			}
			expectErr(t, "reused token", login(sub, tok, c, k), apierr.InvalidArgument, "already been used")

			tok, c, k = issue(stranger, "dee@example.com")
			expectErr(t, "token of an unrelated organization", login(sub, tok, c, k), apierr.PermissionDenied, "issued by organization")

			tok, c, k = issue(parent, "zed@example.com")
			expectErr(t, "token for another contact", login(sub, tok, c, k), apierr.NotFound, "no user of organization")

			tok, c, k = issue(parent, "dee@example.com")
			parts := strings.Split(tok, ".")
			payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
			forged := strings.Replace(string(payload), "dee@example.com", "eve@example.com", 1)
			tampered := parts[0] + "." + base64.RawURLEncoding.EncodeToString([]byte(forged)) + "." + parts[2]
			expectErr(t, "tampered token", login(stranger, tampered, c, k), apierr.InvalidArgument, "invalid token signature")

			_, pub := newP256(t)
			_, _, err := s.root.OtpLogin(ctx, sub, api.OtpLoginIntent{VerificationToken: tok, PublicKey: pub})
			expectErr(t, "missing client signature", err, apierr.InvalidArgument, "clientSignature is required")
			other, _ := newP256(t)
			cs, _ := client.LoginSignature(other, c.ID, pub)
			_, _, err = s.root.OtpLogin(ctx, sub, api.OtpLoginIntent{VerificationToken: tok, PublicKey: pub, ClientSignature: cs})
			expectErr(t, "client signature by another key", err, apierr.InvalidArgument, "clientSignature")
			cs, _ = client.LoginSignature(k, c.ID, pub)
			_, otherPub := newP256(t)
			_, _, err = s.root.OtpLogin(ctx, sub, api.OtpLoginIntent{VerificationToken: tok, PublicKey: otherPub, ClientSignature: cs})
			expectErr(t, "client signature for another session key", err, apierr.InvalidArgument, "clientSignature")
			_, _, err = s.root.OtpLogin(ctx, sub, api.OtpLoginIntent{VerificationToken: tok, PublicKey: pub, ClientSignature: cs, ExpirationSeconds: "2592001"})
			expectErr(t, "session over the maximum", err, apierr.InvalidArgument, "maximum session")
			// None of the failures consumed the token.
			if _, _, err := s.root.OtpLogin(ctx, sub, api.OtpLoginIntent{VerificationToken: tok, PublicKey: pub, ClientSignature: cs}); err != nil {
				t.Fatalf("login after failed attempts: %v", err)
			}

			tok, c, k = issue(parent, "dee@example.com")
			s.clock.Advance(time.Hour + time.Second)
			expectErr(t, "expired token", login(sub, tok, c, k), apierr.InvalidArgument, "token expired")
		})

		t.Run("parameters", func(t *testing.T) {
			init := func(p api.InitOtpIntentV2) error {
				if p.AppName == "" {
					p.AppName = "Demo"
				}
				if p.OtpType == "" {
					p.OtpType = api.OtpTypeEmail
				}
				if p.Contact == "" {
					p.Contact = "gil@example.com"
				}
				_, _, err := s.root.InitOtp(ctx, parent, p)
				return err
			}
			tests := []struct {
				name string
				p    api.InitOtpIntentV2
				code apierr.Code
				msg  string
			}{
				{"expiration over the maximum", api.InitOtpIntentV2{ExpirationSeconds: "601"}, apierr.InvalidArgument, "expirationSeconds 601"},
				{"bad e-mail", api.InitOtpIntentV2{Contact: "not-an-email"}, apierr.InvalidArgument, "parameters.contact"},
				{"bad phone", api.InitOtpIntentV2{OtpType: api.OtpTypeSMS, Contact: "0123"}, apierr.InvalidArgument, "parameters.contact"},
				{"short code", api.InitOtpIntentV2{OtpLength: ptr(int32(5))}, apierr.InvalidArgument, "otpLength"},
				{"no app name", api.InitOtpIntentV2{AppName: " "}, apierr.InvalidArgument, "appName"},
				{"whatsapp", api.InitOtpIntentV2{OtpType: "OTP_TYPE_WHATSAPP"}, apierr.InvalidArgument, "not supported"},
				{"unknown template", api.InitOtpIntentV2{EmailCustomization: &api.EmailCustomizationParamsV2{TemplateID: "nope"}}, apierr.InvalidArgument, "no e-mail template \"nope\""},
				{"template variables not an object", api.InitOtpIntentV2{EmailCustomization: &api.EmailCustomizationParamsV2{TemplateVariables: "[1]"}}, apierr.InvalidArgument, "templateVariables must be a JSON object"},
				{"magic link without %s", api.InitOtpIntentV2{EmailCustomization: &api.EmailCustomizationParamsV2{MagicLinkTemplate: "https://app.example/login"}}, apierr.InvalidArgument, "magicLinkTemplate"},
				{"SMS template without the code", api.InitOtpIntentV2{OtpType: api.OtpTypeSMS, Contact: "+14155550300", SmsCustomization: &api.SmsCustomizationParams{Template: "hello"}}, apierr.InvalidArgument, "smsCustomization.template"},
			}
			for _, tc := range tests {
				expectErr(t, tc.name, init(tc.p), tc.code, tc.msg)
			}
			in, _, err := s.root.InitOtp(ctx, parent, api.InitOtpIntentV2{OtpType: api.OtpTypeEmail, Contact: "gil@example.com", AppName: "Demo"})
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = s.root.VerifyOtp(ctx, parent, api.VerifyOtpIntent{OtpID: in.OtpID, OtpCode: s.lastCode("gil@example.com"), ExpirationSeconds: "86401"})
			expectErr(t, "token lifetime over the maximum", err, apierr.InvalidArgument, "maximum of 86400")
		})
	})
}

func verify(s *otpStack, org, otpID, code string) error {
	_, _, err := s.root.VerifyOtp(context.Background(), org, api.VerifyOtpIntent{OtpID: otpID, OtpCode: code})
	return err
}

// flip changes the code's first character to another one of its alphabet.
func flip(code string) string {
	if code[0] == '7' {
		return "8" + code[1:]
	}
	return "7" + code[1:]
}

func expectErr(t *testing.T, name string, err error, code apierr.Code, msg string) {
	t.Helper()
	var e *apierr.Error
	if !errors.As(err, &e) {
		var ae *client.ActivityError
		if errors.As(err, &ae) && ae.Activity.Failure != nil {
			e = &apierr.Error{Code: apierr.Code(ae.Activity.Failure.Code), Message: ae.Activity.Failure.Message}
		}
	}
	if e == nil {
		t.Errorf("%s: error %v, want code %d with %q", name, err, code, msg)
		return
	}
	if e.Code != code || !strings.Contains(e.Message, msg) {
		t.Errorf("%s: error %d %q, want code %d with %q", name, e.Code, e.Message, code, msg)
	}
}

func TestJWKS(t *testing.T) {
	t.Parallel()
	s := newOTPStack(t, testdb.SQLite(t), coordinator.Config{})
	resp, err := s.srv.Client().Get(s.srv.URL + "/.well-known/jwks.json")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var set tokens.JWKS
	if err := json.NewDecoder(resp.Body).Decode(&set); err != nil || len(set.Keys) != 1 {
		t.Fatalf("jwks %+v, %v", set, err)
	}
	k := set.Keys[0]
	if k.Kty != "EC" || k.Crv != "P-256" || k.Alg != "ES256" || k.Kid == "" {
		t.Fatalf("jwk %+v", k)
	}
	pub, _ := jwkKey(k)
	if !pub.Equal(s.tokenKey()) {
		t.Fatal("the published key is not the token key")
	}
}
