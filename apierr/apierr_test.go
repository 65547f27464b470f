package apierr

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestMessagesCutLongValues(t *testing.T) {
	long := strings.Repeat("ü", 5000)
	type email string // a named string type is cut as well
	args := []any{"parameters.userEmail", email(long)}
	e := New(InvalidArgument, "", "%s: %q is not a valid e-mail address", args...)
	want := `parameters.userEmail: "` + strings.Repeat("ü", maxQuoted) + `…" is not a valid e-mail address`
	if e.Message != want {
		t.Fatalf("message of %d bytes: %.200s", len(e.Message), e.Message)
	}
	if args[1] != email(long) {
		t.Fatal("the caller's arguments were changed")
	}
	exact := strings.Repeat("x", maxQuoted)
	if got := Invalid("%q %d", exact, 7).Message; got != `"`+exact+`" 7` {
		t.Fatalf("a value of the limit's length was changed: %s", got)
	}
	// Other texts are cut at a length the server's own (an inner error, a list of what is accepted) stay within.
	own := strings.Repeat("y", maxText)
	if got := Invalid("%s", own).Message; got != own {
		t.Fatalf("the server's own text was cut: %s", got)
	}
	var nilErr *Error // fmt prints what a method of a nil pointer does, or that it panicked; so does New
	if got := Invalid("%v", nilErr).Message; got != fmt.Sprintf("%v", nilErr) {
		t.Fatalf("got %s", got)
	}
	got := Invalid("100%% of %s, %*d, %v: %q", long, 3, 7, errors.New(long), long).Message
	cut := strings.Repeat("ü", maxText) + "…"
	if want := "100% of " + cut + ",   7, " + cut + `: "` + strings.Repeat("ü", maxQuoted) + `…"`; got != want {
		t.Fatalf("got %.300s", got)
	}
}
