package main

import (
	"strings"
	"testing"
)

// The completion scripts ask sigil __complete, which follows the command tree and each command's flags.
func TestCompletion(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		words []string
		want  string
	}{
		{[]string{"ke"}, "keys\n"},
		{[]string{"keys", "n"}, "new\nnew-master\n"},
		{[]string{"keys", "new", "--cu"}, "--curve\n"},
		{[]string{"api", "--li"}, "--list\n"},
		{[]string{"webhooks", ""}, "listen\ndeliveries\nreplay\n"},
		{[]string{"zz"}, ""},
	} {
		out, errs, code := sigil(t, append([]string{"__complete"}, tc.words...)...)
		if code != 0 || out != tc.want {
			t.Errorf("__complete %q: exit %d %q %s, want %q", tc.words, code, out, errs, tc.want)
		}
	}
	for _, shell := range []string{"bash", "zsh", "fish"} {
		out, _, code := sigil(t, "completion", shell)
		if code != 0 || !strings.Contains(out, "sigil __complete") {
			t.Errorf("completion %s: exit %d\n%s", shell, code, out)
		}
	}
	if _, errs, code := sigil(t, "completion", "powershell"); code != 2 || !strings.Contains(errs, "bash, zsh or fish") {
		t.Errorf("an unknown shell: exit %d %s", code, errs)
	}
	if _, errs, _ := sigil(t, "upp"); !strings.Contains(errs, `did you mean "up"?`) {
		t.Errorf("a misspelt command: %s", errs)
	}
}
