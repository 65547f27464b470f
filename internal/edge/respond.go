package edge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
)

// WireError is an error meant for the caller, in its service's wire format.
type WireError interface {
	error
	// Status is the HTTP status of the answer.
	Status() int
	// Render sets the headers the answer needs (for example Retry-After) on h and returns its JSON body.
	Render(h http.Header) any
}

// Format is a service's error wire format.
type Format struct {
	// Error returns the service's own error for a request the edge refuses, with the HTTP status and the message
	// of the refusal: 400 for a body that does not decode, 413 for one over the limit, 403 for an origin not
	// allowed, and whatever status a handler gives an *Error.
	Error func(status int, message string) WireError
	// Internal is the answer to an error that is not meant for the caller; its text is logged, never sent.
	Internal WireError
}

// Error is a refusal in no service's format: the request's Format words it. ReadBody and Decode return these.
type Error struct {
	Status  int
	Message string
}

func (e *Error) Error() string { return e.Message }

// Errorf returns an *Error with status and a formatted message.
func Errorf(status int, format string, args ...any) *Error {
	return &Error{Status: status, Message: fmt.Sprintf(format, args...)}
}

// Func is a handler that returns its answer: a value sent as JSON (with status 200 unless WithStatus says otherwise),
// or an error rendered in the service's format.
func Func(h func(r *http.Request) (any, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v, err := h(r)
		Respond(w, r, v, err)
	})
}

type withStatus struct {
	status int
	v      any
}

// WithStatus makes a handler's answer v go out with status (for example 201) instead of 200.
func WithStatus(status int, v any) any { return withStatus{status, v} }

// Respond answers v as JSON, or err when it is not nil. A json.RawMessage is sent as it is, without being marshalled
// or scanned again: the caller vouches that it is valid, compact JSON.
func Respond(w http.ResponseWriter, r *http.Request, v any, err error) {
	if err != nil {
		Fail(w, r, err)
		return
	}
	status := http.StatusOK
	if s, ok := v.(withStatus); ok {
		status, v = s.status, s.v
	}
	if raw, ok := v.(json.RawMessage); ok {
		WriteRaw(w, status, raw)
		return
	}
	if err := WriteJSON(w, status, v); err != nil {
		Fail(w, r, fmt.Errorf("edge: encode the answer to %s %s: %w", r.Method, r.URL.Path, err))
	}
}

// Fail answers err in the request's format: a WireError as it renders itself, an *Error as the Format words it,
// anything else as the Format's internal error, its text kept for the request's log line. An error of a request whose
// caller went away (context.Canceled) is not answered: there is no one left to answer.
func Fail(w http.ResponseWriter, r *http.Request, err error) {
	x := exchangeOf(r)
	if errors.Is(err, context.Canceled) && r.Context().Err() != nil {
		if x != nil {
			x.canceled = true
		}
		return
	}
	var f Format
	if x != nil {
		f = x.format
	}
	we, internal := f.wire(err)
	if internal || we.Status() >= http.StatusInternalServerError {
		level := slog.LevelWarn
		if internal {
			level = slog.LevelError
		}
		if x != nil {
			x.err, x.level = err, level
		} else { // not behind Service.Wrap: the error is still logged, once
			slog.Default().Log(r.Context(), level, "request failed", "method", r.Method, "path", r.URL.Path, "err", err)
		}
	}
	Render(w, we)
}

// wire is the error the caller sees for err, and whether err was internal.
func (f Format) wire(err error) (WireError, bool) {
	var e *Error
	if errors.As(err, &e) {
		if f.Error == nil {
			return plain{e.Status, e.Message}, false
		}
		return f.Error(e.Status, e.Message), false
	}
	var we WireError
	if errors.As(err, &we) {
		return we, false
	}
	if f.Internal == nil {
		return plain{http.StatusInternalServerError, "internal error"}, true
	}
	return f.Internal, true
}

// plain is the answer of the zero Format: {"message": ...}.
type plain struct {
	status  int
	message string
}

func (p plain) Error() string          { return p.message }
func (p plain) Status() int            { return p.status }
func (p plain) Render(http.Header) any { return map[string]string{"message": p.message} }

// Render writes a WireError as the answer. It logs nothing: Fail is the way to answer an error that may be internal.
func Render(w http.ResponseWriter, we WireError) {
	if err := WriteJSON(w, we.Status(), we.Render(w.Header())); err != nil {
		http.Error(w, "internal error", http.StatusInternalServerError) // a body type that cannot be marshalled
	}
}

// WriteJSON sends v as a JSON answer with status. The body is marshalled first and written once with its length
// declared: encoded straight into the ResponseWriter, a body past net/http's 2 KiB buffer goes out chunked, in several
// writes to the socket. Content-Type is application/json unless the caller set one. The error is a value that cannot
// be marshalled, and then nothing is written, so the caller can still answer with an error of its own; a client that
// went away is not an error here, as there is no one left to answer.
func WriteJSON(w http.ResponseWriter, status int, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	WriteRaw(w, status, data)
	return nil
}

// WriteRaw sends data, a JSON value encoded by the caller, as WriteJSON sends the one it marshals: once, with its
// length, followed by a newline.
func WriteRaw(w http.ResponseWriter, status int, data []byte) {
	h := w.Header()
	if h.Get("Content-Type") == "" {
		h.Set("Content-Type", "application/json")
	}
	h.Set("Content-Length", strconv.Itoa(len(data)+1))
	w.WriteHeader(status)
	_, _ = w.Write(append(data, '\n'))
}
