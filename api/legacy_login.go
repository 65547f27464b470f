package api

// The legacy login flows older SDK versions still use: each ends with a new expiring credential of the user,
// encrypted to the caller's targetPublicKey as a credential bundle (mailed for EMAIL_AUTH and e-mail recovery,
// returned for OTP_AUTH and OAUTH).

// Credential types of the legacy flows.
const (
	CredentialEmailAuth   = "CREDENTIAL_TYPE_EMAIL_AUTH_KEY_P256"
	CredentialRecoverUser = "CREDENTIAL_TYPE_RECOVER_USER_KEY_P256"
)

// EmailAuthCustomizationParams is v1EmailAuthCustomizationParams: EmailCustomizationParams with appName required.
type EmailAuthCustomizationParams struct {
	AppName           string `json:"appName"`
	LogoURL           string `json:"logoUrl,omitempty"`
	MagicLinkTemplate string `json:"magicLinkTemplate,omitempty"`
	TemplateVariables string `json:"templateVariables,omitempty"`
	TemplateID        string `json:"templateId,omitempty"`
}

// EmailAuthIntent is ACTIVITY_TYPE_EMAIL_AUTH and ACTIVITY_TYPE_EMAIL_AUTH_V2 (the same fields): a credential bundle
// for the user with the e-mail address, mailed to that address.
type EmailAuthIntent struct {
	Email                   string                    `json:"email"`
	TargetPublicKey         string                    `json:"targetPublicKey"`
	APIKeyName              string                    `json:"apiKeyName,omitempty"`
	ExpirationSeconds       string                    `json:"expirationSeconds,omitempty"`
	EmailCustomization      *EmailCustomizationParams `json:"emailCustomization,omitempty"`
	InvalidateExisting      *bool                     `json:"invalidateExisting,omitempty"`
	SendFromEmailAddress    string                    `json:"sendFromEmailAddress,omitempty"`
	SendFromEmailSenderName string                    `json:"sendFromEmailSenderName,omitempty"`
	ReplyToEmailAddress     string                    `json:"replyToEmailAddress,omitempty"`
}

// EmailAuthIntentV2 is ACTIVITY_TYPE_EMAIL_AUTH_V2.
type EmailAuthIntentV2 EmailAuthIntent

// EmailAuthIntentV3 is ACTIVITY_TYPE_EMAIL_AUTH_V3: emailCustomization (with appName) is required.
type EmailAuthIntentV3 struct {
	Email                   string                       `json:"email"`
	TargetPublicKey         string                       `json:"targetPublicKey"`
	APIKeyName              string                       `json:"apiKeyName,omitempty"`
	ExpirationSeconds       string                       `json:"expirationSeconds,omitempty"`
	EmailCustomization      EmailAuthCustomizationParams `json:"emailCustomization"`
	InvalidateExisting      *bool                        `json:"invalidateExisting,omitempty"`
	SendFromEmailAddress    string                       `json:"sendFromEmailAddress,omitempty"`
	SendFromEmailSenderName string                       `json:"sendFromEmailSenderName,omitempty"`
	ReplyToEmailAddress     string                       `json:"replyToEmailAddress,omitempty"`
}

// EmailAuthResult names the user and the credential whose bundle was mailed.
type EmailAuthResult struct {
	UserID   string `json:"userId"`
	APIKeyID string `json:"apiKeyId"`
}

// InitOtpAuthIntent is ACTIVITY_TYPE_INIT_OTP_AUTH: a code for a user of the organization, verified by OTP_AUTH.
type InitOtpAuthIntent struct {
	OtpType                 string                    `json:"otpType"`
	Contact                 string                    `json:"contact"`
	EmailCustomization      *EmailCustomizationParams `json:"emailCustomization,omitempty"`
	SmsCustomization        *SmsCustomizationParams   `json:"smsCustomization,omitempty"`
	UserIdentifier          string                    `json:"userIdentifier,omitempty"`
	SendFromEmailAddress    string                    `json:"sendFromEmailAddress,omitempty"`
	SendFromEmailSenderName string                    `json:"sendFromEmailSenderName,omitempty"`
	ReplyToEmailAddress     string                    `json:"replyToEmailAddress,omitempty"`
}

