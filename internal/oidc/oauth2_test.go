package oidc_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/sigil/sigil/internal/oidc"
	"github.com/sigil/sigil/internal/oidc/oidctest"
)

const (
	verifier    = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk-0123456789"
	redirectURI = "https://app.example/oauth/callback"
)

// against points a provider's endpoints at the test provider.
func against(p oidc.Provider, tp *oidctest.Provider, userInfoURL string) oidc.Provider {
	p.TokenURL, p.UserInfoURL = tp.TokenURL(), userInfoURL
	return p
}

func TestExchangeXAndDiscordShapes(t *testing.T) {
	t.Parallel()
	tp := oidctest.New()
	defer tp.Close()
	tests := []struct {
		name     string
		provider oidc.Provider
		subject  string
	}{
		{"X confidential", against(oidc.X(oidctest.ClientID, oidctest.ClientSecret), tp, tp.XUserInfoURL()), "1458210921361883137"},
		{"X public", against(oidc.X(oidctest.PublicClientID, ""), tp, tp.XUserInfoURL()), "2244994945"},
		{"Discord", against(oidc.Discord(oidctest.ClientID, oidctest.ClientSecret), tp, tp.DiscordUserInfoURL()), "80351110224678912"},
		{"custom OIDC-style", oidc.Provider{
			Name: "custom", TokenURL: tp.TokenURL(), UserInfoURL: tp.UserInfoURL(),
			ClientID: oidctest.ClientID, ClientSecret: oidctest.ClientSecret, ClientAuth: oidc.ClientSecretBasic, SubjectField: "sub",
		}, "custom-user"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code := tp.Authorize(oidctest.Authorization{
				ClientID: tt.provider.ClientID, RedirectURI: redirectURI,
				CodeChallenge: oidctest.Challenge(verifier), Subject: tt.subject,
			})
			id, err := tt.provider.Exchange(context.Background(), nil, oidc.AuthCodeGrant{AuthCode: code, RedirectURI: redirectURI, CodeVerifier: verifier})
			if err != nil {
				t.Fatalf("Exchange: %v", err)
			}
			if id.Subject != tt.subject || id.Provider != tt.provider.Name || id.ClientID != tt.provider.ClientID {
				t.Errorf("identity = %+v", id)
			}
			if id.AccessToken == "" || len(id.UserInfo) == 0 {
				t.Errorf("no access token or user info: %+v", id)
			}
		})
	}
}

