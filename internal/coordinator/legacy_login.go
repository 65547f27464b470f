package coordinator

import (
	"slices"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/bundle"
	"github.com/sigil/sigil/internal/otp"
	"github.com/sigil/sigil/internal/policy"
	"github.com/sigil/sigil/internal/token"
)

// The legacy login flows older SDK versions still use. Each ends with a new expiring credential of the user (a P-256
// key registered like a session key) whose private key is encrypted to the caller's targetPublicKey as a credential
// bundle: mailed for EMAIL_AUTH and INIT_USER_EMAIL_RECOVERY, returned by OTP_AUTH and OAUTH. A recovery credential
// can do one thing, RECOVER_USER: register a new passkey for its user, once.
//
// Each flow is refused when the organization has turned its method off: a sub-organization created with the
// disable* flags holds FEATURE_NAME_DISABLE_*, and an organization (or the parent submitting in its sub-organization)
// may set the reference's feature to the value "false". The reference's features are on by default.

const resRecovery = "RECOVERY"

// The activity types of this file.
var (
	emailAuth     = activity(api.EmailAuth, on(resAuth, actCreate), validateEmailAuthV1, execEmailAuthV1).byParent()
	emailAuthV2   = activity(api.EmailAuthV2, on(resAuth, actCreate), validateEmailAuthV2, execEmailAuthV2).byParent()
	emailAuthV3   = activity(api.EmailAuthV3, on(resAuth, actCreate), validateEmailAuthV3, execEmailAuthV3).byParent()
	initOtpAuth   = activity(api.InitOtpAuth, on(resOTP, actCreate), validateInitOtpAuthV1, execInitOtpAuthV1).byParent()
	initOtpAuthV2 = activity(api.InitOtpAuthV2, on(resOTP, actCreate, policy.ParamOTPLength), validateInitOtpAuthV2, execInitOtpAuthV2).byParent()
	initOtpAuthV3 = activity(api.InitOtpAuthV3, on(resOTP, actCreate, policy.ParamOTPLength), validateInitOtpAuthV3, execInitOtpAuthV3).byParent()
	otpAuth       = activity(api.OtpAuth, on(resAuth, actCreate), validateOtpAuth, execOtpAuth).byParent()
	oauthAuth     = activity(api.Oauth, on(resAuth, actCreate), validateOauth, execOauth).byParent()

	initUserEmailRecovery   = activity(api.InitUserEmailRecovery, on(resRecovery, actCreate), validateRecoveryV1, execRecoveryV1).byParent()
	initUserEmailRecoveryV2 = activity(api.InitUserEmailRecoveryV2, on(resRecovery, actCreate), validateRecoveryV2, execRecoveryV2).byParent()
	recoverUser             = activity(api.RecoverUser, on(resCredential, actCreate), validateRecoverUser, execRecoverUser).ownCredentials()
)

// Login methods an organization can turn off: the reference's feature and the sub-organization's disable flag.
type loginMethod struct {
	name             string // for the error
	feature, disable string
}

var (
	methodEmailAuth     = loginMethod{"e-mail auth", "FEATURE_NAME_EMAIL_AUTH", "FEATURE_NAME_DISABLE_EMAIL_AUTH"}
	methodEmailRecovery = loginMethod{"e-mail recovery", "FEATURE_NAME_EMAIL_RECOVERY", "FEATURE_NAME_DISABLE_EMAIL_RECOVERY"}
	methodOtpEmail      = loginMethod{"e-mail OTP auth", "FEATURE_NAME_OTP_EMAIL_AUTH", "FEATURE_NAME_DISABLE_OTP_EMAIL_AUTH"}
	methodSMS           = loginMethod{"SMS auth", "FEATURE_NAME_SMS_AUTH", "FEATURE_NAME_DISABLE_SMS_AUTH"}
)

// otpLoginMethod is the login method of a code sent by e-mail or SMS.
func otpLoginMethod(contactType string) loginMethod {
	if otp.Type(contactType) == otp.TypeSMS {
		return methodSMS
	}
	return methodOtpEmail
}

