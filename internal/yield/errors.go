package yield

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/sigil/sigil/internal/edge"
)

// apiError is an error a caller sees, in the reference's shape {message, error, statusCode}. Anything that is not an
// *apiError (or an upstreamError) reaches the caller as a 500 without its text; the edge logs it.
type apiError struct {
	StatusCode int
	Message    string
	RetryAfter int // seconds; only for 429
}

func (e *apiError) Error() string { return e.Message }

func badRequest(format string, args ...any) *apiError {
	return &apiError{StatusCode: http.StatusBadRequest, Message: fmt.Sprintf(format, args...)}
}

func notFoundError(format string, args ...any) *apiError {
	return &apiError{StatusCode: http.StatusNotFound, Message: fmt.Sprintf(format, args...)}
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

// Status and Render make an apiError an edge.WireError.
func (e *apiError) Status() int { return e.StatusCode }

func (e *apiError) Render(h http.Header) any {
	body := errorBody{Message: e.Message, Error: http.StatusText(e.StatusCode), StatusCode: e.StatusCode}
	if e.StatusCode == http.StatusTooManyRequests {
		body.RetryAfter = &e.RetryAfter
		h.Set("Retry-After", strconv.Itoa(e.RetryAfter))
	}
	return body
}

// A node that did not answer is a 503 the caller may retry; its error, with the node's, is logged by the edge.
func (e *upstreamError) Status() int { return http.StatusServiceUnavailable }

func (e *upstreamError) Render(h http.Header) any {
	return (&apiError{StatusCode: e.Status(), Message: fmt.Sprintf("The RPC node of network %s did not answer; retry shortly", e.network)}).Render(h)
}

// errorFormat is the service's wire format for the edge.
var errorFormat = edge.Format{
	Error: func(status int, message string) edge.WireError {
		return &apiError{StatusCode: status, Message: message}
	},
	Internal: &apiError{StatusCode: http.StatusInternalServerError, Message: "Internal server error"},
}
