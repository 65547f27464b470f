package notify

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"syscall"
	"time"

	"golang.org/x/image/draw"
)

// The box a logo is scaled down to fit, keeping its aspect ratio.
const (
	LogoMaxWidth  = 340
	LogoMaxHeight = 124
)

// LogoContentID is the Content-ID of the embedded logo; templates refer to
// it as cid:logo.
const LogoContentID = "logo"

var pngMagic = []byte("\x89PNG\r\n\x1a\n")

// LogoFetcher downloads logoUrl images. The zero value is ready to use.
type LogoFetcher struct {
	// Client overrides the HTTP client. The default one refuses to connect
	// to loopback, private, link-local and other non-public addresses, so a
	// logoUrl cannot be used to probe the coordinator's network.
	Client *http.Client
	// AllowPrivateNetworks lifts that restriction (tests, intranet images).
	AllowPrivateNetworks bool
	MaxBytes             int64         // default 1 MiB
	Timeout              time.Duration // default 5 s, for the whole download
	// MaxPixels refuses images whose declared size would be costly to
	// decode (default 16 megapixels).
	MaxPixels int
}

// Fetch downloads a PNG logo, checks it, scales it down to fit 340 x 124
// and returns it ready to embed with Content-ID "logo".
func (f *LogoFetcher) Fetch(ctx context.Context, rawURL string) (InlineImage, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return InlineImage{}, fmt.Errorf("%w: logoUrl %q is not an http(s) URL", ErrInvalidMessage, rawURL)
	}
	data, err := f.download(ctx, u.String())
	if err != nil {
		return InlineImage{}, err
	}
	out, err := f.resize(data)
	if err != nil {
		return InlineImage{}, err
	}
	return InlineImage{ContentID: LogoContentID, ContentType: "image/png", Filename: "logo.png", Data: out}, nil
}

func (f *LogoFetcher) download(ctx context.Context, rawURL string) ([]byte, error) {
	timeout, maxBytes := f.Timeout, f.MaxBytes
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	if maxBytes <= 0 {
		maxBytes = 1 << 20
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: logoUrl: %v", ErrInvalidMessage, err)
	}
	req.Header.Set("Accept", "image/png")
	resp, err := f.client().Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%w: logo at %s: no complete answer within %s", ErrInvalidMessage, rawURL, timeout)
		}
		return nil, fmt.Errorf("%w: cannot fetch the logo at %s: %s", ErrInvalidMessage, rawURL, whyUnreachable(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w: logo at %s: HTTP %d", ErrInvalidMessage, rawURL, resp.StatusCode)
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "image/png" {
		return nil, fmt.Errorf("%w: logo at %s is %q; only image/png is accepted", ErrInvalidMessage, rawURL, resp.Header.Get("Content-Type"))
	}
	if resp.ContentLength > maxBytes {
		return nil, fmt.Errorf("%w: logo at %s is %d bytes; the limit is %d", ErrInvalidMessage, rawURL, resp.ContentLength, maxBytes)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBytes+1))
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%w: logo at %s: no complete answer within %s", ErrInvalidMessage, rawURL, timeout)
		}
		return nil, fmt.Errorf("%w: reading the logo at %s: the connection failed before the image's end", ErrInvalidMessage, rawURL)
	}
	if int64(len(data)) > maxBytes {
		return nil, fmt.Errorf("%w: logo at %s is larger than %d bytes", ErrInvalidMessage, rawURL, maxBytes)
	}
	if !bytes.HasPrefix(data, pngMagic) {
		return nil, fmt.Errorf("%w: logo at %s is labelled PNG but is not one", ErrInvalidMessage, rawURL)
	}
	return data, nil
}

