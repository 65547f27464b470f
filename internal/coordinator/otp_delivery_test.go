package coordinator_test

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/png"
	"io"
	"log"
	"mime"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"net/mail"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/authproxy"
	"github.com/sigil/sigil/internal/coordinator"
	"github.com/sigil/sigil/internal/notify"
	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/testdb"
)

// mailbox is a real SMTP server (github.com/emersion/go-smtp) on a loopback port that keeps what it receives.
type mailbox struct {
	addr *net.TCPAddr
	mu   sync.Mutex
	msgs []*mail.Message
	raw  [][]byte
}

func startMailbox(t *testing.T) *mailbox {
	t.Helper()
	mb := &mailbox{}
	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &mailSession{mb: mb}, nil }))
	srv.Domain = "localhost"
	srv.ErrorLog = log.New(io.Discard, "", 0)
	srv.ReadTimeout, srv.WriteTimeout = 10*time.Second, 10*time.Second
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	mb.addr = l.Addr().(*net.TCPAddr)
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return mb
}

func (mb *mailbox) last(t *testing.T) (*mail.Message, []byte) {
	t.Helper()
	mb.mu.Lock()
	defer mb.mu.Unlock()
	if len(mb.msgs) == 0 {
		t.Fatal("no mail received")
	}
	return mb.msgs[len(mb.msgs)-1], mb.raw[len(mb.raw)-1]
}

type mailSession struct{ mb *mailbox }

func (s *mailSession) Mail(string, *smtp.MailOptions) error { return nil }
func (s *mailSession) Rcpt(string, *smtp.RcptOptions) error { return nil }
func (s *mailSession) Reset()                               {}
func (s *mailSession) Logout() error                        { return nil }
func (s *mailSession) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	m, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	s.mb.mu.Lock()
	s.mb.msgs, s.mb.raw = append(s.mb.msgs, m), append(s.mb.raw, raw)
	s.mb.mu.Unlock()
	return nil
}

// textPart finds the text/plain part of a message (quoted-printable decoded by multipart).
func textPart(t *testing.T, m *mail.Message) string {
	t.Helper()
	var walk func(ct string, body io.Reader) string
	walk = func(ct string, body io.Reader) string {
		mt, params, err := mime.ParseMediaType(ct)
		if err != nil {
			t.Fatal(err)
		}
		if mt == "text/plain" {
			b, _ := io.ReadAll(body)
			return string(b)
		}
		if !strings.HasPrefix(mt, "multipart/") {
			return ""
		}
		mr := multipart.NewReader(body, params["boundary"])
		for {
			p, err := mr.NextPart()
			if err != nil {
				return ""
			}
			if s := walk(p.Header.Get("Content-Type"), p); s != "" {
				return s
			}
		}
	}
	return walk(m.Header.Get("Content-Type"), m.Body)
}

