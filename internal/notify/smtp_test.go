package notify

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"image"
	"image/png"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"strings"
	"testing"
	"time"
)

var testDate = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// mimePart is a decoded leaf of a parsed message.
type mimePart struct {
	ContentType string
	Params      map[string]string
	Header      map[string][]string
	Body        []byte
}

// parseMessage parses raw with the standard library and returns its header
// and the tree of content types (as "a/b[c/d,e/f[...]]") plus leaf parts.
func parseMessage(t *testing.T, raw []byte) (*mail.Message, string, []mimePart) {
	t.Helper()
	if bytes.Contains(bytes.ReplaceAll(raw, []byte("\r\n"), nil), []byte("\n")) {
		t.Fatal("message has bare LF line endings")
	}
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	var leaves []mimePart
	var walk func(ct string, h map[string][]string, body io.Reader) string
	walk = func(ct string, h map[string][]string, body io.Reader) string {
		mt, params, err := mime.ParseMediaType(ct)
		if err != nil {
			t.Fatalf("content type %q: %v", ct, err)
		}
		if !strings.HasPrefix(mt, "multipart/") {
			data, _ := io.ReadAll(body)
			switch strings.ToLower(firstHeader(h, "Content-Transfer-Encoding")) {
			case "quoted-printable":
				data, err = io.ReadAll(quotedprintable.NewReader(bytes.NewReader(data)))
			case "base64":
				data, err = base64.StdEncoding.DecodeString(strings.Join(strings.Fields(string(data)), ""))
			}
			if err != nil {
				t.Fatalf("%s body: %v", mt, err)
			}
			leaves = append(leaves, mimePart{ContentType: mt, Params: params, Header: h, Body: data})
			return mt
		}
		mr := multipart.NewReader(body, params["boundary"])
		var kids []string
		for {
			p, err := mr.NextRawPart()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			kids = append(kids, walk(p.Header.Get("Content-Type"), p.Header, p))
		}
		return mt + "[" + strings.Join(kids, ",") + "]"
	}
	tree := walk(msg.Header.Get("Content-Type"), msg.Header, msg.Body)
	return msg, tree, leaves
}

func firstHeader(h map[string][]string, k string) string {
	if v := h[k]; len(v) > 0 {
		return v[0]
	}
	return ""
}

func testPNG(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = byte(i)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestSMTPDelivery(t *testing.T) {
	t.Parallel()
	cert, pool := selfSigned(t)
	logo := InlineImage{ContentID: LogoContentID, ContentType: "image/png", Filename: "logo.png", Data: testPNG(t, 40, 20)}
	for _, tc := range []struct {
		name       string
		mode       Security
		user, pass string
	}{
		{"plain", Plain, "", ""},
		{"starttls with auth", StartTLS, "mailer", "s3cret"},
		{"implicit tls with auth", ImplicitTLS, "mailer", "s3cret"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ms := startMailServer(t, tc.mode, cert, tc.user, tc.pass)
			sender, err := NewSMTPSender(SMTPConfig{
				Host: "127.0.0.1", Port: ms.addr.Port, Username: tc.user, Password: tc.pass, Security: tc.mode,
				TLSConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}, Timeout: 5 * time.Second,
				Now: func() time.Time { return testDate },
			})
			if err != nil {
				t.Fatal(err)
			}
			m := &Mailer{Sender: sender, DefaultFrom: "no-reply@sigil.example"}
			msg, err := m.ComposeOTP(context.Background(), OTPEmail{
				To: "user@example.com", AppName: "Ünïcode Bank", Code: "7KQ2M9XWZ", ExpiresIn: 5 * time.Minute,
				FromName: "Ünïcode Bank Security", ReplyTo: "help@bank.example",
			})
			if err != nil {
				t.Fatal(err)
			}
			msg.Inline = []InlineImage{logo}
			msg.HTML = strings.Replace(msg.HTML, "<table", `<img src="cid:logo"><table`, 1)
			if err := sender.SendEmail(context.Background(), msg); err != nil {
				t.Fatal(err)
			}
			got := ms.received()
			if len(got) != 1 {
				t.Fatalf("server received %d messages", len(got))
			}
			r := got[0]
			if r.From != "no-reply@sigil.example" || len(r.To) != 1 || r.To[0] != "user@example.com" {
				t.Errorf("envelope from %q to %v", r.From, r.To)
			}
			if r.User != tc.user || r.TLS != (tc.mode != Plain) {
				t.Errorf("authenticated as %q, TLS %v", r.User, r.TLS)
			}
			checkOTPMessage(t, r.Data, true)
		})
	}
}

