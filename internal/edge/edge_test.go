package edge_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/edge"
)

// yieldError is a second wire format, {message, error, statusCode}, as the yield service answers.
type yieldError struct {
	status  int
	message string
}

func (e *yieldError) Error() string { return e.message }
func (e *yieldError) Status() int   { return e.status }
func (e *yieldError) Render(h http.Header) any {
	return map[string]any{"message": e.message, "error": http.StatusText(e.status), "statusCode": e.status}
}

var yieldFormat = edge.Format{
	Error:    func(status int, message string) edge.WireError { return &yieldError{status, message} },
	Internal: &yieldError{http.StatusInternalServerError, "Internal server error"},
}

// service is a Service with its log lines, decoded.
type service struct {
	handler http.Handler
	logs    *bytes.Buffer
}

func newService(format edge.Format, maxBody int64, h http.Handler) *service {
	logs := &bytes.Buffer{}
	svc := &edge.Service{Format: format, Logger: slog.New(slog.NewJSONHandler(logs, nil)), MaxBodyBytes: maxBody}
	return &service{handler: svc.Wrap(h), logs: logs}
}

// do serves one request synchronously: its log line is written when do returns.
func (s *service) do(method, path, body string, header map[string]string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	s.handler.ServeHTTP(rec, req)
	return rec
}

func (s *service) lines(t *testing.T) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(s.logs.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

type thing struct {
	Name  string   `json:"name"`
	Count int      `json:"count,omitempty"`
	Tags  []string `json:"tags,omitempty"`
	Owner *struct {
		ID string `json:"id"`
	} `json:"owner,omitempty"`
}

func thingsMux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("POST /things", edge.Func(func(r *http.Request) (any, error) {
		var t thing
		if err := edge.Decode(r, &t); err != nil {
			return nil, err
		}
		edge.Note(r, slog.String("thing", t.Name))
		return edge.WithStatus(http.StatusCreated, t), nil
	}))
	mux.Handle("GET /raw", edge.Func(func(*http.Request) (any, error) {
		return json.RawMessage(`{"already":"encoded"}`), nil
	}))
	mux.Handle("GET /broken", edge.Func(func(*http.Request) (any, error) {
		return nil, fmt.Errorf("database: connection to 10.0.0.7 refused")
	}))
	mux.Handle("GET /unavailable", edge.Func(func(*http.Request) (any, error) {
		return nil, fmt.Errorf("upstream: %w", apierr.New(apierr.Unavailable, "", "the node did not answer"))
	}))
	mux.Handle("GET /gone", edge.Func(func(r *http.Request) (any, error) {
		return nil, fmt.Errorf("query: %w", context.Canceled)
	}))
	mux.Handle("GET /teapot", edge.Func(func(*http.Request) (any, error) {
		return nil, edge.Errorf(http.StatusTeapot, "short and stout")
	}))
	return mux
}

