package coordinator

import (
	"fmt"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/keys"
	"github.com/sigil/sigil/internal/store"
)

// walletKeys are the keys an activity creates in a wallet — a new wallet's mnemonic, or accounts derived from a
// wallet's — each derived and sealed, ready to be stored. Deriving (PBKDF2 of the mnemonic, an elliptic curve
// multiplication per path level) and sealing cost far more than storing: done ahead of the activity's transaction
// (Activity.Ahead) they run beside other requests, where in the transaction they would hold the organization, and on
// SQLite every write of every organization, for all that time.
type walletKeys struct {
	wallet   *Wallet      // a new wallet; nil when accounts are added to an existing one
	mnemonic sealedSecret // a new wallet's mnemonic
	from     string       // the sealed mnemonic the accounts were derived from
	accounts []*WalletAccount
	sealed   []sealedSecret // each account's key, in order; none when the accounts are not kept (persist false)
}

// newWalletKeys makes a wallet: a fresh mnemonic, sealed, and the accounts derived from it.
func (x *execution) newWalletKeys(p api.WalletParams) (*walletKeys, error) {
	words, _ := checkMnemonicLength("mnemonicLength", p.MnemonicLength)
	mnemonic, err := keys.NewMnemonic(words)
	if err != nil {
		return nil, err
	}
	defer keys.Zero(mnemonic)
	sealed, err := x.c.seal(mnemonic)
	if err != nil {
		return nil, err
	}
	w := &Wallet{ID: newID(), Name: p.WalletName, MnemonicSecret: sealed.id, CreatedAt: x.now, UpdatedAt: x.now}
	k, err := x.deriveKeys(w, mnemonic, p.Accounts, true)
	if err != nil {
		return nil, err
	}
	k.wallet, k.mnemonic = w, sealed
	return k, nil
}

// deriveKeys derives accounts of w from its mnemonic and, with persist, seals their keys. It needs no transaction.
// A request naming one account twice is refused.
func (x *execution) deriveKeys(w *Wallet, mnemonic []byte, params []api.WalletAccountParams, persist bool) (*walletKeys, error) {
	seed, err := keys.SeedFromMnemonic(mnemonic, "")
	if err != nil {
		return nil, err
	}
	defer keys.Zero(seed)
	k := &walletKeys{from: w.MnemonicSecret, accounts: make([]*WalletAccount, 0, len(params))}
	for i, a := range params {
		path := fmt.Sprintf("parameters.accounts[%d]", i)
		curve, p, format, err := checkAccount(path, a)
		if err != nil {
			return nil, err
		}
		account, key, err := x.deriveAccount(w, seed, curve, p, format, a)
		if err != nil {
			return nil, apierr.Invalid("%s: %s", path, err.Error())
		}
		for _, o := range k.accounts {
			if o.sameDerivation(account) {
				keys.Zero(key)
				return nil, apierr.Invalid("%s: the wallet already has the account %s (%s)", path, o.Path, o.AddressFormat)
			}
		}
		if persist {
			s, err := x.c.seal(key)
			if err != nil {
				keys.Zero(key)
				return nil, err
			}
			account.KeySecret = s.id
			k.sealed = append(k.sealed, s)
		}
		keys.Zero(key)
		k.accounts = append(k.accounts, account)
	}
	return k, nil
}

// deriveAccount derives one account and returns it with its private key, which the caller wipes.
func (x *execution) deriveAccount(w *Wallet, seed []byte, curve keys.Curve, p keys.Path, format keys.AddressFormat, a api.WalletAccountParams) (*WalletAccount, []byte, error) {
	node, err := keys.DeriveNode(curve, seed, p)
	if err != nil {
		return nil, nil, err
	}
	defer node.Zero()
	address, err := keys.Address(curve, format, node.PublicKey)
	if err != nil {
		return nil, nil, err
	}
	account := &WalletAccount{ID: newID(), WalletID: w.ID, Name: a.Name, Curve: a.Curve, PathFormat: a.PathFormat, Path: p.String(),
		AddressFormat: a.AddressFormat, Address: address, PublicKey: fmt.Sprintf("%x", node.PublicKey), CreatedAt: x.now, UpdatedAt: x.now}
	return account, append([]byte(nil), node.PrivateKey[:]...), nil
}

// sameDerivation reports whether two accounts are the one account a wallet may hold per curve, path and format.
func (a *WalletAccount) sameDerivation(o *WalletAccount) bool {
	return a.Curve == o.Curve && a.Path == o.Path && a.AddressFormat == o.AddressFormat
}

