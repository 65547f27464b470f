package policy

import (
	"encoding/json"
	"math/big"
	"strings"
	"testing"
)

// The corpus of Turnkey's documented example policies, other than the Solana, Bitcoin and Tron ones (chains_test.go).
// It holds 105 examples, each compiled as written (placeholders filled in with concrete values) and evaluated true
// of an input it should match and false of one it should not, or, for the 3 the documentation says always fail,
// evaluated to an error:
//   - 77 conditions (TestDocumentedConditions), 14 consensus expressions (TestDocumentedConsensus), 11 time
//     expressions (TestDocumentedTimes; three expressions are checked at several documented instants: the ends of a
//     window, and daylight saving), 3 failing expressions (TestDocumentedErrors);
//   - besides, TestDocumentedPolicies decides 3 of those documented policies whole, with Decide (8 requests).
//
// An expression documented on several pages is one example whose source names them all. The sources:
//   - the reference notes on Turnkey's policy language, §5 "Example policies": items 1 to 21, and 30 with its
//     time variants ("ref N");
//   - Turnkey's documentation, tkhq/docs @c8289df (the source of docs.turnkey.com; "docs: page"):
//     features/policies (examples/access-control, examples/signing-control, examples/ethereum,
//     examples/time-based-policies, language, quickstart, overview, smart-contract-interfaces, time-based-policies,
//     delegated-access/overview, backend, frontend and agentic-wallets), features/authentication (email, sms,
//     otp-migration-guide, mfa/overview, mfa/examples, sessions/session-profiles), features/webhooks/overview,
//     features/users/best-practices, snippets/shared/policy-engine, solutions/company-wallets (agentic-wallets,
//     agentic-payments, payment-orchestration, smart-contract-management), solutions/key-management
//     (encryption-key-storage) and solutions/cookbooks (aave, morpho, vaultsfyi, yieldxyz);
//   - Turnkey's SDK examples the reference cites (tkhq/sdk: export-path-policies; with-bitcoin and with-tron's
//     consensus), and @turnkey/http 6.6.0's types, which name velocity controls in policies as controls.<identifier>.
//
// Left out, as Sigil deliberately cannot support them: examples/tempo (tempo.tx, and signings of
// TRANSACTION_TYPE_TEMPO, which Sigil refuses), examples/spark (Spark activities and their activity.params), and the
// brale cookbook's `eth.tx.to in ${JSON.stringify(ALLOWLIST)}`,
// which writes double-quoted strings the language refuses. The catch-all condition 'true' (mfa, session profiles) has
// no input it should not match.

const (
	baseUSDC   = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913" // solutions/agentic-payments
	wethDst    = "0x08d2b0a37F869FF76BACB5Bab3278E26ab7067B7" // examples/ethereum, as written there
	uniRouter  = "0x7a250d5630B4cF539739dF2C5dAcb4c659F2488D" // Uniswap V2 router: swapExactTokensForTokens is 0x38ed1739
	permit2    = "0x000000000022D473030F116dDEE9F6B43aC78BA3"
	signerAddr = "0x9858EfFD232B4033E47d90003D41EC34EcaEda94" // ethSign's wallet account
	batchC     = "0xc0ffee254729296a45a3885639AC7E10F9d54979"
	profile1   = "11111111-1111-1111-1111-111111111111"
	profile2   = "22222222-2222-2222-2222-222222222222"
)

// selectorCall is calldata calling selector with two zero words.
func selectorCall(selector string) string { return selector + strings.Repeat("0", 128) }

