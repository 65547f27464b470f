package mcp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/evmaddr"
)

// Signing and sending: every one a coordinator activity, decided by the organization's policies.

type signIn struct {
	SignWith            string `json:"signWith,omitempty" jsonschema:"the account that signs (default: the transaction's from)"`
	UnsignedTransaction string `json:"unsignedTransaction" jsonschema:"an action's unsignedTransaction (its JSON string, unchanged) or an unsigned EVM transaction in hex"`
}

type callIn struct {
	To    string `json:"to" jsonschema:"the destination"`
	Value string `json:"value,omitempty" jsonschema:"wei, a decimal string (default 0)"`
	Data  string `json:"data,omitempty" jsonschema:"calldata, 0x hex"`
}

type sendIn struct {
	From                string   `json:"from,omitempty" jsonschema:"the account that signs and pays (default: the transaction's from)"`
	UnsignedTransaction string   `json:"unsignedTransaction,omitempty" jsonschema:"an action's unsignedTransaction (its JSON string) or an unsigned EVM transaction in hex; for Solana (caip2 solana:…) the unsigned transaction in hex"`
	Calls               []callIn `json:"calls,omitempty" jsonschema:"instead of unsignedTransaction, EVM calls to send as one transaction (with caip2)"`
	Caip2               string   `json:"caip2,omitempty" jsonschema:"the network, eip155:<chain id> or solana:<genesis hash> (default: the transaction's chain id)"`
	Sponsor             bool     `json:"sponsor,omitempty" jsonschema:"have the organization's gas sponsor pay the fee, where one is configured"`
	TransactionID       string   `json:"transactionId,omitempty" jsonschema:"the yield service's transaction (transactions[].id): its hash is submitted once broadcast, as submit_hash does"`
	Wait                *bool    `json:"wait,omitempty" jsonschema:"wait until the transaction is included or fails (default true)"`
	TimeoutSeconds      *int     `json:"timeoutSeconds,omitempty" jsonschema:"how long to wait, 1 to 300 (default 90)"`
}

type sendRawIn struct {
	SignedTransaction string `json:"signedTransaction" jsonschema:"a signed EVM transaction, 0x hex (sign_transaction's signedTransaction)"`
	Caip2             string `json:"caip2,omitempty" jsonschema:"the network, eip155:<chain id> (default: the transaction's chain id)"`
	TransactionID     string `json:"transactionId,omitempty" jsonschema:"the yield service's transaction: its hash is submitted once broadcast"`
	Wait              *bool  `json:"wait,omitempty" jsonschema:"wait until the transaction is included or fails (default true)"`
	TimeoutSeconds    *int   `json:"timeoutSeconds,omitempty" jsonschema:"how long to wait, 1 to 300 (default 90)"`
}

type sendStatusIn struct {
	SendTransactionStatusID string `json:"sendTransactionStatusId" jsonschema:"the send's id (send_transaction's), or a raw send's transaction hash"`
	WaitSeconds             *int   `json:"waitSeconds,omitempty" jsonschema:"wait up to this many seconds for it to be included or fail, 0 to 300 (default 0: read once)"`
}

func (s *Server) addSendTools() {
	addTool(s, toolSpec{name: "sign_transaction", title: "Sign a transaction", destructive: true,
		description: "Have the coordinator sign an unsigned EVM transaction with one of the organization's accounts " +
			"(SIGN_TRANSACTION_V2), if its policies allow it. The result restates what the transaction does and holds the " +
			"signed transaction, which is not broadcast: send it with send_raw_transaction. One that needs approval returns " +
			"its activity, who can approve it and the dashboard link; one that is denied says why, by policy.",
		example: map[string]any{"signWith": exampleWallet, "unsignedTransaction": `{"from":"0x…","to":"0x…","data":"0x6e553f65…","value":"0x0","gasLimit":"0x2dc6c","nonce":1,"chainId":1337,"maxFeePerGas":"0x…","maxPriorityFeePerGas":"0x…","type":2}`}},
		s.sign)
	addTool(s, toolSpec{name: "send_transaction", title: "Send a transaction", destructive: true,
		description: "Have the coordinator sign, broadcast and watch a transaction (ETH_SEND_TRANSACTION_V2, or " +
			"SOL_SEND_TRANSACTION_V2 for caip2 solana:…), if its policies allow it, and wait until it is included: the result " +
			"restates what it does and gives its status and hash. With transactionId, the hash is submitted to the yield service.",
		example: map[string]any{"unsignedTransaction": `{"from":"0x…","to":"0x…","data":"0x095ea7b3…","value":"0x0","chainId":1337,"nonce":0,"gasLimit":"0x…","maxFeePerGas":"0x…","maxPriorityFeePerGas":"0x…","type":2}`,
			"transactionId": "7a1d…"}},
		s.send)
	addTool(s, toolSpec{name: "send_raw_transaction", title: "Broadcast a signed transaction", destructive: true,
		description: "Have the coordinator broadcast and watch a transaction signed by sign_transaction " +
			"(ETH_SEND_RAW_TRANSACTION), and wait until it is included.",
		example: map[string]any{"signedTransaction": "0x02f8…", "transactionId": "7a1d…"}},
		s.sendRaw)
	addTool(s, toolSpec{name: "get_send_transaction_status", title: "A send's status", readOnly: true,
		description: "A send's status: INITIALIZED, BROADCASTING, INCLUDED or FAILED (with the reason), and its hash; " +
			"optionally waiting for it to be included.",
		example: map[string]any{"sendTransactionStatusId": "3c2b…", "waitSeconds": 60}},
		s.sendStatus)
}