// requireMethod refuses a login method the organization (or the parent organization submitting) has turned off.
func (x *execution) requireMethod(m loginMethod) error {
	orgs := []*Org{x.org}
	if x.who.ViaParent {
		orgs = append(orgs, x.who.Org)
	}
	for _, o := range orgs {
		if _, ok := o.Features[m.disable]; ok && o == x.org {
			return apierr.New(apierr.FailedPrecondition, "REQUEST_INVALID", "%s is disabled for organization %s (it was created with %s)", m.name, o.ID, m.disable)
		}
		if v, ok := o.Features[m.feature]; ok && v == "false" {
			return apierr.New(apierr.FailedPrecondition, "REQUEST_INVALID", "%s is disabled for organization %s (%s is set to false)", m.name, o.ID, m.feature)
		}
	}
	return nil
}

// legacyEmail is an EMAIL_AUTH or INIT_USER_EMAIL_RECOVERY request of any version.
type legacyEmail struct {
	email, target, apiKeyName, expirationSeconds string
	invalidate                                   bool
	mail                                         otpInit // the delivery options
}

func emailCustomizationV1(in *otpInit, e *api.EmailCustomizationParams) {
	if e != nil {
		in.appName = e.AppName
		in.email = api.EmailCustomizationParamsV2{LogoURL: e.LogoURL, MagicLinkTemplate: e.MagicLinkTemplate,
			TemplateVariables: e.TemplateVariables, TemplateID: e.TemplateID}
	}
}

func emailCustomizationV2(in *otpInit, e api.EmailAuthCustomizationParams) {
	in.appName = e.AppName
	in.email = api.EmailCustomizationParamsV2{LogoURL: e.LogoURL, MagicLinkTemplate: e.MagicLinkTemplate,
		TemplateVariables: e.TemplateVariables, TemplateID: e.TemplateID}
}

func emailAuthRequestV1(p *api.EmailAuthIntent) legacyEmail {
	l := legacyEmail{email: p.Email, target: p.TargetPublicKey, apiKeyName: p.APIKeyName, expirationSeconds: p.ExpirationSeconds,
		invalidate: p.InvalidateExisting != nil && *p.InvalidateExisting,
		mail:       otpInit{from: p.SendFromEmailAddress, fromName: p.SendFromEmailSenderName, replyTo: p.ReplyToEmailAddress}}
	emailCustomizationV1(&l.mail, p.EmailCustomization)
	return l
}

func emailAuthRequestV3(p *api.EmailAuthIntentV3) legacyEmail {
	l := legacyEmail{email: p.Email, target: p.TargetPublicKey, apiKeyName: p.APIKeyName, expirationSeconds: p.ExpirationSeconds,
		invalidate: p.InvalidateExisting != nil && *p.InvalidateExisting,
		mail:       otpInit{from: p.SendFromEmailAddress, fromName: p.SendFromEmailSenderName, replyTo: p.ReplyToEmailAddress}}
	emailCustomizationV2(&l.mail, p.EmailCustomization)
	return l
}

func recoveryV1(p *api.InitUserEmailRecoveryIntent) legacyEmail {
	l := legacyEmail{email: p.Email, target: p.TargetPublicKey, expirationSeconds: p.ExpirationSeconds,
		mail: otpInit{from: p.SendFromEmailAddress, fromName: p.SendFromEmailSenderName, replyTo: p.ReplyToEmailAddress}}
	emailCustomizationV1(&l.mail, p.EmailCustomization)
	return l
}

func recoveryV2(p *api.InitUserEmailRecoveryIntentV2) legacyEmail {
	l := legacyEmail{email: p.Email, target: p.TargetPublicKey, expirationSeconds: p.ExpirationSeconds,
		mail: otpInit{from: p.SendFromEmailAddress, fromName: p.SendFromEmailSenderName, replyTo: p.ReplyToEmailAddress}}
	emailCustomizationV2(&l.mail, p.EmailCustomization)
	return l
}