// storeKeys stores keys in org, in the transaction: a new wallet's sealed mnemonic, each account's sealed key, and the
// accounts after the ones org has, refusing one its wallet already has. The accounts are dated now, the activity's
// time, whenever they were derived.
func (x *execution) storeKeys(org *Org, w *Wallet, k *walletKeys) error {
	stored := org.Wallet(w.ID) != nil // a wallet being created has no stored accounts
	for i, a := range k.accounts {
		a.CreatedAt, a.UpdatedAt = x.now, x.now
		if !stored {
			continue
		}
		o, err := findAccount(x.ctx, x.tx, org.ID, store.AccountKey{WalletID: w.ID, Path: a.Path, Curve: a.Curve, AddressFormat: a.AddressFormat})
		if err != nil {
			return err
		}
		if o != nil {
			return apierr.Invalid("parameters.accounts[%d]: the wallet already has the account %s (%s)", i, o.Path, o.AddressFormat)
		}
	}
	if k.wallet != nil {
		if err := x.putSealed(org, k.mnemonic); err != nil {
			return err
		}
	}
	for _, s := range k.sealed {
		if err := x.putSealed(org, s); err != nil {
			return err
		}
	}
	last, err := x.tx.LastAccountSeq(x.ctx, org.ID)
	if err != nil {
		return err
	}
	rows := make([]store.WalletAccount, len(k.accounts))
	for i, a := range k.accounts {
		rows[i] = a.row(org.ID, last+int64(i)+1)
	}
	return x.tx.InsertWalletAccounts(x.ctx, rows)
}

func addressesOf(accounts []*WalletAccount) []string {
	out := make([]string, len(accounts))
	for i, a := range accounts {
		out[i] = a.Address
	}
	return out
}

// aheadCreateWallet makes the wallet's keys before the transaction; nil when it cannot (Execute then tries in it).
func aheadCreateWallet(x *execution, p *api.CreateWalletIntent) *walletKeys {
	k, _ := x.newWalletKeys(api.WalletParams{WalletName: p.WalletName, Accounts: p.Accounts, MnemonicLength: p.MnemonicLength})
	return k
}

func execCreateWallet(x *execution, p *api.CreateWalletIntent, k *walletKeys) (*api.CreateWalletResult, error) {
	return x.createWallet(x.org, api.WalletParams{WalletName: p.WalletName, Accounts: p.Accounts, MnemonicLength: p.MnemonicLength}, k)
}

// createWallet stores a new wallet with its keys (made ahead, or now when k is nil) in org: the execution's
// organization or a new sub-organization.
func (x *execution) createWallet(org *Org, p api.WalletParams, k *walletKeys) (*api.CreateWalletResult, error) {
	if len(org.Wallets) >= maxWalletsPerOrg {
		return nil, limitReached("an organization holds at most %d wallets", maxWalletsPerOrg)
	}
	if k == nil || k.wallet == nil {
		var err error
		if k, err = x.newWalletKeys(p); err != nil {
			return nil, err
		}
	}
	w := k.wallet
	w.CreatedAt, w.UpdatedAt = x.now, x.now
	if err := x.storeKeys(org, w, k); err != nil {
		return nil, err
	}
	if err := x.proveAddresses(org, w, k.accounts); err != nil {
		return nil, err
	}
	org.Wallets = append(org.Wallets, w)
	return &api.CreateWalletResult{WalletID: w.ID, Addresses: addressesOf(k.accounts)}, nil
}

// aheadCreateWalletAccounts derives the accounts from the cached document's wallet before the transaction; nil when
// it cannot.
func aheadCreateWalletAccounts(x *execution, p *api.CreateWalletAccountsIntent) *walletKeys {
	w := x.org.Wallet(p.WalletID)
	if w == nil {
		return nil
	}
	mnemonic, err := x.openSecret(w.MnemonicSecret)
	if err != nil {
		return nil
	}
	defer keys.Zero(mnemonic)
	k, _ := x.deriveKeys(w, mnemonic, p.Accounts, p.Persist == nil || *p.Persist)
	return k
}

// execCreateWalletAccounts stores the accounts derived ahead, or derives them now when the wallet's mnemonic is not
// the one they were derived from (the wallet was deleted and another has its id: never, but checked) or none were.
func execCreateWalletAccounts(x *execution, p *api.CreateWalletAccountsIntent, k *walletKeys) (*api.CreateWalletAccountsResult, error) {
	w := x.org.Wallet(p.WalletID)
	if w == nil {
		return nil, apierr.NotFoundf("wallet %s not found", p.WalletID)
	}
	persist := p.Persist == nil || *p.Persist
	if k == nil || k.from != w.MnemonicSecret || (persist && len(k.sealed) != len(k.accounts)) {
		mnemonic, err := x.openSecret(w.MnemonicSecret)
		if err != nil {
			return nil, err
		}
		defer keys.Zero(mnemonic)
		if k, err = x.deriveKeys(w, mnemonic, p.Accounts, persist); err != nil {
			return nil, err
		}
	}
	if persist {
		if err := x.storeKeys(x.org, w, k); err != nil {
			return nil, err
		}
		if err := x.proveAddresses(x.org, w, k.accounts); err != nil {
			return nil, err
		}
		w.UpdatedAt = x.now // the document changes: a signing decided against the old version sees the new accounts
	}
	return &api.CreateWalletAccountsResult{Addresses: addressesOf(k.accounts)}, nil
}
