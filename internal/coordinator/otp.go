package coordinator

import (
	"cmp"
	"encoding/json"
	"errors"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/bundle"
	"github.com/sigil/sigil/internal/notify"
	"github.com/sigil/sigil/internal/otp"
	"github.com/sigil/sigil/internal/policy"
	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/token"
)

// The activity types of this file.
var (
	initOtp     = activity(api.InitOtp, on(resOTP, actCreate, policy.ParamOTPLength), validateInitOtpV1, execInitOtpV1).byParent()
	initOtpV2   = activity(api.InitOtpV2, on(resOTP, actCreate, policy.ParamOTPLength), validateInitOtpV2, execInitOtpV2).byParent().proxied()
	initOtpV3   = activity(api.InitOtpV3, on(resOTP, actCreate, policy.ParamOTPLength), validateInitOtpV3, execInitOtpV3).byParent().proxied()
	verifyOtp   = activity(api.VerifyOtp, on(resOTP, actVerify), validateVerifyOtpV1, execVerifyOtpV1).byParent().proxied()
	verifyOtpV2 = activity(api.VerifyOtpV2, on(resOTP, actVerify), validateVerifyOtpV2, execVerifyOtpV2).byParent().proxied()
)

// The OTP family: INIT_OTP (three versions) sends a code and stores its keyed hash; VERIFY_OTP (two versions) checks
// a code and issues a verification token, which OTP_LOGIN (login.go) turns into a session.

// Bounds of free-text INIT_OTP parameters.
const (
	maxUserIdentifierLen = 256
	maxCustomizationLen  = 4096
	maxOtpCodeLen        = 64
)

// otpInit is an INIT_OTP request of any version, validated and normalized.
type otpInit struct {
	typ            otp.Type
	contact        string // canonical
	length         int
	numeric        bool
	ttl            time.Duration // 0: the configured default
	appName        string
	email          api.EmailCustomizationParamsV2
	smsTemplate    string
	userIdentifier string
	from, fromName string
	replyTo        string
	encrypted      bool // INIT_OTP_V3: verified only with an encrypted bundle
	bundle         bool // the e-mail carries a credential bundle, not a code (EMAIL_AUTH, e-mail recovery)
}

func initV1(p *api.InitOtpIntent) otpInit {
	v2 := api.InitOtpIntentV2{OtpType: p.OtpType, Contact: p.Contact, OtpLength: p.OtpLength, SmsCustomization: p.SmsCustomization,
		UserIdentifier: p.UserIdentifier, SendFromEmailAddress: p.SendFromEmailAddress, Alphanumeric: p.Alphanumeric,
		SendFromEmailSenderName: p.SendFromEmailSenderName, ExpirationSeconds: p.ExpirationSeconds, ReplyToEmailAddress: p.ReplyToEmailAddress}
	if e := p.EmailCustomization; e != nil {
		v2.AppName = e.AppName
		v2.EmailCustomization = &api.EmailCustomizationParamsV2{LogoURL: e.LogoURL, MagicLinkTemplate: e.MagicLinkTemplate,
			TemplateVariables: e.TemplateVariables, TemplateID: e.TemplateID}
	}
	return initV2(&v2)
}

func initV2(p *api.InitOtpIntentV2) otpInit {
	in := otpInit{typ: otp.Type(p.OtpType), contact: p.Contact, appName: p.AppName, userIdentifier: p.UserIdentifier,
		from: p.SendFromEmailAddress, fromName: p.SendFromEmailSenderName, replyTo: p.ReplyToEmailAddress,
		numeric: p.Alphanumeric != nil && !*p.Alphanumeric}
	if p.OtpLength != nil {
		in.length = int(*p.OtpLength)
	}
	if p.EmailCustomization != nil {
		in.email = *p.EmailCustomization
	}
	if p.SmsCustomization != nil {
		in.smsTemplate = p.SmsCustomization.Template
	}
	return in
}

func validateInitOtpV1(p *api.InitOtpIntent) error {
	in := initV1(p)
	return in.validate(p.ExpirationSeconds, false)
}

