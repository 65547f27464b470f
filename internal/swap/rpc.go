package swap

import (
	"context"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"
)

// batch gathers the reads of one step and sends them in one JSON-RPC batch: a quote costs one round trip per chain.
type batch struct {
	elems []rpc.BatchElem
}

// callArgs is eth_call's call object.
type callArgs struct {
	To   common.Address `json:"to"`
	Data hexutil.Bytes  `json:"data"`
}

// call queues an eth_call at the latest block; its result is read with result(i).
func (b *batch) call(to common.Address, data []byte) int {
	b.elems = append(b.elems, rpc.BatchElem{Method: "eth_call", Args: []any{callArgs{To: to, Data: data}, "latest"}, Result: new(hexutil.Bytes)})
	return len(b.elems) - 1
}

// method queues a call to a contract through an ABI.
func (b *batch) method(to common.Address, a abi.ABI, name string, args ...any) int {
	data, err := a.Pack(name, args...)
	if err != nil {
		panic(fmt.Sprintf("swap: pack %s: %v", name, err)) // the arguments are the package's own
	}
	return b.call(to, data)
}

// balance queues the native balance of an account.
func (b *batch) balance(holder common.Address) int {
	b.elems = append(b.elems, rpc.BatchElem{Method: "eth_getBalance", Args: []any{holder, "latest"}, Result: new(hexutil.Big)})
	return len(b.elems) - 1
}

// head is the part of the latest block a quote uses.
type head struct {
	Number hexutil.Uint64 `json:"number"`
	Time   hexutil.Uint64 `json:"timestamp"`
}

func (b *batch) head() int {
	b.elems = append(b.elems, rpc.BatchElem{Method: "eth_getBlockByNumber", Args: []any{"latest", false}, Result: new(head)})
	return len(b.elems) - 1
}

// send runs the batch; a failure to reach the node is an UpstreamError, a failed call is left for result to report.
func (b *batch) send(ctx context.Context, x *venue) error {
	if len(b.elems) == 0 {
		return nil
	}
	if err := x.rpc.BatchCallContext(ctx, b.elems); err != nil {
		return &UpstreamError{CAIP2: x.CAIP2, Err: err}
	}
	return nil
}

// output is the return data of call i, or its error (a revert, with the node's message).
func (b *batch) output(i int) ([]byte, error) {
	if err := b.elems[i].Error; err != nil {
		return nil, err
	}
	return *b.elems[i].Result.(*hexutil.Bytes), nil
}

// unpack decodes the outputs of call i through an ABI.
func (b *batch) unpack(i int, a abi.ABI, name string) ([]any, error) {
	out, err := b.output(i)
	if err != nil {
		return nil, err
	}
	values, err := a.Unpack(name, out)
	if err != nil {
		return nil, fmt.Errorf("decode %s: %w", name, err)
	}
	return values, nil
}

// uint is the first output of call i as a number.
func (b *batch) uint(i int, a abi.ABI, name string) (*big.Int, error) {
	values, err := b.unpack(i, a, name)
	if err != nil {
		return nil, err
	}
	n, ok := values[0].(*big.Int)
	if !ok {
		return nil, fmt.Errorf("%s returned no number", name)
	}
	return n, nil
}

// address is the first output of call i as an address.
func (b *batch) address(i int, a abi.ABI, name string) (common.Address, error) {
	values, err := b.unpack(i, a, name)
	if err != nil {
		return common.Address{}, err
	}
	addr, ok := values[0].(common.Address)
	if !ok {
		return common.Address{}, fmt.Errorf("%s returned no address", name)
	}
	return addr, nil
}

func (b *batch) headOf(i int) (*head, error) {
	if err := b.elems[i].Error; err != nil {
		return nil, err
	}
	h := b.elems[i].Result.(*head)
	if h.Number == 0 && h.Time == 0 {
		return nil, errors.New("the node returned no latest block")
	}
	return h, nil
}

func (b *batch) balanceOf(i int) (*big.Int, error) {
	if err := b.elems[i].Error; err != nil {
		return nil, err
	}
	return b.elems[i].Result.(*hexutil.Big).ToInt(), nil
}
