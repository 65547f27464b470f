package authproxy

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/edge"
	"github.com/sigil/sigil/internal/otp"
	"github.com/sigil/sigil/internal/token"
)

// endpoint serves one /v1 path for an admitted request and returns the flattened result.
type endpoint func(s *Server, ctx context.Context, rq *request) (any, error)

// endpoints are the proxy's /v1 paths (first specification, section 4.1; reference, section 6).
var endpoints = map[string]endpoint{
	"otp_init":                 func(s *Server, ctx context.Context, rq *request) (any, error) { return s.otpInit(ctx, rq, false) },
	"otp_init_v2":              func(s *Server, ctx context.Context, rq *request) (any, error) { return s.otpInit(ctx, rq, true) },
	"otp_verify":               (*Server).otpVerify,
	"otp_verify_v2":            (*Server).otpVerifyV2,
	"otp_login":                func(s *Server, ctx context.Context, rq *request) (any, error) { return s.otpLogin(ctx, rq, false) },
	"otp_login_v2":             func(s *Server, ctx context.Context, rq *request) (any, error) { return s.otpLogin(ctx, rq, true) },
	"signup":                   signupV1,
	"signup_v2":                signupV2,
	"oauth2_authenticate":      (*Server).oauth2Authenticate,
	"oauth_login":              (*Server).oauthLogin,
	"account":                  (*Server).account,
	"wallet_kit_config":        (*Server).walletKitConfig,
	"wallet_kit_client_params": (*Server).walletKitClientParams,
}

func (s *Server) otpVerify(ctx context.Context, rq *request) (any, error) {
	var body api.ProxyVerifyOtpRequest
	if err := decode(rq.body, &body); err != nil {
		return nil, err
	}
	c, err := s.coordinator(rq)
	if err != nil {
		return nil, err
	}
	res, _, err := c.VerifyOtp(ctx, rq.cfg.Config.OrganizationID, api.VerifyOtpIntent{OtpID: body.OtpID, OtpCode: body.OtpCode,
		PublicKey: body.PublicKey, ExpirationSeconds: seconds(rq.cfg.Config.VerificationTokenExpirationSeconds)})
	if err != nil {
		return nil, coordinatorError(err)
	}
	return api.ProxyVerifyOtpResponse{VerificationToken: res.VerificationToken}, nil
}

func (s *Server) otpVerifyV2(ctx context.Context, rq *request) (any, error) {
	var body api.ProxyVerifyOtpV2Request
	if err := decode(rq.body, &body); err != nil {
		return nil, err
	}
	c, err := s.coordinator(rq)
	if err != nil {
		return nil, err
	}
	res, _, err := c.VerifyOtpV2(ctx, rq.cfg.Config.OrganizationID, api.VerifyOtpIntentV2{OtpID: body.OtpID,
		EncryptedOtpBundle: body.EncryptedOtpBundle, ExpirationSeconds: seconds(rq.cfg.Config.VerificationTokenExpirationSeconds)})
	if err != nil {
		return nil, coordinatorError(err)
	}
	return api.ProxyVerifyOtpResponse{VerificationToken: res.VerificationToken}, nil
}

