package store

import (
	"context"
	"fmt"
	"strings"
)

// The yield service's rows (package yield): projects with their API keys, actions with their transactions, and
// price-per-share samples. Bodies are the yield service's JSON; the store only knows the columns it filters on.

// YieldAPIKey is a yield API key, known by the SHA-256 of the key.
type YieldAPIKey struct {
	ID        string // public identifier, safe to log
	KeyHash   string
	Project   string
	FeeSet    int   // the project's fee set, read with the key; a key has none of its own
	CreatedAt int64 // unix milliseconds
}

// ClaimYieldProject creates a project on a fee set unless it exists, and returns the fee set the project is on: the
// one of its first key, whatever feeSet says. feeSet 0 creates nothing; a project that does not exist is then
// ErrNotFound. Concurrent claims of a new project agree: on PostgreSQL the second insert waits for the first to commit
// and then does nothing, and its read sees the first one's set.
func (t *Tx) ClaimYieldProject(ctx context.Context, project string, feeSet int, createdAt int64) (int, error) {
	if feeSet != 0 {
		_, err := t.exec(ctx, "INSERT INTO yield_projects (project, fee_set, created_at) VALUES (?, ?, ?) ON CONFLICT (project) DO NOTHING",
			project, feeSet, createdAt)
		if err != nil {
			return 0, fmt.Errorf("store: claim yield project: %w", err)
		}
	}
	var got int
	err := t.queryRow(ctx, "SELECT fee_set FROM yield_projects WHERE project = ?", project).Scan(&got)
	return got, notFound(err)
}

// PutYieldAPIKey stores a new key of an existing project (see ClaimYieldProject); k.FeeSet is not stored.
func (t *Tx) PutYieldAPIKey(ctx context.Context, k YieldAPIKey) error {
	_, err := t.exec(ctx, "INSERT INTO yield_api_keys (key_hash, id, project, created_at) VALUES (?, ?, ?, ?)",
		k.KeyHash, k.ID, k.Project, k.CreatedAt)
	if err != nil {
		return fmt.Errorf("store: put yield API key: %w", err)
	}
	return nil
}

// YieldAPIKeyByHash finds a key by the SHA-256 of the key, with its project's fee set.
func (s *Store) YieldAPIKeyByHash(ctx context.Context, hash string) (YieldAPIKey, error) {
	var k YieldAPIKey
	err := s.queryRow(ctx, "SELECT k.key_hash, k.id, k.project, p.fee_set, k.created_at FROM yield_api_keys k "+
		"JOIN yield_projects p ON p.project = k.project WHERE k.key_hash = ?", hash).
		Scan(&k.KeyHash, &k.ID, &k.Project, &k.FeeSet, &k.CreatedAt)
	return k, notFound(err)
}

// YieldAction is an action's row.
type YieldAction struct {
	ID          string
	Project     string
	Address     string // lower-case hex
	YieldID     string
	Intent      string
	Type        string
	Status      string
	Body        []byte
	CreatedAt   int64 // unix milliseconds
	CompletedAt int64 // 0 until the action succeeded or failed
}

// YieldTransaction is one transaction of an action.
type YieldTransaction struct {
	ID            string
	ActionID      string
	StepIndex     int
	Status        string
	Hash          string
	Error         string
	Body          []byte
	BroadcastedAt int64 // unix milliseconds, 0 until a hash was submitted
	UpdatedAt     int64
}

const (
	yieldActionColumns = "id, project, address, yield_id, intent, type, status, body, created_at, completed_at"
	yieldTxColumns     = "id, action_id, step_index, status, hash, error, body, broadcasted_at, updated_at"
)

type yieldRow interface{ Scan(...any) error }

func scanYieldAction(row yieldRow) (YieldAction, error) {
	var a YieldAction
	var body string
	err := row.Scan(&a.ID, &a.Project, &a.Address, &a.YieldID, &a.Intent, &a.Type, &a.Status, &body, &a.CreatedAt, &a.CompletedAt)
	a.Body = []byte(body)
	return a, notFound(err)
}

func scanYieldTx(row yieldRow) (YieldTransaction, error) {
	var t YieldTransaction
	var body string
	err := row.Scan(&t.ID, &t.ActionID, &t.StepIndex, &t.Status, &t.Hash, &t.Error, &body, &t.BroadcastedAt, &t.UpdatedAt)
	t.Body = []byte(body)
	return t, notFound(err)
}

