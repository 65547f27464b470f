package policy

import "testing"

func TestNames(t *testing.T) {
	passkey := []Credential{{ID: "c1", UserID: alice, Type: "CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR"}}
	apiKey := []Credential{{ID: "c2", UserID: alice, Type: "CREDENTIAL_TYPE_API_KEY_P256"}}
	perTag := "approvers.filter(u, u.tags.contains('" + tagSec + "')).count() >= 1 && approvers.filter(u, u.tags.contains('" + tagOps + "')).count() >= 2"
	tests := []struct {
		consensus string
		voter     User
		creds     []Credential
		want      bool
	}{
		{"approvers.any(user, user.id == '" + alice + "')", user(alice), apiKey, true},
		{"approvers.any(user, user.id == '" + alice + "')", user(bob), apiKey, false},
		{"approvers.any(user, user.tags.contains('" + tagSec + "'))", user(bob, tagSec), nil, true},
		{"approvers.any(user, user.tags.contains('" + tagSec + "'))", user(bob, tagOps), nil, false},
		{perTag, user(bob, tagSec), nil, true},
		{perTag, user(bob, tagOps), nil, true},
		{perTag, user(bob), nil, false},
		{"approvers.count() >= 2", user(bob), nil, true},
		{"credentials.any(c, c.type == 'CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR')", user(alice), passkey, true},
		{"credentials.any(c, c.type == 'CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR')", user(alice), apiKey, false},
		{"approvers.all(u, credentials.any(c, c.user_id == u.id))", user(alice), apiKey, true},
		{"approvers.all(u, credentials.any(c, c.user_id == u.id))", user(bob), apiKey, false},
		{"!approvers.any(u, u.id == '" + bob + "')", user(bob), nil, true},
		{"true", user(bob), nil, false},
	}
	for _, tt := range tests {
		e := mustCompile(t, tt.consensus, Consensus)
		if got := e.Names(tt.voter, tt.creds); got != tt.want {
			t.Errorf("%q names %s: %v, want %v", tt.consensus, tt.voter.ID, got, tt.want)
		}
	}
	if mustCompile(t, "activity.type == 'x'", Condition).Names(user(alice), nil) {
		t.Error("a condition names voters")
	}
}

func TestCanVote(t *testing.T) {
	req := &Request{
		RootQuorum: RootQuorum{UserIDs: []string{carol}, Threshold: 2},
		Input:      input(t, "ACTIVITY_TYPE_CREATE_POLICY_V3", user(alice, tagOps)),
		Policies: []Policy{
			pol(t, "two-admins", EffectAllow, "activity.resource == 'POLICY'", "approvers.filter(u, u.tags.contains('"+tagOps+"')).count() >= 2"),
			pol(t, "wallets-by-bob", EffectAllow, "activity.resource == 'WALLET'", "approvers.any(u, u.id == '"+bob+"')"),
			pol(t, "deny-names-dave", EffectDeny, "true", "approvers.any(u, u.id == 'dave')"),
		},
	}
	tests := []struct {
		voter User
		want  bool
	}{
		{user(carol), true},       // root user
		{user(bob, tagOps), true}, // tagged, counts toward two-admins
		{user(bob), false},        // wallets-by-bob does not apply to a policy creation
		{user("dave"), false},     // named only by a DENY
		{User{}, false},
	}
	for _, tt := range tests {
		if got := CanVote(req, tt.voter, nil); got != tt.want {
			t.Errorf("CanVote(%q) = %v, want %v", tt.voter.ID, got, tt.want)
		}
	}
	open := &Request{Input: input(t, "ACTIVITY_TYPE_CREATE_WALLET"), Policies: []Policy{pol(t, "open", EffectAllow, "activity.resource == 'WALLET'", "")}}
	if !CanVote(open, user("anyone"), nil) {
		t.Error("an applicable ALLOW without consensus should let anyone vote")
	}
	if CanVote(&Request{}, user("anyone"), nil) {
		t.Error("no policies, no root quorum: nobody may vote")
	}
}
