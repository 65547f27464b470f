package send

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/sigil/sigil/api"
)

// CustomErrors decodes revert data with the contract interface an organization uploaded for the reverting address:
// the error's name and its arguments as JSON; ok is false when no interface declares it.
type CustomErrors func(ctx context.Context, orgID, address string, data []byte) (name, paramsJSON string, ok bool)

var (
	selectorError = []byte{0x08, 0xc3, 0x79, 0xa0} // Error(string)
	selectorPanic = []byte{0x4e, 0x48, 0x7b, 0x71} // Panic(uint256)
	stringArgs    = abi.Arguments{{Type: mustType("string")}}
	uintArgs      = abi.Arguments{{Type: mustType("uint256")}}
)

func mustType(t string) abi.Type {
	typ, err := abi.NewType(t, "", nil)
	if err != nil {
		panic(err)
	}
	return typ
}

// revertData is the revert data a node's answer to eth_call or eth_estimateGas carries; ok is false when the answer
// is no revert (another error, or none).
func revertData(err error) (data []byte, ok bool) {
	var rerr rpc.Error
	if !errors.As(err, &rerr) || !strings.Contains(rerr.Error(), "revert") {
		return nil, false
	}
	var derr rpc.DataError
	if errors.As(err, &derr) {
		if s, isString := derr.ErrorData().(string); isString {
			if b, err := hexutil.Decode(s); err == nil {
				return b, true
			}
		}
	}
	return nil, true
}

// decodeRevert describes the revert of a call to address: Error(string), Panic(uint256), a custom error an uploaded
// interface declares, or unknown data.
func decodeRevert(ctx context.Context, orgID string, address common.Address, data []byte, custom CustomErrors) api.RevertChainEntry {
	e := api.RevertChainEntry{Address: strings.ToLower(address.Hex())}
	switch {
	case len(data) == 0:
		e.ErrorType, e.DisplayMessage = "native", "execution reverted"
		e.Native = &api.NativeRevertError{NativeType: "execution_reverted"}
		return e
	case bytes.HasPrefix(data, selectorError):
		if v, err := stringArgs.Unpack(data[4:]); err == nil {
			msg := v[0].(string)
			e.ErrorType, e.DisplayMessage = "native", "execution reverted: "+msg
			e.Native = &api.NativeRevertError{NativeType: "error_string", Message: msg}
			return e
		}
	case bytes.HasPrefix(data, selectorPanic):
		if v, err := uintArgs.Unpack(data[4:]); err == nil {
			code := v[0].(*big.Int)
			e.ErrorType, e.DisplayMessage = "native", fmt.Sprintf("panic 0x%x: %s", code, panicReason(code))
			e.Native = &api.NativeRevertError{NativeType: "panic", PanicCode: code.String()}
			return e
		}
	}
	if custom != nil && len(data) >= 4 {
		if name, params, ok := custom(ctx, orgID, e.Address, data); ok {
			e.ErrorType, e.DisplayMessage = "custom", "reverted with "+name+params
			e.Custom = &api.CustomRevertError{ErrorName: name, ParamsJSON: params}
			return e
		}
	}
	e.ErrorType, e.DisplayMessage = "unknown", "reverted with data nothing here decodes"
	e.Unknown = &api.UnknownRevertError{Data: "0x" + hex.EncodeToString(data)}
	if len(data) >= 4 {
		e.Unknown.Selector = "0x" + hex.EncodeToString(data[:4])
	}
	return e
}

// panicReason is what Solidity's panic codes mean.
func panicReason(code *big.Int) string {
	if !code.IsUint64() {
		return "unknown panic code"
	}
	switch code.Uint64() {
	case 0x01:
		return "assertion failed"
	case 0x11:
		return "arithmetic overflow or underflow"
	case 0x12:
		return "division or modulo by zero"
	case 0x21:
		return "conversion to an invalid enum value"
	case 0x22:
		return "incorrectly encoded storage byte array"
	case 0x31:
		return "pop on an empty array"
	case 0x32:
		return "array index out of bounds"
	case 0x41:
		return "out of memory"
	case 0x51:
		return "call to an uninitialized function"
	}
	return "unknown panic code"
}

// revertFailure is a send's failure for a revert: the message, which is the innermost revert's (the cause), and the
// revert chain.
func revertFailure(when string, chain []api.RevertChainEntry) *api.TxError {
	cause := chain[len(chain)-1]
	return &api.TxError{Message: when + ": " + cause.DisplayMessage, RevertChain: chain, Eth: &api.EthFailureDetails{RevertChain: chain}}
}

// traceFrame is one call of a callTracer trace (debug_traceCall with {"tracer": "callTracer"}).
type traceFrame struct {
	To     common.Address `json:"to"`
	Output hexutil.Bytes  `json:"output"`
	Error  string         `json:"error"`
	Calls  []traceFrame   `json:"calls"`
}

// revertChain describes a revert from the outermost call to the innermost, as the reference orders it: msg run again
// at block (a number, or "latest") under the node's call tracer, following from each reverted call the last of its
// calls that reverted (the one that ended it: a contract bubbles its callee's revert, as the batch delegate and vaults
// do, or raises its own). A node without debug_traceCall, or a trace that does not revert there (the revert was on
// pending state), gives the one entry data describes, as raised at revertAt.
func (w *Worker) revertChain(ctx context.Context, cl *chainClient, orgID string, msg ethereum.CallMsg, block string, revertAt common.Address, data []byte) []api.RevertChainEntry {
	var root traceFrame
	err := cl.Client.Client().CallContext(ctx, &root, "debug_traceCall", traceArgs(msg), block, map[string]string{"tracer": "callTracer"})
	if err != nil || root.Error == "" {
		return []api.RevertChainEntry{decodeRevert(ctx, orgID, revertAt, data, w.cfg.CustomErrors)}
	}
	var chain []api.RevertChainEntry
	for f := &root; f != nil; f = lastReverted(f.Calls) {
		e := decodeRevert(ctx, orgID, f.To, f.Output, w.cfg.CustomErrors)
		if len(f.Output) == 0 && f.Error != "execution reverted" {
			e.DisplayMessage = f.Error // out of gas, an invalid opcode: not a revert with data
		}
		chain = append(chain, e)
	}
	return chain
}

func lastReverted(calls []traceFrame) *traceFrame {
	for i := len(calls) - 1; i >= 0; i-- {
		if calls[i].Error != "" {
			return &calls[i]
		}
	}
	return nil
}

// traceArgs is msg as debug_traceCall's call object.
func traceArgs(msg ethereum.CallMsg) map[string]any {
	args := map[string]any{"from": msg.From, "input": hexutil.Bytes(msg.Data)}
	if msg.To != nil {
		args["to"] = msg.To
	}
	if msg.Gas != 0 {
		args["gas"] = hexutil.Uint64(msg.Gas)
	}
	if msg.Value != nil {
		args["value"] = (*hexutil.Big)(msg.Value)
	}
	if len(msg.AuthorizationList) > 0 {
		args["authorizationList"] = msg.AuthorizationList
	}
	return args
}
