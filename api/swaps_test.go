package api

import (
	"os"
	"slices"
	"testing"
)

// The swap types have every field of @turnkey/http's, each required or optional as there, and beyond them only the
// fields their comments name as Sigil's own.
func TestSwapShapesMatchTurnkeyHTTP(t *testing.T) {
	raw, err := os.ReadFile(typesFile)
	if err != nil {
		if os.Getenv("SIGIL_REQUIRE_SDKS") != "" {
			t.Fatal(err)
		}
		t.Skipf("@turnkey/http is not installed (run npm ci in tests/compat): %v", err)
	}
	src := string(raw)
	for _, c := range []struct {
		definition string
		v          any
		beyond     []string
	}{
		{"v1CreateSwapQuoteIntent", CreateSwapQuoteIntent{}, nil},
		{"v1CreateSwapQuoteIntentV2", CreateSwapQuoteIntentV2{}, nil},
		{"v1CreateSwapQuoteResult", CreateSwapQuoteResult{}, nil},
		{"v1SwapQuote", SwapQuote{}, []string{"swapKind", "inputToken", "outputToken", "inputAmount", "destinationAddress", "priceImpactBps", "route", "fees"}},
		{"v1ExecuteSwapIntentV2", ExecuteSwapIntentV2{}, nil},
		{"v1ExecuteSwapIntentV3", ExecuteSwapIntentV3{}, nil},
		{"v1ExecuteSwapResult", ExecuteSwapResult{}, []string{"sendTransactionStatusId"}},
		{"v1GetSwapStatusRequest", GetSwapStatusRequest{}, nil},
		{"v1GetSwapStatusResponse", GetSwapStatusResponse{}, []string{"quoteId", "sendTransactionStatusId"}},
		{"v1SwapRefund", SwapRefund{}, nil},
		{"v1SwapError", SwapError{}, nil},
		{"v1UpsertSwapConfigIntent", UpsertSwapConfigIntent{}, nil},
		{"v1UpsertSwapConfigResult", UpsertSwapConfigResult{}, nil},
		{"v1ClaimSwapFeesResult", ClaimSwapFeesResult{}, []string{"caip2", "sendTransactionStatusId", "fees"}},
	} {
		want, got := tsFields(t, src, c.definition), goFields(c.v)
		for name, optional := range want {
			if g, ok := got[name]; !ok || g != optional {
				t.Errorf("%s.%s: @turnkey/http has it (optional %v), %T has it %v (optional %v)", c.definition, name, optional, c.v, ok, g)
			}
		}
		for name := range got {
			if _, ok := want[name]; !ok && !slices.Contains(c.beyond, name) {
				t.Errorf("%s: %T has %s, which @turnkey/http has not and is not named as Sigil's own", c.definition, c.v, name)
			}
		}
	}
}
