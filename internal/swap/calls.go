package swap

import (
	"context"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"

	"github.com/sigil/sigil/internal/abis"
)

// Call is one call of a swap's transaction: the sender runs them in order, all or none (an EIP-7702 batch when there
// are several).
type Call struct {
	To    common.Address
	Value *big.Int // nil for none
	Data  []byte
}

// feeRouterSwap is SwapFeeRouter.Swap, and bridgeLeg its BridgeLeg.
type feeRouterSwap struct {
	Path             []byte
	TokenIn          common.Address
	AmountIn         *big.Int
	Fee              *big.Int
	FeeReceiver      common.Address
	Recipient        common.Address
	AmountOutMinimum *big.Int
	Deadline         *big.Int
	Ref              [32]byte
}

type bridgeLeg struct {
	Bridge      common.Address
	DestChainId *big.Int //nolint:revive // go-ethereum matches the ABI's destChainId
	DestPath    []byte
	DestMinOut  *big.Int
}

// Calls are the calls that execute a quote from its payer, ref naming it on-chain (the Swapped and Locked events):
// the input approved to Sigil's SwapFeeRouter (native ETH is sent with the swap instead), then the router's swap, or
// its swap and lock in the bridge. The router pulls exactly the approved amount.
func (v *Venues) Calls(q *Quote, ref [32]byte) ([]Call, error) {
	x, err := v.get(q.In.CAIP2)
	if err != nil {
		return nil, err
	}
	s := feeRouterSwap{Path: path(q.Origin.Hops).encode(), TokenIn: q.In.Token, AmountIn: q.AmountIn, Fee: q.Fee, FeeReceiver: q.FeeReceiver,
		Recipient: q.Recipient, AmountOutMinimum: q.Origin.MinOut, Deadline: big.NewInt(q.Deadline), Ref: ref}
	if s.Path == nil {
		s.Path = []byte{}
	}
	var data []byte
	if q.Bridge() {
		dest, err := v.get(q.Dest.CAIP2)
		if err != nil {
			return nil, err
		}
		destPath := path(q.Dest.Hops).encode()
		if destPath == nil {
			destPath = []byte{}
		}
		destMin := q.Dest.MinOut
		if destMin == nil {
			destMin = new(big.Int)
		}
		data, err = abis.SwapFeeRouter.Pack("swapAndBridge", s, bridgeLeg{Bridge: x.Bridge, DestChainId: big.NewInt(dest.chainID), DestPath: destPath, DestMinOut: destMin})
		if err != nil {
			return nil, fmt.Errorf("swap: pack swapAndBridge: %w", err)
		}
	} else {
		data, err = abis.SwapFeeRouter.Pack("swap", s, q.Out.Native)
		if err != nil {
			return nil, fmt.Errorf("swap: pack swap: %w", err)
		}
	}
	if q.In.Native {
		return []Call{{To: x.Router, Value: new(big.Int).Set(q.AmountIn), Data: data}}, nil
	}
	approve, err := abis.ERC20.Pack("approve", x.Router, q.AmountIn)
	if err != nil {
		return nil, fmt.Errorf("swap: pack approve: %w", err)
	}
	return []Call{{To: q.In.Token, Data: approve}, {To: x.Router, Data: data}}, nil
}

// FeeTokens are the tokens fees accrue in on a venue: its listed tokens, WETH standing for the native coin.
func (v *Venues) FeeTokens(caip2 string) ([]common.Address, error) {
	x, err := v.get(caip2)
	if err != nil {
		return nil, err
	}
	var out []common.Address
	seen := map[common.Address]bool{}
	for _, t := range x.Tokens {
		addr := t.Address
		if addr == (common.Address{}) {
			addr = x.WETH
		}
		if !seen[addr] {
			seen[addr] = true
			out = append(out, addr)
		}
	}
	return out, nil
}

// Accrued is what the router holds for a fee receiver on a venue, by token (the tokens with nothing left out).
func (v *Venues) Accrued(ctx context.Context, caip2 string, receiver common.Address) (map[common.Address]*big.Int, error) {
	x, err := v.get(caip2)
	if err != nil {
		return nil, err
	}
	tokens, _ := v.FeeTokens(caip2)
	b := &batch{}
	calls := make([]int, len(tokens))
	for i, t := range tokens {
		calls[i] = b.method(x.Router, abis.SwapFeeRouter, "accrued", receiver, t)
	}
	if err := b.send(ctx, x); err != nil {
		return nil, err
	}
	out := map[common.Address]*big.Int{}
	for i, t := range tokens {
		n, err := b.uint(calls[i], abis.SwapFeeRouter, "accrued")
		if err != nil {
			return nil, &UpstreamError{CAIP2: caip2, Err: err}
		}
		if n.Sign() > 0 {
			out[t] = n
		}
	}
	return out, nil
}

// ClaimCall is the call that pays a fee receiver what accrued to it in tokens.
func (v *Venues) ClaimCall(caip2 string, receiver common.Address, tokens []common.Address) (Call, error) {
	x, err := v.get(caip2)
	if err != nil {
		return Call{}, err
	}
	data, err := abis.SwapFeeRouter.Pack("claim", receiver, tokens)
	if err != nil {
		return Call{}, fmt.Errorf("swap: pack claim: %w", err)
	}
	return Call{To: x.Router, Data: data}, nil
}
