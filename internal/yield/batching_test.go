package yield

import (
	"math/big"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/sigil/sigil/internal/contracts"
)

// rpcCost runs f and returns the JSON-RPC calls and HTTP round trips it made to the dev chain. Nothing may run in the
// background meanwhile: the tests' services sample and poll hourly, and no hash is submitted around a measurement.
func (e *env) rpcCost(f func()) (calls, roundTrips int64) {
	e.t.Helper()
	calls0, trips0 := e.svc.RPCStats("sigil-dev")
	f()
	calls1, trips1 := e.svc.RPCStats("sigil-dev")
	return calls1 - calls0, trips1 - trips0
}

// sendAll signs and sends an action's transactions without telling the service, so that its receipt watcher has
// nothing to do.
func (w *wallet) sendAll(a actionDTO) {
	w.e.t.Helper()
	for _, t := range a.Transactions {
		w.send(w.sign(t.UnsignedTransaction))
	}
}

// One ERC-4626 enter costs what docs/YIELD.md says: the reads (pending nonce, latest block, tip, ether balance, token
// balance, allowance, maxDeposit) in one batch, then eth_call of the approval and eth_simulateV1 of the sequence in a
// second: 9 calls in 2 round trips. Without the approval, eth_call and eth_estimateGas of the deposit take the second
// batch's place: 9 calls in 2 round trips too.
func TestEnterRPCCost(t *testing.T) {
	e := newEnv(t, envOptions{})
	vault := e.yieldID(KindERC4626, e.addr(contracts.VaultUSDC).Hex(), "USDC")
	w := e.newWallet("1", map[string]string{"USDC": "100"})
	var a actionDTO
	calls, trips := e.rpcCost(func() { a = w.act(e.key10, "enter", vault, map[string]any{"amount": "10", "useMaxAllowance": true}) })
	if len(a.Transactions) != 2 || calls != 9 || trips != 2 {
		t.Fatalf("enter with approval: %d steps cost %d calls in %d round trips, want 2 steps, 9 calls in 2", len(a.Transactions), calls, trips)
	}
	w.sendAll(a)
	calls, trips = e.rpcCost(func() { a = w.act(e.key10, "enter", vault, map[string]any{"amount": "5"}) })
	if len(a.Transactions) != 1 || calls != 9 || trips != 2 {
		t.Fatalf("enter without approval: %d steps cost %d calls in %d round trips, want 1 step, 9 calls in 2", len(a.Transactions), calls, trips)
	}
}

// POST /v1/yields/balances reads every queried yield in one batch, and the vault positions' convertToAssets in a
// second only when some vault holds shares. A read that fails fails its own yield only.
func TestMultiBalancesRoundTrips(t *testing.T) {
	n := devChain(t)
	weth := strings.ToLower(n.Contracts()[contracts.VaultWETH].Hex())
	var failWETH atomic.Bool
	proxy := rpcProxy(t, n.RPCURL(), func(c *rpcCall) map[string]any {
		if c.Method == "eth_call" && failWETH.Load() && strings.EqualFold(c.Params[0].(map[string]any)["to"].(string), weth) {
			return map[string]any{"code": -32000, "message": "the node failed this call"}
		}
		return nil
	})
	e := newEnv(t, envOptions{edit: func(c *Catalogue) { c.Networks[0].RPCURL = proxy }})
	usdcVault, oav10 := e.addr(contracts.VaultUSDC), e.addr(contracts.OAV10USDC)
	lending := e.yieldID(KindLending, e.addr(contracts.Lending).Hex(), "USDC")
	w := e.newWallet("1", map[string]string{"USDC": "100"})
	w.sendAll(w.act(e.key10, "enter", e.yieldID(KindERC4626, usdcVault.Hex(), "USDC"), map[string]any{"amount": "30"}))
	w.sendAll(w.act(e.key10, "enter", e.yieldID(KindAllocatorVault, oav10.Hex(), "USDC"), map[string]any{"amount": "20"}))

	query := func(addr string) (out multiBalancesDTO) {
		e.mustCall(e.key10, "POST", "/v1/yields/balances", map[string]any{"queries": []map[string]string{
			{"address": addr, "network": "sigil-dev"},
			{"address": addr, "yieldId": lending}, // already in the network's scan: merged
		}}, 200, &out)
		return out
	}
	// The 12 yields the key sees: 1 latest block, 1 share balance per vault (5, Morpho's included), 1 aToken balance
	// per lending market (5: two on the dev lending pool, three on Aave), stake, pending unstake and rewards of native
	// staking (3), token balance, supply, pooled ether and pending unstake of provider staking (4): 18 calls in one
	// batch.
	var out multiBalancesDTO
	calls, trips := e.rpcCost(func() { out = query(w.addr.Hex()) })
	if calls != 18+2 || trips != 2 {
		t.Fatalf("balances of 12 yields with 2 vault positions: %d calls in %d round trips, want 20 in 2", calls, trips)
	}
	if len(out.Items) != 2 || len(out.Errors) != 0 {
		t.Fatalf("balances %+v", out)
	}
	for i, vault := range []common.Address{usdcVault, oav10} {
		active := out.Items[i].Balances[0]
		shares := e.read(vault, contracts.SimpleVault, "balanceOf", w.addr)
		want := e.read(vault, contracts.SimpleVault, "convertToAssets", shares)
		if !strings.Contains(out.Items[i].YieldID, strings.ToLower(vault.Hex())) || active.Type != "active" ||
			active.AmountRaw != want.String() || *active.ShareAmountRaw != shares.String() {
			t.Fatalf("balance %d: %+v, want %s for %s shares of %s", i, out.Items[i], want, shares, vault)
		}
	}
	nobody := common.BigToAddress(big.NewInt(0xdead))
	calls, trips = e.rpcCost(func() { out = query(nobody.Hex()) })
	if calls != 18 || trips != 1 || len(out.Items) != 0 || len(out.Errors) != 0 {
		t.Fatalf("balances of an empty wallet: %d calls in %d round trips, want 18 in 1: %+v", calls, trips, out)
	}

	failWETH.Store(true)
	out = query(w.addr.Hex())
	if len(out.Items) != 2 || len(out.Errors) != 1 || !strings.Contains(out.Errors[0].YieldID, weth) {
		t.Fatalf("balances with the WETH vault's reads failing: %+v", out)
	}
}
