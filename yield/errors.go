package yield

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"sigil/httpjson"
)

// apiError is an error a caller sees, in the reference's shape {message, error, statusCode}. Anything that is not an
// *apiError reaches the caller as a 500 without its text.
type apiError struct {
	Status     int
	Message    string
	RetryAfter int // seconds; only for 429
}

func (e *apiError) Error() string { return e.Message }

func badRequest(format string, args ...any) *apiError {
	return &apiError{Status: http.StatusBadRequest, Message: fmt.Sprintf(format, args...)}
}

func notFoundError(format string, args ...any) *apiError {
	return &apiError{Status: http.StatusNotFound, Message: fmt.Sprintf(format, args...)}
}

// fieldError is a 400 that names the request field at fault first, so a person knows what to change.
func fieldError(field, format string, args ...any) *apiError {
	return badRequest("%s: %s", field, fmt.Sprintf(format, args...))
}

type errorBody struct {
	Message    string `json:"message"`
	Error      string `json:"error"`
	StatusCode int    `json:"statusCode"`
	RetryAfter *int   `json:"retryAfter,omitempty"`
}

// writeError answers err in the reference's shape. Internal errors are logged by the caller, never sent.
func writeError(w http.ResponseWriter, err error) {
	var ae *apiError
	if !errors.As(err, &ae) {
		ae = &apiError{Status: http.StatusInternalServerError, Message: "Internal server error"}
	}
	body := errorBody{Message: ae.Message, Error: http.StatusText(ae.Status), StatusCode: ae.Status}
	if ae.Status == http.StatusTooManyRequests {
		body.RetryAfter = &ae.RetryAfter
		w.Header().Set("Retry-After", strconv.Itoa(ae.RetryAfter))
	}
	writeJSON(w, ae.Status, body)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	if err := httpjson.Write(w, status, v); err != nil {
		internal := errorBody{Message: "Internal server error", Error: http.StatusText(http.StatusInternalServerError), StatusCode: http.StatusInternalServerError}
		_ = httpjson.Write(w, internal.StatusCode, internal)
	}
}
