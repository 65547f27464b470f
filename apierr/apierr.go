// Package apierr is the one error type the coordinator and the auth proxy return to their callers and the one place
// that turns it into an HTTP response: a google.rpc.Status body {code, message, details} with the gRPC code mapped to
// an HTTP status, exactly as the reference's SDKs expect. The HTTP edge renders it through edge.RPCStatus.
package apierr

import (
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"
)

// Code is a gRPC status code.
type Code int

// The gRPC codes Sigil uses.
const (
	OK                 Code = 0
	Canceled           Code = 1
	Unknown            Code = 2
	InvalidArgument    Code = 3
	DeadlineExceeded   Code = 4
	NotFound           Code = 5
	AlreadyExists      Code = 6
	PermissionDenied   Code = 7
	ResourceExhausted  Code = 8
	FailedPrecondition Code = 9
	Aborted            Code = 10
	Unimplemented      Code = 12
	Internal           Code = 13
	Unavailable        Code = 14
	Unauthenticated    Code = 16
)

// HTTPStatus is the standard grpc-gateway mapping of a code to an HTTP status.
func (c Code) HTTPStatus() int {
	switch c {
	case OK:
		return http.StatusOK
	case InvalidArgument, FailedPrecondition:
		return http.StatusBadRequest
	case NotFound:
		return http.StatusNotFound
	case AlreadyExists, Aborted:
		return http.StatusConflict
	case PermissionDenied:
		return http.StatusForbidden
	case Unauthenticated:
		return http.StatusUnauthorized
	case ResourceExhausted:
		return http.StatusTooManyRequests
	case Unavailable:
		return http.StatusServiceUnavailable
	case DeadlineExceeded:
		return http.StatusGatewayTimeout
	case Unimplemented:
		return http.StatusNotImplemented
	default:
		return http.StatusInternalServerError
	}
}

// Error is an API error: a code, a message a person can act on, and machine-readable details.
type Error struct {
	Code    Code
	Message string
	// Detail is the reference's turnkeyErrorCode (for example SIGNATURE_INVALID); empty for none.
	Detail string
	// Extra details appended after the error-code detail (for example a policy engine permission error).
	Extra []any
	// HTTP overrides the status derived from Code (for example 413 for an oversized body); 0 for the default.
	HTTP int
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %s", codeName(e.Code), e.Message) }

// Status is the HTTP status of the error.
func (e *Error) Status() int {
	if e.HTTP != 0 {
		return e.HTTP
	}
	return e.Code.HTTPStatus()
}

// New returns an error with a code, a detail code and a formatted message. Messages quote a caller's value so that
// they can find it, not so that a field of a megabyte comes back in the answer, the logs, and a failed activity's
// stored record: a value quoted with %q is cut at maxQuoted runes, and any other text (%s or %v of a string, an error
// or a Stringer: an inner error may quote a value too) at maxText, each marked with "…". The server's own texts, a
// list of what is accepted or an inner error's explanation, are shorter than that.
func New(code Code, detail, format string, args ...any) *Error {
	return &Error{Code: code, Detail: detail, Message: fmt.Sprintf(format, shorten(format, args)...)}
}

const (
	maxQuoted = 100
	maxText   = 500
)

// shorten returns args with the texts New cuts cut; args itself is not changed. Formats with explicit argument
// indexes are not used.
func shorten(format string, args []any) []any {
	var out []any // a copy of args, made at the first cut
	for i, verb := range verbs(format) {
		if i >= len(args) {
			break
		}
		text, limit, ok := textOf(args[i], verb)
		if !ok || len(text) <= limit || utf8.RuneCountInString(text) <= limit {
			continue
		}
		if out == nil {
			out = slices.Clone(args)
		}
		out[i] = string([]rune(text)[:limit]) + "…"
	}
	if out == nil {
		return args
	}
	return out
}

// textOf is the text an argument formats as under verb, and how long it may be; ok is false for what is not text.
func textOf(arg any, verb rune) (text string, limit int, ok bool) {
	switch verb {
	case 'q':
		if v := reflect.ValueOf(arg); v.Kind() == reflect.String {
			return v.String(), maxQuoted, true
		}
	case 's', 'v':
		switch arg.(type) {
		case error, fmt.Stringer:
			return fmt.Sprint(arg), maxText, true // as fmt would print it, a nil pointer or a panicking method included
		}
		if v := reflect.ValueOf(arg); v.Kind() == reflect.String {
			return v.String(), maxText, true
		}
	}
	return "", 0, false
}

// verbs returns the verb of each of format's arguments, in order: '%%' takes none, a '*' width or precision one.
func verbs(format string) []rune {
	var out []rune
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		for i++; i < len(format); i++ {
			c := format[i]
			if c == '*' {
				out = append(out, '*')
				continue
			}
			if strings.IndexByte("+-# 0123456789.", c) < 0 {
				if c != '%' {
					out = append(out, rune(c))
				}
				break
			}
		}
	}
	return out
}

