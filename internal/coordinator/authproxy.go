package coordinator

import (
	"context"
	"crypto/ecdh"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/bundle"
	"github.com/sigil/sigil/internal/keys"
	"github.com/sigil/sigil/internal/notify"
	"github.com/sigil/sigil/internal/otp"
	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/token"
	"github.com/sigil/sigil/stamp"
)

// The activity types of this file.
var (
	enableAuthProxy       = activity(api.EnableAuthProxy, on(resAuthProxy, actCreate), nil, execEnableAuthProxy)
	updateAuthProxyConfig = activity(api.UpdateAuthProxyConfig, on(resAuthProxy, actUpdate), validateUpdateAuthProxy, execUpdateAuthProxy)
	rotateAuthProxyKey    = activity(api.RotateAuthProxyKey, on(resAuthProxy, actUpdate), nil, execRotateAuthProxyKey)
	disableAuthProxy      = activity(api.DisableAuthProxy, on(resAuthProxy, actDelete), nil, execDisableAuthProxy)
)

// The queries of this file.
var (
	getAuthProxyConfig = query(api.GetAuthProxyConfig, queryGetAuthProxyConfig)
)

// The auth proxy family. An organization's proxy configuration is part of its document (Org.AuthProxy), changed by
// activities its root quorum and policies decide on like any other:
//
//   - ENABLE_AUTH_PROXY creates the configuration (first time), a proxy user, a policy that lets that user submit
//     exactly the activities the proxy sends, and a P-256 proxy key whose private half is encrypted to the proxy
//     service's HPKE key: the coordinator keeps only ciphertext, only the proxy can open it.
//   - UPDATE_AUTH_PROXY_CONFIG changes settings; ROTATE_AUTH_PROXY_KEY replaces the key; DISABLE_AUTH_PROXY turns
//     the configuration off and deletes the key.
//
// The proxy service reads a configuration by id with resolve_auth_proxy_config, stamped with its own service key
// (Config.AuthProxy), never with a key of an organization.

// AuthProxyService identifies the auth proxy service to the coordinator.
type AuthProxyService struct {
	// EncryptionKey is the proxy service's HPKE public key: proxy keys are encrypted to it.
	EncryptionKey *ecdh.PublicKey
	// ServiceKey is the public key (P-256, compressed hex) the proxy service stamps resolve_auth_proxy_config with.
	ServiceKey string
}

// AuthProxyState is an organization's proxy configuration as the coordinator stores it.
type AuthProxyState struct {
	ConfigID string `json:"configId"`
	Enabled  bool   `json:"enabled"`
	UserID   string `json:"userId"`
	PolicyID string `json:"policyId"`
	// APIKeyID and PublicKey name the proxy user's current key; EncryptedKey is its private half, an HPKE ciphertext
	// (JSON) to EncryptionKey (hex). All empty while disabled.
	APIKeyID      string                `json:"apiKeyId,omitempty"`
	PublicKey     string                `json:"publicKey,omitempty"`
	EncryptedKey  string                `json:"encryptedKey,omitempty"`
	EncryptionKey string                `json:"encryptionKey,omitempty"`
	Settings      api.AuthProxySettings `json:"settings"`
	CreatedAt     time.Time             `json:"createdAt"`
	UpdatedAt     time.Time             `json:"updatedAt"`
}

// indexAuthProxy finds an organization by its proxy configuration id.
const indexAuthProxy = "AUTH_PROXY_CONFIG"

// Names the proxy's user and policy get in the organization.
const (
	authProxyUserName   = "auth-proxy"
	authProxyPolicyName = "Auth proxy: login activities only"
)

// Bounds of the settings.
const (
	maxAllowedOrigins    = 64
	minSessionSeconds    = 60
	maxOtpSeconds        = 600
	maxTokenSeconds      = 86400
	defaultSessionSecond = 900
)

