package chain

import (
	"encoding/json"
	"errors"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/sigil/sigil/internal/contracts"
)

func TestFaucetHTTP(t *testing.T) {
	n := sharedNode(t)
	client := dialHTTP(t, n)
	recipient := common.HexToAddress("0x1234567890AbcdEF1234567890aBcdef12345678")
	wrongChecksum := strings.Replace(recipient.Hex(), "Ab", "aB", 1)
	for _, tc := range []struct {
		name     string
		method   string
		body     string
		status   int
		code     string   // error code, for a refusal
		txs      []string // keys of the answer's transactions, for a success
		ethWei   string   // recipient's ETH balance increase
		usdcBase string   // recipient's USDC balance increase
	}{
		{name: "eth and tokens", body: `{"address":"` + recipient.Hex() + `","eth":"1.5","tokens":{"USDC":"1000.000001","dai":"2"}}`,
			status: 200, txs: []string{"DAI", "ETH", "USDC"}, ethWei: "1500000000000000000", usdcBase: "1000000001"},
		{name: "lower-case address, tokens only", body: `{"address":"` + strings.ToLower(recipient.Hex()) + `","tokens":{"USDT":"5"}}`,
			status: 200, txs: []string{"USDT"}, ethWei: "0", usdcBase: "0"},
		{name: "eth above cap", body: `{"address":"` + recipient.Hex() + `","eth":"100.000000000000000001"}`, status: 400, code: "above_cap"},
		{name: "token above cap", body: `{"address":"` + recipient.Hex() + `","tokens":{"USDC":"1000001"}}`, status: 400, code: "above_cap"},
		{name: "unknown token", body: `{"address":"` + recipient.Hex() + `","tokens":{"WBTC":"1"}}`, status: 400, code: "unknown_token"},
		{name: "too many decimals", body: `{"address":"` + recipient.Hex() + `","tokens":{"USDC":"0.0000001"}}`, status: 400, code: "invalid_amount"},
		{name: "negative", body: `{"address":"` + recipient.Hex() + `","eth":"-1"}`, status: 400, code: "invalid_amount"},
		{name: "bad address", body: `{"address":"0x1234","eth":"1"}`, status: 400, code: "invalid_address"},
		{name: "address without 0x", body: `{"address":"1234567890abcdef1234567890abcdef12345678","eth":"1"}`, status: 400, code: "invalid_address"},
		{name: "zero address", body: `{"address":"0x0000000000000000000000000000000000000000","eth":"1"}`, status: 400, code: "invalid_address"},
		{name: "nothing", body: `{"address":"` + recipient.Hex() + `","eth":"0"}`, status: 400, code: "nothing_requested"},
		{name: "unknown field", body: `{"address":"` + recipient.Hex() + `","eth":"1","wei":"5"}`, status: 400, code: "invalid_request"},
		{name: "wrong checksum", body: `{"address":"` + wrongChecksum + `","eth":"1"}`, status: 400, code: "invalid_address"},
		{name: "oversized", body: `{"address":"` + recipient.Hex() + `","eth":"1","tokens":{"` + strings.Repeat("X", maxFaucetBody) + `":"1"}}`,
			status: 413, code: "too_large"},
		{name: "number instead of string", body: `{"address":"` + recipient.Hex() + `","eth":1}`, status: 400, code: "invalid_request"},
		{name: "two objects", body: `{"address":"` + recipient.Hex() + `","eth":"1"}{}`, status: 400, code: "invalid_request"},
		{name: "same token twice", body: `{"address":"` + recipient.Hex() + `","tokens":{"USDC":"1","usdc":"2"}}`, status: 400, code: "invalid_request"},
		{name: "GET", method: http.MethodGet, status: 405, code: "method_not_allowed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ethBefore, err := client.BalanceAt(t.Context(), recipient, nil)
			if err != nil {
				t.Fatal(err)
			}
			usdcBefore := read(t, n, contracts.USDC, "balanceOf", recipient)
			method := tc.method
			if method == "" {
				method = http.MethodPost
			}
			req, err := http.NewRequestWithContext(t.Context(), method, n.FaucetURL(), strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			raw, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.status, raw)
			}
			if tc.status != 200 {
				var body errorBody
				if err := json.Unmarshal(raw, &body); err != nil || body.Code != tc.code || body.Message == "" {
					t.Fatalf("error body %s, want code %q and a message", raw, tc.code)
				}
				usdcAfter := read(t, n, contracts.USDC, "balanceOf", recipient)
				wantEq(t, "USDC after a refusal", usdcAfter, usdcBefore)
				return
			}
			var body FundResponse
			if err := json.Unmarshal(raw, &body); err != nil {
				t.Fatal(err)
			}
			if body.Address != recipient.Hex() || len(body.Transactions) != len(tc.txs) {
				t.Fatalf("answer %s, want transactions %v", raw, tc.txs)
			}
			for _, key := range tc.txs {
				receipt, err := client.TransactionReceipt(t.Context(), common.HexToHash(body.Transactions[key]))
				if err != nil || receipt.Status != 1 {
					t.Fatalf("%s transaction %s: %v", key, body.Transactions[key], err)
				}
			}
			ethAfter, _ := client.BalanceAt(t.Context(), recipient, nil)
			wantEq(t, "ETH received", sub(ethAfter, ethBefore), bigString(tc.ethWei))
			wantEq(t, "USDC received", sub(read(t, n, contracts.USDC, "balanceOf", recipient), usdcBefore), bigString(tc.usdcBase))
		})
	}
}

