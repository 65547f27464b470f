package policy

import (
	"errors"
	"strings"
	"testing"
)

// banned is the address Turnkey's SDK test organizations bar with a DENY on eth.tx.to.
const banned = "0x08d2b0a37f869ff76bacb5bab3278e26ab7067b7"

func mustCompile(t testing.TB, src string, f Field) *Expr {
	t.Helper()
	if src == "" {
		return nil
	}
	e, err := Compile(src, f)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func pol(t testing.TB, id string, effect Effect, condition, consensus string) Policy {
	return Policy{ID: id, Effect: effect, Condition: mustCompile(t, condition, Condition), Consensus: mustCompile(t, consensus, Consensus)}
}

func input(t *testing.T, activityType string, approvers ...User) *Input {
	return &Input{Activity: activity(t, activityType, nil), Approvers: approvers}
}

func TestDecide(t *testing.T) {
	twoOfThreeTagged := pol(t, "two-admins", EffectAllow, "activity.resource == 'POLICY'",
		"approvers.filter(u, u.tags.contains('"+tagOps+"')).count() >= 2")
	denyDelete := pol(t, "no-deletes", EffectDeny, "activity.action == 'DELETE'", "")
	allowAll := pol(t, "allow-all", EffectAllow, "true", "")
	denyCredentials := pol(t, "agent-lockdown", EffectDeny, "activity.resource == 'CREDENTIAL'", "")
	valueCap := pol(t, "value-cap", EffectDeny, "activity.action == 'SIGN' && eth.tx.value > 10", "")
	walletOrKey := pol(t, "wallet-or-key", EffectDeny, "wallet.id == 'w' || private_key.id == 'k'", "")
	taggedDeny := pol(t, "ops-cannot-delete", EffectDeny, "activity.action == 'DELETE'", "approvers.any(u, u.tags.contains('"+tagOps+"'))")
	brokenDenyConsensus := pol(t, "deny-broken-consensus", EffectDeny, "activity.action == 'DELETE'", "approvers[5].id == 'x'")
	brokenAllowConsensus := pol(t, "allow-broken-consensus", EffectAllow, "activity.action == 'DELETE'", "approvers[5].id == 'x'")
	roots := RootQuorum{UserIDs: []string{alice, bob, carol}, Threshold: 2}
	noRoots := RootQuorum{UserIDs: []string{carol}, Threshold: 1}
	dave, erin := user("dave", tagOps), user("erin", tagOps)
	bannedTo := pol(t, "banned-to", EffectDeny, "eth.tx.to == '"+banned+"'", "")
	dataSlice := pol(t, "data-slice", EffectDeny, "eth.tx.data[10..74] == '"+strings.Repeat("0", 64)+"'", "")
	blobFee := pol(t, "blob-fee", EffectDeny, "eth.tx.max_fee_per_blob_gas > 0", "")
	toEither := pol(t, "to-either", EffectDeny, "eth.tx.to == '"+banned+"' || eth.eip_712.message['to'] == '"+banned+"'", "")
	withBanned := func(in *Input) *Input {
		in.EthTx = &EthTx{To: banned, Data: "0x", Value: wei("1")}
		return in
	}
	withMessage := func(in *Input, message string) *Input {
		in.EIP712 = &EIP712{PrimaryType: "Mail", Message: decodeJSON(t, message)}
		return in
	}
	withTx := func(in *Input, value int64) *Input {
		in.EthTx = &EthTx{To: recip, Data: "0x", Value: wei(strings.Repeat("1", 1) + strings.Repeat("0", int(value)))}
		return in
	}

	tests := []struct {
		name    string
		req     Request
		outcome Outcome
		evals   string
		message string
	}{
		{"2 of 3 tagged: first approval needs consensus",
			Request{RootQuorum: noRoots, Input: input(t, "ACTIVITY_TYPE_CREATE_POLICY_V3", dave), Policies: []Policy{twoOfThreeTagged}},
			ConsensusNeeded, "two-admins=REQUIRES_CONSENSUS", "Consensus needed: policies two-admins need more approvals"},
		{"2 of 3 tagged: untagged second approval still needs consensus",
			Request{RootQuorum: noRoots, Input: input(t, "ACTIVITY_TYPE_CREATE_POLICY_V3", dave, user("frank")), Policies: []Policy{twoOfThreeTagged}},
			ConsensusNeeded, "two-admins=REQUIRES_CONSENSUS", ""},
		{"2 of 3 tagged: second tagged approval allows",
			Request{RootQuorum: noRoots, Input: input(t, "ACTIVITY_TYPE_CREATE_POLICY_V3", dave, erin), Policies: []Policy{twoOfThreeTagged}},
			Allow, "two-admins=ALLOW", ""},
		{"deny wins over allow",
			Request{RootQuorum: noRoots, Input: input(t, "ACTIVITY_TYPE_DELETE_WALLETS", dave), Policies: []Policy{allowAll, denyDelete}},
			Deny, "allow-all=ALLOW no-deletes=DENY_EXPLICIT", "The following policies denied this action: no-deletes"},
		{"deny lists every denying policy",
			Request{RootQuorum: noRoots, Input: input(t, "ACTIVITY_TYPE_DELETE_WALLETS", dave), Policies: []Policy{denyDelete, allowAll, taggedDeny}},
			Deny, "no-deletes=DENY_EXPLICIT allow-all=ALLOW ops-cannot-delete=DENY_EXPLICIT", "The following policies denied this action: no-deletes, ops-cannot-delete"},
		{"a tagged deny does not bite without a tagged approver",
			Request{RootQuorum: noRoots, Input: input(t, "ACTIVITY_TYPE_DELETE_WALLETS", user("frank")), Policies: []Policy{allowAll, taggedDeny}},
			Allow, "allow-all=ALLOW ops-cannot-delete=DENY_IMPLICIT", ""},
		{"deny that does not apply",
			Request{RootQuorum: noRoots, Input: input(t, "ACTIVITY_TYPE_CREATE_WALLET", dave), Policies: []Policy{allowAll, denyDelete}},
			Allow, "allow-all=ALLOW no-deletes=DENY_IMPLICIT", ""},
		{"root quorum: one of two root approvals needs consensus",
			Request{RootQuorum: roots, Input: input(t, "ACTIVITY_TYPE_CREATE_WALLET", user(alice))},
			ConsensusNeeded, "", "Consensus needed: 1 of 2 root quorum approvals"},
		{"root quorum: two root approvals allow, policies bypassed",
			Request{RootQuorum: roots, Input: input(t, "ACTIVITY_TYPE_DELETE_WALLETS", user(alice), user(carol)), Policies: []Policy{denyDelete}},
			Allow, "", "Approved by the root quorum"},
		{"root quorum: the same root user twice counts once",
			Request{RootQuorum: roots, Input: input(t, "ACTIVITY_TYPE_CREATE_WALLET", user(alice), user(alice))},
			ConsensusNeeded, "", ""},
		{"root quorum: a duplicated quorum member counts once",
			Request{RootQuorum: RootQuorum{UserIDs: []string{alice, alice, bob}, Threshold: 2}, Input: input(t, "ACTIVITY_TYPE_CREATE_WALLET", user(alice))},
			ConsensusNeeded, "", ""},
		{"root quorum: threshold 0 never passes",
			Request{RootQuorum: RootQuorum{UserIDs: []string{alice}}, Input: input(t, "ACTIVITY_TYPE_CREATE_WALLET", user(alice))},
			ConsensusNeeded, "", ""},
		{"root quorum: an allow lets one root user act alone",
			Request{RootQuorum: roots, Input: input(t, "ACTIVITY_TYPE_CREATE_WALLET", user(alice)), Policies: []Policy{allowAll}},
			Allow, "allow-all=ALLOW", ""},
		{"root quorum: a deny waits for the quorum instead of failing",
			Request{RootQuorum: roots, Input: input(t, "ACTIVITY_TYPE_DELETE_WALLETS", user(alice)), Policies: []Policy{denyDelete}},
			ConsensusNeeded, "no-deletes=DENY_EXPLICIT", "Consensus needed: 1 of 2 root quorum approvals; policies no-deletes deny it to everyone else"},
		{"deny on credentials blocks adding one's own API key",
			Request{RootQuorum: noRoots, Input: input(t, "ACTIVITY_TYPE_CREATE_API_KEYS_V2", dave), OwnCredentialChange: true, Policies: []Policy{denyCredentials}},
			Deny, "agent-lockdown=DENY_EXPLICIT", "The following policies denied this action: agent-lockdown"},
		{"own API key allowed implicitly without policies",
			Request{RootQuorum: noRoots, Input: input(t, "ACTIVITY_TYPE_CREATE_API_KEYS_V2", dave), OwnCredentialChange: true},
			Allow, "", "Allowed implicitly: users may change their own credentials"},
		{"own API key allowed implicitly when no policy applies",
			Request{RootQuorum: noRoots, Input: input(t, "ACTIVITY_TYPE_CREATE_API_KEYS_V2", dave), OwnCredentialChange: true, Policies: []Policy{denyDelete}},
			Allow, "no-deletes=DENY_IMPLICIT", ""},
		{"own credential change governed by an applicable policy",
			Request{RootQuorum: noRoots, Input: input(t, "ACTIVITY_TYPE_DELETE_API_KEYS", dave), OwnCredentialChange: true,
				Policies: []Policy{pol(t, "creds-need-two", EffectAllow, "activity.resource == 'CREDENTIAL'", "approvers.count() >= 2")}},
			ConsensusNeeded, "creds-need-two=REQUIRES_CONSENSUS", ""},
		{"someone else's API key is not implicit",
			Request{RootQuorum: noRoots, Input: input(t, "ACTIVITY_TYPE_CREATE_API_KEYS_V2", dave)},
			Deny, "", msgImplicitDeny},
		{"voting on an activity whose consensus names the voter",
			Request{RootQuorum: noRoots, Input: input(t, "ACTIVITY_TYPE_APPROVE_ACTIVITY", dave), VoterInConsensus: true},
			Allow, "", "Allowed implicitly: the voter takes part in the activity's consensus"},
		{"voting without being named",
			Request{RootQuorum: noRoots, Input: input(t, "ACTIVITY_TYPE_APPROVE_ACTIVITY", dave)},
			Deny, "", msgImplicitDeny},
		{"root-only: policies cannot grant it",
			Request{RootQuorum: noRoots, Input: input(t, "ACTIVITY_TYPE_UPDATE_ROOT_QUORUM", dave), RootOnly: true, Policies: []Policy{allowAll}},
			Deny, "", "Only the root quorum can perform ACTIVITY_TYPE_UPDATE_ROOT_QUORUM"},
		{"root-only: marked by the caller",
			Request{RootQuorum: noRoots, Input: input(t, "ACTIVITY_TYPE_CREATE_WALLET", dave), RootOnly: true, Policies: []Policy{allowAll}},
			Deny, "", "Only the root quorum can perform ACTIVITY_TYPE_CREATE_WALLET"},
		{"root-only: a root user below the threshold waits",
			Request{RootQuorum: roots, Input: input(t, "ACTIVITY_TYPE_UPDATE_ROOT_QUORUM", user(bob)), RootOnly: true, Policies: []Policy{allowAll}},
			ConsensusNeeded, "", "Consensus needed: 1 of 2 root quorum approvals"},
		{"root-only: the quorum allows",
			Request{RootQuorum: roots, Input: input(t, "ACTIVITY_TYPE_UPDATE_ROOT_QUORUM", user(bob), user(carol)), RootOnly: true},
			Allow, "", ""},
		{"rejection",
			Request{RootQuorum: noRoots, Input: input(t, "ACTIVITY_TYPE_CREATE_WALLET", dave), Rejections: []string{"erin"}, Policies: []Policy{allowAll}},
			Rejected, "", "Rejected by erin"},
		{"no policies: implicit deny",
			Request{RootQuorum: noRoots, Input: input(t, "ACTIVITY_TYPE_CREATE_WALLET", dave)},
			Deny, "", msgImplicitDeny},
		{"value cap does not deny activities without a transaction",
			Request{RootQuorum: noRoots, Input: input(t, "ACTIVITY_TYPE_CREATE_WALLET", dave), Policies: []Policy{allowAll, valueCap}},
			Allow, "allow-all=ALLOW value-cap=ERROR", ""},
		{"value cap denies a large transfer",
			Request{RootQuorum: noRoots, Input: withTx(input(t, "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", dave), 3), Policies: []Policy{allowAll, valueCap}},
			Deny, "allow-all=ALLOW value-cap=DENY_EXPLICIT", ""},
		{"a deny on what the request does not have does not apply",
			Request{RootQuorum: noRoots, Input: withTx(input(t, "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", dave), 0), Policies: []Policy{allowAll, walletOrKey}},
			Allow, "allow-all=ALLOW wallet-or-key=ERROR", "Allowed by policies: allow-all"},
		{"strict: a deny on what the request does not have fails closed",
			Request{RootQuorum: noRoots, Input: withTx(input(t, "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", dave), 0), Policies: []Policy{allowAll, walletOrKey}, StrictDeny: true},
			Deny, "allow-all=ALLOW wallet-or-key=ERROR", "The following policies denied this action: wallet-or-key"},
		{"a transaction-scoped deny leaves message signing alone",
			Request{RootQuorum: noRoots, Input: input(t, "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", dave), Policies: []Policy{allowAll, bannedTo}},
			Allow, "allow-all=ALLOW banned-to=ERROR", ""},
		{"strict: a transaction-scoped deny denies message signing",
			Request{RootQuorum: noRoots, Input: input(t, "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", dave), Policies: []Policy{allowAll, bannedTo}, StrictDeny: true},
			Deny, "allow-all=ALLOW banned-to=ERROR", ""},
		{"a transaction-scoped deny still denies its transaction",
			Request{RootQuorum: noRoots, Input: withBanned(input(t, "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", dave)), Policies: []Policy{allowAll, bannedTo}},
			Deny, "allow-all=ALLOW banned-to=DENY_EXPLICIT", ""},
		{"a deny failing on the data of a field the request has fails closed",
			Request{RootQuorum: noRoots, Input: withTx(input(t, "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", dave), 0), Policies: []Policy{allowAll, dataSlice}},
			Deny, "allow-all=ALLOW data-slice=ERROR", "The following policies denied this action: data-slice"},
		{"a deny on a value the request's data leaves out fails closed",
			Request{RootQuorum: noRoots, Input: withTx(input(t, "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", dave), 0), Policies: []Policy{allowAll, blobFee}},
			Deny, "allow-all=ALLOW blob-fee=ERROR", ""},
		{"a deny failing on what the request lacks and on data it has fails closed",
			Request{RootQuorum: noRoots, Input: withMessage(input(t, "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", dave), `{"to": 5}`), Policies: []Policy{allowAll, toEither}},
			Deny, "allow-all=ALLOW to-either=ERROR", ""},
		{"the same deny with well-formed data that does not match does not deny",
			Request{RootQuorum: noRoots, Input: withMessage(input(t, "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", dave), `{"to": "0x2"}`), Policies: []Policy{allowAll, toEither}},
			Allow, "allow-all=ALLOW to-either=ERROR", ""},
		{"an errored deny consensus fails closed",
			Request{RootQuorum: noRoots, Input: input(t, "ACTIVITY_TYPE_DELETE_WALLETS", dave), Policies: []Policy{allowAll, brokenDenyConsensus}},
			Deny, "allow-all=ALLOW deny-broken-consensus=ERROR", ""},
		{"an errored allow never allows",
			Request{RootQuorum: noRoots, Input: input(t, "ACTIVITY_TYPE_DELETE_WALLETS", dave), Policies: []Policy{brokenAllowConsensus}},
			Deny, "allow-broken-consensus=ERROR", msgImplicitDeny},
		{"an allow decided true whatever its failed clause holds allows",
			Request{RootQuorum: noRoots, Input: input(t, "ACTIVITY_TYPE_DELETE_WALLETS", dave),
				Policies: []Policy{pol(t, "either", EffectAllow, "activity.type == 'ACTIVITY_TYPE_DELETE_WALLETS' || activity.params.user_ids.count() == 1", "")}},
			Allow, "either=ALLOW", ""},
		{"an allow on a parameter the activity does not have leaves the implicit credential permission",
			Request{RootQuorum: noRoots, Input: input(t, "ACTIVITY_TYPE_DELETE_API_KEYS", dave), OwnCredentialChange: true,
				Policies: []Policy{pol(t, "broken", EffectAllow, "activity.params.user_ids.count() == 1", "")}},
			Allow, "broken=ERROR", "Allowed implicitly: users may change their own credentials"},
		{"strict: an errored allow blocks the implicit credential permission",
			Request{RootQuorum: noRoots, Input: input(t, "ACTIVITY_TYPE_DELETE_API_KEYS", dave), OwnCredentialChange: true, StrictDeny: true,
				Policies: []Policy{pol(t, "broken", EffectAllow, "activity.params.user_ids.count() == 1", "")}},
			Deny, "broken=ERROR", msgImplicitDeny},
		{"an allow failing on data blocks the implicit credential permission",
			Request{RootQuorum: noRoots, OwnCredentialChange: true, Input: &Input{Approvers: []User{dave},
				Activity: activity(t, "ACTIVITY_TYPE_DELETE_API_KEYS", map[string]any{"user_id": "dave", "api_key_ids": []string{"k"}})},
				Policies: []Policy{pol(t, "broken", EffectAllow, "activity.params.api_key_ids[5] == 'x'", "")}},
			Deny, "broken=ERROR", msgImplicitDeny},
		{"an unknown effect fails closed",
			Request{RootQuorum: noRoots, Input: input(t, "ACTIVITY_TYPE_CREATE_WALLET", dave), Policies: []Policy{allowAll, {ID: "odd", Effect: "EFFECT_MAYBE"}}},
			Deny, "allow-all=ALLOW odd=DENY_EXPLICIT", ""},
		{"expressions swapped between fields are errors",
			Request{RootQuorum: noRoots, Input: input(t, "ACTIVITY_TYPE_CREATE_WALLET", dave),
				Policies: []Policy{{ID: "swapped", Effect: EffectAllow, Condition: mustCompile(t, "approvers.count() > 0", Consensus)}}},
			Deny, "swapped=ERROR", msgImplicitDeny},
		{"nil input",
			Request{RootQuorum: noRoots, Policies: []Policy{pol(t, "x", EffectAllow, "activity.type == ''", "")}},
			Allow, "x=ALLOW", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Decide(&tt.req)
			if d.Outcome != tt.outcome || outcomes(d) != tt.evals {
				t.Errorf("Decide = %v [%s] %q, want %v [%s]", d.Outcome, outcomes(d), d.Message, tt.outcome, tt.evals)
			}
			if tt.message != "" && d.Message != tt.message {
				t.Errorf("message %q, want %q", d.Message, tt.message)
			}
			for _, ev := range d.Evaluations {
				if (ev.Outcome == OutcomeError) != (ev.Err != nil) {
					t.Errorf("%s: outcome %s with error %v", ev.PolicyID, ev.Outcome, ev.Err)
				}
			}
		})
	}
}

