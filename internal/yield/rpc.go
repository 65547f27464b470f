package yield

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/sigil/sigil/internal/abis"
	"github.com/sigil/sigil/internal/metrics"
)

// The ABIs the builders speak (package abis: the standard interfaces with the standard signatures, so the same
// calldata works against the dev chain's fixtures and real deployments; the allocator vault, fee wrapper and staking
// contracts are Sigil's own).
var (
	erc20ABI           = abis.ERC20
	erc4626ABI         = abis.ERC4626
	allocatorABI       = abis.AllocatorVault
	aavePoolABI        = abis.AaveV3Pool
	feeWrapperABI      = abis.FeeWrapper
	nativeStakingABI   = abis.NativeStaking
	providerStakingABI = abis.ProviderStaking
)

// chainClient is one network's JSON-RPC endpoint. Every read of one request goes out in one batch (one HTTP round
// trip); calls and roundTrips count what was sent (RPCStats), for the tests and the benchmark.
type chainClient struct {
	network *Network
	rpc     *rpc.Client
	// noSimulate is set once the node has answered that it has no eth_simulateV1; dependent steps then get the
	// builders' default gas limits.
	noSimulate atomic.Bool
	calls      atomic.Int64
	roundTrips atomic.Int64
	metrics    *metrics.Metrics
}

func dialNetwork(ctx context.Context, n *Network, hc *http.Client) (*chainClient, error) {
	c, err := rpc.DialOptions(ctx, n.RPCURL, rpc.WithHTTPClient(hc))
	if err != nil {
		return nil, fmt.Errorf("yield: network %s: %w", n.ID, err)
	}
	return &chainClient{network: n, rpc: c}, nil
}

// upstreamError is a failure to talk to a network's node: the caller may retry.
type upstreamError struct {
	network string
	err     error
}

func (e *upstreamError) Error() string { return fmt.Sprintf("network %s: %v", e.network, e.err) }
func (e *upstreamError) Unwrap() error { return e.err }

// batch collects JSON-RPC calls, sends them in one request and then decodes the results in the order they were added.
type batch struct {
	c       *chainClient
	elems   []rpc.BatchElem
	decoded []func() error
}

func (c *chainClient) newBatch() *batch { return &batch{c: c} }

// add queues a call whose result is decoded into result (a pointer) by the RPC client.
func (b *batch) add(result any, method string, args ...any) {
	b.elems = append(b.elems, rpc.BatchElem{Method: method, Args: args, Result: result})
}

// callMsg is the call object of eth_call, eth_estimateGas and eth_simulateV1.
type callMsg struct {
	From  *common.Address
	To    common.Address
	Data  []byte
	Value *big.Int // nil: none
}

// MarshalJSON sends the calldata as both "input" and "data", from the one field: current nodes read "input", older
// clients and some gateways only "data", and go-ethereum accepts both when they are equal.
func (m callMsg) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		From  *common.Address `json:"from,omitempty"`
		To    common.Address  `json:"to"`
		Input hexutil.Bytes   `json:"input"`
		Data  hexutil.Bytes   `json:"data"`
		Value *hexutil.Big    `json:"value,omitempty"`
	}{m.From, m.To, m.Data, m.Data, (*hexutil.Big)(m.Value)})
}

// read queues a view call of method on contract to, decoded with the ABI into the returned values once run returns.
func (b *batch) read(to common.Address, a *abi.ABI, method string, args ...any) *[]any {
	return b.readAt(to, a, "latest", method, args...)
}

// readAt is read at a block: "latest" or a block number (hexutil.Uint64).
func (b *batch) readAt(to common.Address, a *abi.ABI, block any, method string, args ...any) *[]any {
	data, err := a.Pack(method, args...)
	out := new([]any)
	if err != nil {
		b.decoded = append(b.decoded, func() error { return fmt.Errorf("pack %s: %w", method, err) })
		return out
	}
	var ret hexutil.Bytes
	i := len(b.elems)
	b.add(&ret, "eth_call", callMsg{To: to, Data: data}, block)
	b.decoded = append(b.decoded, func() error {
		if err := b.elems[i].Error; err != nil {
			return fmt.Errorf("%s on %s: %w", method, to.Hex(), describeRevert(err))
		}
		values, err := a.Unpack(method, ret)
		if err != nil {
			return fmt.Errorf("%s on %s: decode %x: %w", method, to.Hex(), []byte(ret), err)
		}
		*out = values
		return nil
	})
	return out
}

// uint queues a view call returning one unsigned integer.
func (b *batch) uint(to common.Address, a *abi.ABI, method string, args ...any) *big.Int {
	return b.uintAt(to, a, "latest", method, args...)
}

// uintAt is uint at a block: "latest" or a block number (hexutil.Uint64).
func (b *batch) uintAt(to common.Address, a *abi.ABI, block any, method string, args ...any) *big.Int {
	out := new(big.Int)
	values := b.readAt(to, a, block, method, args...)
	b.decoded = append(b.decoded, func() error {
		if len(*values) == 0 {
			return nil // the read failed; its own error is reported
		}
		switch v := (*values)[0].(type) {
		case *big.Int:
			out.Set(v)
		case uint8:
			out.SetUint64(uint64(v))
		case uint16:
			out.SetUint64(uint64(v))
		case uint32:
			out.SetUint64(uint64(v))
		case uint64:
			out.SetUint64(v)
		default:
			return fmt.Errorf("%s on %s did not return a number", method, to.Hex())
		}
		return nil
	})
	return out
}

