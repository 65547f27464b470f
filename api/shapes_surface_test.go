package api

import (
	"os"
	"reflect"
	"slices"
	"testing"
)

// The Secrets API's, the IP allowlists' and chain data's requests, intents and results have exactly the fields of
// @turnkey/http's, each required or optional as there, but for the answers' fields the reference marks optional
// that Sigil always fills (checked by name only).
func TestSurfaceShapesMatchTurnkeyHTTP(t *testing.T) {
	raw, err := os.ReadFile(typesFile)
	if err != nil {
		if os.Getenv("SIGIL_REQUIRE_SDKS") != "" {
			t.Fatal(err)
		}
		t.Skipf("@turnkey/http is not installed (run npm ci in tests/compat): %v", err)
	}
	src := string(raw)
	exact := map[string]any{
		"v1InitImportSecretsIntent": InitImportSecretsIntent{}, "v1ImportSecretsIntent": ImportSecretsIntent{},
		"v1ImportSecretParams": ImportSecretParams{}, "v1ExportSecretsIntent": ExportSecretsIntent{}, "v1ExportSecretParams": ExportSecretParams{},
		"v1DeleteSecretsIntent": DeleteSecretsIntent{}, "v1ListSecretsRequest": ListSecretsRequest{}, "v1KeyValue": KeyValue{},
		"v1InitImportSecretsResult": InitImportSecretsResult{}, "v1ImportSecretsResult": ImportSecretsResult{},
		"v1ExportSecretsResult": ExportSecretsResult{}, "v1DeleteSecretsResult": DeleteSecretsResult{},
		"v1ListSecretsResponse": ListSecretsResponse{}, "v1SecretMetadata": SecretMetadata{},
		"v1SetIpAllowlistIntent": SetIPAllowlistIntent{}, "v1IpAllowlistIntentRule": IPAllowlistIntentRule{},
		"v1RemoveIpAllowlistIntent": RemoveIPAllowlistIntent{}, "v1GetIpAllowlistRequest": GetIPAllowlistRequest{},
		"v1IpAllowlist": IPAllowlist{}, "v1IpAllowlistRule": IPAllowlistRule{}, "v1GetIpAllowlistResponse": GetIPAllowlistResponse{},
		"v1GetWalletAddressBalancesRequest": GetWalletAddressBalancesRequest{}, "v1ListSupportedAssetsRequest": ListSupportedAssetsRequest{},
		"v1ListEthTransactionHistoryRequest": ListTransactionHistoryRequest{}, "v1ListSolTransactionHistoryRequest": ListTransactionHistoryRequest{},
		"v1ListEthTransactionHistoryResponse": ListEthTransactionHistoryResponse{}, "v1ListSolTransactionHistoryResponse": ListSolTransactionHistoryResponse{},
		"v1EthTransactionHistoryItem": EthTransactionHistoryItem{}, "v1SolTransactionHistoryItem": SolTransactionHistoryItem{},
		"v1SolTransactionHistorySigner": SolTransactionHistorySigner{}, "v1TransactionHistoryBlock": TransactionHistoryBlock{},
		"v1TransactionHistoryFee": TransactionHistoryFee{}, "v1TransactionHistoryTransfer": TransactionHistoryTransfer{},
		"v1TransactionHistoryAsset": TransactionHistoryAsset{}, "v1TransactionHistoryDisplay": TransactionHistoryDisplay{},
		"v1TransactionHistoryTurnkey": TransactionHistoryTurnkey{},
	}
	byName := map[string]any{ // Sigil fills these answers' optional fields always, or leaves Earn's out
		"v1GetWalletAddressBalancesResponse": GetWalletAddressBalancesResponse{}, "v1AssetBalance": AssetBalance{},
		"v1AssetBalanceDisplay": AssetBalanceDisplay{}, "v1ListSupportedAssetsResponse": ListSupportedAssetsResponse{},
	}
	for definition, v := range exact {
		want, got := tsFields(t, src, definition), goFields(v)
		if !reflect.DeepEqual(want, got) {
			t.Errorf("%s: @turnkey/http has %v, %T has %v", definition, want, v, got)
		}
	}
	for definition, v := range byName {
		want, got := tsFields(t, src, definition), goFields(v)
		if !slices.Equal(sortedKeys(want), sortedKeys(got)) {
			t.Errorf("%s: @turnkey/http has the fields %v, %T has %v", definition, sortedKeys(want), v, sortedKeys(got))
		}
	}
	meta, assetMeta := tsFields(t, src, "v1AssetMetadata"), goFields(AssetMetadata{})
	for name := range assetMeta {
		if _, ok := meta[name]; !ok {
			t.Errorf("AssetMetadata.%s is not a field of @turnkey/http's v1AssetMetadata", name)
		}
	}
}

func sortedKeys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