func TestExchangeErrors(t *testing.T) {
	t.Parallel()
	tp := oidctest.New()
	defer tp.Close()
	x := against(oidc.X(oidctest.ClientID, oidctest.ClientSecret), tp, tp.XUserInfoURL())
	authorize := func() string {
		return tp.Authorize(oidctest.Authorization{ClientID: oidctest.ClientID, RedirectURI: redirectURI, CodeChallenge: oidctest.Challenge(verifier)})
	}
	used := authorize()
	if _, err := x.Exchange(context.Background(), nil, oidc.AuthCodeGrant{AuthCode: used, RedirectURI: redirectURI, CodeVerifier: verifier}); err != nil {
		t.Fatal(err)
	}
	wrongSecret := x
	wrongSecret.ClientSecret = "guessed"
	wrongShape := against(oidc.X(oidctest.ClientID, oidctest.ClientSecret), tp, tp.DiscordUserInfoURL())

	tests := []struct {
		name     string
		provider oidc.Provider
		grant    oidc.AuthCodeGrant
		want     error
		code     string // RFC 6749 error code expected in a ProviderError
	}{
		{"PKCE verifier mismatch", x, oidc.AuthCodeGrant{AuthCode: authorize(), RedirectURI: redirectURI, CodeVerifier: strings.Repeat("a", 43)}, oidc.ErrOAuth2Rejected, "invalid_grant"},
		{"code used twice", x, oidc.AuthCodeGrant{AuthCode: used, RedirectURI: redirectURI, CodeVerifier: verifier}, oidc.ErrOAuth2Rejected, "invalid_grant"},
		{"redirect URI differs", x, oidc.AuthCodeGrant{AuthCode: authorize(), RedirectURI: redirectURI + "/other", CodeVerifier: verifier}, oidc.ErrOAuth2Rejected, "invalid_grant"},
		{"wrong client secret", wrongSecret, oidc.AuthCodeGrant{AuthCode: authorize(), RedirectURI: redirectURI, CodeVerifier: verifier}, oidc.ErrOAuth2Rejected, "invalid_client"},
		{"subject not where configured", wrongShape, oidc.AuthCodeGrant{AuthCode: authorize(), RedirectURI: redirectURI, CodeVerifier: verifier}, oidc.ErrOAuth2BadResponse, ""},
		{"verifier too short", x, oidc.AuthCodeGrant{AuthCode: "c", RedirectURI: redirectURI, CodeVerifier: "short"}, oidc.ErrOAuth2BadRequest, ""},
		{"verifier with a space", x, oidc.AuthCodeGrant{AuthCode: "c", RedirectURI: redirectURI, CodeVerifier: strings.Repeat("a ", 30)}, oidc.ErrOAuth2BadRequest, ""},
		{"relative redirect URI", x, oidc.AuthCodeGrant{AuthCode: "c", RedirectURI: "/callback", CodeVerifier: verifier}, oidc.ErrOAuth2BadRequest, ""},
		{"no code", x, oidc.AuthCodeGrant{RedirectURI: redirectURI, CodeVerifier: verifier}, oidc.ErrOAuth2BadRequest, ""},
		{"token endpoint over plain http", oidc.Provider{Name: "p", ClientID: "c", SubjectField: "id", TokenURL: "http://provider.example/token", UserInfoURL: "https://provider.example/me"}, oidc.AuthCodeGrant{AuthCode: "c", RedirectURI: redirectURI, CodeVerifier: verifier}, oidc.ErrOAuth2BadRequest, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := tp.Requests("")
			id, err := tt.provider.Exchange(context.Background(), nil, tt.grant)
			if !errors.Is(err, tt.want) || id != nil {
				t.Fatalf("Exchange = %v, %v; want %v", id, err, tt.want)
			}
			var perr *oidc.ProviderError
			if tt.code != "" && (!errors.As(err, &perr) || perr.Code != tt.code) {
				t.Fatalf("err = %v, want a ProviderError with code %q", err, tt.code)
			}
			if errors.Is(tt.want, oidc.ErrOAuth2BadRequest) && tp.Requests("") != before {
				t.Errorf("a bad request reached the provider")
			}
			t.Log(err)
		})
	}
}

func TestExchangeProviderDown(t *testing.T) {
	t.Parallel()
	tp := oidctest.New()
	x := against(oidc.X(oidctest.ClientID, oidctest.ClientSecret), tp, tp.XUserInfoURL())
	grant := oidc.AuthCodeGrant{AuthCode: "code", RedirectURI: redirectURI, CodeVerifier: verifier}

	tp.SetDown(true)
	_, err := x.Exchange(context.Background(), nil, grant)
	var perr *oidc.ProviderError
	if !errors.Is(err, oidc.ErrOAuth2Unavailable) || !errors.As(err, &perr) || perr.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("switched off: err = %v, want ErrOAuth2Unavailable with HTTP 503", err)
	}
	tp.Close()
	if _, err := x.Exchange(context.Background(), nil, grant); !errors.Is(err, oidc.ErrOAuth2Unavailable) {
		t.Fatalf("closed: err = %v, want ErrOAuth2Unavailable", err)
	}
}

// recordedRequest is what a scripted provider saw at its token endpoint.
type recordedRequest struct {
	basicUser, basicPass string
	form                 map[string]string
}

