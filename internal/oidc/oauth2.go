package oidc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"golang.org/x/oauth2"
)

// ClientAuth is how a confidential client authenticates at a token endpoint
// (RFC 6749 §2.3.1). A client without a secret (a public PKCE client)
// always sends just its client_id in the form.
type ClientAuth int

const (
	// ClientSecretBasic sends the id and secret in an HTTP Basic header.
	ClientSecretBasic ClientAuth = iota + 1
	// ClientSecretPost sends them as client_id and client_secret form fields.
	ClientSecretPost
)

// Names of the providers configured out of the box; they are the wire
// values of the auth proxy's oauth2_authenticate "provider" field.
const (
	ProviderX       = "OAUTH2_PROVIDER_X"
	ProviderDiscord = "OAUTH2_PROVIDER_DISCORD"
)

// Provider is an OAuth 2.0 provider and our client registration with it.
type Provider struct {
	Name         string // identifies the provider in errors and in Identity
	TokenURL     string
	UserInfoURL  string
	ClientID     string
	ClientSecret string // empty for a public client
	ClientAuth   ClientAuth
	// SubjectField is the dot-separated path of the user's stable id in
	// the user-info JSON object: "data.id" for X, "id" for Discord.
	SubjectField string
}

// X is X (Twitter) OAuth 2.0 with PKCE; confidential clients authenticate
// with HTTP Basic.
func X(clientID, clientSecret string) Provider {
	return Provider{
		Name:         ProviderX,
		TokenURL:     "https://api.x.com/2/oauth2/token",
		UserInfoURL:  "https://api.x.com/2/users/me",
		ClientID:     clientID,
		ClientSecret: clientSecret,
		ClientAuth:   ClientSecretBasic,
		SubjectField: "data.id",
	}
}

// Discord is Discord OAuth 2.0; the client authenticates with
// client_secret_post.
func Discord(clientID, clientSecret string) Provider {
	return Provider{
		Name:         ProviderDiscord,
		TokenURL:     "https://discord.com/api/oauth2/token",
		UserInfoURL:  "https://discord.com/api/users/@me",
		ClientID:     clientID,
		ClientSecret: clientSecret,
		ClientAuth:   ClientSecretPost,
		SubjectField: "id",
	}
}

// BuiltinProvider returns the provider configured out of the box under name
// (ProviderX or ProviderDiscord).
func BuiltinProvider(name, clientID, clientSecret string) (Provider, error) {
	switch name {
	case ProviderX:
		return X(clientID, clientSecret), nil
	case ProviderDiscord:
		return Discord(clientID, clientSecret), nil
	default:
		return Provider{}, fmt.Errorf("%w: unknown OAuth 2.0 provider %q", ErrOAuth2BadRequest, truncate(name))
	}
}

// AuthCodeGrant is what the browser brought back from the provider.
type AuthCodeGrant struct {
	AuthCode     string
	RedirectURI  string // exactly as sent in the authorization request
	CodeVerifier string // the PKCE verifier (RFC 7636) whose S256 challenge was sent
}

// Identity is the user an authorization code was issued for.
type Identity struct {
	Provider string // Provider.Name
	ClientID string // the client the code was issued to
	Subject  string // the provider's stable user id
	// AccessToken is the provider's bearer token. It is a secret: never
	// log it; hand it on only encrypted.
	AccessToken string
	// UserInfo is the user-info object as returned (numbers are json.Number).
	UserInfo map[string]any
}

// Exchange redeems an authorization code at the provider's token endpoint
// and reads the user's subject from its user-info endpoint. client may be
// nil for NewHTTPClient(). Errors wrap the ErrOAuth2* sentinels.
func (p Provider) Exchange(ctx context.Context, client *http.Client, grant AuthCodeGrant) (*Identity, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	if err := grant.validate(); err != nil {
		return nil, err
	}
	if client == nil {
		client = NewHTTPClient()
	}
	accessToken, err := p.redeem(ctx, client, grant)
	if err != nil {
		return nil, err
	}
	info, err := p.userInfo(ctx, client, accessToken)
	if err != nil {
		return nil, err
	}
	subject, err := lookupSubject(info, p.SubjectField)
	if err != nil {
		return nil, fmt.Errorf("%w: %s user info: %v", ErrOAuth2BadResponse, p.Name, err)
	}
	return &Identity{Provider: p.Name, ClientID: p.ClientID, Subject: subject, AccessToken: accessToken, UserInfo: info}, nil
}

func (p Provider) validate() error {
	if p.Name == "" || p.ClientID == "" || p.SubjectField == "" {
		return fmt.Errorf("%w: provider %q needs a name, a client id and a subject field", ErrOAuth2BadRequest, p.Name)
	}
	for _, endpoint := range []string{p.TokenURL, p.UserInfoURL} {
		if _, err := parseFetchURL(endpoint); err != nil {
			return fmt.Errorf("%w: provider %s endpoint: %v", ErrOAuth2BadRequest, p.Name, err)
		}
	}
	return nil
}

// maxAuthCodeBytes bounds what we forward to a provider.
const maxAuthCodeBytes = 4096

