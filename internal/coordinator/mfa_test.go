package coordinator_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/testdb"
	"github.com/sigil/sigil/stamp"
	"github.com/sigil/sigil/stamp/softauthn"
)

// newPasskey makes a software passkey and its registration parameters.
func newPasskey(t testing.TB) (*softauthn.Authenticator, api.AuthenticatorParamsV2) {
	t.Helper()
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
	params.AuthenticatorName = "passkey"
	return passkey, params
}

// addPasskey registers a new passkey for the user with the root user's API key, and returns it. For the root user
// itself, the passkey is then of the API key's line: the two never meet two steps of one MFA policy.
func (s *stack) addPasskey(orgID, userID string) *softauthn.Authenticator {
	s.t.Helper()
	passkey, params := newPasskey(s.t)
	if _, _, err := s.root.CreateAuthenticators(context.Background(), orgID, api.CreateAuthenticatorsIntentV2{UserID: userID, Authenticators: []api.AuthenticatorParamsV2{params}}); err != nil {
		s.t.Fatal(err)
	}
	return passkey
}

// createUserWithPasskey creates a user with an API key and a passkey, both registered by the root user (so each
// starts a line of its own), allowed to create wallets; it returns the user's id, a client of its API key and the
// passkey.
func (s *stack) createUserWithPasskey(orgID, name string) (string, *client.Client, *softauthn.Authenticator) {
	s.t.Helper()
	ctx := context.Background()
	key, keyParams := newKey(s.t, stamp.CurveP256)
	passkey, passkeyParams := newPasskey(s.t)
	res, _, err := s.root.CreateUsers(ctx, orgID, api.CreateUsersIntentV4{Users: []api.UserParamsV4{{UserName: name,
		APIKeys: []api.APIKeyParamsV2{keyParams}, Authenticators: []api.AuthenticatorParamsV2{passkeyParams},
		OauthProviders: []api.OauthProviderParamsV2{}, UserTags: []string{}}}})
	if err != nil {
		s.t.Fatal(err)
	}
	id := res.UserIDs[0]
	if _, _, err := s.root.CreatePolicy(ctx, orgID, api.CreatePolicyIntentV3{PolicyName: name + " makes wallets", Effect: api.EffectAllow,
		Consensus: "approvers.any(user, user.id == '" + id + "')", Condition: "activity.resource == 'WALLET'", Notes: ""}); err != nil {
		s.t.Fatal(err)
	}
	return id, s.client(key), passkey
}

func steps(types ...string) []api.RequiredAuthenticationMethod {
	var out []api.RequiredAuthenticationMethod
	for _, t := range types {
		out = append(out, api.RequiredAuthenticationMethod{Any: []api.AuthenticationMethod{{Type: t}}})
	}
	return out
}

// pendingMfa submits an activity that an MFA policy of its submitter applies to and returns it, waiting for
// authenticators.
func pendingMfa(t *testing.T, c *client.Client, org, name string) *api.Activity {
	t.Helper()
	_, a, err := c.CreateWallet(context.Background(), org, api.CreateWalletIntent{WalletName: name, Accounts: []api.WalletAccountParams{ethAccount()}})
	var ae *client.ActivityError
	if !errors.As(err, &ae) || a == nil || a.Status != api.StatusAuthenticatorsNeeded {
		t.Fatalf("an activity needing a second factor: %+v %v", a, err)
	}
	return a
}