// validate checks the request; appNameRequired for the versions whose customization requires it.
func (l *legacyEmail) validate(appNameRequired bool) error {
	if err := checkEmail("parameters.email", l.email); err != nil {
		return err
	}
	if _, err := bundle.ParsePublicKeyHex(l.target); err != nil {
		return apierr.Invalid("parameters.targetPublicKey: %s", err.Error())
	}
	if l.apiKeyName != "" {
		if err := checkName("parameters.apiKeyName", l.apiKeyName); err != nil {
			return err
		}
	}
	if appNameRequired {
		if err := checkName("parameters.emailCustomization.appName", l.mail.appName); err != nil {
			return err
		}
	} else if err := checkLabel("parameters.emailCustomization.appName", l.mail.appName); err != nil {
		return err
	}
	if err := l.mail.validateSender(); err != nil {
		return err
	}
	if err := validateEmailCustomization(l.mail.email); err != nil {
		return err
	}
	return checkExpiration(l.expirationSeconds)
}

func validateEmailAuthV1(p *api.EmailAuthIntent) error {
	l := emailAuthRequestV1(p)
	return l.validate(false)
}
func validateEmailAuthV2(p *api.EmailAuthIntentV2) error {
	l := emailAuthRequestV1((*api.EmailAuthIntent)(p))
	return l.validate(false)
}
func validateEmailAuthV3(p *api.EmailAuthIntentV3) error {
	l := emailAuthRequestV3(p)
	return l.validate(true)
}

func execEmailAuthV1(x *execution, p *api.EmailAuthIntent) (*api.EmailAuthResult, error) {
	return x.emailAuth(emailAuthRequestV1(p))
}
func execEmailAuthV2(x *execution, p *api.EmailAuthIntentV2) (*api.EmailAuthResult, error) {
	return x.emailAuth(emailAuthRequestV1((*api.EmailAuthIntent)(p)))
}
func execEmailAuthV3(x *execution, p *api.EmailAuthIntentV3) (*api.EmailAuthResult, error) {
	return x.emailAuth(emailAuthRequestV3(p))
}

// emailAuth mails the user with the e-mail address a credential bundle of a new EMAIL_AUTH credential.
func (x *execution) emailAuth(l legacyEmail) (*api.EmailAuthResult, error) {
	if err := x.requireMethod(methodEmailAuth); err != nil {
		return nil, err
	}
	key, u, err := x.mailCredential(l, credentialSpec{name: l.apiKeyName, defaultName: "Email Auth", invalidate: l.invalidate,
		credType: api.CredentialEmailAuth, method: api.AuthEmailOTP, from: x.madeByFactor()})
	if err != nil {
		return nil, err
	}
	return &api.EmailAuthResult{UserID: u.ID, APIKeyID: key.ID}, nil
}

// mailCredential makes the credential for the user with the e-mail address and mails its bundle there. The mail is
// sent inside the activity's transaction, as OTP codes are: when it fails, the credential is rolled back with it.
func (x *execution) mailCredential(l legacyEmail, s credentialSpec) (*APIKey, *User, error) {
	if err := l.validate(false); err != nil {
		return nil, nil, err
	}
	if err := x.c.deliveryConfigured(otp.TypeEmail); err != nil {
		return nil, nil, err
	}
	u, err := userByContact(x.org, string(otp.TypeEmail), l.email)
	if err != nil {
		return nil, nil, err
	}
	if s.ttl, err = x.sessionTTL(l.expirationSeconds); err != nil {
		return nil, nil, err
	}
	if err := x.checkLiveMailed(u, s); err != nil {
		return nil, nil, err
	}
	target, _ := bundle.ParsePublicKeyHex(l.target)
	key, credentials, err := x.bundledCredential(u, target, s)
	if err != nil {
		return nil, nil, err
	}
	mail := l.mail
	mail.typ, mail.contact, mail.bundle = otp.TypeEmail, u.Email, true
	if mail.appName == "" {
		mail.appName = x.org.Name
	}
	if err := x.deliver(mail, credentials, s.ttl); err != nil {
		return nil, nil, err
	}
	return key, u, nil
}

