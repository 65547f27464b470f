package frames

import (
	"crypto/ecdh"
	"crypto/rand"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

func signerHex(t *testing.T) string {
	t.Helper()
	k, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(k.PublicKey().Bytes())
}

func get(t *testing.T, h http.Handler, method, path string) (*http.Response, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
	res := rec.Result()
	body, _ := io.ReadAll(res.Body)
	return res, string(body)
}

// Each frame is a page that names the deployment's signer key and its embedders, loads its scripts with Subresource
// Integrity that matches them, may be framed by the embedders alone, and may fetch nothing.
func TestFramesPages(t *testing.T) {
	signer := strings.ToUpper(signerHex(t))
	h, err := Handler(Config{SignerPublicKey: signer, EmbedderOrigins: []string{"https://app.example", "http://localhost:*"}})
	if err != nil {
		t.Fatal(err)
	}
	integrity := regexp.MustCompile(`(?:src|href)="(/assets/[a-z0-9-]+\.(?:js|css))" integrity="(sha384-[^"]+)"`)
	for _, page := range []string{"export", "import", "export-and-sign"} {
		res, body := get(t, h, http.MethodGet, "/"+page)
		if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
			t.Fatalf("%s: %d %s", page, res.StatusCode, res.Header.Get("Content-Type"))
		}
		csp := res.Header.Get("Content-Security-Policy")
		for _, want := range []string{"frame-ancestors https://app.example http://localhost:*", "connect-src 'none'", "script-src 'self'", "default-src 'none'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("%s: CSP %q lacks %q", page, csp, want)
			}
		}
		if res.Header.Get("X-Content-Type-Options") != "nosniff" || res.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("%s: headers %v", page, res.Header)
		}
		if !strings.Contains(body, `data-signer-public-key="`+strings.ToLower(signer)+`"`) ||
			!strings.Contains(body, `data-embedder-origins="[&#34;https://app.example&#34;,&#34;http://localhost:*&#34;]"`) ||
			!strings.Contains(body, `data-frame="`+page+`"`) {
			t.Errorf("%s: the page does not carry its configuration:\n%s", page, body)
		}
		refs := integrity.FindAllStringSubmatch(body, -1)
		if want := 1 + len(pages[page]); len(refs) != want {
			t.Fatalf("%s: %d assets with integrity, want %d (the style and %v):\n%s", page, len(refs), want, pages[page], body)
		}
		for _, ref := range refs {
			res, asset := get(t, h, http.MethodGet, ref[1])
			sum := sha512.Sum384([]byte(asset))
			if res.StatusCode != http.StatusOK || "sha384-"+base64.StdEncoding.EncodeToString(sum[:]) != html.UnescapeString(ref[2]) {
				t.Errorf("%s: %s answers %d with a digest other than its integrity %s", page, ref[1], res.StatusCode, ref[2])
			}
		}
	}
	if !strings.Contains(mustGet(t, h, "/import"), `id="plaintext"`) || strings.Contains(mustGet(t, h, "/export"), `id="plaintext"`) {
		t.Error("only the import frame has a field to type in")
	}
	for path, want := range map[string]int{"/": http.StatusNotFound, "/auth": http.StatusNotFound, "/assets/nope.js": http.StatusNotFound,
		"/static/frame.html": http.StatusNotFound} {
		if res, _ := get(t, h, http.MethodGet, path); res.StatusCode != want {
			t.Errorf("GET %s: %d, want %d", path, res.StatusCode, want)
		}
	}
	if res, _ := get(t, h, http.MethodPost, "/export"); res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /export: %d", res.StatusCode)
	}
}

func mustGet(t *testing.T, h http.Handler, path string) string {
	t.Helper()
	_, body := get(t, h, http.MethodGet, path)
	return body
}

// A configuration the frames could not be safe with is refused.
func TestFramesConfigRefused(t *testing.T) {
	signer := signerHex(t)
	for name, cfg := range map[string]Config{
		"no signer":             {EmbedderOrigins: []string{"https://app.example"}},
		"compressed signer":     {SignerPublicKey: "02" + signer[2:66], EmbedderOrigins: []string{"https://app.example"}},
		"not hex":               {SignerPublicKey: "zz" + signer[2:], EmbedderOrigins: []string{"https://app.example"}},
		"no embedder":           {SignerPublicKey: signer},
		"any origin":            {SignerPublicKey: signer, EmbedderOrigins: []string{"*"}},
		"a path":                {SignerPublicKey: signer, EmbedderOrigins: []string{"https://app.example/wallet"}},
		"another scheme":        {SignerPublicKey: signer, EmbedderOrigins: []string{"ftp://app.example"}},
		"a CSP injection":       {SignerPublicKey: signer, EmbedderOrigins: []string{"https://app.example; script-src *"}},
		"two origins in one":    {SignerPublicKey: signer, EmbedderOrigins: []string{"https://a.example https://b.example"}},
		"credentials in origin": {SignerPublicKey: signer, EmbedderOrigins: []string{"https://user@app.example"}},
	} {
		if _, err := Handler(cfg); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
