package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	htmltemplate "html/template"
	"net/url"
	"strings"
	"sync"
	texttemplate "text/template"
	"time"
)

// DefaultSenderName is the sender's display name when the request gives none.
const DefaultSenderName = "Notifications"

// OTPEmail is what INIT_OTP asks to be mailed.
type OTPEmail struct {
	OrganizationID string
	To             string
	AppName        string
	Code           string
	ExpiresIn      time.Duration // shown in the message when > 0

	// sendFromEmailAddress, sendFromEmailSenderName, replyToEmailAddress.
	FromAddress string
	FromName    string
	ReplyTo     string

	// emailCustomization.
	LogoURL           string
	MagicLinkTemplate string // "%s" is replaced by the code
	TemplateID        string
	TemplateVariables string // a JSON object

	// CredentialBundle: Code is a credential bundle (EMAIL_AUTH, e-mail recovery), which the built-in message presents
	// as a sign-in credential to paste into the app rather than a code to type. Custom templates get it as OtpCode.
	CredentialBundle bool
}

// Template is an organization's custom e-mail. Subject and Text are
// text/template, HTML is html/template. Their data is the templateVariables
// object plus OtpCode, AppName, MagicLink, LogoURL ("cid:logo" or empty) and
// ExpiresInMinutes.
type Template struct {
	Subject *texttemplate.Template
	Text    *texttemplate.Template
	HTML    *htmltemplate.Template
}

// ParseTemplate compiles the three parts of a custom template; a missing
// key in the data is an error, not an empty string. Text or HTML may be
// empty, not both.
func ParseTemplate(subject, text, html string) (Template, error) {
	var t Template
	var err error
	if t.Subject, err = texttemplate.New("subject").Option("missingkey=error").Parse(subject); err != nil {
		return Template{}, fmt.Errorf("%w: subject template: %v", ErrInvalidMessage, err)
	}
	if text == "" && html == "" {
		return Template{}, fmt.Errorf("%w: a template needs a text or an HTML body", ErrInvalidMessage)
	}
	if text != "" {
		if t.Text, err = texttemplate.New("text").Option("missingkey=error").Parse(text); err != nil {
			return Template{}, fmt.Errorf("%w: text template: %v", ErrInvalidMessage, err)
		}
	}
	if html != "" {
		if t.HTML, err = htmltemplate.New("html").Option("missingkey=error").Parse(html); err != nil {
			return Template{}, fmt.Errorf("%w: HTML template: %v", ErrInvalidMessage, err)
		}
	}
	return t, nil
}

// Templates holds custom templates by organization and template id. It is
// safe for concurrent use.
type Templates struct {
	mu sync.RWMutex
	m  map[[2]string]Template
}

// Register adds or replaces an organization's template.
func (ts *Templates) Register(organizationID, templateID string, t Template) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.m == nil {
		ts.m = map[[2]string]Template{}
	}
	ts.m[[2]string{organizationID, templateID}] = t
}

// Lookup finds an organization's template.
func (ts *Templates) Lookup(organizationID, templateID string) (Template, bool) {
	if ts == nil {
		return Template{}, false
	}
	ts.mu.RLock()
	defer ts.mu.RUnlock()
	t, ok := ts.m[[2]string{organizationID, templateID}]
	return t, ok
}

// Mailer turns OTP requests into messages and sends them.
type Mailer struct {
	Sender      EmailSender
	DefaultFrom string // sender address when the request names none
	Templates   *Templates
	// Logos fetches logoUrl; nil refuses requests that carry one.
	Logos *LogoFetcher
}

// SendOTP composes and sends the OTP e-mail.
func (m *Mailer) SendOTP(ctx context.Context, e OTPEmail) error {
	msg, err := m.ComposeOTP(ctx, e)
	if err != nil {
		return err
	}
	return m.Sender.SendEmail(ctx, msg)
}

// ComposeOTP builds the message: the custom template named by TemplateID,
// or the built-in one.
func (m *Mailer) ComposeOTP(ctx context.Context, e OTPEmail) (Message, error) {
	if e.Code == "" || e.To == "" {
		return Message{}, fmt.Errorf("%w: an OTP e-mail needs a recipient and a code", ErrInvalidMessage)
	}
	msg := Message{To: e.To, From: e.FromAddress, FromName: e.FromName, ReplyTo: e.ReplyTo}
	if msg.From == "" {
		msg.From = m.DefaultFrom
	}
	if msg.FromName == "" {
		msg.FromName = DefaultSenderName
	}
	data, err := templateData(e)
	if err != nil {
		return Message{}, err
	}
	if e.LogoURL != "" {
		if m.Logos == nil {
			return Message{}, fmt.Errorf("%w: logoUrl given but logo fetching is not enabled", ErrInvalidMessage)
		}
		logo, err := m.Logos.Fetch(ctx, e.LogoURL)
		if err != nil {
			return Message{}, err
		}
		msg.Inline = []InlineImage{logo}
		// html/template allows only http(s) and mailto URLs unless told the
		// value is safe; this one is ours.
		data["LogoURL"] = htmltemplate.URL("cid:" + LogoContentID)
	}
	t := builtinTemplate
	if e.CredentialBundle {
		t = builtinCredentialTemplate
	}
	if e.TemplateID != "" {
		var ok bool
		if t, ok = m.Templates.Lookup(e.OrganizationID, e.TemplateID); !ok {
			return Message{}, fmt.Errorf("%w: no e-mail template %q is registered for this organization", ErrInvalidMessage, e.TemplateID)
		}
	}
	if err := t.render(data, &msg); err != nil {
		return Message{}, err
	}
	if err := msg.validate(); err != nil {
		return Message{}, err
	}
	return msg, nil
}