// otpInit sends a code with the configuration's OTP settings; the app chooses only the type, the contact, an e-mail
// template and its userIdentifier.
func (s *Server) otpInit(ctx context.Context, rq *request, v2 bool) (any, error) {
	var body api.ProxyInitOtpRequest
	if err := decode(rq.body, &body); err != nil {
		return nil, err
	}
	set := rq.cfg.Config.AuthProxySettings
	switch body.OtpType {
	case api.OtpTypeEmail:
		if err := requireMethod(set, api.AuthMethodEmail, "e-mail OTP"); err != nil {
			return nil, err
		}
	case api.OtpTypeSMS:
		if err := requireMethod(set, api.AuthMethodSMS, "SMS OTP"); err != nil {
			return nil, err
		}
	default:
		return nil, apierr.Invalid("otpType must be OTP_TYPE_EMAIL or OTP_TYPE_SMS, got %q", body.OtpType)
	}
	appName := set.EmailCustomization.AppName
	if appName == "" {
		appName = rq.cfg.OrganizationName
	}
	email := &api.EmailCustomizationParamsV2{LogoURL: set.EmailCustomization.LogoURL, MagicLinkTemplate: set.EmailCustomization.MagicLinkTemplate,
		TemplateVariables: set.EmailCustomization.TemplateVariables, TemplateID: set.EmailCustomization.TemplateID}
	if body.EmailCustomization != nil && body.EmailCustomization.TemplateID != "" {
		email.TemplateID = body.EmailCustomization.TemplateID
	}
	p := api.InitOtpIntentV2{OtpType: body.OtpType, Contact: body.Contact, AppName: appName, EmailCustomization: email,
		UserIdentifier: body.UserIdentifier, SendFromEmailAddress: set.SendFromEmailAddress, SendFromEmailSenderName: set.SendFromEmailSenderName,
		ReplyToEmailAddress: set.ReplyToEmailAddress, Alphanumeric: &set.OtpAlphanumeric, ExpirationSeconds: seconds(set.OtpExpirationSeconds)}
	if set.OtpLength != 0 {
		p.OtpLength = &set.OtpLength
	}
	if set.SmsCustomization.Template != "" {
		p.SmsCustomization = &set.SmsCustomization
	}
	c, err := s.coordinator(rq)
	if err != nil {
		return nil, err
	}
	org := rq.cfg.Config.OrganizationID
	if v2 {
		res, _, err := c.InitOtpV3(ctx, org, api.InitOtpIntentV3(p))
		if err != nil {
			return nil, coordinatorError(err)
		}
		return api.ProxyInitOtpV2Response{OtpID: res.OtpID, OtpEncryptionTargetBundle: res.OtpEncryptionTargetBundle}, nil
	}
	res, _, err := c.InitOtp(ctx, org, p)
	if err != nil {
		return nil, coordinatorError(err)
	}
	return api.ProxyInitOtpResponse{OtpID: res.OtpID}, nil
}

// otpLogin logs the user into their sub-organization: the one named, or the one holding the verified contact.
func (s *Server) otpLogin(ctx context.Context, rq *request, v2 bool) (any, error) {
	var body api.ProxyOtpLoginRequest
	if err := decode(rq.body, &body); err != nil {
		return nil, err
	}
	if v2 && body.ClientSignature == nil {
		return nil, apierr.Invalid("request.clientSignature is required by /v1/otp_login_v2")
	}
	c, err := s.coordinator(rq)
	if err != nil {
		return nil, err
	}
	org := body.OrganizationID
	if org == "" {
		claims, err := unverifiedTokenContact(body.VerificationToken)
		if err != nil {
			return nil, err
		}
		if org, err = s.subOrgByContact(ctx, c, rq, claims.VerificationType, claims.Contact); err != nil {
			return nil, err
		}
	} else if err := s.checkSubOrg(rq, org); err != nil {
		return nil, err
	}
	ttl := seconds(rq.cfg.Config.SessionExpirationSeconds)
	var res *api.OtpLoginResult
	if v2 {
		res, _, err = c.OtpLoginV2(ctx, org, api.OtpLoginIntentV2{VerificationToken: body.VerificationToken, PublicKey: body.PublicKey,
			ClientSignature: body.ClientSignature, ExpirationSeconds: ttl, InvalidateExisting: body.InvalidateExisting})
	} else {
		res, _, err = c.OtpLogin(ctx, org, api.OtpLoginIntent{VerificationToken: body.VerificationToken, PublicKey: body.PublicKey,
			ClientSignature: body.ClientSignature, ExpirationSeconds: ttl, InvalidateExisting: body.InvalidateExisting})
	}
	if err != nil {
		return nil, coordinatorError(err)
	}
	return api.ProxySessionResponse{Session: res.Session}, nil
}

