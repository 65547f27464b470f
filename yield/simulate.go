package yield

import (
	"context"
	"errors"
	"fmt"
	"math/big"
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

// simulate runs every independent step with eth_call (a revert is refused, never handed out) and eth_estimateGas, and
// the whole sequence with eth_simulateV1 when a step depends on an earlier one, all in one batch. It returns the gas
// limit of each step.
func (c *chainClient) simulate(ctx context.Context, from common.Address, steps []step) ([]uint64, error) {
	b := c.newBatch()
	type independent struct {
		ret      hexutil.Bytes
		estimate hexutil.Uint64
		at       int // index of its eth_call in the batch
	}
	checks := make([]*independent, len(steps))
	anyDependent := false
	for i, s := range steps {
		if s.Dependent {
			anyDependent = true
			continue
		}
		msg := callMsg{From: &from, To: s.To, Data: s.Data, Value: (*hexutil.Big)(s.value())}
		chk := &independent{at: len(b.elems)}
		b.add(&chk.ret, "eth_call", msg, "latest")
		b.add(&chk.estimate, "eth_estimateGas", msg, "latest")
		checks[i] = chk
	}
	var sim []simBlockResult
	simAt := -1
	if anyDependent && !c.noSimulate.Load() {
		simAt = len(b.elems)
		b.add(&sim, "eth_simulateV1", simulateRequest(from, steps), "latest")
	}
	b.c.calls.Add(int64(len(b.elems)))
	b.c.roundTrips.Add(1)
	if err := c.rpc.BatchCallContext(ctx, b.elems); err != nil {
		return nil, &upstreamError{network: c.network.ID, err: err}
	}

	gas := make([]uint64, len(steps))
	for i, chk := range checks {
		if chk == nil {
			continue
		}
		if err := b.elems[chk.at].Error; err != nil {
			return nil, revertError(i, steps[i], describeRevert(err))
		}
		if err := b.elems[chk.at+1].Error; err != nil {
			return nil, revertError(i, steps[i], describeRevert(err))
		}
		gas[i] = pad(uint64(chk.estimate), estimatePaddingPct)
	}
	if !anyDependent {
		return gas, nil
	}
	if simAt >= 0 {
		err := b.elems[simAt].Error
		if err != nil && isMethodMissing(err) {
			c.noSimulate.Store(true)
		} else if err != nil {
			return nil, &upstreamError{network: c.network.ID, err: fmt.Errorf("eth_simulateV1: %w", err)}
		} else if len(sim) != 1 || len(sim[0].Calls) != len(steps) {
			return nil, &upstreamError{network: c.network.ID, err: errors.New("eth_simulateV1 returned another number of calls than sent")}
		} else {
			for i, call := range sim[0].Calls {
				if call.Status != 1 {
					return nil, revertError(i, steps[i], call.revert())
				}
				if steps[i].Dependent {
					gas[i] = pad(max(uint64(call.GasUsed), uint64(call.MaxUsedGas)), simulatePaddingPct)
				}
			}
			return gas, nil
		}
	}
	for i, s := range steps {
		if s.Dependent {
			gas[i] = s.DefaultGas
		}
	}
	return gas, nil
}

func pad(gas uint64, pct uint64) uint64 { return gas + gas*pct/100 }

type simCall struct {
	From  common.Address `json:"from"`
	To    common.Address `json:"to"`
	Input hexutil.Bytes  `json:"input"`
	Value *hexutil.Big   `json:"value"`
}

func simulateRequest(from common.Address, steps []step) any {
	calls := make([]simCall, len(steps))
	for i, s := range steps {
		calls[i] = simCall{From: from, To: s.To, Input: s.Data, Value: (*hexutil.Big)(s.value())}
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
