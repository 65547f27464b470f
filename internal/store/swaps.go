package store

import (
	"context"
	"errors"
	"fmt"
)

// SwapConfig is an organization's swap configuration: its client fee in basis points, the stable-pair fee that
// replaces it when both tokens are stablecoins (-1: none), and the address the fees accrue to.
type SwapConfig struct {
	OrgID        string
	FeeReceiver  string
	FeeBps       int64
	StableFeeBps int64
	UpdatedAt    int64
}

// SwapConfig is an organization's swap configuration, read in the activity's transaction; ErrNotFound when it has
// none.
func (t *Tx) SwapConfig(ctx context.Context, orgID string) (SwapConfig, error) {
	c := SwapConfig{OrgID: orgID}
	err := t.queryRow(ctx, "SELECT fee_receiver, fee_bps, stable_fee_bps, updated_at FROM swap_configs WHERE org_id = ?", orgID).
		Scan(&c.FeeReceiver, &c.FeeBps, &c.StableFeeBps, &c.UpdatedAt)
	if err != nil {
		return SwapConfig{}, fmt.Errorf("store: swap config: %w", notFound(err))
	}
	return c, nil
}

// PutSwapConfig writes an organization's swap configuration.
func (t *Tx) PutSwapConfig(ctx context.Context, c SwapConfig) error {
	_, err := t.exec(ctx, `INSERT INTO swap_configs (org_id, fee_receiver, fee_bps, stable_fee_bps, updated_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (org_id) DO UPDATE SET fee_receiver = excluded.fee_receiver, fee_bps = excluded.fee_bps,
		stable_fee_bps = excluded.stable_fee_bps, updated_at = excluded.updated_at`,
		c.OrgID, c.FeeReceiver, c.FeeBps, c.StableFeeBps, c.UpdatedAt)
	if err != nil {
		return fmt.Errorf("store: put swap config: %w", err)
	}
	return nil
}

// SwapQuote is a quote an organization asked for: everything its execution needs (Quote, JSON), and the swap executed
// from it ("" until then).
type SwapQuote struct {
	OrgID, ID, ActivityID string
	Quote                 []byte
	CreatedAt, ExpiresAt  int64
	SwapID                string
}

// InsertSwapQuote records a quote, in the activity's transaction, and drops the organization's quotes that expired
// unexecuted before expiredBefore.
// On PostgreSQL both are one statement (a DELETE in a WITH clause), one round trip; SQLite, in the process, takes two.
func (t *Tx) InsertSwapQuote(ctx context.Context, q SwapQuote, expiredBefore int64) error {
	const drop = "DELETE FROM swap_quotes WHERE org_id = ? AND expires_at < ? AND swap_id = ''"
	const insert = "INSERT INTO swap_quotes (org_id, id, activity_id, quote, created_at, expires_at, swap_id) VALUES (?, ?, ?, ?, ?, ?, '')"
	args := []any{q.OrgID, q.ID, q.ActivityID, string(q.Quote), q.CreatedAt, q.ExpiresAt}
	var err error
	if t.d.name == "postgres" {
		_, err = t.exec(ctx, "WITH dropped AS ("+drop+") "+insert, append([]any{q.OrgID, expiredBefore}, args...)...)
	} else if _, err = t.exec(ctx, drop, q.OrgID, expiredBefore); err == nil {
		_, err = t.exec(ctx, insert, args...)
	}
	if err != nil {
		return fmt.Errorf("store: insert swap quote: %w", err)
	}
	return nil
}

// SwapQuote is an organization's quote, read in the activity's transaction; ErrNotFound when it has none by that id.
func (t *Tx) SwapQuote(ctx context.Context, orgID, id string) (SwapQuote, error) {
	q := SwapQuote{OrgID: orgID, ID: id}
	var quote string
	err := t.queryRow(ctx, "SELECT activity_id, quote, created_at, expires_at, swap_id FROM swap_quotes WHERE org_id = ? AND id = ?", orgID, id).
		Scan(&q.ActivityID, &quote, &q.CreatedAt, &q.ExpiresAt, &q.SwapID)
	if err != nil {
		return SwapQuote{}, fmt.Errorf("store: swap quote: %w", notFound(err))
	}
	q.Quote = []byte(quote)
	return q, nil
}

// Swap is a swap executed from a quote: the send that carries it, and its outcome (JSON) once final.
type Swap struct {
	OrgID, ID, QuoteID, ActivityID, SendID string
	Status                                 string
	Outcome                                []byte
	CreatedAt, UpdatedAt                   int64
}

// ErrQuoteExecuted is the error of a second execution of a quote.
var ErrQuoteExecuted = errors.New("store: the quote was executed already")

