package edge

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"

	"github.com/sigil/sigil/internal/metrics"
)

func TestOpsEndpoints(t *testing.T) {
	t.Parallel()
	m := metrics.New()
	failing := errors.New("dial tcp 10.0.0.7:5432: connection refused")
	var dbErr error
	svc := &Service{Name: "test", Metrics: m, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	mux := http.NewServeMux()
	mux.Handle("GET /things/{id}", Func(func(*http.Request) (any, error) { return map[string]int{"n": 1}, nil }))
	svc.MountOps(mux, Check{Name: "database", Probe: func(context.Context) error { return dbErr }})
	srv := httptest.NewServer(svc.Wrap(mux))
	defer srv.Close()

	get := func(path string) (int, string) {
		t.Helper()
		res, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	if code, body := get("/healthz"); code != 200 || !strings.Contains(body, `"ok"`) {
		t.Errorf("/healthz = %d %s", code, body)
	}
	if code, body := get("/readyz"); code != 200 || !strings.Contains(body, `"ready"`) {
		t.Errorf("/readyz while ready = %d %s", code, body)
	}
	dbErr = failing
	code, body := get("/readyz")
	var ready struct {
		Status string            `json:"status"`
		Checks map[string]string `json:"checks"`
	}
	_ = json.Unmarshal([]byte(body), &ready)
	if code != http.StatusServiceUnavailable || ready.Checks["database"] != "failing" || strings.Contains(body, "10.0.0.7") {
		t.Errorf("/readyz while the database fails = %d %s, want 503 naming the check and not its error", code, body)
	}
	for range 3 {
		get("/things/42")
	}
	get("/nowhere")

	code, body = get("/metrics")
	if code != 200 {
		t.Fatalf("/metrics = %d", code)
	}
	families, err := new(expfmt.TextParser).TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatalf("the Prometheus text parser refuses /metrics: %v", err)
	}
	requests := families["sigil_http_requests_total"]
	if requests == nil {
		t.Fatal("no sigil_http_requests_total")
	}
	counts := map[string]float64{}
	for _, mt := range requests.Metric {
		labels := map[string]string{}
		for _, l := range mt.Label {
			labels[l.GetName()] = l.GetValue()
		}
		counts[labels["route"]+" "+labels["status"]] += mt.Counter.GetValue()
		if labels["service"] != "test" {
			t.Errorf("service label %q", labels["service"])
		}
	}
	if counts["GET /things/{id} 200"] != 3 || counts["unmatched 404"] != 1 || counts["GET /readyz 503"] != 1 {
		t.Errorf("request counts by route and status = %v", counts)
	}
	if families["sigil_http_request_duration_seconds"] == nil || families["go_goroutines"] == nil {
		t.Error("latency histogram or runtime series missing")
	}
}
