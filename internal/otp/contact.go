package otp

import (
	"fmt"
	"net/mail"
	"strings"
)

// E.164 allows at most 15 digits, country code included. The shortest
// numbers in service have 7 (country code plus a 4-digit subscriber number,
// as in Niue or Saint Helena).
const (
	minPhoneDigits = 7
	maxPhoneDigits = 15
)

// NormalizeContact validates a contact for its OTP type and returns its
// canonical form, the one to store, send to and count limits by.
func NormalizeContact(t Type, contact string) (string, error) {
	switch t {
	case TypeEmail:
		return NormalizeEmail(contact)
	case TypeSMS:
		return NormalizePhone(contact)
	default:
		return "", fmt.Errorf("%w: otpType %q, want %s or %s", ErrInvalidRequest, t, TypeEmail, TypeSMS)
	}
}

// NormalizeEmail accepts a bare address (no display name, comments or angle
// brackets), ASCII only (internationalized domains in their xn-- form), with
// a dotted domain of valid DNS labels, and returns it with the domain in
// lower case. Quoted local parts and IP-literal domains are refused: they
// are legal but only ever seen in abuse.
func NormalizeEmail(s string) (string, error) {
	bad := func(why string) (string, error) {
		return "", fmt.Errorf("%w: %q is not a usable e-mail address: %s", ErrInvalidRequest, s, why)
	}
	s = strings.TrimSpace(s)
	if len(s) > 254 {
		return bad("longer than 254 characters")
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return bad("only printable ASCII is accepted (write an internationalized domain as xn--…)")
		}
	}
	addr, err := mail.ParseAddress(s)
	if err != nil {
		return bad(err.Error())
	}
	if addr.Name != "" || addr.Address != s {
		return bad("give the bare address, without a name, quotes or angle brackets")
	}
	at := strings.LastIndexByte(s, '@')
	local, domain := s[:at], s[at+1:]
	if len(local) > 64 {
		return bad("the part before @ is longer than 64 characters")
	}
	if err := checkDomain(domain); err != "" {
		return bad(err)
	}
	return local + "@" + strings.ToLower(domain), nil
}

func checkDomain(d string) string {
	if strings.HasPrefix(d, "[") {
		return "IP-literal domains are not accepted"
	}
	labels := strings.Split(d, ".")
	if len(labels) < 2 {
		return "the domain needs at least one dot"
	}
	for _, l := range labels {
		if l == "" || len(l) > 63 {
			return "each domain label must be 1 to 63 characters"
		}
		if l[0] == '-' || l[len(l)-1] == '-' {
			return "a domain label cannot start or end with a hyphen"
		}
		for i := 0; i < len(l); i++ {
			c := l[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
				return "a domain may contain only letters, digits, hyphens and dots"
			}
		}
	}
	if tld := labels[len(labels)-1]; strings.Trim(tld, "0123456789") == "" {
		return "the top-level domain cannot be numeric"
	}
	return ""
}

// NormalizePhone accepts an E.164 number, "+" then 7 to 15 digits with no
// leading zero, allowing spaces, dots, hyphens and parentheses between the
// digits, and returns it as "+" and digits only.
func NormalizePhone(s string) (string, error) {
	bad := func(why string) (string, error) {
		return "", fmt.Errorf("%w: %q is not an E.164 phone number (like +14155550123): %s", ErrInvalidRequest, s, why)
	}
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "+") {
		return bad("it must start with + and the country code")
	}
	digits := make([]byte, 0, maxPhoneDigits)
	for _, r := range t[1:] {
		switch {
		case r >= '0' && r <= '9':
			if len(digits) == maxPhoneDigits {
				return bad("more than 15 digits")
			}
			digits = append(digits, byte(r))
		case r == ' ' || r == '.' || r == '-' || r == '(' || r == ')':
		default:
			return bad(fmt.Sprintf("unexpected character %q", r))
		}
	}
	if len(digits) < minPhoneDigits {
		return bad("fewer than 7 digits")
	}
	if digits[0] == '0' {
		return bad("country codes do not start with 0")
	}
	return "+" + string(digits), nil
}
