package store

import (
	"context"
	"database/sql"
	"sync"
	"sync/atomic"
	"time"
)

const (
	// checkpointInterval is how often, at most, the WAL is copied into the database file while writes go on.
	checkpointInterval = 100 * time.Millisecond
	// restartFrames is how large the WAL may grow, in pages, before the writer starts it over: 4 MiB of 4 KiB pages.
	// A WAL that starts over is written over in place, and syncing a write over allocated blocks costs the kernel about
	// half what syncing one that grows the file does, in CPU and in latency.
	restartFrames = 1024
	// catchUpFrames is how few pages a background checkpoint must have found new before the writer is asked to finish:
	// the writer's own checkpoint, which every write waits for, then copies only the last few commits.
	catchUpFrames = 64
	// maxCatchUps bounds the back-to-back checkpoints of one catch-up, so that writes faster than the copying cannot
	// keep the checkpointer from ever asking the writer to finish.
	maxCatchUps = 8
)

// checkpointer copies SQLite's write-ahead log back into the database file off the commit path. Left to itself,
// SQLite checkpoints inside whichever commit takes the WAL past 1000 pages: that commit then copies the pages and
// fsyncs the database file (milliseconds, ten or more on a busy disk) before it returns, and so does every caller of
// its group. Here commits only append to the WAL, and checkpointing is in two steps:
//
//  1. In the background, on a connection of its own, at most every checkpointInterval when there have been commits,
//     a PASSIVE checkpoint copies the WAL into the database file: all the copying, done while writes go on. Once the
//     WAL is past restartFrames, it catches up: it checkpoints again, back to back, until one finds fewer than
//     catchUpFrames new pages, and then asks the writer to finish.
//  2. The writer, before its next transaction, checkpoints the few frames committed since (finish). With the WAL then
//     wholly copied, that transaction starts the WAL over from its beginning: only a writer that begins with nothing
//     left to copy can, so without this step the WAL would grow for as long as writes never pause. Finishing costs
//     the writer one fsync of the database file, and all writes wait for it; catching up first keeps what it copies
//     small.
//
// Starting over often keeps the WAL a few MiB long and written over in place. Both checkpoints are PASSIVE, like
// SQLite's own: they copy only what no reader still needs and never wait for a reader or a writer. Durability is
// unchanged: a commit is durable once its WAL frames are synced.
type checkpointer struct {
	db      *sql.DB // the background connection
	nudges  chan struct{}
	full    atomic.Bool // a background checkpoint copied a WAL past restartFrames; the writer should finish
	quit    chan struct{}
	stopped chan struct{}
	once    sync.Once

	interval      atomic.Int64 // checkpointInterval; tests shorten it
	restartFrames atomic.Int64 // restartFrames; tests lower it
	finishes      atomic.Int64 // checkpoints finished by the writer, for tests
}

func newCheckpointer(db *sql.DB) *checkpointer {
	c := &checkpointer{db: db, nudges: make(chan struct{}, 1), quit: make(chan struct{}), stopped: make(chan struct{})}
	c.interval.Store(int64(checkpointInterval))
	c.restartFrames.Store(restartFrames)
	go c.loop()
	return c
}

// committed tells the checkpointer the WAL has grown. It never blocks.
func (c *checkpointer) committed() {
	select {
	case c.nudges <- struct{}{}:
	default:
	}
}

// finish is called by the writer before a transaction, with the write connection. When the WAL has filled, it copies
// what was committed since the last background checkpoint, so that the transaction starts the WAL over.
func (c *checkpointer) finish(ctx context.Context, writer *sql.Conn) {
	if !c.full.CompareAndSwap(true, false) {
		return
	}
	// On failure the WAL goes on growing until the next background checkpoint brings the next attempt.
	if _, err := writer.ExecContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)"); err == nil {
		c.finishes.Add(1)
	}
}

func (c *checkpointer) loop() {
	defer close(c.stopped)
	for {
		select {
		case <-c.nudges:
		case <-c.quit:
			return
		}
		if c.catchUp() {
			c.full.Store(true)
		}
		select {
		case <-time.After(time.Duration(c.interval.Load())):
		case <-c.quit:
			return
		}
	}
}

// catchUp checkpoints and reports whether the writer should now finish: when the WAL is past restartFrames and
// wholly copied up to a checkpoint that found fewer than catchUpFrames new pages.
func (c *checkpointer) catchUp() bool {
	frames, copied := c.checkpoint()
	if !copied || frames < c.restartFrames.Load() {
		return false
	}
	for range maxCatchUps {
		next, copied := c.checkpoint()
		if !copied {
			return false // a reader still needs frames; the next round tries again
		}
		if next-frames < catchUpFrames { // a WAL started over meanwhile is shorter: nothing left for the writer
			break
		}
		frames = next
	}
	return true
}

// checkpoint runs a PASSIVE checkpoint and reports the WAL's length in frames and whether every frame was copied. A
// failed one leaves the WAL as it was; the next commit brings the next attempt.
func (c *checkpointer) checkpoint() (frames int64, copiedAll bool) {
	var busy, copied int64
	err := c.db.QueryRowContext(context.Background(), "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &frames, &copied)
	return frames, err == nil && busy == 0 && frames == copied
}

// stop ends the loop; SQLite checkpoints what is left when the last connection closes.
func (c *checkpointer) stop() {
	c.once.Do(func() { close(c.quit) })
	<-c.stopped
	c.db.Close()
}
