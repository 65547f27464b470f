package coordinator

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/bundle"
	"github.com/sigil/sigil/internal/keys"
	"github.com/sigil/sigil/internal/policy"
)

// The activity types of this file.
var (
	exportWallet         = activity(api.ExportWallet, on(resWallet, actExport, policy.ParamTargetPublicKey), validateExportWallet, execExportWallet)
	exportWalletAccount  = activity(api.ExportWalletAccount, on(resWallet, actExport, policy.ParamTargetPublicKey), validateExportWalletAccount, execExportWalletAccount)
	exportPrivateKey     = activity(api.ExportPrivateKey, on(resPrivateKey, actExport, policy.ParamTargetPublicKey), validateExportPrivateKey, execExportPrivateKey)
	initImportWallet     = activity(api.InitImportWallet, on(resWallet, actImport), validateInitImport, execInitImport)
	importWallet         = activity(api.ImportWallet, on(resWallet, actImport), validateImportWallet, execImportWallet)
	initImportPrivateKey = activity(api.InitImportPrivateKey, on(resPrivateKey, actImport), validateInitImport, execInitImport)
	importPrivateKey     = activity(api.ImportPrivateKey, on(resPrivateKey, actImport), validateImportPrivateKey, execImportPrivateKey)
)

// signerKeyName is the coordinator's own key that signs export and import bundles and app proofs.
const signerKeyName = "signer"

func checkTarget(key string) error {
	if _, err := bundle.ParsePublicKeyHex(key); err != nil {
		return apierr.Invalid("parameters.targetPublicKey: %s", err.Error())
	}
	return nil
}

func validateExportWallet(p *api.ExportWalletIntent) error {
	if err := checkID("parameters.walletId", p.WalletID); err != nil {
		return err
	}
	if p.Language != "" && p.Language != "MNEMONIC_LANGUAGE_ENGLISH" {
		return apierr.Invalid("parameters.language: only MNEMONIC_LANGUAGE_ENGLISH is supported")
	}
	return checkTarget(p.TargetPublicKey)
}

// exportSecret opens a sealed secret and encrypts it to the caller's target key, signed by the coordinator.
func (x *execution) exportSecret(secretID, target string) (string, error) {
	signer, err := x.c.ownKey(x.ctx, signerKeyName)
	if err != nil {
		return "", err
	}
	pub, err := bundle.ParsePublicKeyHex(target)
	if err != nil {
		return "", apierr.Invalid("parameters.targetPublicKey: %s", err.Error())
	}
	secret, err := x.openSecret(secretID)
	if err != nil {
		return "", err
	}
	defer keys.Zero(secret)
	return bundle.ExportBundle(signer, pub, x.org.ID, secret)
}

func execExportWallet(x *execution, p *api.ExportWalletIntent) (*api.ExportWalletResult, error) {
	w := x.org.Wallet(p.WalletID)
	if w == nil {
		return nil, apierr.NotFoundf("wallet %s not found", p.WalletID)
	}
	b, err := x.exportSecret(w.MnemonicSecret, p.TargetPublicKey)
	if err != nil {
		return nil, err
	}
	w.Exported, w.UpdatedAt = true, x.now
	return &api.ExportWalletResult{WalletID: w.ID, ExportBundle: b}, nil
}

func validateExportWalletAccount(p *api.ExportWalletAccountIntent) error {
	if p.Address == "" {
		return apierr.Invalid("parameters.address must name a wallet account")
	}
	return checkTarget(p.TargetPublicKey)
}

func execExportWalletAccount(x *execution, p *api.ExportWalletAccountIntent) (*api.ExportWalletAccountResult, error) {
	s, err := x.signer(p.Address)
	if e := (*apierr.Error)(nil); err != nil && !errors.As(err, &e) {
		return nil, err
	}
	if err != nil || s.account == nil {
		return nil, apierr.NotFoundf("no wallet account with address %s", p.Address)
	}
	b, err := x.exportSecret(s.keySecret, p.TargetPublicKey)
	if err != nil {
		return nil, err
	}
	s.wallet.Exported, s.wallet.UpdatedAt = true, x.now
	return &api.ExportWalletAccountResult{Address: s.account.Address, ExportBundle: b}, nil
}

