package policy

import (
	"encoding/json"
	"math/big"
	"testing"
)

// The reference's ABI-based policies (19 and 20) on calls decoded with an uploaded interface, and the rule that
// without a matching interface the fields are absent, so an ALLOW reading them does not allow.
func TestContractCallFields(t *testing.T) {
	t.Parallel()
	weth := "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2"
	withdraw := &Input{Activity: factsOf(t, "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", nil), EthTx: &EthTx{To: weth, Value: big.NewInt(0),
		Call: &ContractCall{FunctionName: "transfer", FunctionSignature: "transfer(address,uint256)",
			Args: map[string]any{"dst": "0x08d2b0a3f1ca0ae1d8c3edcb7c6d1af0a7d867b7", "wad": json.Number("500000000000000000")}}}}
	batch := &Input{Activity: factsOf(t, "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", nil), EthTx: &EthTx{To: weth, Value: big.NewInt(0),
		Call: &ContractCall{FunctionName: "executeBatch", FunctionSignature: "executeBatch((address,uint256,bytes)[])",
			Args: map[string]any{"calls": []any{
				[]any{"0xc0ffee254729296a45a3885639ac7e10f9d54979", json.Number("0"), "0x"},
				[]any{"0xc0ffee254729296a45a3885639ac7e10f9d54979", json.Number("0"), "0xa9059cbb"},
			}}}}}
	noABI := &Input{Activity: factsOf(t, "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", nil), EthTx: &EthTx{To: weth, Value: big.NewInt(0)}}
	tests := []struct {
		src  string
		in   *Input
		want bool
	}{
		{"eth.tx.contract_call_args['wad'] < 1000000000000000000 && eth.tx.contract_call_args['dst'] == '0x08d2b0A3F1cA0aE1D8C3eDcB7c6d1aF0a7d867B7'", withdraw, true},
		{"eth.tx.contract_call_args['wad'] < 100", withdraw, false},
		{"eth.tx.to == '" + weth + "' && eth.tx.function_name == 'transfer'", withdraw, true},
		{"eth.tx.function_signature == 'transfer(address,uint256)'", withdraw, true},
		{"eth.tx.function_name == 'executeBatch' && eth.tx.contract_call_args['calls'].count() <= 2 && eth.tx.contract_call_args['calls'].all(call, call[0] == '0xc0ffee254729296a45a3885639AC7E10F9d54979' && call[1] == 0)", batch, true},
		{"eth.tx.contract_call_args['calls'].count() <= 1", batch, false},
	}
	for _, tt := range tests {
		e, err := Compile(tt.src, Condition)
		if err != nil {
			t.Errorf("Compile(%.60q): %v", tt.src, err)
			continue
		}
		if got, err := e.Eval(tt.in); err != nil || got != tt.want {
			t.Errorf("%.80s = %v, %v; want %v", tt.src, got, err, tt.want)
		}
	}
	allow := pol(t, "transfers", EffectAllow, "eth.tx.function_name == 'transfer'", "")
	d := Decide(&Request{Input: noABI, Policies: []Policy{allow}})
	if d.Outcome != Deny || d.Evaluations[0].Outcome != OutcomeError {
		t.Errorf("without an interface: %v %+v, want a denial with the policy in error (the field is absent)", d.Outcome, d.Evaluations)
	}
}
