package authproxy_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/authproxy"
	"github.com/sigil/sigil/internal/testdb"
)

// activityCount counts an organization's activities: a refused request must not have reached the coordinator.
func activityCount(t *testing.T, ten *tenant) int {
	t.Helper()
	res, err := ten.root.ListActivities(context.Background(), api.ListActivitiesRequest{OrganizationID: ten.orgID, PaginationOptions: &api.Pagination{Limit: "100"}})
	if err != nil {
		t.Fatal(err)
	}
	return len(res.Activities)
}

func TestErrorPaths(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testdb.SQLite(t), authproxy.Config{MaxBodyBytes: 4096})
	ten := e.tenant("Acme", api.UpdateAuthProxyConfigIntent{AllowedOrigins: []string{origin}})
	off := e.tenant("Off", api.UpdateAuthProxyConfigIntent{})
	if _, _, err := off.root.DisableAuthProxy(context.Background(), off.orgID); err != nil {
		t.Fatal(err)
	}
	good := `{"otpType":"OTP_TYPE_EMAIL","contact":"ada@sigil.test"}`
	before := activityCount(t, ten)
	for _, c := range []struct {
		name    string
		path    string
		body    string
		header  map[string]string
		status  int
		message string
	}{
		{"missing configuration id", "/v1/otp_init", good, map[string]string{"Origin": origin}, 400, "X-Auth-Proxy-Config-Id header is required"},
		{"malformed configuration id", "/v1/otp_init", good, map[string]string{"Origin": origin, "X-Auth-Proxy-Config-ID": "nope"}, 400, "must be a configuration id"},
		{"unknown configuration", "/v1/otp_init", good, map[string]string{"Origin": origin, "X-Auth-Proxy-Config-ID": "0b9f6a1e-9b47-4f0e-8d7e-3f1a2b3c4d5e"}, 404, "no auth proxy configuration"},
		{"disabled configuration", "/v1/otp_init", good, map[string]string{"X-Auth-Proxy-Config-ID": off.configID}, 403, "is disabled"},
		{"disallowed origin", "/v1/otp_init", good, map[string]string{"Origin": "https://evil.example", "X-Auth-Proxy-Config-ID": ten.configID}, 403, "origin https://evil.example is not allowed"},
		{"no origin with a list", "/v1/otp_init", good, map[string]string{"X-Auth-Proxy-Config-ID": ten.configID}, 403, "no Origin header"},
		{"unknown field", "/v1/otp_init", `{"otpType":"OTP_TYPE_EMAIL","contact":"a@b.c","appName":"x"}`, map[string]string{"Origin": origin, "X-Auth-Proxy-Config-ID": ten.configID}, 400, "bad request body"},
		{"not JSON", "/v1/otp_init", `{"otpType":`, map[string]string{"Origin": origin, "X-Auth-Proxy-Config-ID": ten.configID}, 400, "bad request body"},
		{"missing field", "/v1/otp_verify", `{"otpId":"x"}`, map[string]string{"Origin": origin, "X-Auth-Proxy-Config-ID": ten.configID}, 400, "otpCode"},
		{"body too large", "/v1/otp_init", `{"contact":"` + strings.Repeat("a", 5000) + `"}`, map[string]string{"Origin": origin, "X-Auth-Proxy-Config-ID": ten.configID}, 413, "larger than the limit"},
		{"unknown endpoint", "/v1/transfer_funds", good, map[string]string{"Origin": origin, "X-Auth-Proxy-Config-ID": ten.configID}, 404, "no proxy endpoint"},
		{"SMS not enabled", "/v1/otp_init", `{"otpType":"OTP_TYPE_SMS","contact":"+15555550100"}`, map[string]string{"Origin": origin, "X-Auth-Proxy-Config-ID": ten.configID}, 403, "SMS OTP is not enabled"},
		{"bad OTP type", "/v1/otp_init", `{"otpType":"OTP_TYPE_PIGEON","contact":"x"}`, map[string]string{"Origin": origin, "X-Auth-Proxy-Config-ID": ten.configID}, 400, "otpType"},
		{"social login not enabled", "/v1/oauth_login", `{"oidcToken":"a.b.c","publicKey":"02aa"}`, map[string]string{"Origin": origin, "X-Auth-Proxy-Config-ID": ten.configID}, 403, "no social login"},
		{"login into the parent", "/v1/otp_login", `{"verificationToken":"a.b.c","publicKey":"02aa","organizationId":"` + ten.orgID + `"}`, map[string]string{"Origin": origin, "X-Auth-Proxy-Config-ID": ten.configID}, 403, "not into"},
		{"v2 login without signature", "/v1/otp_login_v2", `{"verificationToken":"a.b.c","publicKey":"02aa"}`, map[string]string{"Origin": origin, "X-Auth-Proxy-Config-ID": ten.configID}, 400, "clientSignature is required"},
		{"login with garbage token", "/v1/otp_login", `{"verificationToken":"garbage","publicKey":"02aa"}`, map[string]string{"Origin": origin, "X-Auth-Proxy-Config-ID": ten.configID}, 400, "not a verification token"},
		{"PII look-up without token", "/v1/account", `{"filterType":"EMAIL","filterValue":"ada@sigil.test"}`, map[string]string{"Origin": origin, "X-Auth-Proxy-Config-ID": ten.configID}, 403, "requires a verificationToken"},
		{"PII look-up with a forged token", "/v1/account", `{"filterType":"EMAIL","filterValue":"ada@sigil.test","verificationToken":"a.b.c"}`, map[string]string{"Origin": origin, "X-Auth-Proxy-Config-ID": ten.configID}, 400, "verificationToken"},
		{"unknown look-up", "/v1/account", `{"filterType":"WALLET_ACCOUNT_ADDRESS","filterValue":"0x00"}`, map[string]string{"Origin": origin, "X-Auth-Proxy-Config-ID": ten.configID}, 400, "filterType must be one of"},
	} {
		status, header, body := e.raw(http.MethodPost, c.path, []byte(c.body), c.header)
		var b apierr.Body
		if err := json.Unmarshal(body, &b); err != nil || status != c.status || !strings.Contains(b.Message, c.message) || int(b.Code) == 0 {
			t.Errorf("%s: %d %s, want %d with %q", c.name, status, body, c.status, c.message)
		}
		if strings.Contains(c.name, "origin") && header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("%s: a refused origin got CORS headers", c.name)
		}
	}
	if after := activityCount(t, ten); after != before {
		t.Fatalf("refused requests reached the coordinator: %d activities, %d before", after, before)
	}

	// An allowed origin gets its CORS headers on the real request.
	status, header, _ := e.raw(http.MethodPost, "/v1/wallet_kit_config", []byte(`{}`), map[string]string{"Origin": origin, "X-Auth-Proxy-Config-ID": ten.configID})
	if status != 200 || header.Get("Access-Control-Allow-Origin") != origin {
		t.Fatalf("allowed origin: %d %v", status, header)
	}
	// Preflights carry no header values: they echo the origin and the allowed headers.
	status, header, _ = e.raw(http.MethodOptions, "/v1/otp_init", nil, map[string]string{"Origin": "https://any.example",
		"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type,x-auth-proxy-config-id"})
	if status != 204 || header.Get("Access-Control-Allow-Origin") != "https://any.example" ||
		!strings.Contains(header.Get("Access-Control-Allow-Headers"), "X-Auth-Proxy-Config-Id") {
		t.Fatalf("preflight: %d %v", status, header)
	}
}

