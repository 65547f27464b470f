package policy

// Param is one key of activity.params, which the language names in snake_case.
type Param struct {
	Name string
	Type string // "string", "int", "bool" or "list<string>"
}

// The parameters activity.params may hold: the language's vocabulary, which the type checker knows. Which activity
// types expose which of them is said where the types are listed (the coordinator's list of operations, published in
// docs/ACTIVITIES.md); a test there checks that every parameter it names is one of these.
var (
	ParamHashFunction    = Param{"hash_function", "string"}
	ParamEncoding        = Param{"encoding", "string"}
	ParamTxType          = Param{"type", "string"}
	ParamUserIDs         = Param{"user_ids", "list<string>"}
	ParamUserID          = Param{"user_id", "string"}
	ParamAPIKeyIDs       = Param{"api_key_ids", "list<string>"}
	ParamTargetPublicKey = Param{"target_public_key", "string"}
	ParamWalletID        = Param{"wallet_id", "string"}
	ParamOTPLength       = Param{"otp_length", "int"}
	ParamSessionProfile  = Param{"session_profile_id", "string"}

	// Earn's (internal/coordinator/earn.go), besides sign_with and sponsor (below): addresses as given; a deposit's
	// assets and the client's fee are numbers, as the swaps' amounts are, so that a policy can bound them; a
	// withdrawal's amount_value is a string, as it may be "MAX".
	ParamVaultAddress     = Param{"vault_address", "string"}
	ParamWrapperAddress   = Param{"wrapper_address", "string"}
	ParamChainCAIP2       = Param{"chain_caip2", "string"}
	ParamClientFeeBps     = Param{"client_fee_bps", "int"}
	ParamClientFeeWallet  = Param{"client_fee_wallet", "string"}
	ParamAssets           = Param{"assets", "int"}
	ParamAmountValue      = Param{"amount_value", "string"}
	ParamDepositsDisabled = Param{"deposits_disabled", "bool"}

	// secrets (internal/coordinator/secrets.go)
	ParamSecretIDs = Param{"secret_ids", "list<string>"}

	// IP allowlists (internal/coordinator/allowlists.go): what a list does, not whose key it is (a public key as the
	// caller wrote it could differ in case from the stored one, and so slip past a DENY naming it).
	ParamEnabled           = Param{"enabled", "bool"}
	ParamOnEvaluationError = Param{"on_evaluation_error", "string"}
)

// The parameters of the swap activities (sign_with and sponsor Earn's too): amounts (base units) and fees (basis points) are numbers, so that a policy
// can bound them (activity.params.input_amount <= 1000000000).
var (
	ParamSignWith                 = Param{"sign_with", "string"}
	ParamInputToken               = Param{"input_token", "string"}
	ParamOutputToken              = Param{"output_token", "string"}
	ParamInputAmount              = Param{"input_amount", "int"}
	ParamSlippageBps              = Param{"slippage_bps", "int"}
	ParamDestinationAddress       = Param{"destination_address", "string"}
	ParamQuoteID                  = Param{"quote_id", "string"}
	ParamQuotedOutputAmount       = Param{"quoted_output_amount", "int"}
	ParamMinOutputAmount          = Param{"min_output_amount", "int"}
	ParamSponsor                  = Param{"sponsor", "bool"}
	ParamFeeBps                   = Param{"fee_bps", "int"}
	ParamStableFeeBps             = Param{"stable_fee_bps", "int"}
	ParamFeeReceiverWalletAddress = Param{"fee_receiver_wallet_address", "string"}
)

// Params is the whole vocabulary of activity.params.
var Params = []Param{ParamHashFunction, ParamEncoding, ParamTxType, ParamUserIDs, ParamUserID, ParamAPIKeyIDs,
	ParamTargetPublicKey, ParamWalletID, ParamOTPLength, ParamSessionProfile, ParamSecretIDs, ParamEnabled, ParamOnEvaluationError,
	// Earn
	ParamVaultAddress, ParamWrapperAddress, ParamChainCAIP2, ParamClientFeeBps, ParamClientFeeWallet, ParamAssets, ParamAmountValue,
	ParamDepositsDisabled,
	// swaps
	ParamSignWith, ParamInputToken, ParamOutputToken, ParamInputAmount, ParamSlippageBps, ParamDestinationAddress,
	ParamQuoteID, ParamQuotedOutputAmount, ParamMinOutputAmount, ParamSponsor, ParamFeeBps, ParamStableFeeBps,
	ParamFeeReceiverWalletAddress,
}
