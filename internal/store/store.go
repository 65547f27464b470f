// Package store is Sigil's persistence: one interface over two real backends, embedded SQLite (the default: one file,
// WAL, pure Go) and PostgreSQL (for several coordinator processes sharing one database), with one set of versioned,
// embedded migrations.
//
// The store knows rows, not meaning: organizations are opaque JSON documents with a version, activities are opaque
// records with a status. The coordinator owns what is inside them.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	neturl "net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
	"golang.org/x/sync/semaphore"
	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/sigil/sigil/internal/metrics"
)

// ErrNotFound is returned when a row does not exist.
var ErrNotFound = errors.New("store: not found")

// Store is an open database.
type Store struct {
	write     *sql.DB   // every write transaction; one connection on SQLite, which has one writer anyway
	writeConn *sql.Conn // SQLite: that connection, held for the store's life; write transactions run on it (begin)
	read      *sql.DB   // reads
	dialect   dialect

	writeStmts, readStmts *stmtCache
	group                 *groupCommitter     // SQLite: concurrent write transactions share a commit
	checkpoints           *checkpointer       // SQLite: copies the WAL into the database file off the commit path
	sqlitePath            string              // SQLite: the database file
	durable               *durability         // SQLite: the syncs that make commits durable (durable.go)
	turns                 *orgTurns           // PostgreSQL: the organizations' turns in this process (holds.go)
	writers               *semaphore.Weighted // PostgreSQL: places of the write transactions under way (holds.go)
	metrics               *metrics.Metrics
}

// Measure records the store's commits (group sizes, commit time) and its connection pools in m. SQLite's write
// connection is no pool: the store holds it, and the group commits measure what waits for it.
func (s *Store) Measure(m *metrics.Metrics) {
	s.metrics = m
	if s.writeConn == nil {
		m.Database("write", s.write)
	}
	if s.read != s.write {
		m.Database("read", s.read)
	}
}