// checkSubOrg refuses a login into the configuration's own organization: the proxy signs users into their
// sub-organizations, never into the parent whose root users administer it.
func (s *Server) checkSubOrg(rq *request, org string) error {
	if org == rq.cfg.Config.OrganizationID {
		return apierr.Denied("the auth proxy logs users into sub-organizations of %s, not into %s itself", org, org)
	}
	return nil
}

// subOrgByContact finds the sub-organization holding an e-mail address or phone number: the one whose user proved
// it owns the contact; failing that, the only one with it unproved (an account signed up without a verification token
// and never logged into). Two unproved accounts with one contact are ambiguous: the caller must name the organization.
func (s *Server) subOrgByContact(ctx context.Context, c *client.Client, rq *request, otpType, contact string) (string, error) {
	filter := api.FilterEmail
	if otpType == api.OtpTypeSMS {
		filter = api.FilterPhoneNumber
	}
	req := api.ListSubOrgsRequest{OrganizationID: rq.cfg.Config.OrganizationID, FilterType: filter, FilterValue: contact,
		PaginationOptions: &api.Pagination{Limit: "2"}}
	verified, err := c.ListVerifiedSubOrgs(ctx, req)
	if err != nil {
		return "", coordinatorError(err)
	}
	if len(verified.OrganizationIDs) > 0 {
		return verified.OrganizationIDs[0], nil
	}
	all, err := c.ListSubOrgs(ctx, req)
	if err != nil {
		return "", coordinatorError(err)
	}
	switch len(all.OrganizationIDs) {
	case 0:
		return "", apierr.NotFoundf("no account has the contact this verification token verified; sign up first")
	case 1:
		return all.OrganizationIDs[0], nil
	}
	return "", apierr.Invalid("several accounts have this contact and none has proved it owns it; send organizationId")
}

func (s *Server) findSubOrg(ctx context.Context, c *client.Client, rq *request, filter, value, notFound string) (string, error) {
	res, err := c.ListSubOrgs(ctx, api.ListSubOrgsRequest{OrganizationID: rq.cfg.Config.OrganizationID, FilterType: filter,
		FilterValue: value, PaginationOptions: &api.Pagination{Limit: "1"}})
	if err != nil {
		return "", coordinatorError(err)
	}
	if len(res.OrganizationIDs) == 0 {
		return "", apierr.NotFoundf("%s", notFound)
	}
	return res.OrganizationIDs[0], nil
}

// unverifiedTokenContact reads the contact of a verification token without checking it: only to find the
// sub-organization to send the login to, where the coordinator checks the token in full.
func unverifiedTokenContact(tok string) (token.VerificationClaims, error) {
	bad := apierr.Invalid("request.verificationToken is not a verification token (a JWT from /v1/otp_verify)")
	parts := strings.Split(tok, ".")
	if len(parts) != 3 || len(tok) > 8192 {
		return token.VerificationClaims{}, bad
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return token.VerificationClaims{}, bad
	}
	var c struct {
		VerificationType string `json:"verification_type"`
		Contact          string `json:"contact"`
	}
	if json.Unmarshal(payload, &c) != nil || c.Contact == "" {
		return token.VerificationClaims{}, bad
	}
	return token.VerificationClaims{VerificationType: c.VerificationType, Contact: c.Contact}, nil
}

func signupV1(s *Server, ctx context.Context, rq *request) (any, error) {
	var body api.ProxySignupRequest[api.OauthProviderParams]
	if err := decode(rq.body, &body); err != nil {
		return nil, err
	}
	users := []api.RootUserParamsV4{{UserName: signupUserName(body.UserName, body.UserEmail), UserEmail: body.UserEmail,
		UserPhoneNumber: body.UserPhoneNumber, APIKeys: body.APIKeys, Authenticators: body.Authenticators, OauthProviders: body.OauthProviders}}
	p := api.CreateSubOrganizationIntentV7{SubOrganizationName: signupOrgName(body.OrganizationName), RootUsers: users,
		RootQuorumThreshold: one(), Wallet: body.Wallet, VerificationToken: body.VerificationToken, ClientSignature: body.ClientSignature}
	return s.signup(ctx, rq, func(c *client.Client) (*api.CreateSubOrganizationResult, *api.Activity, error) {
		return c.CreateSubOrganizationV7(ctx, rq.cfg.Config.OrganizationID, p)
	})
}

