package edge

import (
	"net/http"

	"github.com/sigil/sigil/apierr"
)

// RPCStatus is the wire format of the services that answer google.rpc.Status: the refusals of the edge are
// REQUEST_INVALID (with their own status, such as 413, when it is not 400), REQUEST_NOT_AUTHORIZED for 403 and
// NOT_FOUND for 404; an internal error is code 13, "internal error".
var RPCStatus = Format{Error: rpcStatusFrom, Internal: &apierr.Error{Code: apierr.Internal, Detail: "INTERNAL", Message: "internal error"}}

// rpcStatusFrom is an error answered with an HTTP status and message.
func rpcStatusFrom(status int, message string) WireError {
	switch status {
	case http.StatusForbidden:
		return apierr.Denied("%s", message)
	case http.StatusNotFound:
		return apierr.NotFoundf("%s", message)
	}
	e := apierr.Invalid("%s", message)
	if status != http.StatusBadRequest {
		e.HTTP = status
	}
	return e
}
