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

	"ACTIVITY_TYPE_CREATE_POLICIES":              {Kind: "CREATE_POLICIES", Resource: "POLICY", Action: "CREATE"},
	"ACTIVITY_TYPE_UPDATE_POLICY_V2":             {Kind: "UPDATE_POLICY", Resource: "POLICY", Action: "UPDATE"},
	"ACTIVITY_TYPE_DELETE_POLICY":                {Kind: "DELETE_POLICY", Resource: "POLICY", Action: "DELETE"},
	"ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8":   {Kind: "CREATE_SUB_ORGANIZATION", Resource: "ORGANIZATION", Action: "CREATE"},
	"ACTIVITY_TYPE_VERIFY_OTP_V2":                {Kind: "VERIFY_OTP", Resource: "OTP", Action: "VERIFY"},
	"ACTIVITY_TYPE_STAMP_LOGIN":                  {Kind: "STAMP_LOGIN", Resource: "AUTH", Action: "CREATE"},
	"ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2": {Kind: "CREATE_READ_WRITE_SESSION", Resource: "AUTH", Action: "CREATE"},
	"ACTIVITY_TYPE_CREATE_READ_ONLY_SESSION":     {Kind: "CREATE_READ_ONLY_SESSION", Resource: "AUTH", Action: "CREATE"},
	"ACTIVITY_TYPE_EXPORT_WALLET":                {Kind: "EXPORT_WALLET", Resource: "WALLET", Action: "EXPORT"},
	"ACTIVITY_TYPE_EXPORT_PRIVATE_KEY":           {Kind: "EXPORT_PRIVATE_KEY", Resource: "PRIVATE_KEY", Action: "EXPORT"},
	"ACTIVITY_TYPE_EXPORT_SECRETS":               {Kind: "EXPORT_SECRETS", Resource: "SECRET", Action: "EXPORT"},
	"ACTIVITY_TYPE_IMPORT_SECRETS":               {Kind: "IMPORT_SECRETS", Resource: "SECRET", Action: "IMPORT"},

	// Types of the reference that Sigil does not implement, with the facts the reference's tables give them, for its
	// documentation's example policies that name them.
	"ACTIVITY_TYPE_ETH_SEND_TRANSACTION":    {Kind: "ETH_SEND_TRANSACTION", Resource: "PRIVATE_KEY", Action: "SIGN"},
	"ACTIVITY_TYPE_CREATE_MFA_POLICY":       {Kind: "CREATE_MFA_POLICY", Resource: "MFA_POLICY", Action: "CREATE"},
	"ACTIVITY_TYPE_DELETE_MFA_POLICY":       {Kind: "DELETE_MFA_POLICY", Resource: "MFA_POLICY", Action: "DELETE"},
	"ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT": {Kind: "CREATE_WEBHOOK_ENDPOINT", Resource: "WEBHOOK_ENDPOINT", Action: "CREATE"},
	"ACTIVITY_TYPE_UPDATE_WEBHOOK_ENDPOINT": {Kind: "UPDATE_WEBHOOK_ENDPOINT", Resource: "WEBHOOK_ENDPOINT", Action: "UPDATE"},
	"ACTIVITY_TYPE_DELETE_WEBHOOK_ENDPOINT": {Kind: "DELETE_WEBHOOK_ENDPOINT", Resource: "WEBHOOK_ENDPOINT", Action: "DELETE"},
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