func signupV2(s *Server, ctx context.Context, rq *request) (any, error) {
	var body api.ProxySignupRequest[api.OauthProviderParamsV2]
	if err := decode(rq.body, &body); err != nil {
		return nil, err
	}
	users := []api.RootUserParamsV5{{UserName: signupUserName(body.UserName, body.UserEmail), UserEmail: body.UserEmail,
		UserPhoneNumber: body.UserPhoneNumber, APIKeys: body.APIKeys, Authenticators: body.Authenticators, OauthProviders: body.OauthProviders}}
	p := api.CreateSubOrganizationIntentV8{SubOrganizationName: signupOrgName(body.OrganizationName), RootUsers: users,
		RootQuorumThreshold: one(), Wallet: body.Wallet, VerificationToken: body.VerificationToken, ClientSignature: body.ClientSignature}
	return s.signup(ctx, rq, func(c *client.Client) (*api.CreateSubOrganizationResult, *api.Activity, error) {
		return c.CreateSubOrganization(ctx, rq.cfg.Config.OrganizationID, p)
	})
}

// signup creates the user's sub-organization, asking for app proofs, which it passes through unverified.
func (s *Server) signup(ctx context.Context, rq *request, create func(*client.Client) (*api.CreateSubOrganizationResult, *api.Activity, error)) (any, error) {
	c, err := s.coordinator(rq)
	if err != nil {
		return nil, err
	}
	c.GenerateAppProofs = true
	res, activity, err := create(c)
	if err != nil {
		return nil, coordinatorError(err)
	}
	out := api.ProxySignupResponse{OrganizationID: res.SubOrganizationID, Wallet: res.Wallet, AppProofs: activity.AppProofs}
	if len(res.RootUserIDs) > 0 {
		out.UserID = res.RootUserIDs[0]
	}
	return out, nil
}

// signupUserName and signupOrgName are the defaults @turnkey/core documents for names the app leaves out.
func signupUserName(name, email string) string {
	switch {
	case name != "":
		return name
	case email != "":
		return email
	}
	return "user-" + strconv.FormatInt(time.Now().UnixMilli(), 10)
}

func signupOrgName(name string) string {
	if name != "" {
		return name
	}
	return "sub-org-" + strconv.FormatInt(time.Now().UnixMilli(), 10)
}

func one() *int32 {
	v := int32(1)
	return &v
}

// oauth2Providers maps the OAuth 2.0 providers of /v1/oauth2_authenticate to the method that enables them.
var oauth2Providers = map[string]string{api.Oauth2ProviderX: api.AuthMethodX, api.Oauth2ProviderDiscord: api.AuthMethodDiscord}

func (s *Server) oauth2Authenticate(ctx context.Context, rq *request) (any, error) {
	var body api.ProxyOauth2AuthenticateRequest
	if err := decode(rq.body, &body); err != nil {
		return nil, err
	}
	method, ok := oauth2Providers[body.Provider]
	if !ok {
		return nil, apierr.Invalid("provider must be OAUTH2_PROVIDER_X or OAUTH2_PROVIDER_DISCORD, got %q", body.Provider)
	}
	if err := requireMethod(rq.cfg.Config.AuthProxySettings, method, body.Provider); err != nil {
		return nil, err
	}
	c, err := s.coordinator(rq)
	if err != nil {
		return nil, err
	}
	creds, err := c.ListOauth2Credentials(ctx, rq.cfg.Config.OrganizationID)
	if err != nil {
		return nil, coordinatorError(err)
	}
	credID := ""
	for _, cr := range creds.Oauth2Credentials {
		if cr.Provider == body.Provider && cr.ClientID == body.ClientID {
			credID = cr.Oauth2CredentialID
			break
		}
	}
	if credID == "" {
		return nil, apierr.NotFoundf("organization %s has no OAuth 2.0 credential for %s with client id %s (CREATE_OAUTH2_CREDENTIAL)", rq.cfg.Config.OrganizationID, body.Provider, body.ClientID)
	}
	res, _, err := c.Oauth2Authenticate(ctx, rq.cfg.Config.OrganizationID, api.Oauth2AuthenticateIntent{Oauth2CredentialID: credID,
		AuthCode: body.AuthCode, RedirectURI: body.RedirectURI, CodeVerifier: body.CodeVerifier, Nonce: body.Nonce})
	if err != nil {
		return nil, coordinatorError(err)
	}
	return api.ProxyOauth2AuthenticateResponse{OidcToken: res.OidcToken}, nil
}