// Open opens (and migrates) the database named by url: a postgres:// or postgresql:// URL, or else a SQLite file
// path ("" means sigil.db in dataDir).
func Open(ctx context.Context, url, dataDir string) (*Store, error) {
	s, err := openUnmigrated(url, dataDir)
	if err != nil {
		return nil, err
	}
	if err := s.migrate(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func openUnmigrated(url, dataDir string) (*Store, error) {
	var s *Store
	var err error
	scheme, rest, hasScheme := strings.Cut(url, "://")
	switch {
	case scheme == "postgres" || scheme == "postgresql":
		s, err = openPostgres(url)
	case hasScheme && scheme != "sqlite":
		// A typo (postgress://) or another database would otherwise open a SQLite file named after the URL.
		return nil, fmt.Errorf("store: database URL %q: scheme %q is not supported; use postgres:// (or postgresql://) "+
			"for PostgreSQL, or a file path (or sqlite://PATH) for SQLite", redactURL(url), scheme)
	default:
		if hasScheme {
			url = rest
		}
		if url == "" {
			url = filepath.Join(dataDir, "sigil.db")
		}
		s, err = openSQLite(url)
	}
	if err != nil {
		return nil, err
	}
	var writer preparer = s.write
	if s.writeConn != nil {
		writer = s.writeConn
	}
	s.writeStmts, s.readStmts = newStmtCache(writer), newStmtCache(s.read)
	if s.dialect.name == "sqlite" {
		s.durable = newDurability(s.sqlitePath)
		s.group = newGroupCommitter(s)
	}
	return s, nil
}

func openSQLite(path string) (*Store, error) {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("store: create data directory: %w", err)
		}
	}
	base := sqliteDSN(path)
	// wal_autocheckpoint(0): commits do not checkpoint; the checkpointer does (checkpoint.go). journal_size_limit: a
	// WAL that grew under a burst is cut back to 64 MiB when it starts over. synchronous(NORMAL): a commit does not
	// sync the WAL itself; the group committer's syncer does, before any caller is answered (durable.go).
	write, err := sql.Open("sqlite", strings.Replace(base, "synchronous(FULL)", "synchronous(NORMAL)", 1)+
		"&_pragma=wal_autocheckpoint(0)&_pragma=journal_size_limit(67108864)")
	if err != nil {
		return nil, err
	}
	write.SetMaxOpenConns(1)
	read, err := sql.Open("sqlite", base+"&_pragma=query_only(1)")
	if err != nil {
		write.Close()
		return nil, err
	}
	read.SetMaxOpenConns(8)
	checkpoint, err := sql.Open("sqlite", base)
	if err != nil {
		write.Close()
		read.Close()
		return nil, err
	}
	checkpoint.SetMaxOpenConns(1)
	conn, err := write.Conn(context.Background())
	if err == nil {
		err = conn.PingContext(context.Background())
	}
	if err != nil {
		write.Close()
		read.Close()
		checkpoint.Close()
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	// Only the owner may read the database: it holds sealed key material and every organization's data.
	_ = os.Chmod(path, 0o600)
	return &Store{write: write, writeConn: conn, read: read, dialect: sqliteDialect, checkpoints: newCheckpointer(checkpoint),
		sqlitePath: path}, nil
}

// sqliteDSN is how every connection to the SQLite database at path is opened. synchronous(FULL): a COMPLETED activity
// must survive a power cut, not only a crash.
func sqliteDSN(path string) string {
	return "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_pragma=foreign_keys(1)"
}

func openPostgres(url string) (*Store, error) {
	url, err := withServerTimeouts(url)
	if err != nil {
		return nil, err
	}
	write, err := openPostgresPool(url, writePoolSize)
	if err != nil {
		return nil, err
	}
	read, err := openPostgresPool(url, readPoolSize)
	if err != nil {
		write.Close()
		return nil, err
	}
	return &Store{write: write, read: read, dialect: postgresDialect, turns: newOrgTurns(), writers: semaphore.NewWeighted(maxWriters)}, nil
}

// openPostgresPool opens a pool of n connections, kept open when idle: database/sql keeps two by default, and closing
// the others after each burst makes the next burst connect again (a TCP handshake, authentication and a new server
// process each).
func openPostgresPool(url string, n int) (*sql.DB, error) {
	db, err := sql.Open("pgx", url)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(n)
	db.SetMaxIdleConns(n)
	db.SetConnMaxIdleTime(5 * time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("store: connect to PostgreSQL: %w", err)
	}
	return db, nil
}

// serverTimeouts are what the PostgreSQL server gives up after, unless the database URL sets them (pgx sends the
// parameters of the URL it does not know as run-time parameters): a lock waited for, a statement, a transaction left
// idle. No request then holds a connection or a lock for long, whatever happens to it.
var serverTimeouts = []struct{ name, value string }{
	{"lock_timeout", "10s"},
	{"statement_timeout", "30s"},
	{"idle_in_transaction_session_timeout", "60s"},
}

func withServerTimeouts(raw string) (string, error) {
	u, err := neturl.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("store: PostgreSQL URL %s: %w", redactURL(raw), err)
	}
	q := u.Query()
	for _, t := range serverTimeouts {
		if !q.Has(t.name) {
			q.Set(t.name, t.value)
		}
	}
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// Backend names the database kind: "sqlite" or "postgres".
func (s *Store) Backend() string { return s.dialect.name }

// Close closes the database.
func (s *Store) Close() error {
	if s.group != nil {
		s.group.stop()
	}
	if s.checkpoints != nil {
		s.checkpoints.stop()
	}
	if s.durable != nil {
		s.durable.close()
	}
	if s.writeStmts != nil {
		s.writeStmts.close()
		s.readStmts.close()
	}
	var err error
	if s.writeConn != nil {
		err = s.writeConn.Close()
	}
	err = errors.Join(err, s.write.Close())
	if s.read != s.write {
		err = errors.Join(err, s.read.Close())
	}
	return err
}

// Tx is a write transaction.
type Tx struct {
	on    querier // where its statements run: tx, or SQLite's write connection
	tx    *sql.Tx // PostgreSQL: the database/sql transaction; nil on SQLite (begin)
	ended bool    // committed or rolled back
	d     dialect
	stmts *stmtCache
}

// querier runs statements: a *sql.Tx, or a *sql.Conn on which a transaction was begun by a statement.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// begin opens a write transaction. On SQLite it is begun by a statement (BEGIN IMMEDIATE) on the one write
// connection, which the store holds for its life, and ended by another (commit, rollback): a database/sql transaction starts a
// goroutine to watch its context, and another for every query run in it, each created, parked, woken and ended, a
// chance for an idle core's thread to be woken in vain (docs/BENCHMARKS.md). One goroutine at a time runs a group on
// the connection (group.go), so nothing else runs between its BEGIN and its COMMIT.
func (s *Store) begin(ctx context.Context) (*Tx, error) {
	if s.writeConn == nil {
		tx, err := s.write.BeginTx(ctx, nil)
		if err != nil {
			return nil, err
		}
		return &Tx{on: tx, tx: tx, d: s.dialect, stmts: s.writeStmts}, nil
	}
	t := &Tx{on: s.writeConn, d: s.dialect, stmts: s.writeStmts}
	if _, err := t.exec(ctx, "BEGIN IMMEDIATE"); err != nil { // prepared once, as COMMIT and ROLLBACK are
		return nil, err
	}
	return t, nil
}

// commit ends the transaction, keeping its writes.
func (t *Tx) commit(ctx context.Context) error {
	t.ended = true
	if t.tx != nil {
		return t.tx.Commit()
	}
	_, err := t.exec(ctx, "COMMIT")
	if err != nil {
		// A COMMIT that failed may leave the transaction open (SQLite keeps it on SQLITE_BUSY); the next one must
		// begin on a connection with none. When SQLite has rolled it back already, this fails and says so.
		_ = t.rollback(ctx)
	}
	return err
}

// rollback ends the transaction, undoing its writes.
func (t *Tx) rollback(ctx context.Context) error {
	t.ended = true
	if t.tx != nil {
		return t.tx.Rollback()
	}
	_, err := t.exec(ctx, "ROLLBACK")
	return err
}

// rollbackUnlessEnded rolls the transaction back unless it has ended: on SQLite, the write connection must not be
// left in a transaction that the next BEGIN would find open.
func (t *Tx) rollbackUnlessEnded(ctx context.Context) {
	if !t.ended {
		_ = t.rollback(ctx)
	}
}

// context is what a statement of the transaction runs under. On SQLite, a statement is not interrupted when its
// caller's context ends: whether the caller has given up is checked before its function runs (group.go), and once it
// runs it runs to its end, as its statements are short and hold no lock to wait for (the writer holds the database's).
// The driver otherwise starts a goroutine for every statement, to watch the context and interrupt the connection, one
// created, parked, woken and ended a statement, each a chance for an idle core's thread to be woken in vain
// (docs/BENCHMARKS.md).
func (t *Tx) context(ctx context.Context) context.Context {
	if t.tx == nil {
		return context.WithoutCancel(ctx)
	}
	return ctx
}

// Write runs fn in one write transaction, committed when fn returns nil and rolled back otherwise. It returns once the
// transaction is durable. On SQLite, transactions that arrive together share one commit (group.go); each still runs
// alone and is undone alone.
func (s *Store) Write(ctx context.Context, fn func(*Tx) error) error {
	if heldBy(ctx) != nil {
		return ErrOutsideTransaction // a write inside another: on SQLite it would wait for itself
	}
	if s.group != nil {
		return s.group.write(ctx, fn)
	}
	if err := s.writers.Acquire(ctx, 1); err != nil {
		return err
	}
	defer s.writers.Release(1)
	return gaveUp(s.writeTx(ctx, func() int { return 1 }, fn))
}

// writeTx runs fn in a transaction of its own, which makes the writes of group callers durable; size counts them once
// fn has returned.
func (s *Store) writeTx(ctx context.Context, size func() int, fn func(*Tx) error) error {
	if s.writeStmts != nil {
		s.writeStmts.prepareWanted(ctx)
	}
	if s.checkpoints != nil {
		s.checkpoints.finish(ctx, s.writeConn)
	}
	tx, err := s.begin(ctx)
	if err != nil {
		return fmt.Errorf("store: begin: %w", err)
	}
	defer tx.rollbackUnlessEnded(ctx) // fn failed or panicked
	if err := fn(tx); err != nil {
		return err
	}
	if s.durable != nil {
		s.durable.begin()
	}
	start := time.Now()
	if err := tx.commit(ctx); err != nil {
		return fmt.Errorf("store: commit: %w", err)
	}
	s.metrics.Commit(size(), time.Since(start))
	if s.checkpoints != nil {
		s.checkpoints.committed()
	}
	return nil
}

func (t *Tx) exec(ctx context.Context, q string, args ...any) (sql.Result, error) {
	ctx = t.context(ctx)
	if st := t.stmt(ctx, q); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return t.on.ExecContext(ctx, t.d.rebind(q), args...)
}

// queryRow reads one row in the transaction: what it reads is made durable by the transaction's own commit.
func (t *Tx) queryRow(ctx context.Context, q string, args ...any) durableRow {
	ctx = t.context(ctx)
	if st := t.stmt(ctx, q); st != nil {
		return durableRow{Row: st.QueryRowContext(ctx, args...)}
	}
	return durableRow{Row: t.on.QueryRowContext(ctx, t.d.rebind(q), args...)}
}

// query reads rows in the transaction: what it reads is made durable by the transaction's own commit.
func (t *Tx) query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	return t.on.QueryContext(t.context(ctx), t.d.rebind(q), args...)
}