// Shorthands for the common kinds, each with the reference's detail code.
func Invalid(format string, args ...any) *Error {
	return New(InvalidArgument, "REQUEST_INVALID", format, args...)
}
func NotFoundf(format string, args ...any) *Error { return New(NotFound, "NOT_FOUND", format, args...) }
func Denied(format string, args ...any) *Error {
	return New(PermissionDenied, "REQUEST_NOT_AUTHORIZED", format, args...)
}
func Unauth(detail, format string, args ...any) *Error {
	return New(Unauthenticated, detail, format, args...)
}
func Conflict(format string, args ...any) *Error {
	return New(AlreadyExists, "CREDENTIAL_CONFLICT", format, args...)
}

// As returns err as an *Error; any other error becomes an opaque internal error, so internal texts never reach a caller.
func As(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: Internal, Detail: "INTERNAL", Message: "internal error"}
}

// Body is the wire form of an error (google.rpc.Status).
type Body struct {
	Code    Code   `json:"code"`
	Message string `json:"message"`
	Details []any  `json:"details"`
}

// ErrorDetail is the reference's error detail object.
type ErrorDetail struct {
	Type             string `json:"@type"`
	TurnkeyErrorCode string `json:"turnkeyErrorCode"`
}

// Body returns the wire form.
func (e *Error) Body() Body {
	details := []any{}
	if e.Detail != "" {
		details = append(details, ErrorDetail{Type: "type.googleapis.com/errors.v1.TurnkeyErrorDetail", TurnkeyErrorCode: e.Detail})
	}
	details = append(details, e.Extra...)
	return Body{Code: e.Code, Message: e.Message, Details: details}
}

// FromBody rebuilds an error from its wire form (used by clients and for stored activity failures).
func FromBody(status int, b Body) *Error {
	e := &Error{Code: b.Code, Message: b.Message}
	if status != 0 && status != b.Code.HTTPStatus() {
		e.HTTP = status
	}
	for _, d := range b.Details {
		if m, ok := d.(map[string]any); ok {
			if c, ok := m["turnkeyErrorCode"].(string); ok && e.Detail == "" {
				e.Detail = c
				continue
			}
		}
		e.Extra = append(e.Extra, d)
	}
	return e
}

// Render returns the wire form, for the HTTP edge (edge.WireError).
func (e *Error) Render(http.Header) any { return e.Body() }

func codeName(c Code) string {
	names := map[Code]string{
		InvalidArgument: "invalid argument", NotFound: "not found", AlreadyExists: "already exists",
		PermissionDenied: "permission denied", ResourceExhausted: "resource exhausted",
		FailedPrecondition: "failed precondition", Internal: "internal", Unavailable: "unavailable",
		Unauthenticated: "unauthenticated", Aborted: "aborted", DeadlineExceeded: "deadline exceeded",
		Unimplemented: "unimplemented",
	}
	if n, ok := names[c]; ok {
		return n
	}
	return fmt.Sprintf("code %d", int(c))
}
