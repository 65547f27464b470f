package notify

import (
	"context"
	"crypto/tls"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestComposeBuiltin(t *testing.T) {
	t.Parallel()
	m := &Mailer{DefaultFrom: "no-reply@sigil.example"}
	msg, err := m.ComposeOTP(context.Background(), OTPEmail{
		To: "user@example.com", AppName: "Acme", Code: "7KQ2M9XWZ", ExpiresIn: 5 * time.Minute,
		MagicLinkTemplate: "https://app.acme.example/login?code=%s",
	})
	if err != nil {
		t.Fatal(err)
	}
	if msg.From != "no-reply@sigil.example" || msg.FromName != "Notifications" || msg.ReplyTo != "" {
		t.Errorf("sender %q %q %q", msg.FromName, msg.From, msg.ReplyTo)
	}
	if msg.Subject != "Acme: your verification code is 7KQ2M9XWZ" {
		t.Errorf("subject %q", msg.Subject)
	}
	for _, want := range []string{"Your Acme verification code is:", "    7KQ2M9XWZ", "It expires in 5 minutes.", "https://app.acme.example/login?code=7KQ2M9XWZ"} {
		if !strings.Contains(msg.Text, want) {
			t.Errorf("text lacks %q:\n%s", want, msg.Text)
		}
	}
	for _, want := range []string{">7KQ2M9XWZ<", `href="https://app.acme.example/login?code=7KQ2M9XWZ"`, "5 minutes"} {
		if !strings.Contains(msg.HTML, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	if strings.Contains(msg.HTML, "<img") || len(msg.Inline) != 0 {
		t.Error("logo without logoUrl")
	}

	msg, err = m.ComposeOTP(context.Background(), OTPEmail{
		To: "user@example.com", Code: "123456", FromAddress: "auth@acme.example", FromName: "Acme", ReplyTo: "help@acme.example",
	})
	if err != nil {
		t.Fatal(err)
	}
	if msg.From != "auth@acme.example" || msg.FromName != "Acme" || msg.ReplyTo != "help@acme.example" ||
		msg.Subject != "your verification code is 123456" || strings.Contains(msg.Text, "expires") || strings.Contains(msg.HTML, "Sign in") {
		t.Errorf("minimal message %+v", msg)
	}
}

// A credential bundle is presented as a sign-in credential to paste, on its own line, never in the subject.
func TestComposeCredentialBundle(t *testing.T) {
	t.Parallel()
	m := &Mailer{DefaultFrom: "no-reply@sigil.example"}
	bundle := strings.Repeat("3xQ", 40)
	msg, err := m.ComposeOTP(context.Background(), OTPEmail{To: "user@example.com", AppName: "Acme", Code: bundle,
		ExpiresIn: 15 * time.Minute, MagicLinkTemplate: "https://app.acme.example/auth?bundle=%s", CredentialBundle: true})
	if err != nil {
		t.Fatal(err)
	}
	if msg.Subject != "Acme: your sign-in credential" {
		t.Errorf("subject %q", msg.Subject)
	}
	for _, want := range []string{"\n" + bundle + "\n", "https://app.acme.example/auth?bundle=" + bundle, "It expires in 15 minutes."} {
		if !strings.Contains(msg.Text, want) {
			t.Errorf("text lacks %q:\n%s", want, msg.Text)
		}
	}
	if !strings.Contains(msg.HTML, `href="https://app.acme.example/auth?bundle=`+bundle+`"`) || strings.Contains(msg.Text, "verification code") {
		t.Errorf("HTML or wording of a credential e-mail:\n%s", msg.HTML)
	}
}

func TestComposeWithLogo(t *testing.T) {
	t.Parallel()
	srv := logoServer(t)
	m := &Mailer{DefaultFrom: "no-reply@sigil.example", Logos: &LogoFetcher{AllowPrivateNetworks: true}}
	msg, err := m.ComposeOTP(context.Background(), OTPEmail{To: "u@example.com", AppName: "Acme", Code: "123456", LogoURL: srv.URL + "/big.png"})
	if err != nil {
		t.Fatal(err)
	}
	if len(msg.Inline) != 1 || !strings.Contains(msg.HTML, `src="cid:logo"`) {
		t.Errorf("logo not embedded: %d images, HTML has cid: %v", len(msg.Inline), strings.Contains(msg.HTML, "cid:logo"))
	}
	if _, err := m.ComposeOTP(context.Background(), OTPEmail{To: "u@example.com", Code: "1", LogoURL: srv.URL + "/photo.jpg"}); !errors.Is(err, ErrInvalidMessage) {
		t.Errorf("JPEG logo: %v", err)
	}
	if _, err := (&Mailer{DefaultFrom: "a@example.com"}).ComposeOTP(context.Background(), OTPEmail{To: "u@example.com", Code: "1", LogoURL: srv.URL + "/big.png"}); !errors.Is(err, ErrInvalidMessage) {
		t.Errorf("logo without a fetcher: %v", err)
	}
}

func TestComposeCustomTemplate(t *testing.T) {
	t.Parallel()
	tpl, err := ParseTemplate("Hi {{.name}}, your {{.AppName}} code", "{{.name}}: {{.OtpCode}} ({{.plan.tier}})", `<p>Hello {{.name}}</p><b>{{.OtpCode}}</b>{{if .LogoURL}}<img src="{{.LogoURL}}">{{end}}`)
	if err != nil {
		t.Fatal(err)
	}
	ts := &Templates{}
	ts.Register("org-1", "welcome", tpl)
	srv := logoServer(t)
	m := &Mailer{DefaultFrom: "no-reply@sigil.example", Templates: ts, Logos: &LogoFetcher{AllowPrivateNetworks: true}}
	base := OTPEmail{OrganizationID: "org-1", TemplateID: "welcome", To: "u@example.com", AppName: "Acme", Code: "123456",
		TemplateVariables: `{"name":"<Ada>","plan":{"tier":"gold"}}`, LogoURL: srv.URL + "/small.png"}
	msg, err := m.ComposeOTP(context.Background(), base)
	if err != nil {
		t.Fatal(err)
	}
	if msg.Subject != "Hi <Ada>, your Acme code" || msg.Text != "<Ada>: 123456 (gold)" ||
		msg.HTML != `<p>Hello &lt;Ada&gt;</p><b>123456</b><img src="cid:logo">` {
		t.Errorf("rendered %q / %q / %q", msg.Subject, msg.Text, msg.HTML)
	}

	for _, tc := range []struct {
		name   string
		mutate func(*OTPEmail)
		want   string
	}{
		{"array variables", func(e *OTPEmail) { e.TemplateVariables = `["a"]` }, "not a JSON array"},
		{"string variables", func(e *OTPEmail) { e.TemplateVariables = `"a"` }, "not a JSON string"},
		{"not JSON", func(e *OTPEmail) { e.TemplateVariables = `name=Ada` }, "must be a JSON object"},
		{"two objects", func(e *OTPEmail) { e.TemplateVariables = `{"name":"a"}{"b":1}` }, "must be a JSON object"},
		{"overrides the code", func(e *OTPEmail) { e.TemplateVariables = `{"name":"a","OtpCode":"000000"}` }, `may not set "OtpCode"`},
		{"missing variable", func(e *OTPEmail) { e.TemplateVariables = `{"plan":{"tier":"x"}}` }, `map has no entry for key "name"`},
		{"unknown template", func(e *OTPEmail) { e.TemplateID = "nope" }, `no e-mail template "nope"`},
		{"other organization's template", func(e *OTPEmail) { e.OrganizationID = "org-2" }, `no e-mail template "welcome"`},
		{"magic link without placeholder", func(e *OTPEmail) { e.MagicLinkTemplate = "https://x.example/login" }, "no %s placeholder"},
		{"javascript magic link", func(e *OTPEmail) { e.MagicLinkTemplate = "javascript:alert('%s')" }, "http(s) URL"},
		{"no code", func(e *OTPEmail) { e.Code = "" }, "needs a recipient and a code"},
		{"bad sender", func(e *OTPEmail) { e.FromAddress = "evil\r\nBcc: x@example.com" }, "not a bare e-mail address"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := base
			tc.mutate(&e)
			_, err := m.ComposeOTP(context.Background(), e)
			if !errors.Is(err, ErrInvalidMessage) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
	if _, err := ParseTemplate("{{.x", "t", ""); !errors.Is(err, ErrInvalidMessage) {
		t.Errorf("broken subject template: %v", err)
	}
	if _, err := ParseTemplate("s", "", ""); !errors.Is(err, ErrInvalidMessage) {
		t.Errorf("template without body: %v", err)
	}
}

// TestSendOTPOverSMTP: the whole path, fetched logo included, into a real
// SMTP server.
func TestSendOTPOverSMTP(t *testing.T) {
	t.Parallel()
	cert, pool := selfSigned(t)
	ms := startMailServer(t, StartTLS, cert, "mailer", "pw")
	sender, err := NewSMTPSender(SMTPConfig{Host: "localhost", Port: ms.addr.Port, Username: "mailer", Password: "pw",
		TLSConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}, Now: func() time.Time { return testDate }})
	if err != nil {
		t.Fatal(err)
	}
	srv := logoServer(t)
	m := &Mailer{Sender: sender, DefaultFrom: "no-reply@sigil.example", Logos: &LogoFetcher{AllowPrivateNetworks: true}}
	err = m.SendOTP(context.Background(), OTPEmail{To: "user@example.com", AppName: "Ünïcode Bank", Code: "7KQ2M9XWZ",
		FromName: "Ünïcode Bank Security", ReplyTo: "help@bank.example", LogoURL: srv.URL + "/big.png"})
	if err != nil {
		t.Fatal(err)
	}
	got := ms.received()
	if len(got) != 1 {
		t.Fatalf("%d messages", len(got))
	}
	checkOTPMessage(t, got[0].Data, true)
}

func TestOTPText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ tmpl, app, want string }{
		{"", "Acme", "Your Acme code is 123456"},
		{"", "", "Your code is 123456"},
		{"{{.OtpCode}} is your {{.AppName}} code. Don't share it.", "Acme", "123456 is your Acme code. Don't share it."},
	} {
		got, err := OTPText(tc.tmpl, tc.app, "123456")
		if err != nil || got != tc.want {
			t.Errorf("OTPText(%q) = %q, %v; want %q", tc.tmpl, got, err, tc.want)
		}
	}
	for _, tmpl := range []string{"Your code", "{{.OtpCode", "{{.OtpCode}} {{.Nope}}", "{{if false}}{{.OtpCode}}{{end}}"} {
		if got, err := OTPText(tmpl, "Acme", "123456"); err == nil {
			t.Errorf("OTPText(%q) = %q, accepted", tmpl, got)
		}
	}
}
