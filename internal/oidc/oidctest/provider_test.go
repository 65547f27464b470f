package oidctest_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/sigil/sigil/internal/oidc"
	"github.com/sigil/sigil/internal/oidc/oidctest"
)

const (
	verifier    = "M25iVXpKU3puUjFaYWg3T1NDTDQtcW1ROUY5YXlwalNoc0hhakxifmZHag"
	redirectURI = "https://app.example/callback"
)

// noRedirects is a client that shows redirects instead of following them.
var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

func getJSON(t *testing.T, rawURL string, dst any) *http.Response {
	t.Helper()
	resp, err := http.Get(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(dst); err != nil {
		t.Fatal(err)
	}
	return resp
}

func TestDiscoveryAndJWKS(t *testing.T) {
	p := oidctest.New()
	defer p.Close()
	var doc map[string]any
	resp := getJSON(t, p.Issuer()+oidctest.DiscoveryPath, &doc)
	if doc["issuer"] != p.Issuer() || doc["jwks_uri"] != p.JWKSURL() || doc["token_endpoint"] != p.TokenURL() {
		t.Errorf("discovery = %v", doc)
	}
	if cc := resp.Header.Get("Cache-Control"); cc != "public, max-age=300" {
		t.Errorf("Cache-Control = %q", cc)
	}
	var jwks struct {
		Keys []map[string]string `json:"keys"`
	}
	getJSON(t, p.JWKSURL(), &jwks)
	rsaKID, ecKID := p.KeyIDs()
	if len(jwks.Keys) != 2 || jwks.Keys[0]["kid"] != rsaKID || jwks.Keys[1]["kid"] != ecKID || jwks.Keys[1]["crv"] != "P-256" {
		t.Fatalf("JWKS = %v", jwks.Keys)
	}
	p.RotateKeys()
	newRSA, newEC := p.KeyIDs()
	getJSON(t, p.JWKSURL(), &jwks)
	if newRSA == rsaKID || newEC == ecKID || jwks.Keys[0]["kid"] != newRSA || jwks.Keys[1]["kid"] != newEC || len(jwks.Keys) != 2 {
		t.Errorf("after rotation: kids %s %s, JWKS %v", newRSA, newEC, jwks.Keys)
	}
	if n := p.Requests(oidctest.JWKSPath); n != 2 {
		t.Errorf("JWKS requests = %d, want 2", n)
	}
	if n := p.Requests(""); n != 3 {
		t.Errorf("requests = %d, want 3", n)
	}
}

func TestSetDown(t *testing.T) {
	p := oidctest.New()
	defer p.Close()
	p.SetDown(true)
	for _, path := range []string{oidctest.DiscoveryPath, oidctest.JWKSPath, oidctest.XUserInfoPath} {
		resp, err := http.Get(p.Issuer() + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable {
			t.Errorf("%s: HTTP %d while down", path, resp.StatusCode)
		}
	}
	p.SetDown(false)
	resp, err := http.Get(p.Issuer() + oidctest.DiscoveryPath)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("HTTP %d when up again", resp.StatusCode)
	}
}

// authorize runs the authorization endpoint and returns the redirect.
func authorize(t *testing.T, p *oidctest.Provider, params url.Values) *url.URL {
	t.Helper()
	resp, err := noRedirects.Get(p.AuthorizationURL() + "?" + params.Encode())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("authorize: HTTP %d", resp.StatusCode)
	}
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func authParams(clientID string) url.Values {
	return url.Values{
		"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {redirectURI},
		"code_challenge": {oidctest.Challenge(verifier)}, "code_challenge_method": {"S256"},
		"state": {"st-1"}, "nonce": {"n-1"}, "login_hint": {"alice"},
	}
}

func postToken(t *testing.T, p *oidctest.Provider, form url.Values, basicID, basicSecret string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, p.TokenURL(), strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if basicID != "" {
		req.SetBasicAuth(url.QueryEscape(basicID), url.QueryEscape(basicSecret))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, body
}

func TestAuthorizationCodeFlow(t *testing.T) {
	p := oidctest.New()
	defer p.Close()
	loc := authorize(t, p, authParams(oidctest.ClientID))
	if got := loc.Scheme + "://" + loc.Host + loc.Path; got != redirectURI || loc.Query().Get("state") != "st-1" || loc.Query().Get("code") == "" {
		t.Fatalf("redirect = %s", loc)
	}
	form := url.Values{"grant_type": {"authorization_code"}, "code": {loc.Query().Get("code")}, "redirect_uri": {redirectURI}, "code_verifier": {verifier}}
	status, body := postToken(t, p, form, oidctest.ClientID, oidctest.ClientSecret)
	if status != http.StatusOK || body["token_type"] != "bearer" {
		t.Fatalf("token: HTTP %d %v", status, body)
	}
	// The ID token verifies with the oidc package and carries the nonce.
	v, err := oidc.NewVerifier(oidc.Config{Issuers: []oidc.Issuer{{URL: p.Issuer(), Audiences: []string{oidctest.ClientID}}}})
	if err != nil {
		t.Fatal(err)
	}
	claims, err := v.Verify(context.Background(), body["id_token"].(string), oidc.VerifyOptions{Nonce: "n-1"})
	if err != nil || claims.Subject != "alice" {
		t.Fatalf("id_token: %v %v", claims, err)
	}
	// The access token opens the three user-info shapes.
	for path, want := range map[string]string{
		oidctest.UserInfoPath:        `"sub":"alice"`,
		oidctest.XUserInfoPath:       `"data":{"id":"alice"`,
		oidctest.DiscordUserInfoPath: `"id":"alice"`,
	} {
		req, _ := http.NewRequest(http.MethodGet, p.Issuer()+path, nil)
		req.Header.Set("Authorization", "Bearer "+body["access_token"].(string))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var info json.RawMessage
		json.NewDecoder(resp.Body).Decode(&info)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(info), want) {
			t.Errorf("%s: HTTP %d %s, want %s", path, resp.StatusCode, info, want)
		}
	}
	req, _ := http.NewRequest(http.MethodGet, p.XUserInfoURL(), nil)
	req.Header.Set("Authorization", "Bearer forged")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("forged access token: HTTP %d", resp.StatusCode)
	}
}