// checkLiveMailed bounds the mail a user can be sent: as with OTP codes, at most OTPLimits.MaxLiveCodes live mailed
// credentials of a type per user, unless this request invalidates them.
func (x *execution) checkLiveMailed(u *User, s credentialSpec) error {
	if s.invalidate {
		return nil
	}
	live := 0
	for _, k := range u.APIKeys {
		if k.Type == s.credType && !k.Expired(x.now) {
			live++
		}
	}
	if max := x.c.cfg.OTPLimits.MaxLiveCodes; live >= max {
		return apierr.New(apierr.ResourceExhausted, "RATE_LIMIT_EXCEEDED", "user %s already has %d live credentials sent by e-mail, the most at once; wait for them to expire or send the request with invalidateExisting", u.ID, live)
	}
	return nil
}

func validateRecoveryV1(p *api.InitUserEmailRecoveryIntent) error {
	l := recoveryV1(p)
	return l.validate(false)
}
func validateRecoveryV2(p *api.InitUserEmailRecoveryIntentV2) error {
	l := recoveryV2(p)
	return l.validate(true)
}

func execRecoveryV1(x *execution, p *api.InitUserEmailRecoveryIntent) (*api.InitUserEmailRecoveryResult, error) {
	return x.initRecovery(recoveryV1(p))
}
func execRecoveryV2(x *execution, p *api.InitUserEmailRecoveryIntentV2) (*api.InitUserEmailRecoveryResult, error) {
	return x.initRecovery(recoveryV2(p))
}

// initRecovery mails the user a recovery credential, replacing any earlier one of the user.
func (x *execution) initRecovery(l legacyEmail) (*api.InitUserEmailRecoveryResult, error) {
	if err := x.requireMethod(methodEmailRecovery); err != nil {
		return nil, err
	}
	if u, err := userByContact(x.org, string(otp.TypeEmail), l.email); err == nil {
		u.APIKeys = slices.DeleteFunc(u.APIKeys, func(k *APIKey) bool { return k.Type == api.CredentialRecoverUser })
	}
	_, u, err := x.mailCredential(l, credentialSpec{defaultName: "Recovery", credType: api.CredentialRecoverUser, from: x.madeByFactor()})
	if err != nil {
		return nil, err
	}
	return &api.InitUserEmailRecoveryResult{UserID: u.ID}, nil
}

func validateRecoverUser(p *api.RecoverUserIntent) error {
	if err := checkID("parameters.userId", p.UserID); err != nil {
		return err
	}
	return checkName("parameters.authenticator.authenticatorName", p.Authenticator.AuthenticatorName)
}

// execRecoverUser registers the new passkey for the user whose recovery credential stamped the request, and removes
// that credential: it recovers once.
func execRecoverUser(x *execution, p *api.RecoverUserIntent) (*api.RecoverUserResult, error) {
	if x.who.ViaParent || x.who.CredType != api.CredentialRecoverUser || x.who.User.ID != p.UserID {
		return nil, apierr.Denied("RECOVER_USER must be stamped with the recovery credential of user %s (from INIT_USER_EMAIL_RECOVERY)", p.UserID)
	}
	u := x.who.User
	ids, err := x.addAuthenticators(x.org, u, "parameters.authenticator", []api.AuthenticatorParamsV2{p.Authenticator}, x.madeByStamp())
	if err != nil {
		return nil, err
	}
	u.APIKeys = slices.DeleteFunc(u.APIKeys, func(k *APIKey) bool { return k.ID == x.who.CredID })
	u.UpdatedAt = x.now
	return &api.RecoverUserResult{AuthenticatorID: ids}, nil
}

// enforceRecoveryCredential refuses every activity but RECOVER_USER to a recovery credential.
func (x *execution) enforceRecoveryCredential(op *activityInfo) error {
	if x.who.CredType == api.CredentialRecoverUser && op.Type != recoverUser.Type {
		return apierr.Denied("a recovery credential can only submit ACTIVITY_TYPE_RECOVER_USER, not %s", op.Type)
	}
	return nil
}