// An MFA policy whose condition holds keeps its user's activity in AUTHENTICATORS_NEEDED until an approval with the
// required credential; get_mfa_status says what is met; activities outside the condition are not held.
func TestMfaPolicy(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := newStack(t, b)
		org, user := s.boot.OrganizationID, s.boot.UserID
		passkey := s.addPasskey(org, user)
		created, _, err := s.root.CreateMfaPolicy(ctx, org, api.CreateMfaPolicyIntent{UserID: user, MfaPolicyName: "wallets need a passkey",
			Condition: "activity.resource == 'WALLET'", RequiredAuthenticationMethods: steps(api.AuthPasskey), Order: 0})
		if err != nil {
			t.Fatal(err)
		}
		a := pendingMfa(t, s.root, org, "held")
		if !a.CanApprove || !a.CanReject {
			t.Errorf("the held activity, to its submitter: canApprove %v, canReject %v", a.CanApprove, a.CanReject)
		}
		status, err := s.root.GetMfaStatus(ctx, org, a.ID)
		if err != nil || len(status.MfaStatuses) != 1 || status.MfaStatuses[0].Satisfied || status.MfaStatuses[0].MfaPolicyID != created.MfaPolicyID ||
			len(status.MfaStatuses[0].SatisfiedMethods) != 0 || status.MfaStatuses[0].RequiredMethods[0].Any[0].Type != api.AuthPasskey {
			t.Fatalf("get_mfa_status: %+v %v", status, err)
		}
		if w, _ := s.root.ListWallets(ctx, org); len(w.Wallets) != 0 {
			t.Fatalf("a held activity executed: %+v", w.Wallets)
		}
		if _, err := s.root.ApproveActivity(ctx, org, a.Fingerprint); !client.IsCode(err, apierr.AlreadyExists) {
			t.Errorf("approving again with the same credential: %v", err)
		}
		done, err := s.client(passkey).ApproveActivity(ctx, org, a.Fingerprint)
		if err != nil || done.Status != api.StatusCompleted || done.ID != a.ID {
			t.Fatalf("approving with the passkey: %+v %v", done, err)
		}
		if w, _ := s.root.ListWallets(ctx, org); len(w.Wallets) != 1 {
			t.Fatalf("the approved activity did not execute: %+v", w.Wallets)
		}
		status, _ = s.root.GetMfaStatus(ctx, org, a.ID)
		if !status.MfaStatuses[0].Satisfied || status.MfaStatuses[0].SatisfiedMethods[0].Type != api.AuthPasskey {
			t.Errorf("get_mfa_status once met: %+v", status)
		}
		// Submitted with the passkey, the activity meets the policy at once; outside the condition nothing is held.
		if _, _, err := s.client(passkey).CreateWallet(ctx, org, api.CreateWalletIntent{WalletName: "by passkey", Accounts: []api.WalletAccountParams{ethAccount()}}); err != nil {
			t.Errorf("submitted with the passkey: %v", err)
		}
		if _, _, err := s.root.UpdateOrganizationName(ctx, org, api.UpdateOrganizationNameIntent{OrganizationName: "renamed"}); err != nil {
			t.Errorf("an activity outside the condition: %v", err)
		}
	})
}

// Two ordered steps: the API key of the submission meets the first, the passkey's approval the second. Rejecting
// needs no second factor.
func TestMfaPolicySteps(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := newStack(t, b)
		org := s.boot.OrganizationID
		user, bob, passkey := s.createUserWithPasskey(org, "bob")
		if _, _, err := s.root.CreateMfaPolicy(ctx, org, api.CreateMfaPolicyIntent{UserID: user, MfaPolicyName: "all",
			Condition: "true", RequiredAuthenticationMethods: steps(api.AuthAPIKey, api.AuthPasskey), Order: 1}); err != nil {
			t.Fatal(err)
		}
		a := pendingMfa(t, bob, org, "two steps")
		status, _ := bob.GetMfaStatus(ctx, org, a.ID)
		if st := status.MfaStatuses[0]; st.Satisfied || len(st.SatisfiedMethods) != 1 || st.SatisfiedMethods[0].Type != api.AuthAPIKey {
			t.Fatalf("after the submission: %+v", st)
		}
		if done, err := s.client(passkey).ApproveActivity(ctx, org, a.Fingerprint); err != nil || done.Status != api.StatusCompleted {
			t.Fatalf("the second step: %+v %v", done, err)
		}
		b2 := pendingMfa(t, bob, org, "rejected")
		if r, err := bob.RejectActivity(ctx, org, b2.Fingerprint); !client.IsCode(err, apierr.AlreadyExists) {
			t.Errorf("rejecting with the submitting credential: %+v %v", r, err)
		}
		if r, err := s.client(passkey).RejectActivity(ctx, org, b2.Fingerprint); err != nil && !isRejected(err) {
			t.Errorf("rejecting with the passkey: %+v %v", r, err)
		}
		if got, err := s.root.GetActivity(ctx, org, b2.ID); err != nil || got.Activity.Status != api.StatusRejected {
			t.Errorf("the rejected activity: %+v %v", got, err)
		}
	})
}