func TestTokenEndpointRefusals(t *testing.T) {
	p := oidctest.New()
	defer p.Close()
	clock := time.Now()
	p.SetClock(func() time.Time { return clock })
	code := func(clientID string) string {
		return p.Authorize(oidctest.Authorization{ClientID: clientID, RedirectURI: redirectURI, CodeChallenge: oidctest.Challenge(verifier)})
	}
	form := func(code string, extra ...string) url.Values {
		f := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirectURI}, "code_verifier": {verifier}}
		for i := 0; i+1 < len(extra); i += 2 {
			f.Set(extra[i], extra[i+1])
		}
		return f
	}
	expired := code(oidctest.ClientID)
	clock = clock.Add(2 * time.Minute)

	tests := []struct {
		name                 string
		form                 url.Values
		basicID, basicSecret string
		status               int
		errCode              string
	}{
		{"PKCE verifier mismatch", form(code(oidctest.ClientID), "code_verifier", strings.Repeat("x", 43)), oidctest.ClientID, oidctest.ClientSecret, 400, "invalid_grant"},
		{"PKCE verifier missing", form(code(oidctest.ClientID), "code_verifier", ""), oidctest.ClientID, oidctest.ClientSecret, 400, "invalid_grant"},
		{"expired code", form(expired), oidctest.ClientID, oidctest.ClientSecret, 400, "invalid_grant"},
		{"code of another client", form(code(oidctest.PublicClientID)), oidctest.ClientID, oidctest.ClientSecret, 400, "invalid_grant"},
		{"wrong secret", form(code(oidctest.ClientID)), oidctest.ClientID, "wrong", 401, "invalid_client"},
		{"unknown client", form(code(oidctest.ClientID), "client_id", "nobody"), "", "", 401, "invalid_client"},
		{"confidential client without secret", form(code(oidctest.ClientID), "client_id", oidctest.ClientID), "", "", 401, "invalid_client"},
		{"public client with a secret", form(code(oidctest.PublicClientID), "client_id", oidctest.PublicClientID, "client_secret", "x"), "", "", 401, "invalid_client"},
		{"two authentication methods", form(code(oidctest.ClientID), "client_secret", oidctest.ClientSecret), oidctest.ClientID, oidctest.ClientSecret, 400, "invalid_request"},
		{"other grant type", form(code(oidctest.ClientID), "grant_type", "password"), oidctest.ClientID, oidctest.ClientSecret, 400, "unsupported_grant_type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := postToken(t, p, tt.form, tt.basicID, tt.basicSecret)
			if status != tt.status || body["error"] != tt.errCode {
				t.Fatalf("HTTP %d %v, want %d %s", status, body, tt.status, tt.errCode)
			}
		})
	}
	// A public client with the right verifier and client_secret_post client both succeed.
	for _, f := range []url.Values{
		form(code(oidctest.PublicClientID), "client_id", oidctest.PublicClientID),
		form(code(oidctest.ClientID), "client_id", oidctest.ClientID, "client_secret", oidctest.ClientSecret),
	} {
		if status, body := postToken(t, p, f, "", ""); status != http.StatusOK {
			t.Errorf("HTTP %d %v", status, body)
		}
	}
}

