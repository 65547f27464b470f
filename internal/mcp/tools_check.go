package mcp

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/internal/abis"
	"github.com/sigil/sigil/internal/evm"
	"github.com/sigil/sigil/internal/evmaddr"
)

// The checks before acting: what the policy engine would decide, and what the chain would do.

type evaluateIn struct {
	SignWith            string `json:"signWith,omitempty" jsonschema:"the account that would sign (or send) the transaction"`
	UnsignedTransaction string `json:"unsignedTransaction,omitempty" jsonschema:"an action's unsignedTransaction (its JSON string) or an unsigned EVM transaction in hex"`
	Kind                string `json:"kind,omitempty" jsonschema:"sign (SIGN_TRANSACTION_V2, the default) or send (ETH_SEND_TRANSACTION_V2): which activity to evaluate the transaction as"`
	// Any activity, as it would be submitted.
	Type       string         `json:"type,omitempty" jsonschema:"instead of a transaction: any activity type, with or without ACTIVITY_TYPE_ (CREATE_WALLET_ACCOUNTS)"`
	Parameters map[string]any `json:"parameters,omitempty" jsonschema:"that activity's parameters, as it would be submitted"`
}

type simulateIn struct {
	UnsignedTransaction string `json:"unsignedTransaction,omitempty" jsonschema:"an action's unsignedTransaction (its JSON string) or an unsigned EVM transaction in hex"`
	From                string `json:"from,omitempty" jsonschema:"the sender (default: the transaction's from)"`
	ActionID            string `json:"actionId,omitempty" jsonschema:"instead of one transaction: simulate all of an action's transactions, in order, as one sequence"`
}

func (s *Server) addCheckTools() {
	addTool(s, toolSpec{name: "evaluate_activity", title: "Would this be allowed?", readOnly: true,
		description: "Ask the coordinator's policy engine what it would decide about an activity now, without executing or " +
			"recording anything: ALLOW, DENY or CONSENSUS_NEEDED, and what each policy (by name) decided. Give a transaction " +
			"(signWith and unsignedTransaction: evaluated as its signing, or with kind send as its sending) or any activity " +
			"(type and parameters).",
		example: map[string]any{"signWith": exampleWallet, "unsignedTransaction": `{"from":"0x…","to":"0x…","data":"0x095ea7b3…","value":"0x0","gasLimit":"0x1d4c0","nonce":0,"chainId":1337,"maxFeePerGas":"0x…","maxPriorityFeePerGas":"0x…","type":2}`}},
		s.evaluate)
	addTool(s, toolSpec{name: "simulate_transaction", title: "Simulate on the chain", readOnly: true,
		description: "Run a transaction on its network's node without sending it (eth_call and eth_estimateGas), or an action's " +
			"transactions in order as one sequence (eth_simulateV1, so that a deposit runs after its approval): whether each " +
			"would succeed, its gas, and a revert's decoded reason.",
		example: map[string]any{"actionId": "0f5c6d1e-2b9a-4c1e-9f2d-3a4b5c6d7e8f"}},
		s.simulate)
}

// txActivity is the activity a transaction is signed (SIGN_TRANSACTION_V2) or sent (ETH_SEND_TRANSACTION_V2) as.
func txActivity(kind, signWith string, tx *evmTx) (api.ActivitySpec, any, error) {
	switch kind {
	case "", "sign":
		return api.SignTransactionV2.ActivitySpec, api.SignTransactionIntentV2{SignWith: signWith, UnsignedTransaction: tx.Unsigned,
			Type: api.TransactionTypeEthereum}, nil
	case "send":
		return api.EthSendTransactionV2.ActivitySpec, sendIntent(signWith, tx), nil
	}
	return api.ActivitySpec{}, nil, argError("kind", "%s is not sign or send", quoted(kind))
}

// sendIntent is the call of a transaction handed to the coordinator to send: its destination, value and calldata
// (the coordinator numbers and prices it itself).
func sendIntent(from string, tx *evmTx) api.EthSendTransactionIntentV2 {
	call := api.EthCallParams{Value: tx.Value.String(), Data: hexutil.Encode(tx.Data)}
	if tx.To != nil {
		call.To = tx.To.Hex()
	}
	return api.EthSendTransactionIntentV2{From: from, Caip2: fmt.Sprintf("eip155:%d", tx.ChainID), Calls: []api.EthCallParams{call}}
}