func (s *Server) oauthLogin(ctx context.Context, rq *request) (any, error) {
	var body api.ProxyOauthLoginRequest
	if err := decode(rq.body, &body); err != nil {
		return nil, err
	}
	set := rq.cfg.Config.AuthProxySettings
	if !slices.ContainsFunc(api.SocialAuthMethods, func(m string) bool { return methodEnabled(set, m) }) {
		return nil, apierr.Denied("no social login is enabled for auth proxy configuration %s", rq.cfg.Config.ConfigID)
	}
	c, err := s.coordinator(rq)
	if err != nil {
		return nil, err
	}
	org := body.OrganizationID
	if org == "" {
		if org, err = s.findSubOrg(ctx, c, rq, api.FilterOIDCToken, body.OidcToken, "no account holds this OIDC identity; sign up first"); err != nil {
			return nil, err
		}
	} else if err := s.checkSubOrg(rq, org); err != nil {
		return nil, err
	}
	res, _, err := c.OauthLogin(ctx, org, api.OauthLoginIntent{OidcToken: body.OidcToken, PublicKey: body.PublicKey,
		ExpirationSeconds: seconds(set.SessionExpirationSeconds), InvalidateExisting: body.InvalidateExisting})
	if err != nil {
		return nil, coordinatorError(err)
	}
	return api.ProxySessionResponse{Session: res.Session}, nil
}

// accountFilters are the look-ups /v1/account offers.
var accountFilters = []string{api.FilterCredentialID, api.FilterName, api.FilterUsername, api.FilterEmail,
	api.FilterPhoneNumber, api.FilterOIDCToken, api.FilterPublicKey}

// account finds the sub-organization matching a filter. With VerificationTokenRequiredForGetAccountPii, an e-mail or
// phone look-up needs a verification token for that very contact, so the proxy cannot be used to learn who has an
// account.
func (s *Server) account(ctx context.Context, rq *request) (any, error) {
	var body api.ProxyAccountRequest
	if err := decode(rq.body, &body); err != nil {
		return nil, err
	}
	if !slices.Contains(accountFilters, body.FilterType) {
		return nil, apierr.Invalid("filterType must be one of %s, got %q", strings.Join(accountFilters, ", "), body.FilterType)
	}
	if body.FilterValue == "" {
		return nil, apierr.Invalid("filterValue is required")
	}
	pii := body.FilterType == api.FilterEmail || body.FilterType == api.FilterPhoneNumber
	if pii && rq.cfg.Config.VerificationTokenRequiredForGetAccountPii {
		if err := checkContactToken(rq.cfg, body); err != nil {
			return nil, err
		}
	}
	c, err := s.coordinator(rq)
	if err != nil {
		return nil, err
	}
	res, err := c.ListSubOrgs(ctx, api.ListSubOrgsRequest{OrganizationID: rq.cfg.Config.OrganizationID, FilterType: body.FilterType,
		FilterValue: body.FilterValue, PaginationOptions: &api.Pagination{Limit: "1"}})
	if err != nil {
		return nil, coordinatorError(err)
	}
	if len(res.OrganizationIDs) == 0 {
		return api.ProxyAccountResponse{}, nil
	}
	return api.ProxyAccountResponse{OrganizationID: res.OrganizationIDs[0]}, nil
}