// InitOtpAuthIntentV2 is ACTIVITY_TYPE_INIT_OTP_AUTH_V2: V1 with the code's length and alphabet.
type InitOtpAuthIntentV2 struct {
	OtpType                 string                    `json:"otpType"`
	Contact                 string                    `json:"contact"`
	OtpLength               *int32                    `json:"otpLength,omitempty"`
	EmailCustomization      *EmailCustomizationParams `json:"emailCustomization,omitempty"`
	SmsCustomization        *SmsCustomizationParams   `json:"smsCustomization,omitempty"`
	UserIdentifier          string                    `json:"userIdentifier,omitempty"`
	SendFromEmailAddress    string                    `json:"sendFromEmailAddress,omitempty"`
	Alphanumeric            *bool                     `json:"alphanumeric,omitempty"`
	SendFromEmailSenderName string                    `json:"sendFromEmailSenderName,omitempty"`
	ReplyToEmailAddress     string                    `json:"replyToEmailAddress,omitempty"`
}

// InitOtpAuthIntentV3 is ACTIVITY_TYPE_INIT_OTP_AUTH_V3: the fields of INIT_OTP_V2 (appName required).
type InitOtpAuthIntentV3 InitOtpIntentV2

// InitOtpAuthResult is the result of INIT_OTP_AUTH.
type InitOtpAuthResult struct {
	OtpID string `json:"otpId"`
}

// InitOtpAuthResultV2 is the result of INIT_OTP_AUTH_V2 and _V3 (result key initOtpAuthResultV2).
type InitOtpAuthResultV2 InitOtpAuthResult

// OtpAuthIntent is ACTIVITY_TYPE_OTP_AUTH: the code in clear; the new credential is encrypted to targetPublicKey.
// The code is secret: records show Redacted.
type OtpAuthIntent struct {
	OtpID              string `json:"otpId"`
	OtpCode            string `json:"otpCode" sigil:"secret"`
	TargetPublicKey    string `json:"targetPublicKey"`
	APIKeyName         string `json:"apiKeyName,omitempty"`
	ExpirationSeconds  string `json:"expirationSeconds,omitempty"`
	InvalidateExisting *bool  `json:"invalidateExisting,omitempty"`
}

// OtpAuthResult is the user's new credential, in a bundle.
type OtpAuthResult struct {
	UserID           string `json:"userId"`
	APIKeyID         string `json:"apiKeyId,omitempty"`
	CredentialBundle string `json:"credentialBundle,omitempty"`
}

// OauthIntent is ACTIVITY_TYPE_OAUTH: an OIDC token (its nonce the SHA-256 of targetPublicKey) for a credential of
// the user holding its identity. The token is secret: records show Redacted.
type OauthIntent struct {
	OidcToken          string `json:"oidcToken" sigil:"secret"`
	TargetPublicKey    string `json:"targetPublicKey"`
	APIKeyName         string `json:"apiKeyName,omitempty"`
	ExpirationSeconds  string `json:"expirationSeconds,omitempty"`
	InvalidateExisting *bool  `json:"invalidateExisting,omitempty"`
}

// OauthResult is the user's new credential, in a bundle.
type OauthResult struct {
	UserID           string `json:"userId"`
	APIKeyID         string `json:"apiKeyId"`
	CredentialBundle string `json:"credentialBundle"`
}

// InitUserEmailRecoveryIntent is ACTIVITY_TYPE_INIT_USER_EMAIL_RECOVERY: a recovery credential for the user with the
// e-mail address, mailed as a bundle; it can only register a new passkey (RECOVER_USER).
type InitUserEmailRecoveryIntent struct {
	Email                   string                    `json:"email"`
	TargetPublicKey         string                    `json:"targetPublicKey"`
	ExpirationSeconds       string                    `json:"expirationSeconds,omitempty"`
	EmailCustomization      *EmailCustomizationParams `json:"emailCustomization,omitempty"`
	SendFromEmailAddress    string                    `json:"sendFromEmailAddress,omitempty"`
	SendFromEmailSenderName string                    `json:"sendFromEmailSenderName,omitempty"`
	ReplyToEmailAddress     string                    `json:"replyToEmailAddress,omitempty"`
}