func TestDocumentedConditions(t *testing.T) {
	t.Parallel()
	of := func(activityType string, params map[string]any) *Input {
		return &Input{Activity: activity(t, activityType, params), Approvers: []User{user(alice)}}
	}
	send := func(to, value string, chainID int64, nonce int64) *Input {
		return ethSign(t, EthTx{To: to, Data: "0x", Value: wei(value), ChainID: big.NewInt(chainID), Nonce: big.NewInt(nonce)})
	}
	call := func(to, data string, chainID int64) *Input {
		return ethSign(t, EthTx{To: to, Data: data, Value: big.NewInt(0), ChainID: big.NewInt(chainID), Nonce: big.NewInt(0)})
	}
	transferTo := func(recipient string) *Input { return call(usdc, erc20Transfer(recipient), 1) }
	ethSend := func(in *Input) { in.Activity = activity(t, "ACTIVITY_TYPE_ETH_SEND_TRANSACTION", nil) }
	rawPayload := func(hash, encoding string) *Input {
		in := of("ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", map[string]any{"hash_function": hash, "encoding": encoding})
		in.Wallet = &Wallet{ID: walletW, Label: "treasury"}
		return in
	}
	pkSign := func() *Input {
		in := of("ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", map[string]any{"hash_function": "HASH_FUNCTION_KECCAK256", "encoding": "PAYLOAD_ENCODING_HEXADECIMAL"})
		in.PrivateKey = &PrivateKey{ID: "pk-1", Label: "hot", Tags: []string{tagOps}}
		return in
	}
	exportKey := func() *Input {
		in := of("ACTIVITY_TYPE_EXPORT_PRIVATE_KEY", map[string]any{"target_public_key": "04ab"})
		in.PrivateKey = &PrivateKey{ID: "pk-1", Label: "hot", Tags: []string{tagOps}}
		return in
	}
	exportAccount := func(address string, indexes []uint32, hardened []bool) *Input {
		in := of("ACTIVITY_TYPE_EXPORT_WALLET_ACCOUNT", map[string]any{"target_public_key": "04ab"})
		in.Wallet = &Wallet{ID: walletW}
		in.WalletAccount = &WalletAccount{Address: address, PathIndexes: indexes, PathHardened: hardened}
		return in
	}
	exportSigner := func() *Input {
		return exportAccount(signerAddr, []uint32{44, 60, 0, 0, 0}, []bool{true, true, true, false, false})
	}
	deleteUsers := func(ids ...string) *Input {
		return of("ACTIVITY_TYPE_DELETE_USERS", map[string]any{"user_ids": ids})
	}
	crwsV3 := func() *Input { // the next version the documentation imagines
		return of("ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2", nil).with(func(in *Input) {
			in.Activity.Type = "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V3"
		})
	}
	abiCall := func(to, name, signature string, args map[string]any) *Input {
		in := call(to, selectorCall(functionSelector(signature)), 1)
		in.EthTx.Call = &ContractCall{FunctionName: name, FunctionSignature: signature, Args: args}
		return in
	}
	weth := "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2"
	wethTransfer := func(wad string) *Input {
		return abiCall(weth, "transfer", "transfer(address,uint256)", map[string]any{"dst": strings.ToLower(wethDst), "wad": json.Number(wad)})
	}
	wethApprove := func() *Input {
		return abiCall(weth, "approve", "approve(address,uint256)", map[string]any{"guy": strings.ToLower(wethDst), "wad": json.Number("1")})
	}
	batch := func(calls ...[]any) *Input {
		list := make([]any, len(calls))
		for i, c := range calls {
			list[i] = c
		}
		return abiCall(uniRouter, "executeBatch", "executeBatch((address,uint256,bytes)[])", map[string]any{"calls": list})
	}
	batchCall := func(target, value string) []any { return []any{strings.ToLower(target), json.Number(value), "0x"} }
	disperse := func(recipients ...string) *Input {
		list := make([]any, len(recipients))
		for i, r := range recipients {
			list[i] = strings.ToLower(r)
		}
		return abiCall(otherAddr, "disperse", "disperse(address[],uint256[])", map[string]any{"recipients": list, "values": []any{}})
	}
	typedData := func(domain EIP712Domain, primaryType, message string) *Input {
		in := of("ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", map[string]any{"hash_function": "HASH_FUNCTION_NO_OP", "encoding": "PAYLOAD_ENCODING_EIP712"})
		in.EIP712 = &EIP712{PrimaryType: primaryType, Domain: domain, Message: decodeJSON(t, message)}
		return in
	}
	permit2Domain := EIP712Domain{Name: "Permit2", ChainID: big.NewInt(1), VerifyingContract: permit2}
	// permitBatch is the documentation's PermitBatchTransferFrom message, with one permission per token:amount.
	permitBatch := func(permissions ...string) *Input {
		var ps []string
		for _, p := range permissions {
			token, amount, _ := strings.Cut(p, ":")
			ps = append(ps, `{"token":"`+token+`","amount":"`+amount+`"}`)
		}
		return typedData(permit2Domain, "PermitBatchTransferFrom",
			`{"permitted":[`+strings.Join(ps, ",")+`],"spender":"`+recip+`","nonce":0,"deadline":1234567890}`)
	}
	usdcDomain := EIP712Domain{Name: "USD Coin", Version: "2", ChainID: big.NewInt(1), VerifyingContract: usdc}
	hyperliquid := func(primaryType string) *Input {
		return typedData(EIP712Domain{Name: "HyperliquidSignTransaction", Version: "1", ChainID: big.NewInt(42161),
			VerifyingContract: "0x0000000000000000000000000000000000000000"}, primaryType,
			`{"hyperliquidChain":"Mainnet","agentAddress":"`+recip+`","agentName":"bot","nonce":1767225600000}`)
	}
	authorization := func(nonce int64) *Input {
		in := of("ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", map[string]any{"hash_function": "HASH_FUNCTION_NO_OP", "encoding": "PAYLOAD_ENCODING_HEXADECIMAL"})
		in.EIP7702Authorization = &EIP7702Authorization{Address: strings.ToLower(vaultAddr), ChainID: big.NewInt(1), Nonce: big.NewInt(nonce)}
		return in
	}
	solDeposit := func(to string) *Input {
		return solTransfer(to, 1).with(func(in *Input) {
			in.Activity = activity(t, "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", map[string]any{"type": "TRANSACTION_TYPE_SOLANA"})
			in.Wallet = &Wallet{ID: walletW}
		})
	}
	controls := func(pass bool) *Input {
		return call(usdc, erc20Transfer(recip), 1).with(func(in *Input) { in.Controls = map[string]bool{"daily_usdc": pass} })
	}

	noOp := "activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2' && activity.params.hash_function == 'HASH_FUNCTION_NO_OP' && activity.params.encoding != 'PAYLOAD_ENCODING_EIP712'"
	permit2Is := "eth.eip_712.domain.name == 'Permit2' && eth.eip_712.primary_type == 'PermitBatchTransferFrom' && "
	isRaw := " && activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2'"
	batchAll := "eth.tx.contract_call_args['calls'].all(call, call[0] == '" + batchC + "' && call[1] == 0)"
	cold := otherAddr

	runChainExamples(t, []chainExample{
		// Access control and activity scoping.
		{"ref 1, docs: access-control (a user creates wallets)", "activity.resource == 'WALLET' && activity.action == 'CREATE'",
			of("ACTIVITY_TYPE_CREATE_WALLET", nil), of("ACTIVITY_TYPE_CREATE_USERS_V4", nil)},
		{"ref 2, docs: access-control (a tag creates users)", "activity.resource == 'USER' && activity.action == 'CREATE'",
			of("ACTIVITY_TYPE_CREATE_USERS_V4", nil), of("ACTIVITY_TYPE_CREATE_WALLET", nil)},
		{"ref 3, docs: access-control (two tagged users create policies)", "activity.resource == 'POLICY' && activity.action == 'CREATE'",
			of("ACTIVITY_TYPE_CREATE_POLICY_V3", nil), of("ACTIVITY_TYPE_UPDATE_POLICY_V2", nil)},
		{"ref 4, docs: access-control (per-tag minimums for policy changes)", "activity.resource == 'POLICY' && (activity.action == 'CREATE' || activity.action == 'UPDATE' || activity.action == 'DELETE')",
			of("ACTIVITY_TYPE_DELETE_POLICY", nil), of("ACTIVITY_TYPE_DELETE_WALLETS", nil)},
		{"ref 5, docs: users/best-practices (two approvers create policies)", "activity.type == 'ACTIVITY_TYPE_CREATE_POLICY_V3'",
			of("ACTIVITY_TYPE_CREATE_POLICY_V3", nil), of("ACTIVITY_TYPE_CREATE_POLICIES", nil)},
		{"ref 6, docs: access-control (deny deletes by a tag)", "activity.action == 'DELETE'",
			deleteUsers(bob), of("ACTIVITY_TYPE_CREATE_WALLET", nil)},
		{"docs: access-control (a user creates a sub-org)", "activity.resource == 'ORGANIZATION' && activity.action == 'CREATE'",
			of("ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8", nil), of("ACTIVITY_TYPE_APPROVE_ACTIVITY", nil)},
		{"docs: access-control (auth type activities)", "activity.resource == 'AUTH' && activity.action == 'CREATE'",
			of("ACTIVITY_TYPE_OTP_LOGIN_V2", map[string]any{"session_profile_id": ""}), of("ACTIVITY_TYPE_INIT_OTP_V3", map[string]any{"otp_length": 6})},
		{"ref 7, docs: access-control (generic OTP)", "activity.resource in ['AUTH', 'OTP'] && activity.action in ['CREATE','VERIFY']",
			of("ACTIVITY_TYPE_VERIFY_OTP_V2", nil), of("ACTIVITY_TYPE_CREATE_WALLET", nil)},
		{"docs: access-control (one activity type: a V3 does not match)", "activity.type == 'ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2'",
			of("ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2", nil), crwsV3()},
		{"docs: access-control (one activity kind, any version)", "activity.kind == 'CREATE_READ_WRITE_SESSION'",
			crwsV3(), of("ACTIVITY_TYPE_CREATE_READ_ONLY_SESSION", nil)},
		{"ref 8, docs: access-control, time-based-policies (sign transactions, any version)", "activity.kind == 'SIGN_TRANSACTION'",
			transferTo(recip), rawPayload("HASH_FUNCTION_KECCAK256", "PAYLOAD_ENCODING_HEXADECIMAL")},
		{"ref 9, docs: access-control (a credential type or public key signs)", "activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2'",
			transferTo(recip), rawPayload("HASH_FUNCTION_KECCAK256", "PAYLOAD_ENCODING_HEXADECIMAL")},
		{"docs: access-control (export only one wallet account)", "activity.action == 'EXPORT' && wallet_account.address == '" + signerAddr + "'",
			exportSigner(), transferTo(recip)},
		{"ref 8, docs: otp-migration-guide (OTP and sub-orgs, any version)", "activity.kind in ['INIT_OTP', 'VERIFY_OTP', 'OTP_LOGIN', 'CREATE_SUB_ORGANIZATION']",
			of("ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8", nil), of("ACTIVITY_TYPE_CREATE_WALLET", nil)},
		{"docs: authentication/email (auth and sub-orgs)", "(activity.resource == 'AUTH' && activity.action == 'CREATE') || (activity.resource == 'ORGANIZATION' && activity.action == 'CREATE')",
			of("ACTIVITY_TYPE_STAMP_LOGIN", map[string]any{"session_profile_id": ""}), of("ACTIVITY_TYPE_INIT_OTP_V3", map[string]any{"otp_length": 6})},
		{"docs: authentication/email, sms (auth, OTP and sub-orgs)", "(activity.resource == 'AUTH' && activity.action == 'CREATE') || (activity.resource == 'OTP' && activity.action == 'CREATE') || (activity.resource == 'OTP' && activity.action == 'VERIFY') || (activity.resource == 'ORGANIZATION' && activity.action == 'CREATE')",
			of("ACTIVITY_TYPE_VERIFY_OTP_V2", nil), of("ACTIVITY_TYPE_APPROVE_ACTIVITY", nil)},
		{"ref 10, docs: language, delegated-access/overview, delegated-access/agentic-wallets (self-deletion)", "activity.type == 'ACTIVITY_TYPE_DELETE_USERS' && activity.params.user_ids.count() == 1 && '" + alice + "' in activity.params.user_ids",
			deleteUsers(alice), deleteUsers(alice, bob)},
		{"ref 11, docs: ethereum, language (deny NO_OP hash signing)", noOp,
			rawPayload("HASH_FUNCTION_NO_OP", "PAYLOAD_ENCODING_HEXADECIMAL"), rawPayload("HASH_FUNCTION_NO_OP", "PAYLOAD_ENCODING_EIP712")},
		{"ref 12, docs: signing-control, session-profiles scope (sign with a wallet)", "activity.action == 'SIGN' && wallet.id == '" + walletW + "'",
			transferTo(recip), transferTo(recip).with(func(in *Input) { in.Wallet.ID = "another-wallet" })},
		{"ref 12, docs: signing-control (sign with a wallet account)", "activity.action == 'SIGN' && wallet_account.address == '" + signerAddr + "'",
			transferTo(recip), exportSigner()},
		{"ref 12, docs: signing-control (sign with a private key)", "activity.action == 'SIGN' && private_key.id == 'pk-1'",
			pkSign(), exportKey()},
		{"docs: key-management/encryption-key-storage (export one encryption key)", "activity.type == 'ACTIVITY_TYPE_EXPORT_PRIVATE_KEY' && private_key.id == 'pk-1'",
			exportKey(), pkSign()},
		{"ref 12: a private key's tag", "private_key.tags.contains('" + tagOps + "')",
			pkSign(), pkSign().with(func(in *Input) { in.PrivateKey.Tags = []string{tagSec} })},
		{"ref 12: a wallet's label", "wallet.label == 'treasury'", transferTo(recip), transferTo(recip).with(func(in *Input) { in.Wallet.Label = "hot" })},
		{"ref 13 (SDK export-path-policies): exports from one derivation subtree", "activity.kind == 'EXPORT_WALLET_ACCOUNT' && wallet_account.path_indexes.count() == 4 && wallet_account.path_indexes[0] == 8797555 && wallet_account.path_indexes[2] == 3 && wallet_account.path_hardened.all(h, h == true)",
			exportAccount(signerAddr, []uint32{8797555, 0, 3, 7}, []bool{true, true, true, true}), exportAccount(signerAddr, []uint32{8797555, 0, 4, 7}, []bool{true, true, true, true})},
		{"docs: mfa/overview, mfa/examples, session-profiles scope, agentic-wallets (signing)", "activity.action == 'SIGN'",
			transferTo(recip), exportSigner()},
		{"docs: mfa/examples (authentication)", "activity.resource == 'AUTH'",
			of("ACTIVITY_TYPE_OTP_LOGIN_V2", map[string]any{"session_profile_id": ""}), transferTo(recip)},
		{"docs: mfa/examples (exports)", "activity.action == 'EXPORT'", of("ACTIVITY_TYPE_EXPORT_WALLET", map[string]any{"target_public_key": "04ab"}), transferTo(recip)},
		{"docs: mfa/examples (a login with one session profile)", "activity.resource == 'AUTH' && activity.params.session_profile_id == '" + profile1 + "'",
			of("ACTIVITY_TYPE_OTP_LOGIN_V2", map[string]any{"session_profile_id": profile1}), of("ACTIVITY_TYPE_OTP_LOGIN_V2", map[string]any{"session_profile_id": profile2})},
		{"docs: mfa/examples (creating MFA policies)", "activity.resource == 'MFA_POLICY' && activity.action == 'CREATE'",
			of("ACTIVITY_TYPE_CREATE_MFA_POLICY", nil), of("ACTIVITY_TYPE_DELETE_MFA_POLICY", nil)},
		{"docs: mfa/examples (deleting MFA policies)", "activity.resource == 'MFA_POLICY' && activity.action == 'DELETE'",
			of("ACTIVITY_TYPE_DELETE_MFA_POLICY", nil), of("ACTIVITY_TYPE_CREATE_MFA_POLICY", nil)},
		{"docs: session-profiles scope (everything but exports)", "activity.action != 'EXPORT'",
			transferTo(recip), of("ACTIVITY_TYPE_EXPORT_WALLET", map[string]any{"target_public_key": "04ab"})},
		{"docs: webhooks/overview (create endpoints)", "activity.type == 'ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT'",
			of("ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT", nil), of("ACTIVITY_TYPE_UPDATE_WEBHOOK_ENDPOINT", nil)},
		{"docs: webhooks/overview (update endpoints)", "activity.type == 'ACTIVITY_TYPE_UPDATE_WEBHOOK_ENDPOINT'",
			of("ACTIVITY_TYPE_UPDATE_WEBHOOK_ENDPOINT", nil), of("ACTIVITY_TYPE_DELETE_WEBHOOK_ENDPOINT", nil)},
		{"docs: webhooks/overview (delete endpoints)", "activity.type == 'ACTIVITY_TYPE_DELETE_WEBHOOK_ENDPOINT'",
			of("ACTIVITY_TYPE_DELETE_WEBHOOK_ENDPOINT", nil), of("ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT", nil)},

		// EVM transactions. Placeholders written without quotes (delegated-access/backend's JSON) stand for quoted
		// values, as the page's own code writes them.
		{"ref 14, docs: quickstart, overview, policy-engine snippet, users/best-practices, delegated-access (backend, frontend, agentic-wallets) (address allowlist)", "eth.tx.to == '" + recip + "'",
			send(recip, "1", 1, 0), send(cold, "1", 1, 0)},
		{"ref 14 (SDK), docs: cookbooks aave, morpho, vaultsfyi (allowlist with in)", "eth.tx.to in ['" + usdc + "', '" + vaultAddr + "']",
			transferTo(recip), send(recip, "1", 1, 0)},
		{"ref 15: ERC-20 selector and recipient from raw calldata", "eth.tx.to == '" + usdc + "' && eth.tx.data[0..10] == '0xa9059cbb' && eth.tx.data[34..74] == '" + strings.TrimPrefix(recip, "0x") + "'",
			transferTo(recip), transferTo(cold)},
		{"docs: ethereum (ERC-20 transfers of one token, raw calldata)", "eth.tx.to == '" + usdc + "' && eth.tx.data[0..10] == '0xa9059cbb'",
			transferTo(recip), call(usdc, selectorCall("0x095ea7b3"), 1)},
		{"docs: delegated-access/overview FAQ (data[0..4] is 0x and the selector's first byte)", "eth.tx.to == '" + usdc + "' &&\n  eth.tx.data[0..4] == '0xa9'",
			transferTo(recip), call(usdc, selectorCall("0x095ea7b3"), 1)},
		{"ref 18, docs: ethereum (Sepolia)", "eth.tx.chain_id == 11155111", send(recip, "1", 11155111, 0), send(recip, "1", 1, 0)},
		{"ref 18, docs: ethereum (an early nonce)", "eth.tx.nonce <= 3", send(recip, "1", 1, 3), send(recip, "1", 1, 4)},
		{"ref 16, docs: solutions/agentic-wallets (cap at 0.5 ETH, a DENY)", "activity.action == 'SIGN' && eth.tx.value > 500000000000000000",
			send(recip, "500000000000000001", 1, 0), send(recip, "500000000000000000", 1, 0)},
		{"ref 17 (Turnkey skills): tiered consensus above 1 ETH", "activity.action == 'SIGN' && eth.tx.value > 1000000000000000000",
			send(recip, "2000000000000000000", 1, 0), send(recip, "1000000000000000000", 1, 0)},
		{"docs: solutions/agentic-wallets (human approval above 0.1 ETH)", "activity.action == 'SIGN' && wallet.id == '" + walletW + "' && eth.tx.value > 100000000000000000",
			send(recip, "200000000000000000", 1, 0), send(recip, "100000000000000000", 1, 0)},
		{"docs: solutions/agentic-wallets (the agent signs with its wallet)", "activity.type in ['ACTIVITY_TYPE_SIGN_TRANSACTION_V2', 'ACTIVITY_TYPE_ETH_SEND_TRANSACTION'] && wallet.id == '" + walletW + "'",
			send(recip, "1", 1, 0).with(ethSend), rawPayload("HASH_FUNCTION_KECCAK256", "PAYLOAD_ENCODING_HEXADECIMAL")},
		{"docs: solutions/agentic-wallets (only the Uniswap router on mainnet, chain id quoted)", "activity.action == 'SIGN' && wallet.id == '" + walletW + "' && eth.tx.to == '" + uniRouter + "' && eth.tx.chain_id == '1'",
			call(uniRouter, selectorCall("0x38ed1739"), 1), call(uniRouter, selectorCall("0x38ed1739"), 8453)},
		{"docs: delegated-access/agentic-wallets (one Uniswap swap on mainnet)", "eth.tx.to == '" + uniRouter + "' && eth.tx.data[0..10] == '0x38ed1739' && eth.tx.chain_id == 1",
			call(uniRouter, selectorCall("0x38ed1739"), 1), call(uniRouter, selectorCall("0x095ea7b3"), 1)},
		{"docs: solutions/agentic-payments (USDC on Base by eth_send_transaction)", "activity.type == 'ACTIVITY_TYPE_ETH_SEND_TRANSACTION' && wallet.id == '" + walletW + "' && eth.tx.to == '" + baseUSDC + "'",
			call(baseUSDC, erc20Transfer(recip), 8453).with(ethSend), call(baseUSDC, erc20Transfer(recip), 8453)},
		{"docs: solutions/payment-orchestration (sweep deposits to the omnibus)", "activity.action == 'SIGN' && wallet.id == '" + walletW + "' && eth.tx.to == '" + vaultAddr + "'",
			send(vaultAddr, "1", 1, 0), send(cold, "1", 1, 0)},
		// The second <COLD_WALLET_ADDRESS> is compared with 40 hex digits of calldata, so it is written without 0x.
		{"docs: solutions/payment-orchestration (omnibus to the cold wallet, ETH or ERC-20)", "activity.action == 'SIGN' && wallet.id == '" + walletW + "' && (eth.tx.to == '" + cold + "' || (eth.tx.data[0..10] == '0xa9059cbb' && eth.tx.data[34..74] == '" + strings.ToLower(cold[2:]) + "'))",
			transferTo(cold), transferTo(recip)},
		{"docs: solutions/payment-orchestration (Solana deposits to the omnibus)", "activity.action == 'SIGN' && wallet.id == '" + walletW + "' && solana.tx.transfers.count == 1 && solana.tx.transfers[0].to == '" + solBob + "'",
			solDeposit(solBob), solDeposit(solBad)},
		{"docs: solutions/smart-contract-management (deploy on Base, chain id quoted)", "activity.action == 'SIGN' && wallet.id == '" + walletW + "' && eth.tx.to == '' && eth.tx.chain_id == '8453'",
			call("", "0x6080604052", 8453), call("", "0x6080604052", 1)},
		{"docs: solutions/smart-contract-management (mint)", "activity.action == 'SIGN' && wallet.id == '" + walletW + "' && eth.tx.to == '" + tokenAddr + "' && eth.tx.data[0..10] == '0x40c10f19'",
			call(tokenAddr, selectorCall("0x40c10f19"), 8453), call(tokenAddr, erc20Transfer(recip), 8453)},
		{"docs: solutions/smart-contract-management (upgrade the proxy)", "activity.action == 'SIGN' && wallet.id == '" + walletW + "' && eth.tx.to == '" + vaultAddr + "' && eth.tx.data[0..10] == '0x3659cfe6'",
			call(vaultAddr, selectorCall("0x3659cfe6"), 8453), call(cold, selectorCall("0x3659cfe6"), 8453)},
		{"docs: cookbooks/yieldxyz (approve USDC)", "eth.tx.to == '" + strings.ToLower(usdc) + "' && eth.tx.data[0..10] == '0x095ea7b3'",
			call(usdc, selectorCall("0x095ea7b3"), 1), transferTo(recip)},
		{"docs: cookbooks/yieldxyz (deposit into the vault)", "eth.tx.to == '" + vaultAddr + "' && eth.tx.data[0..10] == '0x6e553f65'",
			call(vaultAddr, selectorCall("0x6e553f65"), 1), call(vaultAddr, selectorCall("0xba087652"), 1)},
		{"docs: cookbooks/yieldxyz (withdraw from the vault)", "eth.tx.to == '" + vaultAddr + "' && eth.tx.data[0..10] == '0xba087652'",
			call(vaultAddr, selectorCall("0xba087652"), 1), call(vaultAddr, selectorCall("0x6e553f65"), 1)},
		{"docs: time-based-policies (ops sign to the treasury)", "activity.kind == 'SIGN_TRANSACTION' && eth.tx.to == '" + recip + "'",
			send(recip, "1", 1, 0), send(cold, "1", 1, 0)},

		// Contract calls decoded with an uploaded ABI.
		{"ref 19, docs: ethereum, smart-contract-interfaces (limit WETH transfers)", "eth.tx.contract_call_args['wad'] < 1000000000000000000 && eth.tx.contract_call_args['dst'] == '" + wethDst + "'",
			wethTransfer("999999999999999999"), wethTransfer("1000000000000000000")},
		{"ref 19, docs: ethereum (only transfer calls to a contract)", "eth.tx.to == '" + weth + "' && eth.tx.function_name == 'transfer'",
			wethTransfer("1"), wethApprove()},
		{"docs: smart-contract-interfaces (function name and selector)", "eth.tx.function_name == 'transfer' && eth.tx.function_signature == '0xa9059cbb'",
			wethTransfer("1"), wethApprove()},
		{"docs: smart-contract-interfaces (an argument by name)", "eth.tx.contract_call_args['arg_name'] == 1",
			abiCall(weth, "f", "f(uint256)", map[string]any{"arg_name": json.Number("1")}), abiCall(weth, "f", "f(uint256)", map[string]any{"arg_name": json.Number("2")})},
		{"docs: ethereum (executeBatch with exactly 2 calls)", "eth.tx.function_name == 'executeBatch' && eth.tx.contract_call_args['calls'].count() == 2",
			batch(batchCall(batchC, "0"), batchCall(batchC, "0")), batch(batchCall(batchC, "0"))},
		{"docs: ethereum (executeBatch to a whitelisted contract only)", "eth.tx.function_name == 'executeBatch' && " + batchAll,
			batch(batchCall(batchC, "0"), batchCall(batchC, "0"), batchCall(batchC, "0")), batch(batchCall(batchC, "0"), batchCall(batchC, "1"))},
		{"ref 20, docs: ethereum (executeBatch, at most 2 calls to a whitelisted contract)", "eth.tx.function_name == 'executeBatch' && eth.tx.contract_call_args['calls'].count() <= 2 && " + batchAll,
			batch(batchCall(batchC, "0"), batchCall(batchC, "0")), batch(batchCall(batchC, "0"), batchCall(batchC, "0"), batchCall(batchC, "0"))},
		{"docs: ethereum (disperse to whitelisted recipients)", "eth.tx.function_name == 'disperse' && eth.tx.contract_call_args['recipients'].all(addr, addr in ['" + recip + "', '" + vaultAddr + "', '" + tokenAddr + "'])",
			disperse(recip, tokenAddr), disperse(recip, cold)},

		// EIP-712 typed data and EIP-7702 authorizations.
		{"docs: ethereum (Hyperliquid ApproveAgent)", "eth.eip_712.domain.name == 'HyperliquidSignTransaction' && eth.eip_712.primary_type == 'HyperliquidTransaction:ApproveAgent'" + isRaw,
			hyperliquid("HyperliquidTransaction:ApproveAgent"), hyperliquid("HyperliquidTransaction:UsdSend")},
		{"docs: ethereum (Permit2 batch whose first token is USDC)", permit2Is + "eth.eip_712.message['permitted'][0]['token'] == '" + usdc + "'" + isRaw,
			permitBatch(usdc+":1000000000", recip+":1"), permitBatch(recip+":1", usdc+":1000000000")},
		{"ref 21, docs: ethereum (Permit2 batch of USDC only)", permit2Is + "eth.eip_712.message['permitted'].all(p, p['token'] == '" + usdc + "')" + isRaw,
			permitBatch(strings.ToLower(usdc)+":1", usdc+":2"), permitBatch(usdc+":1", recip+":2")},
		{"docs: ethereum (Permit2 batch of at most 2 permissions)", permit2Is + "eth.eip_712.message['permitted'].count() <= 2" + isRaw,
			permitBatch(usdc+":1", recip+":2"), permitBatch(usdc+":1", recip+":2", vaultAddr+":3")},
		{"docs: ethereum (a USDC permission below 100 USDC)", permit2Is + "eth.eip_712.message['permitted'].any(p, p['token'] == '" + usdc + "' && p['amount'] < 100000000)" + isRaw,
			permitBatch(recip+":5", usdc+":99999999"), permitBatch(usdc + ":1000000000")},
		{"docs: ethereum (EIP-3009 transfers of USD Coin)", "eth.eip_712.domain.name == 'USD Coin' && eth.eip_712.primary_type == 'TransferWithAuthorization'" + isRaw,
			typedData(usdcDomain, "TransferWithAuthorization", `{"from":"`+signerAddr+`","to":"`+recip+`","value":"1000000","validAfter":0,"validBefore":1767225600,"nonce":"0x01"}`),
			typedData(usdcDomain, "ReceiveWithAuthorization", `{"from":"`+signerAddr+`","to":"`+recip+`","value":"1000000","validAfter":0,"validBefore":1767225600,"nonce":"0x01"}`)},
		{"docs: ethereum (EIP-2612 permits of USD Coin)", "eth.eip_712.domain.name == 'USD Coin' && eth.eip_712.primary_type == 'Permit'" + isRaw,
			typedData(usdcDomain, "Permit", `{"owner":"`+signerAddr+`","spender":"`+recip+`","value":"1000000","nonce":0,"deadline":1767225600}`),
			typedData(EIP712Domain{Name: "Dai Stablecoin", Version: "1", ChainID: big.NewInt(1)}, "Permit", `{"holder":"`+signerAddr+`","spender":"`+recip+`","nonce":0,"expiry":1767225600,"allowed":true}`)},
		{"docs: ethereum (EIP-7702 authorizations, chain id and nonce quoted)", "eth.eip_7702_authorization.address == '" + vaultAddr + "' && eth.eip_7702_authorization.chain_id == '1' && eth.eip_7702_authorization.nonce == '9'" + isRaw,
			authorization(9), authorization(10)},

		// Velocity controls.
		{"@turnkey/http 6.6.0 types: a velocity control, read as controls.<identifier>", "controls.daily_usdc", controls(true), controls(false)},
	})
}

