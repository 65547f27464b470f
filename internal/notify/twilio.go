package notify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// TwilioConfig configures the Twilio Messages API client.
type TwilioConfig struct {
	// BaseURL defaults to https://api.twilio.com; tests point it elsewhere.
	BaseURL    string
	AccountSID string
	AuthToken  string
	// Exactly one of From (a Twilio number, E.164) and MessagingServiceSID.
	From                string
	MessagingServiceSID string
	// HTTPClient defaults to a client with Timeout.
	HTTPClient *http.Client
	Timeout    time.Duration // default 10 s
}

// Twilio sends SMS with POST {base}/2010-04-01/Accounts/{sid}/Messages.json.
type Twilio struct {
	cfg      TwilioConfig
	endpoint string
}

// NewTwilio checks the configuration.
func NewTwilio(cfg TwilioConfig) (*Twilio, error) {
	if cfg.AccountSID == "" || cfg.AuthToken == "" {
		return nil, errors.New("twilio: account SID and auth token are required")
	}
	if (cfg.From == "") == (cfg.MessagingServiceSID == "") {
		return nil, errors.New("twilio: set exactly one of From and MessagingServiceSID")
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = "https://api.twilio.com"
	}
	base, err := url.Parse(cfg.BaseURL)
	if err != nil || (base.Scheme != "https" && base.Scheme != "http") || base.Host == "" {
		return nil, fmt.Errorf("twilio: base URL %q is not an http(s) URL", cfg.BaseURL)
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 10 * time.Second
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: cfg.Timeout}
	}
	endpoint := strings.TrimRight(cfg.BaseURL, "/") + "/2010-04-01/Accounts/" + url.PathEscape(cfg.AccountSID) + "/Messages.json"
	return &Twilio{cfg: cfg, endpoint: endpoint}, nil
}

// TwilioError is Twilio's error body, e.g. code 21211 for an invalid To.
type TwilioError struct {
	HTTPStatus int
	Code       int    `json:"code"`
	Message    string `json:"message"`
	MoreInfo   string `json:"more_info"`
}

func (e *TwilioError) Error() string {
	s := fmt.Sprintf("twilio: HTTP %d: error %d: %s", e.HTTPStatus, e.Code, e.Message)
	if e.MoreInfo != "" {
		s += " (" + e.MoreInfo + ")"
	}
	return s
}

// SendSMS posts one message and returns a *TwilioError when Twilio refuses it.
func (t *Twilio) SendSMS(ctx context.Context, m SMS) error {
	if m.To == "" || m.Body == "" {
		return fmt.Errorf("%w: SMS needs a recipient and a body", ErrInvalidMessage)
	}
	form := url.Values{"To": {m.To}, "Body": {m.Body}}
	if t.cfg.MessagingServiceSID != "" {
		form.Set("MessagingServiceSid", t.cfg.MessagingServiceSID)
	} else {
		form.Set("From", t.cfg.From)
	}
	ctx, cancel := context.WithTimeout(ctx, t.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return fmt.Errorf("twilio: %w", err)
	}
	req.SetBasicAuth(t.cfg.AccountSID, t.cfg.AuthToken)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	resp, err := t.cfg.HTTPClient.Do(req)
	if err != nil {
		return fmt.Errorf("twilio: cannot reach %s: %w", t.cfg.BaseURL, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return nil
	}
	te := &TwilioError{HTTPStatus: resp.StatusCode}
	if json.Unmarshal(body, te) != nil || te.Message == "" {
		te.Message = strings.TrimSpace(string(body))
		if len(te.Message) > 200 {
			te.Message = te.Message[:200] + "…"
		}
	}
	return te
}