// InsertYieldAction stores a new action and its transactions.
func (t *Tx) InsertYieldAction(ctx context.Context, a YieldAction, txs []YieldTransaction) error {
	_, err := t.exec(ctx, "INSERT INTO yield_actions ("+yieldActionColumns+") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		a.ID, a.Project, a.Address, a.YieldID, a.Intent, a.Type, a.Status, string(a.Body), a.CreatedAt, a.CompletedAt)
	if err != nil {
		return fmt.Errorf("store: insert yield action: %w", err)
	}
	for _, tx := range txs {
		_, err := t.exec(ctx, "INSERT INTO yield_transactions ("+yieldTxColumns+") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
			tx.ID, a.ID, tx.StepIndex, tx.Status, tx.Hash, tx.Error, string(tx.Body), tx.BroadcastedAt, tx.UpdatedAt)
		if err != nil {
			return fmt.Errorf("store: insert yield transaction: %w", err)
		}
	}
	return nil
}

// LockYieldAction reads an action and its transactions for update: on PostgreSQL the action row stays locked until
// the transaction ends, so two processes never move the same action's statuses at once.
func (t *Tx) LockYieldAction(ctx context.Context, id string) (YieldAction, []YieldTransaction, error) {
	a, err := scanYieldAction(t.queryRow(ctx, "SELECT "+yieldActionColumns+" FROM yield_actions WHERE id = ?"+t.d.forUpdate, id))
	if err != nil {
		return YieldAction{}, nil, err
	}
	rows, err := t.query(ctx, "SELECT "+yieldTxColumns+" FROM yield_transactions WHERE action_id = ? ORDER BY step_index", id)
	if err != nil {
		return YieldAction{}, nil, err
	}
	defer rows.Close()
	var txs []YieldTransaction
	for rows.Next() {
		tx, err := scanYieldTx(rows)
		if err != nil {
			return YieldAction{}, nil, err
		}
		txs = append(txs, tx)
	}
	return a, txs, rows.Err()
}

// UpdateYieldTransaction writes a transaction's status, hash, error and times.
func (t *Tx) UpdateYieldTransaction(ctx context.Context, tx YieldTransaction) error {
	_, err := t.exec(ctx, "UPDATE yield_transactions SET status = ?, hash = ?, error = ?, broadcasted_at = ?, updated_at = ? WHERE id = ?",
		tx.Status, tx.Hash, tx.Error, tx.BroadcastedAt, tx.UpdatedAt, tx.ID)
	if err != nil {
		return fmt.Errorf("store: update yield transaction: %w", err)
	}
	return nil
}

// UpdateYieldActionStatus writes an action's status and completion time.
func (t *Tx) UpdateYieldActionStatus(ctx context.Context, id, status string, completedAt int64) error {
	_, err := t.exec(ctx, "UPDATE yield_actions SET status = ?, completed_at = ? WHERE id = ?", status, completedAt, id)
	if err != nil {
		return fmt.Errorf("store: update yield action: %w", err)
	}
	return nil
}

// YieldAction reads one of a project's actions.
func (s *Store) YieldAction(ctx context.Context, project, id string) (YieldAction, error) {
	return scanYieldAction(s.queryRow(ctx, "SELECT "+yieldActionColumns+" FROM yield_actions WHERE id = ? AND project = ?", id, project))
}

// YieldActionQuery filters a project's actions. Empty fields do not filter.
type YieldActionQuery struct {
	Project  string
	Address  string
	YieldID  string
	Intent   string
	Type     string
	Statuses []string
	Offset   int
	Limit    int
}

// YieldActions lists a project's actions, newest first, and how many match in all.
func (s *Store) YieldActions(ctx context.Context, q YieldActionQuery) ([]YieldAction, int, error) {
	where := []string{"project = ?"}
	args := []any{q.Project}
	for _, f := range []struct{ col, val string }{{"address", q.Address}, {"yield_id", q.YieldID}, {"intent", q.Intent}, {"type", q.Type}} {
		if f.val != "" {
			where = append(where, f.col+" = ?")
			args = append(args, f.val)
		}
	}
	if len(q.Statuses) > 0 {
		where = append(where, "status IN (?"+strings.Repeat(", ?", len(q.Statuses)-1)+")")
		for _, st := range q.Statuses {
			args = append(args, st)
		}
	}
	cond := strings.Join(where, " AND ")
	var total int
	if err := s.queryRow(ctx, "SELECT COUNT(*) FROM yield_actions WHERE "+cond, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := s.query(ctx, "SELECT "+yieldActionColumns+" FROM yield_actions WHERE "+cond+" ORDER BY created_at DESC, id LIMIT ? OFFSET ?",
		append(args, q.Limit, q.Offset)...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []YieldAction
	for rows.Next() {
		a, err := scanYieldAction(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, a)
	}
	return out, total, rows.Err()
}

// YieldTransactionsOf reads the transactions of actions, in step order, keyed by action id.
func (s *Store) YieldTransactionsOf(ctx context.Context, actionIDs ...string) (map[string][]YieldTransaction, error) {
	out := make(map[string][]YieldTransaction, len(actionIDs))
	if len(actionIDs) == 0 {
		return out, nil
	}
	args := make([]any, len(actionIDs))
	for i, id := range actionIDs {
		args[i] = id
	}
	rows, err := s.query(ctx, "SELECT "+yieldTxColumns+" FROM yield_transactions WHERE action_id IN (?"+
		strings.Repeat(", ?", len(actionIDs)-1)+") ORDER BY action_id, step_index", args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		tx, err := scanYieldTx(rows)
		if err != nil {
			return nil, err
		}
		out[tx.ActionID] = append(out[tx.ActionID], tx)
	}
	return out, rows.Err()
}

// YieldTransaction reads one transaction of a project's actions.
func (s *Store) YieldTransaction(ctx context.Context, project, id string) (YieldTransaction, error) {
	return scanYieldTx(s.queryRow(ctx, "SELECT t.id, t.action_id, t.step_index, t.status, t.hash, t.error, t.body, t.broadcasted_at, t.updated_at "+
		"FROM yield_transactions t JOIN yield_actions a ON a.id = t.action_id WHERE t.id = ? AND a.project = ?", id, project))
}

// YieldTransactionsWithStatus lists up to limit transactions in a status, oldest update first.
func (s *Store) YieldTransactionsWithStatus(ctx context.Context, status string, limit int) ([]YieldTransaction, error) {
	rows, err := s.query(ctx, "SELECT "+yieldTxColumns+" FROM yield_transactions WHERE status = ? ORDER BY updated_at, id LIMIT ?", status, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []YieldTransaction
	for rows.Next() {
		tx, err := scanYieldTx(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, tx)
	}
	return out, rows.Err()
}

// YieldPriceSample is what `Shares` of a yield's share were worth in its token (`Assets`, base units) at a block.
type YieldPriceSample struct {
	YieldID     string
	BlockNumber int64
	BlockTime   int64 // unix seconds
	Shares      string
	Assets      string
}

// PutYieldPriceSamples stores samples; a sample of a block already sampled is ignored.
func (t *Tx) PutYieldPriceSamples(ctx context.Context, samples ...YieldPriceSample) error {
	for _, p := range samples {
		_, err := t.exec(ctx, "INSERT INTO yield_price_samples (yield_id, block_number, block_time, shares, assets) VALUES (?, ?, ?, ?, ?) "+
			"ON CONFLICT (yield_id, block_number) DO NOTHING", p.YieldID, p.BlockNumber, p.BlockTime, p.Shares, p.Assets)
		if err != nil {
			return fmt.Errorf("store: put price sample: %w", err)
		}
	}
	return nil
}

// YieldPriceSamples lists a yield's samples taken at or after block time `since`, oldest first.
func (s *Store) YieldPriceSamples(ctx context.Context, yieldID string, since int64) ([]YieldPriceSample, error) {
	rows, err := s.query(ctx, "SELECT yield_id, block_number, block_time, shares, assets FROM yield_price_samples "+
		"WHERE yield_id = ? AND block_time >= ? ORDER BY block_time, block_number", yieldID, since)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []YieldPriceSample
	for rows.Next() {
		var p YieldPriceSample
		if err := rows.Scan(&p.YieldID, &p.BlockNumber, &p.BlockTime, &p.Shares, &p.Assets); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// DeleteYieldPriceSamplesBefore prunes samples older than block time `before`.
func (t *Tx) DeleteYieldPriceSamplesBefore(ctx context.Context, before int64) error {
	_, err := t.exec(ctx, "DELETE FROM yield_price_samples WHERE block_time < ?", before)
	return err
}

// DeleteYieldPriceSamplesAfter drops a yield's samples of blocks above blockNumber: samples of a chain that was reset
// (the dev chain started afresh on a kept database), which would otherwise count as the newest.
func (t *Tx) DeleteYieldPriceSamplesAfter(ctx context.Context, yieldID string, blockNumber int64) error {
	_, err := t.exec(ctx, "DELETE FROM yield_price_samples WHERE yield_id = ? AND block_number > ?", yieldID, blockNumber)
	return err
}