// stmt is the transaction's handle on q's cached prepared statement; nil to run q unprepared (during migrations,
// when the cache is full, or when q does not prepare).
func (t *Tx) stmt(ctx context.Context, q string) *sql.Stmt {
	if t.stmts == nil {
		return nil
	}
	st, err := t.stmts.get(ctx, t.d.rebind(q), true)
	if err != nil || st == nil {
		return nil
	}
	if t.tx == nil { // SQLite: prepared on the write connection itself
		return st
	}
	return t.tx.StmtContext(ctx, st)
}

// Savepoint marks a point the transaction can roll back to, keeping what came before it.
func (t *Tx) Savepoint(ctx context.Context, name string) error {
	_, err := t.exec(ctx, "SAVEPOINT "+name)
	return err
}

// RollbackTo undoes everything since the savepoint.
func (t *Tx) RollbackTo(ctx context.Context, name string) error {
	_, err := t.exec(ctx, "ROLLBACK TO SAVEPOINT "+name)
	return err
}

// exec runs a statement on its own, outside any transaction: on PostgreSQL only, as SQLite's one writer takes statements
// in transactions (Write).
func (s *Store) exec(ctx context.Context, q string, args ...any) (sql.Result, error) {
	if heldBy(ctx) != nil {
		return nil, ErrOutsideTransaction
	}
	if st, err := s.writeStmts.get(ctx, s.dialect.rebind(q), false); err == nil && st != nil {
		return st.ExecContext(ctx, args...)
	}
	return s.write.ExecContext(ctx, s.dialect.rebind(q), args...)
}

