package edge

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// CORS lets pages of other origins call a service from the browser.
type CORS struct {
	// Origins are the allowed origins, compared without case and without a trailing slash; "*" allows every origin.
	// An allowed origin is named in the answer, never "*".
	Origins []string
	// Methods and Headers are what a preflight allows (Access-Control-Allow-Methods and -Headers).
	Methods, Headers string
	// MaxAge is how long a browser may keep a preflight's answer (default 10 minutes).
	MaxAge time.Duration
}

// Handler answers preflights (Preflight) and marks every other answer to an allowed origin readable by it. A request
// from an origin not allowed gets no CORS headers, so the browser keeps the answer from the page; requests without an
// Origin header (servers, SDKs in Node) are not affected. Errors are worded by the Service that wraps it.
func (c *CORS) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodOptions {
			c.Preflight(w, r)
			return
		}
		if origin := r.Header.Get("Origin"); origin != "" && OriginAllowed(c.Origins, origin) {
			c.allow(w.Header(), origin)
		}
		next.ServeHTTP(w, r)
	})
}

// Preflight answers a CORS preflight: 204 with what the origin may send, or 403 for an origin not allowed.
func (c *CORS) Preflight(w http.ResponseWriter, r *http.Request) {
	if origin := r.Header.Get("Origin"); origin != "" {
		if !OriginAllowed(c.Origins, origin) {
			Fail(w, r, Errorf(http.StatusForbidden, "origin %s is not allowed", origin))
			return
		}
		c.allow(w.Header(), origin)
	}
	w.WriteHeader(http.StatusNoContent)
}

func (c *CORS) allow(h http.Header, origin string) {
	AllowOrigin(h, origin)
	maxAge := c.MaxAge
	if maxAge <= 0 {
		maxAge = 10 * time.Minute
	}
	h.Set("Access-Control-Allow-Methods", c.Methods)
	h.Set("Access-Control-Allow-Headers", c.Headers)
	h.Set("Access-Control-Max-Age", strconv.Itoa(int(maxAge/time.Second)))
}

// AllowOrigin marks an answer readable by origin, for a service that decides per request (the auth proxy decides
// per tenant). Caches are told that the answer depends on the Origin header.
func AllowOrigin(h http.Header, origin string) {
	h.Set("Access-Control-Allow-Origin", origin)
	h.Add("Vary", "Origin")
}

// OriginAllowed reports whether origin is in allowed: "*" allows every request, with or without an Origin; otherwise
// a listed origin, ignoring case and a trailing slash, and never a request without one.
func OriginAllowed(allowed []string, origin string) bool {
	origin = strings.TrimSuffix(origin, "/")
	for _, a := range allowed {
		a = strings.TrimSuffix(a, "/")
		if a == "*" || origin != "" && (strings.EqualFold(a, origin) || anyPort(a, origin)) {
			return true
		}
	}
	return false
}

// anyPort reports whether allowed is scheme://host:* and origin that scheme and host with a port: the dev stack
// allows a page on any loopback port (http://127.0.0.1:*), wherever a developer serves it.
func anyPort(allowed, origin string) bool {
	prefix, ok := strings.CutSuffix(allowed, ":*")
	if !ok || len(origin) <= len(prefix)+1 || !strings.EqualFold(origin[:len(prefix)], prefix) || origin[len(prefix)] != ':' {
		return false
	}
	port := origin[len(prefix)+1:]
	for _, c := range port {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(port) <= 5
}