func (s *Server) sign(ctx context.Context, in *signIn) (*mcp.CallToolResult, any, error) {
	tx, err := parseUnsignedTx("unsignedTransaction", in.UnsignedTransaction)
	if err != nil {
		return failure(err.Error())
	}
	from, err := signer("signWith", in.SignWith, tx)
	if err != nil {
		return failure(err.Error())
	}
	effects := s.describeTxs(ctx, []*evmTx{tx}, nil)
	res, a, err := s.coord.SignTransaction(ctx, s.cfg.OrganizationID, api.SignTransactionIntentV2{SignWith: from,
		UnsignedTransaction: tx.Unsigned, Type: api.TransactionTypeEthereum})
	if err != nil {
		return s.refusal(ctx, "The signature", err, effects)
	}
	signed := "0x" + strings.TrimPrefix(res.SignedTransaction, "0x")
	return reply{Summary: fmt.Sprintf("Signed by %s (activity %s). %s\nIt is not broadcast yet: send it with send_raw_transaction.",
		from, a.ID, restate(effects[0])),
		Sigil: map[string]any{"signedTransaction": signed, "activityId": a.ID, "effect": effects[0]}}.result()
}

// waitFor is how long a send tool waits for inclusion.
func waitFor(wait *bool, timeout *int) (time.Duration, error) {
	if wait != nil && !*wait {
		return 0, nil
	}
	secs := 90
	if timeout != nil {
		if *timeout < 1 || *timeout > 300 {
			return 0, argError("timeoutSeconds", "must be from 1 to 300, got %d", *timeout)
		}
		secs = *timeout
	}
	return time.Duration(secs) * time.Second, nil
}

func (s *Server) send(ctx context.Context, in *sendIn) (*mcp.CallToolResult, any, error) {
	wait, err := waitFor(in.Wait, in.TimeoutSeconds)
	if err != nil {
		return failure(err.Error())
	}
	if strings.HasPrefix(in.Caip2, "solana:") {
		return s.sendSolana(ctx, in, wait)
	}
	var intent api.EthSendTransactionIntentV2
	var txs []*evmTx
	switch {
	case in.UnsignedTransaction != "" && len(in.Calls) > 0:
		return failure(argError("calls", "give unsignedTransaction or calls, not both").Error())
	case in.UnsignedTransaction != "":
		tx, err := parseUnsignedTx("unsignedTransaction", in.UnsignedTransaction)
		if err != nil {
			return failure(err.Error())
		}
		from, err := signer("from", in.From, tx)
		if err != nil {
			return failure(err.Error())
		}
		intent = sendIntent(from, tx)
		if in.Caip2 != "" && in.Caip2 != intent.Caip2 {
			return failure(argError("caip2", "%s is not the transaction's chain, %s", quoted(in.Caip2), intent.Caip2).Error())
		}
		txs = []*evmTx{tx}
	case len(in.Calls) > 0:
		if in.Caip2 == "" {
			return failure(argError("caip2", "is required with calls (eip155:<chain id>)").Error())
		}
		var chainID int64
		if _, err := fmt.Sscanf(in.Caip2, "eip155:%d", &chainID); err != nil || chainID <= 0 {
			return failure(argError("caip2", "%s is not eip155:<chain id> or solana:<genesis hash>", quoted(in.Caip2)).Error())
		}
		if _, err := evmaddr.Parse(in.From); err != nil {
			return failure(argError("from", "%v", err).Error())
		}
		intent = api.EthSendTransactionIntentV2{From: in.From, Caip2: in.Caip2}
		for i, c := range in.Calls {
			tx, err := callTx(fmt.Sprintf("calls[%d]", i), c, chainID, in.From)
			if err != nil {
				return failure(err.Error())
			}
			intent.Calls = append(intent.Calls, api.EthCallParams{To: c.To, Value: tx.Value.String(), Data: hexutil.Encode(tx.Data)})
			txs = append(txs, tx)
		}
	default:
		return failure(argError("unsignedTransaction", "give the transaction to send (or calls)").Error())
	}
	if in.Sponsor {
		intent.Sponsor = &in.Sponsor
	}
	effects := s.describeTxs(ctx, txs, nil)
	res, a, err := s.coord.EthSendTransaction(ctx, s.cfg.OrganizationID, intent)
	if err != nil {
		return s.refusal(ctx, "The send", err, effects)
	}
	return s.followSend(ctx, res.SendTransactionStatusID, a.ID, in.TransactionID, wait, effects)
}

