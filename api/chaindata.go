package api

// Chain data: the balances of an organization's wallet account addresses, the assets of the networks the coordinator
// follows, and the addresses' transaction histories, as the balance watchers read them. The shapes are @turnkey/http
// 6.6.0's (v1GetWalletAddressBalances*, v1ListSupportedAssets*, v1List{Eth,Sol}TransactionHistory*).

// The statuses of a transaction in a history: in a block the watcher read (CONFIRMED), and beneath the network's
// confirmation depth (FINALIZED).
const (
	TxHistoryConfirmed = "CONFIRMED"
	TxHistoryFinalized = "FINALIZED"
)

// The directions of a transfer, seen from the queried address.
const (
	TransferIn  = "IN"
	TransferOut = "OUT"
)

// The origins of a transaction in a history: sent by the coordinator (ETH_SEND_TRANSACTION, SOL_SEND_TRANSACTION and
// their kin), under the reference's name for its own, or by anything else.
const (
	OriginSigil    = "TURNKEY"
	OriginExternal = "EXTERNAL"
)

// GetWalletAddressBalancesRequest is the body of get_wallet_address_balances.
type GetWalletAddressBalancesRequest struct {
	OrganizationID string `json:"organizationId"`
	Address        string `json:"address"`
	CAIP2          string `json:"caip2"`
}

// AssetBalanceDisplay is a balance for people to read; never for arithmetic.
type AssetBalanceDisplay struct {
	USD    string `json:"usd,omitempty"`
	Crypto string `json:"crypto,omitempty"`
}

// AssetBalance is one asset's balance: Balance in the asset's smallest unit.
type AssetBalance struct {
	CAIP19   string               `json:"caip19"`
	Symbol   string               `json:"symbol"`
	Balance  string               `json:"balance"`
	Decimals int                  `json:"decimals"`
	Display  *AssetBalanceDisplay `json:"display,omitempty"`
	Name     string               `json:"name"`
	// TokenProgram is the program owning an SPL mint; empty for native assets and EVM tokens.
	TokenProgram string `json:"tokenProgram,omitempty"`
}

// GetWalletAddressBalancesResponse lists the address's non-zero balances of the network's supported assets.
type GetWalletAddressBalancesResponse struct {
	Balances []AssetBalance `json:"balances"`
}

// ListSupportedAssetsRequest is the body of list_supported_assets.
type ListSupportedAssetsRequest struct {
	OrganizationID string `json:"organizationId"`
	CAIP2          string `json:"caip2"`
}

// AssetMetadata is one asset of a network: its native coin or a token the operator configured.
type AssetMetadata struct {
	CAIP19   string `json:"caip19"`
	Symbol   string `json:"symbol"`
	Decimals int    `json:"decimals"`
	LogoURL  string `json:"logoUrl,omitempty"`
	Name     string `json:"name"`
	Stable   bool   `json:"stable,omitempty"`
}

// ListSupportedAssetsResponse lists a network's assets, its native coin first.
type ListSupportedAssetsResponse struct {
	Assets []AssetMetadata `json:"assets"`
}

// ListTransactionHistoryRequest is the body of list_eth_transaction_history and list_sol_transaction_history.
type ListTransactionHistoryRequest struct {
	OrganizationID    string      `json:"organizationId"`
	Address           string      `json:"address"`
	CAIP2             string      `json:"caip2"`
	PaginationOptions *Pagination `json:"paginationOptions,omitempty"`
}

// TransactionHistoryBlock is the block a transaction is in.
type TransactionHistoryBlock struct {
	Number    string `json:"number"`
	Hash      string `json:"hash"`
	Timestamp string `json:"timestamp"` // RFC 3339; "" when the node does not know the block's time
}

// TransactionHistoryFee is what the transaction paid, in the native asset's smallest unit.
type TransactionHistoryFee struct {
	Amount string `json:"amount"`
	CAIP19 string `json:"caip19"`
}

