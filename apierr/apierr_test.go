package apierr

import (
	"strings"
	"testing"
)

func TestMessagesCutLongValues(t *testing.T) {
	long := strings.Repeat("ü", 5000)
	type email string // a named string type is cut as well
	args := []any{"parameters.userEmail", email(long)}
	e := New(InvalidArgument, "", "%s: %q is not a valid e-mail address", args...)
	want := `parameters.userEmail: "` + strings.Repeat("ü", maxEchoed) + `…" is not a valid e-mail address`
	if e.Message != want {
		t.Fatalf("message of %d bytes: %.200s", len(e.Message), e.Message)
	}
	if args[1] != email(long) {
		t.Fatal("the caller's arguments were changed")
	}
	exact := strings.Repeat("x", maxEchoed)
	if got := Invalid("%s %d", exact, 7).Message; got != exact+" 7" {
		t.Fatalf("a value of the limit's length was changed: %s", got)
	}
}