func pngOf(t *testing.T, w, h int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewRGBA(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// OTP e-mail through a real SMTP server: the built-in message with a resized logo, a custom template filled from
// templateVariables, sender and reply-to as asked; bad logos refused; a server that is down fails the activity and
// leaves no code behind.
func TestOTPEmailOverSMTP(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		mb := startMailbox(t)
		logo := pngOf(t, 680, 200)
		images := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/logo.png":
				w.Header().Set("Content-Type", "image/png")
				_, _ = w.Write(logo)
			case "/logo.jpg":
				w.Header().Set("Content-Type", "image/jpeg")
				_, _ = w.Write([]byte("\xff\xd8\xff"))
			case "/huge.png":
				w.Header().Set("Content-Type", "image/png")
				_, _ = w.Write(append(logo, make([]byte, 64<<10)...)) // past MaxBytes
			}
		}))
		t.Cleanup(images.Close)
		sender, err := notify.NewSMTPSender(notify.SMTPConfig{Host: "127.0.0.1", Port: mb.addr.Port, Security: notify.Plain})
		if err != nil {
			t.Fatal(err)
		}
		templates := &notify.Templates{}
		mailer := &switchable{to: sender}
		s := newOTPStack(t, b, coordinator.Config{Email: mailer, EmailTemplates: templates, EmailSenderDomains: notify.SenderDomains{Any: []string{"demo.example"}},
			Logos: &notify.LogoFetcher{AllowPrivateNetworks: true, MaxBytes: 64 << 10}})
		org := s.boot.OrganizationID
		welcome, err := notify.ParseTemplate("Welcome {{.name}}", "Hi {{.name}}, your {{.AppName}} code: {{.OtpCode}}", "")
		if err != nil {
			t.Fatal(err)
		}
		templates.Register(org, "welcome", welcome)

		init, _, err := s.root.InitOtp(ctx, org, api.InitOtpIntentV2{OtpType: api.OtpTypeEmail, Contact: "hal@example.com", AppName: "Demo",
			SendFromEmailAddress: "login@demo.example", SendFromEmailSenderName: "Demo Login", ReplyToEmailAddress: "help@demo.example",
			EmailCustomization: &api.EmailCustomizationParamsV2{LogoURL: images.URL + "/logo.png", MagicLinkTemplate: "https://demo.example/login?code=%s"}})
		if err != nil {
			t.Fatal(err)
		}
		m, raw := mb.last(t)
		code := codePattern.FindStringSubmatch(m.Header.Get("Subject"))
		if code == nil {
			t.Fatalf("subject %q names no code", m.Header.Get("Subject"))
		}
		from, _ := mail.ParseAddress(m.Header.Get("From"))
		if from.Address != "login@demo.example" || from.Name != "Demo Login" || m.Header.Get("Reply-To") != "<help@demo.example>" && m.Header.Get("Reply-To") != "help@demo.example" {
			t.Fatalf("From %q, Reply-To %q", m.Header.Get("From"), m.Header.Get("Reply-To"))
		}
		if !bytes.Contains(bytes.ToLower(raw), []byte("content-id: <logo>")) || !strings.Contains(textPart(t, m), "https://demo.example/login?code="+code[1]) {
			t.Fatalf("the message lacks the inline logo or the magic link:\n%s", raw)
		}
		if _, _, err := s.root.VerifyOtp(ctx, org, api.VerifyOtpIntent{OtpID: init.OtpID, OtpCode: code[1]}); err != nil {
			t.Fatalf("verify the mailed code: %v", err)
		}

		if _, _, err := s.root.InitOtp(ctx, org, api.InitOtpIntentV2{OtpType: api.OtpTypeEmail, Contact: "hal@example.com", AppName: "Demo",
			EmailCustomization: &api.EmailCustomizationParamsV2{TemplateID: "welcome", TemplateVariables: `{"name":"Hal"}`}}); err != nil {
			t.Fatal(err)
		}
		m, _ = mb.last(t)
		if m.Header.Get("Subject") != "Welcome Hal" || !regexp.MustCompile(`Hi Hal, your Demo code: [0-9A-Z]{9}`).MatchString(textPart(t, m)) {
			t.Fatalf("custom template: subject %q, text %q", m.Header.Get("Subject"), textPart(t, m))
		}

		for _, tc := range []struct{ name, path, msg string }{
			{"logo not a PNG", "/logo.jpg", "only image/png"},
			{"logo too large", "/huge.png", "larger than"},
		} {
			_, _, err := s.root.InitOtp(ctx, org, api.InitOtpIntentV2{OtpType: api.OtpTypeEmail, Contact: "ivy@example.com", AppName: "Demo",
				EmailCustomization: &api.EmailCustomizationParamsV2{LogoURL: images.URL + tc.path}})
			expectErr(t, tc.name, err, apierr.InvalidArgument, tc.msg)
		}
		_, _, err = s.root.InitOtp(ctx, org, api.InitOtpIntentV2{OtpType: api.OtpTypeEmail, Contact: "ivy@example.com", AppName: "Demo",
			EmailCustomization: &api.EmailCustomizationParamsV2{TemplateID: "welcome", TemplateVariables: `{"OtpCode":"x"}`}})
		expectErr(t, "template variable overriding the code", err, apierr.InvalidArgument, "OtpCode")
		liveCodes(t, s, "ivy@example.com", 0)

		// The mail server goes down: the activity fails, and no code is left live.
		l, _ := net.Listen("tcp", "127.0.0.1:0")
		down := l.Addr().(*net.TCPAddr).Port
		l.Close()
		dead, _ := notify.NewSMTPSender(notify.SMTPConfig{Host: "127.0.0.1", Port: down, Security: notify.Plain, DialTimeout: time.Second})
		mailer.set(dead)
		_, _, err = s.root.InitOtp(ctx, org, api.InitOtpIntentV2{OtpType: api.OtpTypeEmail, Contact: "jo@example.com", AppName: "Demo"})
		expectErr(t, "SMTP server down", err, apierr.Unavailable, "could not be delivered")
		liveCodes(t, s, "jo@example.com", 0)
	})
}

// switchable is an e-mail sender whose delivery can be replaced while the coordinator runs.
type switchable struct {
	mu sync.Mutex
	to notify.EmailSender
}

func (s *switchable) set(to notify.EmailSender) { s.mu.Lock(); s.to = to; s.mu.Unlock() }

func (s *switchable) SendEmail(ctx context.Context, m notify.Message) error {
	s.mu.Lock()
	to := s.to
	s.mu.Unlock()
	return to.SendEmail(ctx, m)
}