// DefaultAuthProxySettings are a new configuration's settings: every origin, e-mail OTP, 6-character alphanumeric
// codes valid 5 minutes, 15-minute sessions, and account look-ups by e-mail or phone only with a verification token.
func DefaultAuthProxySettings() api.AuthProxySettings {
	return api.AuthProxySettings{
		AllowedOrigins: []string{"*"}, AllowedAuthMethods: []string{api.AuthMethodEmail},
		WalletKitSettings:    api.WalletKitSettings{EnabledSocialProviders: []string{}, OauthClientIDs: map[string]string{}},
		OtpExpirationSeconds: 300, VerificationTokenExpirationSeconds: 3600, SessionExpirationSeconds: defaultSessionSecond,
		OtpAlphanumeric: true, OtpLength: 6, VerificationTokenRequiredForGetAccountPii: true,
	}
}

// proxyPolicy is the policy that lets the proxy user submit the activity types marked Proxied and nothing else.
func (r *registry) proxyPolicy(userID string) api.CreatePolicyIntentV3 {
	var types []string
	for _, op := range r.list {
		if op.info().Proxied {
			types = append(types, "'"+op.info().Type+"'")
		}
	}
	return api.CreatePolicyIntentV3{
		PolicyName: authProxyPolicyName, Effect: api.EffectAllow,
		Condition: "activity.type in [" + strings.Join(types, ", ") + "]",
		Consensus: "approvers.any(user, user.id == '" + userID + "')",
		Notes:     "Created by ENABLE_AUTH_PROXY: the auth proxy may send OTP, OAuth, login and signup activities, nothing else.",
	}
}

func (x *execution) authProxy() (*AuthProxyState, error) {
	if x.org.AuthProxy == nil {
		return nil, apierr.New(apierr.FailedPrecondition, "REQUEST_INVALID", "organization %s has no auth proxy configuration; submit ENABLE_AUTH_PROXY first", x.org.ID)
	}
	return x.org.AuthProxy, nil
}

func execEnableAuthProxy(x *execution, _ *api.EnableAuthProxyIntent) (*api.EnableAuthProxyResult, error) {
	if x.org.ParentID != "" {
		return nil, apierr.New(apierr.FailedPrecondition, "REQUEST_INVALID", "the auth proxy is configured on a parent organization; sub-organization %s is served by its parent's configuration", x.org.ID)
	}
	if x.c.cfg.AuthProxy == nil {
		return nil, apierr.New(apierr.FailedPrecondition, "REQUEST_INVALID", "this server has no auth proxy service configured, so the auth proxy cannot be enabled")
	}
	p := x.org.AuthProxy
	if p != nil && p.Enabled {
		return nil, apierr.New(apierr.FailedPrecondition, "REQUEST_INVALID", "the auth proxy is already enabled (configuration %s); change settings with UPDATE_AUTH_PROXY_CONFIG or replace the key with ROTATE_AUTH_PROXY_KEY", p.ConfigID)
	}
	if p == nil {
		p = &AuthProxyState{ConfigID: newID(), Settings: DefaultAuthProxySettings(), CreatedAt: x.now}
		x.org.AuthProxy = p
	}
	user := x.org.User(p.UserID)
	if user == nil {
		u, err := x.addUser(x.org, userSpec{path: "authProxy", Name: authProxyUserName})
		if err != nil {
			return nil, err
		}
		user, p.UserID = u, u.ID
	}
	if err := x.ensureProxyPolicy(p); err != nil {
		return nil, err
	}
	if err := x.issueProxyKey(p, user); err != nil {
		return nil, err
	}
	p.Enabled, p.UpdatedAt = true, x.now
	return &api.EnableAuthProxyResult{UserID: p.UserID, ConfigID: p.ConfigID}, nil
}

// ensureProxyPolicy creates the proxy user's policy, or restores it to what this version of the proxy sends.
func (x *execution) ensureProxyPolicy(p *AuthProxyState) error {
	want := x.c.ops.proxyPolicy(p.UserID)
	if pol := x.org.Policy(p.PolicyID); pol != nil {
		pol.Effect, pol.Condition, pol.Consensus, pol.UpdatedAt = want.Effect, want.Condition, want.Consensus, x.now
		return nil
	}
	id, err := x.addPolicy(want)
	if err != nil {
		return err
	}
	p.PolicyID = id
	return nil
}

