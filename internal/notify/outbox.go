package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// OutboxEntry is one message the dev outbox received.
type OutboxEntry struct {
	Kind    string    `json:"kind"` // "email" or "sms"
	To      string    `json:"to"`
	From    string    `json:"from"`
	Subject string    `json:"subject"`
	Text    string    `json:"text"`
	HTML    string    `json:"html"`
	SentAt  time.Time `json:"sentAt"`
}

// Outbox is the development stand-in for SMTP and SMS: it delivers nothing,
// keeps every message in memory and in outbox.jsonl in its directory (so
// messages survive a restart), logs it, codes included, and serves the list
// at GET /dev/outbox. Never use it in production: it logs the codes.
type Outbox struct {
	mu      sync.Mutex
	path    string
	entries []OutboxEntry
	log     *slog.Logger
	now     func() time.Time
	// QuietText logs each message without its text (and so without its code), for a stack reachable beyond the
	// machine; set it before the first Send.
	QuietText bool
}

// OutboxFile is the name of the outbox's file in its directory.
const OutboxFile = "outbox.jsonl"

// OpenOutbox loads dir/outbox.jsonl, creating dir if needed. log may be nil
// (slog.Default); now may be nil (time.Now).
func OpenOutbox(dir string, log *slog.Logger, now func() time.Time) (*Outbox, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("dev outbox: %w", err)
	}
	if log == nil {
		log = slog.Default()
	}
	if now == nil {
		now = time.Now
	}
	o := &Outbox{path: filepath.Join(dir, OutboxFile), log: log, now: now}
	data, err := os.ReadFile(o.path)
	if errors.Is(err, os.ErrNotExist) {
		return o, nil
	}
	if err != nil {
		return nil, fmt.Errorf("dev outbox: %w", err)
	}
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var e OutboxEntry
		if err := json.Unmarshal(line, &e); err != nil {
			// A line torn by a crash is skipped, not fatal.
			log.Warn("dev outbox: skipping unreadable line", "file", o.path, "line", i+1, "err", err)
			continue
		}
		o.entries = append(o.entries, e)
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		// End the torn line so the next message starts on its own line.
		if err := o.appendLine(nil); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// SendEmail records an e-mail.
func (o *Outbox) SendEmail(_ context.Context, m Message) error {
	if err := m.validate(); err != nil {
		return err
	}
	from := m.From
	if m.FromName != "" {
		from = fmt.Sprintf("%s <%s>", m.FromName, m.From)
	}
	return o.add(OutboxEntry{Kind: "email", To: m.To, From: from, Subject: m.Subject, Text: m.Text, HTML: m.HTML})
}

// SendSMS records a text message.
func (o *Outbox) SendSMS(_ context.Context, m SMS) error {
	if m.To == "" || m.Body == "" {
		return fmt.Errorf("%w: SMS needs a recipient and a body", ErrInvalidMessage)
	}
	return o.add(OutboxEntry{Kind: "sms", To: m.To, Text: m.Body})
}

func (o *Outbox) add(e OutboxEntry) error {
	e.SentAt = o.now().UTC().Truncate(time.Millisecond)
	line, err := json.Marshal(e)
	if err != nil {
		return err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if err := o.appendLine(line); err != nil {
		return err
	}
	o.entries = append(o.entries, e)
	if o.QuietText {
		o.log.Info("dev outbox: message", "kind", e.Kind, "to", e.To, "subject", e.Subject)
	} else {
		o.log.Info("dev outbox: message", "kind", e.Kind, "to", e.To, "subject", e.Subject, "text", e.Text)
	}
	return nil
}

func (o *Outbox) appendLine(line []byte) error {
	f, err := os.OpenFile(o.path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("dev outbox: %w", err)
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("dev outbox: writing %s: %w", o.path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("dev outbox: writing %s: %w", o.path, err)
	}
	return nil
}

// Entries returns a copy of the messages, oldest first.
func (o *Outbox) Entries() []OutboxEntry {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]OutboxEntry(nil), o.entries...)
}

// ServeHTTP answers GET (and HEAD) with the messages as a JSON array,
// oldest first; sentAt is RFC 3339. A browser asking for a page (Accept:
// text/html) gets the dev inbox page instead (inbox.go).
func (o *Outbox) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	entries := o.Entries()
	if entries == nil {
		entries = []OutboxEntry{}
	}
	if wantsHTML(r) {
		serveInbox(w, entries)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(entries)
}
