package api

// EthCallParams is one call of ETH_SEND_TRANSACTION: a destination, a value in wei and calldata.
type EthCallParams struct {
	To    string `json:"to"`
	Value string `json:"value,omitempty"` // wei, decimal
	Data  string `json:"data,omitempty"`  // hex, 0x-prefixed
}

// EthSendTransactionIntentV2 is ACTIVITY_TYPE_ETH_SEND_TRANSACTION_V2: calls from a wallet account (or a private
// key's address) on a network, built, signed, broadcast and watched by the coordinator. The nonce and fee fields are
// decimal strings; omitted, the coordinator fills them.
type EthSendTransactionIntentV2 struct {
	From                 string          `json:"from"`
	Caip2                string          `json:"caip2"`
	Sponsor              *bool           `json:"sponsor,omitempty"`
	Nonce                string          `json:"nonce,omitempty"`
	GasLimit             string          `json:"gasLimit,omitempty"`
	MaxFeePerGas         string          `json:"maxFeePerGas,omitempty"`
	MaxPriorityFeePerGas string          `json:"maxPriorityFeePerGas,omitempty"`
	Deadline             string          `json:"deadline,omitempty"` // unix seconds
	GasStationNonce      string          `json:"gasStationNonce,omitempty"`
	Calls                []EthCallParams `json:"calls"`
}

// EthSendTransactionResultV2 names the send's status, read with get_send_transaction_status.
type EthSendTransactionResultV2 struct {
	SendTransactionStatusID string `json:"sendTransactionStatusId"`
}

// EthSendRawTransactionIntent is ACTIVITY_TYPE_ETH_SEND_RAW_TRANSACTION: a transaction signed elsewhere, broadcast and
// watched by the coordinator.
type EthSendRawTransactionIntent struct {
	SignedTransaction string `json:"signedTransaction"`
	Caip2             string `json:"caip2"`
}

// EthSendRawTransactionResult is the broadcast transaction's hash.
type EthSendRawTransactionResult struct {
	TransactionHash string `json:"transactionHash"`
}

// EthUndelegate7702Intent is ACTIVITY_TYPE_ETH_UNDELEGATE_7702: an account's EIP-7702 delegation removed, by a type-4
// transaction whose authorization delegates to the zero address. The nonce and fee fields are decimal strings.
type EthUndelegate7702Intent struct {
	From                 string `json:"from"`
	Caip2                string `json:"caip2"`
	Nonce                string `json:"nonce,omitempty"`
	GasLimit             string `json:"gasLimit,omitempty"`
	MaxFeePerGas         string `json:"maxFeePerGas,omitempty"`
	MaxPriorityFeePerGas string `json:"maxPriorityFeePerGas,omitempty"`
}

// EthUndelegate7702Result names the send that removes the delegation.
type EthUndelegate7702Result struct {
	SendTransactionStatusID string `json:"sendTransactionStatusId"`
}

// The states of a send (txStatus). INITIALIZED: accepted, not yet broadcast; BROADCASTING: signed and sent, waiting
// for a block; INCLUDED: in a block and successful; FAILED: refused, reverted, or replaced, with the reason.
const (
	TxStatusInitialized  = "INITIALIZED"
	TxStatusBroadcasting = "BROADCASTING"
	TxStatusIncluded     = "INCLUDED"
	TxStatusFailed       = "FAILED"
)

// GetSendTransactionStatusRequest names a send.
type GetSendTransactionStatusRequest struct {
	OrganizationID          string `json:"organizationId"`
	SendTransactionStatusID string `json:"sendTransactionStatusId"`
}

// GetSendTransactionStatusResponse is a send's state, its transaction hash once signed, and why it failed.
type GetSendTransactionStatusResponse struct {
	TxStatus string              `json:"txStatus"`
	Eth      *EthSendTxStatus    `json:"eth,omitempty"`
	Solana   *SolanaSendTxStatus `json:"solana,omitempty"`
	TxError  string              `json:"txError,omitempty"`
	Error    *TxError            `json:"error,omitempty"`
}

// EthSendTxStatus is the Ethereum side of a send's status.
type EthSendTxStatus struct {
	TxHash string `json:"txHash,omitempty"`
}

// TxError is why a send failed: a message, and for a revert the reasons decoded, outermost first.
type TxError struct {
	Message     string                `json:"message,omitempty"`
	RevertChain []RevertChainEntry    `json:"revertChain,omitempty"`
	Eth         *EthFailureDetails    `json:"eth,omitempty"`
	Solana      *SolanaFailureDetails `json:"solana,omitempty"`
}

// EthFailureDetails holds the revert chain of an EVM failure.
type EthFailureDetails struct {
	RevertChain []RevertChainEntry `json:"revertChain,omitempty"`
}

// RevertChainEntry is one revert: errorType "native" (Error(string), Panic(uint256), a bare revert), "custom" (an
// error an uploaded contract interface declares) or "unknown".
type RevertChainEntry struct {
	Address        string              `json:"address,omitempty"`
	ErrorType      string              `json:"errorType,omitempty"`
	DisplayMessage string              `json:"displayMessage,omitempty"`
	Unknown        *UnknownRevertError `json:"unknown,omitempty"`
	Native         *NativeRevertError  `json:"native,omitempty"`
	Custom         *CustomRevertError  `json:"custom,omitempty"`
}