func TestDocumentedConsensus(t *testing.T) {
	t.Parallel()
	approvers := func(users ...User) *Input { return &Input{Approvers: users} }
	credentials := func(creds ...Credential) *Input { return &Input{Approvers: []User{user(alice)}, Credentials: creds} }
	passkey := Credential{ID: "c1", UserID: alice, PublicKey: "02a1b2c3", CredentialID: "cred-1", Type: "CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR"}
	apiKey := Credential{ID: "c2", UserID: alice, PublicKey: "03d4e5f6", Type: "CREDENTIAL_TYPE_API_KEY_P256"}
	agent, human := "agent-user", "human-admin"
	runExamples(t, Consensus, []chainExample{
		{"ref 1, 14, docs: access-control, signing-control, quickstart, time-based-policies, language, email, sms, otp-migration-guide, delegated-access, solutions, cookbooks (one user)", "approvers.any(user, user.id == '" + alice + "')",
			approvers(user(bob), user(alice)), approvers(user(bob))},
		{"ref 2, 6, docs: access-control, time-based-policies (a tagged user)", "approvers.any(user, user.tags.contains('" + tagOps + "'))",
			approvers(user(bob), user(alice, tagOps)), approvers(user(bob, tagSec))},
		{"ref 3, docs: access-control (two tagged users)", "approvers.filter(user, user.tags.contains('" + tagOps + "')).count() >= 2",
			approvers(user(alice, tagOps), user(bob, tagOps)), approvers(user(alice, tagOps), user(bob))},
		{"docs: access-control note (two users of either tag, in total)", "approvers.filter(user, user.tags.contains('" + tagSec + "') || user.tags.contains('" + tagOps + "')).count() >= 2",
			approvers(user(alice, tagSec), user(bob, tagOps)), approvers(user(alice, tagSec, tagOps), user(carol))},
		{"docs: access-control (1 security + 2 ops; a user with both tags counts for both)", "approvers.any(user, user.tags.contains('" + tagSec + "') || user.tags.contains('" + tagOps + "')) && (approvers.filter(user, user.tags.contains('" + tagSec + "')).count() >= 1 && approvers.filter(user, user.tags.contains('" + tagOps + "')).count() >= 2)",
			approvers(user(alice, tagSec, tagOps), user(bob, tagOps)), approvers(user(alice, tagOps), user(bob, tagOps), user(carol))},
		{"ref 4: per-tag minimums", "approvers.filter(u, u.tags.contains('" + tagSec + "')).count() >= 1 && approvers.filter(u, u.tags.contains('" + tagOps + "')).count() >= 2",
			approvers(user(alice, tagSec), user(bob, tagOps), user(carol, tagOps)), approvers(user(alice, tagSec), user(bob, tagOps))},
		{"ref 5, docs: users/best-practices, mfa/examples, key-management/encryption-key-storage (two approvers, the initiator included)", "approvers.count() >= 2",
			approvers(user(alice), user(bob)), approvers(user(alice))},
		{"ref 9, docs: access-control (passkeys only)", "credentials.any(credential, credential.type == 'CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR')",
			credentials(apiKey, passkey), credentials(apiKey)},
		{"docs: access-control (one credential's public key)", "credentials.any(credential, credential.public_key == '02a1b2c3')",
			credentials(passkey), credentials(apiKey)},
		{"ref 17 (Turnkey skills): two admins", "approvers.filter(u, u.tags.contains('" + tagSec + "')).count() >= 2",
			approvers(user(alice, tagSec), user(bob, tagSec)), approvers(user(alice, tagSec))},
		{"docs: solutions/agentic-wallets, delegated-access/agentic-wallets (the agent and a human)", "approvers.any(user, user.id == '" + agent + "') && approvers.any(user, user.id == '" + human + "')",
			approvers(user(agent), user(human)), approvers(user(agent), user(bob))},
		{"docs: solutions/payment-orchestration (more than one of the ops team)", "approvers.filter(user, user.tags.contains('" + tagOps + "')).count() > 1",
			approvers(user(alice, tagOps), user(bob, tagOps)), approvers(user(alice, tagOps))},
		{"SDK with-bitcoin, with-tron (one approver)", "approvers.count() == 1", approvers(user(alice)), approvers(user(alice), user(bob))},
		{"docs: delegated-access/backend (a delegated user; the JSON leaves the placeholder unquoted, the code quotes it)", "approvers.any(user, user.id == '" + agent + "')",
			approvers(user(agent)), approvers(user(human))},
	})
}

