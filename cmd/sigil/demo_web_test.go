package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDemoWebRefusesAStackWithoutItsParts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		bootstrap string // empty: no bootstrap.json at all
		wantErr   string
	}{
		{"no stack", "", "sigil up --dir"},
		{"not JSON", "{", "not valid JSON"},
		{"no auth proxy", `{"coordinatorUrl":"http://127.0.0.1:8081"}`, "no auth proxy is configured"},
		{"a bad URL", `{"coordinatorUrl":"ftp://x","authProxyUrl":"http://127.0.0.1:8082","authProxyConfigId":"c"}`, "coordinatorUrl"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if tt.bootstrap != "" {
				if err := os.WriteFile(filepath.Join(dir, "bootstrap.json"), []byte(tt.bootstrap), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			_, errs, code := sigil(t, "demo", "web", "--dir", dir, "--listen", "127.0.0.1:0")
			if code != 1 || !strings.Contains(errs, tt.wantErr) {
				t.Fatalf("demo web = exit %d, %q; want an error naming %q", code, errs, tt.wantErr)
			}
		})
	}
}

func TestDemoWebServesTheStacksConfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// Stand-ins that answer /healthz: the command checks the stack before it serves the page.
	healthy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer healthy.Close()
	boot := `{"organizationId":"o","apiPrivateKey":"00aa","coordinatorUrl":"` + healthy.URL + `",
		"authProxyUrl":"` + healthy.URL + `","authProxyConfigId":"8302a01c-c321-47dc-9767-1348d0d5dedd"}`
	if err := os.WriteFile(filepath.Join(dir, "bootstrap.json"), []byte(boot), 0o600); err != nil {
		t.Fatal(err)
	}

	// Run the command with its output on a pipe, to learn the address it listens on.
	r, w := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	var errs bytes.Buffer
	go func() {
		done <- run(ctx, []string{"demo", "web", "--dir", dir, "--listen", "127.0.0.1:0"}, w, &errs, os.LookupEnv)
		w.Close()
	}()
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "Web login demo: ")
	if !ok {
		t.Fatalf("first line %q does not name the demo's URL", line)
	}

	res, err := http.Get(url + "/config.json")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	var cfg map[string]string
	if err := json.Unmarshal(body, &cfg); err != nil {
		t.Fatalf("config.json %s: %v", body, err)
	}
	if cfg["authProxyConfigId"] != "8302a01c-c321-47dc-9767-1348d0d5dedd" || cfg["coordinatorUrl"] != healthy.URL {
		t.Errorf("config.json = %s", body)
	}
	if strings.Contains(string(body), "00aa") || strings.Contains(string(body), "organizationId") {
		t.Errorf("config.json exposes more of bootstrap.json than the page needs: %s", body)
	}

	cancel()
	go io.Copy(io.Discard, r)
	if code := <-done; code != 0 {
		t.Fatalf("demo web after Ctrl-C: exit %d\n%s", code, errs.String())
	}
}

// A stack that does not answer is reported before the page is served.
func TestDemoWebChecksTheStack(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	boot := `{"coordinatorUrl":"http://127.0.0.1:1","authProxyUrl":"http://127.0.0.1:1","authProxyConfigId":"8302a01c-c321-47dc-9767-1348d0d5dedd"}`
	if err := os.WriteFile(filepath.Join(dir, "bootstrap.json"), []byte(boot), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, errs, code := sigil(t, "demo", "web", "--dir", dir, "--listen", "127.0.0.1:0"); code != 1 || !strings.Contains(errs, "does not answer") {
		t.Fatalf("exit %d: %s", code, errs)
	}
}
