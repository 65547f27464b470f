package otp

import (
	"errors"
	"strings"
	"testing"
	"time"
)

var secret = []byte("0123456789abcdef0123456789abcdef")

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func TestGenerate(t *testing.T) {
	for _, tc := range []struct {
		length       int
		alphanumeric bool
		alphabet     string
	}{
		{6, true, CrockfordAlphabet}, {9, true, CrockfordAlphabet}, {6, false, DigitAlphabet}, {9, false, DigitAlphabet},
	} {
		seen := map[string]bool{}
		for range 200 {
			code, err := Generate(tc.length, tc.alphanumeric)
			if err != nil {
				t.Fatal(err)
			}
			if len(code) != tc.length || strings.Trim(code, tc.alphabet) != "" {
				t.Fatalf("code %q: want %d characters of %s", code, tc.length, tc.alphabet)
			}
			seen[code] = true
		}
		if len(seen) < 199 {
			t.Errorf("only %d distinct codes in 200", len(seen))
		}
	}
	for _, n := range []int{0, 5, 10, -1} {
		if _, err := Generate(n, true); !errors.Is(err, ErrInvalidRequest) {
			t.Errorf("length %d: err = %v", n, err)
		}
	}
	if strings.ContainsAny(CrockfordAlphabet, "ILOU") || len(CrockfordAlphabet) != 32 {
		t.Error("Crockford alphabet wrong")
	}
}

// cycleReader yields 0, 1, …, 255, 0, 1, … so every byte value is equally
// frequent, as it is from a perfect random source.
type cycleReader struct{ next byte }

func (c *cycleReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = c.next
		c.next++
	}
	return len(p), nil
}

