package mcp

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sigil/sigil/internal/edge"
	"github.com/sigil/sigil/internal/metrics"
)

// ServeStdio serves one session over standard input and output (for a local agent host that starts sigil mcp), until
// the host closes it or ctx ends.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	err := s.mcp.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{out}})
	if errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// HTTPConfig is the Streamable HTTP transport's: who may connect, and its limits.
type HTTPConfig struct {
	// Token is the bearer token a client must send (Authorization: Bearer ...): whoever holds it acts as the server's
	// user, so it is required. Compared in constant time.
	Token string
	// MaxBodyBytes caps a request's body (default DefaultMaxHTTPBody); a larger one is 413.
	MaxBodyBytes int64
	// SessionTimeout closes a session idle for that long (default 30 minutes).
	SessionTimeout time.Duration
	Logger         *slog.Logger
	Metrics        *metrics.Metrics
}

// DefaultMaxHTTPBody is the body limit of the HTTP transport: a tool call's arguments are at most MaxArgumentBytes.
const DefaultMaxHTTPBody = 256 << 10

// MCPPath is where the Streamable HTTP endpoint is served.
const MCPPath = "/mcp"

// HTTPHandler serves MCP's Streamable HTTP transport at /mcp behind Sigil's edge (capped bodies, one log line per
// request, metrics), with /healthz, /readyz and /metrics; every /mcp request must carry the bearer token.
func (s *Server) HTTPHandler(cfg HTTPConfig) (http.Handler, error) {
	if len(cfg.Token) < 16 {
		return nil, errors.New("mcp: the HTTP transport needs a bearer token of 16 characters at least")
	}
	limit := cfg.MaxBodyBytes
	if limit <= 0 {
		limit = DefaultMaxHTTPBody
	}
	timeout := cfg.SessionTimeout
	if timeout <= 0 {
		timeout = 30 * time.Minute
	}
	stream := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp },
		&mcp.StreamableHTTPOptions{MaxRequestBodyBytes: limit, SessionTimeout: timeout, Logger: cfg.Logger})
	want := sha256.Sum256([]byte(cfg.Token))
	authed := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		sum := sha256.Sum256([]byte(got))
		if !ok || subtle.ConstantTimeCompare(sum[:], want[:]) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="sigil mcp"`)
			edge.Fail(w, r, edge.Errorf(http.StatusUnauthorized, "this MCP endpoint needs its bearer token (Authorization: Bearer ...)"))
			return
		}
		stream.ServeHTTP(w, r)
	})
	mux := http.NewServeMux()
	mux.Handle(MCPPath, http.NewCrossOriginProtection().Handler(authed))
	svc := &edge.Service{Logger: cfg.Logger, MaxBodyBytes: limit, Name: "mcp", Metrics: cfg.Metrics}
	svc.MountOps(mux, edge.Check{Name: "coordinator", Probe: func(ctx context.Context) error {
		_, err := s.coord.Whoami(ctx, s.cfg.OrganizationID)
		return err
	}})
	mux.Handle("/", edge.Func(func(r *http.Request) (any, error) {
		return nil, edge.Errorf(http.StatusNotFound, "no route for %s %s; the MCP endpoint is %s", r.Method, r.URL.Path, MCPPath)
	}))
	return svc.Wrap(mux), nil
}