func TestDocumentedTimes(t *testing.T) {
	t.Parallel()
	at := func(s string) *Input { return &Input{Now: mustTime(t, s)} }
	businessHours := "CronSpan('0 9 * * 1-5', '8h', 'America/New_York')"
	overnight := "CronSpan('0 22 * * *', '8h', 'America/New_York')"
	runExamples(t, Time, []chainExample{
		{"ref 30, docs: time-based-policies (March 2026, start-inclusive)", "time.now >= Timestamp('2026-03-01T00:00:00Z') && time.now < Timestamp('2026-04-01T00:00:00Z')",
			at("2026-03-01T00:00:00Z"), at("2026-02-28T23:59:59Z")},
		{"ref 30, docs: time-based-policies (March 2026, end-exclusive)", "time.now >= Timestamp('2026-03-01T00:00:00Z') && time.now < Timestamp('2026-04-01T00:00:00Z')",
			at("2026-03-31T23:59:59Z"), at("2026-04-01T00:00:00Z")},
		{"ref 30, docs: time-based-policies, language (business hours; Friday 6 March 2026 is EST)", businessHours,
			at("2026-03-06T14:30:00Z"), at("2026-03-06T13:30:00Z")},
		{"ref 30, docs: business hours follow daylight saving (Monday 9 March 2026 is EDT)", businessHours,
			at("2026-03-09T13:30:00Z"), at("2026-03-09T21:30:00Z")},
		{"docs: time-based-policies (overnight, until 6:00 on ordinary nights)", overnight,
			at("2026-03-11T09:59:00Z"), at("2026-03-11T10:00:00Z")},
		{"docs: time-based-policies (overnight, until 7:00 after spring-forward)", overnight,
			at("2026-03-08T10:59:00Z"), at("2026-03-08T11:00:00Z")},
		{"docs: time-based-policies (overnight, until 5:00 after fall-back)", overnight,
			at("2026-11-01T09:59:00Z"), at("2026-11-01T10:00:00Z")},
		{"docs: time-based-policies (business hours through 2025)", businessHours + " && time.now < Timestamp('2026-01-01T00:00:00Z')",
			at("2025-12-31T15:00:00Z"), at("2026-01-05T15:00:00Z")},
		{"docs: language (January 2025)", "time.now >= Timestamp('2025-01-01T00:00:00Z') && time.now < Timestamp('2025-02-01T00:00:00Z')",
			at("2025-01-15T12:00:00Z"), at("2025-02-01T00:00:00Z")},
		{"docs: language, time-based-policies (a zero offset written Z, z, +00:00 or -00:00)", "time.now >= Timestamp('2025-01-01T00:00:00z') && time.now < Timestamp('2025-02-01T00:00:00+00:00') && time.now != Timestamp('2025-01-15T00:00:00-00:00')",
			at("2025-01-15T00:00:01Z"), at("2025-01-15T00:00:00Z")},
		{"docs: time-based-policies (day of the month and of the week OR'd: 0 9 1 * 1 fires every 1st and every Monday)", "CronSpan('0 9 1 * 1', '90m', 'America/New_York')",
			at("2026-03-02T15:29:00Z"), at("2026-03-03T14:30:00Z")},
	})
}