func validateInitOtpV2(p *api.InitOtpIntentV2) error {
	in := initV2(p)
	return in.validate(p.ExpirationSeconds, true)
}

func validateInitOtpV3(p *api.InitOtpIntentV3) error {
	return validateInitOtpV2((*api.InitOtpIntentV2)(p))
}

// validate checks what needs no configuration and normalizes the contact; the configured limits are applied when the
// activity runs.
func (in *otpInit) validate(expirationSeconds string, appNameRequired bool) error {
	switch in.typ {
	case otp.TypeEmail, otp.TypeSMS:
	case "OTP_TYPE_WHATSAPP":
		return apierr.Invalid("parameters.otpType: OTP_TYPE_WHATSAPP is not supported by this server; use OTP_TYPE_EMAIL or OTP_TYPE_SMS")
	default:
		return apierr.Invalid("parameters.otpType: %q is not OTP_TYPE_EMAIL or OTP_TYPE_SMS", in.typ)
	}
	contact, err := otp.NormalizeContact(in.typ, in.contact)
	if err != nil {
		if in.typ == otp.TypeEmail {
			return apierr.New(apierr.InvalidArgument, "INVALID_EMAIL", "parameters.contact: %s", err.Error())
		}
		return apierr.Invalid("parameters.contact: %s", err.Error())
	}
	in.contact = contact
	if in.length != 0 && (in.length < otp.MinLength || in.length > otp.MaxLength) {
		return apierr.Invalid("parameters.otpLength must be between %d and %d, got %d", otp.MinLength, otp.MaxLength, in.length)
	}
	if in.length == 0 {
		in.length = otp.DefaultLength
	}
	if in.ttl, err = otp.ParseExpirationSeconds(expirationSeconds); err != nil {
		return apierr.Invalid("parameters.expirationSeconds: %s", err.Error())
	}
	if appNameRequired {
		if err := checkName("parameters.appName", in.appName); err != nil {
			return err
		}
	} else if err := checkLabel("parameters.emailCustomization.appName", in.appName); err != nil {
		return err
	}
	if len(in.userIdentifier) > maxUserIdentifierLen {
		return apierr.Invalid("parameters.userIdentifier is longer than %d bytes", maxUserIdentifierLen)
	}
	if err := in.validateSender(); err != nil {
		return err
	}
	if err := validateEmailCustomization(in.email); err != nil {
		return err
	}
	if in.smsTemplate != "" {
		if len(in.smsTemplate) > maxCustomizationLen {
			return apierr.Invalid("parameters.smsCustomization.template is longer than %d bytes", maxCustomizationLen)
		}
		if _, err := notify.OTPText(in.smsTemplate, "app", "000000"); err != nil {
			return apierr.Invalid("parameters.smsCustomization.template: %s", err.Error())
		}
	}
	return nil
}

func (in *otpInit) validateSender() error {
	for _, f := range []struct {
		path string
		v    *string
	}{{"parameters.sendFromEmailAddress", &in.from}, {"parameters.replyToEmailAddress", &in.replyTo}} {
		if *f.v == "" {
			continue
		}
		addr, err := otp.NormalizeEmail(*f.v)
		if err != nil {
			return apierr.New(apierr.InvalidArgument, "INVALID_EMAIL", "%s: %s", f.path, err.Error())
		}
		*f.v = addr
	}
	if err := checkLabel("parameters.sendFromEmailSenderName", in.fromName); err != nil {
		return err
	}
	return nil
}

func validateEmailCustomization(e api.EmailCustomizationParamsV2) error {
	if len(e.LogoURL)+len(e.MagicLinkTemplate)+len(e.TemplateVariables)+len(e.TemplateID) > maxCustomizationLen {
		return apierr.Invalid("parameters.emailCustomization is larger than %d bytes", maxCustomizationLen)
	}
	if e.LogoURL != "" {
		if u, err := url.Parse(e.LogoURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return apierr.Invalid("parameters.emailCustomization.logoUrl: %q is not an http(s) URL", e.LogoURL)
		}
	}
	if e.MagicLinkTemplate != "" && strings.Count(e.MagicLinkTemplate, "%s") != 1 {
		return apierr.Invalid("parameters.emailCustomization.magicLinkTemplate must contain %%s exactly once, where the code goes (for example https://app.example/login?code=%%s)")
	}
	if e.TemplateVariables != "" {
		var vars map[string]any
		if err := json.Unmarshal([]byte(e.TemplateVariables), &vars); err != nil || vars == nil {
			return apierr.Invalid("parameters.emailCustomization.templateVariables must be a JSON object as a string, like {\"name\":\"Ada\"}")
		}
	}
	return nil
}

