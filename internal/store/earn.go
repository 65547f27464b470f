package store

import (
	"context"
	"fmt"
)

// The kinds of Earn requests.
const (
	EarnDeploy       = "deploy"
	EarnDeposit      = "deposit"
	EarnWithdraw     = "withdraw"
	EarnClaimRewards = "claim_rewards"
	EarnClaimFees    = "claim_fees"
)

// EarnWrapper is a fee wrapper an organization deployed: a row of earn_wrappers. Addresses are lower-case hex.
type EarnWrapper struct {
	OrgID, Network, Wrapper, Vault, Splitter string
	ClientFeeBps                             int64
	ClientFeeWallet                          string
	PlatformFeeBps                           int64
	DepositsDisabled                         bool
	DeployRequestID                          string
	CreatedAt                                int64 // unix nanoseconds
}

// EarnRequest is one Earn request of an organization: a row of earn_requests, with the state of its send.
type EarnRequest struct {
	OrgID, ID, Kind, Network string
	Wrapper, Wallet          string // lower-case hex; Wrapper is "" for a rewards claim
	Amount                   string // base units; "MAX" for a whole withdrawal; "" when the kind has none
	SendID                   string // "" when nothing was sent (a deployment found on chain already)
	CreatedAt                int64
	// The send's state, read with the request (empty when SendID is).
	Send *Send
}

const earnWrapperColumns = "org_id, network, wrapper, vault, splitter, client_fee_bps, client_fee_wallet, platform_fee_bps, deposits_disabled, deploy_request_id, created_at"

func scanEarnWrapper(row interface{ Scan(...any) error }) (EarnWrapper, error) {
	var w EarnWrapper
	var disabled int
	err := row.Scan(&w.OrgID, &w.Network, &w.Wrapper, &w.Vault, &w.Splitter, &w.ClientFeeBps, &w.ClientFeeWallet, &w.PlatformFeeBps,
		&disabled, &w.DeployRequestID, &w.CreatedAt)
	w.DepositsDisabled = disabled != 0
	return w, err
}

// InsertEarnWrapper records a wrapper an organization deployed (which it has not recorded: see EarnWrapper).
func (t *Tx) InsertEarnWrapper(ctx context.Context, w EarnWrapper) error {
	_, err := t.exec(ctx, "INSERT INTO earn_wrappers ("+earnWrapperColumns+") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		w.OrgID, w.Network, w.Wrapper, w.Vault, w.Splitter, w.ClientFeeBps, w.ClientFeeWallet, w.PlatformFeeBps, boolInt(w.DepositsDisabled),
		w.DeployRequestID, w.CreatedAt)
	if err != nil {
		return fmt.Errorf("store: insert earn wrapper: %w", err)
	}
	return nil
}

// EarnWrapper is an organization's wrapper, read in the transaction that would record it; ErrNotFound when it has none.
func (t *Tx) EarnWrapper(ctx context.Context, orgID, network, wrapper string) (EarnWrapper, error) {
	w, err := scanEarnWrapper(t.queryRow(ctx, "SELECT "+earnWrapperColumns+" FROM earn_wrappers WHERE org_id = ? AND network = ? AND wrapper = ?",
		orgID, network, wrapper))
	if err != nil {
		return EarnWrapper{}, fmt.Errorf("store: earn wrapper: %w", notFound(err))
	}
	return w, nil
}

// CountEarnWrappers counts an organization's wrappers, on every network, in the transaction that would add one.
func (t *Tx) CountEarnWrappers(ctx context.Context, orgID string) (int, error) {
	var n int
	if err := t.queryRow(ctx, "SELECT COUNT(*) FROM earn_wrappers WHERE org_id = ?", orgID).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: count earn wrappers: %w", err)
	}
	return n, nil
}