// The documentation's examples of expressions that always fail: an ALLOW reading them never allows.
func TestDocumentedErrors(t *testing.T) {
	t.Parallel()
	withWallet := ethSign(t, EthTx{To: usdc, Data: erc20Transfer(recip), Value: big.NewInt(0)})
	withKey := &Input{Activity: factsOf(t, "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", nil), PrivateKey: &PrivateKey{ID: "pk-1"}}
	batch := ethSign(t, EthTx{To: usdc, Data: "0x", Value: big.NewInt(0), Call: &ContractCall{FunctionName: "executeBatch",
		FunctionSignature: "executeBatch((address,uint256,bytes)[])", Args: map[string]any{"calls": []any{[]any{strings.ToLower(batchC), json.Number("0"), "0x"}}}}})
	for _, tt := range []struct {
		source, condition string
		inputs            []*Input
	}{
		{"ref §2.2, docs: language appendix (a wallet or a private key: never both)", "wallet.id == '" + walletW + "' || private_key.id == 'pk-1'",
			[]*Input{withWallet, withKey}},
		{"ref 20, docs: ethereum note (tuple fields by name produce OUTCOME_ERROR)", "eth.tx.contract_call_args['calls'].all(call, call['target'] == '" + batchC + "')",
			[]*Input{batch}},
		{"docs: language, smart-contract-interfaces (ABI fields need an uploaded interface)", "eth.tx.function_name == 'transfer'",
			[]*Input{withWallet}},
	} {
		e := mustCompile(t, tt.condition, Condition)
		for i, in := range tt.inputs {
			if got, err := e.Eval(in); err == nil || got {
				t.Errorf("%s: input %d: Eval = %v, %v; want an error", tt.source, i, got, err)
			}
		}
	}
}

