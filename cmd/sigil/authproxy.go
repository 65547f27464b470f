package main

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/sigil/sigil/internal/authproxy"
	"github.com/sigil/sigil/internal/seal"
	"github.com/sigil/sigil/internal/stack"
)

// runAuthProxy is sigil authproxy: the auth proxy alone, in front of a running coordinator whose configuration names
// this proxy's identity (as sigil up configures its coordinator with DIR/authproxy.json).
func runAuthProxy(ctx context.Context, e *env, args []string) error {
	fs := e.flags()
	dir := fs.String("dir", ".sigil", "data directory of sigil up (bootstrap.json, authproxy.json)")
	listen := fs.String("listen", "127.0.0.1:8082", "listen address")
	coordinatorURL := fs.String("coordinator-url", "", "coordinator URL (default: coordinatorUrl of DIR/bootstrap.json)")
	identityFile := fs.String("identity-file", "", "the proxy service's keys (default DIR/"+stack.AuthProxyIdentityFile+")")
	configTTL := fs.Duration("config-ttl", time.Second, "how long a configuration read from the coordinator is reused (negative: never)")
	ipRate := fs.Float64("ip-rate", 10, "requests per second per client IP (negative: no limit)")
	configRate := fs.Float64("config-rate", 50, "requests per second per configuration (negative: no limit)")
	maxBody := fs.Int64("max-body-bytes", 64<<10, "request body limit")
	master := registerMasterKeyFlags(fs)
	if err := e.parse(fs, args); err != nil {
		return err
	}
	logger := slog.New(slog.NewJSONHandler(e.stderr, nil))
	url := *coordinatorURL
	if url == "" {
		b, err := stack.ReadBootstrap(*dir)
		if err != nil {
			return fmt.Errorf("no --coordinator-url, and %w", err)
		}
		url = b.CoordinatorURL
	}
	// The identity of a production stack is sealed under its master key, which then opens it.
	var ring *seal.Keyring
	if src := master.source(e); src.Given() {
		var err error
		if ring, err = src.Open(ctx, *dir); err != nil {
			return err
		}
	}
	id, err := authproxy.LoadIdentity(cmp.Or(*identityFile, filepath.Join(*dir, stack.AuthProxyIdentityFile)), ring)
	if err != nil {
		return fmt.Errorf("auth proxy identity: %w (sigil up creates it on its first start)", err)
	}
	proxy, err := authproxy.New(authproxy.Config{CoordinatorURL: url, Identity: id, Logger: logger, ConfigTTL: *configTTL,
		IPRate: *ipRate, ConfigRate: *configRate, MaxBodyBytes: *maxBody})
	if err != nil {
		return err
	}
	s, err := stack.StartServer("auth proxy", *listen, proxy.Handler())
	if err != nil {
		return err
	}
	logger.Info("auth proxy listening", "url", s.Services()[0].URL, "coordinator", url)
	return serve(ctx, s, logger)
}