// SetEarnWrapperDeposits pauses (disabled) or resumes deposits to an organization's wrapper; ErrNotFound when it has
// no such wrapper.
func (t *Tx) SetEarnWrapperDeposits(ctx context.Context, orgID, network, wrapper string, disabled bool) error {
	res, err := t.exec(ctx, "UPDATE earn_wrappers SET deposits_disabled = ? WHERE org_id = ? AND network = ? AND wrapper = ?",
		boolInt(disabled), orgID, network, wrapper)
	if err != nil {
		return fmt.Errorf("store: set earn wrapper state: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return fmt.Errorf("store: set earn wrapper state: %w", ErrNotFound)
	}
	return nil
}

// EarnWrappers lists the wrappers of the organizations (an organization and its parent, for a sub-organization's
// deposits), oldest first; network "" is every network.
func (s *Store) EarnWrappers(ctx context.Context, network string, orgIDs ...string) ([]EarnWrapper, error) {
	if len(orgIDs) == 0 {
		return nil, nil
	}
	q := "SELECT " + earnWrapperColumns + " FROM earn_wrappers WHERE org_id IN (?" + repeatPlaceholders(len(orgIDs)-1) + ")"
	args := make([]any, 0, len(orgIDs)+1)
	for _, id := range orgIDs {
		args = append(args, id)
	}
	if network != "" {
		q += " AND network = ?"
		args = append(args, network)
	}
	rows, err := s.query(ctx, q+" ORDER BY created_at, wrapper", args...)
	if err != nil {
		return nil, fmt.Errorf("store: earn wrappers: %w", err)
	}
	defer rows.Close()
	var out []EarnWrapper
	for rows.Next() {
		w, err := scanEarnWrapper(rows)
		if err != nil {
			return nil, fmt.Errorf("store: scan earn wrapper: %w", err)
		}
		out = append(out, w)
	}
	return out, rows.Err()
}

// InsertEarnRequest records an Earn request, in the transaction of the activity that made it (with its send).
func (t *Tx) InsertEarnRequest(ctx context.Context, r EarnRequest) error {
	_, err := t.exec(ctx, "INSERT INTO earn_requests (org_id, id, kind, network, wrapper, wallet, amount, send_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
		r.OrgID, r.ID, r.Kind, r.Network, r.Wrapper, r.Wallet, r.Amount, r.SendID, r.CreatedAt)
	if err != nil {
		return fmt.Errorf("store: insert earn request: %w", err)
	}
	return nil
}

const earnRequestColumns = "r.org_id, r.id, r.kind, r.network, r.wrapper, r.wallet, r.amount, r.send_id, r.created_at"

// earnRequestSelect joins each request to its send (a request with no send has NULL send columns).
const earnRequestSelect = "SELECT " + earnRequestColumns + ", COALESCE(s.status, ''), COALESCE(s.tx_hash, ''), COALESCE(s.error, ''), COALESCE(s.updated_at, 0)" +
	" FROM earn_requests r LEFT JOIN send_transactions s ON s.id = r.send_id AND r.send_id <> ''"

func scanEarnRequest(row interface{ Scan(...any) error }) (EarnRequest, error) {
	var r EarnRequest
	var status, hash, errText string
	var updated int64
	if err := row.Scan(&r.OrgID, &r.ID, &r.Kind, &r.Network, &r.Wrapper, &r.Wallet, &r.Amount, &r.SendID, &r.CreatedAt,
		&status, &hash, &errText, &updated); err != nil {
		return r, err
	}
	if r.SendID != "" {
		r.Send = &Send{ID: r.SendID, OrgID: r.OrgID, Network: r.Network, Status: status, TxHash: hash, Error: []byte(errText), UpdatedAt: updated}
	}
	return r, nil
}

// EarnRequestByID is an organization's Earn request of a kind; ErrNotFound when it has none by that id.
func (s *Store) EarnRequestByID(ctx context.Context, orgID, kind, id string) (EarnRequest, error) {
	r, err := scanEarnRequest(s.queryRow(ctx, earnRequestSelect+" WHERE r.org_id = ? AND r.id = ? AND r.kind = ?", orgID, id, kind))
	if err != nil {
		return EarnRequest{}, fmt.Errorf("store: earn request: %w", notFound(err))
	}
	return r, nil
}

// EarnPositionRequests lists an organization's deposits and withdrawals of a wallet, in every wrapper, oldest first:
// what a position's lifetime totals are summed from.
func (s *Store) EarnPositionRequests(ctx context.Context, orgID, wallet string) ([]EarnRequest, error) {
	rows, err := s.query(ctx, earnRequestSelect+" WHERE r.org_id = ? AND r.wallet = ? AND r.kind IN (?, ?) ORDER BY r.created_at, r.id",
		orgID, wallet, EarnDeposit, EarnWithdraw)
	if err != nil {
		return nil, fmt.Errorf("store: earn position requests: %w", err)
	}
	defer rows.Close()
	var out []EarnRequest
	for rows.Next() {
		r, err := scanEarnRequest(rows)
		if err != nil {
			return nil, fmt.Errorf("store: scan earn request: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func repeatPlaceholders(n int) string {
	s := ""
	for range n {
		s += ", ?"
	}
	return s
}
