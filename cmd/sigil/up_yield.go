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

// startYield writes the dev chain's catalogue (DIR/yield-catalogue.json), starts the yield service on it, creates the
// two dev projects' API keys on the first start (one on each fee set), and records the service in bootstrap.json.
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
	b, err := readBootstrap(dir)
	if err != nil {
		return nil, nil, err
	}
	b.YieldURL = "http://" + ln.Addr().String()
	if b.YieldAPIKey == "" {
		if b.YieldAPIKey, err = svc.CreateAPIKey(ctx, "sigil-dev", 10); err != nil {
			return nil, nil, err
		}
		if b.YieldAPIKey20, err = svc.CreateAPIKey(ctx, "sigil-dev-20", 20); err != nil {
			return nil, nil, err
		}
	}
	if err := writeBootstrap(dir, b); err != nil {
		return nil, nil, err
	}
	return &server{name: "yield service", url: b.YieldURL, ln: ln,
		srv: &http.Server{Handler: svc.Handler(), ReadHeaderTimeout: 10 * time.Second}}, svc, nil
}
