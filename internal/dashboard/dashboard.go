// Package dashboard serves the organization dashboard: a single web page for an organization's administrators, with
// the auth proxy settings (the AUTH section), the organization's users, policies and recent activities.
//
// The page holds no secret on the server side and has no backend of its own: it talks to the coordinator's public
// API from the browser, and every request is stamped in the browser, with an API key imported into WebCrypto (the
// private key never leaves the page, and is never sent) or with a passkey (WebAuthn) that opens a short session
// whose key is a non-extractable WebCrypto key. The coordinator must allow the dashboard's origin (CORS). The one
// thing the server does beyond serving files is relay the reads that show balances, yields and positions to the
// chains and the yield service (relay.go): it holds no key.
package dashboard

import (
	"embed"
	"io/fs"
	"net/http"
	"net/url"

	"github.com/sigil/sigil/internal/edge"
)

//go:embed static
var static embed.FS

// Config is what the page needs to know about the stack.
type Config struct {
	// CoordinatorURL is the coordinator's public API as the browser reaches it.
	CoordinatorURL string `json:"coordinatorUrl"`
	// AuthProxyURL is the auth proxy, shown with the configuration id for app developers.
	AuthProxyURL string `json:"authProxyUrl,omitempty"`
	// OrganizationID pre-fills the sign-in form (the stack's root organization in `sigil up`).
	OrganizationID string `json:"organizationId,omitempty"`
	// Chains are the networks whose balances the Wallets page shows.
	Chains []Chain `json:"chains"`
	// YieldURL is the yield service, whose rates and positions the Yields page shows through the server (the service
	// does not answer browsers' cross-origin requests); Yield tells the page it is there.
	YieldURL string `json:"-"`
	Yield    bool   `json:"yield"`
}

// Handler serves the page, its assets, and /config.json.
func Handler(cfg Config) http.Handler {
	sub, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // the embedded directory is part of the binary
	}
	files := http.FileServerFS(sub)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /config.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		_ = edge.WriteJSON(w, http.StatusOK, cfg) // a Config always marshals
	})
	mux.Handle("POST /rpc/{caip2}", relay(cfg.Chains))
	if cfg.Yield = cfg.YieldURL != ""; cfg.Yield {
		y := yieldRelay(cfg.YieldURL)
		mux.Handle("GET /yield/v1/yields", y)
		mux.Handle("GET /yield/v1/yields/{id}/share-prices", y)
		mux.Handle("POST /yield/v1/yields/balances", y)
	}
	mux.Handle("GET /", files)
	return securityHeaders(cfg, mux)
}

// securityHeaders keeps the page from being framed, sniffed, or running scripts from anywhere but itself, and lets
// it call only itself and the coordinator.
func securityHeaders(cfg Config, next http.Handler) http.Handler {
	connect := "'self'"
	if u, err := url.Parse(cfg.CoordinatorURL); err == nil && u.Host != "" {
		connect += " " + u.Scheme + "://" + u.Host
	}
	csp := "default-src 'self'; connect-src " + connect + "; img-src 'self' data:; style-src 'self'; script-src 'self'; " +
		"frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		next.ServeHTTP(w, r)
	})
}
