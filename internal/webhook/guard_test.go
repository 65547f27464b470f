package webhook

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeResolver answers from a table; a name absent from it does not exist.
// Each lookup of a name takes its next answer, the last one repeating.
type fakeResolver struct {
	mu      sync.Mutex
	answers map[string][][]string
	lookups map[string]int
}

func newResolver(answers map[string][][]string) *fakeResolver {
	return &fakeResolver{answers: answers, lookups: map[string]int{}}
}

func (r *fakeResolver) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	seq, ok := r.answers[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	i := min(r.lookups[host], len(seq)-1)
	r.lookups[host]++
	var out []net.IPAddr
	for _, a := range seq[i] {
		out = append(out, net.IPAddr{IP: net.ParseIP(a)})
	}
	return out, nil
}

func TestPublic(t *testing.T) {
	t.Parallel()
	for addr, public := range map[string]bool{
		"93.184.216.34": true, "1.1.1.1": true, "2606:4700:4700::1111": true, "8.8.8.8": true,
		"::ffff:93.184.216.34": true, // IPv4-mapped public

		"127.0.0.1": false, "127.1.2.3": false, "::1": false, "::ffff:127.0.0.1": false,
		"10.0.0.1": false, "172.16.5.4": false, "172.31.255.255": false, "192.168.1.1": false,
		"::ffff:10.0.0.1": false, "::ffff:192.168.0.1": false,
		"169.254.169.254": false, "::ffff:169.254.169.254": false, "169.254.0.1": false, "fe80::1": false,
		"100.64.0.1": false, "100.127.255.254": false, "fc00::1": false, "fd12:3456::1": false,
		"0.0.0.0": false, "::": false, "0.1.2.3": false,
		"224.0.0.1": false, "239.255.255.250": false, "ff02::1": false, "255.255.255.255": false,
		"192.0.2.1": false, "198.51.100.7": false, "203.0.113.9": false, "2001:db8::1": false,
		"198.18.0.1": false, "240.0.0.1": false, "192.0.0.8": false,
		"64:ff9b::a00:1": false, "2002:a00:1::": false, "2001::1": false, "::10.0.0.1": false, "fec0::1": false,
	} {
		if got := Public(netip.MustParseAddr(addr)); got != public {
			t.Errorf("Public(%s) = %v, want %v", addr, got, public)
		}
	}
}

func TestCheckURLRefuses(t *testing.T) {
	t.Parallel()
	g := Guard{Resolver: newResolver(map[string][][]string{
		"hooks.example.com":    {{"93.184.216.34"}},
		"rebind.example.com":   {{"127.0.0.1"}},
		"internal.example.com": {{"10.1.2.3"}},
		"mixed.example.com":    {{"93.184.216.34", "192.168.0.10"}},
		"meta.example.com":     {{"169.254.169.254"}},
		"mapped.example.com":   {{"::ffff:127.0.0.1"}},
		"empty.example.com":    {{}},
	})}
	ctx := context.Background()
	for _, u := range []string{
		"https://127.0.0.1/hook",
		"https://127.0.0.1:8443/hook",
		"https://10.0.0.7/hook",
		"https://169.254.169.254/latest/meta-data/",
		"https://[::1]/hook",
		"https://[::ffff:127.0.0.1]/hook",
		"https://[::ffff:a9fe:a9fe]/hook", // 169.254.169.254, IPv4-mapped in hex
		"https://[fe80::1%25eth0]/hook",
		"https://100.64.1.1/hook",
		"https://0.0.0.0/hook",
		"https://localhost/hook",
		"https://api.localhost./hook",
		"https://rebind.example.com/hook",
		"https://internal.example.com/hook",
		"https://mixed.example.com/hook",
		"https://meta.example.com/hook",
		"https://mapped.example.com/hook",
		"https://empty.example.com/hook",
		"https://nowhere.example.com/hook",
		"http://hooks.example.com/hook", // plain http
		"https://user:pass@hooks.example.com/hook",
		"https://user@hooks.example.com/hook",
		"ftp://hooks.example.com/hook",
		"hooks.example.com/hook",
		"https:///hook",
		"https://hooks.example.com:99999/hook",
		"https://hooks.example.com:0/hook",
		"https://[::1",
		"mailto:ops@example.com",
	} {
		err := g.CheckURL(ctx, u)
		if !errors.Is(err, ErrRefusedURL) {
			t.Errorf("CheckURL(%q) = %v, want a refusal", u, err)
		}
	}
	for _, u := range []string{"https://hooks.example.com/hook", "https://hooks.example.com:8443/a?b=c", "https://93.184.216.34/x"} {
		if err := g.CheckURL(ctx, u); err != nil {
			t.Errorf("CheckURL(%q) = %v", u, err)
		}
	}
	// Only what resolves may change: the rest is refused for good.
	if err := g.CheckURL(ctx, "http://hooks.example.com/"); !IsPermanent(err) {
		t.Errorf("http: %v should be permanent", err)
	}
	if err := g.CheckURL(ctx, "https://rebind.example.com/"); IsPermanent(err) {
		t.Errorf("a name resolving to loopback may resolve elsewhere later: %v", err)
	}
}

