package policy

import (
	"encoding/json"
	"fmt"
	"math/big"
	"testing"
)

const seedCondition = "eth.tx.to == '0x5FbDB2315678afecb367f032d93F642f64180aa3' && eth.tx.data[0..10] == '0x6e553f65'"

func BenchmarkCompile(b *testing.B) {
	src := "activity.resource == 'POLICY' && (activity.action == 'CREATE' || activity.action == 'UPDATE') && " + seedCondition
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compile(src, Condition); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEvalSeedPolicy(b *testing.B) {
	e := mustCompile(b, seedCondition, Condition)
	in := &Input{EthTx: &EthTx{To: "0x5fbdb2315678afecb367f032d93f642f64180aa3", Data: "0x6e553f65" + fmt.Sprintf("%0128x", 1)}}
	b.ReportAllocs()
	for b.Loop() {
		ok, err := e.Eval(in)
		if !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}

func BenchmarkEvalConsensus(b *testing.B) {
	e := mustCompile(b, "approvers.any(user, user.id == 'agent')", Consensus)
	in := &Input{Approvers: []User{{ID: "someone"}, {ID: "agent"}}}
	b.ReportAllocs()
	for b.Loop() {
		if ok, err := e.Eval(in); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}

// BenchmarkDecide50 decides a signing over 50 policies shaped like the seed's, none
// of which match until the last, each with a consensus naming one user.
func BenchmarkDecide50(b *testing.B) {
	policies := make([]Policy, 50)
	for i := range policies {
		policies[i] = pol(b, fmt.Sprintf("p%02d", i), EffectAllow,
			fmt.Sprintf("eth.tx.to == '0x%040x' && eth.tx.data[0..10] == '0x6e553f65'", i),
			"approvers.any(user, user.id == 'agent')")
	}
	req := &Request{
		RootQuorum: RootQuorum{UserIDs: []string{"root"}, Threshold: 1},
		Input: &Input{
			Activity:  Activity{Type: "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", Kind: "SIGN_TRANSACTION", Resource: "PRIVATE_KEY", Action: "SIGN"},
			Approvers: []User{{ID: "agent"}},
			EthTx:     &EthTx{To: fmt.Sprintf("0x%040x", 49), Data: "0x6e553f65" + fmt.Sprintf("%0128x", 1), Value: big.NewInt(0)},
		},
		Policies: policies,
	}
	b.ReportAllocs()
	for b.Loop() {
		if d := Decide(req); d.Outcome != Allow {
			b.Fatal(d.Outcome)
		}
	}
}

// BenchmarkDecide50ControlsABI decides a signing over 50 policies that each read two velocity controls and one
// argument decoded with an uploaded ABI (issue's goal: under 50 µs), the last of them allowing.
func BenchmarkDecide50ControlsABI(b *testing.B) {
	policies := make([]Policy, 50)
	for i := range policies {
		policies[i] = pol(b, fmt.Sprintf("p%02d", i), EffectAllow,
			fmt.Sprintf("controls.daily_usdc && controls.hourly_count && eth.tx.contract_call_args['amount'] < 1000000000 && eth.tx.to == '0x%040x'", i),
			"approvers.any(user, user.id == 'agent')")
	}
	req := &Request{
		RootQuorum: RootQuorum{UserIDs: []string{"root"}, Threshold: 1},
		Input: &Input{
			Activity:  Activity{Type: "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", Kind: "SIGN_TRANSACTION", Resource: "PRIVATE_KEY", Action: "SIGN"},
			Approvers: []User{{ID: "agent"}},
			EthTx: &EthTx{To: fmt.Sprintf("0x%040x", 49), Value: big.NewInt(0), Call: &ContractCall{FunctionName: "transfer",
				FunctionSignature: "transfer(address,uint256)", Args: map[string]any{"to": "0x00", "amount": json.Number("5000000")}}},
			Controls: map[string]bool{"daily_usdc": true, "hourly_count": true},
		},
		Policies: policies,
	}
	b.ReportAllocs()
	for b.Loop() {
		if d := Decide(req); d.Outcome != Allow {
			b.Fatal(d.Outcome, d.Message)
		}
	}
}

// BenchmarkDecideDenyOnMessage decides a message signing under an ALLOW and 10 transaction-scoped DENYs (the
// reference's test organization, times ten): every DENY fails on the absent eth.tx, and none applies.
func BenchmarkDecideDenyOnMessage(b *testing.B) {
	policies := []Policy{pol(b, "signs", EffectAllow, "activity.action == 'SIGN'", "approvers.any(user, user.id == 'agent')")}
	for i := range 10 {
		policies = append(policies, pol(b, fmt.Sprintf("deny%02d", i), EffectDeny, fmt.Sprintf("eth.tx.to == '0x%040x'", i), ""))
	}
	req := &Request{
		RootQuorum: RootQuorum{UserIDs: []string{"root"}, Threshold: 1},
		Input: &Input{
			Activity:  Activity{Type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", Kind: "SIGN_RAW_PAYLOAD", Resource: "PRIVATE_KEY", Action: "SIGN"},
			Approvers: []User{{ID: "agent"}},
		},
		Policies: policies,
	}
	b.ReportAllocs()
	for b.Loop() {
		Decide(req)
	}
}