func TestOutcomeString(t *testing.T) {
	for o, want := range map[Outcome]string{Allow: "Allow", Deny: "Deny", ConsensusNeeded: "ConsensusNeeded", Rejected: "Rejected"} {
		if o.String() != want {
			t.Errorf("%d.String() = %s", o, o)
		}
	}
	var zero Decision
	if zero.Outcome != Deny {
		t.Error("the zero Decision must deny")
	}
}

// Inapplicable holds exactly for failures that say the request lacks what the expression reads, and only when every
// failed clause failed that way.
func TestInapplicable(t *testing.T) {
	msg := func(message string) *Input {
		return &Input{Activity: activity(t, "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", nil), EIP712: &EIP712{PrimaryType: "Mail", Message: decodeJSON(t, message)}}
	}
	tx := &Input{Activity: activity(t, "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", nil), EthTx: &EthTx{To: recip, Data: "0x", Value: wei("1")}}
	tests := []struct {
		src  string
		in   *Input
		want bool
	}{
		{"eth.tx.to == '" + banned + "'", msg(`{}`), true},
		{"activity.params.user_ids.count() == 1", tx, true},
		{"wallet.id == 'w' || private_key.id == 'k'", tx, true},
		{"solana.tx.transfers.count() > 0 && bitcoin.tx.fee > 50000", tx, true},
		{"eth.tx.to == '" + banned + "' || eth.eip_712.message['to'] == '" + banned + "'", msg(`{"to": "0x2"}`), true},
		{"eth.tx.to == '" + banned + "' || eth.eip_712.message['to'] == '" + banned + "'", msg(`{"to": 5}`), false},
		{"eth.eip_712.message['to'] == '" + banned + "' || eth.tx.to == '" + banned + "'", msg(`{"to": 5}`), false},
		{"eth.tx.to == '" + banned + "' || eth.eip_712.message['to'] == '" + banned + "'", msg(`{}`), false},
		{"eth.tx.max_fee_per_blob_gas > 0", tx, false},
		{"eth.tx.data[10..74] == 'ab'", tx, false},
		{"eth.tx.function_name == 'approve'", tx, false},
	}
	for _, tt := range tests {
		_, err := mustCompile(t, tt.src, Condition).Eval(tt.in)
		if err == nil || Inapplicable(err) != tt.want {
			t.Errorf("%s: error %v, Inapplicable = %v, want %v", tt.src, err, Inapplicable(err), tt.want)
		}
	}
	if Inapplicable(errors.New("policy: nil Input")) {
		t.Error("an error that is not an evaluation error is Inapplicable")
	}
}
