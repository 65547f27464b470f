package coordinator

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/keys"
	"github.com/sigil/sigil/internal/policy"
)

// The activity types of this file.
var (
	createWallet         = keyed(api.CreateWallet, on(resWallet, actCreate), validateCreateWallet, aheadCreateWallet, execCreateWallet)
	createWalletAccounts = keyed(api.CreateWalletAccounts, on(resWallet, actCreate), validateCreateWalletAccounts, aheadCreateWalletAccounts, execCreateWalletAccounts)
	updateWallet         = activity(api.UpdateWallet, on(resWallet, actUpdate, policy.ParamWalletID), validateUpdateWallet, execUpdateWallet)
	deleteWallets        = activity(api.DeleteWallets, on(resWallet, actDelete), validateDeleteWallets, execDeleteWallets)
	createPrivateKeysV2  = activity(api.CreatePrivateKeysV2, on(resPrivateKey, actCreate), validateCreatePrivateKeys, execCreatePrivateKeys)
	deletePrivateKeys    = activity(api.DeletePrivateKeys, on(resPrivateKey, actDelete), validateDeletePrivateKeys, execDeletePrivateKeys)
)

// Wallet is an HD wallet: a sealed mnemonic, and the accounts derived from it, which are rows of their own
// (WalletAccount).
type Wallet struct {
	ID             string    `json:"id"`
	Name           string    `json:"name"`
	MnemonicSecret string    `json:"mnemonicSecret"` // sealed_secrets row of the mnemonic
	Exported       bool      `json:"exported"`
	Imported       bool      `json:"imported"`
	CreatedAt      time.Time `json:"createdAt"`
	UpdatedAt      time.Time `json:"updatedAt"`
}

// PrivateKey is a standalone key.
type PrivateKey struct {
	ID        string        `json:"id"`
	Name      string        `json:"name"`
	Curve     string        `json:"curve"`
	PublicKey string        `json:"publicKey"`
	Addresses []api.Address `json:"addresses"`
	Tags      []string      `json:"tags"`
	KeySecret string        `json:"keySecret"`
	Exported  bool          `json:"exported"`
	Imported  bool          `json:"imported"`
	CreatedAt time.Time     `json:"createdAt"`
	UpdatedAt time.Time     `json:"updatedAt"`
}

// Wallet finds a wallet by id.
func (o *Org) Wallet(id string) *Wallet {
	return byID(o.Wallets, id, func(x *Wallet) string { return x.ID })
}

// PrivateKey finds a private key by id.
func (o *Org) PrivateKey(id string) *PrivateKey {
	return byID(o.PrivateKeys, id, func(x *PrivateKey) string { return x.ID })
}

// sameAddress compares addresses, ignoring case for 0x hex (EIP-55 checksums) and exactly otherwise (base58).
func sameAddress(a, b string) bool {
	if strings.HasPrefix(a, "0x") && strings.HasPrefix(b, "0x") {
		return strings.EqualFold(a, b)
	}
	return a == b
}

// addressKey is an address as indexed: 0x hex in lower case, anything else as it is.
func addressKey(a string) string {
	if strings.HasPrefix(a, "0x") || strings.HasPrefix(a, "0X") {
		return strings.ToLower(a)
	}
	return a
}

func checkMnemonicLength(path string, n *int32) (int, error) {
	if n == nil {
		return 12, nil
	}
	switch *n {
	case 12, 15, 18, 21, 24:
		return int(*n), nil
	}
	return 0, apierr.Invalid("%s must be 12, 15, 18, 21 or 24 words, got %d", path, *n)
}

// checkAccount validates one account to derive and returns its parsed curve, path and address format.
func checkAccount(path string, a api.WalletAccountParams) (keys.Curve, keys.Path, keys.AddressFormat, error) {
	curve, err := keys.ParseCurve(a.Curve)
	if err != nil {
		return "", nil, "", apierr.Invalid("%s.curve: %q is not CURVE_SECP256K1, CURVE_ED25519 or CURVE_P256", path, a.Curve)
	}
	if a.PathFormat != keys.PathFormatBIP32 {
		return "", nil, "", apierr.Invalid("%s.pathFormat: %q is not PATH_FORMAT_BIP32", path, a.PathFormat)
	}
	p, err := keys.ParsePath(a.Path)
	if err != nil {
		return "", nil, "", apierr.Invalid("%s.path: %s", path, err.Error())
	}
	format := keys.AddressFormat(a.AddressFormat)
	if err := keys.CheckAddressFormat(curve, format); err != nil {
		return "", nil, "", apierr.Invalid("%s.addressFormat: %s", path, err.Error())
	}
	if a.Name != "" {
		if err := checkName(path+".name", a.Name); err != nil {
			return "", nil, "", err
		}
	}
	return curve, p, format, nil
}