// callTx reads one call of send_transaction.
func callTx(arg string, c callIn, chainID int64, from string) (*evmTx, error) {
	to, err := evmaddr.Parse(c.To)
	if err != nil {
		return nil, argError(arg+".to", "%v", err)
	}
	value := new(big.Int)
	if c.Value != "" {
		if _, ok := value.SetString(c.Value, 10); !ok || value.Sign() < 0 {
			return nil, argError(arg+".value", "%s is not a whole number of wei", quoted(c.Value))
		}
	}
	data, err := hexutil.Decode(cmp.Or(c.Data, "0x"))
	if err != nil {
		return nil, argError(arg+".data", "is not 0x hex")
	}
	return &evmTx{From: from, To: &to, Data: data, Value: value, ChainID: chainID}, nil
}

func (s *Server) sendSolana(ctx context.Context, in *sendIn, wait time.Duration) (*mcp.CallToolResult, any, error) {
	if in.UnsignedTransaction == "" || in.From == "" || len(in.Calls) > 0 {
		return failure(argError("unsignedTransaction", "a Solana send takes unsignedTransaction (hex) and from (the signing account), no calls").Error())
	}
	p := api.SolSendTransactionIntentV2{UnsignedTransaction: strings.TrimPrefix(in.UnsignedTransaction, "0x"), SignWiths: []string{in.From}, Caip2: in.Caip2}
	if in.Sponsor {
		p.Sponsor = &in.Sponsor
	}
	res, a, err := s.coord.SolSendTransaction(ctx, s.cfg.OrganizationID, p)
	if err != nil {
		return s.refusal(ctx, "The Solana send", err, nil)
	}
	return s.followSend(ctx, res.SendTransactionStatusID, a.ID, in.TransactionID, wait, nil)
}

func (s *Server) sendRaw(ctx context.Context, in *sendRawIn) (*mcp.CallToolResult, any, error) {
	wait, err := waitFor(in.Wait, in.TimeoutSeconds)
	if err != nil {
		return failure(err.Error())
	}
	raw, err := hexutil.Decode(in.SignedTransaction)
	if err != nil {
		return failure(argError("signedTransaction", "is not 0x hex").Error())
	}
	var tx types.Transaction
	if err := tx.UnmarshalBinary(raw); err != nil {
		return failure(argError("signedTransaction", "is not a signed EVM transaction: %v", err).Error())
	}
	caip2 := in.Caip2
	if id := tx.ChainId(); caip2 == "" && id != nil && id.Sign() > 0 {
		caip2 = "eip155:" + id.String()
	}
	if caip2 == "" {
		return failure(argError("caip2", "is required: the transaction names no chain").Error())
	}
	view := &evmTx{To: tx.To(), Data: tx.Data(), Value: tx.Value()}
	if id := tx.ChainId(); id != nil && id.IsInt64() {
		view.ChainID = id.Int64()
	}
	if sender, err := types.LatestSignerForChainID(tx.ChainId()).Sender(&tx); err == nil {
		view.From = sender.Hex()
	}
	effects := s.describeTxs(ctx, []*evmTx{view}, nil)
	res, a, err := s.coord.EthSendRawTransaction(ctx, s.cfg.OrganizationID, api.EthSendRawTransactionIntent{
		SignedTransaction: in.SignedTransaction, Caip2: caip2})
	if err != nil {
		return s.refusal(ctx, "The broadcast", err, effects)
	}
	return s.followSend(ctx, res.TransactionHash, a.ID, in.TransactionID, wait, effects)
}

