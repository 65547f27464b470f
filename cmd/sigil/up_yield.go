package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"time"

	"sigil/chain"
	"sigil/store"
	"sigil/yield"
)

// yieldFlags are the yield service's settings in `sigil up`.
type yieldFlags struct {
	listen string
}

func (y *yieldFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&y.listen, "yield-listen", "127.0.0.1:8083", "yield service listen address")
}

// start writes the dev chain's catalogue (DIR/yield-catalogue.json), starts the yield service on it, creates the two
// dev projects' API keys (one on each fee set) when bootstrap.json lacks them, and records the service in
// bootstrap.json. On failure nothing it started is left running.
func (y *yieldFlags) start(ctx context.Context, st *store.Store, dir string, node chain.Bootstrap, logger *slog.Logger) (*server, *yield.Service, error) {
	cat, err := yield.WriteDevCatalogue(ctx, filepath.Join(dir, "yield-catalogue.json"), node)
	if err != nil {
		return nil, nil, fmt.Errorf("yield catalogue: %w", err)
	}
	svc, err := yield.New(yield.Config{Catalogue: cat, Store: st, Logger: logger})
	if err != nil {
		return nil, nil, err
	}
	if err := svc.Start(ctx); err != nil {
		svc.Close()
		return nil, nil, err
	}
	ln, err := net.Listen("tcp", y.listen)
	if err != nil {
		svc.Close()
		return nil, nil, err
	}
	url := "http://" + ln.Addr().String()
	if err := recordYield(ctx, svc, dir, url); err != nil {
		ln.Close()
		svc.Close()
		return nil, nil, err
	}
	return &server{name: "yield service", url: url, ln: ln,
		srv: &http.Server{Handler: svc.Handler(), ReadHeaderTimeout: 10 * time.Second}}, svc, nil
}

// recordYield writes the service's URL to bootstrap.json and creates each dev project's key the file lacks (one
// project per fee set), so a file written before one of them existed gets it on the next start; keys it holds are kept.
func recordYield(ctx context.Context, svc *yield.Service, dir, url string) error {
	b, err := readBootstrap(dir)
	if err != nil {
		return err
	}
	b.YieldURL = url
	for _, k := range []struct {
		project string
		feeSet  int
		key     *string
	}{{"sigil-dev", 10, &b.YieldAPIKey}, {"sigil-dev-20", 20, &b.YieldAPIKey20}} {
		if *k.key == "" {
			if *k.key, err = svc.CreateAPIKey(ctx, k.project, k.feeSet); err != nil {
				return err
			}
		}
	}
	return writeBootstrap(dir, b)
}
