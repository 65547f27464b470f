package otp

import "testing"

func BenchmarkGenerate(b *testing.B) {
	for b.Loop() {
		if _, err := Generate(DefaultLength, true); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGenerateAndHash is the CPU cost of INIT_OTP's code handling.
func BenchmarkGenerateAndHash(b *testing.B) {
	h, _ := NewHasher(secret)
	for b.Loop() {
		code, err := Generate(DefaultLength, true)
		if err != nil {
			b.Fatal(err)
		}
		_ = h.Hash("2f7a1c9e-0b4d-4e8a-9a52-5f0c2f6f8d11", code)
	}
}

func BenchmarkCheck(b *testing.B) {
	m, err := NewManager(secret, DefaultLimits(), nil)
	if err != nil {
		b.Fatal(err)
	}
	rec, code, err := m.Issue(Request{ID: "otp-1", OrganizationID: "org", Type: TypeEmail, Contact: "a@example.com"}, nil)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := m.Check(rec, code); err != nil {
			b.Fatal(err)
		}
	}
}
