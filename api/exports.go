package api

// ExportWalletIntent is ACTIVITY_TYPE_EXPORT_WALLET: the mnemonic, encrypted to targetPublicKey.
type ExportWalletIntent struct {
	WalletID        string `json:"walletId"`
	TargetPublicKey string `json:"targetPublicKey"`
	Language        string `json:"language,omitempty"`
}

// ExportWalletResult carries the export bundle.
type ExportWalletResult struct {
	WalletID     string `json:"walletId"`
	ExportBundle string `json:"exportBundle"`
}

// ExportWalletAccountIntent is ACTIVITY_TYPE_EXPORT_WALLET_ACCOUNT: one account's private key.
type ExportWalletAccountIntent struct {
	Address         string `json:"address"`
	TargetPublicKey string `json:"targetPublicKey"`
}

// ExportWalletAccountResult carries the export bundle.
type ExportWalletAccountResult struct {
	Address      string `json:"address"`
	ExportBundle string `json:"exportBundle"`
}

// ExportPrivateKeyIntent is ACTIVITY_TYPE_EXPORT_PRIVATE_KEY.
type ExportPrivateKeyIntent struct {
	PrivateKeyID    string `json:"privateKeyId"`
	TargetPublicKey string `json:"targetPublicKey"`
}

// ExportPrivateKeyResult carries the export bundle.
type ExportPrivateKeyResult struct {
	PrivateKeyID string `json:"privateKeyId"`
	ExportBundle string `json:"exportBundle"`
}

// InitImportIntent is ACTIVITY_TYPE_INIT_IMPORT_WALLET and ACTIVITY_TYPE_INIT_IMPORT_PRIVATE_KEY.
type InitImportIntent struct {
	UserID string `json:"userId"`
}

// InitImportResult is the signed bundle naming the key to encrypt the import to.
type InitImportResult struct {
	ImportBundle string `json:"importBundle"`
}

// ImportWalletIntent is ACTIVITY_TYPE_IMPORT_WALLET.
type ImportWalletIntent struct {
	UserID          string                `json:"userId"`
	WalletName      string                `json:"walletName"`
	EncryptedBundle string                `json:"encryptedBundle"`
	Accounts        []WalletAccountParams `json:"accounts"`
}

// ImportWalletResult names the imported wallet and its addresses.
type ImportWalletResult struct {
	WalletID  string   `json:"walletId"`
	Addresses []string `json:"addresses"`
}

// ImportPrivateKeyIntent is ACTIVITY_TYPE_IMPORT_PRIVATE_KEY.
type ImportPrivateKeyIntent struct {
	UserID          string   `json:"userId"`
	PrivateKeyName  string   `json:"privateKeyName"`
	EncryptedBundle string   `json:"encryptedBundle"`
	Curve           string   `json:"curve"`
	AddressFormats  []string `json:"addressFormats"`
}

// ImportPrivateKeyResult names the imported key and its addresses.
type ImportPrivateKeyResult struct {
	PrivateKeyID string    `json:"privateKeyId"`
	Addresses    []Address `json:"addresses"`
}

// The activity types of this file: their wire names and their parameter and result types.
var (
	ExportWallet         = activity[ExportWalletIntent, ExportWalletResult]("EXPORT_WALLET", "export_wallet", "exportWalletIntent", "exportWalletResult")
	ExportWalletAccount  = activity[ExportWalletAccountIntent, ExportWalletAccountResult]("EXPORT_WALLET_ACCOUNT", "export_wallet_account", "exportWalletAccountIntent", "exportWalletAccountResult")
	ExportPrivateKey     = activity[ExportPrivateKeyIntent, ExportPrivateKeyResult]("EXPORT_PRIVATE_KEY", "export_private_key", "exportPrivateKeyIntent", "exportPrivateKeyResult")
	InitImportWallet     = activity[InitImportIntent, InitImportResult]("INIT_IMPORT_WALLET", "init_import_wallet", "initImportWalletIntent", "initImportWalletResult")
	ImportWallet         = activity[ImportWalletIntent, ImportWalletResult]("IMPORT_WALLET", "import_wallet", "importWalletIntent", "importWalletResult")
	InitImportPrivateKey = activity[InitImportIntent, InitImportResult]("INIT_IMPORT_PRIVATE_KEY", "init_import_private_key", "initImportPrivateKeyIntent", "initImportPrivateKeyResult")
	ImportPrivateKey     = activity[ImportPrivateKeyIntent, ImportPrivateKeyResult]("IMPORT_PRIVATE_KEY", "import_private_key", "importPrivateKeyIntent", "importPrivateKeyResult")
)
