package authproxy

import (
	"context"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// limiter is a set of token buckets by key (a configuration id, a client IP), on an injected clock so tests never
// sleep. Buckets idle long enough to have refilled are dropped, which bounds the memory an address scan can take.
type limiter struct {
	mu        sync.Mutex
	every     rate.Limit
	burst     int
	buckets   map[string]*bucket
	lastSweep time.Time
}

type bucket struct {
	l    *rate.Limiter
	seen time.Time
}

// newLimiter allows perSecond requests a second per key with bursts of burst; perSecond <= 0 allows everything.
func newLimiter(perSecond float64, burst int) *limiter {
	if burst < 1 {
		burst = 1
	}
	return &limiter{every: rate.Limit(perSecond), burst: burst, buckets: map[string]*bucket{}}
}

// allow takes a token for key at now. When none is left it reports how long until one is.
func (l *limiter) allow(key string, now time.Time) (bool, time.Duration) {
	if l == nil || l.every <= 0 {
		return true, 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sweep(now)
	b := l.buckets[key]
	if b == nil {
		b = &bucket{l: rate.NewLimiter(l.every, l.burst)}
		l.buckets[key] = b
	}
	b.seen = now
	r := b.l.ReserveN(now, 1)
	if delay := r.DelayFrom(now); delay > 0 {
		r.CancelAt(now)
		return false, delay
	}
	return true, 0
}

// sweep drops buckets that have refilled completely (idle longer than a full refill), at most once a refill time.
func (l *limiter) sweep(now time.Time) {
	full := time.Duration(float64(l.burst) / float64(l.every) * float64(time.Second))
	if now.Sub(l.lastSweep) < full {
		return
	}
	l.lastSweep = now
	for k, b := range l.buckets {
		if now.Sub(b.seen) >= full {
			delete(l.buckets, k)
		}
	}
}

// size is the number of live buckets (for tests).
func (l *limiter) size() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.buckets)
}

// TokenBuckets are token buckets shared by every process of a deployment (store.Store.TakeToken), so that several
// proxies over one database limit as one.
type TokenBuckets interface {
	TakeToken(ctx context.Context, bucket string, now time.Time, perSecond float64, burst int) (bool, time.Duration, error)
}

// rateLimiter takes a token for a key: from buckets in memory (one process) or shared ones.
type rateLimiter interface {
	take(ctx context.Context, key string, now time.Time) (bool, time.Duration, error)
}

func (l *limiter) take(_ context.Context, key string, now time.Time) (bool, time.Duration, error) {
	ok, wait := l.allow(key, now)
	return ok, wait, nil
}

// sharedLimiter is a limiter whose buckets are TokenBuckets, named kind:key.
type sharedLimiter struct {
	buckets   TokenBuckets
	kind      string
	perSecond float64
	burst     int
}

func (l *sharedLimiter) take(ctx context.Context, key string, now time.Time) (bool, time.Duration, error) {
	return l.buckets.TakeToken(ctx, "authproxy:"+l.kind+":"+key, now, l.perSecond, max(l.burst, 1))
}

// newRateLimiter keeps the buckets in shared when given, in memory otherwise.
func newRateLimiter(shared TokenBuckets, kind string, perSecond float64, burst int) rateLimiter {
	if shared == nil {
		return newLimiter(perSecond, burst)
	}
	return &sharedLimiter{buckets: shared, kind: kind, perSecond: perSecond, burst: burst}
}
