package policy

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/ACTIVITIES.md from the activity table")

// activitiesDoc is where the table is published.
const activitiesDoc = "../docs/ACTIVITIES.md"

// sigilTypes are the activity types Sigil implements; each must be in the table.
var sigilTypes = strings.Fields(`CREATE_USERS_V3 CREATE_USERS_V4 DELETE_USERS UPDATE_USER UPDATE_USER_NAME
	UPDATE_USER_EMAIL UPDATE_USER_PHONE_NUMBER CREATE_USER_TAG UPDATE_USER_TAG DELETE_USER_TAGS CREATE_API_KEYS_V2
	DELETE_API_KEYS CREATE_AUTHENTICATORS_V2 DELETE_AUTHENTICATORS CREATE_SUB_ORGANIZATION_V7 CREATE_SUB_ORGANIZATION_V8
	DELETE_SUB_ORGANIZATION UPDATE_ROOT_QUORUM UPDATE_ORGANIZATION_NAME CREATE_POLICY_V3 CREATE_POLICIES
	UPDATE_POLICY_V2 DELETE_POLICY DELETE_POLICIES APPROVE_ACTIVITY REJECT_ACTIVITY CREATE_WALLET
	CREATE_WALLET_ACCOUNTS UPDATE_WALLET DELETE_WALLETS CREATE_PRIVATE_KEYS_V2 DELETE_PRIVATE_KEYS EXPORT_WALLET
	EXPORT_WALLET_ACCOUNT EXPORT_PRIVATE_KEY INIT_IMPORT_WALLET IMPORT_WALLET INIT_IMPORT_PRIVATE_KEY IMPORT_PRIVATE_KEY
	SIGN_TRANSACTION_V2 SIGN_RAW_PAYLOAD_V2 SIGN_RAW_PAYLOADS INIT_OTP INIT_OTP_V2 INIT_OTP_V3 VERIFY_OTP VERIFY_OTP_V2
	OTP_LOGIN OTP_LOGIN_V2 STAMP_LOGIN OAUTH_LOGIN OAUTH2_AUTHENTICATE CREATE_OAUTH_PROVIDERS_V2
	DELETE_OAUTH_PROVIDERS CREATE_OAUTH2_CREDENTIAL UPDATE_OAUTH2_CREDENTIAL DELETE_OAUTH2_CREDENTIAL
	ENABLE_AUTH_PROXY UPDATE_AUTH_PROXY_CONFIG ROTATE_AUTH_PROXY_KEY DISABLE_AUTH_PROXY`)

func TestActivityTable(t *testing.T) {
	for _, name := range sigilTypes {
		if _, ok := ActivityInfo(typePrefix + name); !ok {
			t.Errorf("%s is missing", name)
		}
	}
	if len(Activities()) != len(sigilTypes)+2 { // plus the two organization-feature types
		t.Errorf("table has %d types, want %d", len(Activities()), len(sigilTypes)+2)
	}
	tests := []struct {
		typ, resource, action, kind string
		rootOnly                    bool
		params                      string
	}{
		{"CREATE_POLICY_V3", "POLICY", "CREATE", "CREATE_POLICY", false, ""},
		{"SIGN_TRANSACTION_V2", "PRIVATE_KEY", "SIGN", "SIGN_TRANSACTION", false, "type:string"},
		{"SIGN_RAW_PAYLOADS", "PRIVATE_KEY", "SIGN", "SIGN_RAW_PAYLOADS", false, "hash_function:string encoding:string"},
		{"DELETE_API_KEYS", "CREDENTIAL", "DELETE", "DELETE_API_KEYS", false, "user_id:string api_key_ids:list<string>"},
		{"DELETE_USERS", "USER", "DELETE", "DELETE_USERS", false, "user_ids:list<string>"},
		{"INIT_OTP_V3", "OTP", "CREATE", "INIT_OTP", false, "otp_length:int"},
		{"OAUTH2_AUTHENTICATE", "AUTH", "VERIFY", "OAUTH2_AUTHENTICATE", false, ""},
		{"CREATE_OAUTH_PROVIDERS_V2", "CREDENTIAL", "CREATE", "CREATE_OAUTH_PROVIDERS", false, ""},
		{"UPDATE_ROOT_QUORUM", "ORGANIZATION", "UPDATE", "", true, ""},
		{"UPDATE_ORGANIZATION_NAME", "ORGANIZATION", "UPDATE", "", true, ""},
		{"SET_ORGANIZATION_FEATURE", "ORGANIZATION", "UPDATE", "", true, ""},
		{"REMOVE_ORGANIZATION_FEATURE", "ORGANIZATION", "DELETE", "", true, ""},
	}
	for _, tt := range tests {
		info, ok := ActivityInfo(typePrefix + tt.typ)
		var params []string
		for _, p := range info.Params {
			params = append(params, p.Name+":"+p.Type)
		}
		if !ok || info.Resource != tt.resource || info.Action != tt.action || info.Kind != tt.kind ||
			info.RootOnly != tt.rootOnly || strings.Join(params, " ") != tt.params || IsRootOnly(info.Type) != tt.rootOnly {
			t.Errorf("%s = %+v", tt.typ, info)
		}
	}
	if _, ok := ActivityInfo("ACTIVITY_TYPE_NOPE"); ok {
		t.Error("unknown type found")
	}
	info, _ := ActivityInfo("ACTIVITY_TYPE_DELETE_API_KEYS")
	info.Params[0].Name = "changed"
	if again, _ := ActivityInfo("ACTIVITY_TYPE_DELETE_API_KEYS"); again.Params[0].Name != "user_id" {
		t.Error("ActivityInfo exposes the table to changes")
	}
	for _, info := range Activities() {
		for _, p := range info.Params {
			if f := tParams.st.fields[p.Name]; f == nil || f.typ.String() != p.Type {
				t.Errorf("%s: parameter %s is not in the activity.params schema as %s", info.Type, p.Name, p.Type)
			}
		}
	}
}