func checkAccounts(path string, accounts []api.WalletAccountParams) error {
	if len(accounts) == 0 || len(accounts) > maxItemsPerCall {
		return apierr.Invalid("%s must list between 1 and %d accounts", path, maxItemsPerCall)
	}
	for i, a := range accounts {
		if _, _, _, err := checkAccount(fmt.Sprintf("%s[%d]", path, i), a); err != nil {
			return err
		}
	}
	return nil
}

func validateCreateWallet(p *api.CreateWalletIntent) error {
	if err := checkName("parameters.walletName", p.WalletName); err != nil {
		return err
	}
	if _, err := checkMnemonicLength("parameters.mnemonicLength", p.MnemonicLength); err != nil {
		return err
	}
	return checkAccounts("parameters.accounts", p.Accounts)
}

func validateCreateWalletAccounts(p *api.CreateWalletAccountsIntent) error {
	if err := checkID("parameters.walletId", p.WalletID); err != nil {
		return err
	}
	return checkAccounts("parameters.accounts", p.Accounts)
}

func validateUpdateWallet(p *api.UpdateWalletIntent) error {
	if err := checkID("parameters.walletId", p.WalletID); err != nil {
		return err
	}
	if p.WalletName != "" {
		return checkName("parameters.walletName", p.WalletName)
	}
	return nil
}

func execUpdateWallet(x *execution, p *api.UpdateWalletIntent) (*api.UpdateWalletResult, error) {
	w := x.org.Wallet(p.WalletID)
	if w == nil {
		return nil, apierr.NotFoundf("wallet %s not found", p.WalletID)
	}
	if p.WalletName != "" {
		w.Name = p.WalletName
	}
	w.UpdatedAt = x.now
	return &api.UpdateWalletResult{WalletID: w.ID}, nil
}

func validateDeleteWallets(p *api.DeleteWalletsIntent) error {
	return checkIDs("parameters.walletIds", p.WalletIDs, false)
}

// execDeleteWallets deletes wallets and their sealed key material. A wallet never exported is refused unless
// deleteWithoutExport says the caller accepts losing it for good.
func execDeleteWallets(x *execution, p *api.DeleteWalletsIntent) (*api.DeleteWalletsResult, error) {
	var secrets []string
	for _, id := range p.WalletIDs {
		w := x.org.Wallet(id)
		if w == nil {
			return nil, apierr.NotFoundf("wallet %s not found", id)
		}
		if !w.Exported && (p.DeleteWithoutExport == nil || !*p.DeleteWithoutExport) {
			return nil, apierr.New(apierr.FailedPrecondition, "REQUEST_INVALID", "wallet %s has never been exported; set deleteWithoutExport to delete it and lose its keys for good", id)
		}
		secrets = append(secrets, w.MnemonicSecret)
	}
	x.org.Wallets = slices.DeleteFunc(x.org.Wallets, func(w *Wallet) bool { return slices.Contains(p.WalletIDs, w.ID) })
	if err := x.tx.DeleteSecrets(x.ctx, secrets...); err != nil {
		return nil, err
	}
	if err := x.tx.DeleteWalletsAccounts(x.ctx, x.org.ID, p.WalletIDs); err != nil {
		return nil, err
	}
	x.org.removedAccounts()
	return &api.DeleteWalletsResult{WalletIDs: p.WalletIDs}, nil
}

func validateCreatePrivateKeys(p *api.CreatePrivateKeysIntentV2) error {
	if len(p.PrivateKeys) == 0 || len(p.PrivateKeys) > maxItemsPerCall {
		return apierr.Invalid("parameters.privateKeys must list between 1 and %d keys", maxItemsPerCall)
	}
	for i, k := range p.PrivateKeys {
		path := fmt.Sprintf("parameters.privateKeys[%d]", i)
		if err := checkName(path+".privateKeyName", k.PrivateKeyName); err != nil {
			return err
		}
		curve, err := keys.ParseCurve(k.Curve)
		if err != nil {
			return apierr.Invalid("%s.curve: %q is not CURVE_SECP256K1, CURVE_ED25519 or CURVE_P256", path, k.Curve)
		}
		for j, f := range k.AddressFormats {
			if err := keys.CheckAddressFormat(curve, keys.AddressFormat(f)); err != nil {
				return apierr.Invalid("%s.addressFormats[%d]: %s", path, j, err.Error())
			}
		}
		if err := checkIDs(path+".privateKeyTags", k.PrivateKeyTags, true); err != nil {
			return err
		}
	}
	return nil
}