func (g AuthCodeGrant) validate() error {
	if g.AuthCode == "" || len(g.AuthCode) > maxAuthCodeBytes {
		return fmt.Errorf("%w: authorization code is empty or longer than %d bytes", ErrOAuth2BadRequest, maxAuthCodeBytes)
	}
	if u, err := url.Parse(g.RedirectURI); err != nil || !u.IsAbs() || u.Host == "" {
		return fmt.Errorf("%w: redirect URI %q is not an absolute URL", ErrOAuth2BadRequest, truncate(g.RedirectURI))
	}
	if !validCodeVerifier(g.CodeVerifier) {
		return fmt.Errorf("%w: code verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~ (RFC 7636 §4.1)", ErrOAuth2BadRequest)
	}
	return nil
}

func validCodeVerifier(v string) bool {
	if len(v) < 43 || len(v) > 128 {
		return false
	}
	for _, c := range []byte(v) {
		ok := c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.IndexByte("-._~", c) >= 0
		if !ok {
			return false
		}
	}
	return true
}

// redeem posts the code to the token endpoint and returns the access token.
func (p Provider) redeem(ctx context.Context, client *http.Client, grant AuthCodeGrant) (string, error) {
	style := oauth2.AuthStyleInHeader
	if p.ClientAuth == ClientSecretPost || p.ClientSecret == "" {
		style = oauth2.AuthStyleInParams
	}
	cfg := oauth2.Config{
		ClientID:     p.ClientID,
		ClientSecret: p.ClientSecret,
		Endpoint:     oauth2.Endpoint{TokenURL: p.TokenURL, AuthStyle: style},
		RedirectURL:  grant.RedirectURI,
	}
	token, err := cfg.Exchange(context.WithValue(ctx, oauth2.HTTPClient, client), grant.AuthCode, oauth2.VerifierOption(grant.CodeVerifier))
	if err != nil {
		return "", p.tokenError(err)
	}
	if !strings.EqualFold(token.Type(), "Bearer") {
		return "", fmt.Errorf("%w: %s token endpoint issued a %q token, want Bearer", ErrOAuth2BadResponse, p.Name, truncate(token.TokenType))
	}
	return token.AccessToken, nil
}

func (p Provider) tokenError(err error) error {
	var retrieve *oauth2.RetrieveError
	if errors.As(err, &retrieve) {
		status := http.StatusOK
		if retrieve.Response != nil {
			status = retrieve.Response.StatusCode
		}
		return &ProviderError{
			Provider:    p.Name,
			Endpoint:    "token",
			StatusCode:  status,
			Code:        truncate(retrieve.ErrorCode),
			Description: truncate(retrieve.ErrorDescription),
		}
	}
	var transport *url.Error
	if errors.As(err, &transport) {
		return fmt.Errorf("%w: %s token endpoint: %v", ErrOAuth2Unavailable, p.Name, transport)
	}
	return fmt.Errorf("%w: %s token endpoint: %v", ErrOAuth2BadResponse, p.Name, err)
}

// userInfo fetches the user-info object with the access token.
func (p Provider) userInfo(ctx context.Context, client *http.Client, accessToken string) (map[string]any, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.UserInfoURL, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %s user-info request: %v", ErrOAuth2BadRequest, p.Name, err)
	}
	req.Header.Set("Authorization", "Bearer "+accessToken)
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %s user-info endpoint: %v", ErrOAuth2Unavailable, p.Name, err)
	}
	defer resp.Body.Close()
	body, err := readCapped(resp.Body, maxUserInfoBytes)
	if err != nil {
		if errors.Is(err, errTooLarge) {
			return nil, fmt.Errorf("%w: %s user info: %v", ErrOAuth2BadResponse, p.Name, err)
		}
		return nil, fmt.Errorf("%w: %s user-info endpoint: %v", ErrOAuth2Unavailable, p.Name, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, userInfoError(p.Name, resp.StatusCode, body)
	}
	info, err := decodeObject(body)
	if err != nil {
		return nil, fmt.Errorf("%w: %s user info: %v", ErrOAuth2BadResponse, p.Name, err)
	}
	return info, nil
}

// userInfoError reads whatever error description the provider sent: RFC
// 6750 uses error/error_description, Discord message, X title/detail.
func userInfoError(provider string, status int, body []byte) *ProviderError {
	var desc struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
		Message     string `json:"message"`
		Title       string `json:"title"`
		Detail      string `json:"detail"`
	}
	_ = json.Unmarshal(body, &desc) // the status alone is enough when the body is not JSON
	code := cmpOr(desc.Error, desc.Title)
	text := cmpOr(desc.Description, desc.Message, desc.Detail)
	return &ProviderError{Provider: provider, Endpoint: "userinfo", StatusCode: status, Code: truncate(code), Description: truncate(text)}
}

func cmpOr(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}

func decodeObject(body []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber() // ids beyond 2^53 (Discord snowflakes) must not lose digits
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	if obj == nil {
		return nil, errors.New("not a JSON object")
	}
	return obj, nil
}

// lookupSubject follows a dot-separated path to a non-empty string or a
// non-negative integer (returned in decimal, digit for digit).
func lookupSubject(obj map[string]any, path string) (string, error) {
	var value any = obj
	for field := range strings.SplitSeq(path, ".") {
		m, ok := value.(map[string]any)
		if !ok {
			return "", fmt.Errorf("%q: %q is not inside an object", path, field)
		}
		if value, ok = m[field]; !ok {
			return "", fmt.Errorf("no %q field", path)
		}
	}
	switch v := value.(type) {
	case string:
		if v != "" {
			return v, nil
		}
	case json.Number:
		if digits := v.String(); strings.Trim(digits, "0123456789") == "" {
			return digits, nil
		}
	}
	return "", fmt.Errorf("%q is not a non-empty string or integer", path)
}
