package coordinator

import (
	"errors"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/store"
)

// The queries of this file.
var (
	listWallets        = query(api.ListWallets, queryListWallets)
	getWallet          = query(api.GetWallet, queryGetWallet)
	listWalletAccounts = query(api.ListWalletAccounts, queryListWalletAccounts)
	getWalletAccount   = query(api.GetWalletAccount, queryGetWalletAccount)
	listPrivateKeys    = query(api.ListPrivateKeys, queryListPrivateKeys)
	getPrivateKey      = query(api.GetPrivateKey, queryGetPrivateKey)
)

func renderWallet(w *Wallet) api.Wallet {
	return api.Wallet{WalletID: w.ID, WalletName: w.Name, CreatedAt: api.NewTimestamp(w.CreatedAt),
		UpdatedAt: api.NewTimestamp(w.UpdatedAt), Exported: w.Exported, Imported: w.Imported}
}

func renderAccount(orgID string, w *Wallet, a *WalletAccount, details bool) api.WalletAccount {
	out := api.WalletAccount{WalletAccountID: a.ID, OrganizationID: orgID, WalletID: w.ID, Curve: a.Curve,
		PathFormat: a.PathFormat, Path: a.Path, AddressFormat: a.AddressFormat, Address: a.Address,
		CreatedAt: api.NewTimestamp(a.CreatedAt), UpdatedAt: api.NewTimestamp(a.UpdatedAt), PublicKey: a.PublicKey, Name: a.Name}
	if details {
		wd := renderWallet(w)
		out.WalletDetails = &wd
	}
	return out
}

func renderPrivateKey(k *PrivateKey) api.PrivateKey {
	return api.PrivateKey{PrivateKeyID: k.ID, PublicKey: k.PublicKey, PrivateKeyName: k.Name, Curve: k.Curve,
		Addresses: append([]api.Address{}, k.Addresses...), PrivateKeyTags: append([]string{}, k.Tags...),
		CreatedAt: api.NewTimestamp(k.CreatedAt), UpdatedAt: api.NewTimestamp(k.UpdatedAt), Exported: k.Exported, Imported: k.Imported}
}

func (r *reader) wallet(id string) (*Wallet, error) {
	if err := checkID("walletId", id); err != nil {
		return nil, err
	}
	if w := r.org.Wallet(id); w != nil {
		return w, nil
	}
	return nil, apierr.NotFoundf("wallet %s not found in organization %s", id, r.org.ID)
}

func queryListWallets(r *reader, _ *api.OrganizationRequest) (*api.ListWalletsResponse, error) {
	out := &api.ListWalletsResponse{Wallets: []api.Wallet{}}
	for _, w := range r.org.Wallets {
		out.Wallets = append(out.Wallets, renderWallet(w))
	}
	return out, nil
}

func queryGetWallet(r *reader, q *api.GetWalletRequest) (*api.GetWalletResponse, error) {
	w, err := r.wallet(q.WalletID)
	if err != nil {
		return nil, err
	}
	return &api.GetWalletResponse{Wallet: renderWallet(w)}, nil
}

// queryListWalletAccounts lists accounts of one wallet or of all, in creation order, a page read from the database
// (store.WalletAccounts) after or before an account's id.
func queryListWalletAccounts(r *reader, q *api.ListWalletAccountsRequest) (*api.ListWalletAccountsResponse, error) {
	limit, after, before, err := pageLimit(q.PaginationOptions)
	if err != nil {
		return nil, err
	}
	if q.WalletID != "" {
		if _, err := r.wallet(q.WalletID); err != nil {
			return nil, err
		}
	}
	for _, cursor := range []string{after, before} {
		if cursor != "" {
			if err := checkID("paginationOptions cursor", cursor); err != nil {
				return nil, err
			}
		}
	}
	rows, err := r.c.store.WalletAccounts(r.ctx, store.AccountPage{OrgID: r.org.ID, WalletID: q.WalletID, After: after, Before: before, Limit: limit})
	if errors.Is(err, store.ErrNotFound) {
		return nil, apierr.NotFoundf("paginationOptions: no wallet account %s%s in organization %s", after, before, r.org.ID)
	}
	if err != nil {
		return nil, err
	}
	details := q.IncludeWalletDetails != nil && *q.IncludeWalletDetails
	out := &api.ListWalletAccountsResponse{Accounts: []api.WalletAccount{}}
	for _, row := range rows {
		a, err := accountOf(row)
		if err != nil {
			return nil, err
		}
		if w := r.org.Wallet(a.WalletID); w != nil {
			out.Accounts = append(out.Accounts, renderAccount(r.org.ID, w, a, details))
		}
	}
	return out, nil
}

func queryGetWalletAccount(r *reader, q *api.GetWalletAccountRequest) (*api.GetWalletAccountResponse, error) {
	w, err := r.wallet(q.WalletID)
	if err != nil {
		return nil, err
	}
	if (q.Address == "") == (q.Path == "") {
		return nil, apierr.Invalid("give exactly one of address and path")
	}
	by := store.AccountKey{WalletID: w.ID, AddressKey: addressKey(q.Address), Path: q.Path}
	if q.Path != "" {
		by.AddressKey = ""
	}
	a, err := findAccount(r.ctx, r.c.store, r.org.ID, by)
	if err != nil {
		return nil, err
	}
	if a == nil {
		return nil, apierr.NotFoundf("no account %s%s in wallet %s", q.Address, q.Path, w.ID)
	}
	return &api.GetWalletAccountResponse{Account: renderAccount(r.org.ID, w, a, false)}, nil
}

func queryListPrivateKeys(r *reader, _ *api.OrganizationRequest) (*api.ListPrivateKeysResponse, error) {
	out := &api.ListPrivateKeysResponse{PrivateKeys: []api.PrivateKey{}}
	for _, k := range r.org.PrivateKeys {
		out.PrivateKeys = append(out.PrivateKeys, renderPrivateKey(k))
	}
	return out, nil
}

func queryGetPrivateKey(r *reader, q *api.GetPrivateKeyRequest) (*api.GetPrivateKeyResponse, error) {
	if err := checkID("privateKeyId", q.PrivateKeyID); err != nil {
		return nil, err
	}
	k := r.org.PrivateKey(q.PrivateKeyID)
	if k == nil {
		return nil, apierr.NotFoundf("private key %s not found in organization %s", q.PrivateKeyID, r.org.ID)
	}
	return &api.GetPrivateKeyResponse{PrivateKey: renderPrivateKey(k)}, nil
}

// signer finds the key signWith names in the organization asked about.
func (r *reader) signer(signWith string) (*signer, error) {
	return r.c.signer(r.ctx, r.c.store, r.org, signWith)
}
