package stamp

import "fmt"

// Kind classifies a stamp failure by how a server should answer it.
type Kind uint8

const (
	// KindMissing: the request carries none of the stamp headers.
	KindMissing Kind = iota + 1
	// KindMalformed: a stamp header is present but cannot be decoded (encoding, JSON, lengths, points, DER, or
	// more than one stamp header).
	KindMalformed
	// KindUnknownScheme: the stamp names a signature scheme this package does not implement.
	KindUnknownScheme
	// KindInvalidSignature: the stamp is well formed but does not verify over the body (or, for passkeys, the
	// assertion does not match the stored credential: challenge, type, relying party, flags, counter).
	KindInvalidSignature
	// KindInvalidAttestation: a passkey registration (attestation) was rejected.
	KindInvalidAttestation
)

// Message is the documented, caller-facing text for the kind, without the detail of what exactly was wrong.
func (k Kind) Message() string {
	switch k {
	case KindMissing:
		return "cannot authenticate public API activity request without a stamp (X-Stamp/X-Stamp-Webauthn header)"
	case KindMalformed:
		return "malformed activity stamp"
	case KindUnknownScheme:
		return "unsupported stamp signature scheme"
	case KindInvalidSignature:
		return "could not verify api key signature"
	case KindInvalidAttestation:
		return "invalid authenticator attestation"
	default:
		return fmt.Sprintf("stamp error kind %d", uint8(k))
	}
}

// Error is the only error type the package returns. Msg starts with the kind's documented message and then says
// precisely what was wrong; it never contains key material and is safe to return to the caller. Err, when set, is
// the underlying library error, for logs.
type Error struct {
	Kind Kind
	Msg  string
	Err  error
}

func (e *Error) Error() string {
	if e.Msg == "" {
		return e.Kind.Message()
	}
	return e.Msg
}

func (e *Error) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrMalformed) (and the other sentinels) match any *Error of the same kind.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Msg == "" && t.Err == nil && t.Kind == e.Kind
}

// Sentinels for errors.Is. They match every *Error of their kind, whatever its detail.
var (
	ErrMissing            = &Error{Kind: KindMissing}
	ErrMalformed          = &Error{Kind: KindMalformed}
	ErrUnknownScheme      = &Error{Kind: KindUnknownScheme}
	ErrInvalidSignature   = &Error{Kind: KindInvalidSignature}
	ErrInvalidAttestation = &Error{Kind: KindInvalidAttestation}
)

func newError(kind Kind, cause error, format string, args ...any) *Error {
	return &Error{Kind: kind, Msg: kind.Message() + ": " + fmt.Sprintf(format, args...), Err: cause}
}

func malformed(format string, args ...any) *Error {
	return newError(KindMalformed, nil, format, args...)
}

func invalidSignature(format string, args ...any) *Error {
	return newError(KindInvalidSignature, nil, format, args...)
}