func isRejected(err error) bool {
	var ae *client.ActivityError
	return errors.As(err, &ae) && ae.Activity.Status == api.StatusRejected
}

// MFA policies are validated before anything is stored; names and orders are unique per user; update and delete
// change what get_mfa_policy(ies) return.
func TestMfaPolicyLifecycle(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := newStack(t, b)
		org, user := s.boot.OrganizationID, s.boot.UserID
		good := api.CreateMfaPolicyIntent{UserID: user, MfaPolicyName: "p", Condition: "activity.action == 'SIGN'",
			RequiredAuthenticationMethods: steps(api.AuthPasskey), Order: 3}
		for name, mutate := range map[string]func(*api.CreateMfaPolicyIntent){
			"a condition that does not compile": func(p *api.CreateMfaPolicyIntent) { p.Condition = "activity.nope ==" },
			"an unknown method": func(p *api.CreateMfaPolicyIntent) {
				p.RequiredAuthenticationMethods = steps("AUTHENTICATION_TYPE_TELEPATHY")
			},
			"no step":          func(p *api.CreateMfaPolicyIntent) { p.RequiredAuthenticationMethods = nil },
			"a negative order": func(p *api.CreateMfaPolicyIntent) { p.Order = -1 },
		} {
			p := good
			mutate(&p)
			if _, _, err := s.root.CreateMfaPolicy(ctx, org, p); !client.IsCode(err, apierr.InvalidArgument) {
				t.Errorf("%s: %v", name, err)
			}
		}
		created, _, err := s.root.CreateMfaPolicy(ctx, org, good)
		if err != nil {
			t.Fatal(err)
		}
		dup := good
		dup.MfaPolicyName = "other"
		if _, _, err := s.root.CreateMfaPolicy(ctx, org, dup); !client.IsCode(err, apierr.AlreadyExists) {
			t.Errorf("a second policy with the same order: %v", err)
		}
		name, order := "renamed", int64(7)
		if _, _, err := s.root.UpdateMfaPolicy(ctx, org, api.UpdateMfaPolicyIntent{UserID: user, MfaPolicyID: created.MfaPolicyID, MfaPolicyName: &name, Order: &order}); err != nil {
			t.Fatal(err)
		}
		got, err := s.root.GetMfaPolicy(ctx, org, user, created.MfaPolicyID)
		if err != nil || got.MfaPolicy.MfaPolicyName != "renamed" || got.MfaPolicy.Order != 7 || got.MfaPolicy.Condition != good.Condition {
			t.Fatalf("get_mfa_policy after the update: %+v %v", got, err)
		}
		u, _ := s.root.GetUser(ctx, org, user)
		if len(u.User.MfaPolicies) != 1 {
			t.Errorf("get_user's mfaPolicies: %+v", u.User.MfaPolicies)
		}
		if _, _, err := s.root.DeleteMfaPolicy(ctx, org, user, created.MfaPolicyID); err != nil {
			t.Fatal(err)
		}
		if list, err := s.root.GetMfaPolicies(ctx, org, user); err != nil || len(list.MfaPolicies) != 0 {
			t.Errorf("get_mfa_policies after the delete: %+v %v", list, err)
		}
		if _, _, err := s.root.DeleteMfaPolicy(ctx, org, user, created.MfaPolicyID); !client.IsCode(err, apierr.NotFound) {
			t.Errorf("deleting twice: %v", err)
		}
	})
}