func TestAuthorizationEndpointRefusals(t *testing.T) {
	p := oidctest.New()
	defer p.Close()
	for name, change := range map[string][2]string{
		"unknown client":    {"client_id", "nobody"},
		"plain PKCE":        {"code_challenge_method", "plain"},
		"implicit flow":     {"response_type", "token"},
		"relative redirect": {"redirect_uri", "/cb"},
		"no challenge":      {"code_challenge", ""},
	} {
		params := authParams(oidctest.ClientID)
		params.Set(change[0], change[1])
		resp, err := noRedirects.Get(p.AuthorizationURL() + "?" + params.Encode())
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: HTTP %d, want 400", name, resp.StatusCode)
		}
	}
}

func TestIDTokenOptions(t *testing.T) {
	p := oidctest.New()
	defer p.Close()
	decode := func(token string) (header, claims map[string]any) {
		parts := strings.Split(token, ".")
		for i, dst := range []*map[string]any{&header, &claims} {
			raw, err := base64.RawURLEncoding.DecodeString(parts[i])
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(raw, dst); err != nil {
				t.Fatal(err)
			}
		}
		return header, claims
	}
	rsaKID, ecKID := p.KeyIDs()
	for _, tt := range []struct {
		alg, kid string
	}{{oidctest.AlgRS256, rsaKID}, {oidctest.AlgES256, ecKID}, {oidctest.AlgNone, rsaKID}, {oidctest.AlgHS256, rsaKID}} {
		h, c := decode(p.IDToken(map[string]any{"nonce": "n", "email": nil}, oidctest.WithAlg(tt.alg)))
		if h["alg"] != tt.alg || h["kid"] != tt.kid || c["nonce"] != "n" || c["iss"] != p.Issuer() {
			t.Errorf("%s: header %v claims %v", tt.alg, h, c)
		}
		if _, ok := c["email"]; ok {
			t.Errorf("%s: removed claim still present", tt.alg)
		}
	}
	h, _ := decode(p.IDToken(nil, oidctest.WithHeader("kid", "other"), oidctest.WithHeader("typ", nil)))
	if h["kid"] != "other" || h["typ"] != nil {
		t.Errorf("header = %v", h)
	}
}
