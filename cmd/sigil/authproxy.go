package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"sigil/api"
	"sigil/authproxy"
	"sigil/coordinator"
	"sigil/dashboard"
	"sigil/stamp"
)

// authProxyIdentityFile is where `sigil up` keeps the auth proxy service's keys (mode 0600).
const authProxyIdentityFile = "authproxy.json"

// authProxyFlags are the auth proxy's and the dashboard's settings in `sigil up`.
type authProxyFlags struct {
	listen, dashboardListen string
	dashboard               net.Listener // bound early: the coordinator's CORS must allow its origin
}

// bindDashboard opens the dashboard's listener and returns its origins, which the coordinator must allow (the port
// may be one the system picked). On the loopback address the page is also reachable as localhost, the host name
// passkeys need (WebAuthn refuses IP addresses as relying party).
func (f *authProxyFlags) bindDashboard() ([]string, error) {
	ln, err := net.Listen("tcp", f.dashboardListen)
	if err != nil {
		return nil, fmt.Errorf("dashboard: %w", err)
	}
	f.dashboard = ln
	addr := ln.Addr().(*net.TCPAddr)
	origins := []string{"http://" + addr.String()}
	if addr.IP.IsLoopback() {
		origins = append(origins, "http://localhost:"+strconv.Itoa(addr.Port))
	}
	return origins, nil
}

func (f *authProxyFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.listen, "authproxy-listen", "127.0.0.1:8082", "auth proxy listen address")
	fs.StringVar(&f.dashboardListen, "dashboard-listen", "127.0.0.1:8084", "organization dashboard listen address")
}

// authProxyIdentity loads the proxy service's identity from DIR, creating it on the first start. Its public halves
// go into the coordinator's configuration (coordinator.Config.AuthProxy).
func authProxyIdentity(dir string) (*authproxy.Identity, *coordinator.AuthProxyService, error) {
	id, err := authproxy.LoadOrCreateIdentity(filepath.Join(dir, authProxyIdentityFile))
	if err != nil {
		return nil, nil, fmt.Errorf("auth proxy identity: %w", err)
	}
	return id, &coordinator.AuthProxyService{EncryptionKey: id.EncryptionPublicKey(), ServiceKey: id.ServicePublicKey()}, nil
}

// start makes sure the root organization's proxy is enabled and addressed to this identity, starts the proxy and the
// dashboard (bound by bindDashboard), and records authProxyUrl, authProxyConfigId and dashboardUrl in bootstrap.json. The coordinator must be
// started (coordinator.Start) but need not be listening yet: the enable goes straight to coord.
func (f *authProxyFlags) start(ctx context.Context, coord *coordinator.Coordinator, id *authproxy.Identity, dir, coordinatorURL string, logger *slog.Logger) ([]*server, error) {
	b, err := readBootstrap(dir)
	if err != nil {
		return nil, err
	}
	configID, err := ensureRootAuthProxy(ctx, coord, id, b)
	if err != nil {
		return nil, fmt.Errorf("enable the auth proxy of the root organization: %w", err)
	}
	proxy, err := authproxy.New(authproxy.Config{CoordinatorURL: coordinatorURL, Identity: id, Logger: logger})
	if err != nil {
		return nil, err
	}
	proxySrv, err := listen("auth proxy", f.listen, proxy.Handler())
	if err != nil {
		return nil, err
	}
	dashSrv := &server{name: "dashboard", url: "http://" + f.dashboard.Addr().String(), ln: f.dashboard, srv: &http.Server{
		Handler:           dashboard.Handler(dashboard.Config{CoordinatorURL: coordinatorURL, AuthProxyURL: proxySrv.url, OrganizationID: b.OrganizationID}),
		ReadHeaderTimeout: 10 * time.Second}}
	b.AuthProxyURL, b.AuthProxyConfigID, b.DashboardURL = proxySrv.url, configID, dashSrv.url
	if err := writeBootstrap(dir, b); err != nil {
		proxySrv.ln.Close()
		dashSrv.ln.Close()
		return nil, err
	}
	return []*server{proxySrv, dashSrv}, nil
}

func listen(name, addr string, h http.Handler) (*server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &server{name: name, url: "http://" + ln.Addr().String(), ln: ln,
		srv: &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}}, nil
}

