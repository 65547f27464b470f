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

	// Earn's (internal/coordinator/earn.go): addresses as given, amounts and fees as the decimal strings the intents carry.
	ParamVaultAddress     = Param{"vault_address", "string"}
	ParamWrapperAddress   = Param{"wrapper_address", "string"}
	ParamChainCAIP2       = Param{"chain_caip2", "string"}
	ParamClientFeeBps     = Param{"client_fee_bps", "string"}
	ParamClientFeeWallet  = Param{"client_fee_wallet", "string"}
	ParamSignWith         = Param{"sign_with", "string"}
	ParamAssets           = Param{"assets", "string"}
	ParamAmountValue      = Param{"amount_value", "string"}
	ParamSponsor          = Param{"sponsor", "bool"}
	ParamDepositsDisabled = Param{"deposits_disabled", "bool"}
)

// Params is the whole vocabulary of activity.params.
var Params = []Param{ParamHashFunction, ParamEncoding, ParamTxType, ParamUserIDs, ParamUserID, ParamAPIKeyIDs,
	ParamTargetPublicKey, ParamWalletID, ParamOTPLength, ParamSessionProfile,
	// Earn
	ParamVaultAddress, ParamWrapperAddress, ParamChainCAIP2, ParamClientFeeBps, ParamClientFeeWallet, ParamSignWith, ParamAssets,
	ParamAmountValue, ParamSponsor, ParamDepositsDisabled}
