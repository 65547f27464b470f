package api

// CreateWalletIntent is ACTIVITY_TYPE_CREATE_WALLET.
type CreateWalletIntent struct {
	WalletName     string                `json:"walletName"`
	Accounts       []WalletAccountParams `json:"accounts"`
	MnemonicLength *int32                `json:"mnemonicLength,omitempty"`
}

// CreateWalletResult names the wallet and its accounts' addresses, in order.
type CreateWalletResult struct {
	WalletID  string   `json:"walletId"`
	Addresses []string `json:"addresses"`
}

// CreateWalletAccountsIntent is ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS.
type CreateWalletAccountsIntent struct {
	WalletID string                `json:"walletId"`
	Accounts []WalletAccountParams `json:"accounts"`
	Persist  *bool                 `json:"persist,omitempty"`
}

// CreateWalletAccountsResult lists the new addresses in order.
type CreateWalletAccountsResult struct {
	Addresses []string `json:"addresses"`
}

// UpdateWalletIntent is ACTIVITY_TYPE_UPDATE_WALLET.
type UpdateWalletIntent struct {
	WalletID   string `json:"walletId"`
	WalletName string `json:"walletName,omitempty"`
}

// UpdateWalletResult names the wallet.
type UpdateWalletResult struct {
	WalletID string `json:"walletId"`
}

// DeleteWalletsIntent is ACTIVITY_TYPE_DELETE_WALLETS.
type DeleteWalletsIntent struct {
	WalletIDs           []string `json:"walletIds"`
	DeleteWithoutExport *bool    `json:"deleteWithoutExport,omitempty"`
}

// DeleteWalletsResult names the deleted wallets.
type DeleteWalletsResult struct {
	WalletIDs []string `json:"walletIds"`
}

// PrivateKeyParams is one private key of CREATE_PRIVATE_KEYS_V2.
type PrivateKeyParams struct {
	PrivateKeyName string   `json:"privateKeyName"`
	Curve          string   `json:"curve"`
	PrivateKeyTags []string `json:"privateKeyTags"`
	AddressFormats []string `json:"addressFormats"`
}

// CreatePrivateKeysIntentV2 is ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2.
type CreatePrivateKeysIntentV2 struct {
	PrivateKeys []PrivateKeyParams `json:"privateKeys"`
}

// Address is an address of a private key in one format.
type Address struct {
	Format  string `json:"format,omitempty"`
	Address string `json:"address,omitempty"`
}

// PrivateKeyResult is one created private key.
type PrivateKeyResult struct {
	PrivateKeyID string    `json:"privateKeyId,omitempty"`
	Addresses    []Address `json:"addresses,omitempty"`
}

// CreatePrivateKeysResultV2 lists the created keys in order.
type CreatePrivateKeysResultV2 struct {
	PrivateKeys []PrivateKeyResult `json:"privateKeys"`
}

// DeletePrivateKeysIntent is ACTIVITY_TYPE_DELETE_PRIVATE_KEYS.
type DeletePrivateKeysIntent struct {
	PrivateKeyIDs       []string `json:"privateKeyIds"`
	DeleteWithoutExport *bool    `json:"deleteWithoutExport,omitempty"`
}

// DeletePrivateKeysResult names the deleted keys.
type DeletePrivateKeysResult struct {
	PrivateKeyIDs []string `json:"privateKeyIds"`
}

// Transaction types of SIGN_TRANSACTION_V2.
const (
	TransactionTypeEthereum = "TRANSACTION_TYPE_ETHEREUM"
	TransactionTypeSolana   = "TRANSACTION_TYPE_SOLANA"
	TransactionTypeBitcoin  = "TRANSACTION_TYPE_BITCOIN"
	TransactionTypeTron     = "TRANSACTION_TYPE_TRON"
)

// SignTransactionIntentV2 is ACTIVITY_TYPE_SIGN_TRANSACTION_V2.
type SignTransactionIntentV2 struct {
	SignWith            string `json:"signWith"`
	UnsignedTransaction string `json:"unsignedTransaction"`
	Type                string `json:"type"`
}