// reserved are the data keys the server sets; templateVariables may not.
var reserved = []string{"OtpCode", "AppName", "MagicLink", "LogoURL", "ExpiresInMinutes"}

func templateData(e OTPEmail) (map[string]any, error) {
	data := map[string]any{}
	if strings.TrimSpace(e.TemplateVariables) != "" {
		dec := json.NewDecoder(strings.NewReader(e.TemplateVariables))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil || dec.More() {
			return nil, fmt.Errorf("%w: templateVariables must be a JSON object, like {\"name\":\"Ada\"}", ErrInvalidMessage)
		}
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%w: templateVariables must be a JSON object, not a JSON %s", ErrInvalidMessage, jsonKind(v))
		}
		data = obj
	}
	for _, k := range reserved {
		if _, ok := data[k]; ok {
			return nil, fmt.Errorf("%w: templateVariables may not set %q, which the server fills in", ErrInvalidMessage, k)
		}
	}
	link, err := magicLink(e.MagicLinkTemplate, e.Code)
	if err != nil {
		return nil, err
	}
	data["OtpCode"] = e.Code
	data["AppName"] = e.AppName
	data["MagicLink"] = link
	data["LogoURL"] = ""
	data["ExpiresInMinutes"] = int((e.ExpiresIn + time.Minute - 1) / time.Minute)
	return data, nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case []any:
		return "array"
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	case nil:
		return "null"
	}
	return "value"
}

// magicLink fills "%s" with the code and insists on an http(s) URL, so a
// template cannot put a javascript: link in the button.
func magicLink(tmpl, code string) (string, error) {
	if tmpl == "" {
		return "", nil
	}
	if !strings.Contains(tmpl, "%s") {
		return "", fmt.Errorf("%w: magicLinkTemplate has no %%s placeholder for the code", ErrInvalidMessage)
	}
	link := strings.ReplaceAll(tmpl, "%s", url.QueryEscape(code))
	u, err := url.Parse(link)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return "", fmt.Errorf("%w: magicLinkTemplate must give an http(s) URL", ErrInvalidMessage)
	}
	return link, nil
}

func (t Template) render(data map[string]any, msg *Message) error {
	var subject, text, html bytes.Buffer
	if err := t.Subject.Execute(&subject, data); err != nil {
		return fmt.Errorf("%w: rendering the subject: %v", ErrInvalidMessage, err)
	}
	if t.Text != nil {
		if err := t.Text.Execute(&text, data); err != nil {
			return fmt.Errorf("%w: rendering the text body: %v", ErrInvalidMessage, err)
		}
	}
	if t.HTML != nil {
		if err := t.HTML.Execute(&html, data); err != nil {
			return fmt.Errorf("%w: rendering the HTML body: %v", ErrInvalidMessage, err)
		}
	}
	msg.Subject = strings.TrimSpace(strings.ReplaceAll(subject.String(), "\n", " "))
	msg.Text, msg.HTML = text.String(), html.String()
	return nil
}

// DefaultSMSTemplate is used when smsCustomization.template is empty.
const DefaultSMSTemplate = "Your {{.AppName}} code is {{.OtpCode}}"

// OTPText renders an SMS body from smsCustomization.template ({{.OtpCode}},
// {{.AppName}}). A template without {{.OtpCode}} is refused: the message
// would not carry the code.
func OTPText(template, appName, code string) (string, error) {
	if template == "" {
		template = DefaultSMSTemplate
		if appName == "" {
			template = "Your code is {{.OtpCode}}"
		}
	}
	if !strings.Contains(template, ".OtpCode") {
		return "", fmt.Errorf("%w: the SMS template must contain {{.OtpCode}}", ErrInvalidMessage)
	}
	t, err := texttemplate.New("sms").Option("missingkey=error").Parse(template)
	if err != nil {
		return "", fmt.Errorf("%w: SMS template: %v", ErrInvalidMessage, err)
	}
	var out bytes.Buffer
	if err := t.Execute(&out, map[string]string{"OtpCode": code, "AppName": appName}); err != nil {
		return "", fmt.Errorf("%w: SMS template: %v", ErrInvalidMessage, err)
	}
	if !strings.Contains(out.String(), code) {
		return "", errors.New("notify: the rendered SMS does not contain the code")
	}
	return out.String(), nil
}