// issueProxyKey gives the proxy user a new P-256 key, replacing the previous one, and keeps its private half only
// encrypted to the proxy service.
func (x *execution) issueProxyKey(p *AuthProxyState, u *User) error {
	svc := x.c.cfg.AuthProxy
	if svc == nil {
		return apierr.New(apierr.FailedPrecondition, "REQUEST_INVALID", "this server has no auth proxy service configured")
	}
	key, err := stamp.GenerateAPIKey(stamp.CurveP256)
	if err != nil {
		return err
	}
	u.APIKeys = slices.DeleteFunc(u.APIKeys, func(k *APIKey) bool { return k.ID == p.APIKeyID })
	// The proxy service's key, which the coordinator makes for it: it carries nothing of the credential enabling it.
	ids, err := x.addAPIKeys(x.org, u, "authProxy.apiKey", []api.APIKeyParamsV2{{
		APIKeyName: "auth proxy " + x.now.Format(time.RFC3339), PublicKey: key.PublicKeyHex(), CurveType: api.CurveP256}}, lineage{})
	if err != nil {
		return err
	}
	plaintext, err := json.Marshal(api.AuthProxyKeyPlaintext{OrganizationID: x.org.ID, ConfigID: p.ConfigID,
		PublicKey: key.PublicKeyHex(), PrivateKey: key.PrivateKeyHex()})
	if err != nil {
		return err
	}
	ct, err := bundle.Seal(svc.EncryptionKey, plaintext)
	keys.Zero(plaintext)
	if err != nil {
		return err
	}
	enc, err := json.Marshal(ct)
	if err != nil {
		return err
	}
	p.APIKeyID, p.PublicKey, p.EncryptedKey = ids[0], key.PublicKeyHex(), string(enc)
	p.EncryptionKey = hex.EncodeToString(svc.EncryptionKey.Bytes())
	u.UpdatedAt = x.now
	return nil
}

func execRotateAuthProxyKey(x *execution, _ *api.RotateAuthProxyKeyIntent) (*api.RotateAuthProxyKeyResult, error) {
	p, err := x.authProxy()
	if err != nil {
		return nil, err
	}
	if !p.Enabled {
		return nil, apierr.New(apierr.FailedPrecondition, "REQUEST_INVALID", "the auth proxy is disabled; ENABLE_AUTH_PROXY issues a new key")
	}
	u, err := x.user(p.UserID)
	if err != nil {
		return nil, err
	}
	if err := x.issueProxyKey(p, u); err != nil {
		return nil, err
	}
	p.UpdatedAt = x.now
	return &api.RotateAuthProxyKeyResult{ConfigID: p.ConfigID, APIKeyID: p.APIKeyID, PublicKey: p.PublicKey}, nil
}

func execDisableAuthProxy(x *execution, _ *api.DisableAuthProxyIntent) (*api.DisableAuthProxyResult, error) {
	p, err := x.authProxy()
	if err != nil {
		return nil, err
	}
	if !p.Enabled {
		return nil, apierr.New(apierr.FailedPrecondition, "REQUEST_INVALID", "the auth proxy is already disabled")
	}
	if u := x.org.User(p.UserID); u != nil {
		u.APIKeys = slices.DeleteFunc(u.APIKeys, func(k *APIKey) bool { return k.ID == p.APIKeyID })
		u.UpdatedAt = x.now
	}
	p.Enabled, p.APIKeyID, p.PublicKey, p.EncryptedKey, p.EncryptionKey = false, "", "", "", ""
	p.UpdatedAt = x.now
	return &api.DisableAuthProxyResult{}, nil
}