// sendReport is what a send came to.
type sendReport struct {
	SendTransactionStatusID string   `json:"sendTransactionStatusId"`
	ActivityID              string   `json:"activityId"`
	Status                  string   `json:"status"`
	Hash                    string   `json:"hash,omitempty"`
	Error                   string   `json:"error,omitempty"`
	HashSubmitted           string   `json:"hashSubmittedTo,omitempty"`
	Effects                 []effect `json:"effects,omitempty"`
}

// followSend waits for a send (up to wait) and submits its hash to the yield service when asked to.
func (s *Server) followSend(ctx context.Context, id, activityID, yieldTx string, wait time.Duration, effects []effect) (*mcp.CallToolResult, any, error) {
	var st *api.GetSendTransactionStatusResponse
	var err error
	if wait > 0 {
		st, err = s.coord.WaitForSendTransaction(ctx, s.cfg.OrganizationID, id, wait)
	} else {
		st, err = s.coord.GetSendTransactionStatus(ctx, s.cfg.OrganizationID, id)
	}
	var failed *client.SendFailedError
	if err != nil && !errors.As(err, &failed) && st == nil {
		if activityID == "" {
			return s.refusal(ctx, "Reading the status of send "+id, err, nil)
		}
		return failure(fmt.Sprintf("The send %s (activity %s) was accepted, but its status could not be read: %v. Read it with get_send_transaction_status.", id, activityID, err))
	}
	rep := sendReport{SendTransactionStatusID: id, ActivityID: activityID, Status: st.TxStatus, Hash: sendHash(st), Error: st.TxError, Effects: effects}
	lines := []string{fmt.Sprintf("Send %s is %s.", id, st.TxStatus)}
	if activityID != "" {
		lines[0] = fmt.Sprintf("Send %s (activity %s) is %s.", id, activityID, st.TxStatus)
	}
	if rep.Hash != "" {
		lines[0] += " Its transaction hash is " + rep.Hash + "."
	}
	if st.TxStatus == api.TxStatusFailed {
		lines = append(lines, "It failed; the reason follows as untrusted content.")
	} else if st.TxStatus != api.TxStatusIncluded {
		lines = append(lines, "It is not included yet: wait with get_send_transaction_status before sending the next transaction.")
	}
	if yieldTx != "" && rep.Hash != "" {
		if _, err := s.yield.do(ctx, http.MethodPut, "/v1/transactions/"+url.PathEscape(yieldTx)+"/submit-hash", nil, map[string]string{"hash": rep.Hash}); err != nil {
			lines = append(lines, fmt.Sprintf("Submitting the hash to the yield service's transaction %s failed (%v): call submit_hash.", yieldTx, err))
		} else {
			rep.HashSubmitted = yieldTx
			lines = append(lines, "Its hash was submitted to the yield service's transaction "+yieldTx+"; get_transaction follows it there.")
		}
	}
	r := reply{Summary: strings.Join(lines, "\n") + restateAll(effects), Sigil: rep, IsError: st.TxStatus == api.TxStatusFailed}
	if st.Error != nil || st.TxError != "" {
		r.Untrusted = []outside{{fromChain, map[string]any{"txError": st.TxError, "error": st.Error}}}
	}
	return r.result()
}

func sendHash(st *api.GetSendTransactionStatusResponse) string {
	switch {
	case st.Eth != nil:
		return st.Eth.TxHash
	case st.Solana != nil:
		return st.Solana.Signature
	}
	return ""
}

func (s *Server) sendStatus(ctx context.Context, in *sendStatusIn) (*mcp.CallToolResult, any, error) {
	wait := time.Duration(0)
	if in.WaitSeconds != nil {
		if *in.WaitSeconds < 0 || *in.WaitSeconds > 300 {
			return failure(argError("waitSeconds", "must be from 0 to 300, got %d", *in.WaitSeconds).Error())
		}
		wait = time.Duration(*in.WaitSeconds) * time.Second
	}
	return s.followSend(ctx, in.SendTransactionStatusID, "", "", wait, nil)
}
