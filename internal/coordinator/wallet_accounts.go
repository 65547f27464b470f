package coordinator

import (
	"slices"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
)

// deleteWalletAccounts deletes accounts of the organization's wallets, and their sealed keys.
var deleteWalletAccounts = activity(api.DeleteWalletAccounts, on(resWallet, actDelete), validateDeleteWalletAccounts, execDeleteWalletAccounts)

func validateDeleteWalletAccounts(p *api.DeleteWalletAccountsIntent) error {
	return checkIDs("parameters.walletAccountIds", p.WalletAccountIDs, false)
}

// execDeleteWalletAccounts deletes accounts; one whose wallet was never exported is refused unless
// deleteWithoutExport accepts losing its key for good (the wallet's mnemonic, when exported, derives it again).
func execDeleteWalletAccounts(x *execution, p *api.DeleteWalletAccountsIntent) (*api.DeleteWalletAccountsResult, error) {
	withoutExport := p.DeleteWithoutExport != nil && *p.DeleteWithoutExport
	var secrets []string
	for _, id := range p.WalletAccountIDs {
		w, a := x.org.walletAccount(id)
		if a == nil {
			return nil, apierr.NotFoundf("wallet account %s not found", id)
		}
		if !w.Exported && !withoutExport {
			return nil, apierr.New(apierr.FailedPrecondition, "REQUEST_INVALID", "wallet account %s belongs to wallet %s, which has never been exported; set deleteWithoutExport to delete it and lose its key for good", id, w.ID)
		}
		secrets = append(secrets, a.KeySecret)
	}
	for _, w := range x.org.Wallets {
		w.Accounts = slices.DeleteFunc(w.Accounts, func(a *WalletAccount) bool { return slices.Contains(p.WalletAccountIDs, a.ID) })
	}
	if err := x.tx.DeleteSecrets(x.ctx, secrets...); err != nil {
		return nil, err
	}
	return &api.DeleteWalletAccountsResult{WalletAccountIDs: p.WalletAccountIDs}, nil
}

// walletAccount finds an account and its wallet by the account's id.
func (o *Org) walletAccount(id string) (*Wallet, *WalletAccount) {
	for _, w := range o.Wallets {
		for _, a := range w.Accounts {
			if a.ID == id {
				return w, a
			}
		}
	}
	return nil, nil
}