func execInitOtpV1(x *execution, p *api.InitOtpIntent) (*api.InitOtpResult, error) {
	in := initV1(p)
	if err := in.validate(p.ExpirationSeconds, false); err != nil {
		return nil, err
	}
	if in.appName == "" {
		in.appName = x.org.Name
	}
	id, _, err := x.initOtp(in)
	return &api.InitOtpResult{OtpID: id}, err
}

func execInitOtpV2(x *execution, p *api.InitOtpIntentV2) (*api.InitOtpResult, error) {
	in := initV2(p)
	if err := in.validate(p.ExpirationSeconds, true); err != nil {
		return nil, err
	}
	id, _, err := x.initOtp(in)
	return &api.InitOtpResult{OtpID: id}, err
}

func execInitOtpV3(x *execution, p *api.InitOtpIntentV3) (*api.InitOtpResultV2, error) {
	in := initV2((*api.InitOtpIntentV2)(p))
	if err := in.validate(p.ExpirationSeconds, true); err != nil {
		return nil, err
	}
	in.encrypted = true
	id, target, err := x.initOtp(in)
	return &api.InitOtpResultV2{OtpID: id, OtpEncryptionTargetBundle: target}, err
}

// otpManager applies the configured limits with the hash secret derived from the token key, on the execution's clock.
func (x *execution) otpManager() (*otp.Manager, error) {
	k, err := x.tokenKey()
	if err != nil {
		return nil, err
	}
	secret, err := otpHashSecret(k)
	if err != nil {
		return nil, err
	}
	now := x.now
	return otp.NewManager(secret, x.c.cfg.OTPLimits, func() time.Time { return now })
}

// initOtp issues and delivers a code. It returns the OTP id and, for an encrypted flow, the signed target bundle.
// Delivery happens inside the transaction: when it fails the activity fails, and the record is rolled back with it,
// so no code the user never received stays live (and none counts against the limits).
func (x *execution) initOtp(in otpInit) (string, string, error) {
	if err := x.requireMethod(otpLoginMethod(string(in.typ))); err != nil {
		return "", "", err
	}
	if err := x.c.deliveryConfigured(in.typ); err != nil {
		return "", "", err
	}
	m, err := x.otpManager()
	if err != nil {
		return "", "", err
	}
	limits := m.Limits()
	if _, err := x.tx.PruneOTPCodes(x.ctx, x.org.ID, x.now.Add(-limits.SMSWindow).UnixNano()); err != nil {
		return "", "", err
	}
	related, err := x.tx.RelatedOTPCodes(x.ctx, x.org.ID, string(in.typ), in.contact, in.userIdentifier,
		x.now.UnixNano(), x.now.Add(-limits.SMSWindow).UnixNano())
	if err != nil {
		return "", "", err
	}
	recs := make([]otp.Record, len(related))
	for i, r := range related {
		recs[i] = otpRecord(r)
	}
	rec, code, err := m.Issue(otp.Request{ID: newID(), OrganizationID: x.org.ID, Type: in.typ, Contact: in.contact,
		Length: in.length, Numeric: in.numeric, TTL: in.ttl, UserIdentifier: in.userIdentifier}, recs)
	if err != nil {
		return "", "", otpIssueError(err)
	}
	if err := x.tx.InsertOTPCode(x.ctx, store.OTPCode{ID: rec.ID, OrgID: rec.OrganizationID, Type: string(rec.Type),
		Contact: rec.Contact, UserIdentifier: rec.UserIdentifier, CodeHash: rec.CodeHash, Encrypted: in.encrypted,
		CreatedAt: rec.CreatedAt.UnixNano(), ExpiresAt: rec.ExpiresAt.UnixNano()}); err != nil {
		return "", "", err
	}
	var target string
	if in.encrypted {
		if target, err = x.otpTarget(rec.ID); err != nil {
			return "", "", err
		}
	}
	if err := x.deliver(in, code, rec.ExpiresAt.Sub(rec.CreatedAt)); err != nil {
		return "", "", err
	}
	return rec.ID, target, nil
}

