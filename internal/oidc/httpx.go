package oidc

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Response-size caps: discovery documents and user-info objects are a few
// KiB, JWKS documents a few keys. Anything larger is refused rather than
// buffered.
const (
	maxDiscoveryBytes = 64 << 10
	maxJWKSBytes      = 256 << 10
	maxUserInfoBytes  = 64 << 10
	maxRedirects      = 3
)

// NewHTTPClient returns the HTTP client used when none is configured:
// bounded dial, TLS, header and overall timeouts, TLS 1.2+, and at most three
// redirects, none of them to plain HTTP except on loopback.
func NewHTTPClient() *http.Client {
	transport := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		TLSClientConfig:       &tls.Config{MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:   5 * time.Second,
		ResponseHeaderTimeout: 10 * time.Second,
		IdleConnTimeout:       90 * time.Second,
		MaxIdleConnsPerHost:   4,
		ForceAttemptHTTP2:     true,
	}
	return &http.Client{
		Transport: transport,
		Timeout:   15 * time.Second,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= maxRedirects {
				return fmt.Errorf("stopped after %d redirects", maxRedirects)
			}
			return checkFetchURL(req.URL)
		},
	}
}

// parseFetchURL parses a URL we are about to fetch and applies checkFetchURL.
func parseFetchURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, err
	}
	return u, checkFetchURL(u)
}

// checkFetchURL accepts https URLs, and http URLs only on loopback so that
// local test providers work while no metadata or key ever travels in clear
// over a network.
func checkFetchURL(u *url.URL) error {
	if u.Host == "" {
		return fmt.Errorf("URL %q has no host", u.Redacted())
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		if isLoopback(u.Hostname()) {
			return nil
		}
		return fmt.Errorf("URL %q must use https", u.Redacted())
	default:
		return fmt.Errorf("URL %q must use https", u.Redacted())
	}
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// httpStatusError is a non-200 answer to a metadata fetch.
type httpStatusError struct {
	url    string
	status int
}

func (e *httpStatusError) Error() string {
	return fmt.Sprintf("GET %s: HTTP %d", e.url, e.status)
}

// fetched is a metadata document and how long it may be cached according to
// its Cache-Control header (hasMaxAge is false when the header says nothing).
type fetched struct {
	body      []byte
	maxAge    time.Duration
	hasMaxAge bool
}

// getDocument fetches rawURL and refuses answers other than 200 and bodies
// over limit bytes.
func getDocument(ctx context.Context, client *http.Client, rawURL string, limit int64) (fetched, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return fetched{}, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return fetched{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fetched{}, &httpStatusError{url: rawURL, status: resp.StatusCode}
	}
	body, err := readCapped(resp.Body, limit)
	if err != nil {
		return fetched{}, fmt.Errorf("GET %s: %w", rawURL, err)
	}
	maxAge, ok := cacheMaxAge(resp.Header.Get("Cache-Control"))
	return fetched{body: body, maxAge: maxAge, hasMaxAge: ok}, nil
}

var errTooLarge = errors.New("response too large")

// readCapped reads at most limit bytes and fails if there are more.
func readCapped(r io.Reader, limit int64) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(body)) > limit {
		return nil, fmt.Errorf("%w (over %d bytes)", errTooLarge, limit)
	}
	return body, nil
}

// cacheMaxAge reads max-age from a Cache-Control header; no-store and
// no-cache count as a max age of zero.
func cacheMaxAge(header string) (time.Duration, bool) {
	maxAge, found := time.Duration(0), false
	for directive := range strings.SplitSeq(header, ",") {
		directive = strings.ToLower(strings.TrimSpace(directive))
		switch {
		case directive == "no-store" || directive == "no-cache":
			return 0, true
		case strings.HasPrefix(directive, "max-age="):
			seconds, err := strconv.ParseInt(strings.Trim(directive[len("max-age="):], `"`), 10, 64)
			if err != nil || seconds < 0 {
				continue
			}
			// Clamp before multiplying so that huge values cannot overflow.
			seconds = min(seconds, int64(365*24*time.Hour/time.Second))
			maxAge, found = time.Duration(seconds)*time.Second, true
		}
	}
	return maxAge, found
}
