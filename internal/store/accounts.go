package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// WalletAccount is one account of an HD wallet: a row of its organization, found by id, by address or by its wallet and
// path, and listed in creation order (Seq) without reading the others.
type WalletAccount struct {
	OrgID         string
	Seq           int64 // the account's place in its organization, from 1
	ID            string
	WalletID      string
	Name          string
	Curve         string
	PathFormat    string
	Path          string
	AddressFormat string
	Address       string
	AddressKey    string // the address as looked up: 0x hex in lower case, anything else as it is
	PublicKey     string
	KeySecret     string // the sealed_secrets row of its private key
	CreatedAt     string // RFC 3339, as the organization document writes times
	UpdatedAt     string
}

const accountColumns = "org_id, seq, id, wallet_id, name, curve, path_format, path, address_format, address, address_key, public_key, key_secret, created_at, updated_at"

func scanAccount(row interface{ Scan(...any) error }) (WalletAccount, error) {
	var a WalletAccount
	err := row.Scan(&a.OrgID, &a.Seq, &a.ID, &a.WalletID, &a.Name, &a.Curve, &a.PathFormat, &a.Path, &a.AddressFormat,
		&a.Address, &a.AddressKey, &a.PublicKey, &a.KeySecret, &a.CreatedAt, &a.UpdatedAt)
	return a, err
}

// AccountReader reads wallet accounts: the store outside any transaction, or a transaction, which sees its own writes
// and takes no other connection.
type AccountReader interface {
	WalletAccount(ctx context.Context, orgID string, by AccountKey) (WalletAccount, error)
	WalletAccounts(ctx context.Context, p AccountPage) ([]WalletAccount, error)
}

// AccountKey names one account of an organization: by id, by address (the first created, when two wallets derived it),
// or by its wallet and path (the first created at that path), narrowed by wallet, curve and address format when they
// are set.
type AccountKey struct {
	ID            string
	AddressKey    string
	Path          string // with WalletID
	WalletID      string
	Curve         string
	AddressFormat string
}

// AccountPage selects a page of an organization's accounts (of one wallet, when WalletID is set) in creation order:
// after an account (forward) or before one (backward); a cursor that names no account of the organization is
// ErrNotFound.
type AccountPage struct {
	OrgID         string
	WalletID      string
	After, Before string // account ids
	Limit         int
}

// queryer reads in a transaction or outside one.
type queryer interface {
	sqlDialect() dialect
	queryRow(ctx context.Context, q string, args ...any) durableRow
	rows(ctx context.Context, q string, args ...any) (rowScanner, error)
}

func (s *Store) sqlDialect() dialect { return s.dialect }
func (t *Tx) sqlDialect() dialect    { return t.d }

func (s *Store) rows(ctx context.Context, q string, args ...any) (rowScanner, error) {
	r, err := s.query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	return r, nil
}

func (t *Tx) rows(ctx context.Context, q string, args ...any) (rowScanner, error) {
	r, err := t.query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	return r, nil
}

// WalletAccount reads one account of an organization.
func (s *Store) WalletAccount(ctx context.Context, orgID string, by AccountKey) (WalletAccount, error) {
	return walletAccount(ctx, s, orgID, by)
}

// WalletAccount reads one account of an organization in the transaction.
func (t *Tx) WalletAccount(ctx context.Context, orgID string, by AccountKey) (WalletAccount, error) {
	return walletAccount(ctx, t, orgID, by)
}

func walletAccount(ctx context.Context, q queryer, orgID string, by AccountKey) (WalletAccount, error) {
	// Each way reads its own index, the first created first.
	var index, where, order string
	args := []any{orgID}
	switch {
	case by.ID != "":
		index, where, order = "wallet_accounts_id", "id = ?", "org_id, id"
		args = append(args, by.ID)
	case by.AddressKey != "":
		index, where, order = "wallet_accounts_address", "address_key = ?", "address_key, org_id, seq"
		args = append(args, by.AddressKey)
	case by.Path != "" && by.WalletID != "":
		index, where, order = "wallet_accounts_path", "path = ?", "org_id, wallet_id, path, seq"
		args = append(args, by.Path)
	default:
		return WalletAccount{}, fmt.Errorf("store: an account is found by id, address, or wallet and path")
	}
	query := "SELECT " + accountColumns + " FROM wallet_accounts" + q.sqlDialect().indexedBy(index) + " WHERE org_id = ? AND " + where
	for _, c := range []struct{ column, value string }{{"wallet_id", by.WalletID}, {"curve", by.Curve}, {"address_format", by.AddressFormat}} {
		if c.value != "" {
			query += " AND " + c.column + " = ?"
			args = append(args, c.value)
		}
	}
	a, err := scanAccount(q.queryRow(ctx, query+" ORDER BY "+order+" LIMIT 1", args...))
	return a, notFound(err)
}

// WalletAccounts reads a page of accounts.
func (s *Store) WalletAccounts(ctx context.Context, p AccountPage) ([]WalletAccount, error) {
	return walletAccounts(ctx, s, p)
}

// WalletAccounts reads a page of accounts in the transaction.
func (t *Tx) WalletAccounts(ctx context.Context, p AccountPage) ([]WalletAccount, error) {
	return walletAccounts(ctx, t, p)
}

