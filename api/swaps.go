package api

// Swaps: a quote priced from Uniswap V3's pools (create_swap_quote), its execution bound to it (execute_swap), its
// status (get_swap_status), the organization's client fee (upsert_swap_config) and the claim of the fees it earned
// (claim_swap_fees), in @turnkey/http 6.6.0's shapes. Fields marked "beyond the reference" are Sigil's own: the
// reference's shapes carry neither the route nor the fees nor the price impact of a quote. docs/SWAPS.md tells the
// whole story.

// CreateSwapQuoteIntent is ACTIVITY_TYPE_CREATE_SWAP_QUOTE (v1CreateSwapQuoteIntent), what @turnkey/sdk-server's
// createSwapQuote sends. Amounts are decimal strings of base units; tokens are CAIP-19 ids.
type CreateSwapQuoteIntent struct {
	SignWith    string `json:"signWith"`
	InputToken  string `json:"inputToken"`
	OutputToken string `json:"outputToken"`
	InputAmount string `json:"inputAmount"`
	SlippageBps string `json:"slippageBps,omitempty"`
}

// CreateSwapQuoteIntentV2 is ACTIVITY_TYPE_CREATE_SWAP_QUOTE_V2 (v1CreateSwapQuoteIntentV2): the output may go to
// another address.
type CreateSwapQuoteIntentV2 struct {
	SignWith           string `json:"signWith"`
	InputToken         string `json:"inputToken"`
	OutputToken        string `json:"outputToken"`
	InputAmount        string `json:"inputAmount"`
	SlippageBps        string `json:"slippageBps,omitempty"`
	DestinationAddress string `json:"destinationAddress,omitempty"`
}

// CreateSwapQuoteResult is v1CreateSwapQuoteResult: one quote, Sigil's own routing over Uniswap V3.
type CreateSwapQuoteResult struct {
	Quotes []SwapQuote `json:"quotes"`
}

// The providers of Sigil's quotes: Uniswap V3 on one chain, and Sigil's bridge (with Uniswap V3 on either side)
// across two.
const (
	SwapProviderUniswapV3   = "UNISWAP_V3"
	SwapProviderSigilBridge = "SIGIL_BRIDGE"
)

// SwapQuote is v1SwapQuote and, beyond the reference, what the quote is: its kind, tokens, route, fees, price impact
// and recipient.
type SwapQuote struct {
	QuoteID              string `json:"quoteId"`
	Provider             string `json:"provider"`
	OutputAmount         string `json:"outputAmount"`
	MinOutputAmount      string `json:"minOutputAmount"`
	ExpiresAt            string `json:"expiresAt"` // milliseconds since the epoch
	SlippageBps          string `json:"slippageBps,omitempty"`
	ClientFeeBps         string `json:"clientFeeBps"`
	EstimatedTimeSeconds string `json:"estimatedTimeSeconds,omitempty"`

	// Beyond the reference.
	SwapKind           string          `json:"swapKind"` // SAME_CHAIN or CROSS_CHAIN (through Sigil's bridge)
	InputToken         string          `json:"inputToken"`
	OutputToken        string          `json:"outputToken"`
	InputAmount        string          `json:"inputAmount"`
	DestinationAddress string          `json:"destinationAddress"`
	PriceImpactBps     string          `json:"priceImpactBps"`
	Route              []SwapRouteStep `json:"route"`
	Fees               []SwapFee       `json:"fees"`
}

// The steps of a swap's route.
const (
	SwapStepUniswapV3Pool = "UNISWAP_V3_POOL"
	SwapStepSigilBridge   = "SIGIL_BRIDGE"
)

// SwapRouteStep is one step of a quote's route (beyond the reference): a Uniswap V3 pool on a network, or Sigil's
// bridge from one network to another.
type SwapRouteStep struct {
	Type             string `json:"type"`
	Caip2            string `json:"caip2"`
	Address          string `json:"address"` // the pool, or the origin network's bridge
	InputToken       string `json:"inputToken"`
	OutputToken      string `json:"outputToken"`
	FeeTier          string `json:"feeTier,omitempty"`          // a pool's fee, in hundredths of a basis point (Uniswap's unit)
	DestinationCaip2 string `json:"destinationCaip2,omitempty"` // the bridge's destination network
}

