package main

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/mcp"
	"github.com/sigil/sigil/internal/metrics"
	"github.com/sigil/sigil/internal/stack"
	"github.com/sigil/sigil/stamp"
)

// The environment variables that carry sigil mcp's secrets instead of files: the user's API key (a key file's JSON,
// as sigil keys new writes it), the yield service's project key, and the HTTP transport's bearer token.
const (
	envMCPAPIKey   = "SIGIL_MCP_API_KEY"
	envMCPYieldKey = "SIGIL_MCP_YIELD_API_KEY"
	envMCPToken    = "SIGIL_MCP_TOKEN"
)

// runMCP is sigil mcp: the MCP server, over stdio (the default) or Streamable HTTP (--http), acting as the user whose
// API key it is given.
func runMCP(ctx context.Context, e *env, args []string) error {
	fs := e.flags()
	dir := fs.String("dir", ".sigil", "data directory of a running sigil up: its bootstrap.json supplies the URLs, the organization, the nodes and the dev yield key")
	keyPath := fs.String("key", "", "the API key file of the user the server acts as (sigil keys new or add writes one); or the file's content in "+envMCPAPIKey)
	org := fs.String("org", "", "organization id (default: the bootstrap organization)")
	coordURL := fs.String("url", "", "coordinator URL (default: SIGIL_COORDINATOR_URL, else from bootstrap.json)")
	yieldURL := fs.String("yield-url", "", "yield service URL (default from bootstrap.json)")
	yieldKeyPath := fs.String("yield-key-file", "", "file holding the yield service's project API key; or the key in "+envMCPYieldKey+" (default: bootstrap.json's dev key)")
	dashboardURL := fs.String("dashboard-url", "", "the dashboard, linked for the approvers of an activity that needs consensus (default from bootstrap.json)")
	var rpcs []mcp.Network
	fs.Func("rpc", "a network's node, for simulations and chain reads: eip155:CHAIN_ID=URL (repeatable; default: the dev chains of bootstrap.json)", func(v string) error {
		n, err := parseRPCFlag(v)
		if err == nil {
			rpcs = append(rpcs, n)
		}
		return err
	})
	httpAddr := fs.String("http", "", "serve MCP's Streamable HTTP transport at http(s)://ADDR/mcp instead of stdio")
	tokenPath := fs.String("http-token-file", "", "the HTTP transport's bearer token (default DIR/mcp-token, created with a random token when missing); or the token in "+envMCPToken)
	tlsCert := fs.String("tls-cert", "", "serve HTTPS with this certificate (PEM, the chain after it); reloaded on SIGHUP")
	tlsKey := fs.String("tls-key", "", "the certificate's private key (PEM)")
	expose := fs.Bool("expose", false, "allow --http beyond loopback without TLS (behind a TLS proxy)")
	rateLimit := fs.Int("rate-limit", mcp.DefaultRateLimit, "tool calls a session may make a minute")
	maxBody := fs.Int64("max-body-bytes", mcp.DefaultMaxHTTPBody, "the largest HTTP request body")
	if err := e.parse(fs, args); err != nil {
		return err
	}
	if *rateLimit < 1 {
		return e.usageErrorf("--rate-limit must be 1 or more")
	}
	cfg, err := e.mcpConfig(*dir, *keyPath, *org, *coordURL, *yieldURL, *yieldKeyPath, *dashboardURL, rpcs)
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewJSONHandler(e.stderr, nil)) // stdout is the stdio transport's
	cfg.Logger, cfg.RateLimit = logger, *rateLimit
	if bi, ok := debug.ReadBuildInfo(); ok {
		cfg.Version = bi.Main.Version
	}
	srv, err := mcp.New(cfg)
	if err != nil {
		return err
	}
	if *httpAddr == "" {
		logger.Info("serving MCP over stdio", "organization", cfg.OrganizationID)
		return srv.ServeStdio(ctx, e.input(), e.stdout)
	}
	token, err := e.mcpToken(*tokenPath, *dir)
	if err != nil {
		return err
	}
	h, err := srv.HTTPHandler(mcp.HTTPConfig{Token: token, MaxBodyBytes: *maxBody, Logger: logger, Metrics: metrics.New()})
	if err != nil {
		return err
	}
	s, err := stack.StartHandler(stack.ServerConfig{Name: "mcp", Addr: *httpAddr, Handler: h, TLSCertFile: *tlsCert, TLSKeyFile: *tlsKey, Exposed: *expose})
	if err != nil {
		return err
	}
	url := s.Services()[0].URL + mcp.MCPPath
	logger.Info("serving MCP over Streamable HTTP", "url", url, "organization", cfg.OrganizationID)
	fmt.Fprintf(e.stderr, "\nSigil's MCP server is up at %s (bearer token: %s)\n\n", url, cmp.Or(*tokenPath, "$"+envMCPToken+" or DIR/mcp-token"))
	return serve(ctx, s, logger)
}

