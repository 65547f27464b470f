package policy

// Param is one key of activity.params, which the language names in snake_case.
type Param struct {
	Name string
	Type string // "string", "int" or "list<string>"
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
	ParamSecretIDs       = Param{"secret_ids", "list<string>"}
)

// Params is the whole vocabulary of activity.params.
var Params = []Param{ParamHashFunction, ParamEncoding, ParamTxType, ParamUserIDs, ParamUserID, ParamAPIKeyIDs,
	ParamTargetPublicKey, ParamWalletID, ParamOTPLength, ParamSessionProfile, ParamSecretIDs}