// The kinds of fees a quote lists.
const (
	SwapFeeClient = "CLIENT" // the organization's client fee, paid to its fee receiver
	SwapFeePool   = "POOL"   // a pool's fee, paid to its liquidity providers
)

// SwapFee is one fee a quote pays (beyond the reference), in base units of the asset it is taken in.
type SwapFee struct {
	Type      string `json:"type"`
	Asset     string `json:"asset"`
	Amount    string `json:"amount"`
	Recipient string `json:"recipient,omitempty"`
}

// ExecuteSwapIntentV2 is ACTIVITY_TYPE_EXECUTE_SWAP_V2 (v1ExecuteSwapIntentV2), what @turnkey/sdk-server's executeSwap
// sends: the quote's id and what it committed to, which must be what was quoted.
type ExecuteSwapIntentV2 struct {
	QuoteID            string `json:"quoteId"`
	InputToken         string `json:"inputToken"`
	InputAmount        string `json:"inputAmount"`
	OutputToken        string `json:"outputToken"`
	QuotedOutputAmount string `json:"quotedOutputAmount"`
	MinOutputAmount    string `json:"minOutputAmount"`
	Sponsor            bool   `json:"sponsor"`
	EvmNonce           string `json:"evmNonce,omitempty"`
	RecentBlockhash    string `json:"recentBlockhash,omitempty"`
	GasStationNonce    string `json:"gasStationNonce,omitempty"`
}

// ExecuteSwapIntentV3 is ACTIVITY_TYPE_EXECUTE_SWAP_V3 (v1ExecuteSwapIntentV3): V2 and the quote's destination address.
type ExecuteSwapIntentV3 struct {
	QuoteID            string `json:"quoteId"`
	InputToken         string `json:"inputToken"`
	InputAmount        string `json:"inputAmount"`
	OutputToken        string `json:"outputToken"`
	QuotedOutputAmount string `json:"quotedOutputAmount"`
	MinOutputAmount    string `json:"minOutputAmount"`
	Sponsor            bool   `json:"sponsor"`
	EvmNonce           string `json:"evmNonce,omitempty"`
	RecentBlockhash    string `json:"recentBlockhash,omitempty"`
	GasStationNonce    string `json:"gasStationNonce,omitempty"`
	DestinationAddress string `json:"destinationAddress,omitempty"`
}

// ExecuteSwapResult is v1ExecuteSwapResult and, beyond the reference, the send that carries the swap's transaction
// (get_send_transaction_status).
type ExecuteSwapResult struct {
	SwapRequestID           string `json:"swapRequestId"`
	Provider                string `json:"provider,omitempty"`
	QuoteID                 string `json:"quoteId,omitempty"`
	SendTransactionStatusID string `json:"sendTransactionStatusId"`
}

// GetSwapStatusRequest names a swap.
type GetSwapStatusRequest struct {
	OrganizationID string `json:"organizationId"`
	SwapRequestID  string `json:"swapRequestId"`
}

// The states of a swap.
const (
	SwapPending   = "PENDING"
	SwapCompleted = "COMPLETED"
	SwapFailed    = "FAILED"
)

// The reasons a swap failed.
const (
	SwapOriginTransactionFailed = "ORIGIN_TRANSACTION_FAILED"
	SwapProviderFillFailed      = "PROVIDER_FILL_FAILED"
)

// GetSwapStatusResponse is v1GetSwapStatusResponse and, beyond the reference, the quote and send it came from.
type GetSwapStatusResponse struct {
	Status              string      `json:"status"`
	SwapKind            string      `json:"swapKind"`
	Provider            string      `json:"provider"`
	InputToken          string      `json:"inputToken"`
	OutputToken         string      `json:"outputToken"`
	InputAmount         string      `json:"inputAmount"`
	OriginTxHash        string      `json:"originTxHash,omitempty"`
	DestinationTxHashes []string    `json:"destinationTxHashes,omitempty"`
	OutputAmount        string      `json:"outputAmount,omitempty"`
	Refund              *SwapRefund `json:"refund,omitempty"`
	UpdatedAt           string      `json:"updatedAt"` // milliseconds since the epoch
	Error               *SwapError  `json:"error,omitempty"`
	DestinationAddress  string      `json:"destinationAddress,omitempty"`

	// Beyond the reference.
	QuoteID                 string `json:"quoteId"`
	SendTransactionStatusID string `json:"sendTransactionStatusId"`
}

