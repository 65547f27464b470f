package store

import (
	"context"
	"database/sql"
	"sync"
)

// maxCachedStatements bounds the prepared statements kept per database; queries past it are prepared each time.
const maxCachedStatements = 256

// stmtCache keeps each query prepared once per database, so SQL is parsed once rather than on every request. Queries
// are written once with `?` placeholders; the cache holds them rebound for the dialect.
//
// A query met inside a write transaction is not prepared there: on PostgreSQL preparing takes another connection from
// the pool, which concurrent transactions could all be holding while they wait for one. It is noted instead and
// prepared before the next transaction begins (on SQLite too, on the write connection, where it could be at once).
type stmtCache struct {
	db     preparer
	mu     sync.Mutex
	m      map[string]*sql.Stmt
	wanted map[string]bool
}

// preparer prepares statements: a *sql.DB, or SQLite's write connection (a *sql.Conn).
type preparer interface {
	PrepareContext(ctx context.Context, query string) (*sql.Stmt, error)
}

func newStmtCache(db preparer) *stmtCache {
	return &stmtCache{db: db, m: map[string]*sql.Stmt{}, wanted: map[string]bool{}}
}

// get returns the prepared statement of q, preparing it now unless deferred (inside a write transaction), or nil
// when the caller should run q directly this time.
func (c *stmtCache) get(ctx context.Context, q string, deferred bool) (*sql.Stmt, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st, ok := c.m[q]; ok {
		return st, nil
	}
	if len(c.m)+len(c.wanted) >= maxCachedStatements {
		return nil, nil
	}
	if deferred {
		c.wanted[q] = true
		return nil, nil
	}
	st, err := c.db.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	c.m[q] = st
	return st, nil
}

// prepareWanted prepares the queries noted inside transactions; call it with no transaction open. The lock is not
// held while preparing, which may wait for the connection another goroutine's transaction holds.
func (c *stmtCache) prepareWanted(ctx context.Context) {
	c.mu.Lock()
	var qs []string
	for q := range c.wanted {
		qs = append(qs, q)
		delete(c.wanted, q)
	}
	c.mu.Unlock()
	for _, q := range qs {
		st, err := c.db.PrepareContext(ctx, q)
		if err != nil {
			continue
		}
		c.mu.Lock()
		if _, dup := c.m[q]; dup || c.m == nil {
			st.Close()
		} else {
			c.m[q] = st
		}
		c.mu.Unlock()
	}
}

func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, st := range c.m {
		st.Close()
	}
	c.m = nil
}
