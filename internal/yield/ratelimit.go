package yield

import (
	"context"
	"sync"
	"time"
)

// limiter counts requests per API key in fixed windows (60 seconds by default), as the reference's
// x-ratelimit-* headers describe them.
type limiter struct {
	limit  int
	window time.Duration
	// shared counts in the database instead, so that every process serving it counts one window (PostgreSQL).
	shared RequestCounter

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

// RequestCounter counts requests in fixed windows shared by every process (store.Store.CountRequest).
type RequestCounter interface {
	CountRequest(ctx context.Context, bucket string, windowStart time.Time) (int, error)
}

// takeShared counts one request of key at now, in the database when the limiter is shared.
func (l *limiter) takeShared(ctx context.Context, key string, now time.Time) (verdict, error) {
	if l.shared == nil {
		return l.take(key, now), nil
	}
	start := now.Truncate(l.window)
	n, err := l.shared.CountRequest(ctx, "yield:"+key, start)
	if err != nil {
		return verdict{}, err
	}
	reset := start.Add(l.window)
	if n > l.limit {
		retry := int((reset.Sub(now) + time.Second - 1) / time.Second)
		return verdict{limit: l.limit, reset: reset, retryAfter: max(retry, 1)}, nil
	}
	return verdict{allowed: true, limit: l.limit, remaining: l.limit - n, reset: reset}, nil
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
