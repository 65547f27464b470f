package policy

import (
	"slices"
	"strings"
)

// Info describes one activity type for policies: what activity.resource,
// activity.action, activity.kind and activity.params read for it.
type Info struct {
	Type     string // ACTIVITY_TYPE_...
	Resource string
	Action   string
	// Kind is the type without the ACTIVITY_TYPE_ prefix and the _Vn suffix. Root-only
	// activities have none, as policies never govern them.
	Kind     string
	RootOnly bool // only the root quorum may perform it; no policy can grant it
	Params   []Param
}

// Param is one key of activity.params.
type Param struct {
	Name string
	Type string // "string", "int" or "list<string>"
}

const typePrefix = "ACTIVITY_TYPE_"

// Resources and actions of the reference, section 4.
const (
	resAuth         = "AUTH"
	resAuthProxy    = "AUTH_PROXY"
	resConfig       = "CONFIG"
	resCredential   = "CREDENTIAL"
	resOrganization = "ORGANIZATION"
	resOTP          = "OTP"
	resPolicy       = "POLICY"
	resPrivateKey   = "PRIVATE_KEY"
	resUser         = "USER"
	resWallet       = "WALLET"

	actCreate = "CREATE"
	actUpdate = "UPDATE"
	actDelete = "DELETE"
	actSign   = "SIGN"
	actExport = "EXPORT"
	actImport = "IMPORT"
	actVerify = "VERIFY"
)

var (
	pHashFunction    = Param{"hash_function", "string"}
	pEncoding        = Param{"encoding", "string"}
	pTxType          = Param{"type", "string"}
	pUserIDs         = Param{"user_ids", "list<string>"}
	pUserID          = Param{"user_id", "string"}
	pAPIKeyIDs       = Param{"api_key_ids", "list<string>"}
	pTargetPublicKey = Param{"target_public_key", "string"}
	pWalletID        = Param{"wallet_id", "string"}
	pOTPLength       = Param{"otp_length", "int"}
	pSessionProfile  = Param{"session_profile_id", "string"}
)

