package webhook

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// ErrRefusedURL wraps every reason Guard refuses a destination.
var ErrRefusedURL = errors.New("webhook: refused destination")

// Resolver looks host names up; *net.Resolver is one.
type Resolver interface {
	LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error)
}

// Guard decides which URLs deliveries may go to. The zero value is the safe
// default: https only, no user info, and only hosts all of whose addresses
// are public.
type Guard struct {
	// AllowPrivate lifts the address checks and allows http: for local
	// development and tests. Never in production.
	AllowPrivate bool
	// Resolver overrides net.DefaultResolver.
	Resolver Resolver
}

// permanent marks a refusal that no later attempt can change (a malformed
// URL, a scheme), as opposed to one that depends on what a name resolves to.
type permanent struct{ error }

func (p permanent) Unwrap() error { return p.error }

// IsPermanent reports whether err says a URL can never be delivered to,
// whatever the DNS says later.
func IsPermanent(err error) bool {
	var p permanent
	return errors.As(err, &p)
}

func refused(perm bool, format string, args ...any) error {
	err := fmt.Errorf("%w: %s", ErrRefusedURL, fmt.Sprintf(format, args...))
	if perm {
		return permanent{err}
	}
	return err
}

// CheckURL checks a destination when it is registered and before each
// attempt. It parses raw, requires https (http too with AllowPrivate), no
// user info and a host; then, unless AllowPrivate, resolves the host and
// refuses it if any of its addresses is not public (see Public).
func (g Guard) CheckURL(ctx context.Context, raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return refused(true, "%q is not a URL", raw)
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && g.AllowPrivate:
	default:
		return refused(true, "%q: the scheme must be https", raw)
	}
	if u.User != nil {
		return refused(true, "%q: user info is not allowed in a webhook URL", raw)
	}
	if u.Opaque != "" || u.Host == "" || u.Hostname() == "" {
		return refused(true, "%q has no host", raw)
	}
	if p := u.Port(); p != "" {
		if n, err := parsePort(p); err != nil || n == 0 {
			return refused(true, "%q: invalid port", raw)
		}
	}
	if g.AllowPrivate {
		return nil
	}
	host := u.Hostname()
	if strings.Contains(host, "%") {
		return refused(true, "%q: scoped IPv6 addresses are not allowed", raw)
	}
	if name := strings.ToLower(strings.TrimSuffix(host, ".")); name == "localhost" || strings.HasSuffix(name, ".localhost") {
		return refused(true, "%q: localhost is not allowed", raw)
	}
	if _, err := g.resolve(ctx, host); err != nil {
		return err
	}
	return nil
}

func parsePort(p string) (int, error) {
	n := 0
	for i := 0; i < len(p); i++ {
		if p[i] < '0' || p[i] > '9' || n > 65535 {
			return 0, errors.New("bad port")
		}
		n = n*10 + int(p[i]-'0')
	}
	if n > 65535 {
		return 0, errors.New("bad port")
	}
	return n, nil
}

// resolve returns host's addresses, refusing the host if any is not public.
func (g Guard) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if ip, err := netip.ParseAddr(host); err == nil {
		if err := checkAddr(ip); err != nil {
			return nil, err
		}
		return []netip.Addr{ip}, nil
	}
	r := g.Resolver
	if r == nil {
		r = net.DefaultResolver
	}
	addrs, err := r.LookupIPAddr(ctx, host)
	if err != nil {
		return nil, refused(false, "cannot resolve %q: %s", host, lookupFailure(err))
	}
	if len(addrs) == 0 {
		return nil, refused(false, "%q has no address", host)
	}
	ips := make([]netip.Addr, 0, len(addrs))
	for _, a := range addrs {
		ip, ok := netip.AddrFromSlice(a.IP)
		if !ok {
			return nil, refused(false, "%q resolved to an unreadable address", host)
		}
		if err := checkAddr(ip); err != nil {
			return nil, fmt.Errorf("%q resolves to %s: %w", host, ip.Unmap(), err)
		}
		ips = append(ips, ip)
	}
	return ips, nil
}

// lookupFailure says why a lookup failed without the resolver's own words: Go's name the DNS server asked ("lookup x
// on 10.0.0.2:53: ...") and the socket that asked it, the operator's internal addresses, which a tenant reading the
// refusal of its URL or a delivery's last error must not learn.
func lookupFailure(err error) string {
	var dnsErr *net.DNSError
	switch {
	case errors.As(err, &dnsErr) && dnsErr.IsNotFound:
		return "no such host"
	case errors.As(err, &dnsErr) && dnsErr.IsTimeout, errors.Is(err, context.DeadlineExceeded):
		return "the lookup timed out"
	case errors.As(err, &dnsErr) && dnsErr.IsTemporary:
		return "the lookup failed for now"
	}
	return "the lookup failed"
}