func TestKindOf(t *testing.T) {
	for in, want := range map[string]string{
		"CREATE_POLICY_V3": "CREATE_POLICY", "CREATE_POLICY": "CREATE_POLICY", "OAUTH2_AUTHENTICATE": "OAUTH2_AUTHENTICATE",
		"INIT_OTP_V12": "INIT_OTP", "X_V": "X_V", "X_VA": "X_VA",
	} {
		if got := kindOf(in); got != want {
			t.Errorf("kindOf(%s) = %s, want %s", in, got, want)
		}
	}
}

// renderActivities writes the table as Markdown, the source of ACTIVITIES.md.
func renderActivities() string {
	var b strings.Builder
	b.WriteString("# Activity types for policies\n\n")
	b.WriteString("What `activity.type`, `activity.kind`, `activity.resource`, `activity.action` and `activity.params` read for\n")
	b.WriteString("each activity type Sigil implements (all types carry the prefix `ACTIVITY_TYPE_`). Generated from\n")
	b.WriteString("`policy.Activities()` by `go test ./policy -run TestActivitiesMarkdown -update`; do not edit by hand.\n\n")
	b.WriteString("- `kind` is the type without the `_Vn` version suffix. Root-only activities have no kind and no policy can grant\n")
	b.WriteString("  them: only the root quorum performs them.\n")
	b.WriteString("- Reading a parameter the activity does not list is the evaluation error `MissingField`.\n")
	b.WriteString("- Signing activities have resource `PRIVATE_KEY` and action `SIGN`, even when signing with a wallet.\n")
	b.WriteString("- Resources and actions follow the reference where it names them (signing, policies, users, API keys, OTP);\n")
	b.WriteString("  the others (votes, OAuth 2.0 credentials, auth proxy, user tags) are Sigil's choice.\n")
	b.WriteString("- `SET_ORGANIZATION_FEATURE` and `REMOVE_ORGANIZATION_FEATURE` are listed so that the root-only rule covers them;\n")
	b.WriteString("  Sigil does not implement them.\n\n")
	b.WriteString("| type | resource | action | kind | root-only | params |\n|---|---|---|---|---|---|\n")
	for _, info := range Activities() {
		var params []string
		for _, p := range info.Params {
			params = append(params, fmt.Sprintf("`%s` (%s)", p.Name, p.Type))
		}
		kind, root := "`"+info.Kind+"`", ""
		if info.Kind == "" {
			kind = "—"
		}
		if info.RootOnly {
			root = "yes"
		}
		fmt.Fprintf(&b, "| `%s` | `%s` | `%s` | %s | %s | %s |\n", strings.TrimPrefix(info.Type, typePrefix),
			info.Resource, info.Action, kind, root, strings.Join(params, ", "))
	}
	return b.String()
}

func TestActivitiesMarkdown(t *testing.T) {
	want := renderActivities()
	if *update {
		if err := os.WriteFile(activitiesDoc, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(activitiesDoc)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Error("ACTIVITIES.md is out of date; run go test ./policy -run TestActivitiesMarkdown -update")
	}
}