// signer is the account a tool acts with: given, or the transaction's from.
func signer(arg, given string, tx *evmTx) (string, error) {
	v := cmp.Or(given, tx.From)
	if v == "" {
		return "", argError(arg, "is required (the transaction names no from)")
	}
	if given != "" && tx.From != "" && !strings.EqualFold(given, tx.From) {
		return "", argError(arg, "%s is not the transaction's from %s", given, tx.From)
	}
	if _, err := evmaddr.Parse(v); err != nil {
		return "", argError(arg, "%v", err)
	}
	return v, nil
}

type evaluation struct {
	Decision         string               `json:"decision"`
	Message          string               `json:"message,omitempty"`
	Policies         []policyOutcome      `json:"policies"`
	VelocityControls []api.ControlMeasure `json:"velocityControls,omitempty"`
	Activity         string               `json:"activityType"`
	Effects          []effect             `json:"effects,omitempty"`
}

func (s *Server) evaluate(ctx context.Context, in *evaluateIn) (*mcp.CallToolResult, any, error) {
	var (
		typ     string
		params  any
		effects []effect
	)
	switch {
	case in.UnsignedTransaction != "" && in.Type != "":
		return failure(argError("type", "give a transaction (unsignedTransaction) or an activity (type and parameters), not both").Error())
	case in.UnsignedTransaction != "":
		tx, err := parseUnsignedTx("unsignedTransaction", in.UnsignedTransaction)
		if err != nil {
			return failure(err.Error())
		}
		from, err := signer("signWith", in.SignWith, tx)
		if err != nil {
			return failure(err.Error())
		}
		spec, p, err := txActivity(in.Kind, from, tx)
		if err != nil {
			return failure(err.Error())
		}
		typ, params = spec.Type, p
		effects = s.describeTxs(ctx, []*evmTx{tx}, nil)
	case in.Type != "":
		typ = strings.ToUpper(in.Type)
		if !strings.HasPrefix(typ, "ACTIVITY_TYPE_") {
			typ = "ACTIVITY_TYPE_" + typ
		}
		params = in.Parameters
		if params == nil {
			params = map[string]any{}
		}
	default:
		return failure(argError("unsignedTransaction", "give a transaction (signWith and unsignedTransaction) or an activity (type and parameters)").Error())
	}
	res, err := s.coord.EvaluateActivity(ctx, s.cfg.OrganizationID, typ, params)
	if err != nil {
		return s.refusal(ctx, "The evaluation", err, effects)
	}
	ev := evaluation{Decision: res.Decision, Message: res.Message, Policies: s.namePolicies(ctx, res.PolicyEvaluations),
		VelocityControls: res.VelocityControls, Activity: typ, Effects: effects}
	var decided []string
	for _, p := range ev.Policies {
		decided = append(decided, fmt.Sprintf("%q %s", cmp.Or(p.PolicyName, p.PolicyID), strings.ToLower(strings.TrimPrefix(p.Outcome, "OUTCOME_"))))
	}
	summary := fmt.Sprintf("If submitted now, %s would be %s", typ, map[string]string{"ALLOW": "allowed", "DENY": "denied",
		"CONSENSUS_NEEDED": "held for more approvals"}[res.Decision])
	if len(decided) > 0 {
		summary += " — " + strings.Join(decided, ", ")
	}
	if res.Message != "" {
		summary += ". The policy engine says: " + res.Message
	}
	return reply{Summary: summary + "." + restateAll(effects), Sigil: ev}.result()
}

// simulated is one step of a simulation, as the node answered.
type simulated struct {
	Step    int    `json:"step"`
	Success bool   `json:"success"`
	Gas     string `json:"gas,omitempty"` // used (eth_simulateV1) or estimated (eth_estimateGas), decimal
	Revert  string `json:"revert,omitempty"`
	Error   string `json:"error,omitempty"`
}

