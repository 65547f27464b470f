package api

// OTP types (initOtp otpType, verification token verification_type).
const (
	OtpTypeEmail = "OTP_TYPE_EMAIL"
	OtpTypeSMS   = "OTP_TYPE_SMS"
)

// Credential types of session keys added by the login activities.
const (
	CredentialOTPAuthKeyP256 = "CREDENTIAL_TYPE_OTP_AUTH_KEY_P256"
	CredentialLogin          = "CREDENTIAL_TYPE_LOGIN"
)

// EmailCustomizationParams is v1EmailCustomizationParams, the e-mail options of the legacy INIT_OTP.
type EmailCustomizationParams struct {
	AppName           string `json:"appName,omitempty"`
	LogoURL           string `json:"logoUrl,omitempty"`
	MagicLinkTemplate string `json:"magicLinkTemplate,omitempty"`
	TemplateVariables string `json:"templateVariables,omitempty"`
	TemplateID        string `json:"templateId,omitempty"`
}

// EmailCustomizationParamsV2 is v1EmailCustomizationParamsV2 (INIT_OTP_V2, INIT_OTP_V3): appName moved to the intent.
type EmailCustomizationParamsV2 struct {
	LogoURL           string `json:"logoUrl,omitempty"`
	MagicLinkTemplate string `json:"magicLinkTemplate,omitempty"`
	// TemplateVariables is a JSON object, as a string, filling the custom template named by TemplateID.
	TemplateVariables string `json:"templateVariables,omitempty"`
	TemplateID        string `json:"templateId,omitempty"`
}

// SmsCustomizationParams is v1SmsCustomizationParams: Template names the code as {{.OtpCode}}.
type SmsCustomizationParams struct {
	Template string `json:"template,omitempty"`
}

// InitOtpIntent is ACTIVITY_TYPE_INIT_OTP (legacy: the app name is part of the e-mail customization).
type InitOtpIntent struct {
	OtpType                 string                    `json:"otpType"`
	Contact                 string                    `json:"contact"`
	OtpLength               *int32                    `json:"otpLength,omitempty"`
	EmailCustomization      *EmailCustomizationParams `json:"emailCustomization,omitempty"`
	SmsCustomization        *SmsCustomizationParams   `json:"smsCustomization,omitempty"`
	UserIdentifier          string                    `json:"userIdentifier,omitempty"`
	SendFromEmailAddress    string                    `json:"sendFromEmailAddress,omitempty"`
	Alphanumeric            *bool                     `json:"alphanumeric,omitempty"`
	SendFromEmailSenderName string                    `json:"sendFromEmailSenderName,omitempty"`
	ExpirationSeconds       string                    `json:"expirationSeconds,omitempty"`
	ReplyToEmailAddress     string                    `json:"replyToEmailAddress,omitempty"`
}

// InitOtpIntentV2 is ACTIVITY_TYPE_INIT_OTP_V2 (first specification, section 2.5).
type InitOtpIntentV2 struct {
	OtpType                 string                      `json:"otpType"`
	Contact                 string                      `json:"contact"`
	OtpLength               *int32                      `json:"otpLength,omitempty"`
	AppName                 string                      `json:"appName"`
	EmailCustomization      *EmailCustomizationParamsV2 `json:"emailCustomization,omitempty"`
	SmsCustomization        *SmsCustomizationParams     `json:"smsCustomization,omitempty"`
	UserIdentifier          string                      `json:"userIdentifier,omitempty"`
	SendFromEmailAddress    string                      `json:"sendFromEmailAddress,omitempty"`
	Alphanumeric            *bool                       `json:"alphanumeric,omitempty"`
	SendFromEmailSenderName string                      `json:"sendFromEmailSenderName,omitempty"`
	ExpirationSeconds       string                      `json:"expirationSeconds,omitempty"`
	ReplyToEmailAddress     string                      `json:"replyToEmailAddress,omitempty"`
}

// InitOtpIntentV3 is ACTIVITY_TYPE_INIT_OTP_V3: the fields of V2; the result adds the encryption target bundle that
// VERIFY_OTP_V2 encrypts the code to.
type InitOtpIntentV3 InitOtpIntentV2

// InitOtpResult is the result of INIT_OTP and INIT_OTP_V2.
type InitOtpResult struct {
	OtpID string `json:"otpId"`
}

// InitOtpResultV2 is the result of INIT_OTP_V3 (result key initOtpResultV2).
type InitOtpResultV2 struct {
	OtpID string `json:"otpId"`
	// OtpEncryptionTargetBundle is a signed bundle naming the one-time key the code is encrypted to.
	OtpEncryptionTargetBundle string `json:"otpEncryptionTargetBundle"`
}

// VerifyOtpIntent is ACTIVITY_TYPE_VERIFY_OTP: the code in clear, and optionally the client key to bind into the
// verification token.
// The code is secret: activity records show Redacted in its place.
type VerifyOtpIntent struct {
	OtpID             string `json:"otpId"`
	OtpCode           string `json:"otpCode" sigil:"secret"`
	ExpirationSeconds string `json:"expirationSeconds,omitempty"`
	PublicKey         string `json:"publicKey,omitempty"`
}

// VerifyOtpIntentV2 is ACTIVITY_TYPE_VERIFY_OTP_V2: the code and the client key, HPKE-encrypted to the target of
// INIT_OTP_V3.
type VerifyOtpIntentV2 struct {
	OtpID              string `json:"otpId"`
	EncryptedOtpBundle string `json:"encryptedOtpBundle"`
	ExpirationSeconds  string `json:"expirationSeconds,omitempty"`
}