func otpRecord(r store.OTPCode) otp.Record {
	return otp.Record{ID: r.ID, OrganizationID: r.OrgID, Type: otp.Type(r.Type), Contact: r.Contact,
		UserIdentifier: r.UserIdentifier, CodeHash: r.CodeHash, Attempts: r.Attempts, Used: r.Used,
		CreatedAt: time.Unix(0, r.CreatedAt), ExpiresAt: time.Unix(0, r.ExpiresAt)}
}

func otpIssueError(err error) error {
	switch {
	case errors.Is(err, otp.ErrLimit):
		return apierr.New(apierr.ResourceExhausted, "RATE_LIMIT_EXCEEDED", "%s", err.Error())
	case errors.Is(err, otp.ErrRateLimited):
		return apierr.New(apierr.ResourceExhausted, "RATE_LIMIT_EXCEEDED", "%s", err.Error())
	case errors.Is(err, otp.ErrInvalidRequest):
		return apierr.Invalid("%s", err.Error())
	}
	return err
}

// otpTarget makes the one-time key an INIT_OTP_V3 code is encrypted to, seals it, and returns the target bundle
// signed with the token key (the key clients pin, published in the JWKS).
func (x *execution) otpTarget(otpID string) (string, error) {
	target, err := bundle.NewTargetKey()
	if err != nil {
		return "", err
	}
	id := store.OTPTargetSecretID(otpID)
	raw := target.Bytes()
	blob, err := x.c.vault.seal(id, raw)
	clear(raw)
	if err != nil {
		return "", err
	}
	if err := x.tx.PutSecret(x.ctx, store.Secret{ID: id, OrgID: x.org.ID, Blob: blob, CreatedAt: x.now.UnixNano()}); err != nil {
		return "", err
	}
	signer, err := x.tokenKey()
	if err != nil {
		return "", err
	}
	return bundle.TargetBundle(signer, target.PublicKey(), x.org.ID, "")
}

// deliveryConfigured refuses an OTP type no sender is configured for, before anything is issued.
func (c *Coordinator) deliveryConfigured(t otp.Type) error {
	if t == otp.TypeEmail && c.cfg.Email == nil {
		return apierr.New(apierr.FailedPrecondition, "REQUEST_INVALID", "this server has no e-mail delivery configured, so OTP_TYPE_EMAIL codes cannot be sent")
	}
	if t == otp.TypeSMS && c.cfg.SMS == nil {
		return apierr.New(apierr.FailedPrecondition, "REQUEST_INVALID", "this server has no SMS delivery configured, so OTP_TYPE_SMS codes cannot be sent")
	}
	return nil
}

