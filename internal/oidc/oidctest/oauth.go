package oidctest

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Authorization is what a user approved at the authorization endpoint.
type Authorization struct {
	ClientID      string
	RedirectURI   string
	CodeChallenge string // S256 challenge: base64url(SHA-256(verifier))
	Subject       string // DefaultSubject when empty
	Email         string // DefaultEmail when empty
	Nonce         string // copied into the ID token of the token response
}

// grant is an authorization bound to a code or an access token.
type grant struct {
	Authorization
	expires time.Time
}

// Challenge is the PKCE S256 challenge of a verifier.
func Challenge(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// Authorize approves a at once, as the authorization endpoint does, and
// returns the one-time code to redeem at the token endpoint.
func (p *Provider) Authorize(a Authorization) string {
	if a.Subject == "" {
		a.Subject = DefaultSubject
	}
	if a.Email == "" {
		a.Email = DefaultEmail
	}
	code := randomToken()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.codes[code] = grant{Authorization: a, expires: p.clock().Add(codeLifetime)}
	return code
}

// handleAuthorize approves every request from a registered client with an
// S256 challenge and redirects back with code and state. login_hint, when
// given, is the subject.
func (p *Provider) handleAuthorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	p.mu.Lock()
	_, known := p.clients[q.Get("client_id")]
	p.mu.Unlock()
	redirect, err := url.Parse(q.Get("redirect_uri"))
	switch {
	case !known:
		oauthError(w, http.StatusBadRequest, "unauthorized_client", "unknown client_id")
		return
	case err != nil || !redirect.IsAbs():
		oauthError(w, http.StatusBadRequest, "invalid_request", "redirect_uri must be an absolute URL")
		return
	case q.Get("response_type") != "code":
		oauthError(w, http.StatusBadRequest, "unsupported_response_type", "only response_type=code is supported")
		return
	case q.Get("code_challenge") == "" || q.Get("code_challenge_method") != "S256":
		oauthError(w, http.StatusBadRequest, "invalid_request", "PKCE with code_challenge_method=S256 is required")
		return
	}
	code := p.Authorize(Authorization{
		ClientID:      q.Get("client_id"),
		RedirectURI:   q.Get("redirect_uri"),
		CodeChallenge: q.Get("code_challenge"),
		Subject:       q.Get("login_hint"),
		Nonce:         q.Get("nonce"),
	})
	back := redirect.Query()
	back.Set("code", code)
	if state := q.Get("state"); state != "" {
		back.Set("state", state)
	}
	redirect.RawQuery = back.Encode()
	http.Redirect(w, r, redirect.String(), http.StatusFound)
}

// handleToken redeems a code (RFC 6749 §4.1.3 with RFC 7636 PKCE).
func (p *Provider) handleToken(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	if err := r.ParseForm(); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request", "the body is not a form")
		return
	}
	clientID, ok := p.authenticateClient(w, r)
	if !ok {
		return
	}
	if r.PostForm.Get("grant_type") != "authorization_code" {
		oauthError(w, http.StatusBadRequest, "unsupported_grant_type", "only authorization_code is supported")
		return
	}
	g, ok := p.redeemCode(r.PostForm.Get("code"))
	switch {
	case !ok:
		oauthError(w, http.StatusBadRequest, "invalid_grant", "unknown, used or expired authorization code")
		return
	case g.ClientID != clientID:
		oauthError(w, http.StatusBadRequest, "invalid_grant", "the code was issued to another client")
		return
	case g.RedirectURI != r.PostForm.Get("redirect_uri"):
		oauthError(w, http.StatusBadRequest, "invalid_grant", "redirect_uri differs from the authorization request")
		return
	case !pkceMatches(g.CodeChallenge, r.PostForm.Get("code_verifier")):
		oauthError(w, http.StatusBadRequest, "invalid_grant", "PKCE verification failed: code_verifier does not match code_challenge")
		return
	}
	access := randomToken()
	p.mu.Lock()
	p.tokens[access] = grant{Authorization: g.Authorization, expires: p.clock().Add(tokenLifetime)}
	p.mu.Unlock()
	claims := map[string]any{"sub": g.Subject, "aud": g.ClientID, "email": g.Email}
	if g.Nonce != "" {
		claims["nonce"] = g.Nonce
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"access_token": access,
		"token_type":   "bearer",
		"expires_in":   int(tokenLifetime / time.Second),
		"scope":        "openid email",
		"id_token":     p.IDToken(claims),
	})
}

// authenticateClient accepts client_secret_basic, client_secret_post and,
// for public clients, a bare client_id; using two methods at once is refused
// (RFC 6749 §2.3).
func (p *Provider) authenticateClient(w http.ResponseWriter, r *http.Request) (string, bool) {
	id, secret, basic := r.BasicAuth()
	if basic {
		if r.PostForm.Has("client_secret") {
			oauthError(w, http.StatusBadRequest, "invalid_request", "client authenticated by more than one method")
			return "", false
		}
		var err1, err2 error
		id, err1 = url.QueryUnescape(id)
		secret, err2 = url.QueryUnescape(secret)
		if err1 != nil || err2 != nil {
			oauthError(w, http.StatusBadRequest, "invalid_request", "badly encoded client credentials")
			return "", false
		}
	} else {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	p.mu.Lock()
	want, known := p.clients[id]
	p.mu.Unlock()
	if !known || subtle.ConstantTimeCompare([]byte(secret), []byte(want)) != 1 {
		w.Header().Set("WWW-Authenticate", `Basic realm="oidctest"`)
		oauthError(w, http.StatusUnauthorized, "invalid_client", "client authentication failed")
		return "", false
	}
	return id, true
}

// redeemCode consumes a code: a code is good for one attempt only.
func (p *Provider) redeemCode(code string) (grant, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	g, ok := p.codes[code]
	delete(p.codes, code)
	return g, ok && p.clock().Before(g.expires)
}

func pkceMatches(challenge, verifier string) bool {
	return challenge != "" && verifier != "" &&
		subtle.ConstantTimeCompare([]byte(Challenge(verifier)), []byte(challenge)) == 1
}

// userInfo serves the user behind a bearer token in the given shape.
func (p *Provider) userInfo(shape func(Authorization) any) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var g grant
		token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if ok {
			p.mu.Lock()
			g, ok = p.tokens[token]
			ok = ok && p.clock().Before(g.expires)
			p.mu.Unlock()
		}
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
			oauthError(w, http.StatusUnauthorized, "invalid_token", "missing, unknown or expired access token")
			return
		}
		writeJSON(w, http.StatusOK, shape(g.Authorization))
	}
}

func oidcUserInfo(a Authorization) any {
	return map[string]any{"sub": a.Subject, "email": a.Email, "email_verified": true}
}

func xUserInfo(a Authorization) any {
	return map[string]any{"data": map[string]any{"id": a.Subject, "name": "Test User", "username": "user_" + a.Subject}}
}

func discordUserInfo(a Authorization) any {
	return map[string]any{"id": a.Subject, "username": "user_" + a.Subject, "email": a.Email, "verified": true}
}

func oauthError(w http.ResponseWriter, status int, code, description string) {
	writeJSON(w, status, map[string]string{"error": code, "error_description": description})
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body) // the client went away; nothing to do
}