// InsertSwap records a swap and marks its quote executed, in the activity's transaction: ErrQuoteExecuted when the
// quote was executed already.
func (t *Tx) InsertSwap(ctx context.Context, s Swap) error {
	res, err := t.exec(ctx, "UPDATE swap_quotes SET swap_id = ? WHERE org_id = ? AND id = ? AND swap_id = ''", s.ID, s.OrgID, s.QuoteID)
	if err != nil {
		return fmt.Errorf("store: mark swap quote executed: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return ErrQuoteExecuted
	}
	_, err = t.exec(ctx, `INSERT INTO swaps (org_id, id, quote_id, activity_id, send_id, status, outcome, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, s.OrgID, s.ID, s.QuoteID, s.ActivityID, s.SendID, s.Status, string(s.Outcome), s.CreatedAt, s.UpdatedAt)
	if err != nil {
		return fmt.Errorf("store: insert swap: %w", err)
	}
	return nil
}

// SwapByID is an organization's swap with its quote (JSON); ErrNotFound when it has none by that id.
func (s *Store) SwapByID(ctx context.Context, orgID, id string) (Swap, []byte, error) {
	var sw Swap
	var outcome, quote string
	err := s.queryRow(ctx, `SELECT s.org_id, s.id, s.quote_id, s.activity_id, s.send_id, s.status, s.outcome, s.created_at, s.updated_at, q.quote
		FROM swaps s JOIN swap_quotes q ON q.org_id = s.org_id AND q.id = s.quote_id WHERE s.org_id = ? AND s.id = ?`, orgID, id).
		Scan(&sw.OrgID, &sw.ID, &sw.QuoteID, &sw.ActivityID, &sw.SendID, &sw.Status, &outcome, &sw.CreatedAt, &sw.UpdatedAt, &quote)
	if err != nil {
		return Swap{}, nil, fmt.Errorf("store: swap: %w", notFound(err))
	}
	sw.Outcome = []byte(outcome)
	return sw, []byte(quote), nil
}

// FinishSwap writes a swap's final status and outcome, unless it has one already (then it does nothing).
func (s *Store) FinishSwap(ctx context.Context, sw Swap) error {
	return s.Write(ctx, func(tx *Tx) error {
		_, err := tx.exec(ctx, "UPDATE swaps SET status = ?, outcome = ?, updated_at = ? WHERE org_id = ? AND id = ? AND outcome = ''",
			sw.Status, string(sw.Outcome), sw.UpdatedAt, sw.OrgID, sw.ID)
		if err != nil {
			return fmt.Errorf("store: finish swap: %w", err)
		}
		return nil
	})
}

// SwapFeeClaim is a claim of an organization's swap fees: its sends, one per network (JSON).
type SwapFeeClaim struct {
	OrgID, ID, ActivityID string
	Claims                []byte
	CreatedAt             int64
}

// InsertSwapFeeClaim records a claim, in the activity's transaction.
func (t *Tx) InsertSwapFeeClaim(ctx context.Context, c SwapFeeClaim) error {
	_, err := t.exec(ctx, "INSERT INTO swap_fee_claims (org_id, id, activity_id, claims, created_at) VALUES (?, ?, ?, ?, ?)",
		c.OrgID, c.ID, c.ActivityID, string(c.Claims), c.CreatedAt)
	if err != nil {
		return fmt.Errorf("store: insert swap fee claim: %w", err)
	}
	return nil
}

// SwapConfigOf is SwapConfig read outside a transaction.
func (s *Store) SwapConfigOf(ctx context.Context, orgID string) (SwapConfig, error) {
	c := SwapConfig{OrgID: orgID}
	err := s.queryRow(ctx, "SELECT fee_receiver, fee_bps, stable_fee_bps, updated_at FROM swap_configs WHERE org_id = ?", orgID).
		Scan(&c.FeeReceiver, &c.FeeBps, &c.StableFeeBps, &c.UpdatedAt)
	if err != nil {
		return SwapConfig{}, fmt.Errorf("store: swap config: %w", notFound(err))
	}
	return c, nil
}

// SwapQuoteOf is SwapQuote read outside a transaction.
func (s *Store) SwapQuoteOf(ctx context.Context, orgID, id string) (SwapQuote, error) {
	q := SwapQuote{OrgID: orgID, ID: id}
	var quote string
	err := s.queryRow(ctx, "SELECT activity_id, quote, created_at, expires_at, swap_id FROM swap_quotes WHERE org_id = ? AND id = ?", orgID, id).
		Scan(&q.ActivityID, &quote, &q.CreatedAt, &q.ExpiresAt, &q.SwapID)
	if err != nil {
		return SwapQuote{}, fmt.Errorf("store: swap quote: %w", notFound(err))
	}
	q.Quote = []byte(quote)
	return q, nil
}