// checkContactToken verifies that the request's verification token was issued by the configuration's organization,
// is live, and verified the very contact looked up.
func checkContactToken(cfg *api.ResolveAuthProxyConfigResponse, body api.ProxyAccountRequest) error {
	if body.VerificationToken == "" {
		if body.OidcToken != "" {
			return apierr.Invalid("this server unlocks e-mail and phone look-ups with a verificationToken only, not an oidcToken")
		}
		return apierr.Denied("looking an account up by %s requires a verificationToken for that contact (from /v1/otp_verify)", strings.ToLower(body.FilterType))
	}
	pub, err := token.ParseP256PublicKey(cfg.TokenPublicKey)
	if err != nil {
		return err
	}
	claims, err := token.VerifyVerificationToken(body.VerificationToken, pub, time.Now())
	if err != nil {
		return apierr.Invalid("verificationToken: %s", err.Error())
	}
	typ := otp.TypeEmail
	if body.FilterType == api.FilterPhoneNumber {
		typ = otp.TypeSMS
	}
	contact, err := otp.NormalizeContact(typ, body.FilterValue)
	if err != nil {
		return apierr.Invalid("filterValue: %s", err.Error())
	}
	if claims.OrganizationID != cfg.Config.OrganizationID || claims.VerificationType != string(typ) || !strings.EqualFold(claims.Contact, contact) {
		return apierr.Denied("the verificationToken does not verify %s for this configuration's organization", body.FilterValue)
	}
	return nil
}

func (s *Server) walletKitConfig(_ context.Context, rq *request) (any, error) {
	if err := decode(rq.body, &struct{}{}); err != nil {
		return nil, err
	}
	set := rq.cfg.Config.AuthProxySettings
	providers := append(slices.Clone(set.AllowedAuthMethods), set.WalletKitSettings.EnabledSocialProviders...)
	slices.Sort(providers)
	providers = slices.Compact(providers)
	if providers == nil {
		providers = []string{}
	}
	session := set.SessionExpirationSeconds
	if session == 0 {
		session = 900
	}
	return api.ProxyWalletKitConfigResponse{EnabledProviders: providers, SessionExpirationSeconds: strconv.Itoa(int(session)),
		OrganizationID: rq.cfg.Config.OrganizationID, OauthClientIDs: set.WalletKitSettings.OauthClientIDs,
		OauthRedirectURL: set.WalletKitSettings.OauthRedirectURL, OtpAlphanumeric: set.OtpAlphanumeric,
		OtpLength: strconv.Itoa(int(set.OtpLength))}, nil
}

// walletKitClientParams answers the wallet kit's bot-detection parameters: Sigil has no captcha, so none.
func (s *Server) walletKitClientParams(_ context.Context, rq *request) (any, error) {
	if err := decode(rq.body, &struct{}{}); err != nil {
		return nil, err
	}
	return struct{}{}, nil
}

func methodEnabled(set api.AuthProxySettings, method string) bool {
	return slices.Contains(set.AllowedAuthMethods, method) || slices.Contains(set.WalletKitSettings.EnabledSocialProviders, method)
}

func requireMethod(set api.AuthProxySettings, method, what string) error {
	if !methodEnabled(set, method) {
		return apierr.Denied("%s is not enabled for this auth proxy configuration (dashboard, AUTH section)", what)
	}
	return nil
}

// seconds formats a lifetime setting as the activities take it; 0 leaves the coordinator's default.
func seconds(v int32) string {
	if v <= 0 {
		return ""
	}
	return strconv.Itoa(int(v))
}

// decode parses a request body strictly (edge.Unmarshal, paths from "request"): unknown fields, wrong types and
// missing required fields are refused here, before anything reaches the coordinator, in the coordinator's words for
// its own bodies. An empty body counts as {}.
func decode(body []byte, v any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		body = []byte("{}")
	}
	err := edge.Unmarshal(body, v, "request")
	var refused *edge.Error
	if errors.As(err, &refused) {
		return apierr.Invalid("bad request body: %s", refused.Message)
	}
	return err
}