// An approver's MFA policy: the approval made with a credential that does not meet it is recorded but does not count
// toward consensus; the approval with the required credential completes the activity.
func TestMfaPolicyApprover(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := newStack(t, b)
		org := s.boot.OrganizationID
		bobID, bob := s.createUser(org, s.root, "bob")
		passkey := s.addPasskey(org, bobID)
		two := int32(2)
		if _, _, err := s.root.UpdateRootQuorum(ctx, org, api.UpdateRootQuorumIntent{Threshold: &two, UserIDs: []string{s.boot.UserID, bobID}}); err != nil {
			t.Fatal(err)
		}
		created, a, err := s.root.CreateMfaPolicy(ctx, org, api.CreateMfaPolicyIntent{UserID: bobID, MfaPolicyName: "bob approves with his passkey",
			Condition: "true", RequiredAuthenticationMethods: steps(api.AuthPasskey), Order: 0})
		if a == nil || a.Status != api.StatusConsensusNeeded {
			t.Fatalf("create_mfa_policy by one root user of two: %+v %+v %v", created, a, err)
		}
		// bob's approval creates his policy (it did not exist to hold this approval).
		if _, err := bob.ApproveActivity(ctx, org, a.Fingerprint); err != nil {
			t.Fatal(err)
		}
		_, held, err := s.root.UpdateOrganizationName(ctx, org, api.UpdateOrganizationNameIntent{OrganizationName: "needs bob's passkey"})
		if held == nil || held.Status != api.StatusConsensusNeeded {
			t.Fatalf("the activity bob must approve: %+v %v", held, err)
		}
		voted, err := bob.ApproveActivity(ctx, org, held.Fingerprint)
		var ae *client.ActivityError
		if !errors.As(err, &ae) || voted == nil || voted.Status != api.StatusConsensusNeeded {
			t.Fatalf("bob's approval with his API key: %v, want the activity still waiting", err)
		}
		status, _ := s.root.GetMfaStatus(ctx, org, held.ID)
		if len(status.MfaStatuses) != 1 || status.MfaStatuses[0].UserID != bobID || status.MfaStatuses[0].Satisfied {
			t.Fatalf("get_mfa_status: %+v", status)
		}
		if o, _ := s.root.GetOrganization(ctx, org); o.OrganizationData.Name == "needs bob's passkey" {
			t.Fatal("executed before bob's second factor")
		}
		done, err := s.client(passkey).ApproveActivity(ctx, org, held.Fingerprint)
		if err != nil || done.Status != api.StatusCompleted {
			t.Fatalf("bob's approval with his passkey: %+v %v", done, err)
		}
		if o, _ := s.root.GetOrganization(ctx, org); o.OrganizationData.Name != "needs bob's passkey" {
			t.Errorf("the approved activity did not execute: %q", o.OrganizationData.Name)
		}
	})
}

// A login that needs a second factor: STAMP_LOGIN waits in AUTHENTICATORS_NEEDED and the passkey's approval opens the
// session, whose JWT the completed activity then carries.
func TestMfaPolicyLogin(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := newStack(t, b)
		org, user := s.boot.OrganizationID, s.boot.UserID
		passkey := s.addPasskey(org, user)
		if _, _, err := s.root.CreateMfaPolicy(ctx, org, api.CreateMfaPolicyIntent{UserID: user, MfaPolicyName: "logins need a passkey",
			Condition: "activity.resource == 'AUTH'", RequiredAuthenticationMethods: steps(api.AuthPasskey), Order: 0}); err != nil {
			t.Fatal(err)
		}
		key, _ := newKey(t, stamp.CurveP256)
		_, a, err := s.root.StampLogin(ctx, org, api.StampLoginIntent{PublicKey: key.PublicKeyHex()})
		var ae *client.ActivityError
		if !errors.As(err, &ae) || a == nil || a.Status != api.StatusAuthenticatorsNeeded {
			t.Fatalf("a login needing a second factor: %+v %v", a, err)
		}
		if _, err := s.client(key).Whoami(ctx, org); !client.IsCode(err, apierr.Unauthenticated) {
			t.Fatalf("the session key before the second factor: %v", err)
		}
		done, err := s.client(passkey).ApproveActivity(ctx, org, a.Fingerprint)
		if err != nil || done.Status != api.StatusCompleted || len(done.Result["stampLoginResult"]) == 0 {
			t.Fatalf("the passkey's approval: %+v %v", done, err)
		}
		if who, err := s.client(key).Whoami(ctx, org); err != nil || who.UserID != user {
			t.Errorf("the session key after the second factor: %+v %v", who, err)
		}
	})
}

