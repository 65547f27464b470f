package coordinator

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/internal/policy"
)

var update = flag.Bool("update", false, "rewrite docs/ACTIVITIES.md from the list of operations")

// activitiesDoc is where the list is published for policy authors.
const activitiesDoc = "../../docs/ACTIVITIES.md"

func TestOperationFacts(t *testing.T) {
	t.Parallel()
	r := newRegistry()
	tests := []struct {
		typ, resource, action, kind string
		rootOnly, byParent, signs   bool
		params                      string
	}{
		{"CREATE_POLICY_V3", "POLICY", "CREATE", "CREATE_POLICY", false, false, false, ""},
		{"SIGN_TRANSACTION_V2", "PRIVATE_KEY", "SIGN", "SIGN_TRANSACTION", false, false, true, "type:string"},
		{"SIGN_RAW_PAYLOADS", "PRIVATE_KEY", "SIGN", "SIGN_RAW_PAYLOADS", false, false, true, "hash_function:string encoding:string"},
		{"DELETE_API_KEYS", "CREDENTIAL", "DELETE", "DELETE_API_KEYS", false, false, false, "user_id:string api_key_ids:list<string>"},
		{"DELETE_USERS", "USER", "DELETE", "DELETE_USERS", false, false, false, "user_ids:list<string>"},
		{"INIT_OTP_V3", "OTP", "CREATE", "INIT_OTP", false, true, false, "otp_length:int"},
		{"OTP_LOGIN_V2", "AUTH", "CREATE", "OTP_LOGIN", false, true, false, "session_profile_id:string"},
		{"OAUTH2_AUTHENTICATE", "AUTH", "VERIFY", "OAUTH2_AUTHENTICATE", false, false, false, ""},
		{"CREATE_OAUTH_PROVIDERS_V2", "CREDENTIAL", "CREATE", "CREATE_OAUTH_PROVIDERS", false, false, false, ""},
		{"UPDATE_ROOT_QUORUM", "ORGANIZATION", "UPDATE", "", true, false, false, ""},
		{"UPDATE_ORGANIZATION_NAME", "ORGANIZATION", "UPDATE", "", true, false, false, ""},
	}
	for _, tt := range tests {
		op, ok := r.activity("ACTIVITY_TYPE_" + tt.typ)
		if !ok {
			t.Errorf("%s is not listed", tt.typ)
			continue
		}
		i := op.info()
		var params []string
		for _, p := range i.Params {
			params = append(params, p.Name+":"+p.Type)
		}
		got := fmt.Sprintf("%s %s %q root=%t parent=%t signs=%t [%s]", i.Resource, i.Action, i.Kind(), i.RootOnly, i.ByParent, i.Signs, strings.Join(params, " "))
		want := fmt.Sprintf("%s %s %q root=%t parent=%t signs=%t [%s]", tt.resource, tt.action, tt.kind, tt.rootOnly, tt.byParent, tt.signs, tt.params)
		if got != want {
			t.Errorf("%s: got %s, want %s", tt.typ, got, want)
		}
	}
	if _, ok := r.activity("ACTIVITY_TYPE_NOPE"); ok {
		t.Error("an unknown activity type was found")
	}
	if info := r.info("ACTIVITY_TYPE_GONE"); !info.RootOnly || info.IntentKey == "" {
		t.Errorf("an activity type no longer listed is described as %+v, want root-only with generic keys", info)
	}
}

// Every activity type's wire names agree with one another, and every parameter it exposes to policies is one the
// policy language knows (newRegistry refuses the others; this says which).
func TestOperationsAreConsistent(t *testing.T) {
	t.Parallel()
	known := map[string]string{}
	for _, p := range policy.Params {
		known[p.Name] = p.Type
	}
	paths := map[string]bool{}
	for _, op := range Operations() {
		if op.Query {
			if paths["q:"+op.Path] {
				t.Errorf("query %s is listed twice", op.Path)
			}
			paths["q:"+op.Path] = true
			continue
		}
		name := strings.TrimPrefix(op.Type, "ACTIVITY_TYPE_")
		if !strings.HasPrefix(op.Type, "ACTIVITY_TYPE_") || op.Path == "" || op.IntentKey == "" || op.ResultKey == "" {
			t.Errorf("%s: incomplete wire contract %+v", name, op.ActivitySpec)
		}
		for _, p := range op.Params {
			if known[p.Name] != p.Type {
				t.Errorf("%s exposes activity.params.%s as %s; the policy language knows it as %q", name, p.Name, p.Type, known[p.Name])
			}
		}
		if op.NewParams() == nil {
			t.Errorf("%s: NewParams returned nothing", name)
		}
	}
}