// activityTable lists every activity type Sigil implements, plus the root-only
// organization-feature types so the root-only rule is complete.
var activityTable = buildActivityTable([]Info{
	{Type: "CREATE_USERS_V3", Resource: resUser, Action: actCreate},
	{Type: "CREATE_USERS_V4", Resource: resUser, Action: actCreate},
	{Type: "DELETE_USERS", Resource: resUser, Action: actDelete, Params: []Param{pUserIDs}},
	{Type: "UPDATE_USER", Resource: resUser, Action: actUpdate},
	{Type: "UPDATE_USER_NAME", Resource: resUser, Action: actUpdate},
	{Type: "UPDATE_USER_EMAIL", Resource: resUser, Action: actUpdate},
	{Type: "UPDATE_USER_PHONE_NUMBER", Resource: resUser, Action: actUpdate},
	{Type: "CREATE_USER_TAG", Resource: resUser, Action: actCreate},
	{Type: "UPDATE_USER_TAG", Resource: resUser, Action: actUpdate},
	{Type: "DELETE_USER_TAGS", Resource: resUser, Action: actDelete},

	{Type: "CREATE_API_KEYS_V2", Resource: resCredential, Action: actCreate, Params: []Param{pUserID}},
	{Type: "DELETE_API_KEYS", Resource: resCredential, Action: actDelete, Params: []Param{pUserID, pAPIKeyIDs}},
	{Type: "CREATE_AUTHENTICATORS_V2", Resource: resCredential, Action: actCreate},
	{Type: "DELETE_AUTHENTICATORS", Resource: resCredential, Action: actDelete},
	{Type: "CREATE_OAUTH_PROVIDERS_V2", Resource: resCredential, Action: actCreate},
	{Type: "DELETE_OAUTH_PROVIDERS", Resource: resCredential, Action: actDelete},

	{Type: "CREATE_SUB_ORGANIZATION_V7", Resource: resOrganization, Action: actCreate},
	{Type: "CREATE_SUB_ORGANIZATION_V8", Resource: resOrganization, Action: actCreate},
	{Type: "DELETE_SUB_ORGANIZATION", Resource: resOrganization, Action: actDelete},
	{Type: "UPDATE_ROOT_QUORUM", Resource: resOrganization, Action: actUpdate, RootOnly: true},
	{Type: "UPDATE_ORGANIZATION_NAME", Resource: resOrganization, Action: actUpdate, RootOnly: true},
	{Type: "SET_ORGANIZATION_FEATURE", Resource: resOrganization, Action: actUpdate, RootOnly: true},
	{Type: "REMOVE_ORGANIZATION_FEATURE", Resource: resOrganization, Action: actDelete, RootOnly: true},

	{Type: "CREATE_POLICY_V3", Resource: resPolicy, Action: actCreate},
	{Type: "CREATE_POLICIES", Resource: resPolicy, Action: actCreate},
	{Type: "UPDATE_POLICY_V2", Resource: resPolicy, Action: actUpdate},
	{Type: "DELETE_POLICY", Resource: resPolicy, Action: actDelete},
	{Type: "DELETE_POLICIES", Resource: resPolicy, Action: actDelete},

	// A vote is a change to the organization's pending activity. Voting on an activity
	// whose consensus names the voter is an implicit permission (see Request).
	{Type: "APPROVE_ACTIVITY", Resource: resOrganization, Action: actUpdate},
	{Type: "REJECT_ACTIVITY", Resource: resOrganization, Action: actUpdate},

	{Type: "CREATE_WALLET", Resource: resWallet, Action: actCreate},
	{Type: "CREATE_WALLET_ACCOUNTS", Resource: resWallet, Action: actCreate},
	{Type: "UPDATE_WALLET", Resource: resWallet, Action: actUpdate, Params: []Param{pWalletID}},
	{Type: "DELETE_WALLETS", Resource: resWallet, Action: actDelete},
	{Type: "CREATE_PRIVATE_KEYS_V2", Resource: resPrivateKey, Action: actCreate},
	{Type: "DELETE_PRIVATE_KEYS", Resource: resPrivateKey, Action: actDelete},
	{Type: "EXPORT_WALLET", Resource: resWallet, Action: actExport, Params: []Param{pTargetPublicKey}},
	{Type: "EXPORT_WALLET_ACCOUNT", Resource: resWallet, Action: actExport, Params: []Param{pTargetPublicKey}},
	{Type: "EXPORT_PRIVATE_KEY", Resource: resPrivateKey, Action: actExport, Params: []Param{pTargetPublicKey}},
	{Type: "INIT_IMPORT_WALLET", Resource: resWallet, Action: actImport},
	{Type: "IMPORT_WALLET", Resource: resWallet, Action: actImport},
	{Type: "INIT_IMPORT_PRIVATE_KEY", Resource: resPrivateKey, Action: actImport},
	{Type: "IMPORT_PRIVATE_KEY", Resource: resPrivateKey, Action: actImport},

	// Every signing activity has resource PRIVATE_KEY and action SIGN, even with a wallet.
	{Type: "SIGN_TRANSACTION_V2", Resource: resPrivateKey, Action: actSign, Params: []Param{pTxType}},
	{Type: "SIGN_RAW_PAYLOAD_V2", Resource: resPrivateKey, Action: actSign, Params: []Param{pHashFunction, pEncoding}},
	{Type: "SIGN_RAW_PAYLOADS", Resource: resPrivateKey, Action: actSign, Params: []Param{pHashFunction, pEncoding}},

	{Type: "INIT_OTP", Resource: resOTP, Action: actCreate, Params: []Param{pOTPLength}},
	{Type: "INIT_OTP_V2", Resource: resOTP, Action: actCreate, Params: []Param{pOTPLength}},
	{Type: "INIT_OTP_V3", Resource: resOTP, Action: actCreate, Params: []Param{pOTPLength}},
	{Type: "VERIFY_OTP", Resource: resOTP, Action: actVerify},
	{Type: "VERIFY_OTP_V2", Resource: resOTP, Action: actVerify},
	{Type: "OTP_LOGIN", Resource: resAuth, Action: actCreate, Params: []Param{pSessionProfile}},
	{Type: "OTP_LOGIN_V2", Resource: resAuth, Action: actCreate, Params: []Param{pSessionProfile}},
	{Type: "STAMP_LOGIN", Resource: resAuth, Action: actCreate, Params: []Param{pSessionProfile}},
	{Type: "OAUTH_LOGIN", Resource: resAuth, Action: actCreate, Params: []Param{pSessionProfile}},
	{Type: "OAUTH2_AUTHENTICATE", Resource: resAuth, Action: actVerify},

	{Type: "CREATE_OAUTH2_CREDENTIAL", Resource: resConfig, Action: actCreate},
	{Type: "UPDATE_OAUTH2_CREDENTIAL", Resource: resConfig, Action: actUpdate},
	{Type: "DELETE_OAUTH2_CREDENTIAL", Resource: resConfig, Action: actDelete},

	{Type: "ENABLE_AUTH_PROXY", Resource: resAuthProxy, Action: actCreate},
	{Type: "UPDATE_AUTH_PROXY_CONFIG", Resource: resAuthProxy, Action: actUpdate},
	{Type: "ROTATE_AUTH_PROXY_KEY", Resource: resAuthProxy, Action: actUpdate},
	{Type: "DISABLE_AUTH_PROXY", Resource: resAuthProxy, Action: actDelete},
})

func buildActivityTable(infos []Info) map[string]Info {
	m := make(map[string]Info, len(infos))
	for _, info := range infos {
		if !info.RootOnly {
			info.Kind = kindOf(info.Type)
		}
		info.Type = typePrefix + info.Type
		if _, dup := m[info.Type]; dup {
			panic("policy: duplicate activity type " + info.Type)
		}
		m[info.Type] = info
	}
	return m
}

// kindOf drops the _Vn version suffix, so CREATE_POLICY_V3 has kind CREATE_POLICY.
func kindOf(t string) string {
	i := strings.LastIndex(t, "_V")
	if i < 0 || !isDigits(t[i+2:]) {
		return t
	}
	return t[:i]
}

// ActivityInfo returns the policy facts of an activity type (with its ACTIVITY_TYPE_
// prefix). The second result is false for a type Sigil does not know.
func ActivityInfo(activityType string) (Info, bool) {
	info, ok := activityTable[activityType]
	info.Params = slices.Clone(info.Params)
	return info, ok
}

// Activities returns the whole table, sorted by type.
func Activities() []Info {
	infos := make([]Info, 0, len(activityTable))
	for _, info := range activityTable {
		info.Params = slices.Clone(info.Params)
		infos = append(infos, info)
	}
	slices.SortFunc(infos, func(a, b Info) int { return strings.Compare(a.Type, b.Type) })
	return infos
}

// IsRootOnly reports whether policies can never grant the activity type.
func IsRootOnly(activityType string) bool { return activityTable[activityType].RootOnly }