// otpAuthInitV1 adapts an INIT_OTP_AUTH request to INIT_OTP's.
func otpAuthInitV1(p *api.InitOtpAuthIntent) otpInit {
	return initV1(&api.InitOtpIntent{OtpType: p.OtpType, Contact: p.Contact, EmailCustomization: p.EmailCustomization,
		SmsCustomization: p.SmsCustomization, UserIdentifier: p.UserIdentifier, SendFromEmailAddress: p.SendFromEmailAddress,
		SendFromEmailSenderName: p.SendFromEmailSenderName, ReplyToEmailAddress: p.ReplyToEmailAddress})
}

func otpAuthInitV2(p *api.InitOtpAuthIntentV2) otpInit {
	return initV1(&api.InitOtpIntent{OtpType: p.OtpType, Contact: p.Contact, OtpLength: p.OtpLength, EmailCustomization: p.EmailCustomization,
		SmsCustomization: p.SmsCustomization, UserIdentifier: p.UserIdentifier, SendFromEmailAddress: p.SendFromEmailAddress,
		Alphanumeric: p.Alphanumeric, SendFromEmailSenderName: p.SendFromEmailSenderName, ReplyToEmailAddress: p.ReplyToEmailAddress})
}

func validateInitOtpAuthV1(p *api.InitOtpAuthIntent) error {
	in := otpAuthInitV1(p)
	return in.validate("", false)
}

func validateInitOtpAuthV2(p *api.InitOtpAuthIntentV2) error {
	in := otpAuthInitV2(p)
	return in.validate("", false)
}

func validateInitOtpAuthV3(p *api.InitOtpAuthIntentV3) error {
	return validateInitOtpV2((*api.InitOtpIntentV2)(p))
}

func execInitOtpAuthV1(x *execution, p *api.InitOtpAuthIntent) (*api.InitOtpAuthResult, error) {
	in := otpAuthInitV1(p)
	id, err := x.initOtpAuth(in, "")
	return &api.InitOtpAuthResult{OtpID: id}, err
}

func execInitOtpAuthV2(x *execution, p *api.InitOtpAuthIntentV2) (*api.InitOtpAuthResultV2, error) {
	in := otpAuthInitV2(p)
	id, err := x.initOtpAuth(in, "")
	return &api.InitOtpAuthResultV2{OtpID: id}, err
}

func execInitOtpAuthV3(x *execution, p *api.InitOtpAuthIntentV3) (*api.InitOtpAuthResultV2, error) {
	id, err := x.initOtpAuth(initV2((*api.InitOtpIntentV2)(p)), p.ExpirationSeconds)
	return &api.InitOtpAuthResultV2{OtpID: id}, err
}

// initOtpAuth sends a code to a contact of a user of the organization, for OTP_AUTH.
func (x *execution) initOtpAuth(in otpInit, expirationSeconds string) (string, error) {
	if err := in.validate(expirationSeconds, false); err != nil {
		return "", err
	}
	if _, err := userByContact(x.org, string(in.typ), in.contact); err != nil {
		return "", err
	}
	if in.appName == "" {
		in.appName = x.org.Name
	}
	id, _, err := x.initOtp(in)
	return id, err
}

func validateOtpAuth(p *api.OtpAuthIntent) error {
	if err := checkID("parameters.otpId", p.OtpID); err != nil {
		return err
	}
	if p.OtpCode == "" || len(p.OtpCode) > maxOtpCodeLen {
		return apierr.Invalid("parameters.otpCode must be the code that was sent (1 to %d characters)", maxOtpCodeLen)
	}
	return validateTarget(p.TargetPublicKey, p.APIKeyName, p.ExpirationSeconds)
}

