package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
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

// TestBenchSideBySide runs the side-by-side mode against a stand-in for OpenBao's transit/sign endpoint, in this
// process (--peer-pid): it checks the rounds and the table are produced, not anyone's performance.
func TestBenchSideBySide(t *testing.T) {
	t.Parallel()
	transit := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/transit/sign/k" || r.Header.Get("X-Vault-Token") != "tok" {
			http.Error(w, `{"errors":["permission denied"]}`, http.StatusForbidden)
			return
		}
		w.Write([]byte(`{"data":{"signature":"vault:v1:MEUCIQ"}}`))
	}))
	defer transit.Close()
	out, errs, code := sigil(t, "bench", "--duration", "60ms", "--rounds", "1", "--peer-url", transit.URL,
		"--peer-token", "tok", "--peer-key", "k", "--peer-pid", strconv.Itoa(os.Getpid()), "--peer-clients", "1,2")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{"r1 sigil 1", "r1 peer 2", "| clients | Sigil req/s | peer req/s | ratio", "| 1 | ", "| 2 | ",
		"goal: Sigil's rate at least 1.0× the peer's"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "first error") || strings.Contains(out, "requests failed") {
		t.Errorf("requests failed:\n%s", out)
	}
	if _, _, code := sigil(t, "bench", "--peer-url", transit.URL, "--peer-clients", "1,x"); code == 0 {
		t.Errorf("--peer-clients 1,x accepted")
	}
}

// TestBenchOrgSize runs sigil bench --org-size on two small organizations, one round: a row per operation with its
// ratio to the empty organization, the RSS and the bytes per 1,000 accounts, and the victim's signing.
func TestBenchOrgSize(t *testing.T) {
	t.Parallel()
	out, errs, code := sigil(t, "bench", "--org-size", "0,1000", "--rounds", "1")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{"| operation | 0 accounts | 1000 accounts |", "| SIGN_RAW_PAYLOAD_V2 by address | ",
		"| CREATE_WALLET_ACCOUNTS (100) | ", "| list_suborgs, page at the end | ", "(1.00×)", "RSS while serving",
		"database bytes per 1,000 wallet accounts", "another organization's SIGN_RAW_PAYLOAD_V2 p50"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, bad := range []string{"--org-size=ten", "--org-size=-1", "--org-size=0,", "--rounds=0 --org-size=0"} {
		args := append([]string{"bench"}, strings.Fields(bad)...)
		if _, errs, code := sigil(t, args...); code != 2 || !strings.Contains(errs, "--") {
			t.Errorf("sigil bench %s: exit %d, %q; want a usage error", bad, code, errs)
		}
	}
}
