package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sigil/sigil/internal/seal"
	"github.com/sigil/sigil/internal/testdb"
	"github.com/sigil/sigil/internal/yield"
)

// sigil yield webhooks create, list and delete manage a project's endpoints in a stack's database: the endpoint is
// printed without its secret, bad input is refused with what was wrong, and another project's endpoint is not found.
func TestYieldWebhooksCommands(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		t.Parallel()
		if _, err := seal.CreateKeyFile(filepath.Join(b.Dir, "master.key")); err != nil {
			t.Fatal(err)
		}
		run := func(args ...string) (string, string, int) {
			return sigil(t, append(args, "--dir", b.Dir, "--database-url", b.URL)...)
		}
		for _, p := range []string{"acme", "other"} {
			if _, errs, code := run("yield", "keys", "create", "--project", p, "--fee-set", "10"); code != 0 {
				t.Fatalf("keys create: exit %d: %s", code, errs)
			}
		}
		const secret = "cli-secret-0123456789-abcdefgh"
		create := func(args ...string) (string, string, int) {
			return run(append([]string{"yield", "webhooks", "create", "--project", "acme"}, args...)...)
		}
		out, errs, code := create("--url", "http://127.0.0.1:9/hook", "--secret", secret, "--allow-private",
			"--event", yield.EventPositionStatusChanged)
		var ep yield.WebhookEndpoint
		if code != 0 || json.Unmarshal([]byte(out), &ep) != nil || ep.ID == "" || len(ep.Events) != 1 ||
			ep.Events[0] != yield.EventPositionStatusChanged || strings.Contains(out+errs, secret) {
			t.Fatalf("webhooks create: exit %d\n%s%s", code, out, errs)
		}
		for _, tc := range []struct {
			args []string
			want string
		}{
			{[]string{"--url", "http://127.0.0.1:9/hook", "--secret", secret}, "url: "}, // no --allow-private
			{[]string{"--url", "https://example.com/hook", "--secret", "short", "--allow-private"}, "secret: "},
			{[]string{"--url", "http://127.0.0.1:9/hook", "--secret", secret, "--allow-private", "--event", "nope"}, "events[0]: "},
			{[]string{"--url", "http://127.0.0.1:9/hook"}, "--url and --secret are required"},
		} {
			if out, errs, code := create(tc.args...); code == 0 || out != "" || !strings.Contains(errs, tc.want) {
				t.Errorf("webhooks create %v: exit %d\n%s%s; want an error with %q", tc.args, code, out, errs, tc.want)
			}
		}
		list := func(project string) []yield.WebhookEndpoint {
			out, errs, code := run("yield", "webhooks", "list", "--project", project)
			var eps []yield.WebhookEndpoint
			if code != 0 || json.Unmarshal([]byte(out), &eps) != nil {
				t.Fatalf("webhooks list: exit %d\n%s%s", code, out, errs)
			}
			return eps
		}
		if eps := list("acme"); len(eps) != 1 || eps[0].ID != ep.ID {
			t.Fatalf("acme lists %+v", eps)
		}
		if eps := list("other"); len(eps) != 0 {
			t.Fatalf("another project lists %+v", eps)
		}
		if _, errs, code := run("yield", "webhooks", "delete", ep.ID, "--project", "other"); code == 0 || !strings.Contains(errs, "not found") {
			t.Fatalf("delete of another project's endpoint: exit %d, %s", code, errs)
		}
		if _, errs, code := run("yield", "webhooks", "delete", ep.ID, "--project", "acme"); code != 0 {
			t.Fatalf("delete: exit %d, %s", code, errs)
		}
		if eps := list("acme"); len(eps) != 0 {
			t.Fatalf("after delete acme lists %+v", eps)
		}
	})
}
