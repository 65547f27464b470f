package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"sigil/coordinator"
	"sigil/notify"
	"sigil/seal"
	"sigil/store"
)

func runUp(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("up", flag.ContinueOnError)
	dir := fs.String("dir", ".sigil", "data directory (SQLite database, bootstrap.json)")
	listen := fs.String("listen", "127.0.0.1:8081", "coordinator listen address")
	dbURL := fs.String("database-url", "", "PostgreSQL URL (postgres://...); default: SQLite in --dir")
	masterKey := fs.String("master-key-file", "", "master key file sealing key material at rest (default DIR/master.key, created on first start)")
	var cf chainFlags
	cf.register(fs)
	var yf yieldFlags
	yf.register(fs)
	var of oidcFlags
	of.register(fs)
	var af authProxyFlags
	af.register(fs)
	origins := fs.String("allowed-origins", "http://127.0.0.1:8084,http://127.0.0.1:8085,http://localhost:8084,http://localhost:8085",
		"comma-separated browser origins allowed to call the coordinator (* for any)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	logger := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	if err := os.MkdirAll(*dir, 0o700); err != nil {
		return err
	}
	st, err := store.Open(ctx, *dbURL, *dir)
	if err != nil {
		return err
	}
	defer st.Close()
	keyPath := firstNonEmpty(*masterKey, filepath.Join(*dir, "master.key"))
	ring, err := openMasterKey(keyPath)
	if err != nil {
		return err
	}
	// sigil up is dev mode: OTP e-mail and SMS go to the dev outbox (DIR/outbox), logged and listed at /dev/outbox.
	outbox, err := notify.OpenOutbox(filepath.Join(*dir, "outbox"), logger, nil)
	if err != nil {
		return err
	}
	trusted, err := of.verifier()
	if err != nil {
		return err
	}
	proxyID, proxyService, err := authProxyIdentity(*dir)
	if err != nil {
		return err
	}
	dashboardOrigins, err := af.bindDashboard()
	if err != nil {
		return err
	}
	defer af.dashboard.Close()
	coord := coordinator.New(st, coordinator.Config{Logger: logger, AllowedOrigins: append(strings.Split(*origins, ","), dashboardOrigins...),
		Keyring: ring, MasterKeyFile: keyPath, Email: outbox, EmailFrom: "sigil@localhost", SMS: outbox,
		OIDC: trusted, OIDCIssuerURL: firstNonEmpty(of.issuerURL, "http://"+*listen), OAuth2Providers: of.providers,
		AuthProxy: proxyService})

	if err := coord.Start(ctx); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	url := "http://" + ln.Addr().String()
	if err := ensureBootstrap(ctx, coord, *dir, url); err != nil {
		ln.Close()
		return err
	}
	if err := setDevOutboxURL(*dir, url+devOutboxPath); err != nil {
		ln.Close()
		return err
	}
	node, err := cf.start(ctx, *dir, logger)
	if err != nil {
		ln.Close()
		return fmt.Errorf("dev chain: %w", err)
	}
	defer node.Close()
	if err := setChain(*dir, node.Bootstrap()); err != nil {
		ln.Close()
		return err
	}
	coordSrv := &server{name: "coordinator", url: url, ln: ln,
		srv: &http.Server{Handler: devHandler(coord, outbox), ReadHeaderTimeout: 10 * time.Second}}
	yieldSrv, svc, err := yf.start(ctx, st, *dir, node.Bootstrap(), logger)
	if err != nil {
		ln.Close()
		return fmt.Errorf("yield service: %w", err)
	}
	defer svc.Close()
	proxyServers, err := af.start(ctx, coord, proxyID, *dir, url, logger)
	if err != nil {
		ln.Close()
		return err
	}
	servers := append([]*server{coordSrv, yieldSrv}, proxyServers...)
	logger.Info("sigil is up", "coordinator", url, "database", st.Backend(), "bootstrap", bootstrapPath(*dir))
	fmt.Fprintf(os.Stderr, "\nSigil is up.\n")
	for _, s := range servers {
		fmt.Fprintf(os.Stderr, "  %-14s %s\n", s.name, s.url)
	}
	fmt.Fprintf(os.Stderr, "  %-14s %s\n  %-14s %s\n\n", "dev chain", node.RPCURL(), "bootstrap", bootstrapPath(*dir))
	return serveAll(ctx, logger, servers...)
}

// devOutboxPath is where the dev outbox lists the messages it received.
const devOutboxPath = "/dev/outbox"

// devHandler serves the coordinator's API with, on the same listener, the dev outbox.
func devHandler(coord *coordinator.Coordinator, outbox *notify.Outbox) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET "+devOutboxPath, outbox)
	mux.Handle("/", coord.Handler())
	return mux
}

// openMasterKey loads the master key file, creating it (mode 0600) on the first start.
func openMasterKey(path string) (*seal.Keyring, error) {
	ring, err := seal.LoadKeyFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return seal.CreateKeyFile(path)
	}
	return ring, err
}

// ensureBootstrap creates the root organization on the first start and records it; later starts reuse it.
func ensureBootstrap(ctx context.Context, coord *coordinator.Coordinator, dir, url string) error {
	b, err := readBootstrap(dir)
	if err == nil {
		b.CoordinatorURL = url
		return writeBootstrap(dir, b)
	}
	if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	boot, err := coord.CreateRootOrganization(ctx, "Sigil", "root")
	if err != nil {
		return err
	}
	return writeBootstrap(dir, &bootstrapFile{
		OrganizationID: boot.OrganizationID, UserID: boot.UserID, APIPublicKey: boot.APIKey.PublicKeyHex(),
		APIPrivateKey: boot.APIKey.PrivateKeyHex(), CoordinatorURL: url,
	})
}