// optionalUint queues a view call returning one unsigned integer that the contract need not implement (an optional
// extension of a standard interface): when the call reverts or returns no number, the result is nil and the batch
// does not fail. Only a node that cannot be reached fails it, as it fails every read.
func (b *batch) optionalUint(to common.Address, a *abi.ABI, method string, args ...any) func() *big.Int {
	data, err := a.Pack(method, args...)
	if err != nil {
		b.decoded = append(b.decoded, func() error { return fmt.Errorf("pack %s: %w", method, err) })
		return func() *big.Int { return nil }
	}
	var ret hexutil.Bytes
	i := len(b.elems)
	b.add(&ret, "eth_call", callMsg{To: to, Data: data}, "latest")
	return func() *big.Int {
		if b.elems[i].Error != nil {
			return nil
		}
		values, err := a.Unpack(method, ret)
		if err != nil || len(values) == 0 {
			return nil
		}
		v, _ := values[0].(*big.Int)
		return v
	}
}

// balance queues eth_getBalance at the latest block.
func (b *batch) balance(addr common.Address) *big.Int {
	out := new(big.Int)
	var v hexutil.Big
	i := len(b.elems)
	b.add(&v, "eth_getBalance", addr, "latest")
	b.decoded = append(b.decoded, func() error {
		if err := b.elems[i].Error; err != nil {
			return fmt.Errorf("eth_getBalance: %w", err)
		}
		out.Set(v.ToInt())
		return nil
	})
	return out
}

// head is the part of the latest block the builders use.
type head struct {
	Number  hexutil.Uint64 `json:"number"`
	Time    hexutil.Uint64 `json:"timestamp"`
	BaseFee *hexutil.Big   `json:"baseFeePerGas"`
}

func (b *batch) head() *head {
	out := new(head)
	i := len(b.elems)
	b.add(out, "eth_getBlockByNumber", "latest", false)
	b.decoded = append(b.decoded, func() error {
		if err := b.elems[i].Error; err != nil {
			return fmt.Errorf("eth_getBlockByNumber: %w", err)
		}
		return nil
	})
	return out
}

// run sends the batch and decodes every result; the failures are returned, joined.
func (b *batch) run(ctx context.Context) error { return b.c.runTogether(ctx, []*batch{b})[0] }

// runTogether sends batches of the client's network as one JSON-RPC batch, one round trip, then lets each decode its
// own results: a read that fails fails only its own batch, so the reads of several requests (the yields of one balance
// query) can share the trip. A failure to reach the node fails every batch. Batches without calls cost no trip.
func (c *chainClient) runTogether(ctx context.Context, batches []*batch) []error {
	var elems []rpc.BatchElem
	for _, b := range batches {
		elems = append(elems, b.elems...)
	}
	errs := make([]error, len(batches))
	if len(elems) > 0 {
		c.calls.Add(int64(len(elems)))
		c.roundTrips.Add(1)
		start := time.Now()
		err := c.rpc.BatchCallContext(ctx, elems)
		for _, e := range elems {
			c.metrics.ChainCall(e.Method, time.Since(start), errors.Join(err, e.Error))
		}
		if err != nil {
			for i := range errs {
				errs[i] = &upstreamError{network: c.network.ID, err: err}
			}
			return errs
		}
		// The results were decoded through the batches' own pointers; only each call's error is copied back.
		at := 0
		for _, b := range batches {
			at += copy(b.elems, elems[at:at+len(b.elems)])
		}
	}
	for i, b := range batches {
		errs[i] = b.decode()
	}
	return errs
}

// decode runs the batch's decoders once its calls have been answered.
func (b *batch) decode() error {
	var errs []error
	for _, d := range b.decoded {
		if err := d(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// describeRevert turns a node's revert error into the contract's error, decoded with the ABIs the service knows
// ("ERC20InsufficientBalance(0x…, 1, 2)"), or the node's message when it cannot.
func describeRevert(err error) error {
	var de rpc.DataError
	if !errors.As(err, &de) {
		return err
	}
	s, ok := de.ErrorData().(string)
	if !ok {
		return err
	}
	data, decodeErr := hexutil.Decode(s)
	if decodeErr != nil || len(data) < 4 {
		return err
	}
	if reason, unpackErr := abi.UnpackRevert(data); unpackErr == nil {
		return fmt.Errorf("reverted: %s", reason)
	}
	if name := decodeCustomError(data); name != "" {
		return fmt.Errorf("reverted: %s", name)
	}
	return err
}

var knownABIs = []*abi.ABI{&erc20ABI, &erc4626ABI, &allocatorABI, &aavePoolABI, &feeWrapperABI, &nativeStakingABI, &providerStakingABI}

func decodeCustomError(data []byte) string {
	for _, a := range knownABIs {
		for _, e := range a.Errors {
			if string(e.ID[:4]) != string(data[:4]) {
				continue
			}
			args, err := e.Inputs.Unpack(data[4:])
			if err != nil {
				return e.Name
			}
			s := e.Name + "("
			for i, v := range args {
				if i > 0 {
					s += ", "
				}
				s += fmt.Sprint(v)
			}
			return s + ")"
		}
	}
	return ""
}

func (c *chainClient) close() { c.rpc.Close() }
