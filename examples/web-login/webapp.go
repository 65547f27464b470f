// Package weblogin is the browser example of e-mail OTP sign-up and login through Sigil's auth proxy: static HTML,
// CSS and JavaScript with no build step (see sigil.js for the calls, app.js for the page), embedded here so that
// `sigil demo web` serves them with a config.json naming the running stack.
package weblogin

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

//go:embed index.html style.css app.js sigil.js
var files embed.FS

// Config is the page's config.json: where the stack listens. Its JSON names are bootstrap.json's, so decoding
// bootstrap.json into a Config keeps exactly the public part of it and never the root user's key.
type Config struct {
	CoordinatorURL    string `json:"coordinatorUrl"`
	AuthProxyURL      string `json:"authProxyUrl"`
	AuthProxyConfigID string `json:"authProxyConfigId"`
	// DevOutboxURL is set on a development stack, whose e-mails wait in the dev outbox: the page links to it.
	DevOutboxURL string `json:"devOutboxUrl,omitempty"`
}

// Validate says what is missing or malformed, in terms of the bootstrap.json a person can look at.
func (c Config) Validate() error {
	if c.AuthProxyURL == "" || c.AuthProxyConfigID == "" {
		return errors.New("no auth proxy is configured (authProxyUrl and authProxyConfigId are empty): start the stack with `sigil up`, which enables the proxy for its organization")
	}
	urls := [][2]string{{"coordinatorUrl", c.CoordinatorURL}, {"authProxyUrl", c.AuthProxyURL}}
	if c.DevOutboxURL != "" {
		urls = append(urls, [2]string{"devOutboxUrl", c.DevOutboxURL})
	}
	for _, u := range urls {
		if _, err := origin(u[1]); err != nil {
			return fmt.Errorf("%s: %w", u[0], err)
		}
	}
	return nil
}

// origin is the scheme://host[:port] of an absolute http(s) URL.
func origin(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%q is not an http(s) URL", raw)
	}
	return u.Scheme + "://" + u.Host, nil
}

// Handler serves the app and GET /config.json. Its Content-Security-Policy lets the page run only its own scripts
// and talk only to itself, the coordinator and the auth proxy.
func Handler(cfg Config) (http.Handler, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	configJSON, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	coordinator, _ := origin(cfg.CoordinatorURL)
	proxy, _ := origin(cfg.AuthProxyURL)
	csp := strings.Join([]string{
		"default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self'",
		"connect-src 'self' " + coordinator + " " + proxy,
		"base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
	}, "; ")

	mux := http.NewServeMux()
	mux.Handle("GET /", http.FileServerFS(files))
	mux.HandleFunc("GET /config.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(configJSON)
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-cache") // the files change with the binary; revalidate rather than go stale
		mux.ServeHTTP(w, r)
	}), nil
}
