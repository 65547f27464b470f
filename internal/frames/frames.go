// Package frames serves Sigil's own export, import and export-and-sign frames: the pages an app embeds as iframes to
// show a user an exported mnemonic or private key, to take one the user types in for import, or to sign with an
// exported key, without the key material ever reaching the app's own page. They speak the postMessage protocol of
// @turnkey/iframe-stamper (a MessageChannel handed over in TURNKEY_INIT_MESSAGE_CHANNEL, then requests and answers
// carrying a requestId), so @turnkey/react-wallet-kit shows its export and import screens against them with
// exportIframeUrl and importIframeUrl as its only configuration.
//
// Everything a frame does happens in the browser (static/): it makes a P-256 key that never leaves it (a
// non-extractable WebCrypto key), checks every bundle it is handed against the deployment's signer key that this
// server writes into the page, opens export bundles (HPKE, as @turnkey/crypto) and seals what the user types to the
// key of a signed import bundle. The server holds nothing: it serves the pages, their scripts with Subresource
// Integrity, and a Content-Security-Policy that lets only the configured embedders frame them and lets them fetch
// nothing at all.
package frames

import (
	"bytes"
	"crypto/sha512"
	"embed"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"strings"
)

//go:embed static
var static embed.FS

// Config is what the frames need to know about the deployment.
type Config struct {
	// SignerPublicKey is the coordinator's signer key, uncompressed P-256 in hex (its /.well-known/sigil-signer.json
	// publicKey): a frame opens only bundles it signed.
	SignerPublicKey string
	// EmbedderOrigins are the origins of the pages allowed to embed the frames and talk to them: exact origins
	// (https://app.example.com), or scheme://host:* for any port of a host. "*" is refused: an import frame embedded
	// by any page would seal what the user types to whatever import bundle that page hands it.
	EmbedderOrigins []string
}

// The frames, by path: each is a page and its script, after frame.js and the libraries the script needs (vendor/
// builds them: ethereum-crypto.js, secp256k1 and Keccak-256, which WebCrypto lacks; bech32.js, for Sui keys).
var pages = map[string][]string{
	"export":          {"frame.js", "export.js"},
	"import":          {"frame.js", "bech32.js", "import.js"},
	"export-and-sign": {"frame.js", "ethereum-crypto.js", "export-and-sign.js"},
}

// script is a script of a page, with its Subresource Integrity.
type script struct{ Src, Integrity string }

// Handler serves GET /export, /import and /export-and-sign, and their assets under /assets/.
func Handler(cfg Config) (http.Handler, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	assets, err := fs.Sub(static, "static/assets")
	if err != nil {
		return nil, err
	}
	integrity, err := subresourceIntegrity(assets)
	if err != nil {
		return nil, err
	}
	tmpl, err := template.ParseFS(static, "static/frame.html")
	if err != nil {
		return nil, err
	}
	origins, _ := json.Marshal(cfg.EmbedderOrigins)
	mux := http.NewServeMux()
	for name, files := range pages {
		var scripts []script
		for _, f := range files {
			scripts = append(scripts, script{Src: "/assets/" + f, Integrity: integrity[f]})
		}
		var page bytes.Buffer
		err := tmpl.Execute(&page, map[string]any{
			"Frame": name, "Signer": strings.ToLower(cfg.SignerPublicKey), "Origins": string(origins),
			"Scripts": scripts, "StyleIntegrity": integrity["frame.css"],
		})
		if err != nil {
			return nil, err
		}
		body := page.Bytes()
		mux.HandleFunc("GET /"+name, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Cache-Control", "no-store")
			_, _ = w.Write(body)
		})
	}
	files := http.FileServerFS(assets)
	mux.Handle("GET /assets/", http.StripPrefix("/assets", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache") // revalidated: a new release's scripts replace the old at once
		files.ServeHTTP(w, r)
	})))
	return securityHeaders(cfg.EmbedderOrigins, mux), nil
}

// check refuses a configuration the frames could not be safe with.
func (cfg Config) check() error {
	key, err := hex.DecodeString(cfg.SignerPublicKey)
	if err != nil || len(key) != 65 || key[0] != 4 {
		return errors.New("frames: SignerPublicKey must be an uncompressed P-256 key in hex (65 bytes)")
	}
	if len(cfg.EmbedderOrigins) == 0 {
		return errors.New("frames: no embedder origins: name the origins of the apps that embed the frames")
	}
	for _, o := range cfg.EmbedderOrigins {
		if err := checkOrigin(o); err != nil {
			return err
		}
	}
	return nil
}

// checkOrigin accepts scheme://host[:port] and scheme://host:*, nothing more: the value goes into a CSP header and
// into the page.
func checkOrigin(o string) error {
	u, err := url.Parse(strings.Replace(o, ":*", "", 1))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" || u.RawQuery != "" ||
		u.Fragment != "" || u.User != nil || strings.ContainsAny(o, " ;,'\"") {
		return fmt.Errorf("frames: embedder origin %q is not scheme://host[:port] or scheme://host:* (\"*\" is not accepted)", o)
	}
	return nil
}

// subresourceIntegrity is the integrity attribute (SHA-384) of every asset, by file name.
func subresourceIntegrity(assets fs.FS) (map[string]string, error) {
	out := map[string]string{}
	err := fs.WalkDir(assets, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(assets, p)
		if err != nil {
			return err
		}
		sum := sha512.Sum384(b)
		out[path.Base(p)] = "sha384-" + base64.StdEncoding.EncodeToString(sum[:])
		return nil
	})
	return out, err
}

// securityHeaders lets only the embedders frame the pages, and the pages run only their own scripts and fetch
// nothing: no connect-src, so a frame could not send what it decrypted anywhere even if its script were changed.
func securityHeaders(embedders []string, next http.Handler) http.Handler {
	csp := "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'none'; img-src 'none'; " +
		"form-action 'none'; base-uri 'none'; frame-ancestors " + strings.Join(embedders, " ")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		next.ServeHTTP(w, r)
	})
}
