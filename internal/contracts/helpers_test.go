package contracts_test

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/sigil/sigil/internal/contracts"
	"github.com/sigil/sigil/internal/testwait"
)

// testChain is an in-memory go-ethereum chain (the simulated backend) with the fixtures deployed
// by the owner account, plus two funded users and a separate fee recipient.
type testChain struct {
	t         *testing.T
	backend   *simulated.Backend
	client    simulated.Client
	owner     *account
	alice     *account
	bob       *account
	feeTo     common.Address
	provider  common.Address
	addresses contracts.Addresses
}

type account struct {
	chain *testChain
	key   *ecdsa.PrivateKey
	addr  common.Address
}

func newKey(t *testing.T) (*ecdsa.PrivateKey, common.Address) {
	t.Helper()
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return key, crypto.PubkeyToAddress(key.PublicKey)
}

func newTestChain(t *testing.T) *testChain {
	t.Helper()
	c := &testChain{t: t}
	alloc := types.GenesisAlloc{}
	mk := func() *account {
		key, addr := newKey(t)
		alloc[addr] = types.Account{Balance: new(big.Int).Mul(big.NewInt(1_000_000), big.NewInt(params.Ether))}
		return &account{chain: c, key: key, addr: addr}
	}
	c.owner, c.alice, c.bob = mk(), mk(), mk()
	_, c.feeTo = newKey(t)
	_, c.provider = newKey(t)
	c.backend = simulated.NewBackend(alloc)
	t.Cleanup(func() { c.backend.Close() })
	c.client = c.backend.Client()
	addresses, err := contracts.Deploy(context.Background(), c.owner, c.client, contracts.Config{
		FeeRecipient: c.feeTo,
		Provider:     c.provider,
	})
	if err != nil {
		t.Fatalf("deploy fixtures: %v", err)
	}
	c.addresses = addresses
	return c
}

func (a *account) Address() common.Address { return a.addr }

// Transact signs and sends a transaction, mines it and fails on a revert. A transaction that
// would revert is reported from gas estimation, with its revert data.
func (a *account) Transact(ctx context.Context, to *common.Address, value *big.Int, data []byte) (*types.Receipt, error) {
	client := a.chain.client
	if value == nil {
		value = new(big.Int)
	}
	gas, err := client.EstimateGas(ctx, ethereum.CallMsg{From: a.addr, To: to, Value: value, Data: data})
	if err != nil {
		return nil, err
	}
	nonce, err := client.PendingNonceAt(ctx, a.addr)
	if err != nil {
		return nil, err
	}
	head, err := client.HeaderByNumber(ctx, nil)
	if err != nil {
		return nil, err
	}
	tip := big.NewInt(params.GWei)
	chainID, err := client.ChainID(ctx)
	if err != nil {
		return nil, err
	}
	tx, err := types.SignNewTx(a.key, types.LatestSignerForChainID(chainID), &types.DynamicFeeTx{
		ChainID:   chainID,
		Nonce:     nonce,
		GasTipCap: tip,
		GasFeeCap: new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), tip),
		Gas:       gas * 2,
		To:        to,
		Value:     value,
		Data:      data,
	})
	if err != nil {
		return nil, err
	}
	if err := client.SendTransaction(ctx, tx); err != nil {
		return nil, err
	}
	a.chain.backend.Commit()
	receipt, err := client.TransactionReceipt(ctx, tx.Hash())
	if err != nil {
		return nil, err
	}
	if receipt.Status != types.ReceiptStatusSuccessful {
		return receipt, fmt.Errorf("transaction %s reverted", tx.Hash())
	}
	return receipt, nil
}

// send calls method on a fixture and fails the test if it reverts.
func (a *account) send(fixture, method string, args ...any) *types.Receipt {
	a.chain.t.Helper()
	r, err := a.trySend(nil, fixture, method, args...)
	if err != nil {
		a.chain.t.Fatalf("%s.%s: %v", fixture, method, err)
	}
	return r
}

func (a *account) sendValue(value *big.Int, fixture, method string, args ...any) *types.Receipt {
	a.chain.t.Helper()
	r, err := a.trySend(value, fixture, method, args...)
	if err != nil {
		a.chain.t.Fatalf("%s.%s: %v", fixture, method, err)
	}
	return r
}

func (a *account) trySend(value *big.Int, fixture, method string, args ...any) (*types.Receipt, error) {
	c := a.chain
	data, err := artifactOf(c.t, fixture).Pack(method, args...)
	if err != nil {
		c.t.Fatal(err)
	}
	to := c.addr(fixture)
	return a.Transact(context.Background(), &to, value, data)
}

func artifactOf(t *testing.T, fixture string) *contracts.Artifact {
	t.Helper()
	f, ok := contracts.FixtureNamed(fixture)
	if !ok {
		t.Fatalf("no fixture %q", fixture)
	}
	return contracts.MustLoad(f.Artifact)
}

func (c *testChain) addr(fixture string) common.Address {
	c.t.Helper()
	a, ok := c.addresses[fixture]
	if !ok {
		c.t.Fatalf("fixture %q not deployed", fixture)
	}
	return a
}

