package authproxy_test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/authproxy"
	"github.com/sigil/sigil/internal/mutate"
	"github.com/sigil/sigil/internal/testdb"
)

// Every proxy endpoint, sent a body with one field (at any depth) missing, null, of another JSON type, or a hostile
// string, from an allowed origin: each is answered in the documented error shape with a client error, never a
// server error, or carried out.
func TestEveryEndpointRefusesBadFields(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testdb.SQLite(t), authproxy.Config{ConfigRate: -1})
	ten := e.tenant("Acme", api.UpdateAuthProxyConfigIntent{AllowedOrigins: []string{origin}})
	header := map[string]string{"Origin": origin, "X-Auth-Proxy-Config-ID": ten.configID}
	// Bodies with every field set, and for the OTP and look-up endpoints realistic ones, that reach further.
	bodies := map[string]any{
		"otp_init":            mutate.Fill(reflect.TypeFor[api.ProxyInitOtpRequest]()),
		"otp_init_v2":         map[string]any{"otpType": "OTP_TYPE_EMAIL", "contact": "ada@sigil.test"},
		"otp_verify":          mutate.Fill(reflect.TypeFor[api.ProxyVerifyOtpRequest]()),
		"otp_verify_v2":       mutate.Fill(reflect.TypeFor[api.ProxyVerifyOtpV2Request]()),
		"otp_login":           mutate.Fill(reflect.TypeFor[api.ProxyOtpLoginRequest]()),
		"otp_login_v2":        mutate.Fill(reflect.TypeFor[api.ProxyOtpLoginRequest]()),
		"signup":              mutate.Fill(reflect.TypeFor[api.ProxySignupRequest[api.OauthProviderParams]]()),
		"signup_v2":           mutate.Fill(reflect.TypeFor[api.ProxySignupRequest[api.OauthProviderParamsV2]]()),
		"oauth2_authenticate": mutate.Fill(reflect.TypeFor[api.ProxyOauth2AuthenticateRequest]()),
		"oauth_login":         mutate.Fill(reflect.TypeFor[api.ProxyOauthLoginRequest]()),
		"account":             map[string]any{"filterType": "EMAIL", "filterValue": "ada@sigil.test", "verificationToken": "a.b.c"},
		"wallet_kit_config":   map[string]any{},
	}
	for name, body := range bodies {
		for _, m := range mutate.Mutants("body", body) {
			data, _ := json.Marshal(m.Value)
			status, _, answer := e.raw(http.MethodPost, "/v1/"+name, data, header)
			if status < 300 {
				continue
			}
			var b apierr.Body
			if err := json.Unmarshal(answer, &b); err != nil || status >= 500 || b.Code == 0 || b.Message == "" || utf8.RuneCountInString(b.Message) > 1000 {
				t.Errorf("/v1/%s, %s: %d %.300s", name, m.Name, status, answer)
			}
		}
	}
}