func checkOTPMessage(t *testing.T, raw []byte, withLogo bool) {
	t.Helper()
	msg, tree, leaves := parseMessage(t, raw)
	want := "multipart/alternative[text/plain,text/html]"
	if withLogo {
		want = "multipart/alternative[text/plain,multipart/related[text/html,image/png]]"
	}
	if tree != want {
		t.Errorf("MIME tree %s, want %s", tree, want)
	}
	dec := new(mime.WordDecoder)
	from, err := msg.Header.AddressList("From")
	if err != nil || len(from) != 1 || from[0].Name != "Ünïcode Bank Security" || from[0].Address != "no-reply@sigil.example" {
		t.Errorf("From %q: %v %v", msg.Header.Get("From"), from, err)
	}
	if !strings.Contains(msg.Header.Get("From"), "=?utf-8?") {
		t.Errorf("non-ASCII sender name not RFC 2047 encoded: %q", msg.Header.Get("From"))
	}
	subject, err := dec.DecodeHeader(msg.Header.Get("Subject"))
	if err != nil || subject != "Ünïcode Bank: your verification code is 7KQ2M9XWZ" {
		t.Errorf("Subject %q (%q): %v", subject, msg.Header.Get("Subject"), err)
	}
	if rt, err := msg.Header.AddressList("Reply-To"); err != nil || rt[0].Address != "help@bank.example" {
		t.Errorf("Reply-To %q", msg.Header.Get("Reply-To"))
	}
	if to := msg.Header.Get("To"); to != "<user@example.com>" {
		t.Errorf("To %q", to)
	}
	if d, err := msg.Header.Date(); err != nil || !d.Equal(testDate) {
		t.Errorf("Date %q", msg.Header.Get("Date"))
	}
	if id := msg.Header.Get("Message-ID"); !strings.HasPrefix(id, "<") || !strings.HasSuffix(id, "@sigil.example>") {
		t.Errorf("Message-ID %q", id)
	}
	if msg.Header.Get("MIME-Version") != "1.0" {
		t.Error("no MIME-Version")
	}
	for _, p := range leaves {
		switch p.ContentType {
		case "text/plain", "text/html":
			if p.Params["charset"] != "utf-8" || !bytes.Contains(p.Body, []byte("7KQ2M9XWZ")) || !bytes.Contains(p.Body, []byte("Ünïcode Bank")) {
				t.Errorf("%s part lacks the code or app name:\n%s", p.ContentType, p.Body)
			}
			if p.ContentType == "text/html" && withLogo && !bytes.Contains(p.Body, []byte(`src="cid:logo"`)) {
				t.Errorf("HTML does not refer to the logo")
			}
		case "image/png":
			if firstHeader(p.Header, "Content-Id") != "<logo>" || !strings.HasPrefix(firstHeader(p.Header, "Content-Disposition"), "inline") {
				t.Errorf("image headers %v", p.Header)
			}
			if _, err := png.Decode(bytes.NewReader(p.Body)); err != nil {
				t.Errorf("inline image does not decode: %v", err)
			}
		}
	}
}

