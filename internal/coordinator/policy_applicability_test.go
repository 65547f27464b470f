package coordinator_test

import (
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/coordinator"
	"github.com/sigil/sigil/internal/testdb"
)

// bannedAddress is barred by a DENY on eth.tx.to, as in the organizations Turnkey's own SDK test suites run in.
var bannedAddress = common.HexToAddress("0x08d2b0A37F869FF76BACB5Bab3278E26ab7067B7")

// permitTypedData is EIP-712 typed data as a wallet asks a user to sign it.
const permitTypedData = `{"types":{"EIP712Domain":[{"name":"name","type":"string"},{"name":"version","type":"string"},{"name":"chainId","type":"uint256"},{"name":"verifyingContract","type":"address"}],
"Permit":[{"name":"owner","type":"address"},{"name":"spender","type":"address"},{"name":"value","type":"uint256"},{"name":"nonce","type":"uint256"},{"name":"deadline","type":"uint256"}]},
"primaryType":"Permit","domain":{"name":"USD Coin","version":"2","chainId":1337,"verifyingContract":"0x5FbDB2315678afecb367f032d93F642f64180aa3"},
"message":{"owner":"0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0","spender":"0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512","value":"1000","nonce":"0","deadline":"4102444800"}}`

// testOrg is a non-root user allowed to sign with a wallet, in an organization that bars one address with a DENY.
type testOrg struct {
	*stack
	user    *client.Client
	address string
	denyID  string
}

func newTestOrg(t *testing.T, b testdb.Backend, strict bool) *testOrg {
	t.Helper()
	s := newStackWith(t, b, nil, func(c *coordinator.Config) { c.StrictPolicyErrors = strict })
	userID, user := s.createUser(s.boot.OrganizationID, s.root, "sdk test user")
	o := &testOrg{stack: s, user: user, address: s.ethWallet("test wallet")}
	s.policy("the test user signs", api.EffectAllow, "activity.action == 'SIGN'", "approvers.any(user, user.id == '"+userID+"')")
	o.denyID = s.policy("banned address", api.EffectDeny, "eth.tx.to == '"+strings.ToLower(bannedAddress.Hex())+"'", "")
	return o
}

func (o *testOrg) signMessage() error {
	_, _, err := o.user.SignRawPayload(bg, o.boot.OrganizationID, api.SignRawPayloadIntentV2{SignWith: o.address, Payload: "hello",
		Encoding: "PAYLOAD_ENCODING_TEXT_UTF8", HashFunction: "HASH_FUNCTION_KECCAK256"})
	return err
}

func (o *testOrg) signTypedData() (*api.Activity, error) {
	_, a, err := o.user.SignRawPayload(bg, o.boot.OrganizationID, api.SignRawPayloadIntentV2{SignWith: o.address, Payload: permitTypedData,
		Encoding: "PAYLOAD_ENCODING_EIP712", HashFunction: "HASH_FUNCTION_NO_OP"})
	return a, err
}

func (o *testOrg) signTransaction(to common.Address, data []byte) error {
	_, _, err := o.user.SignTransaction(bg, o.boot.OrganizationID, api.SignTransactionIntentV2{SignWith: o.address,
		UnsignedTransaction: unsigned1559(o.t, to, data, 0), Type: api.TransactionTypeEthereum})
	return err
}

// evaluation is the outcome and error of one policy in an activity's first evaluation.
func (o *testOrg) evaluation(activityID, policyID string) api.PolicyEvaluation {
	o.t.Helper()
	evals, err := o.root.GetPolicyEvaluations(bg, o.boot.OrganizationID, activityID)
	if err != nil || len(evals.PolicyEvaluations) == 0 {
		o.t.Fatalf("policy evaluations: %v %+v", err, evals)
	}
	for _, e := range evals.PolicyEvaluations[0].PolicyEvaluations {
		if e.PolicyID == policyID {
			return e
		}
	}
	o.t.Fatalf("no evaluation of policy %s: %+v", policyID, evals.PolicyEvaluations[0])
	return api.PolicyEvaluation{}
}

