package policy

import (
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
)

// The second specification's signing policies: a non-root user may approve the
// deposit token for the vault, deposit into the vault and withdraw from it, and
// nothing else.
const (
	agent     = "5b0e7f4a-0000-4000-8000-0000000a9e47"
	rootUser  = "5b0e7f4a-0000-4000-8000-00000000r007"
	tokenAddr = "0x5FbDB2315678afecb367f032d93F642f64180aa3" // checksummed, as deployed
	vaultAddr = "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512"
	otherAddr = "0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0"
)

var vaultABI = mustABI(`[
	{"type":"function","name":"approve","inputs":[{"name":"spender","type":"address"},{"name":"value","type":"uint256"}]},
	{"type":"function","name":"deposit","inputs":[{"name":"assets","type":"uint256"},{"name":"receiver","type":"address"}]},
	{"type":"function","name":"withdraw","inputs":[{"name":"assets","type":"uint256"},{"name":"receiver","type":"address"},{"name":"owner","type":"address"}]},
	{"type":"function","name":"redeem","inputs":[{"name":"shares","type":"uint256"},{"name":"receiver","type":"address"},{"name":"owner","type":"address"}]},
	{"type":"function","name":"transfer","inputs":[{"name":"to","type":"address"},{"name":"value","type":"uint256"}]}
]`)

func mustABI(s string) abi.ABI {
	a, err := abi.JSON(strings.NewReader(s))
	if err != nil {
		panic(err)
	}
	return a
}

// seedPolicies compiles the three policies; addresses are written as given, so the
// test can write them checksummed or in lower case.
func seedPolicies(t testing.TB, token, vault string) []Policy {
	t.Helper()
	mk := func(id, to, selector string) Policy {
		cond, err := Compile("eth.tx.to == '"+to+"' && eth.tx.data[0..10] == '"+selector+"'", Condition)
		if err != nil {
			t.Fatal(err)
		}
		cons, err := Compile("approvers.any(user, user.id == '"+agent+"')", Consensus)
		if err != nil {
			t.Fatal(err)
		}
		return Policy{ID: id, Effect: EffectAllow, Condition: cond, Consensus: cons}
	}
	return []Policy{
		mk("approve", token, "0x095ea7b3"),
		mk("deposit", vault, "0x6e553f65"),
		mk("withdraw", vault, "0xba087652"),
	}
}

// decodedTx builds an EIP-1559 transaction calling method on to, serializes it as the
// yield service would hand it over, decodes it and maps it to the policy input, as
// the coordinator does.
func decodedTx(t testing.TB, to string, method string, args ...any) *EthTx {
	t.Helper()
	data, err := vaultABI.Pack(method, args...)
	if err != nil {
		t.Fatal(err)
	}
	dest := common.HexToAddress(to)
	raw, err := types.NewTx(&types.DynamicFeeTx{
		ChainID: big.NewInt(1337), Nonce: 4, GasTipCap: big.NewInt(1e9), GasFeeCap: big.NewInt(3e9),
		Gas: 90000, To: &dest, Value: new(big.Int), Data: data,
	}).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var tx types.Transaction
	if err := tx.UnmarshalBinary(raw); err != nil {
		t.Fatal(err)
	}
	return &EthTx{
		From: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", To: tx.To().Hex(), Data: hexutil.Encode(tx.Data()), Type: "TYPE_2",
		Value: tx.Value(), Gas: new(big.Int).SetUint64(tx.Gas()), GasPrice: tx.GasFeeCap(), ChainID: tx.ChainId(),
		Nonce: new(big.Int).SetUint64(tx.Nonce()), MaxFeePerGas: tx.GasFeeCap(), MaxPriorityFeePerGas: tx.GasTipCap(),
	}
}

func signingRequest(t testing.TB, tx *EthTx, policies []Policy, approver string) *Request {
	return &Request{
		RootQuorum: RootQuorum{UserIDs: []string{rootUser}, Threshold: 1},
		Input: &Input{
			Activity:    factsOf(t, "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", map[string]any{"type": "TRANSACTION_TYPE_ETHEREUM"}),
			Approvers:   []User{{ID: approver}},
			Credentials: []Credential{{ID: "cred", UserID: approver, Type: "CREDENTIAL_TYPE_API_KEY_P256"}},
			EthTx:       tx,
			Wallet:      &Wallet{ID: "w"},
		},
		Policies: policies,
	}
}

func outcomes(d Decision) string {
	var s []string
	for _, ev := range d.Evaluations {
		s = append(s, ev.PolicyID+"="+strings.TrimPrefix(string(ev.Outcome), "OUTCOME_"))
	}
	return strings.Join(s, " ")
}

