package yield

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"
)

// step is one transaction of an action, before gas and nonce are known.
type step struct {
	Type  string // APPROVAL, DEPOSIT, SUPPLY, STAKE, WITHDRAW, UNSTAKE, CLAIM_REWARDS
	Title string
	To    common.Address
	Data  []byte
	Value *big.Int // nil: no value
	// Dependent is set when the step needs an earlier step of the same action to be mined first (a deposit after its
	// approval), so it cannot be simulated on its own.
	Dependent bool
	// DefaultGas is the gas limit of a dependent step when the node cannot simulate sequences (no eth_simulateV1).
	DefaultGas uint64
}

func (s step) value() *big.Int {
	if s.Value == nil {
		return new(big.Int)
	}
	return s.Value
}

// Gas limit margins: an estimate is for the state it ran on; the vault's or pool's state may move a little before the
// transaction is mined. A sequence simulation reports gas used, which does not include refunds or the 63/64 reserve.
const (
	estimatePaddingPct = 20
	simulatePaddingPct = 40
)

// simulate runs every independent step with eth_call (a revert is refused, never handed out). When a step depends
// on an earlier one, the whole sequence also runs with eth_simulateV1, which gives every step's gas; otherwise
// eth_estimateGas does. Everything goes out in one batch. It returns the gas limit of each step.
func (c *chainClient) simulate(ctx context.Context, from common.Address, steps []step) ([]uint64, error) {
	anyDependent := slices.ContainsFunc(steps, func(s step) bool { return s.Dependent })
	sequence := anyDependent && !c.noSimulate.Load()
	b := c.newBatch()
	calls := make([]int, len(steps)) // index of each independent step's eth_call in the batch, -1 for dependent steps
	var estimates []uint64
	if !sequence {
		estimates = make([]uint64, len(steps))
	}
	for i, s := range steps {
		calls[i] = -1
		if s.Dependent {
			continue
		}
		msg := stepCall(from, s)
		calls[i] = len(b.elems)
		b.add(new(hexutil.Bytes), "eth_call", msg, "latest")
		if !sequence {
			b.add((*hexutil.Uint64)(&estimates[i]), "eth_estimateGas", msg, "latest")
		}
	}
	var sim []simBlockResult
	simAt := len(b.elems)
	if sequence {
		b.add(&sim, "eth_simulateV1", simulateRequest(from, steps), "latest")
	}
	if err := b.run(ctx); err != nil {
		return nil, err
	}
	for i, at := range calls {
		if at < 0 {
			continue
		}
		if err := b.elems[at].Error; err != nil {
			return nil, revertError(i, steps[i], describeRevert(err))
		}
		if !sequence {
			if err := b.elems[at+1].Error; err != nil {
				return nil, revertError(i, steps[i], describeRevert(err))
			}
		}
	}
	gas := make([]uint64, len(steps))
	if !sequence {
		for i, s := range steps {
			gas[i] = s.DefaultGas
			if !s.Dependent {
				gas[i] = pad(estimates[i], estimatePaddingPct)
			}
		}
		return gas, nil
	}
	if err := b.elems[simAt].Error; err != nil {
		if !isMethodMissing(err) {
			return nil, &upstreamError{network: c.network.ID, err: fmt.Errorf("eth_simulateV1: %w", err)}
		}
		// This node cannot simulate sequences: estimate the independent steps, use defaults for the others.
		c.noSimulate.Store(true)
		return c.simulate(ctx, from, steps)
	}
	if len(sim) != 1 || len(sim[0].Calls) != len(steps) {
		return nil, &upstreamError{network: c.network.ID, err: errors.New("eth_simulateV1 returned another number of calls than sent")}
	}
	for i, call := range sim[0].Calls {
		if call.Status != 1 {
			return nil, revertError(i, steps[i], call.revert())
		}
		gas[i] = pad(max(uint64(call.GasUsed), uint64(call.MaxUsedGas)), simulatePaddingPct)
	}
	return gas, nil
}

func pad(gas uint64, pct uint64) uint64 { return gas + gas*pct/100 }

// stepCall is the call object of a step sent from an address, with its value (zero when it has none).
func stepCall(from common.Address, s step) callMsg {
	return callMsg{From: &from, To: s.To, Data: s.Data, Value: s.value()}
}

func simulateRequest(from common.Address, steps []step) any {
	calls := make([]callMsg, len(steps))
	for i, s := range steps {
		calls[i] = stepCall(from, s)
	}
	return map[string]any{
		"blockStateCalls": []map[string]any{{"calls": calls}},
		"validation":      false,
	}
}

type simBlockResult struct {
	Calls []simCallResult `json:"calls"`
}

type simCallResult struct {
	GasUsed    hexutil.Uint64 `json:"gasUsed"`
	MaxUsedGas hexutil.Uint64 `json:"maxUsedGas"`
	Status     hexutil.Uint64 `json:"status"`
	Error      *struct {
		Message string `json:"message"`
		Data    string `json:"data"`
	} `json:"error"`
}

func (r simCallResult) revert() error {
	if r.Error == nil {
		return errors.New("reverted")
	}
	if data, err := hexutil.Decode(r.Error.Data); err == nil && len(data) >= 4 {
		if name := decodeCustomError(data); name != "" {
			return fmt.Errorf("reverted: %s", name)
		}
	}
	return errors.New(r.Error.Message)
}

func revertError(i int, s step, err error) error {
	return badRequest("transaction %d (%s) would fail on chain, so it was not built: %v", i, s.Type, err)
}

// isMethodMissing reports a node without the method (JSON-RPC -32601, or a gateway's wording of it).
func isMethodMissing(err error) bool {
	var re rpc.Error
	if errors.As(err, &re) && re.ErrorCode() == -32601 {
		return true
	}
	msg := strings.ToLower(err.Error())
	return strings.Contains(msg, "method not found") || strings.Contains(msg, "does not exist") ||
		strings.Contains(msg, "not supported") || strings.Contains(msg, "not available")
}
