package notify

import (
	"bytes"
	"context"
	"errors"
	"image/png"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestFitLogo(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ w, h, ww, wh int }{
		{100, 50, 100, 50},   // fits already: unchanged
		{340, 124, 340, 124}, // exactly the box
		{680, 248, 340, 124}, // same ratio, twice
		{1000, 100, 340, 34}, // wide: width binds
		{100, 1000, 12, 124}, // tall: height binds
		{400, 124, 340, 105}, // slightly wide
		{5000, 1, 340, 1},    // never 0
	} {
		if w, h := FitLogo(tc.w, tc.h); w != tc.ww || h != tc.wh {
			t.Errorf("FitLogo(%d, %d) = %d, %d; want %d, %d", tc.w, tc.h, w, h, tc.ww, tc.wh)
		}
	}
}

func logoServer(t *testing.T) *httptest.Server {
	t.Helper()
	big := testPNG(t, 1000, 500)
	small := testPNG(t, 60, 30)
	mux := http.NewServeMux()
	serve := func(ct string, body []byte) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ct)
			w.Write(body)
		}
	}
	mux.Handle("/big.png", serve("image/png", big))
	mux.Handle("/small.png", serve("image/png", small))
	mux.Handle("/photo.jpg", serve("image/jpeg", []byte("\xff\xd8\xff\xe0 jpeg")))
	mux.Handle("/lying.png", serve("image/png", []byte("\xff\xd8\xff\xe0 jpeg pretending")))
	mux.Handle("/page.html", serve("text/html; charset=utf-8", []byte("<html></html>")))
	huge := append(append([]byte{}, big...), bytes.Repeat([]byte{0}, 2<<20)...)
	mux.HandleFunc("/huge.png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Header().Set("Content-Length", strconv.Itoa(len(huge))) // refused before reading
		w.Write(huge)
	})
	mux.HandleFunc("/chunked-huge.png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write(big[:100])
		w.(http.Flusher).Flush() // no Content-Length: the cap applies while reading
		for range 40 {
			w.Write(bytes.Repeat([]byte{0}, 64<<10))
		}
	})
	mux.HandleFunc("/slow.png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write(small[:20])
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	})
	mux.HandleFunc("/missing.png", http.NotFound)
	mux.HandleFunc("/redirect.png", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/big.png", http.StatusFound) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestLogoFetch(t *testing.T) {
	t.Parallel()
	srv := logoServer(t)
	f := &LogoFetcher{AllowPrivateNetworks: true, Timeout: 300 * time.Millisecond}
	for _, tc := range []struct {
		path string
		w, h int
	}{
		{"/big.png", 248, 124}, // 1000x500 scaled to fit: height binds at 124
		{"/small.png", 60, 30},
		{"/redirect.png", 248, 124},
	} {
		img, err := f.Fetch(context.Background(), srv.URL+tc.path)
		if err != nil {
			t.Fatalf("%s: %v", tc.path, err)
		}
		cfg, err := png.DecodeConfig(bytes.NewReader(img.Data))
		if err != nil || cfg.Width != tc.w || cfg.Height != tc.h {
			t.Errorf("%s: %dx%d (%v), want %dx%d", tc.path, cfg.Width, cfg.Height, err, tc.w, tc.h)
		}
		if img.ContentID != "logo" || img.ContentType != "image/png" {
			t.Errorf("%s: %+v", tc.path, img)
		}
	}
	for _, tc := range []struct{ path, want string }{
		{"/photo.jpg", `"image/jpeg"; only image/png`},
		{"/lying.png", "labelled PNG but is not one"},
		{"/page.html", "only image/png"},
		{"/huge.png", "bytes; the limit is 1048576"},
		{"/chunked-huge.png", "larger than 1048576 bytes"},
		{"/slow.png", "no complete answer within 300ms"},
		{"/missing.png", "HTTP 404"},
	} {
		_, err := f.Fetch(context.Background(), srv.URL+tc.path)
		if !errors.Is(err, ErrInvalidMessage) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.path, err, tc.want)
		}
	}
	for _, u := range []string{"file:///etc/passwd", "javascript:alert(1)", "//no-scheme/x.png", "https://"} {
		if _, err := f.Fetch(context.Background(), u); !errors.Is(err, ErrInvalidMessage) {
			t.Errorf("%s accepted: %v", u, err)
		}
	}
	bomb := &LogoFetcher{AllowPrivateNetworks: true, MaxPixels: 100 * 100}
	if _, err := bomb.Fetch(context.Background(), srv.URL+"/big.png"); err == nil || !strings.Contains(err.Error(), "1000x500 pixels") {
		t.Errorf("pixel limit: %v", err)
	}
}

// By default a logoUrl may not point into the server's own network.
func TestLogoFetchRefusesPrivateAddresses(t *testing.T) {
	t.Parallel()
	srv := logoServer(t)
	var f LogoFetcher
	_, err := f.Fetch(context.Background(), srv.URL+"/small.png")
	if !errors.Is(err, ErrInvalidMessage) || !strings.Contains(err.Error(), "non-public address") {
		t.Fatalf("loopback logo: err = %v", err)
	}
	for _, addr := range []string{"10.0.0.1:80", "192.168.1.1:443", "169.254.169.254:80", "[::1]:80", "[fe80::1]:80", "100.64.0.1:80", "0.0.0.0:80", "[::ffff:127.0.0.1]:80"} {
		if err := refuseNonPublic("tcp", addr, nil); err == nil {
			t.Errorf("%s allowed", addr)
		}
	}
	for _, addr := range []string{"93.184.216.34:443", "[2606:2800:220:1:248:1893:25c8:1946]:443"} {
		if err := refuseNonPublic("tcp", addr, nil); err != nil {
			t.Errorf("%s refused: %v", addr, err)
		}
	}
}

// ipPort is an address with a port, as the resolver's and the dialer's errors quote them.
var ipPort = regexp.MustCompile(`\d+\.\d+\.\d+\.\d+:\d+|\[[0-9a-fA-F:.]+\]:\d+`)

// A logo that cannot be fetched is refused in the tenant's words: what went wrong with the URL it gave, never the
// address of the server's resolver (which the resolver's errors quote) nor the address an internal name resolves to.
func TestLogoFetchErrorsNameNoInternalAddress(t *testing.T) {
	t.Parallel()
	var f LogoFetcher
	_, err := f.Fetch(context.Background(), "http://logo.sigil.invalid/logo.png")
	if !errors.Is(err, ErrInvalidMessage) || !strings.Contains(err.Error(), `the host "logo.sigil.invalid" does not exist`) || ipPort.MatchString(err.Error()) {
		t.Errorf("a host that does not exist: %v", err)
	}
	srv := logoServer(t)
	u, _ := url.Parse(srv.URL)
	// localhost, a name, resolves to the loopback address: the answer says it is not public, not what it is.
	_, err = f.Fetch(context.Background(), "http://localhost:"+u.Port()+"/small.png")
	if !errors.Is(err, ErrInvalidMessage) || !strings.Contains(err.Error(), "non-public address") || ipPort.MatchString(err.Error()) {
		t.Errorf("a name of a private address: %v", err)
	}
}
