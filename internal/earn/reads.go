package earn

import (
	"context"
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"
)

// Reads batches view calls (eth_call at the latest block) into one JSON-RPC round trip: each Add returns the slot its
// decoded outputs land in once Do has run. Earn's queries read a few values of each vault and wrapper; one batch
// keeps them one round trip whatever their number.
type Reads struct {
	client *rpc.Client
	calls  []read
}

type read struct {
	abi    *abi.ABI
	method string
	elem   rpc.BatchElem
	out    *[]any
}

// NewReads starts a batch on the node of client.
func NewReads(client *rpc.Client) *Reads { return &Reads{client: client} }

// Add queues a call of method on the contract at to; its outputs are in *out after Do.
func (r *Reads) Add(a *abi.ABI, to common.Address, method string, args ...any) *[]any {
	out := new([]any)
	data, err := a.Pack(method, args...)
	if err != nil {
		panic(fmt.Sprintf("earn: pack %s: %v", method, err)) // the methods and argument types are the package's own
	}
	r.calls = append(r.calls, read{abi: a, method: method, out: out, elem: rpc.BatchElem{Method: "eth_call",
		Args: []any{map[string]any{"to": to, "data": hexutil.Bytes(data)}, "latest"}, Result: new(hexutil.Bytes)}})
	return out
}

// ErrReverted is the error of a read whose call reverted (a contract that lacks the function, or refuses it).
var ErrReverted = errors.New("the call reverted")

// Do sends the batch and decodes every output; the first failure is the error (the node unreachable, a call that
// reverted or returned what its ABI does not decode).
func (r *Reads) Do(ctx context.Context) error {
	if len(r.calls) == 0 {
		return nil
	}
	elems := make([]rpc.BatchElem, len(r.calls))
	for i := range r.calls {
		elems[i] = r.calls[i].elem
	}
	if err := r.client.BatchCallContext(ctx, elems); err != nil {
		return err
	}
	for i, c := range r.calls {
		if elems[i].Error != nil {
			return fmt.Errorf("%s: %w: %v", c.method, ErrReverted, elems[i].Error)
		}
		data := *elems[i].Result.(*hexutil.Bytes)
		if len(data) == 0 {
			return fmt.Errorf("%s: %w: no return data (no contract there?)", c.method, ErrReverted)
		}
		out, err := c.abi.Unpack(c.method, data)
		if err != nil {
			return fmt.Errorf("%s: %w", c.method, err)
		}
		*c.out = out
	}
	r.calls = nil
	return nil
}