// renderActivities writes the list as Markdown, the source of ACTIVITIES.md.
func renderActivities() string {
	var b strings.Builder
	b.WriteString("# Activity types for policies\n\n")
	b.WriteString("What `activity.type`, `activity.kind`, `activity.resource`, `activity.action` and `activity.params` read for\n")
	b.WriteString("each activity type Sigil implements (all types carry the prefix `ACTIVITY_TYPE_`), and where each is submitted.\n")
	b.WriteString("Generated from the coordinator's list of operations (`internal/coordinator/operations.go`) by\n")
	b.WriteString("`go test ./internal/coordinator -run TestActivitiesDoc -update`; do not edit by hand.\n\n")
	b.WriteString("- `kind` is the type without the `_Vn` version suffix. Root-only activities have no kind and no policy can grant\n")
	b.WriteString("  them: only the root quorum performs them.\n")
	b.WriteString("- Reading a parameter the activity does not list is the evaluation error `MissingField`: a policy whose\n")
	b.WriteString("  condition fails only so does not apply to the activity (docs/API.md, \"Policies that cannot be evaluated\").\n")
	b.WriteString("- Signing activities have resource `PRIVATE_KEY` and action `SIGN`, even when signing with a wallet.\n")
	b.WriteString("- Resources and actions follow the reference where it names them (signing, policies, users, API keys, OTP);\n")
	b.WriteString("  the others (votes, OAuth 2.0 credentials, auth proxy, user tags) are Sigil's choice.\n")
	b.WriteString("- *by parent*: a credential of the parent organization may submit it in a direct sub-organization (the logins the\n")
	b.WriteString("  auth proxy sends); any other activity must come from the sub-organization's own users.\n\n")
	b.WriteString("| type | path | resource | action | kind | root-only | by parent | params |\n|---|---|---|---|---|---|---|---|\n")
	for _, op := range Operations() {
		if op.Query {
			continue
		}
		var params []string
		for _, p := range op.Params {
			params = append(params, fmt.Sprintf("`%s` (%s)", p.Name, p.Type))
		}
		kind, root, parent := "`"+op.Kind+"`", "", ""
		if op.Kind == "" {
			kind = "—"
		}
		if op.RootOnly {
			root = "yes"
		}
		if op.ByParent {
			parent = "yes"
		}
		fmt.Fprintf(&b, "| `%s` | `%s` | `%s` | `%s` | %s | %s | %s | %s |\n", strings.TrimPrefix(op.Type, "ACTIVITY_TYPE_"),
			op.Path, op.Resource, op.Action, kind, root, parent, strings.Join(params, ", "))
	}
	b.WriteString("\n## Queries\n\nEach under `/public/v1/query/`:")
	for _, op := range Operations() {
		if op.Query {
			fmt.Fprintf(&b, " `%s`", op.Path)
		}
	}
	b.WriteString(".\n")
	b.WriteString("\n## Not implemented\n\n")
	b.WriteString("The paths of `@turnkey/http` 6.6.0 that Sigil does not serve, by family (`api/unimplemented.go`). Each answers\n")
	b.WriteString("`UNIMPLEMENTED` (code 12, HTTP 501) with its family and the reason, before any authentication, as an unknown\n")
	b.WriteString("route answers.\n")
	for _, f := range api.Unimplemented {
		fmt.Fprintf(&b, "\n- **%s**: %s.", f.Name, f.Why)
		if len(f.Submit) > 0 {
			fmt.Fprintf(&b, " Submit: `%s`.", strings.Join(f.Submit, "`, `"))
		}
		if len(f.Query) > 0 {
			fmt.Fprintf(&b, " Query: `%s`.", strings.Join(f.Query, "`, `"))
		}
	}
	b.WriteString("\n")
	return b.String()
}

// sdkTypes is @turnkey/http's generated description of every path, as the conformance tests install it.
const sdkTypes = "../../tests/compat/node_modules/@turnkey/http/dist/__generated__/services/coordinator/public/v1/public_api.types.d.ts"

// Every path of the official SDK is either served or answered as not implemented, never both, and nothing is listed as
// not implemented that the SDK does not have: the list stays true as the SDK moves.
func TestEverySDKPathIsServedOrUnimplemented(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(sdkTypes)
	if err != nil {
		if os.Getenv("SIGIL_REQUIRE_SDKS") != "" {
			t.Fatal(err)
		}
		t.Skipf("@turnkey/http is not installed (run npm ci in tests/compat): %v", err)
	}
	served := map[string]bool{}
	for _, op := range Operations() {
		served[map[bool]string{false: "submit/", true: "query/"}[op.Query]+op.Path] = true
	}
	listed := map[string]bool{}
	for _, f := range api.Unimplemented {
		for _, p := range f.Submit {
			listed["submit/"+p] = true
		}
		for _, p := range f.Query {
			listed["query/"+p] = true
		}
	}
	inSDK := map[string]bool{}
	for _, m := range regexp.MustCompile(`"/public/v1/((?:submit|query)/[a-z0-9_]+)"`).FindAllStringSubmatch(string(raw), -1) {
		inSDK[m[1]] = true
	}
	if len(inSDK) < 100 {
		t.Fatalf("read only %d paths from %s", len(inSDK), sdkTypes)
	}
	for p := range inSDK {
		if served[p] == listed[p] {
			t.Errorf("/public/v1/%s: served %v, listed as not implemented %v; want exactly one", p, served[p], listed[p])
		}
	}
	for p := range listed {
		if !inSDK[p] {
			t.Errorf("/public/v1/%s is listed as not implemented but @turnkey/http has no such path", p)
		}
	}
}

func TestActivitiesDoc(t *testing.T) {
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
		t.Error("docs/ACTIVITIES.md is out of date; run go test ./internal/coordinator -run TestActivitiesDoc -update")
	}
}
