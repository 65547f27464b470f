package otp

import (
	"errors"
	"strings"
	"testing"
)

func TestNormalizeEmail(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"user@example.com", "user@example.com"},
		{"  User.Name+tag@Sub.Example.COM ", "User.Name+tag@sub.example.com"},
		{"a~b?c@example.com", "a~b?c@example.com"},
		{"x@xn--bcher-kva.example", "x@xn--bcher-kva.example"},
	} {
		got, err := NormalizeEmail(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("NormalizeEmail(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{
		"", "plain", "@example.com", "user@", "user@localhost", "user@example", "user@exa mple.com",
		"Name <user@example.com>", "<user@example.com>", `"quoted"@example.com`, "user@[127.0.0.1]",
		"user@-example.com", "user@example-.com", "user@example..com", "user@example.123",
		"user@exam_ple.com", "üser@example.com", "user@bücher.example", "a@b@example.com",
		"user@example.com\r\nBcc: victim@example.com", "user@example.com (comment)",
		strings.Repeat("a", 65) + "@example.com", "a@" + strings.Repeat("b", 64) + ".com",
		"a@" + strings.Repeat("b.", 130) + "com",
	} {
		if got, err := NormalizeEmail(in); !errors.Is(err, ErrInvalidRequest) {
			t.Errorf("NormalizeEmail(%q) = %q, accepted", in, got)
		}
	}
}

func TestNormalizePhone(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"+14155550123", "+14155550123"},
		{" +1 (415) 555-0123 ", "+14155550123"},
		{"+44.20.7946.0958", "+442079460958"},
		{"+6834002", "+6834002"},                 // 7 digits: Niue
		{"+123456789012345", "+123456789012345"}, // 15 digits
	} {
		got, err := NormalizePhone(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("NormalizePhone(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{
		"", "14155550123", "+", "+683400", "+1234567890123456", "+04155550123", "+1415555O123",
		"+1-415-555-0123 ext 5", "++14155550123", "+1\n4155550123",
	} {
		if got, err := NormalizePhone(in); !errors.Is(err, ErrInvalidRequest) {
			t.Errorf("NormalizePhone(%q) = %q, accepted", in, got)
		}
	}
}

func FuzzNormalizeContact(f *testing.F) {
	for _, s := range []string{"user@example.com", "+14155550123", "a@b.c", "+1 (2) 3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if e, err := NormalizeEmail(s); err == nil {
			if again, err := NormalizeEmail(e); err != nil || again != e {
				t.Fatalf("email %q -> %q not stable: %q %v", s, e, again, err)
			}
			if strings.ContainsAny(e, "\r\n <>,;") {
				t.Fatalf("email %q has header-breaking characters", e)
			}
		}
		if p, err := NormalizePhone(s); err == nil {
			if again, err := NormalizePhone(p); err != nil || again != p {
				t.Fatalf("phone %q -> %q not stable", s, p)
			}
			if len(p) < 8 || len(p) > 16 || strings.Trim(p[1:], "0123456789") != "" {
				t.Fatalf("phone %q -> %q", s, p)
			}
		}
	})
}