func validateExportPrivateKey(p *api.ExportPrivateKeyIntent) error {
	if err := checkID("parameters.privateKeyId", p.PrivateKeyID); err != nil {
		return err
	}
	return checkTarget(p.TargetPublicKey)
}

func execExportPrivateKey(x *execution, p *api.ExportPrivateKeyIntent) (*api.ExportPrivateKeyResult, error) {
	k := x.org.PrivateKey(p.PrivateKeyID)
	if k == nil {
		return nil, apierr.NotFoundf("private key %s not found", p.PrivateKeyID)
	}
	b, err := x.exportSecret(k.KeySecret, p.TargetPublicKey)
	if err != nil {
		return nil, err
	}
	k.Exported, k.UpdatedAt = true, x.now
	return &api.ExportPrivateKeyResult{PrivateKeyID: k.ID, ExportBundle: b}, nil
}

func validateInitImport(p *api.InitImportIntent) error { return checkID("parameters.userId", p.UserID) }

// ownUser is the import rule: a user imports only into its own custody.
func (x *execution) ownUser(userID string) (*User, error) {
	if userID != x.who.User.ID {
		return nil, apierr.Denied("imports must target your own user (%s), not %s", x.who.User.ID, userID)
	}
	return x.user(userID)
}

// execInitImport makes a one-time key for the user's next import and returns it in a signed bundle.
func execInitImport(x *execution, p *api.InitImportIntent) (*api.InitImportResult, error) {
	u, err := x.ownUser(p.UserID)
	if err != nil {
		return nil, err
	}
	signer, err := x.c.ownKey(x.ctx, signerKeyName)
	if err != nil {
		return nil, err
	}
	target, err := bundle.NewTargetKey()
	if err != nil {
		return nil, err
	}
	raw := target.Bytes()
	defer keys.Zero(raw)
	if u.ImportTarget != "" {
		if err := x.tx.DeleteSecrets(x.ctx, u.ImportTarget); err != nil {
			return nil, err
		}
	}
	if u.ImportTarget, err = x.putSecret(raw); err != nil {
		return nil, err
	}
	b, err := bundle.TargetBundle(signer, target.PublicKey(), x.org.ID, u.ID)
	if err != nil {
		return nil, err
	}
	return &api.InitImportResult{ImportBundle: b}, nil
}

// openImport decrypts an encrypted bundle with the user's one-time import key, which it then destroys.
func (x *execution) openImport(u *User, encrypted string) ([]byte, error) {
	if u.ImportTarget == "" {
		return nil, apierr.New(apierr.FailedPrecondition, "REQUEST_INVALID", "no import was initialized for user %s; run INIT_IMPORT first", u.ID)
	}
	raw, err := x.openSecret(u.ImportTarget)
	if err != nil {
		return nil, err
	}
	defer keys.Zero(raw)
	target, err := bundle.ParseTargetKey(raw)
	if err != nil {
		return nil, err
	}
	var ct bundle.Ciphertext
	if err := json.Unmarshal([]byte(encrypted), &ct); err != nil {
		return nil, apierr.Invalid("parameters.encryptedBundle is not the JSON {encappedPublic, ciphertext}")
	}
	plaintext, err := bundle.Open(target, ct)
	if err != nil {
		return nil, apierr.Invalid("parameters.encryptedBundle does not decrypt with the key of the last INIT_IMPORT")
	}
	if err := x.tx.DeleteSecrets(x.ctx, u.ImportTarget); err != nil {
		return nil, err
	}
	u.ImportTarget = ""
	return plaintext, nil
}

