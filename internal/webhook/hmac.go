package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// The headers of an HMAC delivery (the yield service's scheme).
//
// X-Sigil-Signature is "t=<unix seconds>,v1=<hex HMAC-SHA256>", the HMAC
// keyed with the endpoint's secret (its UTF-8 bytes, as entered) over
// "<t>.<raw body>". A receiver may find several v1 entries (a secret being
// rotated); one that matches is enough.
const (
	HeaderHMACSignature = "X-Sigil-Signature"
	HeaderHMACEventID   = "X-Sigil-Event-Id" // stable across retries
	HeaderHMACEventType = "X-Sigil-Event-Type"
)

// The bounds of an endpoint secret, in characters, as Yield.xyz sets them
// for its webhook endpoints.
const (
	MinSecretLength = 24
	MaxSecretLength = 255
)

// Why VerifyHMAC refused a delivery.
var (
	ErrMalformedSignature = errors.New("malformed signature header")
	ErrSignatureMismatch  = errors.New("no signature matches")
)

// ValidateSecret accepts an endpoint secret of 24 to 255 characters of valid
// UTF-8 without control characters. The caller chooses it; it is not shown
// again once saved.
func ValidateSecret(secret string) error {
	if !utf8.ValidString(secret) {
		return errors.New("webhook: the secret is not valid UTF-8")
	}
	n := utf8.RuneCountInString(secret)
	if n < MinSecretLength || n > MaxSecretLength {
		return fmt.Errorf("webhook: the secret must be %d to %d characters; it is %d", MinSecretLength, MaxSecretLength, n)
	}
	for _, r := range secret {
		if r < ' ' || r == 0x7f {
			return errors.New("webhook: the secret must not contain control characters")
		}
	}
	return nil
}

// SignHMAC returns the X-Sigil-Signature value for body signed at at.
func SignHMAC(secret, body []byte, at time.Time) string {
	ts := strconv.FormatInt(at.Unix(), 10)
	return "t=" + ts + ",v1=" + hex.EncodeToString(hmacSum(secret, ts, body))
}

func hmacSum(secret []byte, ts string, body []byte) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(ts))
	m.Write([]byte{'.'})
	m.Write(body)
	return m.Sum(nil)
}

// HMACHeaders returns the headers of one attempt to deliver body: the
// signature, the event id and type, and Content-Type application/json.
func HMACHeaders(secret []byte, m Meta, body []byte, at time.Time) (http.Header, error) {
	if err := ValidateSecret(string(secret)); err != nil {
		return nil, err
	}
	if err := checkToken("event id", m.EventID); err != nil {
		return nil, err
	}
	if !headerSafe(m.EventType) {
		return nil, fmt.Errorf("webhook: event type %q cannot be sent in a header", m.EventType)
	}
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set(HeaderHMACSignature, SignHMAC(secret, body, at))
	h.Set(HeaderHMACEventID, m.EventID)
	if m.EventType != "" {
		h.Set(HeaderHMACEventType, m.EventType)
	}
	return h, nil
}

// VerifyHMAC checks an X-Sigil-Signature value against the raw body: t is
// within maxAge of now (either way) and one v1 entry is the HMAC under one of
// secrets. It returns the signing time.
func VerifyHMAC(header string, body []byte, secrets [][]byte, maxAge time.Duration, now time.Time) (time.Time, error) {
	var ts string
	var sigs [][]byte
	for part := range strings.SplitSeq(header, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return time.Time{}, fmt.Errorf("%w: %q", ErrMalformedSignature, part)
		}
		switch k {
		case "t":
			if ts != "" {
				return time.Time{}, fmt.Errorf("%w: two timestamps", ErrMalformedSignature)
			}
			ts = v
		case "v1":
			sig, err := hex.DecodeString(v)
			if err != nil || len(sig) != sha256.Size {
				return time.Time{}, fmt.Errorf("%w: v1 is not a hex HMAC-SHA256", ErrMalformedSignature)
			}
			sigs = append(sigs, sig)
		}
		// Other schemes are ignored, so one can be added beside v1.
	}
	if ts == "" || len(sigs) == 0 {
		return time.Time{}, fmt.Errorf("%w: t and v1 are required", ErrMalformedSignature)
	}
	secs, err := parseDigits(ts)
	if err != nil {
		return time.Time{}, fmt.Errorf("%w: t=%q", ErrMalformedSignature, ts)
	}
	at := time.Unix(secs, 0)
	if age := now.Sub(at); age > maxAge || -age > maxAge {
		return time.Time{}, fmt.Errorf("%w: signed at %s, %s from now (limit %s)", ErrStaleTimestamp,
			at.UTC().Format(time.RFC3339), age.Abs(), maxAge)
	}
	for _, secret := range secrets {
		want := hmacSum(secret, ts, body)
		for _, sig := range sigs {
			if hmac.Equal(sig, want) {
				return at, nil
			}
		}
	}
	return time.Time{}, ErrSignatureMismatch
}
