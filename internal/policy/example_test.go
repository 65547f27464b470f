package policy_test

import (
	"fmt"
	"math/big"

	"github.com/sigil/sigil/internal/policy"
)

func Example() {
	// At policy creation: compile both fields once and keep the compiled forms.
	condition, err := policy.Compile("eth.tx.to == '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512' && eth.tx.data[0..10] == '0x6e553f65'", policy.Condition)
	if err != nil {
		fmt.Println(err)
		return
	}
	consensus, err := policy.Compile("approvers.any(user, user.id == 'agent-user-id')", policy.Consensus)
	if err != nil {
		fmt.Println(err)
		return
	}
	deposit := policy.Policy{ID: "deposit", Effect: policy.EffectAllow, Condition: condition, Consensus: consensus}

	// At every activity: fill the input and decide.
	d := policy.Decide(&policy.Request{
		RootQuorum: policy.RootQuorum{UserIDs: []string{"root-user-id"}, Threshold: 1},
		Input: &policy.Input{
			Activity:  policy.Activity{Type: "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", Kind: "SIGN_TRANSACTION", Resource: "PRIVATE_KEY", Action: "SIGN"},
			Approvers: []policy.User{{ID: "agent-user-id"}},
			EthTx: &policy.EthTx{
				To:    "0xe7f1725e7734ce288f8367e1bb143e90bb3f0512",
				Data:  "0x6e553f65" + "00000000000000000000000000000000000000000000000000000000000f4240" + "00000000000000000000000070997970c51812dc3a010c7d01b50e0d17dc79c8",
				Value: big.NewInt(0),
			},
		},
		Policies: []policy.Policy{deposit},
	})
	fmt.Println(d.Outcome, d.Evaluations[0].Outcome, d.Message)

	_, err = policy.Compile("eth.tx.too == '0x'", policy.Condition)
	fmt.Println(err)
	// Output:
	// Allow OUTCOME_ALLOW Allowed by policies: deposit
	// condition: unknown field 'eth.tx.too' at column 8; did you mean 'eth.tx.to'?
}
