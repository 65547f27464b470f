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
	"time"

	"sigil/store"
	"sigil/yield"
)

// runYield runs the yield service alone, or manages its API keys:
//
//	sigil yield [--dir DIR] [--listen ADDR] [--catalogue FILE] [--database-url URL]
//	sigil yield keys create --project P [--fee-set 10|20] [--dir DIR] [--database-url URL]
func runYield(ctx context.Context, args []string) error {
	if len(args) > 0 && args[0] == "keys" {
		return runYieldKeys(ctx, args[1:])
	}
	fs := flag.NewFlagSet("yield", flag.ContinueOnError)
	dir := fs.String("dir", ".sigil", "data directory (SQLite database, catalogue)")
	listen := fs.String("listen", "127.0.0.1:8083", "listen address")
	dbURL := fs.String("database-url", "", "PostgreSQL URL (postgres://...); default: SQLite in --dir")
	catalogue := fs.String("catalogue", "", "networks and yields file (default DIR/"+yield.DefaultCatalogueFile+", written by sigil up for the dev chain)")
	rateLimit := fs.Int("rate-limit", 6000, "requests per API key per 60-second window")
	if err := fs.Parse(args); err != nil {
		return err
	}
	logger := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	cat, err := yield.LoadCatalogue(firstNonEmpty(*catalogue, filepath.Join(*dir, yield.DefaultCatalogueFile)))
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%w\n(sigil up writes the dev chain's catalogue in its --dir; for other networks write one, see docs/YIELD.md, and pass --catalogue)", err)
	}
	if err != nil {
		return err
	}
	st, err := store.Open(ctx, *dbURL, *dir)
	if err != nil {
		return err
	}
	defer st.Close()
	svc, err := yield.New(yield.Config{Catalogue: cat, Store: st, Logger: logger, RateLimit: *rateLimit})
	if err != nil {
		return err
	}
	defer svc.Close()
	if err := svc.Start(ctx); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	url := "http://" + ln.Addr().String()
	logger.Info("yield service listening", "url", url, "database", st.Backend(), "yields", len(cat.Yields))
	fmt.Fprintf(os.Stderr, "\nSigil yield service is up at %s\n  create a key: sigil yield keys create --project NAME --fee-set 10\n\n", url)
	return serveAll(ctx, logger, &server{name: "yield", url: url, ln: ln,
		srv: &http.Server{Handler: svc.Handler(), ReadHeaderTimeout: 10 * time.Second}})
}

func runYieldKeys(ctx context.Context, args []string) error {
	if len(args) == 0 || args[0] != "create" {
		return errors.New("usage: sigil yield keys create --project P [--fee-set 10|20] [--dir DIR] [--database-url URL]")
	}
	fs := flag.NewFlagSet("yield keys create", flag.ContinueOnError)
	dir := fs.String("dir", ".sigil", "data directory (SQLite database)")
	dbURL := fs.String("database-url", "", "PostgreSQL URL, when the stack runs on PostgreSQL")
	project := fs.String("project", "", "project the key belongs to")
	feeSet := fs.Int("fee-set", 0, "fee set of a new project's allocator vaults, 10 or 20; an existing project's keys are on its set")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if *project == "" {
		return errors.New("--project is required")
	}
	st, err := store.Open(ctx, *dbURL, *dir)
	if err != nil {
		return err
	}
	defer st.Close()
	key, set, err := yield.NewAPIKey(ctx, st, *project, *feeSet, time.Now())
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "created a yield API key for project %q on the %d%% fee set; it is shown only this once:\n", *project, set)
	fmt.Println(key)
	return nil
}
