package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/sigil/sigil/internal/stack"
	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/yield"
)

// runYield is sigil yield: the yield service alone, until Ctrl-C.
func runYield(ctx context.Context, e *env, args []string) error {
	fs := e.flags()
	dir := fs.String("dir", ".sigil", "data directory (SQLite database, catalogue)")
	listen := fs.String("listen", "127.0.0.1:8083", "listen address")
	dbURL := fs.String("database-url", "", "PostgreSQL URL (postgres://...); default: SQLite in --dir")
	catalogue := fs.String("catalogue", "", "networks and yields file (default DIR/"+yield.DefaultCatalogueFile+", written by sigil up for the dev chain)")
	rateLimit := fs.Int("rate-limit", 6000, "requests per API key per 60-second window")
	if err := e.parse(fs, args); err != nil {
		return err
	}
	logger := slog.New(slog.NewJSONHandler(e.stderr, nil))
	s, err := stack.StartYield(ctx, stack.YieldConfig{Dir: *dir, DatabaseURL: *dbURL, Catalogue: *catalogue, Listen: *listen,
		RateLimit: *rateLimit, Logger: logger})
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%w\n(sigil up writes the dev chain's catalogue in its --dir; for other networks write one, see docs/YIELD.md, and pass --catalogue)", err)
	}
	if err != nil {
		return err
	}
	url := s.Services()[0].URL
	logger.Info("yield service listening", "url", url, "database", s.Backend())
	fmt.Fprintf(e.stderr, "\nSigil yield service is up at %s\n  create a key: sigil yield keys create --project NAME --fee-set 10\n\n", url)
	return serve(ctx, s, logger)
}

// runYieldKeysCreate is sigil yield keys create: a new API key of a project, printed once, on stdout alone.
func runYieldKeysCreate(ctx context.Context, e *env, args []string) error {
	fs := e.flags()
	dir := fs.String("dir", ".sigil", "data directory (SQLite database)")
	dbURL := fs.String("database-url", "", "PostgreSQL URL, when the stack runs on PostgreSQL")
	project := fs.String("project", "", "project the key belongs to")
	feeSet := fs.Int("fee-set", 0, "fee set of a new project's allocator vaults, 10 or 20; an existing project's keys are on its set")
	if err := e.parse(fs, args); err != nil {
		return err
	}
	if *project == "" {
		return e.usageErrorf("--project is required")
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
	fmt.Fprintf(e.stderr, "created a yield API key for project %q on the %d%% fee set; it is shown only this once:\n", *project, set)
	fmt.Fprintln(e.stdout, key)
	return nil
}