// SignTransactionResult is the signed transaction, hex without 0x.
type SignTransactionResult struct {
	SignedTransaction string `json:"signedTransaction"`
}

// SignRawPayloadIntentV2 is ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2.
type SignRawPayloadIntentV2 struct {
	SignWith     string `json:"signWith"`
	Payload      string `json:"payload"`
	Encoding     string `json:"encoding"`
	HashFunction string `json:"hashFunction"`
}

// SignRawPayloadResult is a signature: r, s and v in hex without 0x (v is the recovery id, "00" or "01").
type SignRawPayloadResult struct {
	R string `json:"r"`
	S string `json:"s"`
	V string `json:"v"`
}

// SignRawPayloadsIntent is ACTIVITY_TYPE_SIGN_RAW_PAYLOADS.
type SignRawPayloadsIntent struct {
	SignWith     string   `json:"signWith"`
	Payloads     []string `json:"payloads"`
	Encoding     string   `json:"encoding"`
	HashFunction string   `json:"hashFunction"`
}

// SignRawPayloadsResult lists the signatures in order.
type SignRawPayloadsResult struct {
	Signatures []SignRawPayloadResult `json:"signatures"`
}

// Wallet is a wallet as queries return it.
type Wallet struct {
	WalletID   string    `json:"walletId"`
	WalletName string    `json:"walletName"`
	CreatedAt  Timestamp `json:"createdAt"`
	UpdatedAt  Timestamp `json:"updatedAt"`
	Exported   bool      `json:"exported"`
	Imported   bool      `json:"imported"`
}

// WalletAccount is a wallet account as queries return it.
type WalletAccount struct {
	WalletAccountID string    `json:"walletAccountId"`
	OrganizationID  string    `json:"organizationId"`
	WalletID        string    `json:"walletId"`
	Curve           string    `json:"curve"`
	PathFormat      string    `json:"pathFormat"`
	Path            string    `json:"path"`
	AddressFormat   string    `json:"addressFormat"`
	Address         string    `json:"address"`
	CreatedAt       Timestamp `json:"createdAt"`
	UpdatedAt       Timestamp `json:"updatedAt"`
	PublicKey       string    `json:"publicKey,omitempty"`
	WalletDetails   *Wallet   `json:"walletDetails,omitempty"`
	Name            string    `json:"name,omitempty"`
}

// PrivateKey is a private key as queries return it.
type PrivateKey struct {
	PrivateKeyID   string    `json:"privateKeyId"`
	PublicKey      string    `json:"publicKey"`
	PrivateKeyName string    `json:"privateKeyName"`
	Curve          string    `json:"curve"`
	Addresses      []Address `json:"addresses"`
	PrivateKeyTags []string  `json:"privateKeyTags"`
	CreatedAt      Timestamp `json:"createdAt"`
	UpdatedAt      Timestamp `json:"updatedAt"`
	Exported       bool      `json:"exported"`
	Imported       bool      `json:"imported"`
}

// ListWalletsResponse lists the organization's wallets.
type ListWalletsResponse struct {
	Wallets []Wallet `json:"wallets"`
}

// GetWalletRequest is the body of get_wallet.
type GetWalletRequest struct {
	OrganizationID string `json:"organizationId"`
	WalletID       string `json:"walletId"`
}

// GetWalletResponse holds one wallet.
type GetWalletResponse struct {
	Wallet Wallet `json:"wallet"`
}

// ListWalletAccountsRequest is the body of list_wallet_accounts.
type ListWalletAccountsRequest struct {
	OrganizationID       string      `json:"organizationId"`
	WalletID             string      `json:"walletId,omitempty"`
	IncludeWalletDetails *bool       `json:"includeWalletDetails,omitempty"`
	PaginationOptions    *Pagination `json:"paginationOptions,omitempty"`
}

