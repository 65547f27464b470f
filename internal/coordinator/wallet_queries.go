package coordinator

import (
	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
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

// queryListWalletAccounts lists accounts of one wallet or of all, in creation order, paginated by account id.
func queryListWalletAccounts(r *reader, q *api.ListWalletAccountsRequest) (*api.ListWalletAccountsResponse, error) {
	limit, after, before, err := pageLimit(q.PaginationOptions)
	if err != nil {
		return nil, err
	}
	wallets := r.org.Wallets
	if q.WalletID != "" {
		w, err := r.wallet(q.WalletID)
		if err != nil {
			return nil, err
		}
		wallets = []*Wallet{w}
	}
	details := q.IncludeWalletDetails != nil && *q.IncludeWalletDetails
	var all []api.WalletAccount
	for _, w := range wallets {
		for _, a := range w.Accounts {
			all = append(all, renderAccount(r.org.ID, w, a, details))
		}
	}
	return &api.ListWalletAccountsResponse{Accounts: paginate(all, after, before, limit, func(a api.WalletAccount) string { return a.WalletAccountID })}, nil
}

// paginate cuts a page out of items by cursor ids: after an id (forward) or before one (backward).
func paginate[T any](items []T, after, before string, limit int, id func(T) string) []T {
	start, end := 0, len(items)
	for i, it := range items {
		if after != "" && id(it) == after {
			start = i + 1
		}
		if before != "" && id(it) == before {
			end = i
		}
	}
	if start > end {
		return []T{}
	}
	page := items[start:end]
	if before != "" && len(page) > limit {
		page = page[len(page)-limit:]
	} else if len(page) > limit {
		page = page[:limit]
	}
	return append([]T{}, page...)
}

func queryGetWalletAccount(r *reader, q *api.GetWalletAccountRequest) (*api.GetWalletAccountResponse, error) {
	w, err := r.wallet(q.WalletID)
	if err != nil {
		return nil, err
	}
	if (q.Address == "") == (q.Path == "") {
		return nil, apierr.Invalid("give exactly one of address and path")
	}
	for _, a := range w.Accounts {
		if (q.Address != "" && sameAddress(a.Address, q.Address)) || (q.Path != "" && a.Path == q.Path) {
			return &api.GetWalletAccountResponse{Account: renderAccount(r.org.ID, w, a, false)}, nil
		}
	}
	return nil, apierr.NotFoundf("no account %s%s in wallet %s", q.Address, q.Path, w.ID)
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