// Whole documented policies, decided: a tag-scoped DENY, a time-gated ALLOW, and an ALLOW whose failed clause cannot
// change its result.
func TestDocumentedPolicies(t *testing.T) {
	t.Parallel()
	quorum := RootQuorum{UserIDs: []string{carol}, Threshold: 1}
	deleteWallets := func(approver User) *Input {
		return &Input{Activity: factsOf(t, "ACTIVITY_TYPE_DELETE_WALLETS", nil), Approvers: []User{approver}}
	}
	walletAdmin := pol(t, "wallet-admin", EffectAllow, "activity.resource == 'WALLET'", "")
	noTaggedDeletes := pol(t, "tag-cannot-delete", EffectDeny, "activity.action == 'DELETE'", "approvers.any(user, user.tags.contains('"+tagOps+"'))")

	opsHours := pol(t, "ops-treasury-hours", EffectAllow, "activity.kind == 'SIGN_TRANSACTION' && eth.tx.to == '"+recip+"'",
		"approvers.any(user, user.tags.contains('"+tagOps+"'))")
	opsHours.Time = mustCompile(t, "CronSpan('0 9 * * 1-5', '8h', 'America/New_York')", Time)
	toTreasury := func(now string, approver User) *Input {
		in := ethSign(t, EthTx{To: recip, Data: "0x", Value: big.NewInt(1), ChainID: big.NewInt(1)})
		in.Approvers, in.Now = []User{approver}, mustTime(t, now)
		return in
	}

	cold := strings.ToLower(otherAddr)
	sweep := pol(t, "omnibus-to-cold", EffectAllow, "activity.action == 'SIGN' && wallet.id == '"+walletW+"' && (eth.tx.to == '"+cold+"' || (eth.tx.data[0..10] == '0xa9059cbb' && eth.tx.data[34..74] == '"+cold[2:]+"'))",
		"approvers.any(user, user.id == '"+alice+"')")

	tests := []struct {
		name    string
		in      *Input
		policy  []Policy
		outcome Outcome
		evals   string
	}{
		{"docs: access-control, a tagged user's delete is denied", deleteWallets(user(bob, tagOps)), []Policy{walletAdmin, noTaggedDeletes},
			Deny, "wallet-admin=ALLOW tag-cannot-delete=DENY_EXPLICIT"},
		{"docs: access-control, another user's delete is not", deleteWallets(user(bob)), []Policy{walletAdmin, noTaggedDeletes},
			Allow, "wallet-admin=ALLOW tag-cannot-delete=DENY_IMPLICIT"},
		{"docs: time-based-policies, ops sign to the treasury in business hours", toTreasury("2026-03-09T13:30:00Z", user(bob, tagOps)), []Policy{opsHours},
			Allow, "ops-treasury-hours=ALLOW"},
		{"docs: time-based-policies, not after hours", toTreasury("2026-03-09T21:30:00Z", user(bob, tagOps)), []Policy{opsHours},
			Deny, "ops-treasury-hours=TIME_INACTIVE"},
		{"docs: time-based-policies, nor without an ops approver", toTreasury("2026-03-09T13:30:00Z", user(bob)), []Policy{opsHours},
			ConsensusNeeded, "ops-treasury-hours=REQUIRES_CONSENSUS"},
		// A plain transfer to the cold wallet has calldata 0x, too short for the ERC-20 clause; that clause cannot
		// change the result.
		{"docs: payment-orchestration, ETH to the cold wallet", ethSign(t, EthTx{To: otherAddr, Data: "0x", Value: big.NewInt(1)}), []Policy{sweep},
			Allow, "omnibus-to-cold=ALLOW"},
		{"docs: payment-orchestration, USDC to the cold wallet", ethSign(t, EthTx{To: usdc, Data: erc20Transfer(otherAddr), Value: big.NewInt(0)}), []Policy{sweep},
			Allow, "omnibus-to-cold=ALLOW"},
		{"docs: payment-orchestration, USDC elsewhere", ethSign(t, EthTx{To: usdc, Data: erc20Transfer(recip), Value: big.NewInt(0)}), []Policy{sweep},
			Deny, "omnibus-to-cold=DENY_IMPLICIT"},
	}
	for _, tt := range tests {
		d := Decide(&Request{RootQuorum: quorum, Input: tt.in, Policies: tt.policy})
		if d.Outcome != tt.outcome || outcomes(d) != tt.evals {
			t.Errorf("%s: %v [%s] %q, want %v [%s]", tt.name, d.Outcome, outcomes(d), d.Message, tt.outcome, tt.evals)
		}
	}
}