// UnknownRevertError is revert data nothing decodes.
type UnknownRevertError struct {
	Selector string `json:"selector,omitempty"`
	Data     string `json:"data,omitempty"`
}

// NativeRevertError is a revert of Solidity's own: nativeType error_string, panic or execution_reverted.
type NativeRevertError struct {
	NativeType string `json:"nativeType,omitempty"`
	Message    string `json:"message,omitempty"`
	PanicCode  string `json:"panicCode,omitempty"`
}

// CustomRevertError is a custom error decoded with an uploaded interface: its name and its arguments as JSON.
type CustomRevertError struct {
	ErrorName  string `json:"errorName,omitempty"`
	ParamsJSON string `json:"paramsJson,omitempty"`
}

// GetNoncesRequest asks for an address's nonces on a network.
type GetNoncesRequest struct {
	OrganizationID  string `json:"organizationId"`
	Address         string `json:"address"`
	Caip2           string `json:"caip2"`
	Nonce           *bool  `json:"nonce,omitempty"`
	GasStationNonce *bool  `json:"gasStationNonce,omitempty"`
}

// GetNoncesResponse is the next nonce the address's next send takes: the larger of the chain's pending count and the
// coordinator's own allocation.
type GetNoncesResponse struct {
	Nonce           string `json:"nonce,omitempty"`
	GasStationNonce string `json:"gasStationNonce,omitempty"`
}

// UpsertGasUsageConfigIntent is ACTIVITY_TYPE_UPSERT_GAS_USAGE_CONFIG: the gas-spend limits of sponsored sends, for
// the billing organization (all its organizations together) and for each of its sub-organizations, over a rolling
// window. Amounts are decimal USD; the window at most 43,200 minutes (30 days).
type UpsertGasUsageConfigIntent struct {
	OrgWindowLimitUsd     string         `json:"orgWindowLimitUsd"`
	SubOrgWindowLimitUsd  string         `json:"subOrgWindowLimitUsd"`
	WindowDurationMinutes string         `json:"windowDurationMinutes"`
	Enabled               *bool          `json:"enabled,omitempty"`
	SolanaConfig          map[string]any `json:"solanaConfig,omitempty" sigil:"unsupported"`
}

// UpsertGasUsageConfigResult names the configuration.
type UpsertGasUsageConfigResult struct {
	GasUsageConfigID string `json:"gasUsageConfigId"`
}

// GetGasUsageRequest asks for an organization's sponsored gas spend.
type GetGasUsageRequest struct {
	OrganizationID string `json:"organizationId"`
}

// GetGasUsageResponse is what the organization's sponsored sends cost in the window, against its limit, in USD; Sigil
// adds the native amount (wei).
type GetGasUsageResponse struct {
	WindowDurationMinutes int32  `json:"windowDurationMinutes"`
	WindowLimitUsd        string `json:"windowLimitUsd"`
	UsageUsd              string `json:"usageUsd"`
	UsageWei              string `json:"usageWei,omitempty"`
	// UsageLamports is Sigil's too: the Solana clusters' part, in lamports.
	UsageLamports string `json:"usageLamports,omitempty"`
	// SponsorAddress and SolanaSponsorAddress are Sigil's too: the gas sponsors that pay the organization's sponsored
	// sends (its billing organization's), which must hold the gas on each EVM network and the fees on each Solana
	// cluster; the Solana one only when a cluster is configured.
	SponsorAddress       string `json:"sponsorAddress,omitempty"`
	SolanaSponsorAddress string `json:"solanaSponsorAddress,omitempty"`
}

// The activity types and queries of this file.
var (
	EthSendTransactionV2  = activity[EthSendTransactionIntentV2, EthSendTransactionResultV2]("ETH_SEND_TRANSACTION_V2", "eth_send_transaction", "ethSendTransactionIntentV2", "ethSendTransactionResultV2")
	EthUndelegate7702     = activity[EthUndelegate7702Intent, EthUndelegate7702Result]("ETH_UNDELEGATE_7702", "eth_undelegate_7702", "ethUndelegate7702Intent", "ethUndelegate7702Result")
	EthSendRawTransaction = activity[EthSendRawTransactionIntent, EthSendRawTransactionResult]("ETH_SEND_RAW_TRANSACTION", "eth_send_raw_transaction", "ethSendRawTransactionIntent", "ethSendRawTransactionResult")

	GetSendTransactionStatus = query[GetSendTransactionStatusRequest, GetSendTransactionStatusResponse]("get_send_transaction_status")
	GetNonces                = query[GetNoncesRequest, GetNoncesResponse]("get_nonces")
	GetGasUsage              = query[GetGasUsageRequest, GetGasUsageResponse]("get_gas_usage")
	UpsertGasUsageConfig     = activity[UpsertGasUsageConfigIntent, UpsertGasUsageConfigResult]("UPSERT_GAS_USAGE_CONFIG", "upsert_gas_usage_config", "upsertGasUsageConfigIntent", "upsertGasUsageConfigResult")
)