// deliver sends the code. A refusal of the request's own customization is the caller's error; a delivery failure
// is logged in full for the operator and reported without the mail server's details.
func (x *execution) deliver(in otpInit, code string, ttl time.Duration) error {
	var err error
	switch in.typ {
	case otp.TypeEmail:
		if err := x.checkSenders(in.from, in.replyTo); err != nil {
			return err
		}
		m := &notify.Mailer{Sender: x.c.cfg.Email, DefaultFrom: x.c.cfg.EmailFrom, Templates: x.c.cfg.EmailTemplates, Logos: x.c.cfg.Logos}
		err = m.SendOTP(x.ctx, notify.OTPEmail{OrganizationID: x.org.ID, To: in.contact, AppName: in.appName, Code: code,
			ExpiresIn: ttl, FromAddress: in.from, FromName: in.fromName, ReplyTo: in.replyTo, LogoURL: in.email.LogoURL,
			MagicLinkTemplate: in.email.MagicLinkTemplate, TemplateID: in.email.TemplateID, TemplateVariables: in.email.TemplateVariables,
			CredentialBundle: in.bundle})
	case otp.TypeSMS:
		tmpl := in.smsTemplate
		if tmpl == "" {
			tmpl = notify.DefaultSMSTemplate
		}
		var body string
		if body, err = notify.OTPText(tmpl, in.appName, code); err == nil {
			err = x.c.cfg.SMS.SendSMS(x.ctx, notify.SMS{To: in.contact, Body: body})
		}
	}
	x.c.cfg.Metrics.OTPSend(strings.ToLower(strings.TrimPrefix(string(in.typ), "OTP_TYPE_")), err)
	if err == nil && in.typ == otp.TypeEmail {
		from := in.from
		if from == "" {
			from = x.c.cfg.EmailFrom
		}
		return x.tx.PutEmailEvent(x.ctx, store.EmailEvent{ID: newID(), OrgID: x.org.ID, MessageID: newID(), EventType: "Send",
			FromAddress: from, ToAddress: strings.ToLower(in.contact), AtMs: x.now.UnixMilli()})
	}
	if err == nil {
		return nil
	}
	if errors.Is(err, notify.ErrInvalidMessage) {
		return apierr.Invalid("%s", err.Error())
	}
	channel := "e-mail"
	if in.typ == otp.TypeSMS {
		channel = "text message"
	}
	x.c.cfg.Logger.Error("OTP delivery failed", "organization", x.org.ID, "activity", x.activityID, "channel", channel, "err", err)
	return apierr.New(apierr.Unavailable, "INTERNAL", "the %s with the code could not be delivered (the delivery service refused it or could not be reached); no code was issued, try again later", channel)
}

// checkSenders refuses a sender or reply-to address that the operator does not let the submitting credential's
// organization use: the mail leaves through the operator's server under the names it carries, so no tenant may send
// as anyone it likes. The operator's own sender is always allowed; other addresses only at the domains the operator
// lists for every organization or for this one (Config.EmailSenderDomains).
func (x *execution) checkSenders(from, replyTo string) error {
	orgID := x.who.Org.ID
	for _, f := range []struct{ path, addr string }{{"parameters.sendFromEmailAddress", from}, {"parameters.replyToEmailAddress", replyTo}} {
		if f.addr == "" || strings.EqualFold(f.addr, x.c.cfg.EmailFrom) || x.c.cfg.EmailSenderDomains.Allows(orgID, f.addr) {
			continue
		}
		allowed := "only; ask its operator to allow your domain"
		if domains := x.c.cfg.EmailSenderDomains.For(orgID); len(domains) > 0 {
			allowed = "or from addresses at " + strings.Join(domains, ", ")
		}
		return apierr.New(apierr.InvalidArgument, "REQUEST_INVALID", "%s: %s is not an address this organization may send from: "+
			"this server sends its mail from %s (leave the field empty) %s", f.path, f.addr, cmp.Or(x.c.cfg.EmailFrom, "its own sender"), allowed)
	}
	return nil
}

func validateVerifyOtpV1(p *api.VerifyOtpIntent) error {
	if err := checkID("parameters.otpId", p.OtpID); err != nil {
		return err
	}
	if p.OtpCode == "" || len(p.OtpCode) > maxOtpCodeLen {
		return apierr.Invalid("parameters.otpCode must be the code that was sent (1 to %d characters)", maxOtpCodeLen)
	}
	if p.PublicKey != "" {
		if _, err := sessionKeyHex("parameters.publicKey", p.PublicKey); err != nil {
			return err
		}
	}
	return checkTokenTTL(p.ExpirationSeconds)
}

func validateVerifyOtpV2(p *api.VerifyOtpIntentV2) error {
	if err := checkID("parameters.otpId", p.OtpID); err != nil {
		return err
	}
	if p.EncryptedOtpBundle == "" || len(p.EncryptedOtpBundle) > maxCustomizationLen {
		return apierr.Invalid("parameters.encryptedOtpBundle must be the bundle @turnkey/crypto's encryptOtpCodeToBundle made")
	}
	return checkTokenTTL(p.ExpirationSeconds)
}