// A DENY whose condition reads a transaction does not apply to an activity that has none (message signing, EIP-712),
// as in the reference: its evaluation is still reported as OUTCOME_ERROR with the reason. It still denies the
// transactions it names.
func TestTransactionDenyLeavesMessagesAlone(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		o := newTestOrg(t, b, false)
		org := o.boot.OrganizationID
		if err := o.signMessage(); err != nil {
			t.Fatalf("message signing under a transaction-scoped DENY: %v", err)
		}
		a, err := o.signTypedData()
		if err != nil {
			t.Fatalf("EIP-712 signing under a transaction-scoped DENY: %v", err)
		}
		if e := o.evaluation(a.ID, o.denyID); e.Outcome != "OUTCOME_ERROR" || !strings.Contains(e.Error, "NotApplicable: eth.tx") {
			t.Errorf("the DENY's evaluation on typed data: %+v", e)
		}
		if err := o.signTransaction(other, nil); err != nil {
			t.Fatalf("a transaction to another address: %v", err)
		}
		err = o.signTransaction(bannedAddress, nil)
		expectErr(t, "a transaction to the banned address", err, apierr.PermissionDenied, "The following policies denied this action: "+o.denyID)

		// evaluate_activity reports the same decision, and the reason.
		dry, err := o.user.EvaluateActivity(bg, org, api.SignRawPayloadV2.Type,
			api.SignRawPayloadIntentV2{SignWith: o.address, Payload: "hello", Encoding: "PAYLOAD_ENCODING_TEXT_UTF8", HashFunction: "HASH_FUNCTION_KECCAK256"})
		if err != nil || dry.Decision != "ALLOW" {
			t.Fatalf("evaluate_activity: %v %+v", err, dry)
		}
		for _, e := range dry.PolicyEvaluations {
			if e.PolicyID == o.denyID && (e.Outcome != "OUTCOME_ERROR" || !strings.Contains(e.Error, "NotApplicable")) {
				t.Errorf("evaluate_activity's evaluation of the DENY: %+v", e)
			}
		}
	})
}

// With the operator's switch, a DENY that cannot be evaluated on the activity denies it, as Sigil did before.
func TestStrictPolicyErrors(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		o := newTestOrg(t, b, true)
		expectErr(t, "strict: message signing", o.signMessage(), apierr.PermissionDenied, "The following policies denied this action: "+o.denyID)
		_, err := o.signTypedData()
		expectErr(t, "strict: EIP-712 signing", err, apierr.PermissionDenied, "The following policies denied this action: "+o.denyID)
		if err := o.signTransaction(other, nil); err != nil {
			t.Fatalf("strict: a transaction to another address: %v", err)
		}
		expectErr(t, "strict: a transaction to the banned address", o.signTransaction(bannedAddress, nil), apierr.PermissionDenied, o.denyID)
	})
}

// What keeps the rule safe: an unparseable transaction is refused before any policy; an ALLOW that errors never
// allows; a DENY that fails on the data of something the activity has still denies.
func TestPolicyErrorsThatStillRefuse(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		o := newTestOrg(t, b, false)
		org := o.boot.OrganizationID
		_, _, err := o.user.SignTransaction(bg, org, api.SignTransactionIntentV2{SignWith: o.address, UnsignedTransaction: "02c0ffee", Type: api.TransactionTypeEthereum})
		expectErr(t, "an unparseable transaction", err, apierr.InvalidArgument, "unsignedTransaction")

		// A DENY on calldata the transaction does not carry: the transaction is there, its data is not what the
		// condition reads, so the DENY might apply and denies.
		sliceDeny := o.policy("no approvals to the banned spender", api.EffectDeny,
			"eth.tx.data[0..10] == '0x095ea7b3' && eth.tx.data[34..74] == '"+strings.ToLower(bannedAddress.Hex()[2:])+"'", "")
		err = o.signTransaction(token, []byte{0x09, 0x5e, 0xa7, 0xb3})
		expectErr(t, "a DENY failing on the transaction's data", err, apierr.PermissionDenied, sliceDeny)
		if err := o.signMessage(); err != nil {
			t.Fatalf("the calldata DENY does not concern message signing either: %v", err)
		}
		if _, _, err := o.root.DeletePolicy(bg, org, api.DeletePolicyIntent{PolicyID: sliceDeny}); err != nil {
			t.Fatal(err)
		}

		// An ALLOW that cannot be evaluated on the activity allows nothing: the test user's only ALLOW now reads a
		// transaction.
		evals, err := o.root.ListPolicies(bg, org)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range evals.Policies {
			if p.Effect == api.EffectAllow {
				if _, _, err := o.root.UpdatePolicy(bg, org, api.UpdatePolicyIntentV2{PolicyID: p.PolicyID, PolicyCondition: ptr("eth.tx.to == '" + strings.ToLower(other.Hex()) + "'")}); err != nil {
					t.Fatal(err)
				}
			}
		}
		expectErr(t, "an ALLOW erroring on a message", o.signMessage(), apierr.PermissionDenied, "No policies evaluated to outcome: Allow")
		if err := o.signTransaction(other, nil); err != nil {
			t.Fatalf("the ALLOW still allows its transaction: %v", err)
		}
	})
}
