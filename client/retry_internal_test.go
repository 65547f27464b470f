package client

import (
	"net/http"
	"testing"
	"time"
)

// Each wait doubles from MinBackoff, between half and all of it, up to MaxBackoff; a Retry-After in seconds is taken
// as it is, up to MaxBackoff.
func TestBackoff(t *testing.T) {
	t.Parallel()
	p := RetryPolicy{MinBackoff: 100 * time.Millisecond, MaxBackoff: time.Second}
	for attempt, full := range map[int]time.Duration{1: 100 * time.Millisecond, 2: 200 * time.Millisecond,
		3: 400 * time.Millisecond, 4: 800 * time.Millisecond, 5: time.Second, 60: time.Second} {
		for range 100 {
			if d := p.backoff(attempt, nil); d < full/2 || d > full {
				t.Fatalf("attempt %d: waited %v, want between %v and %v", attempt, d, full/2, full)
			}
		}
	}
	after := func(v string) *http.Response { return &http.Response{Header: http.Header{"Retry-After": {v}}} }
	if d := p.backoff(1, after("0")); d != 0 {
		t.Errorf("Retry-After 0: %v", d)
	}
	if d := p.backoff(1, after("3600")); d != time.Second {
		t.Errorf("Retry-After an hour: %v, want MaxBackoff", d)
	}
	if d := p.backoff(1, after("Wed, 21 Oct 2015 07:28:00 GMT")); d < 50*time.Millisecond || d > 100*time.Millisecond {
		t.Errorf("a Retry-After date is not read: %v", d)
	}
	if d := (RetryPolicy{}).backoff(1, nil); d < 125*time.Millisecond || d > 250*time.Millisecond {
		t.Errorf("the default first wait: %v", d)
	}
}
