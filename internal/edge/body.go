package edge

import (
	"errors"
	"io"
	"net/http"

	"github.com/sigil/sigil/internal/jsonstrict"
)

// ReadBody reads the request's body, capped at the service's MaxBodyBytes by Service.Wrap: a larger body is a 413
// *Error.
func ReadBody(r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(r.Body)
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return nil, Errorf(http.StatusRequestEntityTooLarge, "request body is larger than the limit of %d bytes", tooBig.Limit)
	}
	if err != nil {
		return nil, Errorf(http.StatusBadRequest, "could not read the request body: %v", err)
	}
	return body, nil
}

// Decode reads the request's body (ReadBody) and decodes it strictly into v (Unmarshal), its paths from the top.
func Decode(r *http.Request, v any) error {
	body, err := ReadBody(r)
	if err != nil {
		return err
	}
	return Unmarshal(body, v, "")
}

// Unmarshal decodes data into v with jsonstrict: malformed JSON, unknown fields, wrong types, duplicate keys and
// missing required fields (those without omitempty) are a 400 *Error that names the JSON path at fault, from root
// (for example `arguments.amount: expected string, got number`); at the top, without a root, the path is "request
// body".
func Unmarshal(data []byte, v any, root string) error {
	err := jsonstrict.Decode(data, v, root)
	var je *jsonstrict.Error
	if !errors.As(err, &je) {
		return err // nil, or a v that is not a pointer: the caller's mistake, internal
	}
	path := je.Path
	if path == "" {
		path = "request body"
	}
	return Errorf(http.StatusBadRequest, "%s: %s", path, je.Message)
}
