package yield

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/sigil/sigil/internal/chain"
	"github.com/sigil/sigil/internal/contracts"
)

// GET /v1/markets over HTTP on loopback, on a dev chain with 50 markets (its 5, and 45 more Morpho Blue markets lending
// USDC against WETH, each with an oracle of its own, created as anyone may create one), SQLite as the store. Each round
// asks for the first 5 markets and then for all 50, so both are measured side by side under the same load:
//
//	go test ./internal/yield -run '^$' -bench BenchmarkMarkets -benchtime 200x
func BenchmarkMarkets(b *testing.B) {
	n := freshChain(b)
	extra := createMorphoMarkets(b, n, 45)
	e := newEnv(b, envOptions{chain: n, rateLimit: 1 << 30, edit: func(c *Catalogue) { c.Markets = append(c.Markets, extra...) }})
	if len(e.cat.Markets) != 50 {
		b.Fatalf("%d markets", len(e.cat.Markets))
	}
	client := &http.Client{}
	get := func(limit string) time.Duration {
		req, _ := http.NewRequest("GET", e.srv.URL+"/v1/markets?scope=all&limit="+limit, nil)
		req.Header.Set("X-API-KEY", e.key10)
		t0 := time.Now()
		res, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		var page struct{ Items []marketDTO }
		err = json.NewDecoder(res.Body).Decode(&page)
		res.Body.Close()
		d := time.Since(t0)
		if err != nil {
			b.Fatal(err)
		}
		if res.StatusCode != 200 || (limit == "50" && len(page.Items) != 50) {
			b.Fatalf("status %d, %d markets", res.StatusCode, len(page.Items))
		}
		return d
	}
	get("50") // connections and caches warm
	calls0, trips0 := e.svc.RPCStats("sigil-dev")
	var five, fifty []time.Duration
	b.ResetTimer()
	for range b.N {
		five = append(five, get("5"))
		fifty = append(fifty, get("50"))
	}
	b.StopTimer()
	calls, trips := e.svc.RPCStats("sigil-dev")
	p50 := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2].Microseconds()) / 1000
	}
	b.ReportMetric(p50(fifty), "p50-50-markets-ms")
	b.ReportMetric(p50(five), "p50-5-markets-ms")
	b.ReportMetric(p50(fifty)/p50(five), "ratio-50/5")
	b.ReportMetric(float64(calls-calls0)/float64(2*b.N), "rpc-calls/req")
	b.ReportMetric(float64(trips-trips0)/float64(2*b.N), "round-trips/req")
}

