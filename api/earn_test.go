package api

import (
	"maps"
	"os"
	"slices"
	"testing"
)

// Earn's types have exactly the fields of @turnkey/http's: intents and requests each field required or optional as
// there; results and responses the same names (the reference marks every response field optional; Sigil always sends
// the ones it always knows).
func TestEarnShapesMatchTurnkeyHTTP(t *testing.T) {
	raw, err := os.ReadFile(typesFile)
	if err != nil {
		if os.Getenv("SIGIL_REQUIRE_SDKS") != "" {
			t.Fatal(err)
		}
		t.Skipf("@turnkey/http is not installed (run npm ci in tests/compat): %v", err)
	}
	src := string(raw)
	exact := map[string]any{
		"v1EarnDeployWrapperIntent": EarnDeployWrapperIntent{}, "v1EarnSetWrapperStateIntent": EarnSetWrapperStateIntent{},
		"v1EarnDepositIntent": EarnDepositIntent{}, "v1EarnWithdrawIntent": EarnWithdrawIntent{},
		"v1EarnClaimRewardsIntent": EarnClaimRewardsIntent{}, "v1ClaimEarnFeesIntent": ClaimEarnFeesIntent{},
		"v1EarnDeployWrapperResult": EarnDeployWrapperResult{}, "v1EarnSetWrapperStateResult": EarnSetWrapperStateResult{},
		"v1EarnDepositResult": EarnDepositResult{}, "v1EarnWithdrawResult": EarnWithdrawResult{},
		"v1EarnClaimRewardsResult": EarnClaimRewardsResult{}, "v1ClaimEarnFeesResult": ClaimEarnFeesResult{},
		"v1GetEarnDeployStatusRequest": GetEarnDeployStatusRequest{}, "v1GetEarnDepositStatusRequest": GetEarnDepositStatusRequest{},
		"v1GetEarnWithdrawStatusRequest": GetEarnWithdrawStatusRequest{}, "v1GetEarnClaimRewardsStatusRequest": GetEarnClaimRewardsStatusRequest{},
		"v1GetClaimEarnFeesStatusRequest": GetClaimEarnFeesStatusRequest{},
		"v1GetEarnDeployStatusResponse":   GetEarnDeployStatusResponse{}, "v1GetEarnDepositStatusResponse": GetEarnDepositStatusResponse{},
		"v1GetEarnWithdrawStatusResponse": GetEarnWithdrawStatusResponse{}, "v1GetEarnClaimRewardsStatusResponse": GetEarnClaimRewardsStatusResponse{},
		"v1GetClaimEarnFeesStatusResponse": GetClaimEarnFeesStatusResponse{},
		"v1ListEarnVaultsRequest":          ListEarnVaultsRequest{}, "v1ListEarnEnabledVaultsRequest": ListEarnEnabledVaultsRequest{},
		"v1ListEarnPositionsRequest": ListEarnPositionsRequest{}, "v1ListEarnRewardsRequest": ListEarnRewardsRequest{},
		"v1EarnValueDisplay": EarnValueDisplay{}, "v1EarnPositionDisplay": EarnPositionDisplay{}, "v1EarnRewardDisplay": EarnRewardDisplay{},
	}
	named := map[string]any{
		"v1ListEarnVaultsResponse": ListEarnVaultsResponse{}, "v1EarnVault": EarnVault{},
		"v1ListEarnEnabledVaultsResponse": ListEarnEnabledVaultsResponse{}, "v1EarnEnabledVault": EarnEnabledVault{},
		"v1EarnVaultExposure": EarnVaultExposure{}, "v1ListEarnPositionsResponse": ListEarnPositionsResponse{},
		"v1EarnPosition": EarnPosition{}, "v1ListEarnRewardsResponse": ListEarnRewardsResponse{}, "v1EarnReward": EarnReward{},
	}
	for definition, v := range exact {
		if want, got := tsFields(t, src, definition), goFields(v); !maps.Equal(want, got) {
			t.Errorf("%s: @turnkey/http has %v, %T has %v", definition, want, v, got)
		}
	}
	for definition, v := range named {
		want, got := slices.Sorted(maps.Keys(tsFields(t, src, definition))), slices.Sorted(maps.Keys(goFields(v)))
		if !slices.Equal(want, got) {
			t.Errorf("%s: @turnkey/http names %v, %T %v", definition, want, v, got)
		}
	}
}
