package notify

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"net/textproto"
	"strings"
	"time"
)

const maxSubjectLength = 500

// checkAddress accepts one bare address (no display name) and returns it.
func checkAddress(field, addr string) (string, error) {
	a, err := mail.ParseAddress(addr)
	if err != nil || a.Name != "" || a.Address != addr {
		return "", fmt.Errorf("%w: %s %q is not a bare e-mail address", ErrInvalidMessage, field, addr)
	}
	return addr, nil
}

func checkHeaderText(field, s string) error {
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return fmt.Errorf("%w: %s contains a line break or control character", ErrInvalidMessage, field)
		}
	}
	return nil
}

// formatFrom writes the From header's value. A printable ASCII name is a
// quoted string; any other is a base64 encoded-word, which, unlike Q
// encoding, is safe for every character in a display name.
func formatFrom(name, addr string) string {
	if name == "" {
		return "<" + addr + ">"
	}
	for i := 0; i < len(name); i++ {
		if name[i] < 0x20 || name[i] > 0x7e {
			return mime.BEncoding.Encode("utf-8", name) + " <" + addr + ">"
		}
	}
	return (&mail.Address{Name: name, Address: addr}).String()
}

// validate checks every field that ends up in a header, so no input can
// add a header or a recipient.
func (m Message) validate() error {
	if _, err := checkAddress("To", m.To); err != nil {
		return err
	}
	if _, err := checkAddress("From", m.From); err != nil {
		return err
	}
	if m.ReplyTo != "" {
		if _, err := checkAddress("Reply-To", m.ReplyTo); err != nil {
			return err
		}
	}
	if err := checkHeaderText("sender name", m.FromName); err != nil {
		return err
	}
	if err := checkHeaderText("Subject", m.Subject); err != nil {
		return err
	}
	if len(m.Subject) > maxSubjectLength {
		return fmt.Errorf("%w: Subject is longer than %d bytes", ErrInvalidMessage, maxSubjectLength)
	}
	if m.Text == "" && m.HTML == "" {
		return fmt.Errorf("%w: message has no body", ErrInvalidMessage)
	}
	for _, img := range m.Inline {
		if img.ContentID == "" || strings.ContainsAny(img.ContentID, "<>\r\n \"") || strings.ContainsAny(img.Filename, "\r\n\"") ||
			!strings.HasPrefix(img.ContentType, "image/") {
			return fmt.Errorf("%w: inline image %q needs a plain Content-ID and an image/* type", ErrInvalidMessage, img.ContentID)
		}
	}
	return nil
}

// BuildMIME renders m as an RFC 5322 message with CRLF line endings:
//
//	multipart/alternative
//	├── text/plain (quoted-printable)
//	└── multipart/related            (only with inline images)
//	    ├── text/html (quoted-printable)
//	    └── image/png, Content-ID, inline (base64)
//
// Non-ASCII display names and subjects are RFC 2047 encoded.
func BuildMIME(m Message, date time.Time) ([]byte, error) {
	if err := m.validate(); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	header := []string{
		"From: " + formatFrom(m.FromName, m.From),
		"To: " + (&mail.Address{Address: m.To}).String(),
	}
	if m.ReplyTo != "" {
		header = append(header, "Reply-To: "+(&mail.Address{Address: m.ReplyTo}).String())
	}
	header = append(header,
		"Subject: "+mime.QEncoding.Encode("utf-8", m.Subject),
		"Date: "+date.Format(time.RFC1123Z),
		"Message-ID: "+messageID(m.From),
		"MIME-Version: 1.0",
	)
	for _, h := range header {
		buf.WriteString(h + "\r\n")
	}

	if m.HTML == "" {
		buf.WriteString("Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n")
		if err := writeQP(&buf, m.Text); err != nil {
			return nil, err
		}
		return buf.Bytes(), nil
	}

	alt := multipart.NewWriter(&buf)
	fmt.Fprintf(&buf, "Content-Type: multipart/alternative; boundary=%q\r\n\r\n", alt.Boundary())
	if m.Text != "" {
		if err := writeTextPart(alt, "text/plain", m.Text); err != nil {
			return nil, err
		}
	}
	if len(m.Inline) == 0 {
		if err := writeTextPart(alt, "text/html", m.HTML); err != nil {
			return nil, err
		}
	} else if err := writeRelated(alt, m.HTML, m.Inline); err != nil {
		return nil, err
	}
	if err := alt.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func writeRelated(parent *multipart.Writer, html string, images []InlineImage) error {
	var body bytes.Buffer
	rel := multipart.NewWriter(&body)
	if err := writeTextPart(rel, "text/html", html); err != nil {
		return err
	}
	for _, img := range images {
		h := textproto.MIMEHeader{}
		h.Set("Content-Type", img.ContentType)
		h.Set("Content-Transfer-Encoding", "base64")
		h.Set("Content-ID", "<"+img.ContentID+">")
		disp := "inline"
		if img.Filename != "" {
			disp += fmt.Sprintf("; filename=%q", img.Filename)
		}
		h.Set("Content-Disposition", disp)
		w, err := rel.CreatePart(h)
		if err != nil {
			return err
		}
		if err := writeBase64(w, img.Data); err != nil {
			return err
		}
	}
	if err := rel.Close(); err != nil {
		return err
	}
	h := textproto.MIMEHeader{}
	h.Set("Content-Type", fmt.Sprintf("multipart/related; type=\"text/html\"; boundary=%q", rel.Boundary()))
	w, err := parent.CreatePart(h)
	if err != nil {
		return err
	}
	_, err = w.Write(body.Bytes())
	return err
}

func writeTextPart(w *multipart.Writer, contentType, text string) error {
	h := textproto.MIMEHeader{}
	h.Set("Content-Type", contentType+"; charset=utf-8")
	h.Set("Content-Transfer-Encoding", "quoted-printable")
	part, err := w.CreatePart(h)
	if err != nil {
		return err
	}
	return writeQP(part, text)
}

type writer interface{ Write([]byte) (int, error) }

func writeQP(w writer, text string) error {
	qp := quotedprintable.NewWriter(w)
	// Normalise line endings so the QP writer emits CRLF consistently.
	text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\n", "\r\n")
	if _, err := qp.Write([]byte(text)); err != nil {
		return err
	}
	return qp.Close()
}

// writeBase64 writes data in base64 lines of 76 characters (RFC 2045).
func writeBase64(w writer, data []byte) error {
	enc := base64.StdEncoding.EncodeToString(data)
	for len(enc) > 76 {
		if _, err := w.Write([]byte(enc[:76] + "\r\n")); err != nil {
			return err
		}
		enc = enc[76:]
	}
	_, err := w.Write([]byte(enc + "\r\n"))
	return err
}

// messageID is a random, unique Message-ID in the sender's domain.
func messageID(from string) string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	domain := "localhost"
	if at := strings.LastIndexByte(from, '@'); at >= 0 {
		domain = from[at+1:]
	}
	return "<" + hex.EncodeToString(b[:]) + "@" + domain + ">"
}
