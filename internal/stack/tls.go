package stack

import (
	"crypto/tls"
	"errors"
	"fmt"
	"sync/atomic"
)

// certReloader serves the certificate of a key pair's files and reads them again on Reload (sigil up does on
// SIGHUP), so that a renewed certificate is used without a restart: new connections get it, open ones keep theirs.
type certReloader struct {
	certFile, keyFile string
	cert              atomic.Pointer[tls.Certificate]
}

// newCertReloader loads the key pair; nil, nil when neither file is given.
func newCertReloader(certFile, keyFile string) (*certReloader, error) {
	if certFile == "" && keyFile == "" {
		return nil, nil
	}
	if certFile == "" || keyFile == "" {
		return nil, errors.New("stack: TLS needs both a certificate file and a key file (--tls-cert and --tls-key)")
	}
	r := &certReloader{certFile: certFile, keyFile: keyFile}
	return r, r.Reload()
}

// Reload reads the files again. When they do not hold a valid key pair, the certificate in use stays.
func (r *certReloader) Reload() error {
	c, err := tls.LoadX509KeyPair(r.certFile, r.keyFile)
	if err != nil {
		return fmt.Errorf("stack: TLS key pair %s, %s: %w", r.certFile, r.keyFile, err)
	}
	r.cert.Store(&c)
	return nil
}

// config is the listeners' TLS configuration: TLS 1.2 at least, the current certificate.
func (r *certReloader) config() *tls.Config {
	return &tls.Config{MinVersion: tls.VersionTLS12,
		GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return r.cert.Load(), nil }}
}

// ReloadTLS reads the certificate and key files of the stack's listeners again (nothing when it serves plain HTTP).
// A pair that fails to load is reported and the certificate in use stays.
func (s *Stack) ReloadTLS() error {
	if s.tls == nil {
		return nil
	}
	return s.tls.Reload()
}
