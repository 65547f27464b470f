// Package metrics is what Sigil's services count and time, in Prometheus's model, and the /metrics handler that
// exposes it. One Metrics serves a whole process (`sigil up` runs every service in one): series carry the service's
// name where several services share a name.
//
// A nil *Metrics counts nothing, so packages record unconditionally and tests need not build one.
package metrics

import (
	"database/sql"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics holds the process's series.
type Metrics struct {
	reg *prometheus.Registry

	requests        *prometheus.CounterVec
	requestSeconds  *prometheus.HistogramVec
	activities      *prometheus.CounterVec
	decisions       *prometheus.CounterVec
	commitGroup     prometheus.Histogram
	commitSeconds   prometheus.Histogram
	syncSeconds     prometheus.Histogram
	otpSends        *prometheus.CounterVec
	chainCalls      *prometheus.CounterVec
	chainSeconds    *prometheus.HistogramVec
	deliveries      *prometheus.CounterVec
	deliveryPending *prometheus.GaugeVec
}

// New makes the series, with the Go runtime's and the process's own.
func New() *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry()}
	latency := []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "sigil_http_requests_total",
		Help: "HTTP requests answered, by service, route (the mux pattern), method and status."}, []string{"service", "route", "method", "status"})
	m.requestSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "sigil_http_request_duration_seconds",
		Help: "Time to answer an HTTP request, by service and route.", Buckets: latency}, []string{"service", "route"})
	m.activities = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "sigil_activities_total",
		Help: "Activities recorded by the coordinator, by type and status."}, []string{"type", "status"})
	m.decisions = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "sigil_policy_decisions_total",
		Help: "Policy engine decisions, by outcome (Allow, Deny, ConsensusNeeded, Rejected)."}, []string{"outcome"})
	m.commitGroup = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "sigil_store_commit_group_size",
		Help: "Write transactions in one commit (on SQLite, the transactions that arrive together share one).", Buckets: []float64{1, 2, 4, 8, 16, 32, 64}})
	m.commitSeconds = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "sigil_store_commit_seconds",
		Help: "Time of one COMMIT: on PostgreSQL with the flush of its WAL; on SQLite without the sync, which is sigil_store_sync_seconds.", Buckets: latency})
	m.syncSeconds = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "sigil_store_sync_seconds",
		Help:    "Time of one sync (fdatasync) of SQLite's write-ahead log, which makes every commit made before it durable.",
		Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25}})
	m.otpSends = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "sigil_otp_sends_total",
		Help: "OTP messages handed to a sender, by channel (email, sms) and result (sent, failed)."}, []string{"channel", "result"})
	m.chainCalls = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "sigil_chain_rpc_calls_total",
		Help: "JSON-RPC calls to chain nodes, by method and result (ok, error)."}, []string{"method", "result"})
	m.chainSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "sigil_chain_rpc_duration_seconds",
		Help: "Time of a JSON-RPC round trip to a chain node, by method.", Buckets: latency}, []string{"method"})
	m.deliveries = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "sigil_webhook_deliveries_total",
		Help: "Webhook delivery attempts, by result (delivered, failed, dead)."}, []string{"result"})
	m.deliveryPending = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "sigil_queue_pending",
		Help: "Work waiting in a queue (webhook deliveries, transactions to send), by queue."}, []string{"queue"})
	m.reg.MustRegister(m.requests, m.requestSeconds, m.activities, m.decisions, m.commitGroup, m.commitSeconds, m.syncSeconds, m.otpSends,
		m.chainCalls, m.chainSeconds, m.deliveries, m.deliveryPending,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Handler serves the series in Prometheus's text format.
func (m *Metrics) Handler() http.Handler {
	if m == nil {
		return http.NotFoundHandler()
	}
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// Request counts one answered HTTP request.
func (m *Metrics) Request(service, route, method string, status int, d time.Duration) {
	if m == nil {
		return
	}
	if route == "" {
		route = "unmatched" // never the raw path: it would make a series per URL
	}
	m.requests.WithLabelValues(service, route, method, strconv.Itoa(status)).Inc()
	m.requestSeconds.WithLabelValues(service, route).Observe(d.Seconds())
}

// Activity counts one recorded activity.
func (m *Metrics) Activity(typ, status string) {
	if m != nil {
		m.activities.WithLabelValues(typ, status).Inc()
	}
}

// Decision counts one policy decision.
func (m *Metrics) Decision(outcome string) {
	if m != nil {
		m.decisions.WithLabelValues(outcome).Inc()
	}
}

// Commit records one commit: how many transactions it holds and how long its COMMIT took.
func (m *Metrics) Commit(group int, d time.Duration) {
	if m != nil {
		m.commitGroup.Observe(float64(group))
		m.commitSeconds.Observe(d.Seconds())
	}
}

// Sync records how long one sync of SQLite's write-ahead log took.
func (m *Metrics) Sync(d time.Duration) {
	if m != nil {
		m.syncSeconds.Observe(d.Seconds())
	}
}

// OTPSend counts an OTP handed to a sender.
func (m *Metrics) OTPSend(channel string, err error) {
	if m == nil {
		return
	}
	result := "sent"
	if err != nil {
		result = "failed"
	}
	m.otpSends.WithLabelValues(channel, result).Inc()
}

// ChainCall records one JSON-RPC round trip.
func (m *Metrics) ChainCall(method string, d time.Duration, err error) {
	if m == nil {
		return
	}
	result := "ok"
	if err != nil {
		result = "error"
	}
	m.chainCalls.WithLabelValues(method, result).Inc()
	m.chainSeconds.WithLabelValues(method).Observe(d.Seconds())
}

// Delivery counts a webhook delivery attempt's result.
func (m *Metrics) Delivery(result string) {
	if m != nil {
		m.deliveries.WithLabelValues(result).Inc()
	}
}

// Pending sets how much work waits in a queue.
func (m *Metrics) Pending(queue string, n int) {
	if m != nil {
		m.deliveryPending.WithLabelValues(queue).Set(float64(n))
	}
}

// Database exposes a connection pool's statistics (open, in use, idle, waits) under a name.
func (m *Metrics) Database(name string, db *sql.DB) {
	if m != nil && db != nil {
		m.reg.MustRegister(collectors.NewDBStatsCollector(db, name))
	}
}
