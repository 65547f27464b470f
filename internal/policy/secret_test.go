package policy

import "testing"

// The conditions Turnkey's Secrets pages write over secret.static_properties (tkhq/turnkey-agent-skills: the agent
// export policies, agents-export-unilateral and agents-export-with-approval; the managing-secrets scope policy; and
// tkhq/sdk's secrets examples, api-key-storage and programmable-credential-access), on the secrets they mean and on the
// ones they must not match.
func TestSecretConditions(t *testing.T) {
	t.Parallel()
	export := func(props map[string]string) *Input {
		return &Input{Activity: activity(t, "ACTIVITY_TYPE_EXPORT_SECRETS", nil), Approvers: []User{user(alice)},
			Secret: &Secret{ID: "5b0c3f3e-0000-4000-8000-0000000000s1", Name: "ops/TOKEN", StaticProperties: props}}
	}
	unilateral := "activity.type == 'ACTIVITY_TYPE_EXPORT_SECRETS' && secret.static_properties['consensus'] == 'unilateral'"
	scoped := "activity.resource == 'SECRET' && activity.action == 'EXPORT' && secret.static_properties['scope'] == 'demo-agent'"
	trading := "secret.static_properties['kind'] == 'exchangeApiKey' && secret.static_properties['permissions'] == 'trade' && " +
		"activity.type == 'ACTIVITY_TYPE_EXPORT_SECRETS'"
	card := "secret.static_properties['requiresConsensus'] == 'true' && secret.static_properties['kind'] == 'creditCard' && " +
		"activity.type == 'ACTIVITY_TYPE_EXPORT_SECRETS'"
	runEvalCases(t, []evalCase{
		{"unilateral", Condition, unilateral, export(map[string]string{"consensus": "unilateral"}), true, ""},
		{"unilateral, another level", Condition, unilateral, export(map[string]string{"consensus": "approval"}), false, ""},
		{"unilateral, no such property", Condition, unilateral, export(map[string]string{"scope": "ops"}), false, Absent},
		{"scoped", Condition, scoped, export(map[string]string{"scope": "demo-agent"}), true, ""},
		{"scoped, another scope", Condition, scoped, export(map[string]string{"scope": "billing"}), false, ""},
		{"trading key", Condition, trading, export(map[string]string{"kind": "exchangeApiKey", "permissions": "trade", "environment": "production"}), true, ""},
		{"withdrawal key", Condition, trading, export(map[string]string{"kind": "exchangeApiKey", "permissions": "withdraw"}), false, ""},
		{"card", Condition, card, export(map[string]string{"kind": "creditCard", "requiresConsensus": "true"}), true, ""},
		{"by id", Condition, "secret.id == '5b0c3f3e-0000-4000-8000-0000000000s1'", export(nil), true, ""},
		{"by name", Condition, "secret.name == 'ops/TOKEN'", export(nil), true, ""},
		{"not a secret's activity", Condition, unilateral,
			&Input{Activity: activity(t, "ACTIVITY_TYPE_EXPORT_WALLET", map[string]any{"target_public_key": "04"})}, false, NotApplicable},
	})
}
