package yield

import (
	"context"
	"math/big"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/sigil/sigil/internal/contracts"
)

// withoutWatcher is the env's API served by a second service over the same store and chain that never polls
// receipts: what the first shows between a block and its watcher's next poll, held still for the test.
func (e *env) withoutWatcher() *env {
	e.t.Helper()
	svc, err := New(Config{Catalogue: e.cat, Store: e.store, Clock: e.clock.now, Logger: quietLog, PollInterval: time.Hour,
		SampleInterval: time.Hour, Keyring: testKeyring(e.t), WebhooksAllowPrivate: true})
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { svc.Close() })
	srv := httptest.NewServer(svc.Handler())
	e.t.Cleanup(srv.Close)
	still := *e
	still.svc, still.srv = svc, srv
	return &still
}

// A deposit mined before the receipt watcher saw it is active, not also entering: the balance read checks the
// chain for the last step's receipt in its own batch.
func TestEnteringIsNotCountedTwice(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{}).withoutWatcher()
	vault := e.yieldID(KindERC4626, e.addr(contracts.VaultUSDC).Hex(), "USDC")
	w := e.newWallet("1", map[string]string{"USDC": "100"})
	a := w.act(e.key10, "enter", vault, map[string]any{"amount": "7"})
	if len(a.Transactions) != 2 {
		t.Fatalf("enter: %+v", a.Transactions)
	}
	submit := func(i int) {
		t.Helper()
		tx := w.sign(a.Transactions[i].UnsignedTransaction)
		e.mustCall(e.key10, "PUT", "/v1/transactions/"+a.Transactions[i].ID+"/submit-hash", map[string]string{"hash": tx.Hash().Hex()}, 200, nil)
	}
	expect := func(when, active, entering string) {
		t.Helper()
		got := e.balances(e.key10, vault, w.addr)
		// The vault's shares convert back to the deposit give or take rounding and the interest other tests' yield
		// steps pay meanwhile.
		if nearly(got["active"].AmountRaw, active, 10) {
			active = got["active"].AmountRaw
		}
		if got["active"].AmountRaw != active || got["entering"].AmountRaw != entering {
			t.Fatalf("%s: active %q entering %q, want %q and %q", when, got["active"].AmountRaw, got["entering"].AmountRaw, active, entering)
		}
	}

	// The approval confirmed, the deposit not sent: entering.
	w.send(w.sign(a.Transactions[0].UnsignedTransaction))
	submit(0)
	if err := e.svc.PollReceipts(context.Background()); err != nil {
		t.Fatal(err)
	}
	expect("approved", "", "7000000")
	// The deposit's hash submitted, not mined: entering.
	submit(1)
	expect("deposit broadcast", "", "7000000")
	// Mined, the watcher has not looked: active only.
	w.send(w.sign(a.Transactions[1].UnsignedTransaction))
	var got actionDTO
	if e.mustCall(e.key10, "GET", "/v1/actions/"+a.ID, nil, 200, &got); got.Status != actionProcessing {
		t.Fatalf("action %s before the watcher's poll, want PROCESSING", got.Status)
	}
	expect("deposit mined", "7000000", "")
	// And after the watcher confirmed it.
	if err := e.svc.PollReceipts(context.Background()); err != nil {
		t.Fatal(err)
	}
	expect("deposit confirmed", "7000000", "")
}

// nearly reports whether two base-unit amounts differ by at most tolerance.
func nearly(a, b string, tolerance int64) bool {
	x, ok1 := new(big.Int).SetString(a, 10)
	y, ok2 := new(big.Int).SetString(b, 10)
	return ok1 && ok2 && new(big.Int).Abs(x.Sub(x, y)).Cmp(big.NewInt(tolerance)) <= 0
}
