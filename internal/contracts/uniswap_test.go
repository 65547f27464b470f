package contracts_test

import (
	"bytes"
	"context"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/sigil/sigil/internal/contracts"
)

// The pool bytecode @uniswap/v3-core publishes is the one @uniswap/v3-periphery computes pool addresses with
// (PoolAddress.POOL_INIT_CODE_HASH): the factory deploys it, and the router and quoter find pools by that hash.
func TestUniswapPoolInitCodeHash(t *testing.T) {
	t.Parallel()
	got := crypto.Keccak256Hash(contracts.MustLoad(contracts.UniswapV3Pool).Bytecode)
	if want := common.HexToHash("0xe34f199b19b2b4f47f68442619d555527d244f78a3297ea89325f843f87b8b54"); got != want {
		t.Fatalf("keccak256(UniswapV3Pool bytecode) = %s, want the periphery's POOL_INIT_CODE_HASH %s", got, want)
	}
}

// Each pool is where the periphery's CREATE2 computation puts it, opens at its price, and holds liquidity.
func TestUniswapPoolsOpenAtTheirPrices(t *testing.T) {
	t.Parallel()
	c := newTestChain(t)
	factory := c.addr(contracts.UniswapFactory)
	initCode := crypto.Keccak256(contracts.MustLoad(contracts.UniswapV3Pool).Bytecode)
	for _, p := range contracts.UniswapPools {
		pool := c.addr(p.Name)
		token0, token1 := c.addr(p.TokenA), c.addr(p.TokenB)
		price := p.Price
		if bytes.Compare(token1.Bytes(), token0.Bytes()) < 0 {
			token0, token1, price = token1, token0, 1/price
		}
		salt := crypto.Keccak256(common.LeftPadBytes(token0.Bytes(), 32), common.LeftPadBytes(token1.Bytes(), 32),
			common.LeftPadBytes(big.NewInt(int64(p.Fee)).Bytes(), 32))
		if want := crypto.CreateAddress2(factory, common.BytesToHash(salt), initCode); pool != want {
			t.Errorf("%s is at %s, the periphery computes %s", p.Name, pool, want)
		}
		slot0, err := contracts.MustLoad(contracts.UniswapV3Pool).Call(context.Background(), c.client, pool, "slot0")
		if err != nil {
			t.Fatal(err)
		}
		dec0, dec1 := decimalsOf(t, c, token0), decimalsOf(t, c, token1)
		if got := poolPrice(slot0[0].(*big.Int), dec0, dec1); math.Abs(got/price-1) > 1e-6 {
			t.Errorf("%s opens at %g token1 per token0, want %g", p.Name, got, price)
		}
		if c.uint(p.Name, "liquidity").Sign() == 0 {
			t.Errorf("%s has no liquidity in range", p.Name)
		}
	}
}

// A swap through Sigil's entry: the fee is kept for the receiver, the rest is swapped by Uniswap's router for what
// QuoterV2 said, the output goes to the recipient, and the receiver claims the fee.
func TestSwapFeeRouterSwapsThroughUniswap(t *testing.T) {
	t.Parallel()
	c := newTestChain(t)
	router, alice, bob := c.addr(contracts.SwapRouterName), c.alice.addr, c.bob.addr
	amount, fee := tokens(1_000, 6), tokens(5, 6)
	c.mintTo(contracts.USDC, alice, amount)
	path := uniswapPath(c, contracts.USDC, 500, contracts.WETH)
	quoted := c.quote(path, sub(amount, fee))
	c.alice.send(contracts.USDC, "approve", router, amount)
	c.alice.send(contracts.SwapRouterName, "swap", feeSwap(path, c.addr(contracts.USDC), amount, fee, c.feeTo, bob, quoted), false)
	wantEq(t, "WETH received", c.balance(contracts.WETH, bob), quoted)
	wantEq(t, "fee accrued", c.uint(contracts.SwapRouterName, "accrued", c.feeTo, c.addr(contracts.USDC)), fee)
	// 1,000 USDC buys about a third of a WETH at 3,000.
	if f, _ := new(big.Rat).SetFrac(quoted, tokens(1, 18)).Float64(); f < 0.32 || f > 0.334 {
		t.Fatalf("995 USDC bought %g WETH", f)
	}

	c.bob.send(contracts.SwapRouterName, "claim", c.feeTo, []common.Address{c.addr(contracts.USDC), c.addr(contracts.WETH)})
	wantEq(t, "fee claimed", c.balance(contracts.USDC, c.feeTo), fee)
	wantEq(t, "fee left", c.uint(contracts.SwapRouterName, "accrued", c.feeTo, c.addr(contracts.USDC)), new(big.Int))
}