// ensureRootAuthProxy enables the root organization's proxy on the first start (every origin, e-mail OTP), and on
// later starts rotates its key if it is encrypted to another identity (a lost identity file). It returns the
// configuration id.
func ensureRootAuthProxy(ctx context.Context, coord *coordinator.Coordinator, id *authproxy.Identity, b *bootstrapFile) (string, error) {
	key, err := stamp.ParseAPIKey(stamp.CurveP256, b.APIPrivateKey)
	if err != nil {
		return "", fmt.Errorf("bootstrap.json apiPrivateKey: %w", err)
	}
	root := localSubmitter{coord: coord, key: key, org: b.OrganizationID}
	if b.AuthProxyConfigID == "" {
		var enabled api.EnableAuthProxyResult
		if err := root.submit(ctx, api.EnableAuthProxy.ActivitySpec, api.EnableAuthProxyIntent{}, &enabled); err != nil {
			return "", err
		}
		var updated api.UpdateAuthProxyConfigResult
		err := root.submit(ctx, api.UpdateAuthProxyConfig.ActivitySpec, api.UpdateAuthProxyConfigIntent{AllowedOrigins: []string{"*"},
			AllowedAuthMethods: []string{api.AuthMethodEmail}}, &updated)
		return enabled.ConfigID, err
	}
	resolved, err := resolveLocal(ctx, coord, id, b.AuthProxyConfigID)
	if err != nil {
		return "", err
	}
	own := fmt.Sprintf("%x", id.EncryptionPublicKey().Bytes())
	if resolved.Config.Enabled && resolved.EncryptionPublicKey != own {
		var rotated api.RotateAuthProxyKeyResult
		if err := root.submit(ctx, api.RotateAuthProxyKey.ActivitySpec, api.RotateAuthProxyKeyIntent{}, &rotated); err != nil {
			return "", err
		}
	}
	return b.AuthProxyConfigID, nil
}

// localSubmitter stamps activities with a key and hands them to the coordinator in the process, before its listener
// serves: exactly the body and stamp an HTTP client would send.
type localSubmitter struct {
	coord *coordinator.Coordinator
	key   *stamp.APIKey
	org   string
}

func (l localSubmitter) submit(ctx context.Context, spec api.ActivitySpec, params, result any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	body, err := json.Marshal(api.SubmitRequest{Type: spec.Type, TimestampMs: strconv.FormatInt(time.Now().UnixMilli(), 10),
		OrganizationID: l.org, Parameters: raw})
	if err != nil {
		return err
	}
	name, value, err := l.key.Stamp(body)
	if err != nil {
		return err
	}
	h := http.Header{}
	h.Set(name, value)
	res, err := l.coord.Submit(ctx, spec.Path, h, body)
	if err != nil {
		return err
	}
	if res.Activity.Status != api.StatusCompleted {
		return fmt.Errorf("%s ended %s", spec.Type, res.Activity.Status)
	}
	return json.Unmarshal(res.Activity.Result[spec.ResultKey], result)
}

func resolveLocal(ctx context.Context, coord *coordinator.Coordinator, id *authproxy.Identity, configID string) (*api.ResolveAuthProxyConfigResponse, error) {
	body, err := json.Marshal(api.ResolveAuthProxyConfigRequest{ConfigID: configID})
	if err != nil {
		return nil, err
	}
	name, value, err := id.ServiceKey.Stamp(body)
	if err != nil {
		return nil, err
	}
	h := http.Header{}
	h.Set(name, value)
	res, err := coord.Query(ctx, "resolve_auth_proxy_config", h, body)
	if err != nil {
		return nil, err
	}
	out, ok := res.(*api.ResolveAuthProxyConfigResponse)
	if !ok {
		return nil, errors.New("resolve_auth_proxy_config answered an unexpected type")
	}
	return out, nil
}

// runAuthProxy is `sigil authproxy`: the auth proxy alone, in front of a running coordinator whose configuration
// names this proxy's identity (as `sigil up` configures its coordinator with DIR/authproxy.json).
func runAuthProxy(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("authproxy", flag.ContinueOnError)
	dir := fs.String("dir", ".sigil", "data directory of `sigil up` (bootstrap.json, authproxy.json)")
	listenAddr := fs.String("listen", "127.0.0.1:8082", "listen address")
	coordinatorURL := fs.String("coordinator-url", "", "coordinator URL (default: coordinatorUrl of DIR/bootstrap.json)")
	identityFile := fs.String("identity-file", "", "the proxy service's keys (default DIR/"+authProxyIdentityFile+")")
	configTTL := fs.Duration("config-ttl", time.Second, "how long a configuration read from the coordinator is reused (negative: never)")
	ipRate := fs.Float64("ip-rate", 10, "requests per second per client IP (negative: no limit)")
	configRate := fs.Float64("config-rate", 50, "requests per second per configuration (negative: no limit)")
	maxBody := fs.Int64("max-body-bytes", 64<<10, "request body limit")
	if err := fs.Parse(args); err != nil {
		return err
	}
	logger := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	url := *coordinatorURL
	if url == "" {
		b, err := readBootstrap(*dir)
		if err != nil {
			return fmt.Errorf("no --coordinator-url, and %w", err)
		}
		url = b.CoordinatorURL
	}
	id, err := authproxy.LoadIdentity(firstNonEmpty(*identityFile, filepath.Join(*dir, authProxyIdentityFile)))
	if err != nil {
		return fmt.Errorf("auth proxy identity: %w (sigil up creates it on its first start)", err)
	}
	proxy, err := authproxy.New(authproxy.Config{CoordinatorURL: url, Identity: id, Logger: logger, ConfigTTL: *configTTL,
		IPRate: *ipRate, ConfigRate: *configRate, MaxBodyBytes: *maxBody})
	if err != nil {
		return err
	}
	srv, err := listen("auth proxy", *listenAddr, proxy.Handler())
	if err != nil {
		return err
	}
	logger.Info("auth proxy listening", "url", srv.url, "coordinator", url)
	return serveAll(ctx, logger, srv)
}
