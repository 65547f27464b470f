package token

import "testing"

func BenchmarkIssueVerificationToken(b *testing.B) {
	key, c := testKey(b, "token"), sampleVerification(b)
	for b.Loop() {
		if _, err := IssueVerificationToken(key, c); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkVerifyVerificationToken(b *testing.B) {
	key := testKey(b, "token")
	tok, err := IssueVerificationToken(key, sampleVerification(b))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := VerifyVerificationToken(tok, &key.PublicKey, t0); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkIssueSession(b *testing.B) {
	key, c := testKey(b, "token"), sampleSession(b)
	for b.Loop() {
		if _, err := IssueSession(key, c); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkVerifySession(b *testing.B) {
	key := testKey(b, "token")
	tok, err := IssueSession(key, sampleSession(b))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := VerifySession(tok, &key.PublicKey, t0); err != nil {
			b.Fatal(err)
		}
	}
}