// A signature held for a second factor is made, of the payload as submitted, once the passkey approves.
func TestMfaPolicySigning(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := newStack(t, b)
		org, user := s.boot.OrganizationID, s.boot.UserID
		passkey := s.addPasskey(org, user)
		w, _, err := s.root.CreateWallet(ctx, org, api.CreateWalletIntent{WalletName: "w", Accounts: []api.WalletAccountParams{ethAccount()}})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.root.CreateMfaPolicy(ctx, org, api.CreateMfaPolicyIntent{UserID: user, MfaPolicyName: "signing needs a passkey",
			Condition: "activity.action == 'SIGN'", RequiredAuthenticationMethods: steps(api.AuthPasskey), Order: 0}); err != nil {
			t.Fatal(err)
		}
		digest := crypto.Keccak256([]byte("held for a passkey"))
		_, held, err := s.root.SignRawPayload(ctx, org, api.SignRawPayloadIntentV2{SignWith: w.Addresses[0],
			Payload: hex.EncodeToString(digest), Encoding: "PAYLOAD_ENCODING_HEXADECIMAL", HashFunction: "HASH_FUNCTION_NO_OP"})
		var ae *client.ActivityError
		if !errors.As(err, &ae) || held.Status != api.StatusAuthenticatorsNeeded || len(held.Result) != 0 {
			t.Fatalf("a signature needing a second factor: %+v %v", held, err)
		}
		done, err := s.client(passkey).ApproveActivity(ctx, org, held.Fingerprint)
		if err != nil || done.Status != api.StatusCompleted {
			t.Fatalf("the passkey's approval: %+v %v", done, err)
		}
		var sig api.SignRawPayloadResult
		if err := json.Unmarshal(done.Result["signRawPayloadResult"], &sig); err != nil {
			t.Fatal(err)
		}
		rsv, _ := hex.DecodeString(sig.R + sig.S + sig.V)
		pub, err := crypto.SigToPub(digest, rsv)
		if err != nil || !strings.EqualFold(crypto.PubkeyToAddress(*pub).Hex(), w.Addresses[0]) {
			t.Errorf("the signature recovers %v (%v), want %s", pub, err, w.Addresses[0])
		}
	})
}

