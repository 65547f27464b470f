package yield

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/sigil/sigil/internal/chain"
	"github.com/sigil/sigil/internal/contracts"
	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/testdb"
	"github.com/sigil/sigil/internal/units"
)

// One dev chain serves every test of the package: starting it and deploying the fixtures takes about a second.
var (
	sharedChain     *chain.Node
	sharedChainOnce sync.Once
	sharedChainErr  error
)

var quietLog = slog.New(slog.NewTextHandler(io.Discard, nil))

func TestMain(m *testing.M) {
	code := m.Run()
	if sharedChain != nil {
		sharedChain.Close()
	}
	os.Exit(code)
}

func devChain(t testing.TB) *chain.Node {
	t.Helper()
	sharedChainOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		sharedChain, sharedChainErr = chain.Start(ctx, chain.Config{ListenAddr: "127.0.0.1:0", Logger: quietLog})
	})
	if sharedChainErr != nil {
		t.Fatalf("start dev chain: %v", sharedChainErr)
	}
	return sharedChain
}

// DevCatalogue is devcatalogue.Build, the dev chain's catalogue. That package imports this one, so these tests, in this
// package, cannot import it: the external test package sets it (devcatalogue_test.go) before any test runs.
var DevCatalogue func(context.Context, ...chain.Bootstrap) (Catalogue, error)

// freshChain starts a dev chain for one test, closed at its end.
func freshChain(t testing.TB) *chain.Node {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	n, err := chain.Start(ctx, chain.Config{ListenAddr: "127.0.0.1:0", Logger: quietLog})
	if err != nil {
		t.Fatalf("start dev chain: %v", err)
	}
	t.Cleanup(func() { n.Close() })
	return n
}

// fakeClock is the service's clock in tests: it only moves when a test moves it.
type fakeClock struct{ ns atomic.Int64 }

func newFakeClock() *fakeClock {
	c := &fakeClock{}
	c.ns.Store(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).UnixNano())
	return c
}

func (c *fakeClock) now() time.Time          { return time.Unix(0, c.ns.Load()) }
func (c *fakeClock) advance(d time.Duration) { c.ns.Add(int64(d)) }

// env is a service over the shared chain with its own database and HTTP server.
type env struct {
	t       testing.TB
	chain   *chain.Node
	store   *store.Store
	svc     *Service
	srv     *httptest.Server
	clock   *fakeClock
	cat     Catalogue
	key10   string
	key20   string
	eth     *ethclient.Client
	chainID *big.Int
}

type envOptions struct {
	backend   *testdb.Backend
	rateLimit int
	shared    bool // count the rate limit in the database
	edit      func(*Catalogue)
	// fresh runs the service on a dev chain of its own, just deployed: nothing deposited, no block time passed.
	fresh bool
	// chain runs the service on that dev chain (another env's fresh one) instead of the shared one.
	chain *chain.Node
}

func newEnv(t testing.TB, opts envOptions) *env {
	t.Helper()
	n := opts.chain
	switch {
	case opts.fresh:
		n = freshChain(t)
	case n == nil:
		n = devChain(t)
	}
	ctx := context.Background()
	cat, err := DevCatalogue(ctx, n.Bootstrap())
	if err != nil {
		t.Fatal(err)
	}
	if opts.edit != nil {
		opts.edit(&cat)
	}
	backend := testdb.SQLite(t)
	if opts.backend != nil {
		backend = *opts.backend
	}
	st, err := store.Open(ctx, backend.URL, backend.Dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	clock := newFakeClock()
	var shared RequestCounter
	if opts.shared {
		shared = st
	}
	svc, err := New(Config{Catalogue: cat, Store: st, Clock: clock.now, Logger: quietLog, RateLimit: opts.rateLimit,
		PollInterval: time.Hour, SampleInterval: time.Hour, Keyring: testKeyring(t), WebhooksAllowPrivate: true, SharedLimits: shared})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	srv := httptest.NewServer(svc.Handler())
	t.Cleanup(srv.Close)
	e := &env{t: t, chain: n, store: st, svc: svc, srv: srv, clock: clock, cat: cat, chainID: n.ChainID()}
	if e.key10, err = svc.CreateAPIKey(ctx, "project-ten", 10); err != nil {
		t.Fatal(err)
	}
	if e.key20, err = svc.CreateAPIKey(ctx, "project-twenty", 20); err != nil {
		t.Fatal(err)
	}
	e.eth, err = ethclient.Dial(n.RPCURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.eth.Close)
	return e
}

// testClient bounds every API call of the tests, so that a stuck request fails instead of hanging.
var testClient = &http.Client{Timeout: time.Minute}

// rawBody is a request body sent as it is.
type rawBody string

// response is a decoded answer of the API.
type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) decode(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("decode %s: %v", r.body, err)
	}
}

