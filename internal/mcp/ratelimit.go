package mcp

import (
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/time/rate"
)

// sessionLimits is the per-session rate limit of tool calls: a token bucket for each session, dropped when the
// session ends, so that one agent's loop neither starves another session nor spends the user's velocity controls at
// machine speed.
type sessionLimits struct {
	perMinute, burst int
	now              func() time.Time

	mu       sync.Mutex
	sessions map[*mcp.ServerSession]*rate.Limiter
}

func newSessionLimits(perMinute, burst int, now func() time.Time) *sessionLimits {
	if burst <= 0 {
		burst = max(1, perMinute/4)
	}
	return &sessionLimits{perMinute: perMinute, burst: burst, now: now, sessions: map[*mcp.ServerSession]*rate.Limiter{}}
}

// allow takes a token of the session's bucket; when there is none it says how long until there is one.
func (l *sessionLimits) allow(ss *mcp.ServerSession) (time.Duration, bool) {
	l.mu.Lock()
	lim, ok := l.sessions[ss]
	if !ok {
		lim = rate.NewLimiter(rate.Limit(float64(l.perMinute)/60), l.burst)
		l.sessions[ss] = lim
		if ss != nil {
			go l.forget(ss)
		}
	}
	l.mu.Unlock()
	now := l.now()
	r := lim.ReserveN(now, 1)
	if wait := r.DelayFrom(now); wait > 0 {
		r.CancelAt(now)
		return wait, false
	}
	return 0, true
}

// forget drops a session's bucket once the session has ended.
func (l *sessionLimits) forget(ss *mcp.ServerSession) {
	_ = ss.Wait()
	l.mu.Lock()
	delete(l.sessions, ss)
	l.mu.Unlock()
}