// The faucet's refusals over HTTP, before anything reaches the chain: each is {code, message} with its status.
func TestFaucetHandlerRefusals(t *testing.T) {
	t.Parallel()
	ready := faucetHandler(quietLog, func() *Faucet { return &Faucet{} })
	deploying := faucetHandler(quietLog, func() *Faucet { return nil })
	good := "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"
	for _, tc := range []struct {
		name, method, body string
		handler            http.Handler
		status             int
		code, message      string
	}{
		{"unknown field", "POST", `{"address":"` + good + `","eth":"1","wei":"5"}`, ready, 400, "invalid_request", "wei: unknown field"},
		{"wrong type", "POST", `{"address":"` + good + `","eth":1}`, ready, 400, "invalid_request", "eth: expected string, got number"},
		{"duplicate key", "POST", `{"address":"` + good + `","eth":"1","eth":"2"}`, ready, 400, "invalid_request", `duplicate key "eth"`},
		{"no address", "POST", `{"eth":"1"}`, ready, 400, "invalid_request", "address: required field is missing"},
		{"not JSON", "POST", `address=0x`, ready, 400, "invalid_request", "request body: malformed JSON"},
		{"wrong checksum", "POST", `{"address":"0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD","eth":"1"}`, ready, 400, "invalid_address",
			"invalid EIP-55 checksum (expected " + good + ")"},
		{"oversized", "POST", `{"address":"` + good + `","eth":"` + strings.Repeat("1", maxFaucetBody) + `"}`, ready, 413, "too_large",
			"larger than the limit of 16384 bytes"},
		{"GET", "GET", "", ready, 405, "method_not_allowed", "use POST"},
		{"still deploying", "POST", `{"address":"` + good + `","eth":"1"}`, deploying, 503, "not_ready", "retry in a moment"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := httptest.NewRecorder()
			tc.handler.ServeHTTP(rec, httptest.NewRequest(tc.method, FaucetPath, strings.NewReader(tc.body)))
			var body errorBody
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || rec.Code != tc.status || body.Code != tc.code ||
				!strings.Contains(body.Message, tc.message) || rec.Header().Get("Cache-Control") != "no-store" {
				t.Fatalf("%d %s, want %d %s with %q", rec.Code, rec.Body, tc.status, tc.code, tc.message)
			}
		})
	}
}

