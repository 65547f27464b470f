package chain

import (
	"context"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"
)

// evm_mine and evm_increaseTime, as Hardhat and Anvil scripts call them over JSON-RPC.
func TestEVMNamespace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n, err := Start(ctx, Config{ListenAddr: "127.0.0.1:0", Logger: quietLog})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	c, err := rpc.DialContext(ctx, n.RPCURL())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	head := func() (uint64, uint64) {
		h, err := n.Client().HeaderByNumber(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		return h.Number.Uint64(), h.Time
	}
	number, at := head()
	var mined string
	if err := c.CallContext(ctx, &mined, "evm_mine"); err != nil || mined != "0x0" {
		t.Fatalf("evm_mine: %q %v", mined, err)
	}
	if n2, _ := head(); n2 != number+1 {
		t.Fatalf("evm_mine sealed up to block %d, from %d", n2, number)
	}
	var by uint64
	if err := c.CallContext(ctx, &by, "evm_increaseTime", 3600); err != nil || by != 3600 {
		t.Fatalf("evm_increaseTime: %d %v", by, err)
	}
	if _, later := head(); later < at+3600 {
		t.Fatalf("the clock moved from %d to %d, want an hour at least", at, later)
	}
	if err := c.CallContext(ctx, &by, "evm_increaseTime", 0); err == nil {
		t.Fatal("evm_increaseTime 0 was accepted")
	}
}

// Every fresh dev chain deploys its fixtures at the same addresses, from the well-known dev account.
func TestFixturesAtStableAddresses(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n, err := Start(ctx, Config{ListenAddr: "127.0.0.1:0", Logger: quietLog})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	if got := n.DevAccount().Hex(); got != "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266" {
		t.Fatalf("dev account %s", got)
	}
	other := sharedNode(t)
	for name, addr := range n.Contracts() {
		if other.Contracts()[name] != addr {
			t.Errorf("%s at %s on one fresh chain and %s on another", name, addr.Hex(), other.Contracts()[name].Hex())
		}
	}
}

// evm_snapshot, evm_revert and anvil_setBalance, as Anvil and Hardhat scripts call them: a revert takes the chain back
// to the snapshot's head and forgets later snapshots, and the dev account keeps sending afterwards.
func TestSnapshotRevertAndSetBalance(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n, err := Start(ctx, Config{ListenAddr: "127.0.0.1:0", Logger: quietLog})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	c, err := rpc.DialContext(ctx, n.RPCURL())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	who := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	balance := func() *big.Int {
		b, err := n.Client().BalanceAt(ctx, who, nil)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var first, second hexutil.Uint64
	if err := c.CallContext(ctx, &first, "evm_snapshot"); err != nil {
		t.Fatal(err)
	}
	before, err := n.Client().BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CallContext(ctx, nil, "anvil_setBalance", who, "0xde0b6b3a7640000"); err != nil {
		t.Fatal(err)
	}
	if got := balance(); got.String() != "1000000000000000000" {
		t.Fatalf("balance after anvil_setBalance: %s", got)
	}
	if err := c.CallContext(ctx, nil, "anvil_setBalance", who, "0x1"); err == nil || !strings.Contains(err.Error(), "not lower") {
		t.Fatalf("lowering a balance: %v", err)
	}
	if err := c.CallContext(ctx, &second, "evm_snapshot"); err != nil || second != first+1 {
		t.Fatalf("second snapshot %d after %d: %v", second, first, err)
	}

	var ok bool
	if err := c.CallContext(ctx, &ok, "evm_revert", first); err != nil || !ok {
		t.Fatalf("evm_revert: %v %v", ok, err)
	}
	if got := balance(); got.Sign() != 0 {
		t.Fatalf("balance after the revert: %s", got)
	}
	if after, _ := n.Client().BlockNumber(ctx); after != before {
		t.Fatalf("head %d after the revert, want %d", after, before)
	}
	for _, id := range []hexutil.Uint64{first, second} { // both gone: the one reverted to and the later one
		if err := c.CallContext(ctx, &ok, "evm_revert", id); err != nil || ok {
			t.Fatalf("evm_revert of a forgotten snapshot %d: %v %v", id, ok, err)
		}
	}
	// The dev account's transactions after the snapshot are gone with their nonces: it must still send.
	if err := c.CallContext(ctx, nil, "anvil_setBalance", who, "0x2"); err != nil {
		t.Fatal(err)
	}
	if got := balance(); got.Int64() != 2 {
		t.Fatalf("balance after setting it again: %s", got)
	}
}

// A dev chain attached to an existing node by its RPC URL deploys the fixtures there, serves the faucet on its own
// listener, runs the simulator and moves the node's clock through its evm_ methods.
func TestAttachToAnExistingNode(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	upstream, err := Start(ctx, Config{ListenAddr: "127.0.0.1:0", Logger: quietLog}) // its own: the test moves its clock
	if err != nil {
		t.Fatal(err)
	}
	defer upstream.Close()
	n, err := Start(ctx, Config{RPCURL: upstream.RPCURL(), ListenAddr: "127.0.0.1:0", DataDir: t.TempDir(), Logger: quietLog})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	if n.ChainID().Int64() != upstream.ChainID().Int64() || n.RPCURL() != upstream.RPCURL() {
		t.Fatalf("attached as chain %s at %s", n.ChainID(), n.RPCURL())
	}
	usdc := n.Contracts()["USDC"]
	if usdc == (common.Address{}) || usdc == upstream.Contracts()["USDC"] {
		t.Fatalf("USDC of the attached chain at %s (the node's own at %s)", usdc.Hex(), upstream.Contracts()["USDC"].Hex())
	}
	code, err := upstream.Client().CodeAt(ctx, usdc, nil)
	if err != nil || len(code) == 0 {
		t.Fatalf("no USDC code on the node: %v", err)
	}

	who := common.HexToAddress("0x00000000000000000000000000000000000000bb")
	res, err := http.Post(n.FaucetURL(), "application/json", strings.NewReader(`{"address":"`+who.Hex()+`","eth":"1"}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("faucet answered %d", res.StatusCode)
	}
	if b, err := upstream.Client().BalanceAt(ctx, who, nil); err != nil || b.String() != "1000000000000000000" {
		t.Fatalf("balance from the attached faucet: %v %v", b, err)
	}
	if _, err := n.Simulator().Step(ctx); err != nil {
		t.Fatal(err)
	}
	before, _ := upstream.Client().HeaderByNumber(ctx, nil)
	if err := n.AdvanceTime(time.Hour); err != nil {
		t.Fatal(err)
	}
	after, _ := upstream.Client().HeaderByNumber(ctx, nil)
	if after.Time < before.Time+3600 {
		t.Fatalf("the node's clock moved from %d to %d", before.Time, after.Time)
	}

	if _, err := Start(ctx, Config{RPCURL: upstream.RPCURL(), ChainID: 5, ListenAddr: "127.0.0.1:0", Logger: quietLog}); err == nil ||
		!strings.Contains(err.Error(), "asks for 5") {
		t.Fatalf("a chain id the node does not have: %v", err)
	}
}
