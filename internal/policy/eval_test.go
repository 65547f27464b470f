package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"testing"
)

const (
	alice   = "3f1d7d4e-0000-4000-8000-00000000a11c"
	bob     = "3f1d7d4e-0000-4000-8000-000000000b0b"
	carol   = "3f1d7d4e-0000-4000-8000-00000000ca01"
	tagSec  = "7a6f1c2e-0000-4000-8000-0000000005ec"
	tagOps  = "7a6f1c2e-0000-4000-8000-0000000000b5"
	walletW = "a1b2c3d4-0000-4000-8000-00000000000w"
	usdc    = "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"
	recip   = "0x8ba1f109551bd432803012645ac136ddd64dba72"
)

func activity(t *testing.T, activityType string, params map[string]any) Activity {
	t.Helper()
	return factsOf(t, activityType, params)
}

func wei(s string) *big.Int {
	b, ok := new(big.Int).SetString(s, 10)
	if !ok {
		panic(s)
	}
	return b
}

func user(id string, tags ...string) User {
	return User{ID: id, Email: id + "@example.com", Tags: tags}
}

// ethSign is an Ethereum transaction signing from a wallet account.
func ethSign(t *testing.T, tx EthTx) *Input {
	return &Input{
		Activity:      activity(t, "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", map[string]any{"type": "TRANSACTION_TYPE_ETHEREUM"}),
		Approvers:     []User{user(alice)},
		EthTx:         &tx,
		Wallet:        &Wallet{ID: walletW, Label: "treasury"},
		WalletAccount: &WalletAccount{Address: "0x9858EfFD232B4033E47d90003D41EC34EcaEda94", PathIndexes: []uint32{44, 60, 0, 0, 0}, PathHardened: []bool{true, true, true, false, false}},
	}
}

func erc20Transfer(to string) string {
	return "0xa9059cbb" + "000000000000000000000000" + strings.TrimPrefix(strings.ToLower(to), "0x") +
		"00000000000000000000000000000000000000000000000000000000000f4240"
}

type evalCase struct {
	name  string
	field Field
	src   string
	in    *Input
	want  bool
	err   EvalErrorKind // expected error kind, "" for none
}