// scriptedProvider answers the token and user-info endpoints with fixed
// bodies and records the token request.
func scriptedProvider(t *testing.T, tokenStatus int, tokenBody string, infoStatus int, infoBody string) (*httptest.Server, *recordedRequest) {
	t.Helper()
	var mu sync.Mutex
	rec := &recordedRequest{form: map[string]string{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/token" {
			if err := r.ParseForm(); err != nil {
				t.Error(err)
			}
			mu.Lock()
			rec.basicUser, rec.basicPass, _ = r.BasicAuth()
			for k := range r.PostForm {
				rec.form[k] = r.PostForm.Get(k)
			}
			mu.Unlock()
			w.WriteHeader(tokenStatus)
			w.Write([]byte(tokenBody))
			return
		}
		if r.Header.Get("Authorization") != "Bearer AT" {
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"message":"401: Unauthorized","code":0}`))
			return
		}
		w.WriteHeader(infoStatus)
		w.Write([]byte(infoBody))
	}))
	t.Cleanup(srv.Close)
	return srv, rec
}

func TestExchangeClientAuthentication(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		provider   func(id, secret string) oidc.Provider
		secret     string
		wantBasic  bool
		wantSecret bool // client_secret in the form
	}{
		{"X confidential uses HTTP Basic", oidc.X, "s3cret/+", true, false},
		{"X public sends client_id only", oidc.X, "", false, false},
		{"Discord uses client_secret_post", oidc.Discord, "s3cret", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, rec := scriptedProvider(t, 200, `{"access_token":"AT","token_type":"bearer"}`, 200, `{"id":"42","data":{"id":"42"}}`)
			p := tt.provider("my-client", tt.secret)
			p.TokenURL, p.UserInfoURL = srv.URL+"/token", srv.URL+"/me"
			id, err := p.Exchange(context.Background(), srv.Client(), oidc.AuthCodeGrant{AuthCode: "the-code", RedirectURI: redirectURI, CodeVerifier: verifier})
			if err != nil {
				t.Fatal(err)
			}
			if id.Subject != "42" || id.AccessToken != "AT" {
				t.Errorf("identity = %+v", id)
			}
			if got := rec.basicUser != ""; got != tt.wantBasic || (tt.wantBasic && rec.basicPass != "s3cret%2F%2B") {
				t.Errorf("basic auth = %q:%q, want basic=%v with the form-encoded secret", rec.basicUser, rec.basicPass, tt.wantBasic)
			}
			if _, got := rec.form["client_secret"]; got != tt.wantSecret {
				t.Errorf("client_secret in form = %v, want %v", got, tt.wantSecret)
			}
			if !tt.wantBasic && rec.form["client_id"] != "my-client" {
				t.Errorf("client_id in form = %q", rec.form["client_id"])
			}
			want := map[string]string{"grant_type": "authorization_code", "code": "the-code", "redirect_uri": redirectURI, "code_verifier": verifier}
			for k, v := range want {
				if rec.form[k] != v {
					t.Errorf("form %s = %q, want %q", k, rec.form[k], v)
				}
			}
		})
	}
}

func TestExchangeOddProviderAnswers(t *testing.T) {
	t.Parallel()
	const okToken = `{"access_token":"AT","token_type":"Bearer"}`
	tests := []struct {
		name                   string
		tokenStatus            int
		tokenBody              string
		infoStatus             int
		infoBody               string
		subjectField           string
		want                   error
		wantSubject, wantError string
	}{
		{"error with HTTP 200", 200, `{"error":"invalid_grant","error_description":"Value passed for the authorization code was invalid."}`, 200, `{}`, "id", oidc.ErrOAuth2Rejected, "", "invalid_grant"},
		{"error with HTTP 400", 400, `{"error":"invalid_request","error_description":"Missing required parameter [code_verifier]."}`, 200, `{}`, "id", oidc.ErrOAuth2Rejected, "", "invalid_request"},
		{"server error", 502, `<html>bad gateway</html>`, 200, `{}`, "id", oidc.ErrOAuth2Unavailable, "", ""},
		{"no access token", 200, `{"token_type":"bearer"}`, 200, `{}`, "id", oidc.ErrOAuth2BadResponse, "", ""},
		{"not a bearer token", 200, `{"access_token":"AT","token_type":"mac"}`, 200, `{}`, "id", oidc.ErrOAuth2BadResponse, "", ""},
		{"token response not JSON", 200, `<html>`, 200, `{}`, "id", oidc.ErrOAuth2BadResponse, "", ""},
		{"user info 401", 200, `{"access_token":"wrong","token_type":"bearer"}`, 200, `{}`, "id", oidc.ErrOAuth2Rejected, "", ""},
		{"user info rate-limited", 200, okToken, 429, `{"title":"Too Many Requests","detail":"Too Many Requests"}`, "data.id", oidc.ErrOAuth2Unavailable, "", "Too Many Requests"},
		{"user info not an object", 200, okToken, 200, `["1"]`, "id", oidc.ErrOAuth2BadResponse, "", ""},
		{"user info null", 200, okToken, 200, `null`, "id", oidc.ErrOAuth2BadResponse, "", ""},
		{"user info too large", 200, okToken, 200, `{"id":"1","pad":"` + strings.Repeat("x", 70<<10) + `"}`, "id", oidc.ErrOAuth2BadResponse, "", ""},
		{"X error object without data", 200, okToken, 200, `{"errors":[{"title":"Forbidden"}]}`, "data.id", oidc.ErrOAuth2BadResponse, "", ""},
		{"empty subject", 200, okToken, 200, `{"id":""}`, "id", oidc.ErrOAuth2BadResponse, "", ""},
		{"fractional subject", 200, okToken, 200, `{"id":1.5}`, "id", oidc.ErrOAuth2BadResponse, "", ""},
		{"numeric subject keeps every digit", 200, okToken, 200, `{"id":80351110224678912123}`, "id", nil, "80351110224678912123", ""},
		{"nested subject", 200, okToken, 200, `{"data":{"id":"2244994945","username":"x"}}`, "data.id", nil, "2244994945", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _ := scriptedProvider(t, tt.tokenStatus, tt.tokenBody, tt.infoStatus, tt.infoBody)
			p := oidc.Provider{Name: "scripted", TokenURL: srv.URL + "/token", UserInfoURL: srv.URL + "/me", ClientID: "c", ClientSecret: "s", ClientAuth: oidc.ClientSecretPost, SubjectField: tt.subjectField}
			id, err := p.Exchange(context.Background(), srv.Client(), oidc.AuthCodeGrant{AuthCode: "code", RedirectURI: redirectURI, CodeVerifier: verifier})
			if tt.want == nil {
				if err != nil || id.Subject != tt.wantSubject {
					t.Fatalf("Exchange = %+v, %v; want subject %q", id, err, tt.wantSubject)
				}
				if _, ok := id.UserInfo["id"].(json.Number); tt.subjectField == "id" && !ok {
					t.Errorf("numbers in user info are not json.Number: %T", id.UserInfo["id"])
				}
				return
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if tt.wantError != "" && !strings.Contains(err.Error(), tt.wantError) {
				t.Errorf("err = %v, want it to mention %q", err, tt.wantError)
			}
			t.Log(err)
		})
	}
}

func TestBuiltinProvider(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, tokenURL, userInfoURL, subject string }{
		{oidc.ProviderX, "https://api.x.com/2/oauth2/token", "https://api.x.com/2/users/me", "data.id"},
		{oidc.ProviderDiscord, "https://discord.com/api/oauth2/token", "https://discord.com/api/users/@me", "id"},
	} {
		p, err := oidc.BuiltinProvider(tt.name, "id", "secret")
		if err != nil {
			t.Fatal(err)
		}
		if p.Name != tt.name || p.TokenURL != tt.tokenURL || p.UserInfoURL != tt.userInfoURL || p.SubjectField != tt.subject || p.ClientID != "id" {
			t.Errorf("%s = %+v", tt.name, p)
		}
	}
	if _, err := oidc.BuiltinProvider("OAUTH2_PROVIDER_MYSPACE", "id", "s"); !errors.Is(err, oidc.ErrOAuth2BadRequest) {
		t.Errorf("unknown provider: err = %v", err)
	}
}
