package coordinator

import (
	"context"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"sigil/api"
	"sigil/apierr"
	"sigil/httpjson"
)

// Handler serves the public API, /healthz, and CORS for browser callers.
func (c *Coordinator) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /public/v1/submit/{name}", c.serveSubmit)
	mux.HandleFunc("POST /public/v1/query/{name}", c.serveQuery)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	mux.HandleFunc("GET /.well-known/sigil-signer.json", c.serveSignerKey)
	mux.Handle("GET /.well-known/jwks.json", c.JWKSHandler())
	mux.Handle("GET /.well-known/openid-configuration", c.OpenIDConfigurationHandler())
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		apierr.Write(w, apierr.NotFoundf("no route for %s %s", r.Method, r.URL.Path))
	})
	return c.logRequests(c.cors(mux))
}

func (c *Coordinator) serveSubmit(w http.ResponseWriter, r *http.Request) {
	body, err := c.readBody(w, r)
	if err != nil {
		apierr.Write(w, err)
		return
	}
	res, err := c.Submit(r.Context(), r.PathValue("name"), r.Header, body)
	if err != nil {
		c.writeError(w, r, err)
		return
	}
	noteActivity(r, res.Activity.ID, res.Activity.Type)
	writeJSON(w, http.StatusOK, res)
}

func (c *Coordinator) serveQuery(w http.ResponseWriter, r *http.Request) {
	body, err := c.readBody(w, r)
	if err != nil {
		apierr.Write(w, err)
		return
	}
	res, err := c.Query(r.Context(), r.PathValue("name"), r.Header, body)
	if err != nil {
		c.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

// writeError answers with the API error; an internal error is logged here, and only "internal error" leaves.
func (c *Coordinator) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var e *apierr.Error
	if !errors.As(err, &e) {
		c.cfg.Logger.Error("internal error", "path", r.URL.Path, "err", err)
	}
	apierr.Write(w, err)
}

func (c *Coordinator) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, c.cfg.MaxBodyBytes))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		e := apierr.Invalid("request body is larger than the limit of %d bytes", c.cfg.MaxBodyBytes)
		e.HTTP = http.StatusRequestEntityTooLarge
		return nil, e
	}
	if err != nil {
		return nil, apierr.Invalid("could not read the request body: %s", err.Error())
	}
	return body, nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	if r, ok := v.(*api.ActivityResponse); ok { // the most frequent answer, and the most costly to marshal
		body, err := marshalActivityResponse(r)
		if err != nil {
			apierr.Write(w, err)
			return
		}
		httpjson.WriteBody(w, status, body)
		return
	}
	if err := httpjson.Write(w, status, v); err != nil {
		apierr.Write(w, err)
	}
}

// corsHeaders are the request headers browsers may send: the SDKs' stamps and version header.
const corsHeaders = "Content-Type, X-Stamp, X-Stamp-WebAuthn, X-Stamp-Attested, X-Client-Version, X-Auth-Proxy-Config-Id"

// cors answers preflights and marks responses readable by allowed browser origins. Requests without an Origin
// header (servers, SDKs in Node) are not affected.
func (c *Coordinator) cors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin != "" && c.originAllowed(origin) {
			h := w.Header()
			h.Set("Access-Control-Allow-Origin", origin)
			h.Add("Vary", "Origin")
			h.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
			h.Set("Access-Control-Allow-Headers", corsHeaders)
			h.Set("Access-Control-Max-Age", "600")
		}
		if r.Method == http.MethodOptions {
			if origin != "" && !c.originAllowed(origin) {
				apierr.Write(w, apierr.Denied("origin %s is not allowed", origin))
				return
			}
			w.WriteHeader(http.StatusNoContent)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (c *Coordinator) originAllowed(origin string) bool {
	return slices.Contains(c.cfg.AllowedOrigins, "*") || slices.ContainsFunc(c.cfg.AllowedOrigins, func(o string) bool {
		return strings.EqualFold(strings.TrimSuffix(o, "/"), origin)
	})
}

// requestNote carries what a handler learned (the activity id) to the request's log line.
type requestNote struct{ activityID, activityType string }

type noteKey struct{}

func noteActivity(r *http.Request, id, typ string) {
	if n, ok := r.Context().Value(noteKey{}).(*requestNote); ok {
		n.activityID, n.activityType = id, typ
	}
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) { s.status = code; s.ResponseWriter.WriteHeader(code) }

// logRequests writes one structured line per request. Bodies and headers are never logged: they carry stamps.
func (c *Coordinator) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		note := &requestNote{}
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(rec, r.WithContext(context.WithValue(r.Context(), noteKey{}, note)))
		attrs := []any{"method", r.Method, "path", r.URL.Path, "status", rec.status, "duration_ms", float64(time.Since(start).Microseconds()) / 1000}
		if note.activityID != "" {
			attrs = append(attrs, "activity", note.activityID, "type", note.activityType)
		}
		c.cfg.Logger.Info("request", attrs...)
	})
}

// serveSignerKey publishes the public key that signs export and import bundles and app proofs, so clients can pin it
// (for @turnkey/crypto, as dangerouslyOverrideSignerPublicKey).
func (c *Coordinator) serveSignerKey(w http.ResponseWriter, r *http.Request) {
	key, err := c.ownKey(r.Context(), signerKeyName)
	if err != nil {
		c.writeError(w, r, err)
		return
	}
	pub, err := key.PublicKey.ECDH()
	if err != nil {
		c.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"publicKey": hex.EncodeToString(pub.Bytes())})
}