func validateTarget(target, apiKeyName, expirationSeconds string) error {
	if _, err := bundle.ParsePublicKeyHex(target); err != nil {
		return apierr.Invalid("parameters.targetPublicKey: %s", err.Error())
	}
	if apiKeyName != "" {
		if err := checkName("parameters.apiKeyName", apiKeyName); err != nil {
			return err
		}
	}
	return checkExpiration(expirationSeconds)
}

// execOtpAuth checks the code of INIT_OTP_AUTH and returns a new credential of the user with its contact.
func execOtpAuth(x *execution, p *api.OtpAuthIntent) (*api.OtpAuthResult, error) {
	rec, err := x.otpCode(p.OtpID)
	if err != nil {
		return nil, err
	}
	if rec.Encrypted {
		return nil, apierr.Invalid("OTP %s was started with INIT_OTP_V3; verify it with VERIFY_OTP_V2 (legacy and current steps cannot be mixed)", rec.ID)
	}
	u, err := userByContact(x.org, rec.Type, rec.Contact)
	if err != nil {
		return nil, err
	}
	ttl, err := x.sessionTTL(p.ExpirationSeconds)
	if err != nil {
		return nil, err
	}
	if err := x.checkOtp(rec, p.OtpCode); err != nil {
		return nil, err
	}
	markVerified(u, token.VerificationClaims{VerificationType: rec.Type})
	key, credentials, err := x.targetCredential(u, p.TargetPublicKey, credentialSpec{name: p.APIKeyName, defaultName: "OTP Auth",
		ttl: ttl, invalidate: p.InvalidateExisting != nil && *p.InvalidateExisting, credType: api.CredentialOTPAuthKeyP256,
		method: otpMethod(rec.Type), from: x.madeByFactor()})
	if err != nil {
		return nil, err
	}
	return &api.OtpAuthResult{UserID: u.ID, APIKeyID: key.ID, CredentialBundle: credentials}, nil
}

func (x *execution) targetCredential(u *User, targetHex string, s credentialSpec) (*APIKey, string, error) {
	target, err := bundle.ParsePublicKeyHex(targetHex)
	if err != nil {
		return nil, "", apierr.Invalid("parameters.targetPublicKey: %s", err.Error())
	}
	return x.bundledCredential(u, target, s)
}

func validateOauth(p *api.OauthIntent) error {
	if p.OidcToken == "" || len(p.OidcToken) > maxOIDCTokenLen {
		return apierr.Invalid("parameters.oidcToken must be an OIDC ID token of at most %d bytes", maxOIDCTokenLen)
	}
	return validateTarget(p.TargetPublicKey, p.APIKeyName, p.ExpirationSeconds)
}

// execOauth verifies the token (bound to targetPublicKey by its nonce) and returns a new credential of the user
// holding its identity.
func execOauth(x *execution, p *api.OauthIntent) (*api.OauthResult, error) {
	ttl, err := x.sessionTTL(p.ExpirationSeconds)
	if err != nil {
		return nil, err
	}
	claims, err := x.c.verifyOIDC(x.ctx, "parameters.oidcToken", p.OidcToken, x.tokenKey, token.NonceForPublicKey(p.TargetPublicKey))
	if err != nil {
		return nil, err
	}
	u, identity := userWithIdentity(x.org, claims)
	if u == nil {
		return nil, apierr.NotFoundf("no user of organization %s has the OIDC identity the token names (issuer %s); link it with CREATE_OAUTH_PROVIDERS_V2 or log in to the organization that holds it", x.org.ID, claims.Issuer)
	}
	key, credentials, err := x.targetCredential(u, p.TargetPublicKey, credentialSpec{name: p.APIKeyName, defaultName: "Oauth",
		ttl: ttl, invalidate: p.InvalidateExisting != nil && *p.InvalidateExisting, credType: api.CredentialOAuthP256,
		method: api.AuthOAuth, from: x.madeWithIdentity(u, identity)})
	if err != nil {
		return nil, err
	}
	return &api.OauthResult{UserID: u.ID, APIKeyID: key.ID, CredentialBundle: credentials}, nil
}