func execCreatePrivateKeys(x *execution, p *api.CreatePrivateKeysIntentV2) (*api.CreatePrivateKeysResultV2, error) {
	res := &api.CreatePrivateKeysResultV2{PrivateKeys: []api.PrivateKeyResult{}}
	if len(x.org.PrivateKeys)+len(p.PrivateKeys) > maxPrivateKeysPerOrg {
		return nil, limitReached("an organization holds at most %d private keys", maxPrivateKeysPerOrg)
	}
	for _, k := range p.PrivateKeys {
		if slices.ContainsFunc(x.org.PrivateKeys, func(o *PrivateKey) bool { return o.Name == k.PrivateKeyName }) {
			return nil, apierr.New(apierr.AlreadyExists, "REQUEST_INVALID", "a private key named %q already exists", k.PrivateKeyName)
		}
		pk, err := x.newPrivateKey(k)
		if err != nil {
			return nil, err
		}
		x.org.PrivateKeys = append(x.org.PrivateKeys, pk)
		res.PrivateKeys = append(res.PrivateKeys, api.PrivateKeyResult{PrivateKeyID: pk.ID, Addresses: pk.Addresses})
	}
	return res, nil
}

// newPrivateKey generates a key from fresh randomness (a random seed's master node, so every curve's rules for valid
// scalars apply) and seals it.
func (x *execution) newPrivateKey(k api.PrivateKeyParams) (*PrivateKey, error) {
	for _, id := range k.PrivateKeyTags {
		if x.privateKeyTags().find(id) == nil {
			return nil, apierr.NotFoundf("private key tag %s not found; create it with CREATE_PRIVATE_KEY_TAG", id)
		}
	}
	curve, _ := keys.ParseCurve(k.Curve)
	mnemonic, err := keys.NewMnemonic(24)
	if err != nil {
		return nil, err
	}
	defer keys.Zero(mnemonic)
	seed, err := keys.SeedFromMnemonic(mnemonic, "")
	if err != nil {
		return nil, err
	}
	defer keys.Zero(seed)
	node, err := keys.DeriveNode(curve, seed, keys.Path{})
	if err != nil {
		return nil, err
	}
	defer node.Zero()
	pk := &PrivateKey{ID: newID(), Name: k.PrivateKeyName, Curve: k.Curve, PublicKey: fmt.Sprintf("%x", node.PublicKey),
		Addresses: []api.Address{}, Tags: append([]string{}, k.PrivateKeyTags...), CreatedAt: x.now, UpdatedAt: x.now}
	for _, f := range k.AddressFormats {
		a, err := keys.Address(curve, keys.AddressFormat(f), node.PublicKey)
		if err != nil {
			return nil, apierr.Invalid("addressFormats: %s", err.Error())
		}
		pk.Addresses = append(pk.Addresses, api.Address{Format: f, Address: a})
	}
	if pk.KeySecret, err = x.putSecret(node.PrivateKey[:]); err != nil {
		return nil, err
	}
	return pk, nil
}

func validateDeletePrivateKeys(p *api.DeletePrivateKeysIntent) error {
	return checkIDs("parameters.privateKeyIds", p.PrivateKeyIDs, false)
}

func execDeletePrivateKeys(x *execution, p *api.DeletePrivateKeysIntent) (*api.DeletePrivateKeysResult, error) {
	var secrets []string
	for _, id := range p.PrivateKeyIDs {
		k := x.org.PrivateKey(id)
		if k == nil {
			return nil, apierr.NotFoundf("private key %s not found", id)
		}
		if !k.Exported && (p.DeleteWithoutExport == nil || !*p.DeleteWithoutExport) {
			return nil, apierr.New(apierr.FailedPrecondition, "REQUEST_INVALID", "private key %s has never been exported; set deleteWithoutExport to delete it and lose it for good", id)
		}
		secrets = append(secrets, k.KeySecret)
	}
	x.org.PrivateKeys = slices.DeleteFunc(x.org.PrivateKeys, func(k *PrivateKey) bool { return slices.Contains(p.PrivateKeyIDs, k.ID) })
	if err := x.tx.DeleteSecrets(x.ctx, secrets...); err != nil {
		return nil, err
	}
	return &api.DeletePrivateKeysResult{PrivateKeyIDs: p.PrivateKeyIDs}, nil
}