// ListWalletAccountsResponse lists accounts.
type ListWalletAccountsResponse struct {
	Accounts []WalletAccount `json:"accounts"`
}

// GetWalletAccountRequest is the body of get_wallet_account: by address or by path.
type GetWalletAccountRequest struct {
	OrganizationID string `json:"organizationId"`
	WalletID       string `json:"walletId"`
	Address        string `json:"address,omitempty"`
	Path           string `json:"path,omitempty"`
}

// GetWalletAccountResponse holds one account.
type GetWalletAccountResponse struct {
	Account WalletAccount `json:"account"`
}

// ListPrivateKeysResponse lists the organization's private keys.
type ListPrivateKeysResponse struct {
	PrivateKeys []PrivateKey `json:"privateKeys"`
}

// GetPrivateKeyRequest is the body of get_private_key.
type GetPrivateKeyRequest struct {
	OrganizationID string `json:"organizationId"`
	PrivateKeyID   string `json:"privateKeyId"`
}

// GetPrivateKeyResponse holds one private key.
type GetPrivateKeyResponse struct {
	PrivateKey PrivateKey `json:"privateKey"`
}

// The activity types of this file: their wire names and their parameter and result types.
var (
	CreateWallet         = activity[CreateWalletIntent, CreateWalletResult]("CREATE_WALLET", "create_wallet", "createWalletIntent", "createWalletResult")
	CreateWalletAccounts = activity[CreateWalletAccountsIntent, CreateWalletAccountsResult]("CREATE_WALLET_ACCOUNTS", "create_wallet_accounts", "createWalletAccountsIntent", "createWalletAccountsResult")
	UpdateWallet         = activity[UpdateWalletIntent, UpdateWalletResult]("UPDATE_WALLET", "update_wallet", "updateWalletIntent", "updateWalletResult")
	DeleteWallets        = activity[DeleteWalletsIntent, DeleteWalletsResult]("DELETE_WALLETS", "delete_wallets", "deleteWalletsIntent", "deleteWalletsResult")
	CreatePrivateKeysV2  = activity[CreatePrivateKeysIntentV2, CreatePrivateKeysResultV2]("CREATE_PRIVATE_KEYS_V2", "create_private_keys", "createPrivateKeysIntentV2", "createPrivateKeysResultV2")
	DeletePrivateKeys    = activity[DeletePrivateKeysIntent, DeletePrivateKeysResult]("DELETE_PRIVATE_KEYS", "delete_private_keys", "deletePrivateKeysIntent", "deletePrivateKeysResult")
	SignTransactionV2    = activity[SignTransactionIntentV2, SignTransactionResult]("SIGN_TRANSACTION_V2", "sign_transaction", "signTransactionIntentV2", "signTransactionResult")
	SignRawPayloadV2     = activity[SignRawPayloadIntentV2, SignRawPayloadResult]("SIGN_RAW_PAYLOAD_V2", "sign_raw_payload", "signRawPayloadIntentV2", "signRawPayloadResult")
	SignRawPayloads      = activity[SignRawPayloadsIntent, SignRawPayloadsResult]("SIGN_RAW_PAYLOADS", "sign_raw_payloads", "signRawPayloadsIntent", "signRawPayloadsResult")
)

// The queries of this file: their paths and their request and response types.
var (
	ListWallets        = query[OrganizationRequest, ListWalletsResponse]("list_wallets")
	GetWallet          = query[GetWalletRequest, GetWalletResponse]("get_wallet")
	ListWalletAccounts = query[ListWalletAccountsRequest, ListWalletAccountsResponse]("list_wallet_accounts")
	GetWalletAccount   = query[GetWalletAccountRequest, GetWalletAccountResponse]("get_wallet_account")
	ListPrivateKeys    = query[OrganizationRequest, ListPrivateKeysResponse]("list_private_keys")
	GetPrivateKey      = query[GetPrivateKeyRequest, GetPrivateKeyResponse]("get_private_key")
)

