package client

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/sigil/sigil/stamp"
)

// HandlerTransport is an http.RoundTripper that answers each request by calling an http.Handler in this process: no
// listener and no network, but the handler reads exactly the bytes and headers (the stamp among them) that the client
// would have sent over TCP, and the client reads its answer as it would read one from the network. It serves a
// coordinator that is started but not listening yet, and tests.
type HandlerTransport struct {
	Handler http.Handler
	// RemoteAddr is the address the handler sees the request come from (default 127.0.0.1:0: this process).
	RemoteAddr string
}

// inProcessURL is the base URL of a client made by NewInProcess; the host is never resolved.
const inProcessURL = "http://in-process"

// NewInProcess returns a client that talks to the coordinator whose handler is h (coordinator.Handler) in this
// process, stamping with stamper.
func NewInProcess(h http.Handler, stamper stamp.Stamper) *Client {
	c := New(inProcessURL, stamper)
	c.HTTP.Transport = HandlerTransport{Handler: h}
	return c
}

// RoundTrip serves req with the handler and returns what it wrote. A handler that panics is an error, as a server
// would drop the connection.
func (t HandlerTransport) RoundTrip(req *http.Request) (res *http.Response, err error) {
	if req.Body != nil {
		defer req.Body.Close()
	}
	if err := req.Context().Err(); err != nil {
		return nil, err
	}
	in := req.Clone(req.Context())
	if in.Body == nil {
		in.Body = http.NoBody
	}
	in.RequestURI = req.URL.RequestURI()
	in.RemoteAddr = t.RemoteAddr
	if in.RemoteAddr == "" {
		in.RemoteAddr = "127.0.0.1:0"
	}
	if in.Host == "" {
		in.Host = req.URL.Host
	}
	in.Proto, in.ProtoMajor, in.ProtoMinor = "HTTP/1.1", 1, 1
	w := &recorder{header: http.Header{}}
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, fmt.Errorf("client: in-process handler for %s %s panicked: %v", req.Method, req.URL.Path, p)
		}
	}()
	t.Handler.ServeHTTP(w, in)
	w.WriteHeader(http.StatusOK) // a handler that wrote nothing answered 200, as over HTTP
	return &http.Response{
		Status: strconv.Itoa(w.code) + " " + http.StatusText(w.code), StatusCode: w.code,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: w.sent, Body: io.NopCloser(bytes.NewReader(w.body.Bytes())), ContentLength: int64(w.body.Len()),
		Request: req,
	}, nil
}

// recorder is the http.ResponseWriter of one in-process request. The header the client sees is the one at the first
// WriteHeader or Write, as on the network.
type recorder struct {
	header http.Header
	sent   http.Header
	code   int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(code int) {
	if r.sent != nil {
		return
	}
	r.code, r.sent = code, r.header.Clone()
}

func (r *recorder) Write(p []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	return r.body.Write(p)
}

// Flush does nothing: the whole answer is handed over when the handler returns.
func (r *recorder) Flush() {}