// queryRow reads one row; on SQLite its Scan returns once what it read is durable (durable.go).
func (s *Store) queryRow(ctx context.Context, q string, args ...any) durableRow {
	if t := heldBy(ctx); t != nil {
		return t.queryRow(ctx, q, args...) // read in the transaction that holds the organization
	}
	if st, err := s.readStmts.get(ctx, s.dialect.rebind(q), false); err == nil && st != nil {
		return durableRow{Row: st.QueryRowContext(ctx, args...), d: s.durable}
	}
	return durableRow{Row: s.read.QueryRowContext(ctx, s.dialect.rebind(q), args...), d: s.durable}
}

// query reads rows; on SQLite their Close returns once what they read is durable (durable.go).
func (s *Store) query(ctx context.Context, q string, args ...any) (durableRows, error) {
	if t := heldBy(ctx); t != nil {
		rows, err := t.query(ctx, q, args...) // read in the transaction that holds the organization
		return durableRows{Rows: rows}, err
	}
	var rows *sql.Rows
	var err error
	if st, stErr := s.readStmts.get(ctx, s.dialect.rebind(q), false); stErr == nil && st != nil {
		rows, err = st.QueryContext(ctx, args...)
	} else {
		rows, err = s.read.QueryContext(ctx, s.dialect.rebind(q), args...)
	}
	return durableRows{rows, s.durable}, err
}

func notFound(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	return err
}

// redactURL hides a URL's password, for errors.
func redactURL(raw string) string {
	u, err := neturl.Parse(raw)
	if err != nil {
		return "(unparsable)"
	}
	return u.Redacted()
}