// SwapRefund is v1SwapRefund: what a cross-chain swap delivered instead of its output when the destination's swap
// could not give its minimum (the bridged token itself).
type SwapRefund struct {
	Asset  string `json:"asset"`
	Amount string `json:"amount"`
	TxHash string `json:"txHash,omitempty"`
}

// SwapError is v1SwapError.
type SwapError struct {
	Reason         string   `json:"reason"`
	Message        string   `json:"message"`
	OriginTxError  *TxError `json:"originTxError,omitempty"`
	ProviderReason string   `json:"providerReason,omitempty"`
}

// UpsertSwapConfigIntent is ACTIVITY_TYPE_UPSERT_SWAP_CONFIG (v1UpsertSwapConfigIntent). A field given replaces the
// setting, one left out keeps it; an empty fee receiver or stable fee clears it.
type UpsertSwapConfigIntent struct {
	FeeReceiverWalletAddress *string `json:"feeReceiverWalletAddress,omitempty"`
	FeeBps                   *string `json:"feeBps,omitempty"`
	StableFeeBps             *string `json:"stableFeeBps,omitempty"`
}

// UpsertSwapConfigResult is v1UpsertSwapConfigResult: the configuration now.
type UpsertSwapConfigResult struct {
	FeeReceiverWalletAddress string `json:"feeReceiverWalletAddress,omitempty"`
	FeeBps                   string `json:"feeBps,omitempty"`
	StableFeeBps             string `json:"stableFeeBps,omitempty"`
}

// ClaimSwapFeesIntent is ACTIVITY_TYPE_CLAIM_SWAP_FEES (v1ClaimSwapFeesIntent, which names no parameter). Beyond the
// reference, Caip2 picks the network whose fees are claimed; without it, the first network (in CAIP-2 order) where
// fees accrued. One activity claims one network's fees: its transaction is one send.
type ClaimSwapFeesIntent struct {
	Caip2 string `json:"caip2,omitempty"`
}

// ClaimSwapFeesResult is v1ClaimSwapFeesResult and, beyond the reference, the network claimed, the send that pays the
// fee receiver (get_send_transaction_status) and what it pays.
type ClaimSwapFeesResult struct {
	RequestID               string    `json:"requestId"`
	Caip2                   string    `json:"caip2"`
	SendTransactionStatusID string    `json:"sendTransactionStatusId"`
	Fees                    []SwapFee `json:"fees"`
}

// The activity types and the query of swaps.
var (
	CreateSwapQuote   = activity[CreateSwapQuoteIntent, CreateSwapQuoteResult]("CREATE_SWAP_QUOTE", "create_swap_quote", "createSwapQuoteIntent", "createSwapQuoteResult")
	CreateSwapQuoteV2 = activity[CreateSwapQuoteIntentV2, CreateSwapQuoteResult]("CREATE_SWAP_QUOTE_V2", "create_swap_quote", "createSwapQuoteIntentV2", "createSwapQuoteResult")
	ExecuteSwapV2     = activity[ExecuteSwapIntentV2, ExecuteSwapResult]("EXECUTE_SWAP_V2", "execute_swap", "executeSwapIntentV2", "executeSwapResult")
	ExecuteSwapV3     = activity[ExecuteSwapIntentV3, ExecuteSwapResult]("EXECUTE_SWAP_V3", "execute_swap", "executeSwapIntentV3", "executeSwapResult")
	UpsertSwapConfig  = activity[UpsertSwapConfigIntent, UpsertSwapConfigResult]("UPSERT_SWAP_CONFIG", "upsert_swap_config", "upsertSwapConfigIntent", "upsertSwapConfigResult")
	ClaimSwapFees     = activity[ClaimSwapFeesIntent, ClaimSwapFeesResult]("CLAIM_SWAP_FEES", "claim_swap_fees", "claimSwapFeesIntent", "claimSwapFeesResult")

	GetSwapStatus = query[GetSwapStatusRequest, GetSwapStatusResponse]("get_swap_status")
)
