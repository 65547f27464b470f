package stack_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sigil/sigil/internal/stack"
)

// testCA is a certificate authority for a test: it issues server certificates for 127.0.0.1.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pool *x509.CertPool
}

func newTestCA(t *testing.T) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "sigil test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &testCA{cert: cert, key: key, pool: pool}
}

// issue writes a certificate for 127.0.0.1 with the serial number, and its key, to the files.
func (ca *testCA) issue(t *testing.T, serial int64, certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
}

// The coordinator serves TLS with the given key pair, and a reload picks up a renewed certificate for new
// connections; a reload of files that do not hold a key pair fails and keeps the certificate in use.
func TestTLSAndReload(t *testing.T) {
	t.Parallel()
	ca := newTestCA(t)
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	ca.issue(t, 101, certFile, keyFile)
	s, err := stack.StartCoordinator(context.Background(), stack.CoordinatorConfig{Dir: t.TempDir(), TLSCertFile: certFile, TLSKeyFile: keyFile})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	url := s.Services()[0].URL
	if !strings.HasPrefix(url, "https://") {
		t.Fatalf("coordinator URL %s", url)
	}
	serial := func() int64 {
		t.Helper()
		// A new transport each time: a new connection, a new handshake.
		c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: ca.pool}}}
		resp, err := c.Get(url + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("healthz: %s", resp.Status)
		}
		return resp.TLS.PeerCertificates[0].SerialNumber.Int64()
	}
	if got := serial(); got != 101 {
		t.Fatalf("serving certificate %d", got)
	}
	if _, err := http.Get(url + "/healthz"); err == nil {
		t.Fatal("a client that does not trust the test CA connected")
	}

	ca.issue(t, 102, certFile, keyFile)
	if err := s.ReloadTLS(); err != nil {
		t.Fatal(err)
	}
	if got := serial(); got != 102 {
		t.Fatalf("after reload, serving certificate %d", got)
	}
	if err := os.WriteFile(keyFile, []byte("not a key"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := s.ReloadTLS(); err == nil || !strings.Contains(err.Error(), "TLS key pair") {
		t.Fatalf("reload of a broken key file: %v", err)
	}
	if got := serial(); got != 102 {
		t.Fatalf("after a failed reload, serving certificate %d", got)
	}
}

// Only both files, or neither.
func TestTLSNeedsBothFiles(t *testing.T) {
	t.Parallel()
	_, err := stack.StartCoordinator(context.Background(), stack.CoordinatorConfig{Dir: t.TempDir(), TLSCertFile: "x.crt"})
	if err == nil || !strings.Contains(err.Error(), "both a certificate file and a key file") {
		t.Fatalf("got %v", err)
	}
}

// A handler served alone (sigil mcp --http) speaks TLS when given a certificate, and refuses an address beyond loopback
// over plain HTTP unless it is exposed on purpose (behind a TLS proxy).
func TestStartHandler(t *testing.T) {
	t.Parallel()
	ca := newTestCA(t)
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	ca.issue(t, 201, certFile, keyFile)
	hello := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("hello")) })
	s, err := stack.StartHandler(stack.ServerConfig{Name: "mcp", Handler: hello, TLSCertFile: certFile, TLSKeyFile: keyFile})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	url := s.Services()[0].URL
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: ca.pool}}}
	resp, err := c.Get(url + "/anything")
	if err != nil || !strings.HasPrefix(url, "https://") {
		t.Fatalf("%s: %v", url, err)
	}
	resp.Body.Close()
	if resp.TLS.PeerCertificates[0].SerialNumber.Int64() != 201 {
		t.Fatal("not the given certificate")
	}

	if _, err := stack.StartHandler(stack.ServerConfig{Name: "mcp", Addr: "0.0.0.0:0", Handler: hello}); err == nil ||
		!strings.Contains(err.Error(), "beyond loopback over plain HTTP") {
		t.Fatalf("plain HTTP on 0.0.0.0: %v", err)
	}
	exposed, err := stack.StartHandler(stack.ServerConfig{Name: "mcp", Addr: "0.0.0.0:0", Handler: hello, Exposed: true})
	if err != nil {
		t.Fatal(err)
	}
	exposed.Close()
}
