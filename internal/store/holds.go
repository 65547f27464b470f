package store

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/jackc/pgx/v5/pgconn"
	"golang.org/x/sync/semaphore"
)

// On PostgreSQL a write transaction holds a pooled connection from its BEGIN to its COMMIT, including while it waits
// for its organization's row lock. Were every waiter of one busy organization to take a connection, they would fill the
// pool and every other organization's writes would wait behind them. So transactions that hold an organization wait
// for their turn in the process first, without a connection (a few of them for an organization held shared, one for an
// organization held exclusively), and all write transactions together take at most maxWriters connections, leaving the
// rest of the write pool to the statements that run alone (a signing recorded at its organization's version). Reads
// have a pool of their own. A transaction never takes a second connection: what it reads, it reads through itself
// (Holding makes any other read an error).

const (
	writePoolSize = 16
	readPoolSize  = 8
	// maxWriters bounds the write transactions under way at once in a process: below the write pool's size.
	maxWriters = 12
	// sharedPerOrg is how many transactions of one process may hold one organization shared at once; one holding it
	// exclusively takes all of these places.
	sharedPerOrg = 4
)

// ErrBusy reports a transaction given up by the database: a lock not granted within lock_timeout, a statement past
// statement_timeout, or a deadlock. Nothing it wrote stays; the same request may be sent again.
var ErrBusy = errors.New("store: the database gave up waiting")

// ErrOutsideTransaction is what a write of the store returns when its caller is inside a write transaction (Holding):
// it would need a connection of its own while the transaction holds one and its organization's lock (and on SQLite
// wait for itself). Write through the transaction.
var ErrOutsideTransaction = errors.New("store: a write beside the write transaction that holds the organization; write through the transaction")

// Hold is what a write transaction holds: one organization's row, exclusively or shared with other readers.
type Hold struct {
	OrgID  string
	Shared bool
}

type holdingKey struct{}

// Holding marks a context as inside the write transaction tx, which holds an organization: the store's reads made with
// it run in tx, on its connection (and see what it wrote), and its writes apart from tx are refused
// (ErrOutsideTransaction). So a transaction holding a lock never takes a second connection, whatever code it calls.
func Holding(ctx context.Context, tx *Tx) context.Context {
	return context.WithValue(ctx, holdingKey{}, tx)
}

// heldBy is the transaction a context is inside (Holding), or nil.
func heldBy(ctx context.Context) *Tx {
	t, _ := ctx.Value(holdingKey{}).(*Tx)
	return t
}

// WriteHolding is Write for a transaction that holds an organization's row: on PostgreSQL it waits for the
// organization's turn in this process first, without a connection.
func (s *Store) WriteHolding(ctx context.Context, h Hold, fn func(*Tx) error) error {
	if s.turns == nil {
		return s.Write(ctx, fn)
	}
	release, err := s.turns.take(ctx, h)
	if err != nil {
		return err
	}
	defer release()
	return s.Write(ctx, fn)
}

// orgTurns are the organizations' turns in this process.
type orgTurns struct {
	mu sync.Mutex
	m  map[string]*orgTurn
}

type orgTurn struct {
	places *semaphore.Weighted // sharedPerOrg places: one for a shared hold, all for an exclusive one
	users  int                 // holders and waiters; the turn is forgotten when none is left
}

func newOrgTurns() *orgTurns { return &orgTurns{m: map[string]*orgTurn{}} }

// take waits for the hold's places (first come, first served) and returns their release.
func (t *orgTurns) take(ctx context.Context, h Hold) (func(), error) {
	t.mu.Lock()
	turn := t.m[h.OrgID]
	if turn == nil {
		turn = &orgTurn{places: semaphore.NewWeighted(sharedPerOrg)}
		t.m[h.OrgID] = turn
	}
	turn.users++
	t.mu.Unlock()
	weight := int64(sharedPerOrg)
	if h.Shared {
		weight = 1
	}
	if err := turn.places.Acquire(ctx, weight); err != nil {
		t.leave(h.OrgID, turn)
		return nil, err
	}
	return func() {
		turn.places.Release(weight)
		t.leave(h.OrgID, turn)
	}, nil
}

func (t *orgTurns) leave(orgID string, turn *orgTurn) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if turn.users--; turn.users == 0 {
		delete(t.m, orgID)
	}
}

// gaveUp wraps the errors of a PostgreSQL server that gave up waiting as ErrBusy.
func gaveUp(err error) error {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		switch pg.Code {
		case "55P03", "57014", "40P01": // lock_not_available, query_canceled (statement_timeout), deadlock_detected
			return fmt.Errorf("%w: %s", ErrBusy, pg.Message)
		}
	}
	return err
}
