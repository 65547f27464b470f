package edge

import (
	"context"
	"log/slog"
	"net/http"
	"time"
)

// Check is one condition of readiness: Probe errs while it does not hold (the database cannot be reached, the chain's
// node does not answer, ...).
type Check struct {
	Name  string
	Probe func(ctx context.Context) error
}

// readyTimeout bounds the probes of one /readyz request.
const readyTimeout = 2 * time.Second

// MountOps adds the operator's endpoints to a service's mux: GET /healthz (the process answers), GET /readyz (every
// check holds: 200, or 503 naming the failing checks) and GET /metrics (Prometheus's text format, when the service
// has Metrics). A failing probe's error is logged, not answered: it may name hosts and files.
func (s *Service) MountOps(mux *http.ServeMux, checks ...Check) {
	mux.Handle("GET /healthz", Func(func(*http.Request) (any, error) { return map[string]string{"status": "ok"}, nil }))
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
		defer cancel()
		results, status := map[string]string{}, "ready"
		for _, c := range checks {
			results[c.Name] = "ok"
			if err := c.Probe(ctx); err != nil {
				results[c.Name], status = "failing", "unavailable"
				if x := exchangeOf(r); x != nil && x.err == nil {
					x.err, x.level = err, slog.LevelWarn
				}
			}
		}
		code := http.StatusOK
		if status != "ready" {
			code = http.StatusServiceUnavailable
		}
		Respond(w, r, WithStatus(code, map[string]any{"status": status, "checks": results}), nil)
	})
	if s.Metrics != nil {
		mux.Handle("GET /metrics", s.Metrics.Handler())
	}
}
