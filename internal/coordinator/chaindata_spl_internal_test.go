package coordinator

import (
	"context"
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/internal/send"
	"github.com/sigil/sigil/internal/solanarpc"
)

// SPL balances are read from the owner's token accounts as the Solana RPC documents them (testdata/solana): a listed
// mint's amount is shown with the configured decimals, its CAIP-19 id the mint's and its token program named; a listed
// mint the owner holds none of is not shown; the call asks for the SPL Token program's accounts, parsed, at confirmed
// commitment.
func TestSolanaSPLBalancesFromTheDocumentedResponse(t *testing.T) {
	t.Parallel()
	documented, err := os.ReadFile("testdata/solana/getTokenAccountsByOwner.json")
	if err != nil {
		t.Fatal(err)
	}
	const owner, mint = "A1TMhSGzQxMr1TboBKtgixKz1sS6REASMxPo1qsyTSJd", "2cHr7QS3xfuSV8wdxo3ztuF4xbiarF6Nrgx3qpx3HzXR"
	var asked []any
	node := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var call struct {
			Method string `json:"method"`
			Params []any  `json:"params"`
		}
		if err := json.Unmarshal(body, &call); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		switch call.Method {
		case "getBalance":
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","result":{"context":{"slot":341197933},"value":2039280},"id":1}`)
		case "getTokenAccountsByOwner":
			asked = call.Params
			_, _ = w.Write(documented)
		default:
			http.Error(w, "unexpected method "+call.Method, http.StatusBadRequest)
		}
	}))
	defer node.Close()

	usdc := send.Token{Symbol: "TEST", Name: "Test token", Decimals: 6, Address: mint}
	other := send.Token{Symbol: "OTHER", Name: "Another mint", Decimals: 9, Address: "So11111111111111111111111111111111111111112"}
	n := &chainNetwork{Network: Network{CAIP2: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1"}, solana: true, sol: solanarpc.New(node.URL)}
	assets := []chainAsset{{Token: solAsset, CAIP19: n.caip19(solAsset)}, {Token: usdc, CAIP19: n.caip19(usdc)}, {Token: other, CAIP19: n.caip19(other)}}

	amounts, err := n.solanaBalances(context.Background(), owner, assets)
	if err != nil {
		t.Fatal(err)
	}
	if amounts[0].Cmp(big.NewInt(2039280)) != 0 || amounts[1].String() != "420000000000000" || amounts[2] != nil {
		t.Fatalf("amounts %v", amounts)
	}
	raw, _ := json.Marshal(asked)
	if string(raw) != `["`+owner+`",{"programId":"TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"},{"commitment":"confirmed","encoding":"jsonParsed"}]` {
		t.Errorf("getTokenAccountsByOwner was asked %s", raw)
	}

	got := n.renderBalances(assets, amounts)
	want := []api.AssetBalance{
		{CAIP19: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1/slip44:501", Symbol: "SOL", Name: "Solana", Balance: "2039280", Decimals: 9,
			Display: &api.AssetBalanceDisplay{Crypto: "0.00203928"}},
		{CAIP19: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1/token:" + mint, Symbol: "TEST", Name: "Test token", Balance: "420000000000000", Decimals: 6,
			Display: &api.AssetBalanceDisplay{Crypto: "420000000"}, TokenProgram: "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"},
	}
	gotJSON, _ := json.Marshal(got)
	wantJSON, _ := json.Marshal(want)
	if string(gotJSON) != string(wantJSON) {
		t.Errorf("balances\n got %s\nwant %s", gotJSON, wantJSON)
	}
}