func TestFaucetFundCaps(t *testing.T) {
	n := sharedNode(t)
	faucet, err := NewFaucet(n.Client(), n.dev, n.Contracts(), FaucetConfig{MaxETH: "0.5", MaxTokens: map[string]string{"usdc": "10"}})
	if err != nil {
		t.Fatal(err)
	}
	to := common.HexToAddress("0x00000000000000000000000000000000000FaCe7")
	for _, tc := range []struct {
		name   string
		eth    *big.Int
		tokens map[string]*big.Int
		code   string
	}{
		{"eth at cap", mustUnits(t, "0.5", 18), nil, ""},
		{"eth above cap", add(mustUnits(t, "0.5", 18), big.NewInt(1)), nil, "above_cap"},
		{"configured token cap", nil, map[string]*big.Int{"USDC": tokens(11, 6)}, "above_cap"},
		{"default token cap", nil, map[string]*big.Int{"DAI": tokens(1_000_001, 18)}, "above_cap"},
		{"at both caps", mustUnits(t, "0.5", 18), map[string]*big.Int{"USDC": tokens(10, 6), "DAI": tokens(1_000_000, 18)}, ""},
		{"negative", big.NewInt(-1), nil, "invalid_amount"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hashes, err := faucet.Fund(t.Context(), to, tc.eth, tc.tokens)
			if tc.code == "" {
				if err != nil || len(hashes) == 0 {
					t.Fatalf("Fund: %v, %v", hashes, err)
				}
				return
			}
			var refused *FaucetError
			if !errors.As(err, &refused) || refused.Code != tc.code {
				t.Fatalf("Fund error %v, want code %s", err, tc.code)
			}
		})
	}
	if _, err := NewFaucet(n.Client(), n.dev, n.Contracts(), FaucetConfig{MaxTokens: map[string]string{"WBTC": "1"}}); err == nil {
		t.Fatal("a cap for an unknown token was accepted")
	}
}

func bigString(s string) *big.Int {
	v, _ := new(big.Int).SetString(s, 10)
	return v
}

func TestRequestFunds(t *testing.T) {
	n := sharedNode(t)
	to := common.HexToAddress("0x00000000000000000000000000000000C0FFee00")
	resp, err := RequestFunds(t.Context(), nil, n.FaucetURL(), FundRequest{Address: to.Hex(), Tokens: map[string]string{"INCENTIVE": "3"}})
	if err != nil || resp.Transactions["INCENTIVE"] == "" {
		t.Fatalf("RequestFunds = %+v, %v", resp, err)
	}
	wantEq(t, "INCENTIVE received", read(t, n, contracts.Incentive, "balanceOf", to), tokens(3, 18))

	_, err = RequestFunds(t.Context(), nil, n.FaucetURL(), FundRequest{Address: to.Hex(), ETH: "1000"})
	var refused *FaucetError
	if !errors.As(err, &refused) || refused.Code != "above_cap" {
		t.Fatalf("RequestFunds above the cap: %v", err)
	}
}

// A wallet the faucet funded can spend as soon as Fund returns: the node's transaction pool has taken in the funding
// block by then, not only its receipts.
func TestFundedWalletSpendsAtOnce(t *testing.T) {
	n := sharedNode(t)
	to := common.HexToAddress("0x00000000000000000000000000000000000Ba5e0")
	for i := range 20 {
		key, err := crypto.GenerateKey()
		if err != nil {
			t.Fatal(err)
		}
		wallet := NewAccount(n.Client(), key, n.ChainID())
		if _, err := n.Faucet().Fund(t.Context(), wallet.Address(), big.NewInt(1e18), nil); err != nil {
			t.Fatal(err)
		}
		if _, err := wallet.Send(t.Context(), &to, big.NewInt(5e17), nil); err != nil {
			t.Fatalf("wallet %d spends right after funding: %v", i, err)
		}
	}
}