func TestSeedPolicies(t *testing.T) {
	amount := big.NewInt(1_000_000)
	agentAddr := common.HexToAddress("0x70997970C51812dc3A010C7d01b50e0d17dc79C8")
	lower := seedPolicies(t, strings.ToLower(tokenAddr), strings.ToLower(vaultAddr))
	checksummed := seedPolicies(t, tokenAddr, vaultAddr)
	lowerTx := func(tx *EthTx) *EthTx { tx.To = strings.ToLower(tx.To); return tx }

	tests := []struct {
		name     string
		tx       *EthTx
		policies []Policy
		approver string
		outcome  Outcome
		evals    string
		message  string
	}{
		{"approve", decodedTx(t, tokenAddr, "approve", common.HexToAddress(vaultAddr), amount), lower, agent,
			Allow, "approve=ALLOW deposit=DENY_IMPLICIT withdraw=DENY_IMPLICIT", ""},
		{"deposit", decodedTx(t, vaultAddr, "deposit", amount, agentAddr), lower, agent,
			Allow, "approve=DENY_IMPLICIT deposit=ALLOW withdraw=DENY_IMPLICIT", ""},
		// The seed's withdraw selector 0xba087652 is ERC-4626 redeem(uint256,address,address);
		// withdraw(uint256,address,address) is 0xb460af94 and is not allowed.
		{"withdraw (redeem)", decodedTx(t, vaultAddr, "redeem", amount, agentAddr, agentAddr), lower, agent,
			Allow, "approve=DENY_IMPLICIT deposit=DENY_IMPLICIT withdraw=ALLOW", ""},
		{"ERC-4626 withdraw selector", decodedTx(t, vaultAddr, "withdraw", amount, agentAddr, agentAddr), lower, agent,
			Deny, "approve=DENY_IMPLICIT deposit=DENY_IMPLICIT withdraw=DENY_IMPLICIT", msgImplicitDeny},
		{"checksummed policy, lower-case transaction", lowerTx(decodedTx(t, vaultAddr, "deposit", amount, agentAddr)), checksummed, agent,
			Allow, "approve=DENY_IMPLICIT deposit=ALLOW withdraw=DENY_IMPLICIT", ""},
		{"checksummed policy, checksummed transaction", decodedTx(t, tokenAddr, "approve", common.HexToAddress(vaultAddr), amount), checksummed, agent,
			Allow, "approve=ALLOW deposit=DENY_IMPLICIT withdraw=DENY_IMPLICIT", ""},
		{"another contract", decodedTx(t, otherAddr, "approve", common.HexToAddress(vaultAddr), amount), lower, agent,
			Deny, "approve=DENY_IMPLICIT deposit=DENY_IMPLICIT withdraw=DENY_IMPLICIT", msgImplicitDeny},
		{"another selector on the token", decodedTx(t, tokenAddr, "transfer", common.HexToAddress(otherAddr), amount), lower, agent,
			Deny, "approve=DENY_IMPLICIT deposit=DENY_IMPLICIT withdraw=DENY_IMPLICIT", msgImplicitDeny},
		{"approve sent to the vault", decodedTx(t, vaultAddr, "approve", common.HexToAddress(otherAddr), amount), lower, agent,
			Deny, "approve=DENY_IMPLICIT deposit=DENY_IMPLICIT withdraw=DENY_IMPLICIT", msgImplicitDeny},
		{"deposit sent to the token", decodedTx(t, tokenAddr, "deposit", amount, agentAddr), lower, agent,
			Deny, "approve=DENY_IMPLICIT deposit=DENY_IMPLICIT withdraw=DENY_IMPLICIT", msgImplicitDeny},
		{"plain transfer without calldata", &EthTx{To: vaultAddr, Data: "0x", Value: big.NewInt(1)}, lower, agent,
			Deny, "approve=ERROR deposit=ERROR withdraw=ERROR", msgImplicitDeny},
		{"another user", decodedTx(t, vaultAddr, "deposit", amount, agentAddr), lower, "someone-else",
			ConsensusNeeded, "approve=DENY_IMPLICIT deposit=REQUIRES_CONSENSUS withdraw=DENY_IMPLICIT", "Consensus needed: policies deposit need more approvals"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Decide(signingRequest(t, tt.tx, tt.policies, tt.approver))
			if d.Outcome != tt.outcome || outcomes(d) != tt.evals {
				t.Errorf("Decide = %v [%s] %q, want %v [%s]", d.Outcome, outcomes(d), d.Message, tt.outcome, tt.evals)
			}
			if tt.message != "" && d.Message != tt.message {
				t.Errorf("message %q, want %q", d.Message, tt.message)
			}
		})
	}
}

// A non-signing activity by the agent: eth.tx does not apply, every policy errors,
// and an errored ALLOW never allows.
func TestSeedPoliciesOnOtherActivities(t *testing.T) {
	d := Decide(&Request{
		RootQuorum: RootQuorum{UserIDs: []string{rootUser}, Threshold: 1},
		Input:      &Input{Activity: factsOf(t, "ACTIVITY_TYPE_CREATE_WALLET", nil), Approvers: []User{{ID: agent}}},
		Policies:   seedPolicies(t, tokenAddr, vaultAddr),
	})
	if d.Outcome != Deny || outcomes(d) != "approve=ERROR deposit=ERROR withdraw=ERROR" || d.Message != msgImplicitDeny {
		t.Fatalf("Decide = %v [%s] %q", d.Outcome, outcomes(d), d.Message)
	}
	if err := d.Evaluations[0].Err; err == nil || !strings.Contains(err.Error(), "eth.tx: does not apply") {
		t.Errorf("error %v should name eth.tx", err)
	}
}