// parseRPCFlag reads --rpc eip155:CHAIN_ID=URL.
func parseRPCFlag(v string) (mcp.Network, error) {
	id, url, ok := strings.Cut(v, "=")
	chain, err := strconv.ParseInt(strings.TrimPrefix(id, "eip155:"), 10, 64)
	if !ok || !strings.HasPrefix(id, "eip155:") || err != nil || chain <= 0 || !strings.HasPrefix(url, "http") {
		return mcp.Network{}, fmt.Errorf("%q is not eip155:CHAIN_ID=URL", v)
	}
	return mcp.Network{ChainID: chain, RPCURL: url}, nil
}

// mcpConfig gathers the server's settings: the flags, the environment's secrets, and bootstrap.json for what they
// leave out. The user's key never defaults to the bootstrap root key: the server acts as the user it is given.
func (e *env) mcpConfig(dir, keyPath, org, coordURL, yieldURL, yieldKeyPath, dashboardURL string, rpcs []mcp.Network) (mcp.Config, error) {
	key, err := e.mcpAPIKey(keyPath)
	if err != nil {
		return mcp.Config{}, err
	}
	yieldKey, err := e.secret(yieldKeyPath, envMCPYieldKey)
	if err != nil {
		return mcp.Config{}, err
	}
	if coordURL == "" {
		coordURL, _ = e.getenv("SIGIL_COORDINATOR_URL")
	}
	if org == "" || coordURL == "" || yieldURL == "" || yieldKey == "" || dashboardURL == "" || rpcs == nil {
		b, err := stack.ReadBootstrap(dir)
		if err != nil && (org == "" || coordURL == "" || yieldURL == "" || yieldKey == "") {
			return mcp.Config{}, fmt.Errorf("%w (or give --org, --url, --yield-url and --yield-key-file)", err)
		}
		if err == nil {
			org, coordURL, yieldURL = cmp.Or(org, b.OrganizationID), cmp.Or(coordURL, b.CoordinatorURL), cmp.Or(yieldURL, b.YieldURL)
			yieldKey, dashboardURL = cmp.Or(yieldKey, b.YieldAPIKey), cmp.Or(dashboardURL, b.DashboardURL)
			if rpcs == nil {
				for _, c := range b.Chains {
					rpcs = append(rpcs, mcp.Network{ChainID: c.ChainID, RPCURL: c.RPCURL})
				}
			}
		}
	}
	if yieldURL == "" || yieldKey == "" {
		return mcp.Config{}, errors.New("no yield service: give --yield-url and --yield-key-file (or " + envMCPYieldKey + ")")
	}
	return mcp.Config{Coordinator: client.New(coordURL, key), OrganizationID: org, YieldURL: yieldURL, YieldAPIKey: yieldKey,
		Networks: rpcs, DashboardURL: dashboardURL}, nil
}

// mcpAPIKey is the API key the server stamps with: --key's file, or the content of one in SIGIL_MCP_API_KEY.
func (e *env) mcpAPIKey(path string) (*stamp.APIKey, error) {
	if path != "" {
		return loadKeyFile(path)
	}
	content, ok := e.getenv(envMCPAPIKey)
	if !ok || strings.TrimSpace(content) == "" {
		return nil, e.usageErrorf("the user's API key is required: --key FILE (sigil keys add writes one) or %s with a key file's content", envMCPAPIKey)
	}
	var kf keyFile
	if err := json.Unmarshal([]byte(content), &kf); err != nil {
		return nil, fmt.Errorf("%s does not hold a key file's JSON: %w", envMCPAPIKey, err)
	}
	return stamp.ParseAPIKey(stamp.Curve(kf.Curve), kf.PrivateKey)
}

// secret is a file's content, trimmed, or else an environment variable's.
func (e *env) secret(path, envName string) (string, error) {
	if path != "" {
		data, err := os.ReadFile(path)
		if err != nil {
			return "", err
		}
		return strings.TrimSpace(string(data)), nil
	}
	v, _ := e.getenv(envName)
	return strings.TrimSpace(v), nil
}

// mcpToken is the HTTP transport's bearer token: --http-token-file's, SIGIL_MCP_TOKEN's, or DIR/mcp-token's, which is
// created with 256 random bits (mode 0600) when missing.
func (e *env) mcpToken(path, dir string) (string, error) {
	if path == "" {
		if v, _ := e.getenv(envMCPToken); strings.TrimSpace(v) != "" {
			return strings.TrimSpace(v), nil
		}
		path = filepath.Join(dir, "mcp-token")
	}
	data, err := os.ReadFile(path)
	if err == nil {
		return strings.TrimSpace(string(data)), nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	token := base64.RawURLEncoding.EncodeToString(b)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", err
	}
	if _, err := f.WriteString(token + "\n"); err != nil {
		f.Close()
		return "", err
	}
	return token, f.Close()
}
