package solanadev

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"

	"github.com/sigil/sigil/internal/keys"
	"github.com/sigil/sigil/internal/solana"
)

// Version is what getVersion reports: the Solana release whose RPC protocol the node follows.
const Version = "2.1.21"

// JSON-RPC error codes of Solana's RPC.
const (
	codeInvalidRequest        = -32600
	codeMethodNotFound        = -32601
	codeInvalidParams         = -32602
	codePreflightFailure      = -32002
	codeSignatureVerification = -32003
	codeUnsupportedTxVersion  = -32015
	codeParse                 = -32700
	maxRequestBody            = 1 << 20
	rentEpochExempt           = math.MaxUint64
)

type rpcRequest struct {
	JSONRPC string            `json:"jsonrpc"`
	ID      json.RawMessage   `json:"id"`
	Method  string            `json:"method"`
	Params  []json.RawMessage `json:"params"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func (e *rpcError) Error() string { return e.Message }

func invalidParams(format string, args ...any) *rpcError {
	return &rpcError{Code: codeInvalidParams, Message: fmt.Sprintf(format, args...)}
}

// Handler serves the JSON-RPC API (POST, one request or a batch).
func (n *Node) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.Path == "/health" {
			_, _ = io.WriteString(w, "ok")
			return
		}
		if r.Method != http.MethodPost {
			http.Error(w, "the Solana JSON-RPC API takes POST requests", http.StatusMethodNotAllowed)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRequestBody))
		w.Header().Set("Content-Type", "application/json")
		if err != nil {
			writeJSON(w, reply(nil, nil, &rpcError{Code: codeParse, Message: "Parse error"}))
			return
		}
		var batch []rpcRequest
		if json.Unmarshal(body, &batch) == nil {
			out := make([]any, len(batch))
			for i, req := range batch {
				out[i] = n.serve(req)
			}
			writeJSON(w, out)
			return
		}
		var req rpcRequest
		if err := json.Unmarshal(body, &req); err != nil {
			writeJSON(w, reply(nil, nil, &rpcError{Code: codeParse, Message: "Parse error"}))
			return
		}
		writeJSON(w, n.serve(req))
	})
}

func writeJSON(w io.Writer, v any) { _ = json.NewEncoder(w).Encode(v) }

func reply(id json.RawMessage, result any, err *rpcError) map[string]any {
	out := map[string]any{"jsonrpc": "2.0", "id": id}
	if id == nil {
		out["id"] = nil
	}
	if err != nil {
		out["error"] = err
	} else {
		out["result"] = result
	}
	return out
}

func (n *Node) serve(req rpcRequest) map[string]any {
	if req.JSONRPC != "2.0" || req.Method == "" {
		return reply(req.ID, nil, &rpcError{Code: codeInvalidRequest, Message: "Invalid request"})
	}
	m, ok := methods[req.Method]
	if !ok {
		return reply(req.ID, nil, &rpcError{Code: codeMethodNotFound, Message: "Method not found"})
	}
	result, err := m(n, req.Params)
	return reply(req.ID, result, err)
}

// methods are the RPC methods the node answers.
var methods = map[string]func(n *Node, params []json.RawMessage) (any, *rpcError){
	"getHealth": func(*Node, []json.RawMessage) (any, *rpcError) { return "ok", nil },
	"getVersion": func(*Node, []json.RawMessage) (any, *rpcError) {
		return map[string]any{"solana-core": Version, "feature-set": 0}, nil
	},
	"getGenesisHash":                    func(n *Node, _ []json.RawMessage) (any, *rpcError) { return n.GenesisHash(), nil },
	"getSlot":                           getSlot,
	"getBlockHeight":                    getBlockHeight,
	"getBlock":                          getBlock,
	"getBlocks":                         getBlocks,
	"getBlocksWithLimit":                getBlocksWithLimit,
	"getFirstAvailableBlock":            getFirstAvailableBlock,
	"getLatestBlockhash":                getLatestBlockhash,
	"isBlockhashValid":                  isBlockhashValid,
	"getBalance":                        getBalance,
	"getAccountInfo":                    getAccountInfo,
	"getMinimumBalanceForRentExemption": getMinimumBalanceForRentExemption,
	"getFeeForMessage":                  getFeeForMessage,
	"requestAirdrop":                    requestAirdrop,
	"sendTransaction":                   sendTransaction,
	"simulateTransaction":               simulateTransaction,
	"getSignatureStatuses":              getSignatureStatuses,
	"getTransaction":                    getTransaction,
}

func (n *Node) slot() uint64 {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.st.Slot
}

// withContext is a result with the slot it was read at.
func (n *Node) withContext(slot uint64, value any) any {
	return map[string]any{"context": map[string]any{"apiVersion": Version, "slot": slot}, "value": value}
}

// param decodes the i-th parameter into v; a missing optional one leaves v as it is.
func param(params []json.RawMessage, i int, v any, required bool) *rpcError {
	if i >= len(params) || string(params[i]) == "null" {
		if required {
			return invalidParams("missing parameter %d", i)
		}
		return nil
	}
	if err := json.Unmarshal(params[i], v); err != nil {
		return invalidParams("parameter %d: %v", i, err)
	}
	return nil
}

func keyParam(params []json.RawMessage, i int) (solana.Key, *rpcError) {
	var s string
	if err := param(params, i, &s, true); err != nil {
		return solana.Key{}, err
	}
	k, err := solana.ParseKey(s)
	if err != nil {
		return k, invalidParams("Invalid param: %v", err)
	}
	return k, nil
}

func getLatestBlockhash(n *Node, _ []json.RawMessage) (any, *rpcError) {
	n.mu.Lock()
	defer n.mu.Unlock()
	h, last := n.latest()
	return n.withContext(n.st.Slot, map[string]any{"blockhash": h.String(), "lastValidBlockHeight": last}), nil
}

func isBlockhashValid(n *Node, params []json.RawMessage) (any, *rpcError) {
	h, err := keyParam(params, 0)
	if err != nil {
		return nil, err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.withContext(n.st.Slot, n.blockhashValid(h)), nil
}

func getBalance(n *Node, params []json.RawMessage) (any, *rpcError) {
	k, err := keyParam(params, 0)
	if err != nil {
		return nil, err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	var lamports uint64
	if acc := n.st.Accounts[k]; acc != nil {
		lamports = acc.Lamports
	}
	return n.withContext(n.st.Slot, lamports), nil
}

func getAccountInfo(n *Node, params []json.RawMessage) (any, *rpcError) {
	k, err := keyParam(params, 0)
	if err != nil {
		return nil, err
	}
	var opt struct{ Encoding string }
	if err := param(params, 1, &opt, false); err != nil {
		return nil, err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	acc := n.st.Accounts[k]
	if acc == nil {
		return n.withContext(n.st.Slot, nil), nil
	}
	var data any
	switch opt.Encoding {
	case "base64", "jsonParsed": // no parser: jsonParsed falls back to base64, as the RPC does for unknown programs
		data = []string{base64.StdEncoding.EncodeToString(acc.Data), "base64"}
	case "", "base58", "binary":
		data = []string{keys.Base58Encode(acc.Data), "base58"}
		if opt.Encoding == "binary" {
			data = keys.Base58Encode(acc.Data)
		}
	default:
		return nil, invalidParams("Invalid params: unknown encoding %q", opt.Encoding)
	}
	return n.withContext(n.st.Slot, map[string]any{"lamports": acc.Lamports, "owner": acc.Owner.String(), "data": data,
		"executable": false, "rentEpoch": uint64(rentEpochExempt), "space": len(acc.Data)}), nil
}

func getMinimumBalanceForRentExemption(_ *Node, params []json.RawMessage) (any, *rpcError) {
	var size uint64
	if err := param(params, 0, &size, false); err != nil {
		return nil, err
	}
	return MinimumBalanceForRentExemption(size), nil
}

func getFeeForMessage(n *Node, params []json.RawMessage) (any, *rpcError) {
	var b64 string
	if err := param(params, 0, &b64, true); err != nil {
		return nil, err
	}
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return nil, invalidParams("Invalid params: the message is not base64: %v", err)
	}
	m, err := solana.ParseMessage(raw)
	if err != nil {
		return nil, invalidParams("Invalid params: %v", err)
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.blockhashValid(m.RecentBlockhash) {
		return n.withContext(n.st.Slot, nil), nil
	}
	return n.withContext(n.st.Slot, LamportsPerSignature*uint64(m.Header.NumRequiredSignatures)), nil
}

func requestAirdrop(n *Node, params []json.RawMessage) (any, *rpcError) {
	k, err := keyParam(params, 0)
	if err != nil {
		return nil, err
	}
	var lamports uint64
	if err := param(params, 1, &lamports, true); err != nil {
		return nil, err
	}
	sig, aerr := n.Airdrop(k, lamports)
	if aerr != nil {
		return nil, &rpcError{Code: -32600, Message: aerr.Error()}
	}
	return sig, nil
}

// txParam decodes a transaction parameter in the encoding the options name (base58 by default, as the RPC's).
func txParam(params []json.RawMessage, opt *txOptions) ([]byte, *rpcError) {
	var s string
	if err := param(params, 0, &s, true); err != nil {
		return nil, err
	}
	if err := param(params, 1, opt, false); err != nil {
		return nil, err
	}
	var raw []byte
	var err error
	switch opt.Encoding {
	case "", "base58":
		raw, err = keys.Base58Decode(s)
	case "base64":
		raw, err = base64.StdEncoding.DecodeString(s)
	default:
		return nil, invalidParams("Invalid params: unsupported encoding: %s. Supported encodings: base58, base64", opt.Encoding)
	}
	if err != nil {
		return nil, invalidParams("invalid transaction: failed to decode %s string", cmpOr(opt.Encoding, "base58"))
	}
	return raw, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// simulation is the value of simulateTransaction, and the data of a failed preflight.
func simulation(r Result) map[string]any {
	var err any
	logs := r.Logs
	if r.Err != nil {
		err, logs = r.Err.Err, r.Err.Logs
	}
	if logs == nil {
		logs = []string{}
	}
	return map[string]any{"err": err, "logs": logs, "accounts": nil, "unitsConsumed": 150 * len(logs) / 2,
		"returnData": nil, "innerInstructions": nil, "replacementBlockhash": nil}
}

func runErr(err error) *rpcError {
	var sig ErrSignature
	var san ErrSanitize
	switch {
	case errors.As(err, &sig):
		return &rpcError{Code: codeSignatureVerification, Message: sig.Error()}
	case errors.As(err, &san):
		return invalidParams("%s", san.Error())
	}
	return &rpcError{Code: -32603, Message: "Internal error: " + err.Error()}
}

// txOptions are the config of sendTransaction and simulateTransaction.
type txOptions struct {
	Encoding               string `json:"encoding"`
	SkipPreflight          bool   `json:"skipPreflight"`
	SigVerify              bool   `json:"sigVerify"`
	ReplaceRecentBlockhash bool   `json:"replaceRecentBlockhash"`
}

func sendTransaction(n *Node, params []json.RawMessage) (any, *rpcError) {
	var opt txOptions
	raw, perr := txParam(params, &opt)
	if perr != nil {
		return nil, perr
	}
	r, err := n.Send(raw, Options{SkipPreflight: opt.SkipPreflight})
	if err != nil && r.Signature == "" {
		return nil, runErr(err)
	}
	if r.Err != nil && !r.Committed {
		return nil, &rpcError{Code: codePreflightFailure, Message: "Transaction simulation failed: " + r.Err.Message, Data: simulation(r)}
	}
	return r.Signature, nil
}

func simulateTransaction(n *Node, params []json.RawMessage) (any, *rpcError) {
	var opt txOptions
	raw, perr := txParam(params, &opt)
	if perr != nil {
		return nil, perr
	}
	if opt.SigVerify && opt.ReplaceRecentBlockhash {
		return nil, invalidParams("sigVerify may not be used with replaceRecentBlockhash")
	}
	r, err := n.Simulate(raw, Options{SigVerify: opt.SigVerify, ReplaceBlockhash: opt.ReplaceRecentBlockhash})
	if err != nil {
		return nil, runErr(err)
	}
	return n.withContext(n.slot(), simulation(r)), nil
}

// status is a transaction's commitment by the depth of its slot.
func status(slot, current uint64) (string, any) {
	depth := current - slot
	switch {
	case depth >= FinalizedDepth:
		return "finalized", nil
	case depth >= ConfirmedDepth:
		return "confirmed", depth
	}
	return "processed", depth
}

// reached reports whether a commitment level is reached by a status ("" is the RPC's default, finalized).
func reached(level, commitment string) bool {
	rank := map[string]int{"processed": 0, "confirmed": 1, "finalized": 2, "": 2}
	return rank[level] >= rank[commitment]
}

func getSignatureStatuses(n *Node, params []json.RawMessage) (any, *rpcError) {
	var sigs []string
	if err := param(params, 0, &sigs, true); err != nil {
		return nil, err
	}
	if len(sigs) > 256 {
		return nil, invalidParams("Too many inputs provided; max 256")
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	out := make([]any, len(sigs))
	for i, s := range sigs {
		rec := n.st.Txs[s]
		if rec == nil {
			continue
		}
		level, confirmations := status(rec.Slot, n.st.Slot)
		out[i] = map[string]any{"slot": rec.Slot, "confirmations": confirmations, "err": errValue(rec.Err),
			"status": statusValue(rec.Err), "confirmationStatus": level}
	}
	return n.withContext(n.st.Slot, out), nil
}

func errValue(e json.RawMessage) any {
	if e == nil {
		return nil
	}
	return e
}

func statusValue(e json.RawMessage) any {
	if e == nil {
		return map[string]any{"Ok": nil}
	}
	return map[string]any{"Err": e}
}

func getTransaction(n *Node, params []json.RawMessage) (any, *rpcError) {
	var sig string
	if err := param(params, 0, &sig, true); err != nil {
		return nil, err
	}
	var opt struct {
		Encoding                       string `json:"encoding"`
		Commitment                     string `json:"commitment"`
		MaxSupportedTransactionVersion *int   `json:"maxSupportedTransactionVersion"`
	}
	if err := param(params, 1, &opt, false); err != nil {
		return nil, err
	}
	if err := atLeastConfirmed(opt.Commitment); err != nil {
		return nil, err
	}
	n.mu.Lock()
	rec, current := n.st.Txs[sig], n.st.Slot
	n.mu.Unlock()
	if rec == nil {
		return nil, nil
	}
	if level, _ := status(rec.Slot, current); !reached(level, opt.Commitment) {
		return nil, nil
	}
	out, err := encodedTransaction(rec, opt.Encoding, opt.MaxSupportedTransactionVersion)
	if err != nil {
		return nil, err
	}
	out["slot"], out["blockTime"] = rec.Slot, rec.BlockTime
	return out, nil
}

// encodedTransaction is a recorded transaction as getTransaction and getBlock show it: the transaction in the
// encoding asked for, its meta, and its version when the client says which it supports (a version 0 transaction
// is refused to a client that does not).
func encodedTransaction(rec *TxRecord, encoding string, maxVersion *int) (map[string]any, *rpcError) {
	tx, err := solana.ParseTransaction(rec.Raw)
	if err != nil {
		return nil, &rpcError{Code: -32603, Message: "Internal error: " + err.Error()}
	}
	m := &tx.Message
	if m.Version >= 0 && (maxVersion == nil || *maxVersion < m.Version) {
		return nil, &rpcError{Code: codeUnsupportedTxVersion, Message: fmt.Sprintf("Transaction version (%d) is not supported by the requesting client. "+
			"Please try the request again with the following configuration parameter: \"maxSupportedTransactionVersion\": %d", m.Version, m.Version)}
	}
	var transaction any
	switch encoding {
	case "base64":
		transaction = []string{base64.StdEncoding.EncodeToString(rec.Raw), "base64"}
	case "base58":
		transaction = []string{keys.Base58Encode(rec.Raw), "base58"}
	case "", "json":
		transaction = jsonTransaction(tx)
	case "jsonParsed":
		transaction = parsedTransaction(tx)
	default:
		return nil, invalidParams("Invalid params: unknown encoding %q", encoding)
	}
	meta := map[string]any{"err": errValue(rec.Err), "status": statusValue(rec.Err), "fee": rec.Fee,
		"preBalances": rec.PreBalances, "postBalances": rec.PostBalances, "innerInstructions": []any{}, "logMessages": rec.Logs,
		"preTokenBalances": []any{}, "postTokenBalances": []any{}, "rewards": []any{},
		"loadedAddresses": map[string]any{"writable": []string{}, "readonly": []string{}}, "computeUnitsConsumed": 150 * len(m.Instructions)}
	out := map[string]any{"transaction": transaction, "meta": meta}
	if maxVersion != nil {
		out["version"] = "legacy"
		if m.Version >= 0 {
			out["version"] = m.Version
		}
	}
	return out, nil
}

// jsonTransaction is a transaction in the RPC's json encoding.
func jsonTransaction(tx *solana.Transaction) map[string]any {
	m := &tx.Message
	sigs := make([]string, len(tx.Signatures))
	for i, s := range tx.Signatures {
		sigs[i] = keys.Base58Encode(s[:])
	}
	accountKeys := make([]string, len(m.AccountKeys))
	for i, k := range m.AccountKeys {
		accountKeys[i] = k.String()
	}
	ins := make([]any, len(m.Instructions))
	for i, in := range m.Instructions {
		accounts := make([]int, len(in.Accounts))
		for j, a := range in.Accounts {
			accounts[j] = int(a)
		}
		ins[i] = map[string]any{"programIdIndex": in.ProgramIDIndex, "accounts": accounts, "data": keys.Base58Encode(in.Data), "stackHeight": nil}
	}
	msg := map[string]any{"accountKeys": accountKeys, "recentBlockhash": m.RecentBlockhash.String(), "instructions": ins,
		"header": map[string]any{"numRequiredSignatures": m.Header.NumRequiredSignatures,
			"numReadonlySignedAccounts": m.Header.NumReadonlySignedAccounts, "numReadonlyUnsignedAccounts": m.Header.NumReadonlyUnsignedAccount}}
	if m.Version >= 0 {
		lookups := make([]any, len(m.AddressTableLookups))
		for i, l := range m.AddressTableLookups {
			lookups[i] = map[string]any{"accountKey": l.AccountKey.String(), "writableIndexes": ints(l.WritableIndexes), "readonlyIndexes": ints(l.ReadonlyIndexes)}
		}
		msg["addressTableLookups"] = lookups
	}
	return map[string]any{"signatures": sigs, "message": msg}
}

func ints(b []uint8) []int {
	out := make([]int, len(b))
	for i, v := range b {
		out[i] = int(v)
	}
	return out
}

// parsedTransaction is a transaction in the RPC's jsonParsed encoding: its accounts with their roles, the System
// Program's Transfer and CreateAccount parsed, any other instruction partially decoded (program, accounts, data).
func parsedTransaction(tx *solana.Transaction) map[string]any {
	out := jsonTransaction(tx)
	m := &tx.Message
	msg := out["message"].(map[string]any)
	accountKeys := make([]any, len(m.AccountKeys))
	for i, k := range m.AccountKeys {
		accountKeys[i] = map[string]any{"pubkey": k.String(), "signer": m.IsSigner(i), "writable": m.IsWritable(i), "source": "transaction"}
	}
	msg["accountKeys"] = accountKeys
	ins := make([]any, len(m.Instructions))
	for i, in := range m.Instructions {
		program := m.AccountKeys[in.ProgramIDIndex]
		accounts := make([]string, len(in.Accounts))
		for j, a := range in.Accounts {
			accounts[j] = m.AccountKeys[a].String()
		}
		if parsed := parseSystem(program, accounts, in.Data); parsed != nil {
			ins[i] = map[string]any{"program": "system", "programId": program.String(), "parsed": parsed, "stackHeight": nil}
			continue
		}
		ins[i] = map[string]any{"programId": program.String(), "accounts": accounts, "data": keys.Base58Encode(in.Data), "stackHeight": nil}
	}
	msg["instructions"] = ins
	return out
}

// parseSystem is a System Program instruction as jsonParsed shows it, or nil for another.
func parseSystem(program solana.Key, accounts []string, data []byte) map[string]any {
	if program != solana.SystemProgram || len(data) < 4 || len(accounts) < 2 {
		return nil
	}
	switch binary.LittleEndian.Uint32(data) {
	case 2:
		if len(data) == 12 {
			return map[string]any{"type": "transfer", "info": map[string]any{"source": accounts[0], "destination": accounts[1],
				"lamports": binary.LittleEndian.Uint64(data[4:])}}
		}
	case 0:
		if len(data) == 52 {
			return map[string]any{"type": "createAccount", "info": map[string]any{"source": accounts[0], "newAccount": accounts[1],
				"lamports": binary.LittleEndian.Uint64(data[4:]), "space": binary.LittleEndian.Uint64(data[12:]),
				"owner": solana.Key(data[20:52]).String()}}
		}
	}
	return nil
}
