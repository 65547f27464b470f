package policy

import "testing"

// testFacts are the facts of the activity types these tests decide on, as the coordinator's list gives them.
var testFacts = map[string]Activity{
	"ACTIVITY_TYPE_APPROVE_ACTIVITY":      {Kind: "APPROVE_ACTIVITY", Resource: "ORGANIZATION", Action: "UPDATE"},
	"ACTIVITY_TYPE_CREATE_API_KEYS_V2":    {Kind: "CREATE_API_KEYS", Resource: "CREDENTIAL", Action: "CREATE"},
	"ACTIVITY_TYPE_DELETE_API_KEYS":       {Kind: "DELETE_API_KEYS", Resource: "CREDENTIAL", Action: "DELETE"},
	"ACTIVITY_TYPE_CREATE_POLICY_V3":      {Kind: "CREATE_POLICY", Resource: "POLICY", Action: "CREATE"},
	"ACTIVITY_TYPE_CREATE_USERS_V4":       {Kind: "CREATE_USERS", Resource: "USER", Action: "CREATE"},
	"ACTIVITY_TYPE_CREATE_WALLET":         {Kind: "CREATE_WALLET", Resource: "WALLET", Action: "CREATE"},
	"ACTIVITY_TYPE_DELETE_USERS":          {Kind: "DELETE_USERS", Resource: "USER", Action: "DELETE"},
	"ACTIVITY_TYPE_DELETE_WALLETS":        {Kind: "DELETE_WALLETS", Resource: "WALLET", Action: "DELETE"},
	"ACTIVITY_TYPE_EXPORT_WALLET_ACCOUNT": {Kind: "EXPORT_WALLET_ACCOUNT", Resource: "WALLET", Action: "EXPORT"},
	"ACTIVITY_TYPE_INIT_OTP":              {Kind: "INIT_OTP", Resource: "OTP", Action: "CREATE"},
	"ACTIVITY_TYPE_INIT_OTP_V3":           {Kind: "INIT_OTP", Resource: "OTP", Action: "CREATE"},
	"ACTIVITY_TYPE_OTP_LOGIN_V2":          {Kind: "OTP_LOGIN", Resource: "AUTH", Action: "CREATE"},
	"ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2":   {Kind: "SIGN_RAW_PAYLOAD", Resource: "PRIVATE_KEY", Action: "SIGN"},
	"ACTIVITY_TYPE_SIGN_TRANSACTION_V2":   {Kind: "SIGN_TRANSACTION", Resource: "PRIVATE_KEY", Action: "SIGN"},
	"ACTIVITY_TYPE_UPDATE_ROOT_QUORUM":    {Resource: "ORGANIZATION", Action: "UPDATE"}, // root-only: no kind
}

// factsOf is the activity with the facts of its type and the given parameters.
func factsOf(t testing.TB, activityType string, params map[string]any) Activity {
	t.Helper()
	a, ok := testFacts[activityType]
	if !ok {
		t.Fatalf("no test facts for activity type %s", activityType)
	}
	a.Type, a.Params = activityType, params
	return a
}
