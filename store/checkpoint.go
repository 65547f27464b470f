package store

import (
	"context"
	"database/sql"
	"sync"
	"sync/atomic"
	"time"
)

// checkpointInterval is how often, at most, the WAL is copied back into the database file while writes go on.
const checkpointInterval = 250 * time.Millisecond

// checkpointer copies SQLite's write-ahead log back into the database file off the commit path. Left to itself,
// SQLite checkpoints inside whichever commit takes the WAL past 1000 pages: that commit then copies the pages and
// fsyncs the database file before it returns, and so does every caller of its group. Here commits only append to the
// WAL, and checkpoints are in two steps:
//
//  1. In the background, on a connection of its own, at most every checkpointInterval when there have been commits,
//     a PASSIVE checkpoint copies the WAL into the database file: the bulk of the work, done while writes go on.
//  2. The writer, before its next transaction, checkpoints the few frames committed meanwhile (finish). With the
//     WAL then wholly copied, that transaction starts the WAL over from its beginning instead of appending to it:
//     only a writer that begins with nothing left to copy can, so without this step the WAL would grow for as long
//     as writes never pause.
//
// Both checkpoints are PASSIVE, like SQLite's own: they copy only what no reader still needs and never wait for a
// reader or a writer. Durability is unchanged: a commit is durable once its WAL frames are synced.
type checkpointer struct {
	db       *sql.DB // the background connection
	nudges   chan struct{}
	copied   atomic.Bool // a background checkpoint copied the whole WAL; the writer should finish
	quit     chan struct{}
	stopped  chan struct{}
	once     sync.Once
	runs     atomic.Int64 // background checkpoints run, for tests
	finishes atomic.Int64 // checkpoints finished by the writer, for tests
}

func newCheckpointer(db *sql.DB) *checkpointer {
	c := &checkpointer{db: db, nudges: make(chan struct{}, 1), quit: make(chan struct{}), stopped: make(chan struct{})}
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

// finish is called by the writer before a transaction, with the writer's database (one connection). After a
// background checkpoint it copies what was committed since, so that the transaction restarts the WAL.
func (c *checkpointer) finish(ctx context.Context, writer *sql.DB) {
	if !c.copied.CompareAndSwap(true, false) {
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
		if c.checkpoint() {
			c.copied.Store(true)
		}
		c.runs.Add(1)
		select {
		case <-time.After(checkpointInterval):
		case <-c.quit:
			return
		}
	}
}

// checkpoint runs a PASSIVE checkpoint and reports whether it copied every frame of the WAL. A failed one leaves the
// WAL as it was; the next commit brings the next attempt.
func (c *checkpointer) checkpoint() bool {
	var busy, frames, copied int64
	err := c.db.QueryRowContext(context.Background(), "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &frames, &copied)
	return err == nil && busy == 0 && frames == copied
}

// stop ends the loop; SQLite checkpoints what is left when the last connection closes.
func (c *checkpointer) stop() {
	c.once.Do(func() { close(c.quit) })
	<-c.stopped
	c.db.Close()
}