// TransactionHistoryAsset is the asset a transfer moves.
type TransactionHistoryAsset struct {
	CAIP19   string `json:"caip19"`
	Symbol   string `json:"symbol"`
	Name     string `json:"name"`
	Decimals int    `json:"decimals"`
}

// TransactionHistoryDisplay is a transfer's amount for people to read; never for arithmetic.
type TransactionHistoryDisplay struct {
	Crypto string `json:"crypto,omitempty"`
	USD    string `json:"usd,omitempty"`
}

// TransactionHistoryTransfer is one movement of an asset to or from the queried address.
type TransactionHistoryTransfer struct {
	Direction string `json:"direction"`
	// Asset is absent when the token is none the operator configured and its contract does not say what it is.
	Asset        *TransactionHistoryAsset   `json:"asset,omitempty"`
	Amount       string                     `json:"amount"`
	Counterparty string                     `json:"counterparty"`
	Display      *TransactionHistoryDisplay `json:"display,omitempty"`
}

// TransactionHistoryTurnkey says how the coordinator sent a transaction it sent.
type TransactionHistoryTurnkey struct {
	Sponsored           bool   `json:"sponsored"`
	ActivityFingerprint string `json:"activityFingerprint,omitempty"`
	SubmittedAt         string `json:"submittedAt,omitempty"` // RFC 3339
}

// EthTransactionHistoryItem is one EVM transaction touching the queried address.
type EthTransactionHistoryItem struct {
	TransactionHash string                       `json:"transactionHash"`
	Block           TransactionHistoryBlock      `json:"block"`
	Status          string                       `json:"status"`
	Origin          string                       `json:"origin"`
	From            string                       `json:"from"`
	To              string                       `json:"to,omitempty"`
	Fee             TransactionHistoryFee        `json:"fee"`
	Transfers       []TransactionHistoryTransfer `json:"transfers"`
	Turnkey         *TransactionHistoryTurnkey   `json:"turnkey,omitempty"`
	ExecutionFailed *bool                        `json:"executionFailed,omitempty"`
}

// ListEthTransactionHistoryResponse is a page of the address's transactions, the most recent first.
type ListEthTransactionHistoryResponse struct {
	Transactions []EthTransactionHistoryItem `json:"transactions"`
	PageInfo     *PageInfo                   `json:"pageInfo,omitempty"`
}

// SolTransactionHistorySigner is one signer of a Solana transaction.
type SolTransactionHistorySigner struct {
	Address  string `json:"address"`
	Writable bool   `json:"writable"`
}

// SolTransactionHistoryItem is one Solana transaction touching the queried address.
type SolTransactionHistoryItem struct {
	Signature       string                        `json:"signature"`
	Block           TransactionHistoryBlock       `json:"block"`
	Status          string                        `json:"status"`
	Origin          string                        `json:"origin"`
	FeePayer        string                        `json:"feePayer"`
	Signers         []SolTransactionHistorySigner `json:"signers"`
	Fee             TransactionHistoryFee         `json:"fee"`
	Transfers       []TransactionHistoryTransfer  `json:"transfers"`
	Turnkey         *TransactionHistoryTurnkey    `json:"turnkey,omitempty"`
	ExecutionFailed *bool                         `json:"executionFailed,omitempty"`
}

// ListSolTransactionHistoryResponse is a page of the address's transactions, the most recent first.
type ListSolTransactionHistoryResponse struct {
	Transactions []SolTransactionHistoryItem `json:"transactions"`
	PageInfo     *PageInfo                   `json:"pageInfo,omitempty"`
}

// The queries of this file.
var (
	GetWalletAddressBalances  = query[GetWalletAddressBalancesRequest, GetWalletAddressBalancesResponse]("get_wallet_address_balances")
	ListSupportedAssets       = query[ListSupportedAssetsRequest, ListSupportedAssetsResponse]("list_supported_assets")
	ListEthTransactionHistory = query[ListTransactionHistoryRequest, ListEthTransactionHistoryResponse]("list_eth_transaction_history")
	ListSolTransactionHistory = query[ListTransactionHistoryRequest, ListSolTransactionHistoryResponse]("list_sol_transaction_history")
)
