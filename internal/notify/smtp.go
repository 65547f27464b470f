package notify

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// Security is how the SMTP connection is protected.
type Security int

const (
	// StartTLS connects in plain text and upgrades with STARTTLS, refusing
	// servers that do not offer it (port 587). The default.
	StartTLS Security = iota
	// ImplicitTLS speaks TLS from the first byte (port 465).
	ImplicitTLS
	// Plain never encrypts: only for a relay on the same host or in tests.
	// Credentials are refused in this mode.
	Plain
)

func (s Security) String() string {
	switch s {
	case StartTLS:
		return "starttls"
	case ImplicitTLS:
		return "tls"
	case Plain:
		return "plain"
	}
	return "Security(" + strconv.Itoa(int(s)) + ")"
}

// ParseSecurity reads "starttls", "tls" or "plain" (configuration files).
func ParseSecurity(s string) (Security, error) {
	for _, v := range []Security{StartTLS, ImplicitTLS, Plain} {
		if s == v.String() {
			return v, nil
		}
	}
	return 0, fmt.Errorf("SMTP security %q: want starttls, tls or plain", s)
}

// SMTPConfig says how to reach the mail server.
type SMTPConfig struct {
	Host     string
	Port     int
	Username string // empty: no AUTH
	Password string
	Security Security
	// TLSConfig overrides the TLS settings; by default the server's
	// certificate is verified against Host, TLS 1.2 at least.
	TLSConfig *tls.Config
	// DialTimeout bounds connecting (default 10 s); Timeout bounds each SMTP
	// command and the whole submission (default 30 s).
	DialTimeout time.Duration
	Timeout     time.Duration
	// HelloName is the name given in EHLO (default "localhost").
	HelloName string
	// Now stamps the Date header (default time.Now).
	Now func() time.Time
}

// SMTPSender sends e-mail through one SMTP server, one connection per
// message.
type SMTPSender struct {
	cfg  SMTPConfig
	addr string
}

// NewSMTPSender checks the configuration and fills in defaults.
func NewSMTPSender(cfg SMTPConfig) (*SMTPSender, error) {
	if cfg.Host == "" || cfg.Port <= 0 || cfg.Port > 65535 {
		return nil, fmt.Errorf("smtp: host %q port %d: both are required", cfg.Host, cfg.Port)
	}
	if cfg.Security == Plain && cfg.Username != "" {
		return nil, errors.New("smtp: refusing to send credentials without TLS; use starttls or tls")
	}
	if cfg.Security != StartTLS && cfg.Security != ImplicitTLS && cfg.Security != Plain {
		return nil, fmt.Errorf("smtp: unknown security mode %d", cfg.Security)
	}
	if cfg.TLSConfig == nil {
		cfg.TLSConfig = &tls.Config{MinVersion: tls.VersionTLS12}
	} else {
		cfg.TLSConfig = cfg.TLSConfig.Clone()
	}
	if cfg.TLSConfig.ServerName == "" {
		cfg.TLSConfig.ServerName = cfg.Host
	}
	if cfg.DialTimeout <= 0 {
		cfg.DialTimeout = 10 * time.Second
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	if cfg.HelloName == "" {
		cfg.HelloName = "localhost"
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &SMTPSender{cfg: cfg, addr: net.JoinHostPort(cfg.Host, strconv.Itoa(cfg.Port))}, nil
}

// SendEmail delivers m, or returns an error naming the server and the step
// that failed.
func (s *SMTPSender) SendEmail(ctx context.Context, m Message) error {
	raw, err := BuildMIME(m, s.cfg.Now())
	if err != nil {
		return err
	}
	c, err := s.connect(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	// Cancelling ctx aborts a stalled exchange by closing the connection.
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()

	if s.cfg.Username != "" {
		if err := c.Auth(sasl.NewPlainClient("", s.cfg.Username, s.cfg.Password)); err != nil {
			return s.fail("authentication", err)
		}
	}
	if err := c.SendMail(m.From, []string{m.To}, bytes.NewReader(raw)); err != nil {
		if ctx.Err() != nil {
			return s.fail("sending", ctx.Err())
		}
		return s.fail("sending", err)
	}
	if err := c.Quit(); err != nil {
		return s.fail("closing", err)
	}
	return nil
}

func (s *SMTPSender) connect(ctx context.Context) (*smtp.Client, error) {
	dialer := net.Dialer{Timeout: s.cfg.DialTimeout}
	conn, err := dialer.DialContext(ctx, "tcp", s.addr)
	if err != nil {
		return nil, fmt.Errorf("smtp: cannot reach the mail server at %s: %w", s.addr, err)
	}
	// The greeting, EHLO and TLS set-up together get one Timeout; a server
	// that stalls in them has its connection closed.
	cctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	stop := context.AfterFunc(cctx, func() { conn.Close() })
	defer stop()

	var c *smtp.Client
	switch s.cfg.Security {
	case ImplicitTLS:
		tc := tls.Client(conn, s.cfg.TLSConfig)
		if err := tc.HandshakeContext(cctx); err != nil {
			conn.Close()
			return nil, s.fail("TLS handshake", err)
		}
		c = smtp.NewClient(tc)
	case StartTLS:
		if c, err = smtp.NewClientStartTLS(conn, s.cfg.TLSConfig); err != nil {
			conn.Close()
			if strings.Contains(err.Error(), "support STARTTLS") {
				return nil, fmt.Errorf("smtp %s: the server does not offer STARTTLS; configure security tls or plain", s.addr)
			}
			return nil, s.fail("STARTTLS", err)
		}
	default:
		c = smtp.NewClient(conn)
	}
	c.CommandTimeout = s.cfg.Timeout
	c.SubmissionTimeout = s.cfg.Timeout
	// Hello runs EHLO now (and, after STARTTLS, the TLS handshake), so a
	// silent server or a bad certificate is reported as such.
	if err := c.Hello(s.cfg.HelloName); err != nil {
		c.Close()
		if ne := net.Error(nil); cctx.Err() != nil || errors.As(err, &ne) && ne.Timeout() {
			err = fmt.Errorf("no answer within %s", s.cfg.Timeout)
		}
		return nil, s.fail("greeting", err)
	}
	return c, nil
}

func (s *SMTPSender) fail(step string, err error) error {
	var se *smtp.SMTPError
	if errors.As(err, &se) {
		return fmt.Errorf("smtp %s: %s refused: %d %s", s.addr, step, se.Code, se.Message)
	}
	return fmt.Errorf("smtp %s: %s failed: %w", s.addr, step, err)
}
