package api

// SolSendTransactionIntentV2 is ACTIVITY_TYPE_SOL_SEND_TRANSACTION_V2: a Solana transaction (hex, in full wire
// format, its unsigned slots zeros) signed by each of signWiths, broadcast and watched by the coordinator. caip2 is a
// Solana CAIP-2 id (solana:<genesis hash>) or an alias (solana:mainnet, solana:devnet); recentBlockhash (base58), when
// given, replaces the message's, and when omitted a fresh one is fetched before signing.
type SolSendTransactionIntentV2 struct {
	UnsignedTransaction string   `json:"unsignedTransaction"`
	SignWiths           []string `json:"signWiths"`
	Sponsor             *bool    `json:"sponsor,omitempty"`
	Caip2               string   `json:"caip2"`
	RecentBlockhash     string   `json:"recentBlockhash,omitempty"`
}

// SolSendTransactionIntent is ACTIVITY_TYPE_SOL_SEND_TRANSACTION, the first version: one signer, signWith.
type SolSendTransactionIntent struct {
	UnsignedTransaction string `json:"unsignedTransaction"`
	SignWith            string `json:"signWith"`
	Sponsor             *bool  `json:"sponsor,omitempty"`
	Caip2               string `json:"caip2"`
	RecentBlockhash     string `json:"recentBlockhash,omitempty"`
}

// SolSendTransactionResult names the send's status, read with get_send_transaction_status.
type SolSendTransactionResult struct {
	SendTransactionStatusID string `json:"sendTransactionStatusId"`
}

// SolanaSendTxStatus is the Solana side of a send's status: the transaction's signature (its first), once signed.
type SolanaSendTxStatus struct {
	Signature string `json:"signature,omitempty"`
}

// SolanaFailureDetails is why a Solana send failed, as the cluster said it: where (source: preflight, execution,
// expiry), the JSON-RPC error's code and message, the runtime's TransactionError as JSON, and the program logs.
type SolanaFailureDetails struct {
	Source               string   `json:"source,omitempty"`
	RPCCode              int32    `json:"rpcCode,omitempty"`
	RPCMessage           string   `json:"rpcMessage,omitempty"`
	TransactionErrorJSON string   `json:"transactionErrorJson,omitempty"`
	Logs                 []string `json:"logs,omitempty"`
}

// The Solana sending activities.
var (
	SolSendTransactionV2 = activity[SolSendTransactionIntentV2, SolSendTransactionResult]("SOL_SEND_TRANSACTION_V2", "sol_send_transaction", "solSendTransactionIntentV2", "solSendTransactionResultV2")
	SolSendTransaction   = activity[SolSendTransactionIntent, SolSendTransactionResult]("SOL_SEND_TRANSACTION", "sol_send_transaction", "solSendTransactionIntent", "solSendTransactionResult")
)