func TestRateLimits(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testdb.SQLite(t), authproxy.Config{ConfigRate: 1, ConfigBurst: 3, IPRate: 2, IPBurst: 5})
	a := e.tenant("A", api.UpdateAuthProxyConfigIntent{})
	b := e.tenant("B", api.UpdateAuthProxyConfigIntent{})
	ask := func(ten *tenant) (int, http.Header) {
		status, h, _ := e.raw(http.MethodPost, "/v1/wallet_kit_config", []byte(`{}`), map[string]string{"X-Auth-Proxy-Config-ID": ten.configID})
		return status, h
	}
	for i := 0; i < 3; i++ {
		if s, _ := ask(a); s != 200 {
			t.Fatalf("request %d of the burst: %d", i, s)
		}
	}
	s, h := ask(a)
	if s != 429 || h.Get("Retry-After") != "1" {
		t.Fatalf("over the configuration's burst: %d Retry-After %q", s, h.Get("Retry-After"))
	}
	// Another configuration has its own budget, but the client IP's is shared: 5 in a burst.
	if s, _ := ask(b); s != 200 {
		t.Fatalf("other configuration: %d", s)
	}
	s, h = ask(b)
	if s != 429 || h.Get("Retry-After") == "" {
		t.Fatalf("over the IP's burst: %d", s)
	}
	e.clock.Advance(3 * time.Second)
	if s, _ := ask(a); s != 200 {
		t.Fatalf("after the refill: %d", s)
	}
}