func (e *env) call(key, method, path string, body any) response {
	e.t.Helper()
	var rd io.Reader
	if raw, ok := body.(rawBody); ok {
		rd = strings.NewReader(string(raw))
	} else if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			e.t.Fatal(err)
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, e.srv.URL+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("X-API-KEY", key)
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := testClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	return response{status: res.StatusCode, header: res.Header, body: data}
}

// mustCall fails the test unless the answer has the wanted status, and decodes it into v.
func (e *env) mustCall(key, method, path string, body any, want int, v any) response {
	e.t.Helper()
	r := e.call(key, method, path, body)
	if r.status != want {
		e.t.Fatalf("%s %s: status %d, want %d: %s", method, path, r.status, want, r.body)
	}
	if v != nil {
		r.decode(e.t, v)
	}
	return r
}

// yieldID finds the id of the catalogue yield on a contract (vault, pool or staking) for a token symbol.
func (e *env) yieldID(kind, contract string, symbol string) string {
	e.t.Helper()
	for _, y := range e.cat.Yields {
		if y.Kind != kind || !strings.EqualFold(y.Token.Symbol, symbol) {
			continue
		}
		c := y.Contracts
		if contract == "" || strings.EqualFold(c.Vault, contract) || strings.EqualFold(c.Pool, contract) || strings.EqualFold(c.Staking, contract) {
			return y.ID
		}
	}
	e.t.Fatalf("no %s yield for %s on %s", kind, symbol, contract)
	return ""
}

func (e *env) yieldCfg(id string) YieldConfig {
	e.t.Helper()
	for _, y := range e.cat.Yields {
		if y.ID == id {
			return y
		}
	}
	e.t.Fatalf("no yield %s", id)
	return YieldConfig{}
}

func (e *env) addr(name string) common.Address { return e.chain.Contracts()[name] }

// wallet is a key held by the test, funded by the faucet; it signs what the service builds.
type wallet struct {
	e    *env
	key  *ecdsa.PrivateKey
	addr common.Address
}

func (e *env) newWallet(eth string, tokens map[string]string) *wallet {
	e.t.Helper()
	key, err := crypto.GenerateKey()
	if err != nil {
		e.t.Fatal(err)
	}
	w := &wallet{e: e, key: key, addr: crypto.PubkeyToAddress(key.PublicKey)}
	// A stalled chain fails the test instead of hanging it.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := e.chain.Faucet().FundUnits(ctx, chain.FundRequest{Address: w.addr.Hex(), ETH: eth, Tokens: tokens}); err != nil {
		e.t.Fatalf("fund wallet: %v", err)
	}
	return w
}

// sign turns an unsignedTransaction of the API into a signed EIP-1559 transaction, exactly as handed out.
func (w *wallet) sign(unsigned string) *types.Transaction {
	w.e.t.Helper()
	var u unsignedTxDTO
	if err := json.Unmarshal([]byte(unsigned), &u); err != nil {
		w.e.t.Fatalf("unsignedTransaction %s: %v", unsigned, err)
	}
	if u.Type != 2 || u.ChainID != w.e.chainID.Int64() || !strings.EqualFold(u.From, w.addr.Hex()) {
		w.e.t.Fatalf("unsignedTransaction %s: wrong type, chain or sender", unsigned)
	}
	to := common.HexToAddress(u.To)
	tx := types.NewTx(&types.DynamicFeeTx{
		ChainID: w.e.chainID, Nonce: u.Nonce, GasTipCap: hexutil.MustDecodeBig(u.MaxPriorityFeePerGas),
		GasFeeCap: hexutil.MustDecodeBig(u.MaxFeePerGas), Gas: hexutil.MustDecodeUint64(u.GasLimit), To: &to,
		Value: hexutil.MustDecodeBig(u.Value), Data: hexutil.MustDecode(u.Data),
	})
	signed, err := types.SignTx(tx, types.LatestSignerForChainID(w.e.chainID), w.key)
	if err != nil {
		w.e.t.Fatal(err)
	}
	return signed
}

