package coordinator_test

import (
	"context"
	"testing"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/coordinator"
	"github.com/sigil/sigil/internal/testdb"
	tokens "github.com/sigil/sigil/internal/token"
)

// BenchmarkOTPRoundTrip measures one OTP login as the auth proxy drives it, over HTTP against a coordinator on
// SQLite delivering to the dev outbox: INIT_OTP_V2, the code read from the outbox, VERIFY_OTP binding a client key,
// OTP_LOGIN in the user's sub-organization with the client signature. Every request is stamped and every activity
// decided, executed and recorded; the client's work (stamps, keys, the client signature) runs in the same process.
// Profile with -cpuprofile to see the share of cryptography.
func BenchmarkOTPRoundTrip(b *testing.B) {
	ctx := context.Background()
	s := startOTPEnv(b, testdb.SQLite(b), coordinator.Config{})
	parent := s.boot.OrganizationID
	sub, _ := s.subOrgWithUser(b, "bench@example.com", "")
	tokenKey := s.tokenKey(b)
	clientKey, clientPub := newP256(b)
	for b.Loop() {
		init, _, err := s.root.InitOtp(ctx, parent, api.InitOtpIntentV2{OtpType: api.OtpTypeEmail, Contact: "bench@example.com", AppName: "Bench"})
		if err != nil {
			b.Fatal(err)
		}
		entries := s.outbox.Entries()
		m := codePattern.FindStringSubmatch(entries[len(entries)-1].Subject)
		ver, _, err := s.root.VerifyOtp(ctx, parent, api.VerifyOtpIntent{OtpID: init.OtpID, OtpCode: m[1], PublicKey: clientPub})
		if err != nil {
			b.Fatal(err)
		}
		claims, err := tokens.VerifyVerificationToken(ver.VerificationToken, tokenKey, s.clock.Now())
		if err != nil {
			b.Fatal(err)
		}
		_, sessionPub := newP256(b)
		cs, err := client.LoginSignature(clientKey, claims.ID, sessionPub)
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := s.root.OtpLogin(ctx, sub, api.OtpLoginIntent{VerificationToken: ver.VerificationToken, PublicKey: sessionPub,
			ClientSignature: cs, InvalidateExisting: ptr(true)}); err != nil {
			b.Fatal(err)
		}
	}
}