func TestSMTPFailures(t *testing.T) {
	t.Parallel()
	cert, pool := selfSigned(t)
	msg := Message{To: "user@example.com", From: "a@sigil.example", Subject: "s", Text: "t"}
	trusting := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}

	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	downPort := closed.Addr().(*net.TCPAddr).Port
	closed.Close()

	plainServer := startMailServer(t, Plain, nil, "", "")
	authServer := startMailServer(t, StartTLS, cert, "mailer", "s3cret")
	tlsServer := startMailServer(t, ImplicitTLS, cert, "", "")

	for _, tc := range []struct {
		name string
		cfg  SMTPConfig
		want string
	}{
		{"server down", SMTPConfig{Host: "127.0.0.1", Port: downPort, Security: Plain}, "cannot reach the mail server at 127.0.0.1:"},
		{"no STARTTLS offered", SMTPConfig{Host: "127.0.0.1", Port: plainServer.addr.Port, Security: StartTLS}, "does not offer STARTTLS"},
		{"wrong password", SMTPConfig{Host: "127.0.0.1", Port: authServer.addr.Port, Security: StartTLS, TLSConfig: trusting, Username: "mailer", Password: "nope"}, "authentication refused: 454 invalid credentials"},
		{"auth required", SMTPConfig{Host: "127.0.0.1", Port: authServer.addr.Port, Security: StartTLS, TLSConfig: trusting}, "sending refused: 530 Authentication required"},
		{"untrusted certificate", SMTPConfig{Host: "127.0.0.1", Port: tlsServer.addr.Port, Security: ImplicitTLS}, "TLS handshake failed"},
		{"untrusted certificate after STARTTLS", SMTPConfig{Host: "127.0.0.1", Port: authServer.addr.Port, Security: StartTLS}, "greeting failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Timeout = 3 * time.Second
			s, err := NewSMTPSender(tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			err = s.SendEmail(context.Background(), msg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
	if len(authServer.received())+len(tlsServer.received())+len(plainServer.received()) != 0 {
		t.Error("a failed send delivered a message")
	}

	if _, err := NewSMTPSender(SMTPConfig{Host: "mail.example", Port: 25, Security: Plain, Username: "u", Password: "p"}); err == nil {
		t.Error("credentials over plain text accepted")
	}
	if _, err := NewSMTPSender(SMTPConfig{Port: 25}); err == nil {
		t.Error("missing host accepted")
	}
}

// A server that accepts the connection but never greets is cut off by the
// timeout, and a cancelled context stops the send.
func TestSMTPStalledServer(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	s, err := NewSMTPSender(SMTPConfig{Host: "127.0.0.1", Port: l.Addr().(*net.TCPAddr).Port, Security: Plain, Timeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	err = s.SendEmail(context.Background(), Message{To: "u@example.com", From: "a@example.com", Subject: "s", Text: "t"})
	if err == nil || !strings.Contains(err.Error(), "greeting failed: no answer within 200ms") {
		t.Fatalf("err = %v", err)
	}
}

func TestBuildMIMERejectsInjection(t *testing.T) {
	t.Parallel()
	base := Message{To: "user@example.com", From: "a@example.com", Subject: "hi", Text: "body"}
	for name, mutate := range map[string]func(*Message){
		"subject CRLF":    func(m *Message) { m.Subject = "hi\r\nBcc: victim@example.com" },
		"name LF":         func(m *Message) { m.FromName = "x\nBcc: victim@example.com" },
		"two recipients":  func(m *Message) { m.To = "a@example.com, b@example.com" },
		"display name":    func(m *Message) { m.To = "Bob <bob@example.com>" },
		"reply-to list":   func(m *Message) { m.ReplyTo = "a@example.com,b@example.com" },
		"no body":         func(m *Message) { m.Text = "" },
		"bad content id":  func(m *Message) { m.Inline = []InlineImage{{ContentID: "a>\r\nX: y", ContentType: "image/png"}} },
		"not an image":    func(m *Message) { m.Inline = []InlineImage{{ContentID: "x", ContentType: "text/html"}} },
		"subject too big": func(m *Message) { m.Subject = strings.Repeat("x", maxSubjectLength+1) },
	} {
		m := base
		mutate(&m)
		if _, err := BuildMIME(m, testDate); !errors.Is(err, ErrInvalidMessage) {
			t.Errorf("%s: err = %v", name, err)
		}
	}
	raw, err := BuildMIME(base, testDate)
	if err != nil {
		t.Fatal(err)
	}
	_, tree, leaves := parseMessage(t, raw)
	if tree != "text/plain" || string(leaves[0].Body) != "body" {
		t.Errorf("text-only message: %s %q", tree, leaves[0].Body)
	}
}