// TestGenerateUniform: fed every byte value equally often, the generator
// yields every character exactly equally often. Reducing bytes modulo 10
// without rejection would give 0-5 one extra chance in 256 and fail here.
func TestGenerateUniform(t *testing.T) {
	for _, alphabet := range []string{DigitAlphabet, CrockfordAlphabet} {
		perChar := 256 / len(alphabet) * 4 // four full cycles of accepted bytes
		code, err := generate(&cycleReader{}, perChar*len(alphabet), alphabet)
		if err != nil {
			t.Fatal(err)
		}
		counts := map[rune]int{}
		for _, r := range code {
			counts[r]++
		}
		for _, r := range alphabet {
			if counts[r] != perChar {
				t.Errorf("alphabet %s: %q drawn %d times, want %d", alphabet, r, counts[r], perChar)
			}
		}
	}
}

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"7kq2m9xwz":     "7KQ2M9XWZ",
		" 7KQ-2M9-XWZ ": "7KQ2M9XWZ",
		"o1l1i1":        "011111",
		"123 456":       "123456",
		"uu":            "UU",
	} {
		if got := Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestHasher(t *testing.T) {
	h, err := NewHasher(secret)
	if err != nil {
		t.Fatal(err)
	}
	stored := h.Hash("otp-1", "7KQ2M9XWZ")
	for _, tc := range []struct {
		id, entry string
		want      bool
	}{
		{"otp-1", "7KQ2M9XWZ", true},
		{"otp-1", "7kq2-m9xwz", true},
		{"otp-1", "7KQ2M9XW", false},
		{"otp-1", "7KQ2M9XWY", false},
		{"otp-2", "7KQ2M9XWZ", false},
		{"otp-", "17KQ2M9XWZ", false}, // length prefix keeps id and code apart
	} {
		if got := h.Matches(tc.id, tc.entry, stored); got != tc.want {
			t.Errorf("Matches(%q, %q) = %v", tc.id, tc.entry, got)
		}
	}
	other, _ := NewHasher([]byte(strings.Repeat("x", 32)))
	if other.Matches("otp-1", "7KQ2M9XWZ", stored) {
		t.Error("a different secret matched")
	}
	if _, err := NewHasher(secret[:31]); err == nil {
		t.Error("short secret accepted")
	}
}

type clock struct{ now time.Time }

func (c *clock) Now() time.Time { return c.now }

func newManager(t *testing.T) (*Manager, *clock) {
	t.Helper()
	c := &clock{now: t0}
	m, err := NewManager(secret, DefaultLimits(), c.Now)
	if err != nil {
		t.Fatal(err)
	}
	return m, c
}

func emailRequest(id string) Request {
	return Request{ID: id, OrganizationID: "org-1", Type: TypeEmail, Contact: "User@Example.COM"}
}

func TestIssueDefaults(t *testing.T) {
	m, _ := newManager(t)
	rec, code, err := m.Issue(emailRequest("otp-1"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(code) != DefaultLength || strings.Trim(code, CrockfordAlphabet) != "" {
		t.Errorf("default code %q", code)
	}
	if rec.Contact != "User@example.com" || !rec.ExpiresAt.Equal(t0.Add(5*time.Minute)) || !rec.CreatedAt.Equal(t0) || rec.Attempts != 0 || rec.Used {
		t.Errorf("record %+v", rec)
	}
	if strings.Contains(string(rec.CodeHash), code) || len(rec.CodeHash) != 32 {
		t.Error("record must hold a 32-byte hash, not the code")
	}
	req := emailRequest("otp-2")
	req.Length, req.Numeric, req.TTL = 6, true, 10*time.Minute
	rec, code, err = m.Issue(req, nil)
	if err != nil || len(code) != 6 || strings.Trim(code, DigitAlphabet) != "" || !rec.ExpiresAt.Equal(t0.Add(10*time.Minute)) {
		t.Errorf("numeric 6: %q %+v %v", code, rec, err)
	}
}

func TestIssueRejects(t *testing.T) {
	m, _ := newManager(t)
	for name, mutate := range map[string]func(*Request){
		"ttl over max":   func(r *Request) { r.TTL = 601 * time.Second },
		"negative ttl":   func(r *Request) { r.TTL = -time.Second },
		"length 5":       func(r *Request) { r.Length = 5 },
		"length 10":      func(r *Request) { r.Length = 10 },
		"bad email":      func(r *Request) { r.Contact = "not-an-email" },
		"sms with email": func(r *Request) { r.Type = TypeSMS },
		"unknown type":   func(r *Request) { r.Type = "OTP_TYPE_PIGEON" },
		"no id":          func(r *Request) { r.ID = "" },
		"no org":         func(r *Request) { r.OrganizationID = "" },
	} {
		req := emailRequest("otp-1")
		mutate(&req)
		if _, _, err := m.Issue(req, nil); !errors.Is(err, ErrInvalidRequest) {
			t.Errorf("%s: err = %v", name, err)
		}
	}
	req := emailRequest("otp-1")
	req.TTL = 600 * time.Second
	if _, _, err := m.Issue(req, nil); err != nil {
		t.Errorf("600 s refused: %v", err)
	}
}

func TestLiveCodesPerContact(t *testing.T) {
	m, c := newManager(t)
	var stored []Record
	for i := range 3 {
		rec, _, err := m.Issue(emailRequest("otp-"+string(rune('a'+i))), stored)
		if err != nil {
			t.Fatalf("code %d: %v", i+1, err)
		}
		stored = append(stored, rec)
	}
	_, _, err := m.Issue(emailRequest("otp-d"), stored)
	if !errors.Is(err, ErrLimit) || !strings.HasPrefix(err.Error(), "Max number of OTPs have been initiated") {
		t.Fatalf("4th live code: err = %v", err)
	}
	// Case of the address does not get around the limit.
	req := emailRequest("otp-d")
	req.Contact = "user@example.com"
	if _, _, err := m.Issue(req, stored); !errors.Is(err, ErrLimit) {
		t.Errorf("case variant: err = %v", err)
	}
	// Other contacts, other organizations and other channels are separate.
	req.Contact = "other@example.com"
	if _, _, err := m.Issue(req, stored); err != nil {
		t.Errorf("other contact: %v", err)
	}
	req = emailRequest("otp-d")
	req.OrganizationID = "org-2"
	if _, _, err := m.Issue(req, stored); err != nil {
		t.Errorf("other organization: %v", err)
	}
	// A used code, a dead code and an expired code free their slots.
	stored[0].Used = true
	if _, _, err := m.Issue(emailRequest("otp-d"), stored); err != nil {
		t.Errorf("after one used: %v", err)
	}
	stored[0].Used = false
	stored[1].Attempts = 3
	if _, _, err := m.Issue(emailRequest("otp-d"), stored); err != nil {
		t.Errorf("after one dead: %v", err)
	}
	stored[1].Attempts = 0
	c.now = t0.Add(5 * time.Minute)
	if _, _, err := m.Issue(emailRequest("otp-d"), stored); err != nil {
		t.Errorf("after expiry: %v", err)
	}
}

func TestSMSRateLimit(t *testing.T) {
	m, c := newManager(t)
	sms := func(id, phone, user string) Request {
		return Request{ID: id, OrganizationID: "org-1", Type: TypeSMS, Contact: phone, UserIdentifier: user}
	}
	var stored []Record
	phones := []string{"+14155550101", "+14155550102", "+14155550103"}
	for i, p := range phones {
		c.now = t0.Add(time.Duration(i) * time.Minute)
		rec, _, err := m.Issue(sms("s"+p, p, "ip-hash-1"), stored)
		if err != nil {
			t.Fatal(err)
		}
		stored = append(stored, rec)
	}
	c.now = t0.Add(2*time.Minute + 30*time.Second)
	_, _, err := m.Issue(sms("s4", "+14155550104", "ip-hash-1"), stored)
	if !errors.Is(err, ErrRateLimited) || !strings.Contains(err.Error(), "try again in 30s") {
		t.Fatalf("4th SMS in 3 minutes: err = %v", err)
	}
	if _, _, err := m.Issue(sms("s4", "+14155550104", "ip-hash-2"), stored); err != nil {
		t.Errorf("other identifier: %v", err)
	}
	if _, _, err := m.Issue(sms("s4", "+14155550104", ""), stored); err != nil {
		t.Errorf("no identifier: %v", err)
	}
	c.now = t0.Add(3 * time.Minute)
	if _, _, err := m.Issue(sms("s4", "+14155550104", "ip-hash-1"), stored); err != nil {
		t.Errorf("after the first left the window: %v", err)
	}
}

func TestCheckStateMachine(t *testing.T) {
	m, c := newManager(t)
	rec, code, err := m.Issue(emailRequest("otp-1"), nil)
	if err != nil {
		t.Fatal(err)
	}
	wrong := "0000000000"[:len(code)]
	if wrong == code {
		wrong = "1111111111"[:len(code)]
	}

	// Two wrong entries, then the right one in lower case.
	for i, left := range []string{"2 attempt(s) left", "1 attempt(s) left"} {
		rec, err = m.Check(rec, wrong)
		if !errors.Is(err, ErrInvalidCode) || !strings.Contains(err.Error(), left) || rec.Attempts != i+1 {
			t.Fatalf("wrong entry %d: %+v %v", i+1, rec, err)
		}
	}
	rec, err = m.Check(rec, strings.ToLower(code))
	if err != nil || !rec.Used {
		t.Fatalf("right entry: %+v %v", rec, err)
	}
	if _, err := m.Check(rec, code); !errors.Is(err, ErrUsed) {
		t.Errorf("reuse: err = %v", err)
	}

	// Three wrong entries kill the code, even for the right one after.
	rec, code, _ = m.Issue(emailRequest("otp-2"), nil)
	for range 2 {
		rec, _ = m.Check(rec, wrong)
	}
	rec, err = m.Check(rec, wrong)
	if !errors.Is(err, ErrInvalidCode) || !strings.Contains(err.Error(), "no attempts left") {
		t.Fatalf("third wrong entry: %v", err)
	}
	after, err := m.Check(rec, code)
	if !errors.Is(err, ErrAttemptsExhausted) || after.Used || after.Attempts != 3 {
		t.Fatalf("right code after 3 wrong: %+v %v", after, err)
	}

	// Expiry is exclusive of the instant.
	rec, code, _ = m.Issue(emailRequest("otp-3"), nil)
	c.now = rec.ExpiresAt.Add(-time.Nanosecond)
	if _, err := m.Check(rec, code); err != nil {
		t.Errorf("just before expiry: %v", err)
	}
	c.now = rec.ExpiresAt
	if r, err := m.Check(rec, code); !errors.Is(err, ErrExpired) || r.Used {
		t.Errorf("at expiry: %+v %v", r, err)
	}
}

func TestParseExpirationSeconds(t *testing.T) {
	for in, want := range map[string]time.Duration{"": 0, "300": 300 * time.Second, "1": time.Second} {
		if got, err := ParseExpirationSeconds(in); err != nil || got != want {
			t.Errorf("%q: %v %v", in, got, err)
		}
	}
	for _, in := range []string{"0", "-5", "5m", "1.5", "99999999999999"} {
		if _, err := ParseExpirationSeconds(in); !errors.Is(err, ErrInvalidRequest) {
			t.Errorf("%q accepted", in)
		}
	}
}

func TestNewManagerRejectsBadLimits(t *testing.T) {
	l := DefaultLimits()
	l.MaxAttempts = 0
	if _, err := NewManager(secret, l, nil); err == nil {
		t.Error("MaxAttempts 0 accepted")
	}
	l = DefaultLimits()
	l.MaxTTL = time.Minute
	if _, err := NewManager(secret, l, nil); err == nil {
		t.Error("MaxTTL below DefaultTTL accepted")
	}
}