// TestTenantIsolation: one proxy serves several organizations, and a configuration id of one never acts in another.
func TestTenantIsolation(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		e := newEnv(t, b, authproxy.Config{})
		a := e.tenant("A", allMethods)
		other := e.tenant("B", allMethods)
		pa, pb := e.proxy(a.configID, origin), e.proxy(other.configID, origin)
		ctx := context.Background()

		// B's user signs up through B's configuration.
		email := "bob@sigil.test"
		device := newClientKey(t)
		signupB := call[api.ProxySignupResponse](t, pb, "/v1/signup", api.ProxySignupRequest[api.OauthProviderParams]{UserEmail: email,
			APIKeys:        []api.APIKeyParamsV2{{APIKeyName: "d", PublicKey: device.pub, CurveType: api.CurveP256}},
			Authenticators: []api.AuthenticatorParamsV2{}, OauthProviders: []api.OauthProviderParams{}})

		// A's configuration cannot find B's account, send B's codes, verify them, or log into B's sub-organization.
		if acct := call[api.ProxyAccountResponse](t, pa, "/v1/account", api.ProxyAccountRequest{FilterType: api.FilterPublicKey, FilterValue: device.pub}); acct.OrganizationID != "" {
			t.Fatalf("A found B's account: %+v", acct)
		}
		initB := call[api.ProxyInitOtpResponse](t, pb, "/v1/otp_init", api.ProxyInitOtpRequest{OtpType: api.OtpTypeEmail, Contact: email})
		codeB := e.lastCode(email)
		err := pa.Call(ctx, "/v1/otp_verify", api.ProxyVerifyOtpRequest{OtpID: initB.OtpID, OtpCode: codeB, PublicKey: device.pub}, &struct{}{})
		expectStatus(t, "A verifies B's code", err, 404)
		verified := call[api.ProxyVerifyOtpResponse](t, pb, "/v1/otp_verify", api.ProxyVerifyOtpRequest{OtpID: initB.OtpID, OtpCode: codeB, PublicKey: device.pub})
		session := newClientKey(t)
		login := api.ProxyOtpLoginRequest{VerificationToken: verified.VerificationToken, PublicKey: session.pub,
			ClientSignature: loginSignature(t, device, verified.VerificationToken, session.pub)}
		err = pa.Call(ctx, "/v1/otp_login", login, &struct{}{})
		expectStatus(t, "A logs in with B's token, by contact", err, 404)
		login.OrganizationID = signupB.OrganizationID
		err = pa.Call(ctx, "/v1/otp_login", login, &struct{}{})
		expectStatus(t, "A logs into B's sub-organization", err, 401)
		err = pa.Call(ctx, "/v1/account", api.ProxyAccountRequest{FilterType: api.FilterEmail, FilterValue: email, VerificationToken: verified.VerificationToken}, &struct{}{})
		expectStatus(t, "A looks B's contact up with B's token", err, 403)
		// B's own configuration works with the same token.
		login.OrganizationID = ""
		res := call[api.ProxySessionResponse](t, pb, "/v1/otp_login", login)
		if who := e.whoami(t, other, res.Session, session); who.OrganizationID != signupB.OrganizationID {
			t.Fatalf("B's login: %+v", who)
		}
		// A's signups land in A.
		signupA := call[api.ProxySignupResponse](t, pa, "/v1/signup", api.ProxySignupRequest[api.OauthProviderParams]{UserName: "a",
			APIKeys: []api.APIKeyParamsV2{}, Authenticators: []api.AuthenticatorParamsV2{}, OauthProviders: []api.OauthProviderParams{}})
		subs, err := a.root.ListSubOrgs(ctx, api.ListSubOrgsRequest{OrganizationID: a.orgID})
		if err != nil || len(subs.OrganizationIDs) != 1 || subs.OrganizationIDs[0] != signupA.OrganizationID {
			t.Fatalf("A's sub-organizations: %+v %v", subs, err)
		}
	})
}

