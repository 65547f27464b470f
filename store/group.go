package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

var errClosed = errors.New("store: closed")

// maxGroup bounds how many write transactions share one commit, so that one commit's latency stays bounded.
const maxGroup = 64

// commitDelay is how long the committer may wait for more transactions before it commits a group, when they arrive
// closer together than that. A commit's cost is mostly fixed — the WAL's fsync, the writes of the pages every
// transaction touches (the table's last page, its indexes', the header) — so under concurrent load a short wait lets
// more transactions share it: measured at the signing benchmark's peak, a tenth less CPU per activity and a higher peak
// rate. A transaction that arrives after a pause of several times the delay is committed at once, so a lone writer
// never waits. PostgreSQL's commit_delay is the same idea.
const commitDelay = 600 * time.Microsecond

// groupCommitter runs SQLite write transactions that arrive together as one database transaction, each in a savepoint
// of its own, and makes them durable with one commit: one WAL flush and one fsync for the group instead of one each.
// SQLite has one writer, and with synchronous=FULL the flush, not the statements, is what a commit mostly costs, so
// under concurrent load this is what lets the writer keep up.
//
// Each caller still sees its own transaction: it runs alone (one after the other, on the one connection), a failure
// undoes only its own writes (ROLLBACK TO its savepoint), and Write returns only after the commit that made its writes
// durable, or with that commit's error. A group is whatever arrived while the previous one was being committed and,
// when transactions arrive closer together than commitDelay, during a wait of at most that long.
type groupCommitter struct {
	s       *Store
	reqs    chan *writeRequest
	quit    chan struct{}
	stopped chan struct{}
	once    sync.Once
	commits atomic.Int64 // transactions committed or rolled back, for tests
	waits   atomic.Int64 // groups that waited for more transactions, for tests
	delay   atomic.Int64 // commitDelay; tests change it
}

type writeRequest struct {
	ctx  context.Context
	fn   func(*Tx) error
	done chan error
	at   time.Time // when the caller asked
}

// arrivals follows how far apart write transactions arrive.
type arrivals struct {
	latest  time.Time
	gap     time.Duration // the mean gap between arrivals, weighted towards the recent ones
	lastGap time.Duration // the gap before the latest
	n       int
}

// add counts a transaction that arrived at t. Concurrent callers are received in about the order they asked; one
// received after a later one counts as no gap.
func (a *arrivals) add(t time.Time) {
	a.n++
	if a.n == 1 {
		a.latest = t
		return
	}
	a.lastGap = max(t.Sub(a.latest), 0)
	if a.n == 2 {
		a.gap = a.lastGap
	} else {
		a.gap += (a.lastGap - a.gap) / 8
	}
	if t.After(a.latest) {
		a.latest = t
	}
}

// expect reports whether another transaction is likely within d: they have been arriving closer together than d, and
// the latest did not come after a pause (a gap of several times d, which at such a rate is rare but for a writer that
// has been alone).
func (a *arrivals) expect(d time.Duration) bool {
	return a.n > 2 && a.gap < d && a.lastGap < 4*d
}

// panicked carries a panic in a caller's function back to the caller's goroutine.
type panicked struct{ value any }

func (p panicked) Error() string { return fmt.Sprint("store: write function panicked: ", p.value) }

func newGroupCommitter(s *Store) *groupCommitter {
	g := &groupCommitter{s: s, reqs: make(chan *writeRequest), quit: make(chan struct{}), stopped: make(chan struct{})}
	g.delay.Store(int64(commitDelay))
	go g.loop()
	return g
}

// write hands fn to the committer and waits for the commit that covers it.
func (g *groupCommitter) write(ctx context.Context, fn func(*Tx) error) error {
	r := &writeRequest{ctx: ctx, fn: fn, done: make(chan error, 1), at: time.Now()}
	select {
	case g.reqs <- r:
	case <-ctx.Done():
		return ctx.Err()
	case <-g.quit:
		return errClosed
	}
	err := <-r.done
	if p, ok := err.(panicked); ok {
		panic(p.value)
	}
	return err
}

// stop ends the loop and returns once the group being committed, if any, is answered.
func (g *groupCommitter) stop() {
	g.once.Do(func() { close(g.quit) })
	<-g.stopped
}

func (g *groupCommitter) loop() {
	defer close(g.stopped)
	var group []*writeRequest
	var seen arrivals
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		select {
		case first := <-g.reqs:
			group = append(group[:0], first)
		case <-g.quit:
			return
		}
		seen.add(group[0].at)
		group = g.gather(group, nil, &seen)
		if delay := time.Duration(g.delay.Load()); len(group) < maxGroup && seen.expect(delay) {
			g.waits.Add(1)
			timer.Reset(delay)
			group = g.gather(group, timer.C, &seen)
			timer.Stop()
		}
		g.commit(group)
		g.commits.Add(1)
	}
}

// gather adds to group the transactions waiting to be committed and, until wait fires (never when nil), those that
// arrive meanwhile.
func (g *groupCommitter) gather(group []*writeRequest, wait <-chan time.Time, seen *arrivals) []*writeRequest {
	for len(group) < maxGroup {
		select {
		case r := <-g.reqs:
			seen.add(r.at)
			group = append(group, r)
			continue
		default:
		}
		if wait == nil {
			return group
		}
		select {
		case r := <-g.reqs:
			seen.add(r.at)
			group = append(group, r)
		case <-wait:
			return group
		}
	}
	return group
}

// commit runs a group in one transaction and answers every caller.
func (g *groupCommitter) commit(group []*writeRequest) {
	if len(group) == 1 { // its own transaction: no savepoint to pay for
		r := group[0]
		r.done <- g.s.writeTx(r.ctx, 1, func(tx *Tx) error { return callRecovering(r.fn, tx) })
		return
	}
	errs := make([]error, len(group))
	err := g.s.writeTx(context.Background(), len(group), func(tx *Tx) error {
		for i, r := range group {
			if errs[i] = r.ctx.Err(); errs[i] != nil {
				continue // the caller has given up; run nothing for it
			}
			var abort error
			member := *tx // a Tx of its own: a function may change its Tx (migrations turn statement caching off)
			errs[i], abort = runInSavepoint(r.ctx, &member, r.fn)
			if abort != nil {
				return abort
			}
		}
		return nil
	})
	for i, r := range group {
		if errs[i] == nil {
			errs[i] = err
		}
		r.done <- errs[i]
	}
}

// runInSavepoint runs one caller's function in a savepoint, undoing its writes when it fails. The second result is an
// error that leaves the transaction unusable for the rest of the group.
func runInSavepoint(ctx context.Context, tx *Tx, fn func(*Tx) error) (err error, abort error) {
	const name = "group_member"
	if err := tx.Savepoint(ctx, name); err != nil {
		return err, err
	}
	err = callRecovering(fn, tx)
	if err != nil {
		if rbErr := tx.RollbackTo(ctx, name); rbErr != nil {
			return err, rbErr
		}
	}
	if _, relErr := tx.exec(ctx, "RELEASE SAVEPOINT "+name); relErr != nil {
		return err, relErr
	}
	return err, nil
}

func callRecovering(fn func(*Tx) error, tx *Tx) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = panicked{v}
		}
	}()
	return fn(tx)
}
