// Package edge is the HTTP edge every Sigil service stands behind: it reads request bodies under a size limit,
// decodes them strictly, answers with JSON written once with its length, renders errors in the service's own wire
// format, answers CORS, and logs one line per request.
//
// A service describes itself once, as a Service (its error Format, body limit and logger), and wraps its mux with
// Service.Wrap. Its handlers then return what to answer:
//
//	mux.Handle("POST /v1/things", edge.Func(func(r *http.Request) (any, error) {
//		var req thingRequest
//		if err := edge.Decode(r, &req); err != nil {
//			return nil, err // 400 naming the JSON path, or 413, in the service's format
//		}
//		return makeThing(r.Context(), req) // a value answered as JSON, or an error rendered by the edge
//	}))
//
// An error meant for the caller is a WireError: it knows its status and body. Any other error is internal: the edge
// logs it, on the request's line with its route, and the caller gets only the service's generic internal error.
package edge

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/sigil/sigil/internal/metrics"
)

// Service is one service's edge. Build it once and wrap the service's handler with Wrap.
type Service struct {
	// Format words the service's errors; the zero Format answers {"message": ...}.
	Format Format
	// Logger receives one line per request (default slog.Default()).
	Logger *slog.Logger
	// Message is the message of the request lines (default "request").
	Message string
	// MaxBodyBytes caps request bodies (default 1 MiB); ReadBody and Decode answer a larger one with 413.
	MaxBodyBytes int64
	// Name names the service in metrics (coordinator, authproxy, yield, ...).
	Name string
	// Metrics counts and times the requests by route and status; nil counts nothing.
	Metrics *metrics.Metrics
}

// DefaultMaxBodyBytes is the body limit of a Service that sets none.
const DefaultMaxBodyBytes = 1 << 20

// Wrap returns next behind the edge: request bodies capped at MaxBodyBytes, errors answered in Format, and one log line
// per request, written when next returns: method, route (the ServeMux pattern), path, status, duration in
// milliseconds, what the handler noted (Note), and the error of a failed request when it was internal (level ERROR)
// or a public error of status 500 or above (level WARN). Bodies and headers are never logged: they carry stamps,
// codes and tokens.
func (s *Service) Wrap(next http.Handler) http.Handler {
	logger, msg, limit := s.Logger, s.Message, s.MaxBodyBytes
	if logger == nil {
		logger = slog.Default()
	}
	if msg == "" {
		msg = "request"
	}
	if limit <= 0 {
		limit = DefaultMaxBodyBytes
	}
	tracer := otel.Tracer("github.com/sigil/sigil/internal/edge")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		x := &exchange{format: s.Format, recorder: recorder{ResponseWriter: w, status: http.StatusOK}}
		ctx := otel.GetTextMapPropagator().Extract(r.Context(), propagation.HeaderCarrier(r.Header))
		ctx, span := tracer.Start(ctx, "http.request", trace.WithSpanKind(trace.SpanKindServer))
		defer span.End()
		in := r.WithContext(context.WithValue(ctx, exchangeKey{}, x))
		if r.Body != nil && r.Body != http.NoBody {
			// The server's own writer, not the recorder: it is told to close a connection whose body was cut short.
			in.Body = http.MaxBytesReader(w, r.Body, limit)
		}
		next.ServeHTTP(&x.recorder, in)
		status := x.status
		if x.canceled && !x.wrote {
			status = statusClientClosed
		}
		s.Metrics.Request(s.Name, in.Pattern, r.Method, status, time.Since(start))
		span.SetName(r.Method + " " + strings.TrimPrefix(in.Pattern, r.Method+" "))
		span.SetAttributes(attribute.String("sigil.service", s.Name), attribute.String("http.route", in.Pattern),
			attribute.Int("http.status_code", status))
		attrs := make([]slog.Attr, 0, 6+len(x.notes))
		attrs = append(attrs, slog.String("method", r.Method), slog.String("route", in.Pattern), slog.String("path", r.URL.Path),
			slog.Int("status", status), slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000))
		attrs = append(attrs, x.notes...)
		level := slog.LevelInfo
		if x.err != nil {
			level = x.level
			attrs = append(attrs, slog.String("err", x.err.Error()))
		}
		logger.LogAttrs(r.Context(), level, msg, attrs...)
	})
}

// statusClientClosed is the status logged for a request whose caller went away before it was answered (nginx's).
const statusClientClosed = 499

// Note adds attributes to the request's log line: what a handler learned, such as the activity it recorded or the
// API key's id. Never secrets. Outside Service.Wrap it does nothing.
func Note(r *http.Request, attrs ...slog.Attr) {
	if x := exchangeOf(r); x != nil {
		x.notes = append(x.notes, attrs...)
	}
}

// exchange is what the edge keeps of one request while it is served.
type exchange struct {
	recorder
	format   Format
	notes    []slog.Attr
	err      error // logged on the request's line
	level    slog.Level
	canceled bool
}

type exchangeKey struct{}

func exchangeOf(r *http.Request) *exchange {
	x, _ := r.Context().Value(exchangeKey{}).(*exchange)
	return x
}

// recorder remembers the status of the answer for the log line.
type recorder struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (w *recorder) WriteHeader(code int) {
	if !w.wrote && code >= 200 {
		w.status, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *recorder) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the server's writer.
func (w *recorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }
