package store

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

var errClosed = errors.New("store: closed")

// maxGroup bounds how many write transactions share one commit, so that one commit's latency stays bounded.
const maxGroup = 64

// syncQueue bounds how many committed groups may wait for their sync while the writer goes on with the next ones.
const syncQueue = 16

// groupCommitter runs SQLite write transactions that arrive together as one database transaction, each in a savepoint
// of its own, and makes them durable with one commit and one sync of the WAL for the group instead of one each. SQLite
// has one writer, and the sync, not the statements, is what a commit mostly costs, so under concurrent load this is
// what lets the writer keep up.
//
// The commit and the sync are pipelined: once a group's COMMIT has returned, the group waits for its sync on the
// syncer's goroutine (durable.go) while the writer already runs the next group, whose transactions run as they
// arrive, in one open transaction, until the syncer is idle; then the group commits and goes to the syncer in turn.
// So under load the statements run while the disk syncs, and a group holds everything that arrived during a sync.
//
// A write that finds the committer idle (no group being run, every commit synced) does not wait for the two
// goroutines: its caller runs the group itself, its transaction, its commit and its sync (runAlone), as one client at
// a time does every write. The two goroutines take over as soon as writes overlap; a turn and a syncing token keep one
// group at a time on the connection and one sync at a time on the log, whoever runs them.
//
// Each caller still sees its own transaction: it runs alone (one after the other, on the one connection), a failure
// undoes only its own writes (ROLLBACK TO its savepoint), and Write returns only after the sync that made its commit
// durable, or with the commit's or the sync's error. Callers are answered in the order their groups ran, failed ones
// too, so that no answer reflects a commit that is not yet durable. A group is whatever arrived while the previous
// ones were being synced: it commits as soon as the syncer is idle, without waiting for more. A wait for more (as
// PostgreSQL's commit_delay) was measured to cost a third of the rate with four clients and to gain nothing with 8 or
// 32 (docs/BENCHMARKS.md): the sync under way already gathers what arrives meanwhile.
type groupCommitter struct {
	s           *Store
	reqs        chan *writeRequest
	handed      chan *writeRequest // a request the writer took while a caller held the turn, for that caller's group
	toSync      chan committed     // groups whose transaction has ended, in the order they ran
	quit        chan struct{}
	stopped     chan struct{}
	syncStopped chan struct{}
	inflight    atomic.Int64  // groups committed and not yet synced
	idle        chan struct{} // every group committed so far is synced
	turn        token         // held by whoever runs a group on the connection: the writer, or a caller (runAlone)
	syncing     token         // held by whoever syncs: the syncer, or a caller (runAlone)
	once        sync.Once
	commits     atomic.Int64 // transactions committed or rolled back, for tests
}

// committed is a group whose transaction has ended, waiting for the sync that makes its commit durable before its
// callers are answered.
type committed struct {
	group []*writeRequest
	errs  []error
	seq   int64 // the number of its commit (durability.begin); 0 when it made none
}

type writeRequest struct {
	ctx  context.Context
	fn   func(*Tx) error
	done chan error
}

// panicked carries a panic in a caller's function back to the caller's goroutine.
type panicked struct{ value any }

func (p panicked) Error() string { return fmt.Sprint("store: write function panicked: ", p.value) }

func newGroupCommitter(s *Store) *groupCommitter {
	g := &groupCommitter{s: s, reqs: make(chan *writeRequest), handed: make(chan *writeRequest, 1),
		toSync: make(chan committed, syncQueue), quit: make(chan struct{}), stopped: make(chan struct{}),
		syncStopped: make(chan struct{}), idle: make(chan struct{}, 1), turn: make(token, 1), syncing: make(token, 1)}
	go g.loop()
	go g.syncLoop()
	return g
}

// write hands fn to the committer and waits for the commit that covers it.
func (g *groupCommitter) write(ctx context.Context, fn func(*Tx) error) error {
	if errp := g.s.durable.failed.Load(); errp != nil {
		return *errp
	}
	r := &writeRequest{ctx: ctx, fn: fn, done: make(chan error, 1)}
	if !g.runAlone(r) {
		select {
		case g.reqs <- r:
		case <-ctx.Done():
			return ctx.Err()
		case <-g.quit:
			return errClosed
		}
	}
	err := <-r.done
	if p, ok := err.(panicked); ok {
		panic(p.value)
	}
	return err
}

// runAlone runs r's group on the caller's goroutine, its commit and then its sync, when the committer is idle: no
// group is being run and every commit is synced. It reports whether it did; if not, the writer is to run r. With one
// client at a time this is every write, and it saves the three hand-offs between goroutines (to the writer, to the
// syncer, back to the caller), each a wake-up of a parked goroutine and often of an idle core's thread
// (docs/BENCHMARKS.md). It starts no writeback of the frames (durable.go): the sync follows at once on the same
// thread, and the call would only add its own cost. Writes that arrive meanwhile wait for the writer's next group,
// or join this one if they are waiting when its transaction ends, as they would on the writer.
func (g *groupCommitter) runAlone(r *writeRequest) bool {
	if g.inflight.Load() != 0 || !g.turn.tryTake() {
		return false
	}
	if g.inflight.Load() != 0 || isClosed(g.quit) {
		g.turn.give()
		return false
	}
	c := g.commit(r)
	// Counted before the turn is given up, so that the writer's next group commits once this one is synced; and the
	// sync taken first, so that the syncs stay in the order of the commits.
	g.inflight.Add(1)
	g.syncing.take()
	g.turn.give()
	g.commits.Add(1)
	g.finish([]committed{c})
	g.syncing.give()
	return true
}