// CreatePrivateKeyTagIntent is ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG.
type CreatePrivateKeyTagIntent struct {
	PrivateKeyTagName string   `json:"privateKeyTagName"`
	PrivateKeyIDs     []string `json:"privateKeyIds"`
}

// CreatePrivateKeyTagResult names the new tag and the keys it labels.
type CreatePrivateKeyTagResult struct {
	PrivateKeyTagID string   `json:"privateKeyTagId"`
	PrivateKeyIDs   []string `json:"privateKeyIds"`
}

// UpdatePrivateKeyTagIntent is ACTIVITY_TYPE_UPDATE_PRIVATE_KEY_TAG.
type UpdatePrivateKeyTagIntent struct {
	PrivateKeyTagID      string   `json:"privateKeyTagId"`
	NewPrivateKeyTagName string   `json:"newPrivateKeyTagName,omitempty"`
	AddPrivateKeyIDs     []string `json:"addPrivateKeyIds"`
	RemovePrivateKeyIDs  []string `json:"removePrivateKeyIds"`
}

// UpdatePrivateKeyTagResult names the updated tag.
type UpdatePrivateKeyTagResult struct {
	PrivateKeyTagID string `json:"privateKeyTagId"`
}

// DeletePrivateKeyTagsIntent is ACTIVITY_TYPE_DELETE_PRIVATE_KEY_TAGS.
type DeletePrivateKeyTagsIntent struct {
	PrivateKeyTagIDs []string `json:"privateKeyTagIds"`
}

// DeletePrivateKeyTagsResult names the deleted tags and the keys they labelled.
type DeletePrivateKeyTagsResult struct {
	PrivateKeyTagIDs []string `json:"privateKeyTagIds"`
	PrivateKeyIDs    []string `json:"privateKeyIds"`
}

// ListPrivateKeyTagsResponse lists the organization's private key tags.
type ListPrivateKeyTagsResponse struct {
	PrivateKeyTags []Tag `json:"privateKeyTags"`
}

// The private key tag activities and query.
var (
	CreatePrivateKeyTag = activity[CreatePrivateKeyTagIntent, CreatePrivateKeyTagResult](
		"CREATE_PRIVATE_KEY_TAG", "create_private_key_tag", "createPrivateKeyTagIntent", "createPrivateKeyTagResult")
	UpdatePrivateKeyTag = activity[UpdatePrivateKeyTagIntent, UpdatePrivateKeyTagResult](
		"UPDATE_PRIVATE_KEY_TAG", "update_private_key_tag", "updatePrivateKeyTagIntent", "updatePrivateKeyTagResult")
	DeletePrivateKeyTags = activity[DeletePrivateKeyTagsIntent, DeletePrivateKeyTagsResult](
		"DELETE_PRIVATE_KEY_TAGS", "delete_private_key_tags", "deletePrivateKeyTagsIntent", "deletePrivateKeyTagsResult")
	ListPrivateKeyTags = query[OrganizationRequest, ListPrivateKeyTagsResponse]("list_private_key_tags")
)

// DeleteWalletAccountsIntent is ACTIVITY_TYPE_DELETE_WALLET_ACCOUNTS. An account never exported (nor its wallet) is
// refused unless deleteWithoutExport accepts losing its key for good.
type DeleteWalletAccountsIntent struct {
	WalletAccountIDs    []string `json:"walletAccountIds"`
	DeleteWithoutExport *bool    `json:"deleteWithoutExport,omitempty"`
}

// DeleteWalletAccountsResult names the deleted accounts.
type DeleteWalletAccountsResult struct {
	WalletAccountIDs []string `json:"walletAccountIds"`
}

// DeleteWalletAccounts deletes accounts of wallets.
var DeleteWalletAccounts = activity[DeleteWalletAccountsIntent, DeleteWalletAccountsResult](
	"DELETE_WALLET_ACCOUNTS", "delete_wallet_accounts", "deleteWalletAccountsIntent", "deleteWalletAccountsResult")
