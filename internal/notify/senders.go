package notify

import (
	"fmt"
	"slices"
	"strings"

	"github.com/google/uuid"
)

// SenderDomains are the domains whose addresses an organization's messages may name as their sender or reply-to
// address, besides the operator's own sender: the mail leaves through the operator's SMTP server, so a tenant may not
// sign it with any name it likes (security@paypal.com). The operator lists them: for every organization, or for one
// organization once it has shown the operator that the domain is its own.
type SenderDomains struct {
	Any   []string            // for every organization
	ByOrg map[string][]string // organization id -> domains for that organization only
}

// ParseSenderDomains reads the entries of --email-sender-domains: "example.com" allows addresses at example.com for
// every organization, "ORGANIZATION_ID=example.com" for that organization only. A domain allows addresses at exactly
// that domain, not at its subdomains (list each one).
func ParseSenderDomains(entries []string) (SenderDomains, error) {
	var d SenderDomains
	for _, e := range entries {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		org, domain, scoped := strings.Cut(e, "=")
		if !scoped {
			org, domain = "", e
		}
		domain = strings.ToLower(strings.TrimSpace(domain))
		if err := checkSenderDomain(domain); err != nil {
			return SenderDomains{}, fmt.Errorf("sender domain %q: %w", e, err)
		}
		if !scoped {
			d.Any = append(d.Any, domain)
			continue
		}
		org = strings.TrimSpace(org)
		if _, err := uuid.Parse(org); err != nil {
			return SenderDomains{}, fmt.Errorf("sender domain %q: %q is not an organization id", e, org)
		}
		if d.ByOrg == nil {
			d.ByOrg = map[string][]string{}
		}
		d.ByOrg[org] = append(d.ByOrg[org], domain)
	}
	return d, nil
}

// checkSenderDomain accepts a DNS name of at least two labels, in ASCII (an internationalized one in its xn-- form).
func checkSenderDomain(d string) error {
	labels := strings.Split(d, ".")
	if len(d) > 253 || len(labels) < 2 {
		return fmt.Errorf("want a domain such as example.com")
	}
	for _, l := range labels {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return fmt.Errorf("%q is not a valid domain label", l)
		}
		for i := 0; i < len(l); i++ {
			if c := l[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return fmt.Errorf("%q is not a valid domain label (ASCII letters, digits and hyphens; xn-- for others)", l)
			}
		}
	}
	return nil
}

// For is the domains an organization may send from.
func (d SenderDomains) For(orgID string) []string {
	return slices.Concat(d.Any, d.ByOrg[orgID])
}

// Allows reports whether an organization may name address (a sender or reply-to address) on its messages: its domain
// is one the organization may send from.
func (d SenderDomains) Allows(orgID, address string) bool {
	at := strings.LastIndexByte(address, '@')
	if at < 0 {
		return false
	}
	return slices.Contains(d.For(orgID), strings.ToLower(address[at+1:]))
}
