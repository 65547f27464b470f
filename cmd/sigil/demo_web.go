package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	weblogin "sigil/examples/web-login"
)

func init() { demoWeb = serveWebDemo }

// serveWebDemo serves the browser journey of the first specification (examples/web-login) for the running stack:
// e-mail OTP sign-up and login through the auth proxy, then a message signed with the session key.
func serveWebDemo(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("demo web", flag.ContinueOnError)
	dir := fs.String("dir", ".sigil", "data directory of a running `sigil up`")
	listen := fs.String("listen", "127.0.0.1:8085", "listen address; the coordinator must allow its origin (sigil up --allowed-origins)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg, err := webDemoConfig(*dir)
	if err != nil {
		return err
	}
	h, err := weblogin.Handler(cfg)
	if err != nil {
		return fmt.Errorf("%s: %w", bootstrapPath(*dir), err)
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	url := "http://" + ln.Addr().String()
	fmt.Printf("Web login demo: %s\n  coordinator  %s\n  auth proxy   %s\nOpen it in a browser; Ctrl-C stops it.\n",
		url, cfg.CoordinatorURL, cfg.AuthProxyURL)
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	return serveAll(ctx, logger, &server{name: "web demo", url: url, ln: ln,
		srv: &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}})
}

// webDemoConfig reads the page's configuration from bootstrap.json: the same JSON names, public fields only.
func webDemoConfig(dir string) (weblogin.Config, error) {
	var cfg weblogin.Config
	data, err := os.ReadFile(bootstrapPath(dir))
	if err != nil {
		return cfg, fmt.Errorf("read %s (is `sigil up --dir %s` running?): %w", bootstrapPath(dir), dir, err)
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		return cfg, fmt.Errorf("%s is not valid JSON: %w", bootstrapPath(dir), err)
	}
	return cfg, nil
}