// Slippage and the fee cap are enforced on-chain: a minimum above what the pool gives reverts, as does a fee over
// MAX_FEE_BPS; nothing moves.
func TestSwapFeeRouterRefusals(t *testing.T) {
	t.Parallel()
	c := newTestChain(t)
	router, alice := c.addr(contracts.SwapRouterName), c.alice.addr
	amount := tokens(1_000, 6)
	c.mintTo(contracts.USDC, alice, amount)
	c.alice.send(contracts.USDC, "approve", router, amount)
	path := uniswapPath(c, contracts.USDC, 500, contracts.WETH)
	quoted := c.quote(path, amount)
	_, err := c.alice.trySend(nil, contracts.SwapRouterName, "swap",
		feeSwap(path, c.addr(contracts.USDC), amount, new(big.Int), c.feeTo, alice, add(quoted, big.NewInt(1))), false)
	if err == nil || !strings.Contains(err.Error(), "Too little received") {
		t.Fatalf("a minimum one unit above the quote: %v, want Uniswap's Too little received", err)
	}
	_, err = c.alice.trySend(nil, contracts.SwapRouterName, "swap",
		feeSwap(path, c.addr(contracts.USDC), amount, tokens(101, 6), c.feeTo, alice, new(big.Int)), false)
	wantRevert(t, err, contracts.SwapFeeRouter, "FeeAboveMaximum")
	wantEq(t, "USDC left", c.balance(contracts.USDC, alice), amount)
}

// Native ETH in is wrapped, and out unwrapped, through WETH9, along a two-hop path.
func TestSwapFeeRouterNativeETH(t *testing.T) {
	t.Parallel()
	c := newTestChain(t)
	alice := c.alice.addr
	in := tokens(1, 18)
	path := uniswapPath(c, contracts.WETH, 500, contracts.USDC, 100, contracts.USDT)
	quoted := c.quote(path, in)
	c.alice.sendValue(in, contracts.SwapRouterName, "swap", feeSwap(path, common.Address{}, in, new(big.Int), common.Address{}, alice, quoted), false)
	wantEq(t, "USDT for 1 ETH", c.balance(contracts.USDT, alice), quoted)

	back := uniswapPath(c, contracts.USDT, 3000, contracts.WETH)
	c.alice.send(contracts.USDT, "approve", c.addr(contracts.SwapRouterName), quoted)
	before := c.ethBalance(c.bob.addr)
	out := c.quote(back, quoted)
	c.alice.send(contracts.SwapRouterName, "swap", feeSwap(back, c.addr(contracts.USDT), quoted, new(big.Int), common.Address{}, c.bob.addr, out), true)
	wantEq(t, "ETH received", sub(c.ethBalance(c.bob.addr), before), out)
}

// The bridge: a swap locked towards another chain holds the bridged token and announces it; the relayer's release
// pays the recipient through the destination's swap, or refunds the bridged token when that swap would give too
// little; a lock is released once, and only by a relayer.
func TestSigilBridge(t *testing.T) {
	t.Parallel()
	c := newTestChain(t)
	alice, bob := c.alice.addr, c.bob.addr
	bridge, usdc := c.addr(contracts.Bridge), c.addr(contracts.USDC)
	amount := tokens(600, 18)
	c.mintTo(contracts.DAI, alice, amount)
	c.alice.send(contracts.DAI, "approve", c.addr(contracts.SwapRouterName), amount)
	origin := uniswapPath(c, contracts.DAI, 100, contracts.USDC)
	lockedAmount := c.quote(origin, amount)
	destPath := uniswapPath(c, contracts.USDC, 500, contracts.WETH)
	inventory := c.balance(contracts.USDC, bridge)
	receipt := c.alice.send(contracts.SwapRouterName, "swapAndBridge", feeSwap(origin, c.addr(contracts.DAI), amount, new(big.Int), common.Address{}, bob, lockedAmount),
		bridgeLeg{Bridge: bridge, DestChainId: big.NewInt(1338), DestPath: destPath, DestMinOut: new(big.Int)})
	wantEq(t, "bridge inventory after the lock", c.balance(contracts.USDC, bridge), add(inventory, lockedAmount))
	locked := lockedEvent(t, receipt.Logs)
	if locked.amount.Cmp(lockedAmount) != 0 || locked.recipient != bob || locked.destToken != usdc || locked.destChain.Int64() != 1338 {
		t.Fatalf("Locked says %+v", locked)
	}

	// Released here as if from chain 1338 (this test has one chain).
	l := bridgeLock{Id: locked.id, Ref: [32]byte{1}, OriginChainId: big.NewInt(1338), Token: usdc, Amount: tokens(300, 6), Recipient: bob,
		DestPath: destPath, DestMinOut: new(big.Int)}
	want := c.quote(destPath, l.Amount)
	_, err := c.alice.trySend(nil, contracts.Bridge, "release", l)
	wantRevert(t, err, contracts.SigilBridge, "NotRelayer")
	c.owner.send(contracts.Bridge, "release", l)
	wantEq(t, "WETH released", c.balance(contracts.WETH, bob), want)
	_, err = c.owner.trySend(nil, contracts.Bridge, "release", l)
	wantRevert(t, err, contracts.SigilBridge, "AlreadyReleased")

	// A destination swap whose minimum the pool cannot meet refunds the bridged token.
	l.Id, l.DestMinOut = [32]byte{2}, tokens(1_000, 18)
	c.owner.send(contracts.Bridge, "release", l)
	wantEq(t, "USDC refunded", c.balance(contracts.USDC, bob), l.Amount)
	l.Id, l.OriginChainId = [32]byte{3}, big.NewInt(1337)
	_, err = c.owner.trySend(nil, contracts.Bridge, "release", l)
	wantRevert(t, err, contracts.SigilBridge, "WrongChain")
}