// send broadcasts a signed transaction and waits until it is mined.
func (w *wallet) send(tx *types.Transaction) *types.Receipt {
	w.e.t.Helper()
	if err := w.e.eth.SendTransaction(context.Background(), tx); err != nil {
		w.e.t.Fatalf("send %s: %v", tx.Hash(), err)
	}
	return w.e.waitMined(tx.Hash())
}

// waitMined waits for a transaction's receipt: it looks again at each new block the node announces (its receipts are
// written with it), and gives up after 20 seconds.
func (e *env) waitMined(hash common.Hash) *types.Receipt {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	heads := make(chan *types.Header, 16)
	sub, err := e.chain.Client().SubscribeNewHead(ctx, heads)
	if err != nil {
		e.t.Fatal(err)
	}
	defer sub.Unsubscribe()
	for {
		if rcpt, err := e.eth.TransactionReceipt(ctx, hash); err == nil {
			return rcpt
		}
		select {
		case <-heads:
		case err := <-sub.Err():
			e.t.Fatalf("waiting for transaction %s: %v", hash, err)
		case <-ctx.Done():
			e.t.Fatalf("transaction %s was not mined", hash)
		}
	}
}

// execute signs and sends an action's transactions in order, submits each hash and checks that the service sees
// each one CONFIRMED before the next is sent, and the action SUCCESS at the end.
func (w *wallet) execute(key string, a actionDTO) []*types.Receipt {
	w.e.t.Helper()
	var receipts []*types.Receipt
	for i, t := range a.Transactions {
		if t.StepIndex != i || t.Status != txCreated {
			w.e.t.Fatalf("transaction %d: stepIndex %d status %s", i, t.StepIndex, t.Status)
		}
		tx := w.sign(t.UnsignedTransaction)
		rcpt := w.send(tx)
		receipts = append(receipts, rcpt)
		if rcpt.Status != types.ReceiptStatusSuccessful {
			w.e.t.Fatalf("transaction %d (%s) reverted", i, t.Type)
		}
		var got transactionDTO
		w.e.mustCall(key, "PUT", "/v1/transactions/"+t.ID+"/submit-hash", map[string]string{"hash": tx.Hash().Hex()}, 200, &got)
		if got.Status != txBroadcasted || got.Hash == nil || *got.Hash != strings.ToLower(tx.Hash().Hex()) {
			w.e.t.Fatalf("after submit-hash: %+v", got)
		}
		if err := w.e.svc.PollReceipts(context.Background()); err != nil {
			w.e.t.Fatal(err)
		}
		w.e.mustCall(key, "GET", "/v1/transactions/"+t.ID, nil, 200, &got)
		if got.Status != txConfirmed {
			w.e.t.Fatalf("transaction %d (%s): status %s after its receipt, want CONFIRMED", i, t.Type, got.Status)
		}
	}
	var done actionDTO
	w.e.mustCall(key, "GET", "/v1/actions/"+a.ID, nil, 200, &done)
	if done.Status != actionSuccess || done.CompletedAt == nil {
		w.e.t.Fatalf("action %s: status %s, want SUCCESS", a.ID, done.Status)
	}
	return receipts
}

// vaultEvent finds an ERC-4626 Deposit or Withdraw event of vault in a receipt and returns its assets and shares:
// what the vault really did, for checks where a preview read earlier would be a block (and a fee accrual) off.
func (e *env) vaultEvent(rcpt *types.Receipt, vault common.Address, name string) (assets, shares *big.Int) {
	e.t.Helper()
	values := e.event(rcpt, vault, contracts.SimpleVault, name)
	return values[0].(*big.Int), values[1].(*big.Int)
}

// event finds the first event name of the contract at `at` in a receipt and returns its non-indexed values, decoded
// with the artifact's ABI: what the contract says it did.
func (e *env) event(rcpt *types.Receipt, at common.Address, artifact, name string) []any {
	e.t.Helper()
	ev := contracts.MustLoad(artifact).ABI.Events[name]
	for _, l := range rcpt.Logs {
		if l.Address != at || len(l.Topics) == 0 || l.Topics[0] != ev.ID {
			continue
		}
		values, err := ev.Inputs.NonIndexed().Unpack(l.Data)
		if err != nil {
			e.t.Fatal(err)
		}
		return values
	}
	e.t.Fatalf("no %s event of %s in %s", name, at, rcpt.TxHash)
	return nil
}