func runEvalCases(t *testing.T, cases []evalCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e, err := Compile(tc.src, tc.field)
			if err != nil {
				t.Fatalf("Compile: %v", err)
			}
			got, err := e.Eval(tc.in)
			if tc.err != "" {
				var ee *EvalError
				if !errors.As(err, &ee) || ee.Kind != tc.err {
					t.Fatalf("Eval = %v, %v; want a %s error", got, err, tc.err)
				}
				if got {
					t.Error("Eval returned true with an error")
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Eval = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

// TestReferenceExamples evaluates the reference's example policies 1-18 and 21.
func TestReferenceExamples(t *testing.T) {
	createWallet := &Input{Activity: activity(t, "ACTIVITY_TYPE_CREATE_WALLET", nil), Approvers: []User{user(alice)}}
	createUsers := &Input{Activity: activity(t, "ACTIVITY_TYPE_CREATE_USERS_V4", nil), Approvers: []User{user(bob), user(alice, tagSec)}}
	createPolicy := func(approvers ...User) *Input {
		return &Input{Activity: activity(t, "ACTIVITY_TYPE_CREATE_POLICY_V3", nil), Approvers: approvers}
	}
	deleteUsers := func(ids ...string) *Input {
		return &Input{Activity: activity(t, "ACTIVITY_TYPE_DELETE_USERS", map[string]any{"user_ids": ids}), Approvers: []User{user(alice)}}
	}
	rawPayload := func(hash, encoding string) *Input {
		return &Input{Activity: activity(t, "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", map[string]any{"hash_function": hash, "encoding": encoding}),
			Wallet: &Wallet{ID: walletW}}
	}
	exportAccount := func(indexes []uint32, hardened []bool) *Input {
		return &Input{Activity: activity(t, "ACTIVITY_TYPE_EXPORT_WALLET_ACCOUNT", map[string]any{"target_public_key": "04ab"}),
			Wallet: &Wallet{ID: walletW}, WalletAccount: &WalletAccount{Address: "0x9858", PathIndexes: indexes, PathHardened: hardened}}
	}
	transfer := ethSign(t, EthTx{To: usdc, Data: erc20Transfer(recip), Value: big.NewInt(0), ChainID: big.NewInt(1), Nonce: big.NewInt(3)})
	bigValue := ethSign(t, EthTx{To: recip, Data: "0x", Value: wei("2000000000000000000"), ChainID: big.NewInt(11155111), Nonce: big.NewInt(4)})
	smallValue := ethSign(t, EthTx{To: recip, Data: "0x", Value: wei("100000000000000000"), ChainID: big.NewInt(11155111), Nonce: big.NewInt(0)})
	privateKeySign := &Input{Activity: activity(t, "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", map[string]any{"hash_function": "HASH_FUNCTION_KECCAK256", "encoding": "PAYLOAD_ENCODING_HEXADECIMAL"}),
		PrivateKey: &PrivateKey{ID: "pk-1", Label: "hot", Tags: []string{tagOps}}}
	initOTP := &Input{Activity: activity(t, "ACTIVITY_TYPE_INIT_OTP_V3", map[string]any{"otp_length": 6})}
	otpLogin := &Input{Activity: activity(t, "ACTIVITY_TYPE_OTP_LOGIN_V2", map[string]any{"session_profile_id": ""})}
	passkeySign := ethSign(t, EthTx{To: recip})
	passkeySign.Credentials = []Credential{{ID: "c1", UserID: alice, Type: "CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR"}}
	apiKeySign := ethSign(t, EthTx{To: recip})
	apiKeySign.Credentials = []Credential{{ID: "c2", UserID: alice, Type: "CREDENTIAL_TYPE_API_KEY_P256"}}

	permit := func(tokens ...string) *Input {
		msg := `{"permitted":[`
		for i, tok := range tokens {
			if i > 0 {
				msg += ","
			}
			msg += `{"usdc":"` + tok + `","amount":"1000000"}`
		}
		msg += `],"spender":"` + recip + `","nonce":"7","deadline":1767225600}`
		return &Input{
			Activity: activity(t, "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", map[string]any{"hash_function": "HASH_FUNCTION_NO_OP", "encoding": "PAYLOAD_ENCODING_EIP712"}),
			EIP712:   &EIP712{PrimaryType: "PermitBatchTransferFrom", Domain: EIP712Domain{Name: "Permit2", ChainID: big.NewInt(1), VerifyingContract: "0x000000000022D473030F116dDEE9F6B43aC78BA3"}, Message: decodeJSON(t, msg)},
		}
	}

	p4 := "approvers.filter(u, u.tags.contains('" + tagSec + "')).count() >= 1 && approvers.filter(u, u.tags.contains('" + tagOps + "')).count() >= 2"
	p4k := "activity.resource == 'POLICY' && (activity.action == 'CREATE' || activity.action == 'UPDATE' || activity.action == 'DELETE')"
	p13 := "activity.kind == 'EXPORT_WALLET_ACCOUNT' && wallet_account.path_indexes.count() == 4 && wallet_account.path_indexes[0] == 8797555 && wallet_account.path_indexes[2] == 3 && wallet_account.path_hardened.all(h, h == true)"
	p15 := "eth.tx.to == '" + usdc + "' && eth.tx.data[0..10] == '0xa9059cbb' && eth.tx.data[34..74] == '" + strings.TrimPrefix(recip, "0x") + "'"
	p21 := "eth.eip_712.domain.name == 'Permit2' && eth.eip_712.primary_type == 'PermitBatchTransferFrom' && eth.eip_712.message['permitted'].all(p, p['usdc'] == '" + strings.ToLower(usdc) + "') && activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2'"

	runEvalCases(t, []evalCase{
		{"1 consensus named user", Consensus, "approvers.any(user, user.id == '" + alice + "')", createWallet, true, ""},
		{"1 consensus other user", Consensus, "approvers.any(user, user.id == '" + bob + "')", createWallet, false, ""},
		{"1 condition create wallet", Condition, "activity.resource == 'WALLET' && activity.action == 'CREATE'", createWallet, true, ""},
		{"1 condition create users", Condition, "activity.resource == 'WALLET' && activity.action == 'CREATE'", createUsers, false, ""},
		{"2 consensus tagged approver", Consensus, "approvers.any(user, user.tags.contains('" + tagSec + "'))", createUsers, true, ""},
		{"2 consensus no tagged approver", Consensus, "approvers.any(user, user.tags.contains('" + tagOps + "'))", createUsers, false, ""},
		{"2 condition", Condition, "activity.resource == 'USER' && activity.action == 'CREATE'", createUsers, true, ""},
		{"3 two tagged", Consensus, "approvers.filter(user, user.tags.contains('" + tagSec + "')).count() >= 2", createPolicy(user(alice, tagSec), user(bob, tagSec)), true, ""},
		{"3 one tagged", Consensus, "approvers.filter(user, user.tags.contains('" + tagSec + "')).count() >= 2", createPolicy(user(alice, tagSec), user(bob)), false, ""},
		{"3 condition", Condition, "activity.resource == 'POLICY' && activity.action == 'CREATE'", createPolicy(), true, ""},
		{"4 one user holding both tags counts twice", Consensus, p4, createPolicy(user(alice, tagSec, tagOps), user(bob, tagOps)), true, ""},
		{"4 missing security", Consensus, p4, createPolicy(user(alice, tagOps), user(bob, tagOps)), false, ""},
		{"4 condition", Condition, p4k, createPolicy(), true, ""},
		{"4 condition other resource", Condition, p4k, createWallet, false, ""},
		{"5 two approvers", Consensus, "approvers.count() >= 2", createPolicy(user(alice), user(bob)), true, ""},
		{"5 one approver", Consensus, "approvers.count() >= 2", createPolicy(user(alice)), false, ""},
		{"5 condition", Condition, "activity.type == 'ACTIVITY_TYPE_CREATE_POLICY_V3'", createPolicy(), true, ""},
		{"6 deny condition", Condition, "activity.action == 'DELETE'", deleteUsers(bob), true, ""},
		{"6 deny condition other action", Condition, "activity.action == 'DELETE'", createWallet, false, ""},
		{"7 otp", Condition, "activity.resource in ['AUTH', 'OTP'] && activity.action in ['CREATE','VERIFY']", initOTP, true, ""},
		{"7 wallet", Condition, "activity.resource in ['AUTH', 'OTP'] && activity.action in ['CREATE','VERIFY']", createWallet, false, ""},
		{"8 kind", Condition, "activity.kind == 'SIGN_TRANSACTION'", transfer, true, ""},
		{"8 kind list", Condition, "activity.kind in ['INIT_OTP','VERIFY_OTP','OTP_LOGIN','CREATE_SUB_ORGANIZATION']", otpLogin, true, ""},
		{"8 kind list miss", Condition, "activity.kind in ['INIT_OTP','VERIFY_OTP','OTP_LOGIN','CREATE_SUB_ORGANIZATION']", createWallet, false, ""},
		{"9 passkey", Consensus, "credentials.any(credential, credential.type == 'CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR')", passkeySign, true, ""},
		{"9 api key", Consensus, "credentials.any(credential, credential.type == 'CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR')", apiKeySign, false, ""},
		{"9 condition", Condition, "activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2'", passkeySign, true, ""},
		{"10 self delete", Condition, "activity.type == 'ACTIVITY_TYPE_DELETE_USERS' && activity.params.user_ids.count() == 1 && '" + alice + "' in activity.params.user_ids", deleteUsers(alice), true, ""},
		{"10 deleting two", Condition, "activity.type == 'ACTIVITY_TYPE_DELETE_USERS' && activity.params.user_ids.count() == 1 && '" + alice + "' in activity.params.user_ids", deleteUsers(alice, bob), false, ""},
		{"10 deleting another", Condition, "activity.type == 'ACTIVITY_TYPE_DELETE_USERS' && activity.params.user_ids.count() == 1 && '" + alice + "' in activity.params.user_ids", deleteUsers(bob), false, ""},
		{"10 on another activity", Condition, "activity.type == 'ACTIVITY_TYPE_DELETE_USERS' && activity.params.user_ids.count() == 1", createWallet, false, MissingField},
		{"11 raw no-op hash", Condition, "activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2' && activity.params.hash_function == 'HASH_FUNCTION_NO_OP' && activity.params.encoding != 'PAYLOAD_ENCODING_EIP712'", rawPayload("HASH_FUNCTION_NO_OP", "PAYLOAD_ENCODING_HEXADECIMAL"), true, ""},
		{"11 eip712", Condition, "activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2' && activity.params.hash_function == 'HASH_FUNCTION_NO_OP' && activity.params.encoding != 'PAYLOAD_ENCODING_EIP712'", rawPayload("HASH_FUNCTION_NO_OP", "PAYLOAD_ENCODING_EIP712"), false, ""},
		{"12 wallet", Condition, "activity.action == 'SIGN' && wallet.id == '" + walletW + "'", transfer, true, ""},
		{"12 wallet on a private-key signing", Condition, "activity.action == 'SIGN' && wallet.id == '" + walletW + "'", privateKeySign, false, NotApplicable},
		{"12 wallet account address lower case", Condition, "wallet_account.address == '0x9858effd232b4033e47d90003d41ec34ecaeda94'", transfer, true, ""},
		{"12 private key", Condition, "private_key.id == 'pk-1'", privateKeySign, true, ""},
		{"12 private key tag", Condition, "private_key.tags.contains('" + tagOps + "')", privateKeySign, true, ""},
		{"12 private key other tag", Condition, "private_key.tags.contains('" + tagSec + "')", privateKeySign, false, ""},
		{"12 wallet label", Condition, "wallet.label == 'treasury'", transfer, true, ""},
		{"12 wallet or key always errors", Condition, "wallet.id == '" + walletW + "' || private_key.id == 'pk-1'", transfer, false, NotApplicable},
		{"13 subtree", Condition, p13, exportAccount([]uint32{8797555, 0, 3, 1}, []bool{true, true, true, true}), true, ""},
		{"13 not hardened", Condition, p13, exportAccount([]uint32{8797555, 0, 3, 1}, []bool{true, true, true, false}), false, ""},
		{"13 other subtree", Condition, p13, exportAccount([]uint32{8797555, 0, 4, 1}, []bool{true, true, true, true}), false, ""},
		{"13 short path", Condition, p13, exportAccount([]uint32{8797555}, []bool{true}), false, OutOfRange},
		{"14 allowlist", Condition, "eth.tx.to == '" + recip + "'", bigValue, true, ""},
		{"14 allowlist other", Condition, "eth.tx.to == '" + usdc + "'", bigValue, false, ""},
		{"14 allowlist in", Condition, "eth.tx.to in ['" + usdc + "', '" + strings.ToUpper(recip[:2]) + recip[2:] + "']", bigValue, false, ""},
		{"14 allowlist in checksummed", Condition, "eth.tx.to in ['" + usdc + "', '0x8BA1F109551BD432803012645AC136DDD64DBA72']", bigValue, true, ""},
		{"15 erc20 recipient", Condition, p15, transfer, true, ""},
		{"15 erc20 other recipient", Condition, p15, ethSign(t, EthTx{To: usdc, Data: erc20Transfer(usdc)}), false, ""},
		{"15 short calldata", Condition, p15, ethSign(t, EthTx{To: usdc, Data: "0xa9059cbb"}), false, OutOfRange},
		{"16 value cap exceeded", Condition, "activity.action == 'SIGN' && eth.tx.value > 500000000000000000", bigValue, true, ""},
		{"16 value under cap", Condition, "activity.action == 'SIGN' && eth.tx.value > 500000000000000000", smallValue, false, ""},
		{"16 on a non-signing activity", Condition, "activity.action == 'SIGN' && eth.tx.value > 500000000000000000", createWallet, false, NotApplicable},
		{"17 two admins", Consensus, "approvers.filter(u, u.tags.contains('" + tagOps + "')).count() >= 2", &Input{Approvers: []User{user(alice, tagOps), user(bob, tagOps)}}, true, ""},
		{"17 one admin", Consensus, "approvers.filter(u, u.tags.contains('" + tagOps + "')).count() >= 2", &Input{Approvers: []User{user(alice, tagOps), user(bob)}}, false, ""},
		{"17 condition", Condition, "activity.action == 'SIGN' && eth.tx.value > 1000000000000000000", bigValue, true, ""},
		{"17 condition small", Condition, "activity.action == 'SIGN' && eth.tx.value > 1000000000000000000", smallValue, false, ""},
		{"18 chain", Condition, "eth.tx.chain_id == 11155111", bigValue, true, ""},
		{"18 other chain", Condition, "eth.tx.chain_id == 11155111", transfer, false, ""},
		{"18 nonce", Condition, "eth.tx.nonce <= 3", transfer, true, ""},
		{"18 nonce too high", Condition, "eth.tx.nonce <= 3", bigValue, false, ""},
		{"21 permit2", Condition, p21, permit(strings.ToLower(usdc)), true, ""},
		{"21 permit2 checksummed in message", Condition, p21, permit(usdc, strings.ToLower(usdc)), true, ""},
		{"21 permit2 other usdc", Condition, p21, permit(strings.ToLower(usdc), recip), false, ""},
		{"21 not an eip-712 signing", Condition, p21, transfer, false, NotApplicable},
	})
}

func decodeJSON(t *testing.T, s string) map[string]any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestEvalSemantics(t *testing.T) {
	tx := ethSign(t, EthTx{
		From: "0x9858EfFD232B4033E47d90003D41EC34EcaEda94", To: usdc, Data: "0x6e553f65" + strings.Repeat("0", 64), Type: "TYPE_2",
		Value: wei("115792089237316195423570985008687907853269984665640564039457584007913129639935"), Gas: big.NewInt(21000),
		GasPrice: big.NewInt(3e9), ChainID: big.NewInt(1), Nonce: big.NewInt(0), MaxFeePerGas: big.NewInt(3e9), MaxPriorityFeePerGas: big.NewInt(1e9),
	})
	negative := ethSign(t, EthTx{Value: big.NewInt(-1)})
	huge := ethSign(t, EthTx{Value: new(big.Int).Lsh(big.NewInt(1), 256)})
	msg := &Input{
		Activity: activity(t, "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", map[string]any{"hash_function": "HASH_FUNCTION_NO_OP", "encoding": "PAYLOAD_ENCODING_EIP712"}),
		EIP712: &EIP712{PrimaryType: "Permit", Domain: EIP712Domain{Name: "USD Coin", Version: "2"},
			Message: decodeJSON(t, `{"owner":"0xAbC0000000000000000000000000000000000001","value":"1000","hexValue":"0x3e8","nonce":7,"flag":true,"nested":{"list":[1,2,3]},"none":null,"frac":1.5,"word":"seven"}`)},
	}
	msg.EIP712.Message["float"] = float64(42)
	wallets := &Input{Activity: activity(t, "ACTIVITY_TYPE_DELETE_WALLETS", nil), Wallets: []Wallet{{ID: "w1", Exported: true}, {ID: "w2"}}}
	auth := &Input{Activity: activity(t, "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", nil), EIP7702Authorization: &EIP7702Authorization{Address: "0xAb", ChainID: big.NewInt(1), Nonce: big.NewInt(9)}}
	rootOnly := &Input{Activity: activity(t, "ACTIVITY_TYPE_UPDATE_ROOT_QUORUM", nil)}
	badParam := &Input{Activity: activity(t, "ACTIVITY_TYPE_DELETE_USERS", map[string]any{"user_ids": "not a list"})}

	runEvalCases(t, []evalCase{
		{"checksummed equals lower case", Condition, "eth.tx.to == '" + strings.ToLower(usdc) + "'", tx, true, ""},
		{"checksummed not equal", Condition, "eth.tx.to != '" + strings.ToUpper(usdc[2:]) + "'", tx, true, ""},
		{"0x prefix on one side only is exact", Condition, "eth.tx.from[2..42] == '9858effd232b4033e47d90003d41ec34ecaeda94'", tx, false, ""},
		{"non-hex strings compare exactly", Condition, "eth.tx.type == 'type_2'", tx, false, ""},
		{"selector slice", Condition, "eth.tx.data[0..10] == '0x6E553F65'", tx, true, ""},
		{"character index", Condition, "eth.tx.data[1] == 'x'", tx, true, ""},
		{"index out of range", Condition, "eth.tx.data[500] == 'x'", tx, false, OutOfRange},
		{"huge index", Condition, "eth.tx.data[99999999999999999999] == 'x'", tx, false, OutOfRange},
		{"slice out of range", Condition, "eth.tx.data[0..500] == 'x'", tx, false, OutOfRange},
		{"max uint256", Condition, "eth.tx.value == 115792089237316195423570985008687907853269984665640564039457584007913129639935", tx, true, ""},
		{"ints order", Condition, "eth.tx.gas >= 21000 && eth.tx.gas < 21001 && eth.tx.gas_price > 2999999999 && eth.tx.max_priority_fee_per_gas <= 1000000000", tx, true, ""},
		{"all eth.tx fields", Condition, "eth.tx.from != '' && eth.tx.type == 'TYPE_2' && eth.tx.max_fee_per_gas == 3000000000 && eth.tx.nonce == 0 && eth.tx.chain_id == 1", tx, true, ""},
		{"absent integer", Condition, "eth.tx.max_fee_per_blob_gas > 0", tx, false, Absent},
		{"negative input integer", Condition, "eth.tx.value > 0", negative, false, Overflow},
		{"input integer beyond 256 bits", Condition, "eth.tx.value > 0", huge, false, Overflow},
		{"no short-circuit with ||", Condition, "true || private_key.id == 'k'", tx, false, NotApplicable},
		{"no short-circuit with &&", Condition, "false && private_key.id == 'k'", tx, false, NotApplicable},
		{"no short-circuit in any", Condition, "[1, 2].any(i, i == 1 || private_key.id == 'k')", tx, false, NotApplicable},
		{"not", Condition, "!(eth.tx.chain_id == 2) && !false", tx, true, ""},
		{"eip712 keyword on a transaction", Condition, "eth.eip_712.primary_type == 'Permit'", tx, false, NotApplicable},
		{"eth.tx on a raw payload", Condition, "eth.tx.to == '0x'", msg, false, NotApplicable},
		{"eip712 domain", Condition, "eth.eip_712.domain.name == 'USD Coin' && eth.eip_712.domain.version == '2' && eth.eip_712.domain.verifying_contract == ''", msg, true, ""},
		{"eip712 absent chain id", Condition, "eth.eip_712.domain.chain_id == 1", msg, false, Absent},
		{"message address any case", Condition, "eth.eip_712.message['owner'] == '0xabc0000000000000000000000000000000000001'", msg, true, ""},
		{"message decimal string as int", Condition, "eth.eip_712.message['value'] <= 1000", msg, true, ""},
		{"message decimal string as string", Condition, "eth.eip_712.message['value'] == '1000'", msg, true, ""},
		{"message hex string as int", Condition, "eth.eip_712.message['hexValue'] == 1000", msg, true, ""},
		{"message number as int", Condition, "eth.eip_712.message['nonce'] == 7 && eth.eip_712.message['nonce'] in [6, 7]", msg, true, ""},
		{"message number as string", Condition, "eth.eip_712.message['nonce'] == '7'", msg, true, ""},
		{"message number against a word", Condition, "eth.eip_712.message['nonce'] == 'seven'", msg, false, TypeMismatch},
		{"message float64", Condition, "eth.eip_712.message['float'] == 42", msg, true, ""},
		{"message fraction", Condition, "eth.eip_712.message['frac'] > 1", msg, false, TypeMismatch},
		{"message bool", Condition, "eth.eip_712.message['flag'] && eth.eip_712.message['flag'] == true", msg, true, ""},
		{"message nested", Condition, "eth.eip_712.message['nested']['list'][2] == 3 && eth.eip_712.message['nested']['list'].count() == 3 && eth.eip_712.message['nested'].count() == 1", msg, true, ""},
		{"message filter", Condition, "eth.eip_712.message['nested']['list'].filter(x, x > 1).count() == 2", msg, true, ""},
		{"message contains", Condition, "eth.eip_712.message['nested']['list'].contains(2)", msg, true, ""},
		{"message slice", Condition, "eth.eip_712.message['nested']['list'][1..3].count() == 2 && eth.eip_712.message['owner'][0..4] == '0xab'", msg, true, ""},
		{"message missing key", Condition, "eth.eip_712.message['spender'] == '0x'", msg, false, Absent},
		{"message null", Condition, "eth.eip_712.message['none'] == '0x'", msg, false, TypeMismatch},
		{"message object as scalar", Condition, "eth.eip_712.message['nested'] == 1", msg, false, TypeMismatch},
		{"message key of a list", Condition, "eth.eip_712.message['nested']['list']['a'] == 1", msg, false, TypeMismatch},
		{"message index of an object", Condition, "eth.eip_712.message['nested'][0] == 1", msg, false, TypeMismatch},
		{"message any over an object", Condition, "eth.eip_712.message['nested'].any(x, x == 1)", msg, false, TypeMismatch},
		{"message string as bool", Condition, "eth.eip_712.message['owner']", msg, false, TypeMismatch},
		{"message list index out of range", Condition, "eth.eip_712.message['nested']['list'][3] == 1", msg, false, OutOfRange},
		{"wallets", Condition, "wallets.any(w, w.exported) && wallets.count() == 2 && !wallets.all(w, w.exported) && wallets[1].id == 'w2'", wallets, true, ""},
		{"wallets absent", Condition, "wallets.count() == 0", tx, false, NotApplicable},
		{"list slice", Condition, "wallets[0..1].count() == 1 && wallets[1..2][0].id == 'w2'", wallets, true, ""},
		{"eip-7702 authorization", Condition, "eth.eip_7702_authorization.address == '0xAB' && eth.eip_7702_authorization.chain_id == 1 && eth.eip_7702_authorization.nonce == 9", auth, true, ""},
		{"kind of a root-only activity", Condition, "activity.kind == 'UPDATE_ROOT_QUORUM'", rootOnly, false, NotApplicable},
		{"param of the wrong Go type", Condition, "activity.params.user_ids.count() == 1", badParam, false, TypeMismatch},
		{"params map syntax", Condition, "activity.params['otp_length'] == 6", &Input{Activity: activity(t, "ACTIVITY_TYPE_INIT_OTP", map[string]any{"otp_length": int64(6)})}, true, ""},
		{"empty list", Condition, "!(activity.type in [])", tx, true, ""},
		{"non-constant list", Condition, "eth.tx.to in [eth.tx.from, '" + usdc + "']", tx, true, ""},
		{"nested quantifiers", Consensus, "approvers.all(u, credentials.any(c, c.user_id == u.id))", &Input{Approvers: []User{user(alice), user(bob)}, Credentials: []Credential{{UserID: alice}, {UserID: bob}}}, true, ""},
		{"nested quantifiers miss", Consensus, "approvers.all(u, credentials.any(c, c.user_id == u.id))", &Input{Approvers: []User{user(alice), user(bob)}, Credentials: []Credential{{UserID: alice}}}, false, ""},
		{"user fields", Consensus, "approvers[0].email == '" + alice + "@example.com' && approvers[0].alias == '' && credentials.count() == 0", &Input{Approvers: []User{user(alice)}}, true, ""},
		{"credential fields", Consensus, "credentials.all(c, c.id == 'c' && c.public_key == '02ab' && c.credential_id == 'x')", &Input{Credentials: []Credential{{ID: "c", PublicKey: "02ab", CredentialID: "x"}}}, true, ""},
		{"no approvers", Consensus, "approvers.any(u, true)", &Input{}, false, ""},
		{"private key flags", Condition, "private_key.imported == false && !private_key.exported && private_key.label == 'k'", &Input{PrivateKey: &PrivateKey{Label: "k"}}, true, ""},
		{"bools as values", Condition, "(eth.tx.to == 'x') == false && (!(eth.tx.chain_id == 1)) == false && ([1].any(i, i == 1) == true) && (true && eth.tx.to != '') == true", tx, true, ""},
		{"bool list", Condition, "(eth.tx.to == 'x') in [false] && (eth.tx.chain_id == 2 || false) in [false]", tx, true, ""},
		{"string slice as a value", Condition, "eth.tx.data[0..2] in ['0x'] && eth.tx.data[0..eth.tx.nonce] == ''", tx, true, ""},
		{"string slice with a dynamic bound", Condition, "eth.eip_712.message['owner'][0..eth.eip_712.message['nonce']] == '0xAbC00'", msg, true, ""},
		{"param uint64", Condition, "activity.params.otp_length == 8", &Input{Activity: activity(t, "ACTIVITY_TYPE_INIT_OTP", map[string]any{"otp_length": uint64(8)})}, true, ""},
		{"param big.Int", Condition, "activity.params.otp_length == 8", &Input{Activity: activity(t, "ACTIVITY_TYPE_INIT_OTP", map[string]any{"otp_length": big.NewInt(8)})}, true, ""},
		{"param negative", Condition, "activity.params.otp_length == 8", &Input{Activity: activity(t, "ACTIVITY_TYPE_INIT_OTP", map[string]any{"otp_length": -8})}, false, TypeMismatch},
		{"param bool for an int", Condition, "activity.params.otp_length == 8", &Input{Activity: activity(t, "ACTIVITY_TYPE_INIT_OTP", map[string]any{"otp_length": true})}, false, TypeMismatch},
		{"param float for an int", Condition, "activity.params.otp_length == 8", &Input{Activity: activity(t, "ACTIVITY_TYPE_INIT_OTP", map[string]any{"otp_length": 8.0})}, false, TypeMismatch},
		{"message bool against an int", Condition, "eth.eip_712.message['flag'] == 1", msg, false, TypeMismatch},
		{"message list against a string", Condition, "eth.eip_712.message['nested']['list'] == 'x'", msg, false, TypeMismatch},
		{"message hex string ordered", Condition, "eth.eip_712.message['owner'] > 1", msg, true, ""},
		{"message word ordered", Condition, "eth.eip_712.message['word'] > 1", msg, false, TypeMismatch},
		{"message bool ordered", Condition, "eth.eip_712.message['flag'] > 1", msg, false, TypeMismatch},
		{"message index with a dynamic key", Condition, "eth.eip_712.message[eth.eip_712.message['owner'][0..0]] == 1", msg, false, Absent},
		{"message string index", Condition, "eth.eip_712.message['owner'][1] == 'x' && eth.eip_712.message['owner'][eth.eip_712.message['nonce']] == '0'", msg, true, ""},
		{"wallet flags", Condition, "wallet.imported && wallet.exported == false", &Input{Wallet: &Wallet{Imported: true}}, true, ""},
	})
}

func TestEvalErrorNamesClause(t *testing.T) {
	e, err := Compile("activity.action == 'SIGN' && wallet.id == 'W'", Condition)
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Eval(&Input{PrivateKey: &PrivateKey{ID: "k"}})
	var ee *EvalError
	if !errors.As(err, &ee) || ee.Kind != NotApplicable || ee.Clause != "wallet" {
		t.Fatalf("err = %#v", err)
	}
	if err.Error() != "NotApplicable: wallet: does not apply to this request" {
		t.Errorf("message %q", err)
	}
	if _, err := e.Eval(nil); err == nil {
		t.Error("Eval(nil) succeeded")
	}
}

func TestEvalKleene(t *testing.T) {
	in := &Input{PrivateKey: &PrivateKey{ID: "k"}}
	tests := []struct {
		src           string
		known, result bool
	}{
		{"false && wallet.id == 'w'", true, false},
		{"true && wallet.id == 'w'", false, false},
		{"true || wallet.id == 'w'", true, true},
		{"false || wallet.id == 'w'", false, false},
		{"!(false && wallet.id == 'w')", true, true},
		{"[1, 2].all(i, i == 5 && wallet.id == 'w')", true, false},
		{"[1, 2].any(i, i == 1 || wallet.id == 'w')", true, true},
		{"wallet.id == 'w'", false, false},
		// Clauses all decided, one of them despite a failure inside it.
		{"true && (true || wallet.id == 'w')", true, true},
		{"false || (false && wallet.id == 'w')", true, false},
		{"[1, 2].all(i, i > 0 || wallet.id == 'w')", true, true},
		{"[1, 2].any(i, i > 5 && wallet.id == 'w')", true, false},
	}
	for _, tt := range tests {
		e, err := Compile(tt.src, Condition)
		if err != nil {
			t.Fatal(err)
		}
		known, result, err := e.evalKleene(in, nil)
		if err == nil || known != tt.known || (known && result != tt.result) {
			t.Errorf("%s: known %v result %v err %v; want known %v result %v with an error", tt.src, known, result, err, tt.known, tt.result)
		}
	}
}

func TestConcurrentEval(t *testing.T) {
	e, err := Compile("approvers.filter(u, u.tags.contains('t')).count() >= 1 && approvers.any(u, u.id == 'a')", Consensus)
	if err != nil {
		t.Fatal(err)
	}
	yes := &Input{Approvers: []User{{ID: "a", Tags: []string{"t"}}}}
	no := &Input{Approvers: []User{{ID: "b"}}}
	done := make(chan error)
	for g := 0; g < 4; g++ {
		go func() {
			for i := 0; i < 500; i++ {
				a, err1 := e.Eval(yes)
				b, err2 := e.Eval(no)
				if !a || b || err1 != nil || err2 != nil {
					done <- errors.New("wrong result under concurrency")
					return
				}
			}
			done <- nil
		}()
	}
	for g := 0; g < 4; g++ {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}

func TestEvalStepLimit(t *testing.T) {
	many := make([]User, 400)
	for i := range many {
		many[i] = User{ID: fmt.Sprint(i)}
	}
	in := &Input{Approvers: many}
	ids := "'" + strings.Repeat("x', '", 300) + "y'"
	tests := []struct {
		src  string
		want EvalErrorKind
	}{
		{"approvers.any(a, approvers.any(b, approvers.any(c, a.id == b.id && b.id == c.id)))", LimitExceeded},
		{"approvers.any(a, approvers.any(b, a.id in [" + ids + "]))", LimitExceeded},
		{"approvers.filter(a, approvers.all(b, b.id != 'x')).count() == 400", LimitExceeded},
		{"approvers.any(a, approvers.any(b, a.id == b.id))", ""}, // checked below with fewer approvers
	}
	for _, tt := range tests[:3] {
		e := mustCompile(t, tt.src, Consensus)
		_, err := e.Eval(in)
		var ee *EvalError
		if !errors.As(err, &ee) || ee.Kind != tt.want {
			t.Errorf("%.60s: %v, want %s", tt.src, err, tt.want)
		}
	}
	// Within the budget: 200 x 200 predicates.
	e := mustCompile(t, tests[3].src, Consensus)
	if ok, err := e.Eval(&Input{Approvers: many[:200]}); !ok || err != nil {
		t.Errorf("200x200: %v, %v", ok, err)
	}
	// The budget is per evaluation, so a pooled frame starts afresh.
	if ok, err := e.Eval(&Input{Approvers: many[:200]}); !ok || err != nil {
		t.Errorf("second evaluation: %v, %v", ok, err)
	}
}