func validateUpdateAuthProxy(p *api.UpdateAuthProxyConfigIntent) error {
	if p.AllowedOrigins != nil {
		if _, err := normalizeOrigins(p.AllowedOrigins); err != nil {
			return err
		}
	}
	for i, m := range p.AllowedAuthMethods {
		if !slices.Contains(api.AuthMethods, m) {
			return apierr.Invalid("parameters.allowedAuthMethods[%d]: %q is not one of %s", i, m, strings.Join(api.AuthMethods, ", "))
		}
	}
	in := otpInit{}
	if p.SendFromEmailAddress != nil {
		in.from = *p.SendFromEmailAddress
	}
	if p.ReplyToEmailAddress != nil {
		in.replyTo = *p.ReplyToEmailAddress
	}
	if p.SendFromEmailSenderName != nil {
		in.fromName = *p.SendFromEmailSenderName
	}
	if err := in.validateSender(); err != nil {
		return err
	}
	if e := p.EmailCustomizationParams; e != nil {
		if err := checkLabel("parameters.emailCustomizationParams.appName", e.AppName); err != nil {
			return err
		}
		if err := validateEmailCustomization(api.EmailCustomizationParamsV2{LogoURL: e.LogoURL, MagicLinkTemplate: e.MagicLinkTemplate,
			TemplateVariables: e.TemplateVariables, TemplateID: e.TemplateID}); err != nil {
			return err
		}
	}
	if s := p.SmsCustomizationParams; s != nil && s.Template != "" {
		if len(s.Template) > maxCustomizationLen {
			return apierr.Invalid("parameters.smsCustomizationParams.template is longer than %d bytes", maxCustomizationLen)
		}
		if _, err := notify.OTPText(s.Template, "app", "000000"); err != nil {
			return apierr.Invalid("parameters.smsCustomizationParams.template: %s", err.Error())
		}
	}
	if w := p.WalletKitSettings; w != nil {
		if err := validateWalletKit(w); err != nil {
			return err
		}
	}
	for _, r := range []struct {
		path     string
		v        *int32
		min, max int32
	}{
		{"otpExpirationSeconds", p.OtpExpirationSeconds, 1, maxOtpSeconds},
		{"verificationTokenExpirationSeconds", p.VerificationTokenExpirationSeconds, 1, maxTokenSeconds},
		{"sessionExpirationSeconds", p.SessionExpirationSeconds, minSessionSeconds, 1<<31 - 1},
		{"otpLength", p.OtpLength, otp.MinLength, otp.MaxLength},
	} {
		if r.v != nil && (*r.v < r.min || *r.v > r.max) {
			return apierr.Invalid("parameters.%s must be between %d and %d, got %d", r.path, r.min, r.max, *r.v)
		}
	}
	return nil
}

func validateWalletKit(w *api.WalletKitSettingsParams) error {
	for i, m := range w.EnabledSocialProviders {
		if !slices.Contains(api.SocialAuthMethods, m) {
			return apierr.Invalid("parameters.walletKitSettings.enabledSocialProviders[%d]: %q is not one of %s", i, m, strings.Join(api.SocialAuthMethods, ", "))
		}
	}
	for provider, id := range w.OauthClientIDs {
		if !slices.Contains(api.SocialAuthMethods, provider) {
			return apierr.Invalid("parameters.walletKitSettings.oauthClientIds: %q is not one of %s", provider, strings.Join(api.SocialAuthMethods, ", "))
		}
		if id == "" || len(id) > maxNameLen {
			return apierr.Invalid("parameters.walletKitSettings.oauthClientIds.%s must be a client id of 1 to %d bytes", provider, maxNameLen)
		}
	}
	if w.OauthRedirectURL != nil && *w.OauthRedirectURL != "" {
		if u, err := url.Parse(*w.OauthRedirectURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return apierr.Invalid("parameters.walletKitSettings.oauthRedirectUrl: %q is not an http(s) URL", *w.OauthRedirectURL)
		}
	}
	return nil
}