func (s *Server) simulate(ctx context.Context, in *simulateIn) (*mcp.CallToolResult, any, error) {
	var txs []*evmTx
	var hints *yield
	switch {
	case in.ActionID != "" && in.UnsignedTransaction != "":
		return failure(argError("actionId", "give an action or one transaction, not both").Error())
	case in.ActionID != "":
		a, _, err := s.yield.action(context.WithoutCancel(ctx), in.ActionID)
		if err != nil {
			return yieldFailure(err)
		}
		for i, t := range a.Transactions {
			tx, err := parseUnsignedTx(fmt.Sprintf("transactions[%d].unsignedTransaction", i), t.UnsignedTransaction)
			if err != nil {
				return failure("The action holds a transaction Sigil cannot read: " + err.Error())
			}
			txs = append(txs, tx)
		}
		hints, _, _ = s.yield.yieldByID(ctx, a.YieldID)
	case in.UnsignedTransaction != "":
		tx, err := parseUnsignedTx("unsignedTransaction", in.UnsignedTransaction)
		if err != nil {
			return failure(err.Error())
		}
		txs = []*evmTx{tx}
	default:
		return failure(argError("unsignedTransaction", "give a transaction, or an actionId").Error())
	}
	if len(txs) == 0 {
		return failure("The action has no transactions to simulate.")
	}
	chainID := txs[0].ChainID
	for i, tx := range txs {
		if tx.ChainID != chainID {
			return failure(fmt.Sprintf("transactions[%d] is on chain %d, the first on chain %d: a sequence runs on one chain", i, tx.ChainID, chainID))
		}
		from, err := signer("from", in.From, tx)
		if err != nil {
			return failure(err.Error())
		}
		tx.From = from
	}
	if !s.chains.has(chainID) {
		return failure(fmt.Sprintf("No node of chain %d is configured, so nothing can be simulated there (sigil mcp --rpc eip155:%d=URL).", chainID, chainID))
	}
	steps, method, err := s.runSimulation(ctx, chainID, txs)
	if err != nil {
		return failure("The simulation did not run: " + err.Error())
	}
	effects := s.describeTxs(ctx, txs, hints)
	var lines []string
	ok := true
	for i, st := range steps {
		word := "would succeed"
		if !st.Success {
			word, ok = "would fail", false
		}
		lines = append(lines, fmt.Sprintf("%d. %s: %s", i+1, word, restate(effects[i])))
	}
	summary := fmt.Sprintf("Simulated %s on chain %d with %s; the node's answers (gas, revert reasons) follow as untrusted content.\n%s",
		plural(len(txs), "transaction", "transactions"), chainID, method, strings.Join(lines, "\n"))
	if !ok {
		summary += "\nDo not send a transaction that would fail: build the action again or stop."
	}
	return reply{Summary: summary, Sigil: map[string]any{"allSucceed": ok, "method": method, "effects": effects},
		Untrusted: []outside{{fromChain, steps}}}.result()
}

// callObject is a transaction as eth_call, eth_estimateGas and eth_simulateV1 take it (calldata as input and data).
func callObject(tx *evmTx) map[string]any {
	o := map[string]any{"from": tx.From, "value": hexutil.EncodeBig(tx.Value), "input": hexutil.Encode(tx.Data), "data": hexutil.Encode(tx.Data)}
	if tx.To != nil {
		o["to"] = tx.To.Hex()
	}
	return o
}

