package webhook

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestBackoff(t *testing.T) {
	t.Parallel()
	b := Backoff{Base: time.Second, Cap: 10 * time.Second, MaxAttempts: 5}
	var got []time.Duration
	for n := 1; n <= 6; n++ {
		got = append(got, b.Ceiling(n))
	}
	if fmt.Sprint(got) != "[1s 2s 4s 8s 10s 10s]" {
		t.Fatalf("ceilings %v", got)
	}
	if c := b.Ceiling(1 << 20); c != 10*time.Second {
		t.Fatalf("a huge attempt number: %s", c)
	}
	if c := (Backoff{}).Ceiling(1); c != 10*time.Second {
		t.Fatalf("default base %s", c)
	}
	if c := (Backoff{}).Ceiling(100); c != time.Hour {
		t.Fatalf("default cap %s", c)
	}
	// Full jitter: anywhere in [0, ceiling], never beyond.
	for range 1000 {
		if d := b.Delay(3, nil); d < 0 || d > 4*time.Second {
			t.Fatalf("delay %s outside [0, 4s]", d)
		}
	}
	if d := b.Delay(3, func(max time.Duration) time.Duration { return 2 * max }); d != 4*time.Second {
		t.Fatalf("a jitter beyond the ceiling is clamped: %s", d)
	}
	if d := b.Delay(3, func(time.Duration) time.Duration { return -time.Second }); d != 0 {
		t.Fatalf("a negative jitter is clamped: %s", d)
	}
	seen := map[time.Duration]bool{}
	for range 200 {
		seen[b.Delay(4, nil)] = true
	}
	if len(seen) < 100 {
		t.Fatalf("only %d distinct delays out of 200: not random", len(seen))
	}
}

func TestDefaultRetry(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		scheme string
		status int
		retry  bool
	}{
		{"", 0, true}, {SchemeTurnkey, 0, true}, {SchemeTurnkey, 500, true}, {SchemeTurnkey, 503, true},
		{SchemeTurnkey, 302, false}, {SchemeTurnkey, 400, false}, {SchemeTurnkey, 404, false}, {SchemeTurnkey, 429, false},
		{SchemeHMAC, 0, true}, {SchemeHMAC, 404, true}, {SchemeHMAC, 429, true}, {SchemeHMAC, 500, true},
	} {
		if got := DefaultRetry(Delivery{Scheme: c.scheme}, c.status); got != c.retry {
			t.Errorf("DefaultRetry(%q, %d) = %v", c.scheme, c.status, got)
		}
	}
}

// countingReader serves an endless body and counts what was read of it.
type countingReader struct{ n int }

func (r *countingReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'z'
	}
	r.n += len(p)
	return len(p), nil
}

func TestReadLimited(t *testing.T) {
	t.Parallel()
	r := &countingReader{}
	b, err := readLimited(r, ResponseBodyLimit)
	if err != nil || len(b) != ResponseBodyLimit || r.n > ResponseBodyLimit {
		t.Fatalf("read %d bytes, kept %d (%v); limit %d", r.n, len(b), err, ResponseBodyLimit)
	}
	b, _ = readLimited(strings.NewReader("short"), ResponseBodyLimit)
	if string(b) != "short" {
		t.Fatal(string(b))
	}
}

func TestSnippet(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"":                                 "",
		"  \r\n ":                          "",
		"ok":                               "ok",
		"line one\r\n\tline two  ":         "line one line two",
		"nul\x00byte\x1b[31mred":           "nul byte [31mred",
		"bad \xff utf8":                    "bad \uFFFD utf8",
		"<html>\n<body>Bad gateway</body>": "<html> <body>Bad gateway</body>",
	} {
		if got := snippet([]byte(in), 100); got != want {
			t.Errorf("snippet(%q) = %q, want %q", in, got, want)
		}
	}
	long := strings.Repeat("é", 300) // 600 bytes
	got := snippet([]byte(long), ReasonLimit)
	if !utf8.ValidString(got) || !strings.HasSuffix(got, "…") || len(got) > ReasonLimit+len("…") || len(got) < ReasonLimit-2 {
		t.Fatalf("cut %q (%d bytes)", got, len(got))
	}
	if got := snippet([]byte(strings.Repeat("a", ReasonLimit)), ReasonLimit); len(got) != ReasonLimit || strings.HasSuffix(got, "…") {
		t.Fatalf("exactly the limit must not be cut: %d bytes", len(got))
	}
}

func TestGroupBySubject(t *testing.T) {
	t.Parallel()
	ds := []Delivery{
		{ID: "1", EndpointID: "e1", Subject: "s"}, {ID: "2"}, {ID: "3", EndpointID: "e2", Subject: "s"},
		{ID: "4", EndpointID: "e1", Subject: "s"}, {ID: "5"}, {ID: "6", EndpointID: "e1", Subject: "t"},
	}
	var out []string
	for _, g := range groupBySubject(ds) {
		var ids []string
		for _, d := range g {
			ids = append(ids, d.ID)
		}
		out = append(out, strings.Join(ids, ","))
	}
	if fmt.Sprint(out) != "[1,4 2 3 5 6]" {
		t.Fatalf("groups %v", out)
	}
}
