package yield

import (
	"sync"
	"time"
)

// limiter counts requests per API key in fixed windows (60 seconds by default), as the reference's
// x-ratelimit-* headers describe them.
type limiter struct {
	limit  int
	window time.Duration

	mu      sync.Mutex
	windows map[string]*window
}

type window struct {
	start time.Time
	count int
}

func newLimiter(limit int, w time.Duration) *limiter {
	return &limiter{limit: limit, window: w, windows: map[string]*window{}}
}

// verdict is the outcome of one request: whether it may go on, and the header values.
type verdict struct {
	allowed    bool
	limit      int
	remaining  int
	reset      time.Time // end of the current window
	retryAfter int       // seconds, when not allowed
}

// take counts one request of key at now.
func (l *limiter) take(key string, now time.Time) verdict {
	l.mu.Lock()
	defer l.mu.Unlock()
	w := l.windows[key]
	if w == nil || !now.Before(w.start.Add(l.window)) {
		if len(l.windows) > 10_000 {
			l.prune(now)
		}
		w = &window{start: now.Truncate(l.window)}
		l.windows[key] = w
	}
	reset := w.start.Add(l.window)
	if w.count >= l.limit {
		retry := int((reset.Sub(now) + time.Second - 1) / time.Second)
		return verdict{limit: l.limit, reset: reset, retryAfter: max(retry, 1)}
	}
	w.count++
	return verdict{allowed: true, limit: l.limit, remaining: l.limit - w.count, reset: reset}
}

// prune drops the windows that have ended, so the map does not grow with keys that stopped calling.
func (l *limiter) prune(now time.Time) {
	for k, w := range l.windows {
		if !now.Before(w.start.Add(l.window)) {
			delete(l.windows, k)
		}
	}
}