func checkTokenTTL(s string) error {
	if s == "" {
		return nil
	}
	if _, err := parseExpiration(s); err != nil {
		return apierr.Invalid("parameters.expirationSeconds: %s", err.Error())
	}
	return nil
}

// sessionKeyHex checks a client key (P-256, hex, compressed or not) and returns its compressed lower-case hex, the
// form tokens, sessions and credentials carry.
func sessionKeyHex(path, s string) (string, error) {
	pub, err := token.ParseP256PublicKey(s)
	if err != nil {
		return "", apierr.Invalid("%s: %s (a P-256 public key in hex, as the SDKs generate it)", path, err.Error())
	}
	return token.CompressedPublicKeyHex(pub)
}

func execVerifyOtpV1(x *execution, p *api.VerifyOtpIntent) (*api.VerifyOtpResult, error) {
	rec, err := x.otpCode(p.OtpID)
	if err != nil {
		return nil, err
	}
	if rec.Encrypted {
		return nil, apierr.Invalid("OTP %s was started with INIT_OTP_V3; verify it with VERIFY_OTP_V2 and an encryptedOtpBundle (legacy and current steps cannot be mixed)", rec.ID)
	}
	var pub string
	if p.PublicKey != "" {
		if pub, err = sessionKeyHex("parameters.publicKey", p.PublicKey); err != nil {
			return nil, err
		}
	}
	return x.verifyOtp(rec, p.OtpCode, pub, p.ExpirationSeconds)
}

func execVerifyOtpV2(x *execution, p *api.VerifyOtpIntentV2) (*api.VerifyOtpResult, error) {
	rec, err := x.otpCode(p.OtpID)
	if err != nil {
		return nil, err
	}
	if !rec.Encrypted {
		return nil, apierr.Invalid("OTP %s was not started with INIT_OTP_V3, so it has no encryption target; verify it with VERIFY_OTP (legacy and current steps cannot be mixed)", rec.ID)
	}
	id := store.OTPTargetSecretID(rec.ID)
	s, err := x.tx.GetSecret(x.ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, apierr.Invalid("OTP %s has already been verified; request a new code", rec.ID)
	}
	if err != nil {
		return nil, err
	}
	raw, err := x.c.vault.open(id, s.Blob)
	if err != nil {
		return nil, err
	}
	target, err := bundle.ParseTargetKey(raw)
	clear(raw)
	if err != nil {
		return nil, err
	}
	payload, err := bundle.DecryptOTP(target, p.EncryptedOtpBundle)
	if err != nil {
		return nil, apierr.Invalid("parameters.encryptedOtpBundle: %s (encrypt the code to this OTP's otpEncryptionTargetBundle)", err.Error())
	}
	pub, err := sessionKeyHex("encryptedOtpBundle public_key", payload.PublicKey)
	if err != nil {
		return nil, err
	}
	res, err := x.verifyOtp(rec, payload.OTPCode, pub, p.ExpirationSeconds)
	if err != nil {
		return nil, err
	}
	// The target key has done its job; without it the bundle can never be opened again.
	return res, x.tx.DeleteSecrets(x.ctx, id)
}

// otpCode loads a code of the execution's organization.
func (x *execution) otpCode(id string) (store.OTPCode, error) {
	rec, err := x.tx.OTPCode(x.ctx, x.org.ID, id)
	if errors.Is(err, store.ErrNotFound) {
		return rec, apierr.NotFoundf("OTP %s not found in organization %s: verify a code in the organization that sent it (expired codes are removed after a while)", id, x.org.ID)
	}
	return rec, err
}