// liveCodes checks how many codes the root organization holds for an e-mail contact.
func liveCodes(t *testing.T, s *otpStack, contact string, want int) {
	t.Helper()
	var n int
	err := s.store.Write(context.Background(), func(tx *store.Tx) error {
		rel, err := tx.RelatedOTPCodes(context.Background(), s.boot.OrganizationID, api.OtpTypeEmail, contact, "", 0, 0)
		n = len(rel)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != want {
		t.Fatalf("%d codes stored for %s, want %d", n, contact, want)
	}
}

// fakeTwilio speaks Twilio's Messages API: form-encoded POST with basic auth, 201 with the message, or an error body.
func fakeTwilio(t *testing.T) (*httptest.Server, func() url.Values) {
	t.Helper()
	var mu sync.Mutex
	var last url.Values
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pass, ok := r.BasicAuth()
		if r.Method != http.MethodPost || r.URL.Path != "/2010-04-01/Accounts/AC123/Messages.json" || !ok || user != "AC123" || pass != "secret" {
			w.WriteHeader(http.StatusUnauthorized)
			_ = json.NewEncoder(w).Encode(map[string]any{"code": 20003, "message": "Authenticate", "status": 401})
			return
		}
		_ = r.ParseForm()
		if r.PostForm.Get("To") == "+15005550001" { // Twilio's magic "invalid number"
			w.WriteHeader(http.StatusBadRequest)
			_ = json.NewEncoder(w).Encode(map[string]any{"code": 21211, "message": "The 'To' number is not a valid phone number.", "status": 400})
			return
		}
		mu.Lock()
		last = r.PostForm
		mu.Unlock()
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(map[string]any{"sid": "SM1", "status": "queued", "to": r.PostForm.Get("To"), "body": r.PostForm.Get("Body")})
	}))
	t.Cleanup(srv.Close)
	return srv, func() url.Values {
		mu.Lock()
		defer mu.Unlock()
		return last
	}
}

func TestOTPSMSOverTwilio(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		srv, last := fakeTwilio(t)
		sms, err := notify.NewTwilio(notify.TwilioConfig{BaseURL: srv.URL, AccountSID: "AC123", AuthToken: "secret", From: "+15005550006"})
		if err != nil {
			t.Fatal(err)
		}
		s := newOTPStack(t, b, coordinator.Config{SMS: sms})
		org := s.boot.OrganizationID
		init, _, err := s.root.InitOtp(ctx, org, api.InitOtpIntentV2{OtpType: api.OtpTypeSMS, Contact: "+14155550123", AppName: "Demo",
			SmsCustomization: &api.SmsCustomizationParams{Template: "{{.OtpCode}} is your Demo code"}})
		if err != nil {
			t.Fatal(err)
		}
		form := last()
		m := regexp.MustCompile(`^([0-9A-Z]{9}) is your Demo code$`).FindStringSubmatch(form.Get("Body"))
		if m == nil || form.Get("To") != "+14155550123" || form.Get("From") != "+15005550006" {
			t.Fatalf("Twilio got %v", form)
		}
		if _, _, err := s.root.VerifyOtp(ctx, org, api.VerifyOtpIntent{OtpID: init.OtpID, OtpCode: m[1]}); err != nil {
			t.Fatalf("verify the texted code: %v", err)
		}
		_, _, err = s.root.InitOtp(ctx, org, api.InitOtpIntentV2{OtpType: api.OtpTypeSMS, Contact: "+15005550001", AppName: "Demo"})
		expectErr(t, "number Twilio refuses", err, apierr.Unavailable, "text message with the code could not be delivered")
	})
}

