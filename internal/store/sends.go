package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// The states of a send, as get_send_transaction_status names them.
const (
	SendInitialized  = "INITIALIZED"  // accepted; not yet signed (or, for a raw send, not yet broadcast)
	SendBroadcasting = "BROADCASTING" // signed and sent; waiting for a block
	SendIncluded     = "INCLUDED"     // in a block, successful
	SendFailed       = "FAILED"       // refused before signing, reverted, or replaced
)

// Send is one transaction the coordinator sends and watches: a row of send_transactions.
type Send struct {
	ID, OrgID, ActivityID, Network, From string
	// KeySecret is the sealed key that signs it ("" for a raw send, signed already).
	KeySecret                                string
	Request                                  []byte // the calls and fee fields, JSON
	Status                                   string
	Nonce                                    int64 // -1 until assigned
	TxHash                                   string
	RawTx                                    string // the signed transaction, hex with 0x
	Error                                    []byte // the failure, JSON; empty when none
	Attempts                                 int
	NextAt, LeaseUntil, CreatedAt, UpdatedAt int64 // unix nanoseconds
	// SponsorOrg is the billing organization whose gas sponsor pays ("" when the account pays), and GasCostWei what
	// the send cost it (decimal wei), once included.
	SponsorOrg, GasCostWei string
}

// Final reports whether the send reached a state it never leaves.
func (s *Send) Final() bool { return s.Status == SendIncluded || s.Status == SendFailed }

const sendColumns = "id, org_id, activity_id, network, from_address, key_secret, request, status, nonce, tx_hash, raw_tx, error, attempts, next_at, lease_until, created_at, updated_at, sponsor_org, gas_cost_wei"

func scanSend(row interface{ Scan(...any) error }) (Send, error) {
	var s Send
	var request, errText string
	err := row.Scan(&s.ID, &s.OrgID, &s.ActivityID, &s.Network, &s.From, &s.KeySecret, &request, &s.Status, &s.Nonce,
		&s.TxHash, &s.RawTx, &errText, &s.Attempts, &s.NextAt, &s.LeaseUntil, &s.CreatedAt, &s.UpdatedAt, &s.SponsorOrg, &s.GasCostWei)
	s.Request, s.Error = []byte(request), []byte(errText)
	return s, err
}

// InsertSend records a send, in the transaction of the activity that allowed it.
func (t *Tx) InsertSend(ctx context.Context, s Send) error {
	_, err := t.exec(ctx, "INSERT INTO send_transactions ("+sendColumns+") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		s.ID, s.OrgID, s.ActivityID, s.Network, s.From, s.KeySecret, string(s.Request), s.Status, s.Nonce, s.TxHash, s.RawTx,
		string(s.Error), s.Attempts, s.NextAt, s.LeaseUntil, s.CreatedAt, s.UpdatedAt, s.SponsorOrg, s.GasCostWei)
	if err != nil {
		return fmt.Errorf("store: insert send: %w", err)
	}
	return nil
}

// ErrSendChanged is the error of an update of a send that changed since the worker read it.
var ErrSendChanged = errors.New("store: the send changed since it was read")

// SendStatus is an organization's send's stored status, read in the transaction that changes it.
func (t *Tx) SendStatus(ctx context.Context, orgID, id string) (string, error) {
	var status string
	if err := t.queryRow(ctx, "SELECT status FROM send_transactions WHERE org_id = ? AND id = ?", orgID, id).Scan(&status); err != nil {
		return "", fmt.Errorf("store: send status: %w", notFound(err))
	}
	return status, nil
}