// token is a lock held by one goroutine at a time, a channel so that a goroutine waiting for it is seen as blocked
// (as testing/synctest needs to tell that every goroutine waits).
type token chan struct{}

func (t token) take() { t <- struct{}{} }
func (t token) give() { <-t }

func (t token) tryTake() bool {
	select {
	case t <- struct{}{}:
		return true
	default:
		return false
	}
}

func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// stop ends the loop and returns once the groups committed, if any, are synced and answered.
func (g *groupCommitter) stop() {
	g.once.Do(func() { close(g.quit) })
	<-g.stopped
}

func (g *groupCommitter) loop() {
	defer close(g.stopped)
	for {
		var first *writeRequest
		select {
		case first = <-g.reqs:
		case <-g.quit:
			g.turn.take() // no caller runs a group from now on (runAlone), and none is still committing one
			close(g.toSync)
			<-g.syncStopped
			g.syncing.take() // nor syncing one
			return
		}
		if !g.turn.tryTake() {
			// A caller is running a group (runAlone): first joins it if it is still taking members, and is
			// otherwise the start of the next group, once the turn is free.
			g.handed <- first
			g.turn.take()
			select {
			case first = <-g.handed:
			default: // it joined the caller's group
				g.turn.give()
				continue
			}
		}
		c := g.commit(first)
		if c.seq > 0 {
			g.s.durable.startWriteback()
		}
		g.inflight.Add(1)
		g.turn.give()
		g.toSync <- c
		g.commits.Add(1)
	}
}

// syncLoop makes the committed groups durable, all those waiting with one sync, and answers their callers.
func (g *groupCommitter) syncLoop() {
	defer close(g.syncStopped)
	var batch []committed
	for c := range g.toSync {
		batch = append(batch[:0], c)
		for more := true; more; {
			select {
			case c, ok := <-g.toSync:
				if more = ok; ok {
					batch = append(batch, c)
				}
			default:
				more = false
			}
		}
		g.syncing.take()
		g.finish(batch)
		g.syncing.give()
		// To the back of the run queue before the next sync, which holds its P (durable.go): the callers just
		// answered, and the requests whose cryptography is under way, run first. Parked on the channel instead, the
		// syncer is woken by the next group's commit into that P's next slot, ahead of them all: with eight clients
		// the answered callers then waited for a core 0.89-1.12 ms at p90 instead of 0.62-0.78 ms, and the rate was
		// lower (docs/BENCHMARKS.md). Under no load nothing is waiting, and this returns at once.
		runtime.Gosched()
	}
}

// finish makes the committed groups durable with one sync and answers their callers. The caller holds syncing.
func (g *groupCommitter) finish(batch []committed) {
	var upTo int64
	for _, c := range batch {
		upTo = max(upTo, c.seq)
	}
	var syncErr error
	if upTo > 0 {
		start := time.Now()
		syncErr = g.s.durable.sync(upTo)
		g.s.metrics.Sync(time.Since(start))
	}
	// Idle before the callers hear: a caller's next write must find the syncer idle and commit at once.
	g.inflight.Add(-int64(len(batch)))
	select {
	case g.idle <- struct{}{}:
	default:
	}
	for _, c := range batch {
		for i, r := range c.group {
			if c.errs[i] == nil && c.seq > 0 {
				c.errs[i] = syncErr
			}
			r.done <- c.errs[i]
		}
	}
}

// commit runs a group in one transaction, beginning with first, and returns what each caller is to be answered once
// it is durable. Transactions join the group as they arrive and run at once, while the previous groups are synced:
// committing sooner would not answer anyone sooner, as their sync waits for the one under way, and a larger group
// costs less per transaction. Once the syncer is idle the group commits.
func (g *groupCommitter) commit(first *writeRequest) committed {
	before := g.s.durable.begun.Load()
	// first is a member from the start, so that it is answered even when the transaction cannot begin.
	c := committed{group: []*writeRequest{first}, errs: []error{nil}}
	err := g.s.writeTx(context.Background(), func() int { return len(c.group) }, func(tx *Tx) error {
		err := first.ctx.Err() // the caller has given up: run nothing for it
		if err == nil {
			own := *tx // a Tx of its own: a function may change its Tx (migrations turn statement caching off)
			err = callRecovering(first.fn, &own)
		}
		if c.errs[0] = err; err != nil {
			return err // alone so far, and without a savepoint: the transaction is rolled back
		}
		for len(c.group) < maxGroup {
			r := g.next()
			if r == nil {
				return nil
			}
			c.group = append(c.group, r)
			if err := r.ctx.Err(); err != nil {
				c.errs = append(c.errs, err) // the caller has given up; run nothing for it
				continue
			}
			member := *tx // a Tx of its own: a function may change its Tx (migrations turn statement caching off)
			err, abort := runInSavepoint(r.ctx, &member, r.fn)
			c.errs = append(c.errs, err)
			if abort != nil {
				return abort
			}
		}
		return nil
	})
	for i := range c.errs {
		if c.errs[i] == nil {
			c.errs[i] = err
		}
	}
	if after := g.s.durable.begun.Load(); after > before { // only this goroutine begins commits
		c.seq = after
	}
	return c
}

// next is the next transaction to join the group being built; nil when the group should commit now: nothing is
// waiting and the syncer is idle.
func (g *groupCommitter) next() *writeRequest {
	for {
		select {
		case r := <-g.reqs:
			return r
		case r := <-g.handed:
			return r
		default:
		}
		select { // a signal from a sync that ended before this check is stale
		case <-g.idle:
		default:
		}
		if g.inflight.Load() == 0 {
			return nil
		}
		select {
		case r := <-g.reqs:
			return r
		case r := <-g.handed:
			return r
		case <-g.idle:
		}
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
