package coordinator

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/store"
)

// deleteWalletAccounts deletes accounts of the organization's wallets, and their sealed keys.
var deleteWalletAccounts = activity(api.DeleteWalletAccounts, on(resWallet, actDelete), validateDeleteWalletAccounts, execDeleteWalletAccounts)

// WalletAccount is one derived account. Accounts are not in the organization document, which they would make grow
// without bound: each is a row of its organization (store.WalletAccount), read by id, address or path when an activity
// names it. Its private key was derived once, when the account was created, and sealed: signing opens that key and never
// derives again from the mnemonic.
type WalletAccount struct {
	ID            string
	WalletID      string
	Name          string
	Curve         string
	PathFormat    string
	Path          string
	AddressFormat string
	Address       string
	PublicKey     string
	KeySecret     string
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// accountOf decodes an account's row. Its times are written as the organization document writes times.
func accountOf(r store.WalletAccount) (*WalletAccount, error) {
	created, err := time.Parse(time.RFC3339Nano, r.CreatedAt)
	if err != nil {
		return nil, fmt.Errorf("wallet account %s: createdAt: %w", r.ID, err)
	}
	updated, err := time.Parse(time.RFC3339Nano, r.UpdatedAt)
	if err != nil {
		return nil, fmt.Errorf("wallet account %s: updatedAt: %w", r.ID, err)
	}
	return &WalletAccount{ID: r.ID, WalletID: r.WalletID, Name: r.Name, Curve: r.Curve, PathFormat: r.PathFormat, Path: r.Path,
		AddressFormat: r.AddressFormat, Address: r.Address, PublicKey: r.PublicKey, KeySecret: r.KeySecret,
		CreatedAt: created, UpdatedAt: updated}, nil
}

// row is the account's row in its organization, at its place seq.
func (a *WalletAccount) row(orgID string, seq int64) store.WalletAccount {
	return store.WalletAccount{OrgID: orgID, Seq: seq, ID: a.ID, WalletID: a.WalletID, Name: a.Name, Curve: a.Curve,
		PathFormat: a.PathFormat, Path: a.Path, AddressFormat: a.AddressFormat, Address: a.Address,
		AddressKey: addressKey(a.Address), PublicKey: a.PublicKey, KeySecret: a.KeySecret,
		CreatedAt: a.CreatedAt.Format(time.RFC3339Nano), UpdatedAt: a.UpdatedAt.Format(time.RFC3339Nano)}
}

// accounts reads the organization's accounts where the execution is: in its transaction (which sees its own writes
// and holds no second connection), or from the store for an activity decided ahead of any transaction.
func (x *execution) accounts() store.AccountReader {
	if x.tx != nil {
		return x.tx
	}
	return x.c.store
}

// findAccount reads one account of org; nil when there is none.
func findAccount(ctx context.Context, db store.AccountReader, orgID string, by store.AccountKey) (*WalletAccount, error) {
	row, err := db.WalletAccount(ctx, orgID, by)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return accountOf(row)
}

// addressOwners lists the organizations holding an address (by its addressKey): in a wallet account, or in a private
// key (indexed with its document).
func (c *Coordinator) addressOwners(ctx context.Context, key string) ([]store.IndexHit, error) {
	accounts, err := c.store.AccountOwners(ctx, key)
	if err != nil {
		return nil, err
	}
	keys, err := c.store.FindIndex(ctx, indexAddress, key)
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		if !slices.Contains(accounts, k) {
			accounts = append(accounts, k)
		}
	}
	return accounts, nil
}

func validateDeleteWalletAccounts(p *api.DeleteWalletAccountsIntent) error {
	return checkIDs("parameters.walletAccountIds", p.WalletAccountIDs, false)
}

// execDeleteWalletAccounts deletes accounts; one whose wallet was never exported is refused unless
// deleteWithoutExport accepts losing its key for good (the wallet's mnemonic, when exported, derives it again).
func execDeleteWalletAccounts(x *execution, p *api.DeleteWalletAccountsIntent) (*api.DeleteWalletAccountsResult, error) {
	withoutExport := p.DeleteWithoutExport != nil && *p.DeleteWithoutExport
	for _, id := range p.WalletAccountIDs {
		a, err := findAccount(x.ctx, x.tx, x.org.ID, store.AccountKey{ID: id})
		if err != nil {
			return nil, err
		}
		w := (*Wallet)(nil)
		if a != nil {
			w = x.org.Wallet(a.WalletID)
		}
		if w == nil {
			return nil, apierr.NotFoundf("wallet account %s not found", id)
		}
		if !w.Exported && !withoutExport {
			return nil, apierr.New(apierr.FailedPrecondition, "REQUEST_INVALID", "wallet account %s belongs to wallet %s, which has never been exported; set deleteWithoutExport to delete it and lose its key for good", id, w.ID)
		}
	}
	if err := x.tx.DeleteWalletAccounts(x.ctx, x.org.ID, p.WalletAccountIDs); err != nil {
		return nil, err
	}
	x.org.removedAccounts()
	return &api.DeleteWalletAccountsResult{WalletAccountIDs: p.WalletAccountIDs}, nil
}

// removedAccounts notes in the document that accounts were deleted: the document changes (and with it its version),
// so that a signing decided against an older version is decided again, and accounts remembered before no longer count
// (accountCache).
func (o *Org) removedAccounts() { o.AccountRemovals++ }

// accountCache remembers which account signWith names in an organization, so that signing, decided ahead against the
// cached document, reads no row at all in the common case. Accounts never change once created; they are only
// deleted, which counts in the document's AccountRemovals. An account found stays true while that count is the one it
// was read under; "no such account" only for the document version it was read at (an account created since changes
// the version).
type accountCache struct{ cache[accountMemo] }

type accountMemo struct {
	account  *WalletAccount // nil: no account of the organization is named so
	version  int64          // the document version it was read at
	removals int64          // the document's AccountRemovals then
}

func accountCacheKey(orgID, signWith string) string { return orgID + "/" + addressKey(signWith) }

// get returns the remembered account signWith names in org, and whether it is remembered.
func (c *accountCache) get(org *Org, signWith string) (*WalletAccount, bool) {
	m, ok := c.cache.get(accountCacheKey(org.ID, signWith))
	switch {
	case !ok:
		return nil, false
	case m.account != nil:
		return m.account, m.removals == org.AccountRemovals
	default:
		return nil, m.version == org.version
	}
}

func (c *accountCache) put(org *Org, signWith string, a *WalletAccount) {
	c.cache.put(accountCacheKey(org.ID, signWith), accountMemo{account: a, version: org.version, removals: org.AccountRemovals}, nil)
}