// UpdateSend writes a send's progress (status, nonce, hash, signed transaction, error, attempts, when it is due) and
// ends the worker's lease on it, if the send is still as the worker read it (readAt, its updated_at then):
// ErrSendChanged otherwise, and the caller's transaction must not commit.
func (t *Tx) UpdateSend(ctx context.Context, s Send, readAt int64) error {
	res, err := t.exec(ctx, `UPDATE send_transactions SET status = ?, nonce = ?, tx_hash = ?, raw_tx = ?, error = ?, attempts = ?,
		next_at = ?, lease_until = 0, updated_at = ?, gas_cost_wei = ? WHERE org_id = ? AND id = ? AND updated_at = ?`,
		s.Status, s.Nonce, s.TxHash, s.RawTx, string(s.Error), s.Attempts, s.NextAt, s.UpdatedAt, s.GasCostWei, s.OrgID, s.ID, readAt)
	if err != nil {
		return fmt.Errorf("store: update send: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return ErrSendChanged
	}
	return nil
}

// SendByID is an organization's send; ErrNotFound when it has none by that id.
func (s *Store) SendByID(ctx context.Context, orgID, id string) (Send, error) {
	row := s.queryRow(ctx, "SELECT "+sendColumns+" FROM send_transactions WHERE id = ? AND org_id = ?", id, orgID)
	out, err := scanSend(row)
	if err != nil {
		return Send{}, fmt.Errorf("store: send: %w", notFound(err))
	}
	return out, nil
}

// SendByHash is an organization's latest send of a transaction hash; ErrNotFound when it has none.
func (s *Store) SendByHash(ctx context.Context, orgID, hash string) (Send, error) {
	row := s.queryRow(ctx, "SELECT "+sendColumns+" FROM send_transactions WHERE org_id = ? AND tx_hash = ? ORDER BY created_at DESC LIMIT 1", orgID, hash)
	out, err := scanSend(row)
	if err != nil {
		return Send{}, fmt.Errorf("store: send: %w", notFound(err))
	}
	return out, nil
}

// DueSends lists up to limit sends of a network that are not final, due at now and held by no worker, oldest first.
func (s *Store) DueSends(ctx context.Context, network string, now int64, limit int) ([]Send, error) {
	rows, err := s.query(ctx, "SELECT "+sendColumns+` FROM send_transactions
		WHERE network = ? AND status IN (?, ?) AND next_at <= ? AND lease_until < ? ORDER BY created_at LIMIT ?`,
		network, SendInitialized, SendBroadcasting, now, now, limit)
	if err != nil {
		return nil, fmt.Errorf("store: due sends: %w", err)
	}
	defer rows.Close()
	var out []Send
	for rows.Next() {
		sd, err := scanSend(rows)
		if err != nil {
			return nil, fmt.Errorf("store: scan send: %w", err)
		}
		out = append(out, sd)
	}
	return out, rows.Err()
}

// SponsoredInFlight reports whether an account has a sponsored send signed and not yet mined on a network (through
// the (network, status) index: signed sends waiting for their block are few).
func (s *Store) SponsoredInFlight(ctx context.Context, network, from string) (bool, error) {
	var one int
	err := s.queryRow(ctx, "SELECT 1 FROM send_transactions WHERE network = ? AND status = ? AND from_address = ? AND sponsor_org <> '' LIMIT 1",
		network, SendBroadcasting, from).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("store: sponsored sends in flight: %w", err)
	}
	return true, nil
}

// ClaimSend gives one worker an organization's send until the lease ends (unix nanoseconds), if no other holds it and
// it is still as the worker read it (updatedAt): false when another worker got it first, or moved it on since.
func (s *Store) ClaimSend(ctx context.Context, orgID, id string, updatedAt, now, until int64) (bool, error) {
	var claimed bool
	err := s.Write(ctx, func(tx *Tx) error {
		res, err := tx.exec(ctx, "UPDATE send_transactions SET lease_until = ? WHERE org_id = ? AND id = ? AND updated_at = ? AND lease_until < ? AND status IN (?, ?)",
			until, orgID, id, updatedAt, now, SendInitialized, SendBroadcasting)
		if err != nil {
			return fmt.Errorf("store: claim send: %w", err)
		}
		n, err := res.RowsAffected()
		claimed = n == 1
		return err
	})
	return claimed, err
}

// GasCost is what one sponsored send cost, or may still cost, on its network (decimal wei, or lamports).
type GasCost struct{ Network, Wei string }

// SponsoredGasCosts lists what sponsored sends cost since a time (unix nanoseconds): those a billing organization's
// sponsor paid for, or (orgID not "") those of one of its organizations. A mined send (included, or reverted) counts
// at its receipt's cost; a signed one not mined yet at the most it may cost (gas limit × fee cap), reserved until its
// receipt, however long ago it was signed.
func (s *Store) SponsoredGasCosts(ctx context.Context, sponsorOrg, orgID string, since int64) ([]GasCost, error) {
	return sponsoredGasCosts(ctx, s, sponsorOrg, orgID, since)
}

// SponsoredGasCosts is Store.SponsoredGasCosts in the transaction, which holds LockSponsorSpend: what it reads stays
// true until the transaction reserves what it signs, or ends.
func (t *Tx) SponsoredGasCosts(ctx context.Context, sponsorOrg, orgID string, since int64) ([]GasCost, error) {
	return sponsoredGasCosts(ctx, t, sponsorOrg, orgID, since)
}