func (f *LogoFetcher) resize(data []byte) ([]byte, error) {
	maxPixels := f.MaxPixels
	if maxPixels <= 0 {
		maxPixels = 16 << 20
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%w: logo is not a valid PNG: %v", ErrInvalidMessage, err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width > maxPixels/cfg.Height {
		return nil, fmt.Errorf("%w: logo is %dx%d pixels; the limit is %d pixels", ErrInvalidMessage, cfg.Width, cfg.Height, maxPixels)
	}
	src, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%w: logo is not a valid PNG: %v", ErrInvalidMessage, err)
	}
	w, h := FitLogo(cfg.Width, cfg.Height)
	var img image.Image = src
	if w != cfg.Width || h != cfg.Height {
		dst := image.NewNRGBA(image.Rect(0, 0, w, h))
		draw.CatmullRom.Scale(dst, dst.Bounds(), src, src.Bounds(), draw.Src, nil)
		img = dst
	}
	// Re-encoding also drops any ancillary chunks (metadata, text).
	var out bytes.Buffer
	if err := png.Encode(&out, img); err != nil {
		return nil, fmt.Errorf("encoding the logo: %w", err)
	}
	return out.Bytes(), nil
}

// FitLogo returns the size of a w x h image scaled down, aspect ratio kept,
// to fit LogoMaxWidth x LogoMaxHeight. Smaller images keep their size:
// enlarging would only blur them.
func FitLogo(w, h int) (int, int) {
	if w <= LogoMaxWidth && h <= LogoMaxHeight {
		return w, h
	}
	// Compare w/h with the box's ratio in integers to find the binding side.
	if w*LogoMaxHeight >= h*LogoMaxWidth {
		return LogoMaxWidth, max(1, (h*LogoMaxWidth+w/2)/w)
	}
	return max(1, (w*LogoMaxHeight+h/2)/h), LogoMaxHeight
}

func (f *LogoFetcher) client() *http.Client {
	if f.Client != nil {
		return f.Client
	}
	dialer := &net.Dialer{Timeout: 5 * time.Second}
	if !f.AllowPrivateNetworks {
		dialer.Control = refuseNonPublic
	}
	return &http.Client{
		Transport: &http.Transport{
			Proxy:               nil, // a proxy would bypass the address check
			DialContext:         dialer.DialContext,
			TLSHandshakeTimeout: 5 * time.Second,
			MaxIdleConns:        1,
			DisableKeepAlives:   true,
		},
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 3 {
				return errTooManyRedirects
			}
			return nil
		},
	}
}

// errNonPublic is refuseNonPublic's refusal.
var errNonPublic = errors.New("the host has no public address")

// refuseNonPublic runs after name resolution, on the address actually
// dialled, so DNS tricks cannot point a public name at an internal address.
func refuseNonPublic(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("unexpected address %q: %w", address, err)
	}
	ip := ap.Addr().Unmap()
	if !ip.IsGlobalUnicast() || ip.IsPrivate() || ip.IsLoopback() || ip.IsLinkLocalUnicast() ||
		cgnat.Contains(ip) || ip.IsUnspecified() || ip.IsMulticast() {
		return errNonPublic
	}
	return nil
}

// whyUnreachable says why a logo could not be fetched in words meant for the tenant who named it: what went wrong,
// never the network's own details that the errors of the resolver and the dialer carry (the internal resolver's
// address, the private address an internal name resolves to).
func whyUnreachable(err error) string {
	var dnsErr *net.DNSError
	var certErr *tls.CertificateVerificationError
	switch {
	case errors.Is(err, errNonPublic):
		return "its host resolves to a private or otherwise non-public address, which this server does not fetch from"
	case errors.As(err, &dnsErr) && dnsErr.IsNotFound:
		return fmt.Sprintf("the host %q does not exist", dnsErr.Name)
	case errors.As(err, &dnsErr):
		return fmt.Sprintf("the host %q could not be resolved", dnsErr.Name)
	case errors.Is(err, errTooManyRedirects):
		return errTooManyRedirects.Error()
	case errors.Is(err, syscall.ECONNREFUSED):
		return "the connection was refused"
	case errors.As(err, &certErr):
		return "its TLS certificate is not valid for the host or not trusted"
	}
	return "no connection could be made"
}

var cgnat = netip.MustParsePrefix("100.64.0.0/10")

var errTooManyRedirects = errors.New("more than 3 redirects")
