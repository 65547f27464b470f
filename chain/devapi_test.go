package chain

import (
	"context"
	"testing"

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
