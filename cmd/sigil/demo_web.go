package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"time"

	weblogin "github.com/sigil/sigil/examples/web-login"
	"github.com/sigil/sigil/internal/stack"
)

// runDemoWeb is sigil demo web: it serves the browser journey of the first specification (examples/web-login) for the
// running stack: e-mail OTP sign-up and login through the auth proxy, then a message signed with the session key.
func runDemoWeb(ctx context.Context, e *env, args []string) error {
	fs := e.flags()
	dir := fs.String("dir", ".sigil", "data directory of a running sigil up")
	listen := fs.String("listen", "127.0.0.1:8085", "listen address; the coordinator must allow its origin (sigil up --allowed-origins)")
	if err := e.parse(fs, args); err != nil {
		return err
	}
	cfg, err := webDemoConfig(*dir)
	if err != nil {
		return err
	}
	h, err := weblogin.Handler(cfg)
	if err != nil {
		return fmt.Errorf("%s: %w", stack.BootstrapPath(*dir), err)
	}
	// The stack first: a page whose services do not answer would fail in the browser after a sign-up began.
	for _, u := range []string{cfg.CoordinatorURL + "/healthz", cfg.AuthProxyURL + "/healthz"} {
		if err := checkHealth(ctx, u); err != nil {
			return fmt.Errorf("%s does not answer (is sigil up --dir %s running?): %w", u, *dir, err)
		}
	}

	s, err := stack.StartServer("web demo", *listen, h)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "Web login demo: %s\n  coordinator  %s\n  auth proxy   %s\nOpen it in a browser; Ctrl-C stops it.\n",
		s.Services()[0].URL, cfg.CoordinatorURL, cfg.AuthProxyURL)
	return serve(ctx, s, slog.New(slog.NewTextHandler(e.stderr, nil)))
}

// webDemoConfig reads the page's configuration from bootstrap.json: the same JSON names, public fields only.
func webDemoConfig(dir string) (weblogin.Config, error) {
	var cfg weblogin.Config
	data, err := os.ReadFile(stack.BootstrapPath(dir))
	if err != nil {
		return cfg, fmt.Errorf("read %s (is sigil up --dir %s running?): %w", stack.BootstrapPath(dir), dir, err)
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		return cfg, fmt.Errorf("%s is not valid JSON: %w", stack.BootstrapPath(dir), err)
	}
	return cfg, nil
}

// checkHealth asks a service's /healthz, for a few seconds at most.
func checkHealth(ctx context.Context, url string) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("%s", res.Status)
	}
	return nil
}