// Steps [API_KEY] then [SESSION | PASSKEY]: the API key that submitted a signing (and met the first step) cannot meet
// the second through anything it made — a read-write session, a session of STAMP_LOGIN, a passkey it registered, or a
// session of an OIDC identity it linked. A session opened with a factor of its own (an e-mail code) meets it.
func TestMfaStepsNeedCredentialsNotMadeByEachOther(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := newOAuthStack(t, b)
		org, user := s.boot.OrganizationID, s.boot.UserID
		w, _, err := s.root.CreateWallet(ctx, org, api.CreateWalletIntent{WalletName: "w", Accounts: []api.WalletAccountParams{ethAccount()}})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.root.CreateMfaPolicy(ctx, org, api.CreateMfaPolicyIntent{UserID: user, MfaPolicyName: "signing needs two",
			Condition: "activity.action == 'SIGN'", Order: 0, RequiredAuthenticationMethods: []api.RequiredAuthenticationMethod{
				{Any: []api.AuthenticationMethod{{Type: api.AuthAPIKey}}},
				{Any: []api.AuthenticationMethod{{Type: api.AuthSession}, {Type: api.AuthPasskey}}}}}); err != nil {
			t.Fatal(err)
		}
		_, held, err := s.root.SignRawPayload(ctx, org, api.SignRawPayloadIntentV2{SignWith: w.Addresses[0],
			Payload: hex.EncodeToString(crypto.Keccak256([]byte("approve me yourself"))), Encoding: "PAYLOAD_ENCODING_HEXADECIMAL", HashFunction: "HASH_FUNCTION_NO_OP"})
		if held == nil || held.Status != api.StatusAuthenticatorsNeeded {
			t.Fatalf("a signing needing a second factor: %+v %v", held, err)
		}

		made := map[string]*client.Client{}
		target, targetHex := newTarget(t)
		rw, _, err := s.root.CreateReadWriteSession(ctx, org, api.CreateReadWriteSessionIntentV2{TargetPublicKey: targetHex})
		if err != nil {
			t.Fatal(err)
		}
		made["a read-write session"] = s.clientFor(openBundle(t, target, rw.CredentialBundle))
		loginKey := mustKey(t)
		if _, _, err := s.root.StampLogin(ctx, org, api.StampLoginIntent{PublicKey: loginKey.PublicKeyHex()}); err != nil {
			t.Fatal(err)
		}
		made["a STAMP_LOGIN session"] = s.clientFor(loginKey)
		passkey, params := newPasskey(t)
		if _, _, err := s.root.CreateAuthenticators(ctx, org, api.CreateAuthenticatorsIntentV2{UserID: user, Authenticators: []api.AuthenticatorParamsV2{params}}); err != nil {
			t.Fatal(err)
		}
		made["a passkey it registered"] = s.clientFor(passkey)
		if _, _, err := s.root.CreateOauthProviders(ctx, org, api.CreateOauthProvidersIntentV2{UserID: user,
			OauthProviders: []api.OauthProviderParamsV2{{ProviderName: "attacker's", OidcToken: s.idp.IDToken(nil)}}}); err != nil {
			t.Fatal(err)
		}
		oauthKey := mustKey(t)
		if _, _, err := s.root.OauthLogin(ctx, org, api.OauthLoginIntent{OidcToken: s.idp.IDToken(nonceFor(oauthKey.PublicKeyHex())), PublicKey: oauthKey.PublicKeyHex()}); err != nil {
			t.Fatal(err)
		}
		made["a session of an OIDC identity it linked"] = s.clientFor(oauthKey)
		for name, c := range made {
			// Its approval meets no step: refused as a vote that changes nothing.
			if a, err := c.ApproveActivity(ctx, org, held.Fingerprint); !client.IsCode(err, apierr.AlreadyExists) {
				t.Errorf("%s, made by the API key, approved as the second factor: %+v %v", name, a, err)
			}
		}
		if got, _ := s.root.GetActivity(ctx, org, held.ID); got.Activity.Status != api.StatusAuthenticatorsNeeded {
			t.Fatalf("the signing after the approvals of what the key made: %s", got.Activity.Status)
		}

		// A session of an e-mail code the user received: a factor of its own.
		if _, _, err := s.root.UpdateUserEmail(ctx, org, api.UpdateUserEmailIntent{UserID: user, UserEmail: "root@example.com"}); err != nil {
			t.Fatal(err)
		}
		init, _, err := s.root.InitOtp(ctx, org, api.InitOtpIntentV2{OtpType: api.OtpTypeEmail, Contact: "root@example.com", AppName: "Acme"})
		if err != nil {
			t.Fatal(err)
		}
		ver, _, err := s.root.VerifyOtp(ctx, org, api.VerifyOtpIntent{OtpID: init.OtpID, OtpCode: s.lastCode("root@example.com")})
		if err != nil {
			t.Fatal(err)
		}
		otpKey := mustKey(t)
		if _, _, err := s.root.OtpLogin(ctx, org, api.OtpLoginIntent{VerificationToken: ver.VerificationToken, PublicKey: otpKey.PublicKeyHex()}); err != nil {
			t.Fatal(err)
		}
		if done, err := s.clientFor(otpKey).ApproveActivity(ctx, org, held.Fingerprint); err != nil || done.Status != api.StatusCompleted {
			t.Fatalf("the approval of a session of an e-mail code: %+v %v", done, err)
		}
	})
}