// A tenant's mail leaves through the operator's SMTP server, so it may not sign it as anyone: an INIT_OTP from
// security@paypal.com with a reply-to and a magic link of the attacker's is refused before anything is sent, as is an
// auth proxy configuration naming such a sender. The operator's own sender is always allowed, and addresses at the
// domains the operator lists (for every organization, or for one that showed it owns the domain).
func TestSenderAddressesLimitedToAllowedDomains(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		id, err := authproxy.NewIdentity()
		if err != nil {
			t.Fatal(err)
		}
		s := newOTPStack(t, b, coordinator.Config{EmailSenderDomains: notify.SenderDomains{Any: []string{"mail.example"}},
			AuthProxy: &coordinator.AuthProxyService{EncryptionKey: id.EncryptionPublicKey(), ServiceKey: id.ServicePublicKey()}})
		org := s.boot.OrganizationID
		phishing := api.InitOtpIntentV2{OtpType: api.OtpTypeEmail, Contact: "victim@example.com", AppName: "PayPal",
			SendFromEmailAddress: "security@paypal.com", SendFromEmailSenderName: "PayPal", ReplyToEmailAddress: "help@paypal-support.example",
			EmailCustomization: &api.EmailCustomizationParamsV2{MagicLinkTemplate: "https://paypal-login.example/?code=%s"}}
		sent := len(s.outbox.Entries())
		_, _, err = s.root.InitOtp(ctx, org, phishing)
		if !client.IsCode(err, apierr.InvalidArgument) || !strings.Contains(err.Error(), "parameters.sendFromEmailAddress: security@paypal.com is not an address this organization may send from") ||
			!strings.Contains(err.Error(), "otp@sigil.test") || !strings.Contains(err.Error(), "mail.example") {
			t.Fatalf("INIT_OTP as security@paypal.com: %v", err)
		}
		replyTo := phishing
		replyTo.SendFromEmailAddress = ""
		if _, _, err := s.root.InitOtp(ctx, org, replyTo); !client.IsCode(err, apierr.InvalidArgument) || !strings.Contains(err.Error(), "parameters.replyToEmailAddress") {
			t.Errorf("INIT_OTP with a foreign reply-to: %v", err)
		}
		sub, _ := s.subOrgWithUser("victim@example.com", "")
		_, target := newTarget(t)
		if _, _, err := s.root.EmailAuth(ctx, sub, api.EmailAuthIntentV3{Email: "victim@example.com", TargetPublicKey: target,
			SendFromEmailAddress: "security@paypal.com", EmailCustomization: api.EmailAuthCustomizationParams{AppName: "PayPal"}}); !client.IsCode(err, apierr.InvalidArgument) {
			t.Errorf("EMAIL_AUTH as security@paypal.com: %v", err)
		}
		if got := s.outbox.Entries(); len(got) != sent {
			t.Fatalf("refused requests sent mail: %+v", got[sent:])
		}

		for _, from := range []string{"", "OTP@sigil.test", "login@mail.example"} {
			p := phishing
			p.SendFromEmailAddress, p.ReplyToEmailAddress = from, "help@mail.example"
			if _, _, err := s.root.InitOtp(ctx, org, p); err != nil {
				t.Fatalf("INIT_OTP from %q: %v", from, err)
			}
		}
		if got := s.outbox.Entries(); len(got) != sent+3 || got[sent].From != "PayPal <otp@sigil.test>" || got[sent+2].From != "PayPal <login@mail.example>" {
			t.Fatalf("mail sent from allowed addresses: %+v", got[sent:])
		}

		if _, _, err := s.root.EnableAuthProxy(ctx, org); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.root.UpdateAuthProxyConfig(ctx, org, api.UpdateAuthProxyConfigIntent{SendFromEmailAddress: ptr("security@paypal.com")}); !client.IsCode(err, apierr.InvalidArgument) {
			t.Errorf("an auth proxy configuration sending as security@paypal.com: %v", err)
		}
		if _, _, err := s.root.UpdateAuthProxyConfig(ctx, org, api.UpdateAuthProxyConfigIntent{SendFromEmailAddress: ptr("login@mail.example")}); err != nil {
			t.Errorf("an auth proxy configuration sending from an allowed domain: %v", err)
		}

		// A second process of the deployment, whose operator allows acme.example for this organization only.
		acme := s.env.process(t, coordinator.Config{EmailSenderDomains: notify.SenderDomains{ByOrg: map[string][]string{org: {"acme.example"}}}})
		p := phishing
		p.Contact, p.SendFromEmailAddress, p.ReplyToEmailAddress = "ada@example.com", "login@acme.example", ""
		if _, _, err := acme.client(s.boot.APIKey).InitOtp(ctx, org, p); err != nil {
			t.Errorf("INIT_OTP from the organization's own domain: %v", err)
		}
		other, err := acme.coord.CreateRootOrganization(ctx, "Other", "root")
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := acme.client(other.APIKey).InitOtp(ctx, other.OrganizationID, p); !client.IsCode(err, apierr.InvalidArgument) {
			t.Errorf("another organization sending from acme.example: %v", err)
		}
	})
}

// A logoUrl the server cannot fetch is refused with what went wrong, never with the address of the server's own
// resolver, which the resolver's errors quote.
func TestLogoErrorsQuoteNoResolver(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newOTPStack(t, b, coordinator.Config{})
		_, _, err := s.root.InitOtp(context.Background(), s.boot.OrganizationID, api.InitOtpIntentV2{OtpType: api.OtpTypeEmail, Contact: "ada@example.com",
			AppName: "Demo", EmailCustomization: &api.EmailCustomizationParamsV2{LogoURL: "http://logo.sigil.invalid/logo.png"}})
		if !client.IsCode(err, apierr.InvalidArgument) || !strings.Contains(err.Error(), `the host "logo.sigil.invalid" does not exist`) ||
			regexp.MustCompile(`\d+\.\d+\.\d+\.\d+:\d+|\[[0-9a-fA-F:.]+\]:\d+`).MatchString(err.Error()) {
			t.Fatalf("a logo at a host that does not exist: %v", err)
		}
	})
}
