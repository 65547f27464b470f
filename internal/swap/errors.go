package swap

import "fmt"

// RefusedError is a quote or a swap refused for what it asks: an unknown token, no route, more than the balance. Field
// names the parameter at fault (as the wire names it: "inputToken", "inputAmount", ...); Precondition marks a
// refusal the same request could pass later (a balance, the bridge's inventory), the others are the request's own.
type RefusedError struct {
	Field        string
	Reason       string
	Precondition bool
}

func (e *RefusedError) Error() string { return e.Field + ": " + e.Reason }

func refused(field, format string, args ...any) error {
	return &RefusedError{Field: field, Reason: fmt.Sprintf(format, args...)}
}

func unavailable(field, format string, args ...any) error {
	return &RefusedError{Field: field, Reason: fmt.Sprintf(format, args...), Precondition: true}
}

// UpstreamError is a failure to reach a network's node.
type UpstreamError struct {
	CAIP2 string
	Err   error
}

func (e *UpstreamError) Error() string { return fmt.Sprintf("swap: %s: %v", e.CAIP2, e.Err) }
func (e *UpstreamError) Unwrap() error { return e.Err }