// TestProxyKeyNeverLeaks runs every endpoint, the errors included, and scans the responses and both services' logs
// for the proxy keys.
func TestProxyKeyNeverLeaks(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testdb.SQLite(t), authproxy.Config{})
	ten := e.tenant("Acme", allMethods)
	p := e.proxy(ten.configID, origin)
	var responses []string
	record := func(path string, req any) {
		var raw json.RawMessage
		err := p.Call(context.Background(), path, req, &raw)
		responses = append(responses, string(raw))
		if err != nil {
			responses = append(responses, err.Error())
		}
	}
	email := "leak@sigil.test"
	device := newClientKey(t)
	record("/v1/wallet_kit_config", struct{}{})
	record("/v1/signup", api.ProxySignupRequest[api.OauthProviderParams]{UserEmail: email, APIKeys: []api.APIKeyParamsV2{{APIKeyName: "d", PublicKey: device.pub, CurveType: api.CurveP256}},
		Authenticators: []api.AuthenticatorParamsV2{}, OauthProviders: []api.OauthProviderParams{}})
	var init api.ProxyInitOtpResponse
	if err := p.Call(context.Background(), "/v1/otp_init", api.ProxyInitOtpRequest{OtpType: api.OtpTypeEmail, Contact: email}, &init); err != nil {
		t.Fatal(err)
	}
	record("/v1/otp_verify", api.ProxyVerifyOtpRequest{OtpID: init.OtpID, OtpCode: "WRONG1"})
	record("/v1/otp_login", api.ProxyOtpLoginRequest{VerificationToken: "a.b.c", PublicKey: device.pub})
	record("/v1/account", api.ProxyAccountRequest{FilterType: api.FilterEmail, FilterValue: email})
	keys := []string{e.proxyPrivateKey(ten.configID)}
	if _, _, err := ten.root.RotateAuthProxyKey(context.Background(), ten.orgID); err != nil {
		t.Fatal(err)
	}
	keys = append(keys, e.proxyPrivateKey(ten.configID))
	record("/v1/otp_init", api.ProxyInitOtpRequest{OtpType: api.OtpTypeEmail, Contact: email})
	record("/v1/oauth_login", api.ProxyOauthLoginRequest{OidcToken: "x", PublicKey: device.pub})

	// The coordinator's own record of what the proxy did.
	acts, err := ten.root.ListActivities(context.Background(), api.ListActivitiesRequest{OrganizationID: ten.orgID, PaginationOptions: &api.Pagination{Limit: "100"}})
	if err != nil {
		t.Fatal(err)
	}
	actsJSON, _ := json.Marshal(acts)
	cfg, _ := client.New(e.coordSrv.URL, e.id.ServiceKey).ResolveAuthProxyConfig(context.Background(), ten.configID)
	cfgJSON, _ := json.Marshal(cfg)
	haystack := strings.Join(responses, "\n") + e.logs.String() + string(actsJSON) + string(cfgJSON)
	if !strings.Contains(e.logs.String(), "authproxy request") {
		t.Fatal("the proxy logged nothing: the scan would prove nothing")
	}
	for _, k := range keys {
		if len(k) != 64 {
			t.Fatalf("proxy key %d characters, want 64", len(k))
		}
		if strings.Contains(strings.ToLower(haystack), k) {
			t.Fatal("a proxy private key appears in a response, a log line or an activity record")
		}
	}
}

