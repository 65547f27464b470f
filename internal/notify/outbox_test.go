package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestOutbox(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var logs bytes.Buffer
	now := testDate
	clock := func() time.Time { return now }
	o, err := OpenOutbox(dir, slog.New(slog.NewJSONHandler(&logs, nil)), clock)
	if err != nil {
		t.Fatal(err)
	}
	m := &Mailer{Sender: o, DefaultFrom: "no-reply@sigil.example"}
	if err := m.SendOTP(context.Background(), OTPEmail{To: "user@example.com", AppName: "Acme", Code: "7KQ2M9XWZ"}); err != nil {
		t.Fatal(err)
	}
	now = testDate.Add(time.Second)
	body, _ := OTPText("", "Acme", "123456")
	if err := o.SendSMS(context.Background(), SMS{To: "+14155550123", Body: body}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), "7KQ2M9XWZ") || !strings.Contains(logs.String(), "123456") {
		t.Errorf("the dev outbox must log the codes:\n%s", logs.String())
	}

	// Reopen from disk: the messages survive, and the handler lists them.
	reopened, err := OpenOutbox(dir, slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil)), clock)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(reopened)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/dev/outbox")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("GET: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var list []map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 {
		t.Fatalf("%d messages", len(list))
	}
	email, sms := list[0], list[1]
	for _, k := range []string{"to", "from", "subject", "text", "html", "sentAt"} {
		if _, ok := email[k]; !ok {
			t.Errorf("entry lacks %q: %v", k, email)
		}
	}
	if email["to"] != "user@example.com" || email["from"] != "Notifications <no-reply@sigil.example>" ||
		email["subject"] != "Acme: your verification code is 7KQ2M9XWZ" || !strings.Contains(email["html"].(string), "7KQ2M9XWZ") ||
		email["sentAt"] != "2026-11-22T10:00:00Z" {
		t.Errorf("email entry %v", email)
	}
	if sms["to"] != "+14155550123" || sms["text"] != "Your Acme code is 123456" || sms["sentAt"] != "2026-11-22T10:00:01Z" || sms["kind"] != "sms" {
		t.Errorf("sms entry %v", sms)
	}

	rec := httptest.NewRecorder()
	reopened.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/dev/outbox", nil))
	if rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d", rec.Code)
	}
}

func TestOutboxEmptyAndTornFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	o, err := OpenOutbox(filepath.Join(dir, "new"), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	o.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/dev/outbox", nil))
	if strings.TrimSpace(rec.Body.String()) != "[]" {
		t.Errorf("empty outbox: %q", rec.Body.String())
	}
	good := `{"kind":"sms","to":"+14155550123","from":"","subject":"","text":"a","html":"","sentAt":"2026-11-22T10:00:00Z"}`
	if err := os.WriteFile(filepath.Join(dir, OutboxFile), []byte(good+"\n"+`{"kind":"sms","to":"+1`), 0o600); err != nil {
		t.Fatal(err)
	}
	o, err = OpenOutbox(dir, slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := o.Entries(); len(got) != 1 || got[0].Text != "a" {
		t.Errorf("entries after a torn line: %+v", got)
	}
	if err := o.SendSMS(context.Background(), SMS{To: "+14155550124", Body: "b"}); err != nil {
		t.Fatal(err)
	}
	again, err := OpenOutbox(dir, slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := again.Entries(); len(got) != 2 || got[1].Text != "b" {
		t.Errorf("a message after a torn line was lost: %+v", got)
	}
	if err := o.SendEmail(context.Background(), Message{To: "bad", From: "a@example.com", Text: "x"}); err == nil {
		t.Error("outbox accepted an invalid message")
	}
}

// A browser gets the dev inbox page: newest first, each code large with a copy button, the text escaped.
func TestInboxPage(t *testing.T) {
	t.Parallel()
	o, err := OpenOutbox(t.TempDir(), slog.New(slog.DiscardHandler), func() time.Time { return testDate })
	if err != nil {
		t.Fatal(err)
	}
	m := &Mailer{Sender: o, DefaultFrom: "no-reply@sigil.example"}
	if err := m.SendOTP(context.Background(), OTPEmail{To: "first@example.com", AppName: "<b>Acme</b>", Code: "7KQ2M9XWZ"}); err != nil {
		t.Fatal(err)
	}
	body, _ := OTPText("", "Acme", "123456")
	if err := o.SendSMS(context.Background(), SMS{To: "+14155550123", Body: body}); err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodGet, "/dev/outbox", nil)
	req.Header.Set("Accept", "text/html,application/xhtml+xml")
	rec := httptest.NewRecorder()
	o.ServeHTTP(rec, req)
	raw := rec.Body.String()
	page := html.UnescapeString(raw)
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Fatalf("Content-Type %q", ct)
	}
	for _, want := range []string{`<code>7KQ2M9XWZ</code><button type="button" data-code="7KQ2M9XWZ">Copy</button>`,
		`<code>123456</code>`, "first@example.com", "+14155550123"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Index(page, "+14155550123") > strings.Index(page, "first@example.com") {
		t.Error("the newest message is not first")
	}
	if strings.Contains(raw, "<b>Acme</b>") {
		t.Error("a message's text is not escaped")
	}
}
