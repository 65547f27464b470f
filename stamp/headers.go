package stamp

import (
	"net/http"
	"strings"
)

// Stamp is a parsed stamp of one of three concrete types: *APIKeyStamp, *WebAuthnStamp or *AttestedStamp.
// Servers switch on the type, verify it over the raw body and look up its credential.
type Stamp interface {
	// Header is the canonical name of the header the stamp came in.
	Header() string
}

func (*APIKeyStamp) Header() string   { return HeaderAPIKey }
func (*WebAuthnStamp) Header() string { return HeaderWebAuthn }
func (*AttestedStamp) Header() string { return HeaderAttested }

// FromHeaders finds the one stamp header of a request (names compared case-insensitively, so hand-built header
// maps work too) and parses it. No stamp header is KindMissing; two different stamp headers, or one header sent
// twice, is KindMalformed, since a request must be authenticated by exactly one credential.
func FromHeaders(h http.Header) (Stamp, error) {
	var (
		name   string
		values []string
	)
	for key, vs := range h {
		canonical := stampHeaderName(key)
		if canonical == "" || len(vs) == 0 {
			continue
		}
		if name != "" || len(vs) > 1 {
			return nil, malformed("more than one stamp header (%s, %s and %s are exclusive, each at most once)",
				HeaderAPIKey, HeaderWebAuthn, HeaderAttested)
		}
		name, values = canonical, vs
	}
	if name == "" {
		return nil, &Error{Kind: KindMissing, Msg: KindMissing.Message()}
	}
	value := values[0]
	if strings.TrimSpace(value) == "" {
		return nil, malformed("the %s header is empty", name)
	}
	// Each case checks err itself: returning a nil *T as a Stamp would make a non-nil interface.
	switch name {
	case HeaderAPIKey:
		s, err := ParseAPIKeyStamp(value)
		if err != nil {
			return nil, err
		}
		return s, nil
	case HeaderWebAuthn:
		s, err := ParseWebAuthnStamp(value)
		if err != nil {
			return nil, err
		}
		return s, nil
	default:
		s, err := ParseAttestedStamp(value)
		if err != nil {
			return nil, err
		}
		return s, nil
	}
}

func stampHeaderName(key string) string {
	for _, name := range [...]string{HeaderAPIKey, HeaderWebAuthn, HeaderAttested} {
		if strings.EqualFold(key, name) {
			return name
		}
	}
	return ""
}
