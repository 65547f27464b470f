package notify

import (
	"bytes"
	"net/mail"
	"testing"
)

// FuzzBuildMIME: whatever the sender name, subject and bodies, the message
// either is refused or parses with exactly the headers we wrote.
func FuzzBuildMIME(f *testing.F) {
	f.Add("Acme", "Your code", "text 123", "<b>123</b>")
	f.Add("Ünï\"code\" <x>", "a\r\nBcc: v@example.com", "", "<p>")
	f.Fuzz(func(t *testing.T, name, subject, text, html string) {
		raw, err := BuildMIME(Message{To: "u@example.com", From: "a@example.com", FromName: name, Subject: subject, Text: text, HTML: html}, testDate)
		if err != nil {
			return
		}
		msg, err := mail.ReadMessage(bytes.NewReader(raw))
		if err != nil {
			t.Fatalf("unparseable message: %v\n%s", err, raw)
		}
		allowed := map[string]bool{"From": true, "To": true, "Subject": true, "Date": true, "Message-Id": true,
			"Mime-Version": true, "Content-Type": true, "Content-Transfer-Encoding": true}
		for k := range msg.Header {
			if !allowed[k] {
				t.Fatalf("unexpected header %q in %v", k, msg.Header)
			}
		}
		if msg.Header.Get("To") != "<u@example.com>" {
			t.Fatalf("To %q", msg.Header.Get("To"))
		}
		from, err := msg.Header.AddressList("From")
		if err != nil || len(from) != 1 || from[0].Address != "a@example.com" {
			t.Fatalf("From %q: %v", msg.Header.Get("From"), err)
		}
	})
}

// FuzzTemplateVariables: any templateVariables string is either refused or
// yields data in which the server's keys hold the server's values.
func FuzzTemplateVariables(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `[]`, `{"OtpCode":"x"}`, `null`, `{"a":{"b":[1,2]}}`, ``} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, vars string) {
		data, err := templateData(OTPEmail{Code: "123456", AppName: "Acme", TemplateVariables: vars})
		if err != nil {
			return
		}
		if data["OtpCode"] != "123456" || data["AppName"] != "Acme" {
			t.Fatalf("templateVariables %q overrode server values: %v", vars, data)
		}
	})
}