// verifyOtp checks entry against the code and, when it matches, issues a verification token for the contact, bound
// to publicKey when one is given.
func (x *execution) verifyOtp(row store.OTPCode, entry, publicKey, expirationSeconds string) (*api.VerifyOtpResult, error) {
	ttl := x.c.cfg.VerificationTokenTTL
	if expirationSeconds != "" {
		secs, _ := parseExpiration(expirationSeconds)
		ttl = time.Duration(secs) * time.Second
		if ttl > x.c.cfg.MaxVerificationTokenTTL {
			return nil, apierr.Invalid("parameters.expirationSeconds: %s seconds is more than the maximum of %d", expirationSeconds, int64(x.c.cfg.MaxVerificationTokenTTL/time.Second))
		}
	}
	if err := x.checkOtp(row, entry); err != nil {
		return nil, err
	}
	k, err := x.tokenKey()
	if err != nil {
		return nil, err
	}
	iss, err := token.NewIssuer(k, func() time.Time { return x.now })
	if err != nil {
		return nil, err
	}
	tok, err := iss.VerificationToken(token.VerificationClaims{ID: newID(), VerificationType: row.Type, Contact: row.Contact,
		OrganizationID: x.org.ID, PublicKey: publicKey}, ttl)
	if err != nil {
		return nil, err
	}
	return &api.VerifyOtpResult{VerificationToken: tok}, nil
}

// checkOtp checks entry against the code, counting the attempt (a wrong entry counts even though the activity fails)
// and using the code up when it matches.
func (x *execution) checkOtp(row store.OTPCode, entry string) error {
	m, err := x.otpManager()
	if err != nil {
		return err
	}
	rec := otpRecord(row)
	checked, checkErr := m.Check(rec, entry)
	if checked.Attempts != rec.Attempts || checked.Used != rec.Used {
		updated, err := x.tx.UpdateOTPCode(x.ctx, x.org.ID, rec.ID, rec.Attempts, checked.Attempts, checked.Used)
		if err != nil {
			return err
		}
		if !updated {
			return apierr.New(apierr.Aborted, "REQUEST_INVALID", "OTP %s was checked by another request at the same time; try again", rec.ID)
		}
	}
	if checkErr != nil {
		// A wrong entry must count even though the activity fails and its writes are undone.
		if err := x.keepWrites(); err != nil {
			return err
		}
		return otpCheckError(checkErr)
	}
	return nil
}

// otpCheckError words a failed check as the SDKs recognize it ("Invalid OTP code").
func otpCheckError(err error) error {
	msg := err.Error()
	if errors.Is(err, otp.ErrInvalidCode) {
		msg = "Invalid OTP code" + strings.TrimPrefix(msg, otp.ErrInvalidCode.Error())
	}
	return apierr.New(apierr.InvalidArgument, "REQUEST_INVALID", "%s", msg)
}

// keepWrites makes the writes so far survive the activity's failure. The engine undoes a failed activity by rolling
// back to executeSavepoint; a newer savepoint of the same name is the one such a rollback returns to, in SQLite and
// PostgreSQL alike, so everything before it stays.
func (x *execution) keepWrites() error { return x.tx.Savepoint(x.ctx, executeSavepoint) }

// listEmailEvents is the query of what the mailer sent to a recipient of the organization.
var listEmailEvents = query(api.ListEmailEvents, queryListEmailEvents)

func queryListEmailEvents(r *reader, q *api.ListEmailEventsRequest) (*api.ListEmailEventsResponse, error) {
	if err := checkEmail("email", q.Email); err != nil {
		return nil, err
	}
	limit, after, before, err := pageLimit(q.PaginationOptions)
	if err != nil {
		return nil, err
	}
	if after != "" {
		return nil, apierr.Invalid("paginationOptions.after: email events are listed newest first; page with before")
	}
	rows, err := r.c.store.ListEmailEvents(r.ctx, store.EmailEventPage{OrgID: r.org.ID, ToAddress: strings.ToLower(q.Email),
		EventType: q.EventType, Before: before, Limit: limit})
	if err != nil {
		return nil, err
	}
	out := &api.ListEmailEventsResponse{EmailEvents: []api.EmailEvent{}}
	for _, e := range rows {
		at := strconv.FormatInt(e.AtMs, 10)
		out.EmailEvents = append(out.EmailEvents, api.EmailEvent{ID: e.ID, OrganizationID: e.OrgID, MessageID: e.MessageID,
			EventType: e.EventType, FromAddress: e.FromAddress, ToAddress: e.ToAddress, Timestamp: at, CreatedAt: at})
	}
	return out, nil
}