func sponsoredGasCosts(ctx context.Context, on queryer, sponsorOrg, orgID string, since int64) ([]GasCost, error) {
	q := "SELECT network, gas_cost_wei FROM send_transactions WHERE sponsor_org = ? AND status IN (?, ?, ?) AND gas_cost_wei <> '' AND (updated_at >= ? OR status = ?)"
	args := []any{sponsorOrg, SendIncluded, SendFailed, SendBroadcasting, since, SendBroadcasting}
	if orgID != "" {
		q += " AND org_id = ?"
		args = append(args, orgID)
	}
	rows, err := on.rows(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: sponsored gas costs: %w", err)
	}
	defer rows.Close()
	var out []GasCost
	for rows.Next() {
		var c GasCost
		if err := rows.Scan(&c.Network, &c.Wei); err != nil {
			return nil, fmt.Errorf("store: sponsored gas costs: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// LockSponsorSpend holds a billing organization's sponsored spend for the transaction: another transaction that
// locks it, in any process, waits until this one ends. A worker takes it before it checks the organization's
// gas-spend limits and reserves what the send it signs may cost.
func (t *Tx) LockSponsorSpend(ctx context.Context, orgID string) error {
	_, err := t.exec(ctx, `INSERT INTO sponsor_spend_locks (org_id, signed) VALUES (?, 1)
		ON CONFLICT (org_id) DO UPDATE SET signed = sponsor_spend_locks.signed + 1`, orgID)
	if err != nil {
		return fmt.Errorf("store: lock sponsored spend: %w", err)
	}
	return nil
}

// TakeNonce gives the next nonce of an address on a network: the larger of the coordinator's next one and the chain's
// (chainNext, its pending transaction count), and moves the coordinator's past it. Under the row's lock, so that
// concurrent sends, from any process, take consecutive nonces.
func (t *Tx) TakeNonce(ctx context.Context, network, address string, chainNext uint64) (uint64, error) {
	_, err := t.exec(ctx, `INSERT INTO send_nonces (network, address, next_nonce) VALUES (?, ?, ?)
		ON CONFLICT (network, address) DO UPDATE SET next_nonce = CASE WHEN send_nonces.next_nonce >= excluded.next_nonce
		THEN send_nonces.next_nonce + 1 ELSE excluded.next_nonce END`, network, address, int64(chainNext)+1)
	if err != nil {
		return 0, fmt.Errorf("store: take nonce: %w", err)
	}
	var next int64
	if err := t.queryRow(ctx, "SELECT next_nonce FROM send_nonces WHERE network = ? AND address = ?", network, address).Scan(&next); err != nil {
		return 0, fmt.Errorf("store: take nonce: %w", err)
	}
	return uint64(next - 1), nil
}

// UseNonce records that a send took a nonce its caller chose: the coordinator's next one moves past it.
func (t *Tx) UseNonce(ctx context.Context, network, address string, nonce uint64) error {
	_, err := t.exec(ctx, `INSERT INTO send_nonces (network, address, next_nonce) VALUES (?, ?, ?)
		ON CONFLICT (network, address) DO UPDATE SET next_nonce = CASE WHEN send_nonces.next_nonce >= excluded.next_nonce
		THEN send_nonces.next_nonce ELSE excluded.next_nonce END`, network, address, int64(nonce)+1)
	if err != nil {
		return fmt.Errorf("store: use nonce: %w", err)
	}
	return nil
}

// ReleaseNonce gives back a nonce a send took that will never be used (its transaction refused for good), when it is
// the last the coordinator gave the address: its next send takes it again. released is false when a later nonce was
// given since, and the nonce must be filled (a transaction of the address must use it) for the later ones to be mined.
func (t *Tx) ReleaseNonce(ctx context.Context, network, address string, nonce uint64) (released bool, err error) {
	res, err := t.exec(ctx, "UPDATE send_nonces SET next_nonce = ? WHERE network = ? AND address = ? AND next_nonce = ?",
		int64(nonce), network, address, int64(nonce)+1)
	if err != nil {
		return false, fmt.Errorf("store: release nonce: %w", err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// NextNonce is the coordinator's next nonce of an address on a network; found is false when it has given none.
func (s *Store) NextNonce(ctx context.Context, network, address string) (next uint64, found bool, err error) {
	return nextNonce(s.queryRow(ctx, nextNonceQuery, network, address))
}

// NextNonce is Store.NextNonce in the transaction.
func (t *Tx) NextNonce(ctx context.Context, network, address string) (next uint64, found bool, err error) {
	return nextNonce(t.queryRow(ctx, nextNonceQuery, network, address))
}

const nextNonceQuery = "SELECT next_nonce FROM send_nonces WHERE network = ? AND address = ?"

func nextNonce(row durableRow) (uint64, bool, error) {
	var n int64
	err := row.Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("store: next nonce: %w", err)
	}
	return uint64(n), true, nil
}

// SignedSends lists a network's sends signed and not yet final (BROADCASTING), oldest first, in the transaction.
func (t *Tx) SignedSends(ctx context.Context, network string) ([]Send, error) {
	rows, err := t.query(ctx, "SELECT "+sendColumns+" FROM send_transactions WHERE network = ? AND status = ? ORDER BY created_at",
		network, SendBroadcasting)
	if err != nil {
		return nil, fmt.Errorf("store: signed sends: %w", err)
	}
	defer rows.Close()
	var out []Send
	for rows.Next() {
		sd, err := scanSend(rows)
		if err != nil {
			return nil, fmt.Errorf("store: scan send: %w", err)
		}
		out = append(out, sd)
	}
	return out, rows.Err()
}

// ActivityHasSend reports whether a send is recorded for an activity id, in the transaction.
func (t *Tx) ActivityHasSend(ctx context.Context, activityID string) (bool, error) {
	var one int
	err := t.queryRow(ctx, "SELECT 1 FROM send_transactions WHERE activity_id = ?", activityID).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("store: send of activity: %w", err)
	}
	return true, nil
}