// runSimulation runs one transaction with eth_call and eth_estimateGas, or several in sequence with eth_simulateV1
// (each independently with eth_call on a node without it).
func (s *Server) runSimulation(ctx context.Context, chainID int64, txs []*evmTx) ([]simulated, string, error) {
	if len(txs) > 1 {
		steps, err := s.simulateSequence(ctx, chainID, txs)
		var re *rpcError
		if !errors.As(err, &re) || re.Code != codeMethodNotFound {
			return steps, "eth_simulateV1 (the steps in order, each seeing the one before)", err
		}
	}
	var calls []*rpcCall
	for _, tx := range txs {
		calls = append(calls, &rpcCall{Method: "eth_call", Params: []any{callObject(tx), "latest"}},
			&rpcCall{Method: "eth_estimateGas", Params: []any{callObject(tx), "latest"}})
	}
	if err := s.chains.batch(ctx, chainID, calls); err != nil {
		return nil, "", err
	}
	steps := make([]simulated, len(txs))
	for i := range txs {
		c, g := calls[2*i], calls[2*i+1]
		st := simulated{Step: i, Success: c.Err == nil}
		if c.Err != nil {
			st.Error, st.Revert = c.Err.Message, revertReason(c.Err.Data)
		} else if gas, ok := hexBig(g); ok {
			st.Gas = gas.String()
		}
		steps[i] = st
	}
	method := "eth_call and eth_estimateGas"
	if len(txs) > 1 {
		method += " on each step alone (the node has no eth_simulateV1: a step that needs the one before may fail here and succeed when sent in order)"
	}
	return steps, method, nil
}

func (s *Server) simulateSequence(ctx context.Context, chainID int64, txs []*evmTx) ([]simulated, error) {
	var calls []map[string]any
	for _, tx := range txs {
		calls = append(calls, callObject(tx))
	}
	var blocks []struct {
		Calls []struct {
			Status  string `json:"status"`
			GasUsed string `json:"gasUsed"`
			Error   *struct {
				Message string `json:"message"`
				Data    string `json:"data"`
			} `json:"error"`
			ReturnData string `json:"returnData"`
		} `json:"calls"`
	}
	err := s.chains.call(ctx, chainID, "eth_simulateV1", &blocks,
		map[string]any{"blockStateCalls": []any{map[string]any{"calls": calls}}, "validation": false}, "latest")
	if err != nil {
		return nil, err
	}
	if len(blocks) != 1 || len(blocks[0].Calls) != len(txs) {
		return nil, errors.New("eth_simulateV1 answered another number of calls than it was sent")
	}
	out := make([]simulated, len(txs))
	for i, c := range blocks[0].Calls {
		st := simulated{Step: i, Success: c.Status == "0x1"}
		if g, err := hexutil.DecodeBig(c.GasUsed); err == nil {
			st.Gas = g.String()
		}
		if c.Error != nil {
			st.Error = c.Error.Message
			data, _ := json.Marshal(c.Error.Data)
			st.Revert = revertReason(data)
		} else if !st.Success {
			data, _ := json.Marshal(c.ReturnData)
			st.Revert = revertReason(data)
		}
		out[i] = st
	}
	return out, nil
}

var (
	errorSelector = []byte{0x08, 0xc3, 0x79, 0xa0} // Error(string)
	panicSelector = []byte{0x4e, 0x48, 0x7b, 0x71} // Panic(uint256)
)

// revertReason decodes revert data: Error(string), Panic(uint256), or a custom error of the ABIs Sigil knows.
func revertReason(raw json.RawMessage) string {
	var h string
	if json.Unmarshal(raw, &h) != nil {
		return ""
	}
	data, err := hexutil.Decode(h)
	if err != nil || len(data) < 4 {
		return ""
	}
	switch {
	case bytes.Equal(data[:4], errorSelector):
		if vals, err := (abi.Arguments{{Type: mustType("string")}}).Unpack(data[4:]); err == nil {
			return fmt.Sprint(vals[0])
		}
	case bytes.Equal(data[:4], panicSelector):
		if vals, err := (abi.Arguments{{Type: mustType("uint256")}}).Unpack(data[4:]); err == nil {
			return fmt.Sprintf("panic 0x%x", vals[0].(*big.Int))
		}
	}
	for _, a := range []abi.ABI{abis.ERC20, abis.ERC4626, abis.AaveV3Pool, abis.AllocatorVault, abis.FeeWrapper, abis.NativeStaking, abis.ProviderStaking} {
		if c, err := evm.DecodeError(&a, data); err == nil {
			args, _ := json.Marshal(c.Args)
			return c.FunctionName + string(args)
		}
	}
	return "custom error 0x" + common.Bytes2Hex(data[:4])
}

func mustType(t string) abi.Type {
	typ, err := abi.NewType(t, "", nil)
	if err != nil {
		panic(err)
	}
	return typ
}