// createMorphoMarkets creates count Morpho Blue markets on the chain from a wallet of its own (USDC lent against WETH
// at the enabled 86% LLTV, each with its own oracle mock at 3,000 USDC per WETH) and returns them as catalogue markets.
func createMorphoMarkets(t testing.TB, n *chain.Node, count int) []MarketConfig {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	key, _ := crypto.GenerateKey()
	from := crypto.PubkeyToAddress(key.PublicKey)
	if _, err := n.Faucet().FundUnits(ctx, chain.FundRequest{Address: from.Hex(), ETH: "10"}); err != nil {
		t.Fatal(err)
	}
	client, err := ethclient.Dial(n.RPCURL())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	nonce, err := client.PendingNonceAt(ctx, from)
	if err != nil {
		t.Fatal(err)
	}
	send := func(to *common.Address, data []byte) *types.Receipt {
		tx, err := types.SignNewTx(key, types.LatestSignerForChainID(n.ChainID()), &types.DynamicFeeTx{ChainID: n.ChainID(), Nonce: nonce,
			GasTipCap: big.NewInt(1e9), GasFeeCap: big.NewInt(100e9), Gas: 3_000_000, To: to, Data: data})
		if err != nil {
			t.Fatal(err)
		}
		nonce++
		if err := client.SendTransaction(ctx, tx); err != nil {
			t.Fatal(err)
		}
		for {
			if r, err := client.TransactionReceipt(ctx, tx.Hash()); err == nil {
				if r.Status != types.ReceiptStatusSuccessful {
					t.Fatalf("transaction %s reverted", tx.Hash())
				}
				return r
			}
			select {
			case <-ctx.Done():
				t.Fatal(ctx.Err())
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	a := n.Contracts()
	morpho := a[contracts.MorphoName]
	cat, err := DevCatalogue(ctx, n.Bootstrap())
	if err != nil {
		t.Fatal(err)
	}
	var template MarketConfig
	for _, m := range cat.Markets {
		if m.Integration == IntegrationMorpho && m.LoanToken.Symbol == "USDC" {
			template = m
		}
	}
	var out []MarketConfig
	oracleArtifact := contracts.MustLoad(contracts.MorphoOracleMock)
	for i := range count {
		deploy, _ := oracleArtifact.DeployData()
		oracle := send(nil, deploy).ContractAddress
		setPrice, _ := oracleArtifact.Pack("setPrice", contracts.MorphoOraclePrice(big.NewInt(3000), big.NewInt(1), 18, 6))
		send(&oracle, setPrice)
		params := contracts.MorphoUSDCMarket(a)
		params.Oracle = oracle
		create, _ := contracts.MustLoad(contracts.MorphoBlue).Pack("createMarket", params)
		send(&morpho, create)
		m := template
		m.ID, m.Name = "", template.Name+" #"+big.NewInt(int64(i+2)).String()
		m.Contracts.Oracle = oracle.Hex()
		out = append(out, m)
	}
	return out
}

// POST /v1/actions, a borrow built against a position (read from the chain, refused or allowed by its health factor,
// simulated, stored with its transaction), over HTTP on loopback, SQLite as the store: on Aave v3 (an account over the
// pool: USDT supplied, USDC borrowed) and on Morpho Blue (vault shares supplied, USDT borrowed), one of each per round so
// the two are measured side by side. Nothing is signed: each round stores one more action of each.
//
//	go test ./internal/yield -run '^$' -bench BenchmarkBorrowAction -benchtime 200x
func BenchmarkBorrowAction(b *testing.B) {
	e := newEnv(b, envOptions{fresh: true, rateLimit: 1 << 30})
	aave, morpho := e.marketID(IntegrationAave, "USDC", ""), e.marketID(IntegrationMorpho, "USDT", "svUSDC")
	w := e.newWallet("5", map[string]string{"USDT": "1000", "USDC": "1000"})
	supply, _ := w.borrowAction(e.key10, "supply", map[string]any{"marketId": aave, "amount": "1000",
		"collateralTokenAddress": e.addr(contracts.USDT).Hex()}, 201)
	w.execute(e.key10, supply)
	vault := e.yieldID(KindERC4626, e.addr(contracts.VaultUSDC).Hex(), "USDC")
	w.execute(e.key10, w.act(e.key10, "enter", vault, map[string]any{"amount": "1000"}))
	supply, _ = w.borrowAction(e.key10, "supply", map[string]any{"marketId": morpho, "amount": "1000"}, 201)
	w.execute(e.key10, supply)
	client := &http.Client{}
	post := func(market string) time.Duration {
		body, _ := json.Marshal(map[string]any{"action": "borrow", "address": w.addr.Hex(), "args": map[string]any{"marketId": market, "amount": "100"}})
		req, _ := http.NewRequest("POST", e.srv.URL+"/v1/actions", bytes.NewReader(body))
		req.Header.Set("X-API-KEY", e.key10)
		req.Header.Set("Content-Type", "application/json")
		t0 := time.Now()
		res, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		out, _ := io.ReadAll(res.Body)
		res.Body.Close()
		d := time.Since(t0)
		if res.StatusCode != 201 {
			b.Fatalf("status %d: %s", res.StatusCode, out)
		}
		return d
	}
	post(aave) // connections and caches warm
	post(morpho)
	calls0, trips0 := e.svc.RPCStats("sigil-dev")
	var onAave, onMorpho []time.Duration
	b.ResetTimer()
	for range b.N {
		onAave = append(onAave, post(aave))
		onMorpho = append(onMorpho, post(morpho))
	}
	b.StopTimer()
	calls, trips := e.svc.RPCStats("sigil-dev")
	p50 := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2].Microseconds()) / 1000
	}
	b.ReportMetric(p50(onAave), "p50-aave-ms")
	b.ReportMetric(p50(onMorpho), "p50-morpho-ms")
	b.ReportMetric(p50(onMorpho)/p50(onAave), "ratio-morpho/aave")
	b.ReportMetric(float64(calls-calls0)/float64(2*b.N), "rpc-calls/req")
	b.ReportMetric(float64(trips-trips0)/float64(2*b.N), "round-trips/req")
}