func TestCheckURLAllowPrivate(t *testing.T) {
	t.Parallel()
	g := Guard{AllowPrivate: true, Resolver: newResolver(nil)}
	for _, u := range []string{"http://127.0.0.1:8080/hook", "https://10.0.0.7/hook", "http://localhost/x", "https://[::1]/"} {
		if err := g.CheckURL(context.Background(), u); err != nil {
			t.Errorf("AllowPrivate: CheckURL(%q) = %v", u, err)
		}
	}
	for _, u := range []string{"ftp://127.0.0.1/", "http://u:p@127.0.0.1/", "http:///x"} {
		if err := g.CheckURL(context.Background(), u); err == nil {
			t.Errorf("AllowPrivate: CheckURL(%q) accepted", u)
		}
	}
}

func TestClientAllowPrivate(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path == "/redirect" {
			http.Redirect(w, r, "/elsewhere", http.StatusFound)
			return
		}
		fmt.Fprint(w, "ok")
	}))
	defer srv.Close()
	c := Guard{AllowPrivate: true}.Client(5 * time.Second)
	resp, err := c.Get(srv.URL + "/hook")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != "ok" {
		t.Fatalf("%d %q", resp.StatusCode, body)
	}
	// A redirect is the answer, not followed.
	resp, err = c.Get(srv.URL + "/redirect")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound || hits.Load() != 2 {
		t.Fatalf("redirect: status %d after %d requests", resp.StatusCode, hits.Load())
	}
}

func TestClientRefusesAtDial(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]

	// DNS rebinding: the name is public when the URL is checked and points
	// at loopback by the time the connection is made.
	res := newResolver(map[string][][]string{"rebind.example.com": {{"93.184.216.34"}, {"127.0.0.1"}}})
	g := Guard{Resolver: res}
	u := "https://rebind.example.com:" + port + "/hook"
	if err := g.CheckURL(context.Background(), u); err != nil {
		t.Fatalf("first lookup is public: %v", err)
	}
	c := g.Client(5 * time.Second)
	for _, target := range []string{u, "http://127.0.0.1:" + port + "/hook", srv.URL} {
		resp, err := c.Get(target)
		if err == nil {
			resp.Body.Close()
			t.Fatalf("%s: connected (status %d)", target, resp.StatusCode)
		}
		if !errors.Is(err, ErrRefusedURL) {
			t.Fatalf("%s: %v, want a refusal", target, err)
		}
	}
	if hits.Load() != 0 {
		t.Fatalf("the server was reached %d times", hits.Load())
	}
	if res.lookups["rebind.example.com"] != 2 {
		t.Fatalf("lookups %v: the dial must resolve again", res.lookups)
	}
}

func TestControlHook(t *testing.T) {
	t.Parallel()
	// The last line of defence sees the dialled address whatever resolved it.
	for addr, ok := range map[string]bool{
		"127.0.0.1:443": false, "[::1]:443": false, "[::ffff:169.254.169.254]:80": false, "10.0.0.1:443": false,
		"100.100.100.200:80": false, "93.184.216.34:443": true, "[2606:4700:4700::1111]:443": true, "nonsense": false,
	} {
		if err := control("tcp", addr, nil); (err == nil) != ok {
			t.Errorf("control(%s) = %v, want ok=%v", addr, err, ok)
		}
	}
}

// failingResolver fails every lookup as Go's resolver does, naming the DNS server it asked.
type failingResolver struct{ err error }

func (r failingResolver) LookupIPAddr(context.Context, string) ([]net.IPAddr, error) {
	return nil, r.err
}

// A refusal for a name that does not resolve says why without the operator's resolver: a tenant reads it when its URL
// is refused, and in its deliveries' last error.
func TestResolverFailuresDoNotNameTheResolver(t *testing.T) {
	t.Parallel()
	for want, err := range map[string]error{
		"no such host":              &net.DNSError{Err: "no such host", Name: "hooks.example.com", Server: "10.0.0.2:53", IsNotFound: true},
		"the lookup timed out":      &net.DNSError{Err: "read udp 10.0.0.9:40123->10.0.0.2:53: i/o timeout", Name: "hooks.example.com", Server: "10.0.0.2:53", IsTimeout: true},
		"the lookup failed for now": &net.DNSError{Err: "server misbehaving", Name: "hooks.example.com", Server: "10.0.0.2:53", IsTemporary: true},
		"the lookup failed":         fmt.Errorf("dial udp 10.0.0.2:53: connect: network is unreachable"),
	} {
		g := Guard{Resolver: failingResolver{err}}
		got := g.CheckURL(context.Background(), "https://hooks.example.com/hook")
		if got == nil || !strings.Contains(got.Error(), `cannot resolve "hooks.example.com": `+want) || strings.Contains(got.Error(), "10.0.0") {
			t.Errorf("%v: refused with %v, want %q and no resolver address", err, got, want)
		}
	}
}