// call reads a view function that returns one value.
func (c *testChain) call(fixture, method string, args ...any) any {
	c.t.Helper()
	out, err := artifactOf(c.t, fixture).Call(context.Background(), c.client, c.addr(fixture), method, args...)
	if err != nil {
		c.t.Fatal(err)
	}
	return out[0]
}

func (c *testChain) uint(fixture, method string, args ...any) *big.Int {
	c.t.Helper()
	v, ok := c.call(fixture, method, args...).(*big.Int)
	if !ok {
		c.t.Fatalf("%s.%s did not return a uint", fixture, method)
	}
	return v
}

func (c *testChain) balance(token string, holder common.Address) *big.Int {
	c.t.Helper()
	return c.uint(token, "balanceOf", holder)
}

func (c *testChain) ethBalance(holder common.Address) *big.Int {
	c.t.Helper()
	b, err := c.client.BalanceAt(context.Background(), holder, nil)
	if err != nil {
		c.t.Fatal(err)
	}
	return b
}

func (c *testChain) blockTime(r *types.Receipt) uint64 {
	c.t.Helper()
	h, err := c.client.HeaderByNumber(context.Background(), r.BlockNumber)
	if err != nil {
		c.t.Fatal(err)
	}
	return h.Time
}

// advance moves the chain's time on by d. The simulated backend refuses while its transaction pool still lists a
// transaction as pending, which it does for a moment after the block that mined it (the pool moves to a new block
// asynchronously), so a refusal is retried for a while.
func (c *testChain) advance(d time.Duration) {
	c.t.Helper()
	testwait.Until(c.t, "the transaction pool to let the chain's time move", func() bool {
		err := c.backend.AdjustTime(d)
		if err != nil && !strings.Contains(err.Error(), "non-empty block") {
			c.t.Fatal(err)
		}
		return err == nil
	})
}

// mintTo gives holder whole tokens of a test token, from the owner.
func (c *testChain) mintTo(token string, holder common.Address, amount *big.Int) {
	c.t.Helper()
	c.owner.send(token, "mint", holder, amount)
}

// fund gives holder amount of a vault's asset: minted for test tokens, wrapped for WETH.
func (c *testChain) fund(holder *account, asset string, amount *big.Int) {
	c.t.Helper()
	if asset == contracts.WETH {
		holder.sendValue(amount, contracts.WETH, "deposit")
		return
	}
	c.mintTo(asset, holder.addr, amount)
}

// wantRevert checks that err is a revert carrying the custom error errName of artifact.
func wantRevert(t *testing.T, err error, artifact, errName string) {
	t.Helper()
	if err == nil {
		t.Fatalf("call succeeded, want revert %s", errName)
	}
	want, ok := contracts.MustLoad(artifact).ABI.Errors[errName]
	if !ok {
		t.Fatalf("%s has no error %s", artifact, errName)
	}
	var dataErr rpc.DataError
	if !errors.As(err, &dataErr) {
		t.Fatalf("error %v carries no revert data, want %s", err, errName)
	}
	hexData, _ := dataErr.ErrorData().(string)
	data, decodeErr := hexutil.Decode(hexData)
	if decodeErr != nil || len(data) < 4 {
		t.Fatalf("revert data %q is not an error selector, want %s", hexData, errName)
	}
	if !strings.EqualFold(hexutil.Encode(data[:4]), hexutil.Encode(want.ID[:4])) {
		t.Fatalf("reverted with %s, want %s (%s)", hexutil.Encode(data[:4]), errName, hexutil.Encode(want.ID[:4]))
	}
}

func tokens(whole int64, decimals int) *big.Int {
	return new(big.Int).Mul(big.NewInt(whole), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(decimals)), nil))
}

func mulDiv(a, b, c *big.Int) *big.Int {
	return new(big.Int).Div(new(big.Int).Mul(a, b), c)
}

func mulDivUp(a, b, c *big.Int) *big.Int {
	n := new(big.Int).Mul(a, b)
	q, m := new(big.Int).DivMod(n, c, new(big.Int))
	if m.Sign() != 0 {
		q.Add(q, big.NewInt(1))
	}
	return q
}

func sub(a, b *big.Int) *big.Int { return new(big.Int).Sub(a, b) }
func add(a, b *big.Int) *big.Int { return new(big.Int).Add(a, b) }

func wantEq(t *testing.T, what string, got, want *big.Int) {
	t.Helper()
	if got.Cmp(want) != 0 {
		t.Fatalf("%s = %s, want %s", what, got, want)
	}
}

// with returns a view of the chain whose failures are reported to t (a subtest).
func (c *testChain) with(t *testing.T) *testChain {
	cp := *c
	cp.t = t
	cp.owner = &account{chain: &cp, key: c.owner.key, addr: c.owner.addr}
	cp.alice = &account{chain: &cp, key: c.alice.key, addr: c.alice.addr}
	cp.bob = &account{chain: &cp, key: c.bob.key, addr: c.bob.addr}
	return &cp
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