// InitUserEmailRecoveryIntentV2 is ACTIVITY_TYPE_INIT_USER_EMAIL_RECOVERY_V2: emailCustomization (with appName) is
// required.
type InitUserEmailRecoveryIntentV2 struct {
	Email                   string                       `json:"email"`
	TargetPublicKey         string                       `json:"targetPublicKey"`
	ExpirationSeconds       string                       `json:"expirationSeconds,omitempty"`
	EmailCustomization      EmailAuthCustomizationParams `json:"emailCustomization"`
	SendFromEmailAddress    string                       `json:"sendFromEmailAddress,omitempty"`
	SendFromEmailSenderName string                       `json:"sendFromEmailSenderName,omitempty"`
	ReplyToEmailAddress     string                       `json:"replyToEmailAddress,omitempty"`
}

// InitUserEmailRecoveryResult names the user being recovered.
type InitUserEmailRecoveryResult struct {
	UserID string `json:"userId"`
}

// RecoverUserIntent is ACTIVITY_TYPE_RECOVER_USER: a new passkey for the user, stamped with its recovery credential.
type RecoverUserIntent struct {
	Authenticator AuthenticatorParamsV2 `json:"authenticator"`
	UserID        string                `json:"userId"`
}

// RecoverUserResult names the passkey registered.
type RecoverUserResult struct {
	AuthenticatorID []string `json:"authenticatorId"`
}

// The activity types of this file.
var (
	EmailAuth   = activity[EmailAuthIntent, EmailAuthResult]("EMAIL_AUTH", "email_auth", "emailAuthIntent", "emailAuthResult")
	EmailAuthV2 = activity[EmailAuthIntentV2, EmailAuthResult]("EMAIL_AUTH_V2", "email_auth", "emailAuthIntentV2", "emailAuthResult")
	EmailAuthV3 = activity[EmailAuthIntentV3, EmailAuthResult]("EMAIL_AUTH_V3", "email_auth", "emailAuthIntentV3", "emailAuthResult")

	InitOtpAuth   = activity[InitOtpAuthIntent, InitOtpAuthResult]("INIT_OTP_AUTH", "init_otp_auth", "initOtpAuthIntent", "initOtpAuthResult")
	InitOtpAuthV2 = activity[InitOtpAuthIntentV2, InitOtpAuthResultV2]("INIT_OTP_AUTH_V2", "init_otp_auth", "initOtpAuthIntentV2", "initOtpAuthResultV2")
	InitOtpAuthV3 = activity[InitOtpAuthIntentV3, InitOtpAuthResultV2]("INIT_OTP_AUTH_V3", "init_otp_auth", "initOtpAuthIntentV3", "initOtpAuthResultV2")
	OtpAuth       = activity[OtpAuthIntent, OtpAuthResult]("OTP_AUTH", "otp_auth", "otpAuthIntent", "otpAuthResult")
	Oauth         = activity[OauthIntent, OauthResult]("OAUTH", "oauth", "oauthIntent", "oauthResult")

	InitUserEmailRecovery   = activity[InitUserEmailRecoveryIntent, InitUserEmailRecoveryResult]("INIT_USER_EMAIL_RECOVERY", "init_user_email_recovery", "initUserEmailRecoveryIntent", "initUserEmailRecoveryResult")
	InitUserEmailRecoveryV2 = activity[InitUserEmailRecoveryIntentV2, InitUserEmailRecoveryResult]("INIT_USER_EMAIL_RECOVERY_V2", "init_user_email_recovery", "initUserEmailRecoveryIntentV2", "initUserEmailRecoveryResult")
	RecoverUser             = activity[RecoverUserIntent, RecoverUserResult]("RECOVER_USER", "recover_user", "recoverUserIntent", "recoverUserResult")
)