func walletAccounts(ctx context.Context, q queryer, p AccountPage) ([]WalletAccount, error) {
	query := "SELECT " + accountColumns + " FROM wallet_accounts WHERE org_id = ?"
	args := []any{p.OrgID}
	if p.WalletID != "" {
		query = "SELECT " + accountColumns + " FROM wallet_accounts" + q.sqlDialect().indexedBy("wallet_accounts_wallet") + " WHERE org_id = ? AND wallet_id = ?"
		args = append(args, p.WalletID)
	}
	order := "ASC"
	for _, cursor := range []struct {
		id, op string
	}{{p.After, ">"}, {p.Before, "<"}} {
		if cursor.id == "" {
			continue
		}
		var seq int64
		if err := q.queryRow(ctx, "SELECT seq FROM wallet_accounts WHERE org_id = ? AND id = ?", p.OrgID, cursor.id).Scan(&seq); err != nil {
			return nil, notFound(err)
		}
		query += " AND seq " + cursor.op + " ?"
		args = append(args, seq)
		if cursor.op == "<" {
			order = "DESC"
		}
	}
	query += fmt.Sprintf(" ORDER BY seq %s LIMIT %d", order, p.Limit)
	rows, err := q.rows(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []WalletAccount{}
	for rows.Next() {
		a, err := scanAccount(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	if order == "DESC" {
		slices.Reverse(out)
	}
	return out, rows.Err()
}

// LastAccountSeq is the place of the organization's newest account (0 for none); the next one takes the places after
// it. Call it with the organization locked, so that no one else takes them meanwhile.
func (t *Tx) LastAccountSeq(ctx context.Context, orgID string) (int64, error) {
	var seq int64
	err := t.queryRow(ctx, "SELECT COALESCE(MAX(seq), 0) FROM wallet_accounts WHERE org_id = ?", orgID).Scan(&seq)
	return seq, err
}

// accountsPerInsert bounds the rows of one INSERT: SQLite allows 32,766 parameters to a statement.
const accountsPerInsert = 500

// InsertWalletAccounts adds accounts, a few hundred rows a statement.
func (t *Tx) InsertWalletAccounts(ctx context.Context, accounts []WalletAccount) error {
	for len(accounts) > 0 {
		n := min(len(accounts), accountsPerInsert)
		var b strings.Builder
		b.WriteString("INSERT INTO wallet_accounts (" + accountColumns + ") VALUES ")
		args := make([]any, 0, n*15)
		for i, a := range accounts[:n] {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
			args = append(args, a.OrgID, a.Seq, a.ID, a.WalletID, a.Name, a.Curve, a.PathFormat, a.Path, a.AddressFormat,
				a.Address, a.AddressKey, a.PublicKey, a.KeySecret, a.CreatedAt, a.UpdatedAt)
		}
		if _, err := t.exec(ctx, b.String(), args...); err != nil {
			return fmt.Errorf("store: insert wallet accounts: %w", err)
		}
		accounts = accounts[n:]
	}
	return nil
}

// DeleteWalletAccounts removes accounts of an organization by id, with their sealed keys.
func (t *Tx) DeleteWalletAccounts(ctx context.Context, orgID string, ids []string) error {
	for _, id := range ids {
		if err := t.deleteAccounts(ctx, orgID, "id", id); err != nil {
			return fmt.Errorf("store: delete wallet account: %w", err)
		}
	}
	return nil
}

// DeleteWalletsAccounts removes every account of the wallets, with their sealed keys.
func (t *Tx) DeleteWalletsAccounts(ctx context.Context, orgID string, walletIDs []string) error {
	for _, id := range walletIDs {
		if err := t.deleteAccounts(ctx, orgID, "wallet_id", id); err != nil {
			return fmt.Errorf("store: delete wallet accounts: %w", err)
		}
	}
	return nil
}

// deleteAccounts removes the organization's accounts whose column (id or wallet_id) is value, and their sealed keys.
func (t *Tx) deleteAccounts(ctx context.Context, orgID, column, value string) error {
	if _, err := t.exec(ctx, "DELETE FROM sealed_secrets WHERE org_id = ? AND id IN (SELECT key_secret FROM wallet_accounts WHERE org_id = ? AND "+column+" = ?)",
		orgID, orgID, value); err != nil {
		return err
	}
	_, err := t.exec(ctx, "DELETE FROM wallet_accounts WHERE org_id = ? AND "+column+" = ?", orgID, value)
	return err
}

// AccountOwners lists the organizations holding a wallet account at an address (by its AddressKey).
func (s *Store) AccountOwners(ctx context.Context, addressKey string) ([]IndexHit, error) {
	rows, err := s.query(ctx, `SELECT DISTINCT a.org_id, o.parent_id FROM wallet_accounts a`+s.dialect.indexedBy("wallet_accounts_address")+`
		JOIN organizations o ON o.id = a.org_id WHERE a.address_key = ? ORDER BY a.org_id`, addressKey)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var hits []IndexHit
	for rows.Next() {
		var h IndexHit
		if err := rows.Scan(&h.OrgID, &h.ParentID); err != nil {
			return nil, err
		}
		hits = append(hits, h)
	}
	return hits, rows.Err()
}