// normalizeOrigins checks a list of allowed origins: "*" alone, or scheme://host[:port] origins, which it returns
// lower-cased without a trailing slash, as browsers send them.
func normalizeOrigins(origins []string) ([]string, error) {
	if len(origins) == 0 || len(origins) > maxAllowedOrigins {
		return nil, apierr.Invalid("parameters.allowedOrigins must list 1 to %d origins (or just \"*\" for every origin)", maxAllowedOrigins)
	}
	out := make([]string, 0, len(origins))
	for i, o := range origins {
		if o == "*" {
			if len(origins) != 1 {
				return nil, apierr.Invalid("parameters.allowedOrigins: \"*\" allows every origin and cannot be combined with others")
			}
			return []string{"*"}, nil
		}
		u, err := url.Parse(strings.TrimSuffix(o, "/"))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
			return nil, apierr.Invalid("parameters.allowedOrigins[%d]: %q is not an origin like https://app.example.com or http://localhost:3000", i, o)
		}
		out = append(out, strings.ToLower(u.Scheme+"://"+u.Host))
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

func execUpdateAuthProxy(x *execution, p *api.UpdateAuthProxyConfigIntent) (*api.UpdateAuthProxyConfigResult, error) {
	st, err := x.authProxy()
	if err != nil {
		return nil, err
	}
	s := &st.Settings
	if p.AllowedOrigins != nil {
		if s.AllowedOrigins, err = normalizeOrigins(p.AllowedOrigins); err != nil {
			return nil, err
		}
	}
	if p.AllowedAuthMethods != nil {
		s.AllowedAuthMethods = sortedSet(p.AllowedAuthMethods)
	}
	in := otpInit{}
	setString(&in.from, p.SendFromEmailAddress)
	setString(&in.replyTo, p.ReplyToEmailAddress)
	if err := in.validateSender(); err != nil { // normalizes the addresses
		return nil, err
	}
	if err := x.checkSenders(in.from, in.replyTo); err != nil {
		return nil, err
	}
	if p.SendFromEmailAddress != nil {
		s.SendFromEmailAddress = in.from
	}
	if p.ReplyToEmailAddress != nil {
		s.ReplyToEmailAddress = in.replyTo
	}
	setString(&s.SendFromEmailSenderName, p.SendFromEmailSenderName)
	if p.EmailCustomizationParams != nil {
		s.EmailCustomization = *p.EmailCustomizationParams
	}
	if p.SmsCustomizationParams != nil {
		s.SmsCustomization = *p.SmsCustomizationParams
	}
	if w := p.WalletKitSettings; w != nil {
		if w.EnabledSocialProviders != nil {
			s.WalletKitSettings.EnabledSocialProviders = sortedSet(w.EnabledSocialProviders)
		}
		if w.OauthClientIDs != nil {
			s.WalletKitSettings.OauthClientIDs = w.OauthClientIDs
		}
		setString(&s.WalletKitSettings.OauthRedirectURL, w.OauthRedirectURL)
	}
	if p.SessionExpirationSeconds != nil && time.Duration(*p.SessionExpirationSeconds)*time.Second > x.c.cfg.MaxSessionTTL {
		return nil, apierr.Invalid("parameters.sessionExpirationSeconds: %d is more than this server's longest session, %d seconds", *p.SessionExpirationSeconds, int64(x.c.cfg.MaxSessionTTL/time.Second))
	}
	for _, f := range []struct {
		dst *int32
		src *int32
	}{{&s.OtpExpirationSeconds, p.OtpExpirationSeconds}, {&s.VerificationTokenExpirationSeconds, p.VerificationTokenExpirationSeconds},
		{&s.SessionExpirationSeconds, p.SessionExpirationSeconds}, {&s.OtpLength, p.OtpLength}} {
		if f.src != nil {
			*f.dst = *f.src
		}
	}
	if p.OtpAlphanumeric != nil {
		s.OtpAlphanumeric = *p.OtpAlphanumeric
	}
	if p.VerificationTokenRequiredForGetAccountPii != nil {
		s.VerificationTokenRequiredForGetAccountPii = *p.VerificationTokenRequiredForGetAccountPii
	}
	st.UpdatedAt = x.now
	return &api.UpdateAuthProxyConfigResult{ConfigID: st.ConfigID}, nil
}

func setString(dst *string, src *string) {
	if src != nil {
		*dst = *src
	}
}

func sortedSet(in []string) []string {
	out := slices.Clone(in)
	slices.Sort(out)
	return slices.Compact(out)
}

func renderAuthProxy(org *Org) api.AuthProxyConfig {
	p := org.AuthProxy
	return api.AuthProxyConfig{ConfigID: p.ConfigID, OrganizationID: org.ID, Enabled: p.Enabled, ProxyUserID: p.UserID,
		ProxyAPIKeyID: p.APIKeyID, ProxyPublicKey: p.PublicKey, AuthProxySettings: p.Settings,
		CreatedAt: api.NewTimestamp(p.CreatedAt), UpdatedAt: api.NewTimestamp(p.UpdatedAt)}
}

func queryGetAuthProxyConfig(r *reader, _ *api.OrganizationRequest) (*api.GetAuthProxyConfigResponse, error) {
	if r.org.AuthProxy == nil {
		return nil, apierr.NotFoundf("organization %s has no auth proxy configuration; submit ENABLE_AUTH_PROXY to create one", r.org.ID)
	}
	return &api.GetAuthProxyConfigResponse{Config: renderAuthProxy(r.org)}, nil
}

// resolveAuthProxyConfig is the query the proxy service sends, stamped with its own key (not a user's): the
// configuration with its id, and the encrypted proxy key.
var resolveAuthProxyConfig = &ServiceQuery[api.ResolveAuthProxyConfigRequest, api.ResolveAuthProxyConfigResponse]{
	QueryOf: api.ResolveAuthProxyConfig, Run: serveResolveAuthProxyConfig}

func serveResolveAuthProxyConfig(ctx context.Context, c *Coordinator, header http.Header, body []byte) (*api.ResolveAuthProxyConfigResponse, error) {
	svc := c.cfg.AuthProxy
	if svc == nil {
		return nil, apierr.New(apierr.FailedPrecondition, "REQUEST_INVALID", "this server has no auth proxy service configured")
	}
	st, err := stamp.FromHeaders(header)
	if err != nil {
		return nil, stampError(err)
	}
	s, ok := st.(*stamp.APIKeyStamp)
	if !ok || s.PublicKey != strings.ToLower(svc.ServiceKey) {
		return nil, apierr.Denied("resolve_auth_proxy_config is answered only to the auth proxy service's key")
	}
	if err := s.Verify(body); err != nil {
		return nil, errBadSignature("api key")
	}
	var req api.ResolveAuthProxyConfigRequest
	if err := decodeRequest(body, &req); err != nil {
		return nil, err
	}
	if err := checkID("configId", req.ConfigID); err != nil {
		return nil, err
	}
	org, err := c.orgByAuthProxyConfig(ctx, req.ConfigID)
	if err != nil {
		return nil, err
	}
	tk, err := c.ownKey(ctx, tokenKeyName)
	if err != nil {
		return nil, err
	}
	tokenKey, err := token.CompressedPublicKeyHex(&tk.PublicKey)
	if err != nil {
		return nil, err
	}
	p := org.AuthProxy
	return &api.ResolveAuthProxyConfigResponse{Config: renderAuthProxy(org), EncryptedProxyKey: p.EncryptedKey,
		EncryptionPublicKey: p.EncryptionKey, OrganizationName: org.Name, TokenPublicKey: tokenKey}, nil
}

func (c *Coordinator) orgByAuthProxyConfig(ctx context.Context, configID string) (*Org, error) {
	notFound := apierr.NotFoundf("no auth proxy configuration %s", configID)
	hits, err := c.store.FindIndex(ctx, indexAuthProxy, configID)
	if err != nil {
		return nil, err
	}
	if len(hits) != 1 {
		return nil, notFound
	}
	org, err := c.loadOrg(ctx, hits[0].OrgID)
	if err != nil {
		if apierr.As(err).Code == apierr.NotFound {
			return nil, notFound
		}
		return nil, err
	}
	if org.AuthProxy == nil || org.AuthProxy.ConfigID != configID {
		return nil, notFound
	}
	return org, nil
}

// authProxyIndex is the index entry that finds the organization of a proxy configuration.
func (o *Org) authProxyIndex() []store.IndexEntry {
	if o.AuthProxy == nil {
		return nil
	}
	return []store.IndexEntry{{Kind: indexAuthProxy, Value: o.AuthProxy.ConfigID}}
}

// String keeps proxy state out of logs beyond its identity.
func (p *AuthProxyState) String() string {
	return fmt.Sprintf("auth proxy %s (enabled %t, user %s)", p.ConfigID, p.Enabled, p.UserID)
}