var builtinTemplate = mustTemplate(
	`{{if .AppName}}{{.AppName}}: {{end}}your verification code is {{.OtpCode}}`,
	`Your {{if .AppName}}{{.AppName}} {{end}}verification code is:

    {{.OtpCode}}
{{if .ExpiresInMinutes}}
It expires in {{.ExpiresInMinutes}} minute{{if ne .ExpiresInMinutes 1}}s{{end}}.{{end}}
{{if .MagicLink}}
Or sign in with this link: {{.MagicLink}}
{{end}}
If you did not ask for this code, you can ignore this message.
`,
	`<!DOCTYPE html>
<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"></head>
<body style="margin:0;padding:24px;background:#f5f5f7;font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;color:#1d1d1f">
<table role="presentation" width="100%" cellspacing="0" cellpadding="0"><tr><td align="center">
<table role="presentation" width="480" cellspacing="0" cellpadding="0" style="background:#ffffff;border-radius:12px;padding:32px">
{{if .LogoURL}}<tr><td align="center" style="padding-bottom:24px"><img src="{{.LogoURL}}" alt="{{.AppName}}" style="max-width:340px;max-height:124px"></td></tr>{{end}}
<tr><td style="font-size:16px;line-height:24px">Your {{if .AppName}}{{.AppName}} {{end}}verification code is:</td></tr>
<tr><td align="center" style="padding:24px 0;font-family:Menlo,Consolas,monospace;font-size:32px;letter-spacing:6px;font-weight:600">{{.OtpCode}}</td></tr>
{{if .MagicLink}}<tr><td align="center" style="padding-bottom:24px"><a href="{{.MagicLink}}" style="display:inline-block;background:#1d1d1f;color:#ffffff;text-decoration:none;padding:12px 24px;border-radius:8px">Sign in</a></td></tr>{{end}}
{{if .ExpiresInMinutes}}<tr><td style="font-size:14px;color:#6e6e73">It expires in {{.ExpiresInMinutes}} minute{{if ne .ExpiresInMinutes 1}}s{{end}}.</td></tr>{{end}}
<tr><td style="font-size:14px;color:#6e6e73;padding-top:8px">If you did not ask for this code, you can ignore this message.</td></tr>
</table></td></tr></table>
</body></html>
`)

var builtinCredentialTemplate = mustTemplate(
	`{{if .AppName}}{{.AppName}}: {{end}}your sign-in credential`,
	`Your {{if .AppName}}{{.AppName}} {{end}}sign-in credential is below. Paste it into the app{{if .MagicLink}}, or open this link{{end}}.
{{if .MagicLink}}
    {{.MagicLink}}
{{end}}
{{.OtpCode}}
{{if .ExpiresInMinutes}}
It expires in {{.ExpiresInMinutes}} minute{{if ne .ExpiresInMinutes 1}}s{{end}}.{{end}}

If you did not ask to sign in, you can ignore this message: the credential is useless without the app that asked for it.
`,
	`<!DOCTYPE html>
<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"></head>
<body style="margin:0;padding:24px;background:#f5f5f7;font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;color:#1d1d1f">
<table role="presentation" width="100%" cellspacing="0" cellpadding="0"><tr><td align="center">
<table role="presentation" width="480" cellspacing="0" cellpadding="0" style="background:#ffffff;border-radius:12px;padding:32px">
{{if .LogoURL}}<tr><td align="center" style="padding-bottom:24px"><img src="{{.LogoURL}}" alt="{{.AppName}}" style="max-width:340px;max-height:124px"></td></tr>{{end}}
{{if .MagicLink}}<tr><td align="center" style="padding-bottom:24px"><a href="{{.MagicLink}}" style="display:inline-block;background:#1d1d1f;color:#ffffff;text-decoration:none;padding:12px 24px;border-radius:8px">Sign in{{if .AppName}} to {{.AppName}}{{end}}</a></td></tr>{{end}}
<tr><td style="font-size:14px;line-height:20px">Or paste this credential into the app:</td></tr>
<tr><td style="padding:12px 0;font-family:Menlo,Consolas,monospace;font-size:12px;word-break:break-all">{{.OtpCode}}</td></tr>
{{if .ExpiresInMinutes}}<tr><td style="font-size:14px;color:#6e6e73">It expires in {{.ExpiresInMinutes}} minute{{if ne .ExpiresInMinutes 1}}s{{end}}.</td></tr>{{end}}
<tr><td style="font-size:14px;color:#6e6e73;padding-top:8px">If you did not ask to sign in, you can ignore this message.</td></tr>
</table></td></tr></table>
</body></html>
`)

func mustTemplate(subject, text, html string) Template {
	t, err := ParseTemplate(subject, text, html)
	if err != nil {
		panic(err)
	}
	return t
}