func validateImportWallet(p *api.ImportWalletIntent) error {
	if err := checkID("parameters.userId", p.UserID); err != nil {
		return err
	}
	if err := checkName("parameters.walletName", p.WalletName); err != nil {
		return err
	}
	return checkAccounts("parameters.accounts", p.Accounts)
}

func execImportWallet(x *execution, p *api.ImportWalletIntent) (*api.ImportWalletResult, error) {
	u, err := x.ownUser(p.UserID)
	if err != nil {
		return nil, err
	}
	mnemonic, err := x.openImport(u, p.EncryptedBundle)
	if err != nil {
		return nil, err
	}
	defer keys.Zero(mnemonic)
	if err := keys.ValidateMnemonic(mnemonic); err != nil {
		return nil, apierr.Invalid("the imported mnemonic is not valid BIP-39: %s", err.Error())
	}
	if len(x.org.Wallets) >= maxWalletsPerOrg {
		return nil, limitReached("an organization holds at most %d wallets", maxWalletsPerOrg)
	}
	w := &Wallet{ID: newID(), Name: p.WalletName, Imported: true, CreatedAt: x.now, UpdatedAt: x.now}
	if w.MnemonicSecret, err = x.putSecret(mnemonic); err != nil {
		return nil, err
	}
	k, err := x.deriveKeys(w, mnemonic, p.Accounts, true)
	if err != nil {
		return nil, err
	}
	if err := x.storeKeys(x.org, w, k); err != nil {
		return nil, err
	}
	if err := x.proveAddresses(x.org, w, k.accounts); err != nil {
		return nil, err
	}
	x.org.Wallets = append(x.org.Wallets, w)
	return &api.ImportWalletResult{WalletID: w.ID, Addresses: addressesOf(k.accounts)}, nil
}

func validateImportPrivateKey(p *api.ImportPrivateKeyIntent) error {
	if err := checkID("parameters.userId", p.UserID); err != nil {
		return err
	}
	return validateCreatePrivateKeys(&api.CreatePrivateKeysIntentV2{PrivateKeys: []api.PrivateKeyParams{{
		PrivateKeyName: p.PrivateKeyName, Curve: p.Curve, PrivateKeyTags: []string{}, AddressFormats: p.AddressFormats}}})
}

func execImportPrivateKey(x *execution, p *api.ImportPrivateKeyIntent) (*api.ImportPrivateKeyResult, error) {
	u, err := x.ownUser(p.UserID)
	if err != nil {
		return nil, err
	}
	raw, err := x.openImport(u, p.EncryptedBundle)
	if err != nil {
		return nil, err
	}
	defer keys.Zero(raw)
	curve, _ := keys.ParseCurve(p.Curve)
	pub, err := keys.PublicKey(curve, raw)
	if err != nil {
		return nil, apierr.Invalid("the imported key is not a valid %s private key", p.Curve)
	}
	if len(x.org.PrivateKeys) >= maxPrivateKeysPerOrg {
		return nil, limitReached("an organization holds at most %d private keys", maxPrivateKeysPerOrg)
	}
	k := &PrivateKey{ID: newID(), Name: p.PrivateKeyName, Curve: p.Curve, PublicKey: fmt.Sprintf("%x", pub), Addresses: []api.Address{},
		Tags: []string{}, Imported: true, CreatedAt: x.now, UpdatedAt: x.now}
	for _, f := range p.AddressFormats {
		a, err := keys.Address(curve, keys.AddressFormat(f), pub)
		if err != nil {
			return nil, apierr.Invalid("parameters.addressFormats: %s", err.Error())
		}
		k.Addresses = append(k.Addresses, api.Address{Format: f, Address: a})
	}
	if k.KeySecret, err = x.putSecret(raw); err != nil {
		return nil, err
	}
	x.org.PrivateKeys = append(x.org.PrivateKeys, k)
	return &api.ImportPrivateKeyResult{PrivateKeyID: k.ID, Addresses: k.Addresses}, nil
}
