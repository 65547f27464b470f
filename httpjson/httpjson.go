// Package httpjson writes JSON response bodies, the one way every Sigil service does.
package httpjson

import (
	"encoding/json"
	"net/http"
	"strconv"
)

// Write sends v as a JSON response with status. The body is marshalled first and written once with its length
// declared: encoded straight into the ResponseWriter, a body past net/http's 2 KiB buffer goes out chunked, in several
// writes to the socket. Content-Type is application/json unless the caller set one. The error is a value that cannot
// be marshalled, and then nothing is written, so the caller can still answer with an error of its own; a client that
// went away is not an error here, as there is no one left to answer.
func Write(w http.ResponseWriter, status int, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	WriteBody(w, status, data)
	return nil
}

// WriteBody sends data, a JSON value encoded by the caller, as Write sends the one it marshals.
func WriteBody(w http.ResponseWriter, status int, data []byte) {
	h := w.Header()
	if h.Get("Content-Type") == "" {
		h.Set("Content-Type", "application/json")
	}
	h.Set("Content-Length", strconv.Itoa(len(data)+1))
	w.WriteHeader(status)
	_, _ = w.Write(append(data, '\n'))
}