// eth.tx.function_signature is the selector; a literal may be the selector or the signature, and nothing else.
func TestFunctionSignatureLiterals(t *testing.T) {
	t.Parallel()
	in := &Input{EthTx: &EthTx{To: usdc, Data: erc20Transfer(recip), Call: &ContractCall{FunctionName: "transfer",
		FunctionSignature: "transfer(address,uint256)", Args: map[string]any{}}}}
	for src, want := range map[string]bool{
		"eth.tx.function_signature == '0xa9059cbb'":                                true,
		"eth.tx.function_signature == '0xA9059CBB'":                                true,
		"'transfer(address,uint256)' == eth.tx.function_signature":                 true,
		"eth.tx.function_signature != 'approve(address,uint256)'":                  true,
		"eth.tx.function_signature in ['0x095ea7b3', 'transfer(address,uint256)']": true,
		"eth.tx.function_signature in ['0x095ea7b3', 'approve(address,uint256)']":  false,
		"eth.tx.function_signature == eth.tx.data[0..10]":                          true,
	} {
		e := mustCompile(t, src, Condition)
		if got, err := e.Eval(in); err != nil || got != want {
			t.Errorf("%s = %v, %v; want %v", src, got, err, want)
		}
	}
	for _, src := range []string{"eth.tx.function_signature == 'transfer'", "eth.tx.function_signature in ['0xa9059cbb', 'transfer (address,uint256)']"} {
		if _, err := Compile(src, Condition); err == nil || !strings.Contains(err.Error(), "is neither a function selector") {
			t.Errorf("Compile(%q) = %v, want a refusal", src, err)
		}
	}
}
