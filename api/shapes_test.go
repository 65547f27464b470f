package api

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// typesFile is @turnkey/http's generated description of every request, intent and result, as the conformance tests
// install it.
var typesFile = filepath.Join("..", "tests", "compat", "node_modules", "@turnkey", "http", "dist", "__generated__",
	"services", "coordinator", "public", "v1", "public_api.types.d.ts")

// tsFields reads the fields of one definition of the types file: name to optional (a "?" before the colon).
func tsFields(t *testing.T, src, definition string) map[string]bool {
	t.Helper()
	start := strings.Index(src, "\n    "+definition+": {\n")
	if start < 0 {
		t.Fatalf("%s is not defined in @turnkey/http's types", definition)
	}
	body := src[start+len(definition)+8:]
	body = body[:strings.Index(body, "\n    };")]
	fields := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^        ([A-Za-z0-9_]+)(\??):`).FindAllStringSubmatch(body, -1) {
		fields[m[1]] = m[2] == "?"
	}
	return fields
}

// goFields reads a struct's JSON fields: name to optional (omitempty or omitzero).
func goFields(v any) map[string]bool {
	fields := map[string]bool{}
	rt := reflect.TypeOf(v)
	for i := range rt.NumField() {
		tag := rt.Field(i).Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		fields[name] = strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero")
	}
	return fields
}

// The types of the legacy logins, e-mail recovery, invitations and MFA policies have exactly the fields of
// @turnkey/http's, each required or optional as there.
func TestShapesMatchTurnkeyHTTP(t *testing.T) {
	raw, err := os.ReadFile(typesFile)
	if err != nil {
		if os.Getenv("SIGIL_REQUIRE_SDKS") != "" {
			t.Fatal(err)
		}
		t.Skipf("@turnkey/http is not installed (run npm ci in tests/compat): %v", err)
	}
	src := string(raw)
	for definition, v := range map[string]any{
		"v1EmailAuthIntent": EmailAuthIntent{}, "v1EmailAuthIntentV2": EmailAuthIntentV2{}, "v1EmailAuthIntentV3": EmailAuthIntentV3{},
		"v1EmailAuthCustomizationParams": EmailAuthCustomizationParams{}, "v1EmailAuthResult": EmailAuthResult{},
		"v1InitOtpAuthIntent": InitOtpAuthIntent{}, "v1InitOtpAuthIntentV2": InitOtpAuthIntentV2{}, "v1InitOtpAuthIntentV3": InitOtpAuthIntentV3{},
		"v1InitOtpAuthResult": InitOtpAuthResult{}, "v1InitOtpAuthResultV2": InitOtpAuthResultV2{},
		"v1OtpAuthIntent": OtpAuthIntent{}, "v1OtpAuthResult": OtpAuthResult{}, "v1OauthIntent": OauthIntent{}, "v1OauthResult": OauthResult{},
		"v1InitUserEmailRecoveryIntent": InitUserEmailRecoveryIntent{}, "v1InitUserEmailRecoveryIntentV2": InitUserEmailRecoveryIntentV2{},
		"v1InitUserEmailRecoveryResult": InitUserEmailRecoveryResult{}, "v1RecoverUserIntent": RecoverUserIntent{}, "v1RecoverUserResult": RecoverUserResult{},
		"v1CreateInvitationsIntent": CreateInvitationsIntent{}, "v1InvitationParams": InvitationParams{}, "v1CreateInvitationsResult": CreateInvitationsResult{},
		"v1DeleteInvitationIntent": DeleteInvitationIntent{}, "v1DeleteInvitationResult": DeleteInvitationResult{}, "v1Invitation": Invitation{},
		"v1CreateMfaPolicyIntent": CreateMfaPolicyIntent{}, "v1UpdateMfaPolicyIntent": UpdateMfaPolicyIntent{}, "v1DeleteMfaPolicyIntent": DeleteMfaPolicyIntent{},
		"v1CreateMfaPolicyResult": MfaPolicyResult{}, "v1UpdateMfaPolicyResult": MfaPolicyResult{}, "v1DeleteMfaPolicyResult": MfaPolicyResult{},
		"v1MfaPolicy": MfaPolicy{}, "v1RequiredAuthenticationMethod": RequiredAuthenticationMethod{}, "v1AuthenticationMethod": AuthenticationMethod{},
		"v1GetMfaPolicyRequest": GetMfaPolicyRequest{}, "v1GetMfaPolicyResponse": GetMfaPolicyResponse{},
		"v1GetMfaPoliciesRequest": GetMfaPoliciesRequest{}, "v1GetMfaPoliciesResponse": GetMfaPoliciesResponse{},
		"v1GetMfaStatusRequest": GetMfaStatusRequest{}, "v1GetMfaStatusResponse": GetMfaStatusResponse{}, "v1MfaStatus": MfaStatus{},
	} {
		want, got := tsFields(t, src, definition), goFields(v)
		names := func(m map[string]bool) []string {
			var out []string
			for k, optional := range m {
				if optional {
					k += "?"
				}
				out = append(out, k)
			}
			slices.Sort(out)
			return out
		}
		if !reflect.DeepEqual(want, got) {
			t.Errorf("%s: @turnkey/http has %v, %T has %v", definition, names(want), v, names(got))
		}
	}
}
