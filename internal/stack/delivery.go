package stack

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/sigil/sigil/internal/notify"
)

// Delivery is where OTP e-mail and SMS go. Each channel is a real sender when configured (SMTP, Twilio); otherwise,
// in dev mode, the dev outbox (DIR/outbox, listed at DevOutboxPath), and in production mode nothing: OTPs on that
// channel are then refused with a clear error instead of being kept where nobody reads them.
type Delivery struct {
	SMTP      *notify.SMTPConfig
	EmailFrom string // the sender when a request names none (default sigil@localhost)
	// SenderDomains are the domains whose addresses a request may name as its sender or reply-to instead.
	SenderDomains notify.SenderDomains
	Twilio        *notify.TwilioConfig
}

// senders builds the e-mail and SMS senders, and the dev outbox when a channel falls back to it (nil otherwise).
func (d Delivery) senders(dir string, production, quiet bool, logger *slog.Logger) (notify.EmailSender, notify.SMSSender, *notify.Outbox, error) {
	var email notify.EmailSender
	var sms notify.SMSSender
	if d.SMTP != nil {
		sender, err := notify.NewSMTPSender(*d.SMTP)
		if err != nil {
			return nil, nil, nil, err
		}
		email = sender
	}
	if d.Twilio != nil {
		sender, err := notify.NewTwilio(*d.Twilio)
		if err != nil {
			return nil, nil, nil, err
		}
		sms = sender
	}
	if production || (email != nil && sms != nil) {
		return email, sms, nil, nil
	}
	outbox, err := notify.OpenOutbox(filepath.Join(dir, "outbox"), logger, nil)
	if err != nil {
		return nil, nil, nil, err
	}
	outbox.QuietText = quiet
	return cmp.Or[notify.EmailSender](email, outbox), cmp.Or[notify.SMSSender](sms, outbox), outbox, nil
}

// checkProduction refuses a production start on dev defaults: a master key created beside the database by the
// first start, and no channel to send a login code on.
func checkProduction(cfg Config) error {
	if cfg.MasterKeyFile == "" && len(cfg.MasterKey) == 0 && cfg.MasterKeyCommand == "" {
		return errors.New("stack: production mode needs a master key you keep: --master-key-file, SIGIL_MASTER_KEY or " +
			"--master-key-command (sigil keys new-master writes one); it is not created beside the database")
	}
	if cfg.Delivery.SMTP == nil && cfg.Delivery.Twilio == nil {
		return fmt.Errorf("stack: production mode sends login codes: configure SMTP (--smtp-host) or Twilio (--twilio-account-sid), " +
			"or both; there is no dev outbox")
	}
	return nil
}