func checkAddr(ip netip.Addr) error {
	if !Public(ip) {
		return refused(false, "%s is not a public address", ip.Unmap())
	}
	return nil
}

// Not public: special-purpose ranges (RFC 6890 and successors) that Go's
// netip predicates do not cover.
var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),   // CGNAT shared address space
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),    // TEST-NET-1
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // TEST-NET-2
	netip.MustParsePrefix("203.0.113.0/24"),  // TEST-NET-3
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, and the broadcast address
	netip.MustParsePrefix("::/96"),           // IPv4-compatible (deprecated)
	netip.MustParsePrefix("::ffff:0:0:0/96"), // IPv4-translated (SIIT)
	netip.MustParsePrefix("64:ff9b::/96"),    // NAT64: may carry any IPv4 address
	netip.MustParsePrefix("64:ff9b:1::/48"),  // local-use IPv4/IPv6 translation
	netip.MustParsePrefix("100::/64"),        // discard-only
	netip.MustParsePrefix("2001::/23"),       // IETF protocol assignments (Teredo, ORCHID, ...)
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
	netip.MustParsePrefix("2002::/16"),       // 6to4: may carry any IPv4 address
	netip.MustParsePrefix("3fff::/20"),       // documentation
	netip.MustParsePrefix("5f00::/16"),       // segment routing SIDs
	netip.MustParsePrefix("fec0::/10"),       // site-local (deprecated)
}

// Public reports whether ip is an address a webhook may be delivered to:
// a global unicast address outside loopback, private (RFC 1918, fc00::/7),
// link-local (169.254/16 with the cloud metadata address, fe80::/10), CGNAT
// (100.64/10), unspecified, multicast, documentation, benchmarking and other
// special-purpose ranges. IPv4-mapped addresses (::ffff:a.b.c.d) are judged
// as their IPv4 address; NAT64 (64:ff9b::/96) and 6to4 (2002::/16) addresses
// are refused outright, since they carry an IPv4 address of any kind.
func Public(ip netip.Addr) bool {
	ip = ip.Unmap().WithZone("")
	if !ip.IsValid() || !ip.IsGlobalUnicast() || ip.IsPrivate() || ip.IsLoopback() ||
		ip.IsLinkLocalUnicast() || ip.IsUnspecified() || ip.IsMulticast() {
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}

// control runs on the address actually dialled, after any name resolution:
// whatever a name resolved to by then, a non-public address is not connected
// to (DNS rebinding between CheckURL and the dial changes nothing).
func control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return refused(false, "unexpected address %q", address)
	}
	return checkAddr(ap.Addr())
}

// DefaultTimeout is the time an attempt may take, from dialling to the last
// byte of the response's headers, unless a Worker sets another.
const DefaultTimeout = 10 * time.Second

// Client returns the HTTP client deliveries are posted with. It never
// follows a redirect (a 3xx is the answer), uses no proxy, and, unless
// AllowPrivate, resolves names through the Guard's resolver, refuses a host
// any of whose addresses is not public, and checks again, in the dialer's
// Control hook, the address it connects to. timeout bounds a whole attempt
// (0: DefaultTimeout). The worker reads at most ResponseBodyLimit bytes of a
// response.
func (g Guard) Client(timeout time.Duration) *http.Client {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	dialer := &net.Dialer{Timeout: timeout}
	dial := dialer.DialContext
	if !g.AllowPrivate {
		dialer.Control = control
		dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
			host, port, err := net.SplitHostPort(addr)
			if err != nil {
				return nil, err
			}
			ips, err := g.resolve(ctx, host)
			if err != nil {
				return nil, err
			}
			var firstErr error
			for _, ip := range ips {
				conn, err := dialer.DialContext(ctx, network, net.JoinHostPort(ip.Unmap().String(), port))
				if err == nil {
					return conn, nil
				}
				if firstErr == nil {
					firstErr = err
				}
				if ctx.Err() != nil {
					break
				}
			}
			return nil, firstErr
		}
	}
	return &http.Client{
		Timeout: timeout,
		Transport: &http.Transport{
			Proxy:                  nil, // a proxy would dial for us, past the address check
			DialContext:            dial,
			ForceAttemptHTTP2:      true,
			TLSHandshakeTimeout:    timeout,
			ResponseHeaderTimeout:  timeout,
			MaxResponseHeaderBytes: 64 << 10,
			// A worker posts up to 64 deliveries at once, often to one receiver: keeping as many connections idle
			// lets the next ones reuse them instead of dialling (and, over TLS, shaking hands) each time.
			MaxIdleConns:        64,
			MaxIdleConnsPerHost: 64,
			IdleConnTimeout:     90 * time.Second,
			// An activity's event with its headers is often just over the default 4 KiB buffer, which would send it in
			// two writes, each waking the receiver; this one holds nearly every event whole.
			WriteBufferSize: 32 << 10,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}