// TestConfigCache: a configuration is reused for ConfigTTL on the proxy's clock, then read again, so a change made
// in the dashboard applies once the cached copy expires.
func TestConfigCache(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testdb.SQLite(t), authproxy.Config{ConfigTTL: time.Second})
	ten := e.tenant("Acme", api.UpdateAuthProxyConfigIntent{AllowedOrigins: []string{origin}})
	ask := func(o string) int {
		status, _, _ := e.raw(http.MethodPost, "/v1/wallet_kit_config", []byte(`{}`), map[string]string{"Origin": o, "X-Auth-Proxy-Config-ID": ten.configID})
		return status
	}
	if s := ask(origin); s != 200 {
		t.Fatalf("allowed origin: %d", s)
	}
	if _, _, err := ten.root.UpdateAuthProxyConfig(context.Background(), ten.orgID, api.UpdateAuthProxyConfigIntent{AllowedOrigins: []string{"https://new.example"}}); err != nil {
		t.Fatal(err)
	}
	if s := ask(origin); s != 200 {
		t.Fatalf("within the TTL the cached configuration applies: %d", s)
	}
	e.clock.Advance(time.Second)
	if s := ask(origin); s != 403 {
		t.Fatalf("old origin after the TTL: %d", s)
	}
	if s := ask("https://new.example"); s != 200 {
		t.Fatalf("new origin after the TTL: %d", s)
	}
}

// A body over MaxBodyBytes is a 413 in the coordinator's google.rpc.Status shape, and nothing reaches the coordinator.
func TestOversizedBodyIs413(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testdb.SQLite(t), authproxy.Config{MaxBodyBytes: 1024})
	ten := e.tenant("Acme", api.UpdateAuthProxyConfigIntent{AllowedOrigins: []string{origin}})
	before := activityCount(t, ten)
	body := `{"otpType":"OTP_TYPE_EMAIL","contact":"` + strings.Repeat("a", 1024) + `@sigil.test"}`
	status, header, raw := e.raw(http.MethodPost, "/v1/otp_init", []byte(body), map[string]string{"Origin": origin, "X-Auth-Proxy-Config-ID": ten.configID})
	var b struct {
		Code    apierr.Code `json:"code"`
		Message string      `json:"message"`
		Details []struct {
			Type             string `json:"@type"`
			TurnkeyErrorCode string `json:"turnkeyErrorCode"`
		} `json:"details"`
	}
	if err := json.Unmarshal(raw, &b); err != nil || status != http.StatusRequestEntityTooLarge || b.Code != apierr.InvalidArgument ||
		b.Message != "request body is larger than the limit of 1024 bytes" || len(b.Details) != 1 ||
		b.Details[0].TurnkeyErrorCode != "REQUEST_INVALID" || b.Details[0].Type != "type.googleapis.com/errors.v1.TurnkeyErrorDetail" {
		t.Fatalf("%d %s", status, raw)
	}
	if header.Get("Content-Type") != "application/json" || header.Get("Access-Control-Allow-Origin") != origin {
		t.Fatalf("headers %v", header)
	}
	if after := activityCount(t, ten); after != before {
		t.Fatalf("an oversized request reached the coordinator: %d activities, %d before", after, before)
	}
}

// Two proxies over one PostgreSQL share their token buckets: a configuration's burst is spent by requests through
// either, and the next one is refused by both.
func TestRateLimitsSharedByTwoProxies(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testdb.Postgres(t), authproxy.Config{})
	a := e.tenant("A", api.UpdateAuthProxyConfigIntent{})
	var urls []string
	for range 2 {
		p, err := authproxy.New(authproxy.Config{CoordinatorURL: e.coordSrv.URL, Identity: e.id, Now: e.clock.Now, ConfigTTL: -1,
			ConfigRate: 1, ConfigBurst: 3, IPRate: -1, Buckets: e.store})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(p.Handler())
		t.Cleanup(srv.Close)
		urls = append(urls, srv.URL)
	}
	ask := func(base string) int {
		req, _ := http.NewRequest(http.MethodPost, base+"/v1/wallet_kit_config", strings.NewReader(`{}`))
		req.Header.Set("X-Auth-Proxy-Config-ID", a.configID)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	for i := range 3 {
		if s := ask(urls[i%2]); s != 200 {
			t.Fatalf("request %d of the shared burst: %d", i, s)
		}
	}
	for _, u := range urls {
		if s := ask(u); s != 429 {
			t.Fatalf("past the shared burst through %s: %d", u, s)
		}
	}
	e.clock.Advance(time.Second)
	if s := ask(urls[1]); s != 200 {
		t.Fatalf("after a refill: %d", s)
	}
}