// feeSwap is SwapFeeRouter.Swap.
type feeSwapParams struct {
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

func feeSwap(path []byte, tokenIn common.Address, amountIn, fee *big.Int, feeReceiver, recipient common.Address, minOut *big.Int) feeSwapParams {
	return feeSwapParams{Path: path, TokenIn: tokenIn, AmountIn: amountIn, Fee: fee, FeeReceiver: feeReceiver, Recipient: recipient,
		AmountOutMinimum: minOut, Deadline: big.NewInt(math.MaxInt64), Ref: [32]byte{0xab}}
}

type bridgeLeg struct {
	Bridge      common.Address
	DestChainId *big.Int
	DestPath    []byte
	DestMinOut  *big.Int
}

type bridgeLock struct {
	Id            [32]byte
	Ref           [32]byte
	OriginChainId *big.Int
	Token         common.Address
	Amount        *big.Int
	Recipient     common.Address
	DestPath      []byte
	DestMinOut    *big.Int
}

type locked struct {
	id                   [32]byte
	amount, destChain    *big.Int
	destToken, recipient common.Address
}

func lockedEvent(t *testing.T, logs []*types.Log) locked {
	t.Helper()
	ev := contracts.MustLoad(contracts.SigilBridge).ABI.Events["Locked"]
	for _, l := range logs {
		if len(l.Topics) == 0 || l.Topics[0] != ev.ID {
			continue
		}
		values, err := ev.Inputs.NonIndexed().Unpack(l.Data)
		if err != nil {
			t.Fatal(err)
		}
		return locked{id: l.Topics[1], amount: values[1].(*big.Int), destChain: values[2].(*big.Int), destToken: values[3].(common.Address),
			recipient: values[4].(common.Address)}
	}
	t.Fatal("no Locked event")
	return locked{}
}

// uniswapPath encodes a Uniswap V3 path: token fixtures and the fee tiers between them.
func uniswapPath(c *testChain, hops ...any) []byte {
	var out []byte
	for _, h := range hops {
		switch v := h.(type) {
		case string:
			out = append(out, c.addr(v).Bytes()...)
		case int:
			out = append(out, byte(v>>16), byte(v>>8), byte(v))
		}
	}
	return out
}

// quote is QuoterV2's quoteExactInput: what a path gives for amount, simulated against the pools as they are.
func (c *testChain) quote(path []byte, amount *big.Int) *big.Int {
	c.t.Helper()
	out, err := contracts.MustLoad(contracts.UniswapV3QuoterV2).Call(context.Background(), c.client, c.addr(contracts.UniswapQuoter), "quoteExactInput", path, amount)
	if err != nil {
		c.t.Fatal(err)
	}
	return out[0].(*big.Int)
}

func decimalsOf(t *testing.T, c *testChain, token common.Address) int {
	for _, name := range []string{contracts.USDC, contracts.USDT, contracts.DAI, contracts.Incentive, contracts.WETH} {
		if c.addr(name) == token {
			f, _ := contracts.FixtureNamed(name)
			return int(f.Decimals)
		}
	}
	t.Fatalf("%s is no token fixture", token)
	return 0
}

// poolPrice is a pool's price, token1 per token0 in whole units, from its sqrtPriceX96.
func poolPrice(sqrtPriceX96 *big.Int, dec0, dec1 int) float64 {
	s, _ := new(big.Float).Quo(new(big.Float).SetInt(sqrtPriceX96), new(big.Float).SetInt(new(big.Int).Lsh(big.NewInt(1), 96))).Float64()
	return s * s * math.Pow10(dec0-dec1)
}
