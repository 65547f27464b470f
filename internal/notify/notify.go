// Package notify delivers OTP codes: e-mail over SMTP with built-in or
// per-organization templates and an inline logo, SMS through Twilio's
// Messages API, and a development outbox that keeps every message on disk
// and serves it at GET /dev/outbox.
package notify

import (
	"context"
	"errors"
)

// Message is one e-mail.
type Message struct {
	To       string
	From     string // sender address
	FromName string // display name; empty for none
	ReplyTo  string // empty for none
	Subject  string
	Text     string // plain-text body
	HTML     string // HTML body; empty for a text-only message
	// Inline images are attached to the HTML body, which refers to them as
	// src="cid:<ContentID>".
	Inline []InlineImage
}

// InlineImage is an image embedded in the HTML body.
type InlineImage struct {
	ContentID   string // without angle brackets
	ContentType string // e.g. image/png
	Filename    string
	Data        []byte
}

// SMS is one text message.
type SMS struct {
	To   string // E.164
	Body string
}

// EmailSender delivers e-mail.
type EmailSender interface {
	SendEmail(ctx context.Context, m Message) error
}

// SMSSender delivers text messages.
type SMSSender interface {
	SendSMS(ctx context.Context, m SMS) error
}

// ErrInvalidMessage is wrapped by every refusal of a message or of its
// customization (bad address, header injection, bad template variables,
// unusable logo). It is the caller's input that is wrong, not the delivery.
var ErrInvalidMessage = errors.New("invalid message")
