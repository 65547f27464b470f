package main

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"
)

// server is one HTTP service of the stack on its own listener.
type server struct {
	name, url string
	ln        net.Listener
	srv       *http.Server
}

// serveAll runs the servers until ctx ends (SIGINT/SIGTERM) or one of them fails, then shuts all of them down
// gracefully, letting requests in flight finish.
func serveAll(ctx context.Context, logger *slog.Logger, servers ...*server) error {
	errc := make(chan error, len(servers))
	for _, s := range servers {
		go func(s *server) {
			if err := s.srv.Serve(s.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				errc <- err
			}
		}(s)
	}
	var err error
	select {
	case err = <-errc:
	case <-ctx.Done():
	}
	logger.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for _, s := range servers {
		wg.Add(1)
		go func(s *server) {
			defer wg.Done()
			_ = s.srv.Shutdown(shutdownCtx)
		}(s)
	}
	wg.Wait()
	return err
}