// gasPaid is what the receipts' transactions cost their sender in gas: gasUsed × effectiveGasPrice each.
func gasPaid(receipts ...*types.Receipt) *big.Int {
	sum := new(big.Int)
	for _, r := range receipts {
		sum.Add(sum, new(big.Int).Mul(new(big.Int).SetUint64(r.GasUsed), r.EffectiveGasPrice))
	}
	return sum
}

// tipsTo is what addr received as the producer of the receipts' blocks from their transactions: gasUsed × (effective
// gas price − base fee) each. The dev chain's blocks go to its dev account, which also receives the fees of the fee
// wrapper; a test that sends nothing else meanwhile knows every wei it received.
func (e *env) tipsTo(addr common.Address, receipts ...*types.Receipt) *big.Int {
	e.t.Helper()
	sum := new(big.Int)
	for _, r := range receipts {
		h, err := e.eth.HeaderByNumber(context.Background(), r.BlockNumber)
		if err != nil {
			e.t.Fatal(err)
		}
		if h.Coinbase != addr {
			continue
		}
		tip := new(big.Int).Sub(r.EffectiveGasPrice, h.BaseFee)
		sum.Add(sum, tip.Mul(tip, new(big.Int).SetUint64(r.GasUsed)))
	}
	return sum
}

// executeForEther executes an action and returns its receipts and the ether the wallet received meanwhile net of the
// gas it paid: what the contracts paid it, to the wei.
func (w *wallet) executeForEther(key string, a actionDTO) ([]*types.Receipt, *big.Int) {
	w.e.t.Helper()
	before := w.e.ethBalance(w.addr)
	receipts := w.execute(key, a)
	got := new(big.Int).Sub(w.e.ethBalance(w.addr), before)
	return receipts, got.Add(got, gasPaid(receipts...))
}

// act creates an action and returns it.
func (w *wallet) act(key, intent, yieldID string, args map[string]any) actionDTO {
	w.e.t.Helper()
	w.e.clock.advance(time.Second)
	var a actionDTO
	w.e.mustCall(key, "POST", "/v1/actions/"+intent, map[string]any{"yieldId": yieldID, "address": w.addr.Hex(), "arguments": args}, 201, &a)
	return a
}

// tokenBalance reads an ERC-20 balance.
func (e *env) tokenBalance(token, holder common.Address) *big.Int {
	e.t.Helper()
	return e.read(token, contracts.TestToken, "balanceOf", holder)
}

func (e *env) ethBalance(holder common.Address) *big.Int {
	e.t.Helper()
	v, err := e.eth.BalanceAt(context.Background(), holder, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	return v
}

// read calls a view function returning one uint256.
func (e *env) read(at common.Address, artifact, method string, args ...any) *big.Int {
	e.t.Helper()
	out, err := contracts.MustLoad(artifact).Call(context.Background(), e.eth, at, method, args...)
	if err != nil {
		e.t.Fatalf("%s.%s: %v", artifact, method, err)
	}
	return out[0].(*big.Int)
}

// balances asks the service for an address's balances in a yield, by type.
func (e *env) balances(key, yieldID string, holder common.Address) map[string]balanceDTO {
	e.t.Helper()
	var out yieldBalancesDTO
	e.mustCall(key, "POST", "/v1/yields/"+yieldID+"/balances", map[string]string{"address": holder.Hex()}, 200, &out)
	m := map[string]balanceDTO{}
	for _, b := range out.Balances {
		m[b.Type] = b
	}
	return m
}

// step pays simulated yield for d of chain time.
func (e *env) step(d time.Duration) {
	e.t.Helper()
	if err := e.chain.AdvanceTime(d); err != nil {
		e.t.Fatal(err)
	}
	if _, err := e.chain.Simulator().Step(context.Background()); err != nil {
		e.t.Fatal(err)
	}
}

func baseUnits(s string, decimals uint8) *big.Int {
	v, err := units.Parse(s, decimals)
	if err != nil {
		panic(err)
	}
	return v
}

func selector(data string) string {
	if len(data) < 10 {
		return data
	}
	return data[:10]
}

func unsigned(t testing.TB, tx transactionDTO) unsignedTxDTO {
	t.Helper()
	var u unsignedTxDTO
	if err := json.Unmarshal([]byte(tx.UnsignedTransaction), &u); err != nil {
		t.Fatal(err)
	}
	return u
}