// A body over the limit is a 413 in each service's own format.
func TestOversizedBodyIs413InEachFormat(t *testing.T) {
	t.Parallel()
	big := `{"name":"` + strings.Repeat("x", 200) + `"}`
	t.Run("google.rpc.Status", func(t *testing.T) {
		t.Parallel()
		s := newService(edge.RPCStatus, 100, thingsMux())
		rec := s.do("POST", "/things", big, nil)
		var b apierr.Body
		if err := json.Unmarshal(rec.Body.Bytes(), &b); err != nil || rec.Code != http.StatusRequestEntityTooLarge ||
			b.Code != apierr.InvalidArgument || !strings.Contains(b.Message, "larger than the limit of 100 bytes") || len(b.Details) != 1 {
			t.Fatalf("%d %s", rec.Code, rec.Body)
		}
	})
	t.Run("yield", func(t *testing.T) {
		t.Parallel()
		s := newService(yieldFormat, 100, thingsMux())
		rec := s.do("POST", "/things", big, nil)
		var b struct {
			Message    string `json:"message"`
			Error      string `json:"error"`
			StatusCode int    `json:"statusCode"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &b); err != nil || rec.Code != 413 || b.StatusCode != 413 ||
			b.Error != "Request Entity Too Large" || !strings.Contains(b.Message, "larger than the limit of 100 bytes") {
			t.Fatalf("%d %s", rec.Code, rec.Body)
		}
	})
	t.Run("at the limit", func(t *testing.T) {
		t.Parallel()
		body := `{"name":"` + strings.Repeat("x", 100-len(`{"name":""}`)) + `"}`
		if rec := newService(yieldFormat, int64(len(body)), thingsMux()).do("POST", "/things", body, nil); rec.Code != http.StatusCreated {
			t.Fatalf("a body of exactly the limit: %d %s", rec.Code, rec.Body)
		}
	})
}

// Strict decoding: each refusal is a 400 whose message names the JSON path at fault.
func TestDecodeRefusalsNameThePath(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, body, want string }{
		{"malformed", `{"name":`, "request body: malformed JSON"},
		{"empty", ``, "request body: malformed JSON"},
		{"two values", `{"name":"a"} {}`, "request body: malformed JSON: unexpected data after the top-level value"},
		{"not an object", `["a"]`, "request body: expected object, got array"},
		{"wrong type", `{"name":"a","count":"3"}`, "count: expected integer, got string"},
		{"wrong type nested", `{"name":"a","tags":["x",4]}`, "tags[1]: expected string, got number"},
		{"unknown field", `{"name":"a","colour":"red"}`, "colour: unknown field"},
		{"unknown field with a hint", `{"Name":"a"}`, `Name: unknown field (did you mean "name"?)`},
		{"unknown nested field", `{"name":"a","owner":{"id":"o","role":"x"}}`, "owner.role: unknown field"},
		{"duplicate key", `{"name":"a","name":"b"}`, `duplicate key "name"`},
		{"missing required", `{"count":1}`, "name: required field is missing"},
		{"missing required nested", `{"name":"a","owner":{}}`, "owner.id: required field is missing"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := newService(edge.RPCStatus, 0, thingsMux())
			rec := s.do("POST", "/things", c.body, nil)
			var b apierr.Body
			if err := json.Unmarshal(rec.Body.Bytes(), &b); err != nil || rec.Code != 400 || b.Code != apierr.InvalidArgument || !strings.Contains(b.Message, c.want) {
				t.Fatalf("%d %s, want 400 with %q", rec.Code, rec.Body, c.want)
			}
			if lines := s.lines(t); len(lines) != 1 || lines[0]["level"] != "INFO" || lines[0]["err"] != nil {
				t.Fatalf("a refusal is the caller's mistake, not logged as an error: %v", lines)
			}
		})
	}
}

// An internal error is logged once, on the request's line with its route, and the caller sees only the format's
// generic internal error.
func TestInternalErrorIsLoggedOnceAndNotSent(t *testing.T) {
	t.Parallel()
	for _, f := range []struct {
		name   string
		format edge.Format
		want   string
	}{{"google.rpc.Status", edge.RPCStatus, `"message":"internal error"`}, {"yield", yieldFormat, `"message":"Internal server error"`}} {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			s := newService(f.format, 0, thingsMux())
			rec := s.do("GET", "/broken", "", nil)
			if rec.Code != 500 || !strings.Contains(rec.Body.String(), f.want) || strings.Contains(rec.Body.String(), "10.0.0.7") {
				t.Fatalf("%d %s", rec.Code, rec.Body)
			}
			if strings.Count(s.logs.String(), "10.0.0.7") != 1 {
				t.Fatalf("the internal error is logged %d times: %s", strings.Count(s.logs.String(), "10.0.0.7"), s.logs)
			}
			lines := s.lines(t)
			if len(lines) != 1 || lines[0]["level"] != "ERROR" || lines[0]["route"] != "GET /broken" || lines[0]["status"] != 500.0 ||
				!strings.Contains(fmt.Sprint(lines[0]["err"]), "connection to 10.0.0.7 refused") {
				t.Fatalf("log lines %v", lines)
			}
		})
	}
}

// A public error of status 500 or more is answered as it is and logged as a warning; an *edge.Error takes the
// format's words with its own status.
func TestPublicErrors(t *testing.T) {
	t.Parallel()
	s := newService(edge.RPCStatus, 0, thingsMux())
	rec := s.do("GET", "/unavailable", "", nil)
	if rec.Code != 503 || !strings.Contains(rec.Body.String(), "the node did not answer") {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	if lines := s.lines(t); len(lines) != 1 || lines[0]["level"] != "WARN" || lines[0]["err"] == nil {
		t.Fatalf("log lines %v", lines)
	}
	rec = newService(yieldFormat, 0, thingsMux()).do("GET", "/teapot", "", nil)
	if rec.Code != http.StatusTeapot || rec.Body.String() != `{"error":"I'm a teapot","message":"short and stout","statusCode":418}`+"\n" {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
}

// One line per request, with method, route, path, status, duration and the handler's notes; never the body or the
// headers.
func TestOneLogLinePerRequest(t *testing.T) {
	t.Parallel()
	s := newService(edge.RPCStatus, 0, thingsMux())
	rec := s.do("POST", "/things", `{"name":"widget","tags":["secret-tag"]}`, map[string]string{"X-Stamp": "stamp-value"})
	if rec.Code != http.StatusCreated || rec.Body.String() != `{"name":"widget","tags":["secret-tag"]}`+"\n" {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	s.do("GET", "/raw", "", nil)
	s.do("GET", "/nowhere", "", nil)
	lines := s.lines(t)
	if len(lines) != 3 {
		t.Fatalf("%d lines for 3 requests: %s", len(lines), s.logs)
	}
	first := lines[0]
	for k, want := range map[string]any{"msg": "request", "level": "INFO", "method": "POST", "route": "POST /things", "path": "/things",
		"status": 201.0, "thing": "widget"} {
		if first[k] != want {
			t.Errorf("%s = %v, want %v", k, first[k], want)
		}
	}
	if _, ok := first["duration_ms"].(float64); !ok {
		t.Errorf("no duration: %v", first)
	}
	if strings.Contains(s.logs.String(), "secret-tag") || strings.Contains(s.logs.String(), "stamp-value") {
		t.Fatalf("a body or a header was logged: %s", s.logs)
	}
	if lines[2]["status"] != 404.0 || lines[2]["route"] != "" {
		t.Fatalf("unrouted request: %v", lines[2])
	}
}

// Pre-encoded JSON is sent as it is, once, with its length.
func TestRawMessageIsSentAsItIs(t *testing.T) {
	t.Parallel()
	rec := newService(edge.RPCStatus, 0, thingsMux()).do("GET", "/raw", "", nil)
	if rec.Code != 200 || rec.Body.String() != `{"already":"encoded"}`+"\n" || rec.Header().Get("Content-Length") != "22" {
		t.Fatalf("%d %q %v", rec.Code, rec.Body, rec.Header())
	}
}

// A caller that went away is not answered, and its request is not logged as an error.
func TestCanceledRequestIsNotAnswered(t *testing.T) {
	t.Parallel()
	s := newService(edge.RPCStatus, 0, thingsMux())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rec := httptest.NewRecorder()
	s.handler.ServeHTTP(rec, httptest.NewRequest("GET", "/gone", nil).WithContext(ctx))
	if rec.Body.Len() != 0 {
		t.Fatalf("answered %q", rec.Body)
	}
	if lines := s.lines(t); len(lines) != 1 || lines[0]["status"] != 499.0 || lines[0]["level"] != "INFO" {
		t.Fatalf("log lines %v", lines)
	}
}

// Outside Service.Wrap an internal error is still answered generically and logged.
func TestFailWithoutService(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	edge.Fail(rec, httptest.NewRequest("GET", "/", nil), errors.New("secret detail"))
	if rec.Code != 500 || strings.Contains(rec.Body.String(), "secret") {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
}
