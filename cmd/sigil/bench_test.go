package main

import (
	"context"
	"os"
	"strings"
	"testing"
)

// TestMain lets this test binary stand in for sigil as the bench's load process: the bench re-runs its own
// executable as `bench --load`, and under go test that executable is this binary.
func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == "bench" && os.Args[2] == "--load" {
		os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr, os.LookupEnv))
	}
	os.Exit(m.Run())
}

func TestBench(t *testing.T) {
	t.Parallel()
	out, errs, code := sigil(t, "bench", "--duration", "60ms", "--clients", "2", "--rounds", "2")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{"CREATE_USERS_V3", "whoami", "SIGN_TX 1 client", "SIGN_TX 2 clients", "µs/request",
		"ratio, server CPU per signing activity", "goal: activity under 4×", "goal: p99 under 10ms at half the peak"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "first error") {
		t.Errorf("requests failed:\n%s", out)
	}
	t.Log("\n" + out)
}