// VerifyOtpResult is the result of both VERIFY_OTP versions.
type VerifyOtpResult struct {
	// VerificationToken logs in (OTP_LOGIN): shown in the answer to VERIFY_OTP only, Redacted in the record.
	VerificationToken string `json:"verificationToken" sigil:"secret"`
}

// OtpLoginIntent is ACTIVITY_TYPE_OTP_LOGIN (first specification, section 2.6). The verification token is
// secret: records show Redacted.
type OtpLoginIntent struct {
	VerificationToken  string           `json:"verificationToken" sigil:"secret"`
	PublicKey          string           `json:"publicKey"`
	ExpirationSeconds  string           `json:"expirationSeconds,omitempty"`
	InvalidateExisting *bool            `json:"invalidateExisting,omitempty"`
	ClientSignature    *ClientSignature `json:"clientSignature,omitempty"`
	SessionProfileID   string           `json:"sessionProfileId,omitempty"`
}

// OtpLoginIntentV2 is ACTIVITY_TYPE_OTP_LOGIN_V2: clientSignature is required. The verification token is
// secret, as OtpLoginIntent's is.
type OtpLoginIntentV2 struct {
	VerificationToken  string           `json:"verificationToken" sigil:"secret"`
	PublicKey          string           `json:"publicKey"`
	ClientSignature    *ClientSignature `json:"clientSignature"`
	ExpirationSeconds  string           `json:"expirationSeconds,omitempty"`
	InvalidateExisting *bool            `json:"invalidateExisting,omitempty"`
	SessionProfileID   string           `json:"sessionProfileId,omitempty"`
}

// OtpLoginResult is the result of both OTP_LOGIN versions: a session JWT.
type OtpLoginResult struct {
	Session string `json:"session"`
}

// StampLoginIntent is ACTIVITY_TYPE_STAMP_LOGIN: the stamp authenticates the user, PublicKey becomes the session key.
type StampLoginIntent struct {
	PublicKey          string `json:"publicKey"`
	ExpirationSeconds  string `json:"expirationSeconds,omitempty"`
	InvalidateExisting *bool  `json:"invalidateExisting,omitempty"`
	SessionProfileID   string `json:"sessionProfileId,omitempty"`
}

// StampLoginResult is the result of STAMP_LOGIN: a session JWT.
type StampLoginResult struct {
	Session string `json:"session"`
}

// The activity types of this file: their wire names and their parameter and result types.
var (
	InitOtp     = activity[InitOtpIntent, InitOtpResult]("INIT_OTP", "init_otp", "initOtpIntent", "initOtpResult")
	InitOtpV2   = activity[InitOtpIntentV2, InitOtpResult]("INIT_OTP_V2", "init_otp", "initOtpIntentV2", "initOtpResult")
	InitOtpV3   = activity[InitOtpIntentV3, InitOtpResultV2]("INIT_OTP_V3", "init_otp", "initOtpIntentV3", "initOtpResultV2")
	VerifyOtp   = activity[VerifyOtpIntent, VerifyOtpResult]("VERIFY_OTP", "verify_otp", "verifyOtpIntent", "verifyOtpResult")
	VerifyOtpV2 = activity[VerifyOtpIntentV2, VerifyOtpResult]("VERIFY_OTP_V2", "verify_otp", "verifyOtpIntentV2", "verifyOtpResult")
	OtpLogin    = activity[OtpLoginIntent, OtpLoginResult]("OTP_LOGIN", "otp_login", "otpLoginIntent", "otpLoginResult")
	OtpLoginV2  = activity[OtpLoginIntentV2, OtpLoginResult]("OTP_LOGIN_V2", "otp_login", "otpLoginIntentV2", "otpLoginResult")
	StampLogin  = activity[StampLoginIntent, StampLoginResult]("STAMP_LOGIN", "stamp_login", "stampLoginIntent", "stampLoginResult")
)

// ListEmailEventsRequest is the body of list_email_events: a recipient's events, newest first.
type ListEmailEventsRequest struct {
	OrganizationID    string      `json:"organizationId"`
	Email             string      `json:"email"`
	EventType         string      `json:"eventType,omitempty"`
	PaginationOptions *Pagination `json:"paginationOptions,omitempty"`
}

// EmailEvent is one thing the mailer did with a message (Send): metadata only, never the body or a code.
type EmailEvent struct {
	ID             string            `json:"id"`
	OrganizationID string            `json:"organizationId"`
	MessageID      string            `json:"messageId"`
	EventType      string            `json:"eventType"`
	FromAddress    string            `json:"fromAddress"`
	ToAddress      string            `json:"toAddress"`
	Timestamp      string            `json:"timestamp"` // milliseconds since the epoch
	CreatedAt      string            `json:"createdAt"`
	Details        EmailEventDetails `json:"details"`
}

// EmailEventDetails are a provider's details of an event (bounces, delivery responses); Sigil's SMTP sender reports
// none beyond the send itself.
type EmailEventDetails struct {
	BounceType           string `json:"bounceType,omitempty"`
	DiagnosticCode       string `json:"diagnosticCode,omitempty"`
	DeliverySMTPResponse string `json:"deliverySmtpResponse,omitempty"`
}

// ListEmailEventsResponse lists email events, newest first.
type ListEmailEventsResponse struct {
	EmailEvents []EmailEvent `json:"emailEvents"`
}

// ListEmailEvents is the query of what the mailer sent to a recipient.
var ListEmailEvents = query[ListEmailEventsRequest, ListEmailEventsResponse]("list_email_events")
