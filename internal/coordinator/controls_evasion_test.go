package coordinator_test

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"math/big"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/btcutil/base58"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/params"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/coordinator"
	"github.com/sigil/sigil/internal/send"
	"github.com/sigil/sigil/internal/testdb"
)

// capControl is a SUM control of at most threshold of one asset per wallet per day, read by the only policy of a
// non-root user, which allows signing and sending while the control passes (and, with condition, while it holds
// too).
func capControl(t *testing.T, s *stack, ident, caip19, decimals, threshold, condition string) *client.Client {
	t.Helper()
	org := s.boot.OrganizationID
	userID, user := s.createUser(org, s.root, ident+" agent")
	control := api.CreateVelocityControlIntent{Name: ident, Identifier: ident,
		DataSource: api.VelocityControlDataSource{ChainAssetTransfer: &api.ChainAssetTransferSource{
			Definition: []api.AssetDefinition{{CAIP19: caip19, Decimals: decimals}}}},
		Aggregation: api.VelocityAggregation{Method: api.AggregationSum, Operator: api.OperatorLessThanOrEqual, Threshold: threshold,
			Window: api.VelocityWindow{Rolling: &api.RollingWindow{Duration: "86400"}}, GroupBy: api.VelocityGroupBy{Wallet: &api.Empty{}}}}
	if _, _, err := s.root.CreateVelocityControl(bg, org, control); err != nil {
		t.Fatal(err)
	}
	cond := "activity.resource == 'PRIVATE_KEY' && activity.action == 'SIGN' && controls." + ident
	if condition != "" {
		cond += " && " + condition
	}
	s.policy(ident, api.EffectAllow, cond, "approvers.any(u, u.id == '"+userID+"')")
	return user
}

// expectUnmeasured checks a denial that names the control that could not measure the activity, and why.
func expectUnmeasured(t *testing.T, what string, err error, ident, why string) {
	t.Helper()
	if !client.IsCode(err, apierr.PermissionDenied) || !strings.Contains(err.Error(), "velocity control "+ident+" cannot measure this activity") ||
		!strings.Contains(err.Error(), why) {
		t.Errorf("%s: %v, want a denial saying controls.%s cannot measure it (%s)", what, err, ident, why)
	}
}

var batchExecuteABI = func() abi.ABI {
	a, err := abi.JSON(strings.NewReader(`[{"type":"function","name":"execute","inputs":[{"name":"calls","type":"tuple[]","components":[
		{"name":"to","type":"address"},{"name":"value","type":"uint256"},{"name":"data","type":"bytes"}]}]}]`))
	if err != nil {
		panic(err)
	}
	return a
}()

type batchCall struct {
	To    common.Address
	Value *big.Int
	Data  []byte
}

func executeCalldata(t *testing.T, calls ...batchCall) []byte {
	t.Helper()
	for i := range calls {
		if calls[i].Value == nil {
			calls[i].Value = new(big.Int)
		}
		if calls[i].Data == nil {
			calls[i].Data = []byte{}
		}
	}
	data, err := batchExecuteABI.Pack("execute", calls)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// tenthsOfEther is n tenths of an ether, in wei.
func tenthsOfEther(n int64) *big.Int {
	return new(big.Int).Mul(big.NewInt(n), big.NewInt(params.Ether/10))
}

// A 1-unit cap on the test token: a transfer whose calldata carries one trailing byte (which Solidity ignores) moves
// its amount and is counted, so 500,000 of it are denied; a transferFrom likewise; a call of the token that is no
// transfer (transferAndCall) or too short to read cannot be measured, and is denied with the reason; a call of another
// contract does not move the token, and is allowed. evaluate_activity reports the control's error.
func TestVelocityControlReadsERC20CallsBySelector(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newStack(t, b)
		org := s.boot.OrganizationID
		agent := capControl(t, s, "one_usdc", "eip155:1337/erc20:"+token.Hex(), "6", "1", "")
		from := s.ethWallet("capped")
		nonce := uint64(0)
		sign := func(to common.Address, data []byte) error {
			nonce++
			_, _, err := agent.SignTransaction(bg, org, api.SignTransactionIntentV2{SignWith: from, Type: api.TransactionTypeEthereum,
				UnsignedTransaction: unsigned1559(t, to, data, nonce)})
			return err
		}
		if err := sign(token, calldata(t, "transfer", other, usdc(1))); err != nil {
			t.Fatalf("a transfer of exactly the cap: %v", err)
		}
		trailing := append(calldata(t, "transfer", other, usdc(500_000)), 0)
		if err := sign(token, trailing); !client.IsCode(err, apierr.PermissionDenied) {
			t.Errorf("500,000 with one trailing byte of calldata: %v, want a denial", err)
		}
		from3 := append(append(append([]byte{0x23, 0xb8, 0x72, 0xdd}, common.LeftPadBytes(other.Bytes(), 32)...),
			common.LeftPadBytes(other.Bytes(), 32)...), append(common.LeftPadBytes(usdc(10).Bytes(), 32), 1, 2, 3)...)
		if err := sign(token, from3); !client.IsCode(err, apierr.PermissionDenied) {
			t.Errorf("a transferFrom with trailing bytes: %v, want a denial", err)
		}
		transferAndCall := append([]byte{0x40, 0x00, 0xae, 0xa0}, calldata(t, "transfer", other, usdc(5))[4:]...)
		expectUnmeasured(t, "transferAndCall", sign(token, transferAndCall), "one_usdc", "that is not an ERC-20 transfer")
		expectUnmeasured(t, "a transfer too short to read", sign(token, calldata(t, "transfer", other, usdc(1))[:40]), "one_usdc", "too short")
		if err := sign(vault, calldata(t, "deposit", usdc(1000), other)); err != nil {
			t.Errorf("a call of another contract, which moves none of the token: %v", err)
		}
		ev, err := agent.EvaluateActivity(bg, org, "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", api.SignTransactionIntentV2{SignWith: from,
			Type: api.TransactionTypeEthereum, UnsignedTransaction: unsigned1559(t, token, transferAndCall, 99)})
		if err != nil || ev.Decision != "DENY" || len(ev.VelocityControls) != 1 || !strings.Contains(ev.VelocityControls[0].Error, "not an ERC-20 transfer") {
			t.Errorf("evaluate_activity of an unmeasurable call: %+v %v", ev, err)
		}
	})
}

// A control read by a DENY fails closed too: under a policy allowing every signing and one denying it once the cap
// fails, a call the control cannot measure is denied, and a measured one within the cap is not.
func TestVelocityControlFailsClosedUnderADeny(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newStack(t, b)
		org := s.boot.OrganizationID
		agentID, agent := s.createUser(org, s.root, "agent")
		if _, _, err := s.root.CreateVelocityControl(bg, org, dailyUSDC("10")); err != nil {
			t.Fatal(err)
		}
		approver := "approvers.any(u, u.id == '" + agentID + "')"
		s.policy("sign anything", api.EffectAllow, "activity.action == 'SIGN'", approver)
		s.policy("but the cap", api.EffectDeny, "activity.action == 'SIGN' && !controls.daily_usdc", "")
		from := s.ethWallet("denied")
		sign := func(data []byte) error {
			_, _, err := agent.SignTransaction(bg, org, api.SignTransactionIntentV2{SignWith: from, Type: api.TransactionTypeEthereum,
				UnsignedTransaction: unsigned1559(t, token, data, 1)})
			return err
		}
		if err := sign(calldata(t, "transfer", other, usdc(5))); err != nil {
			t.Fatalf("5 of 10: %v", err)
		}
		transferAndCall := append([]byte{0x40, 0x00, 0xae, 0xa0}, calldata(t, "transfer", other, usdc(500_000))[4:]...)
		if err := sign(transferAndCall); !client.IsCode(err, apierr.PermissionDenied) {
			t.Errorf("a call the control cannot measure, under a DENY reading it: %v, want a denial", err)
		}
	})
}

// A 0.5 ETH cap: the account calling itself through its batch delegate (execute(calls)) moves what the batch's calls
// move, so 3 ETH to another address is denied and 0.1 ETH allowed; a call of itself with other calldata runs code
// that may move anything, and is denied with the reason.
func TestVelocityControlReadsTheBatchDelegatesCalls(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newStack(t, b)
		org := s.boot.OrganizationID
		agent := capControl(t, s, "half_eth", "eip155:1337/slip44:60", "18", "0.5", "")
		from := s.ethWallet("delegated")
		self := common.HexToAddress(from)
		dead := common.HexToAddress("0x000000000000000000000000000000000000dEaD")
		nonce := uint64(0)
		sign := func(data []byte) error {
			nonce++
			_, _, err := agent.SignTransaction(bg, org, api.SignTransactionIntentV2{SignWith: from, Type: api.TransactionTypeEthereum,
				UnsignedTransaction: unsigned1559(t, self, data, nonce)})
			return err
		}
		if err := sign(executeCalldata(t, batchCall{To: dead, Value: tenthsOfEther(30), Data: []byte{}})); !client.IsCode(err, apierr.PermissionDenied) {
			t.Errorf("3 ETH through execute([...]) to itself: %v, want a denial", err)
		}
		if err := sign(executeCalldata(t, batchCall{To: dead, Value: tenthsOfEther(1), Data: []byte{}},
			batchCall{To: token, Data: calldata(t, "transfer", other, usdc(5))})); err != nil {
			t.Errorf("0.1 ETH and a token transfer through execute: %v", err)
		}
		if err := sign(executeCalldata(t, batchCall{To: self, Data: executeCalldata(t, batchCall{To: dead, Value: tenthsOfEther(5), Data: []byte{}})})); !client.IsCode(err, apierr.PermissionDenied) {
			t.Errorf("a nested batch moving 0.5 ETH more (0.6 in the day): %v, want a denial", err)
		}
		expectUnmeasured(t, "a call of itself with other calldata", sign([]byte{0xde, 0xad, 0xbe, 0xef}), "half_eth", "calls itself")
		expectUnmeasured(t, "a batch that does not decode", sign(executeCalldata(t, batchCall{To: dead, Value: tenthsOfEther(1), Data: []byte{}})[:60]),
			"half_eth", "does not decode")
	})
}

// solanaCreateAccount is an unsigned legacy transaction in which funder creates account `created` with lamports
// (System CreateAccount), both signing.
func solanaCreateAccount(funder, created []byte, lamports uint64) []byte {
	msg := []byte{2, 0, 1, 3}
	msg = append(append(append(msg, funder...), created...), make([]byte, 32)...)
	msg = append(msg, bytes.Repeat([]byte{7}, 32)...)
	data := binary.LittleEndian.AppendUint64([]byte{0, 0, 0, 0}, lamports)
	data = binary.LittleEndian.AppendUint64(data, 0)
	data = append(data, make([]byte, 32)...) // owned by the System Program
	msg = append(msg, 1, 2, 2, 0, 1, byte(len(data)))
	msg = append(msg, data...)
	return append(append([]byte{2}, make([]byte, 128)...), msg...)
}

// solanaTransferWithSeed is an unsigned legacy transaction in which base moves lamports from an account derived from
// it to `to` (System TransferWithSeed).
func solanaTransferWithSeed(base, derived, to []byte, lamports uint64) []byte {
	msg := []byte{1, 0, 1, 4}
	msg = append(append(append(append(msg, base...), derived...), to...), make([]byte, 32)...)
	msg = append(msg, bytes.Repeat([]byte{7}, 32)...)
	data := binary.LittleEndian.AppendUint64([]byte{11, 0, 0, 0}, lamports)
	data = binary.LittleEndian.AppendUint64(data, 4)
	data = append(append(data, "seed"...), make([]byte, 32)...)
	msg = append(msg, 1, 3, 3, 1, 0, 2, byte(len(data)))
	msg = append(msg, data...)
	return append(append([]byte{1}, make([]byte, 64)...), msg...)
}

// A 1 SOL cap and a policy letting SOL go to one recipient only: a CreateAccount that funds an attacker's new account
// with 5 SOL is a transfer of 5 SOL to it, seen by both and denied; so is a TransferWithSeed from an account derived
// from the signer; a program other than the System Program given the signer's account cannot be measured.
func TestVelocityControlReadsSolanaAccountCreation(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newStack(t, b)
		org := s.boot.OrganizationID
		friend := bytes.Repeat([]byte{0xf1}, 32)
		agent := capControl(t, s, "one_sol", "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/slip44:501", "9", "1",
			"solana.tx.transfers.all(t, t.to == '"+base58.Encode(friend)+"')")
		address, pub := s.solanaWallet("sol")
		sign := func(tx []byte) error {
			_, _, err := agent.SignTransaction(bg, org, api.SignTransactionIntentV2{SignWith: address, Type: api.TransactionTypeSolana,
				UnsignedTransaction: hex.EncodeToString(tx)})
			return err
		}
		if err := sign(solanaTransfer(pub, friend, 500_000_000)); err != nil {
			t.Fatalf("0.5 SOL to the allowed recipient: %v", err)
		}
		attacker := bytes.Repeat([]byte{0xa7}, 32)
		if err := sign(solanaCreateAccount(pub, attacker, 5_000_000_000)); !client.IsCode(err, apierr.PermissionDenied) {
			t.Errorf("a CreateAccount of the attacker's key funded with 5 SOL: %v, want a denial", err)
		}
		if err := sign(solanaCreateAccount(pub, friend, 600_000_000)); !client.IsCode(err, apierr.PermissionDenied) {
			t.Errorf("a CreateAccount funding the allowed recipient past the cap: %v, want a denial", err)
		}
		if err := sign(solanaTransferWithSeed(pub, bytes.Repeat([]byte{0xde}, 32), friend, 600_000_000)); !client.IsCode(err, apierr.PermissionDenied) {
			t.Errorf("a TransferWithSeed past the cap: %v, want a denial", err)
		}
		if err := sign(solanaCreateAccount(pub, friend, 400_000_000)); err != nil {
			t.Errorf("a CreateAccount funding the allowed recipient within the cap: %v", err)
		}
		program := solanaTransfer(pub, friend, 1)
		copy(program[1+64+4+64:], bytes.Repeat([]byte{0x99}, 32)) // the instruction's program: not the System Program
		expectUnmeasured(t, "another program given the signer's account", sign(program), "one_sol", "its signature lets the program move")
	})
}

// Sends are measured as what they sign is: each call of a send, every call of a batch together. A batch of two
// calls within the cap is allowed (decided once per call, each seeing the control's outcome for the whole batch);
// one past the cap is denied; evaluate_activity measures a send.
func TestVelocityControlMeasuresSendsAndBatches(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newStackWith(t, b, nil, func(cfg *coordinator.Config) {
			nws, err := send.NewNetworks([]send.Network{{CAIP2: "eip155:1337", RPCURL: "http://127.0.0.1:9", // no worker sends
				BatchDelegate: common.HexToAddress("0x00000000000000000000000000000000000de1e9")}})
			if err != nil {
				t.Fatal(err)
			}
			cfg.Networks = nws
		})
		org := s.boot.OrganizationID
		agent := capControl(t, s, "half_eth", "eip155:1337/slip44:60", "18", "0.5", "")
		from := s.ethWallet("sender")
		dead := "0x000000000000000000000000000000000000dEaD"
		sendCalls := func(calls ...api.EthCallParams) error {
			_, _, err := agent.EthSendTransaction(bg, org, api.EthSendTransactionIntentV2{From: from, Caip2: "eip155:1337", Calls: calls})
			return err
		}
		two := []api.EthCallParams{{To: dead, Value: tenthsOfEther(2).String()}, {To: token.Hex(), Value: tenthsOfEther(1).String()}}
		ev, err := agent.EvaluateActivity(bg, org, "ACTIVITY_TYPE_ETH_SEND_TRANSACTION_V2", api.EthSendTransactionIntentV2{From: from, Caip2: "eip155:1337", Calls: two})
		if err != nil || ev.Decision != "ALLOW" || len(ev.VelocityControls) != 1 || ev.VelocityControls[0].Adds != "0.3" {
			t.Fatalf("evaluate_activity of a batch of two within the cap: %+v %v", ev, err)
		}
		if err := sendCalls(two...); err != nil {
			t.Fatalf("a batch of two calls within the cap: %v", err)
		}
		if err := sendCalls(api.EthCallParams{To: dead, Value: tenthsOfEther(1).String()}, api.EthCallParams{To: dead, Value: tenthsOfEther(2).String()}); !client.IsCode(err, apierr.PermissionDenied) {
			t.Errorf("a batch whose two calls together pass the cap: %v, want a denial", err)
		}
		if err := sendCalls(api.EthCallParams{To: dead, Value: tenthsOfEther(2).String()}); err != nil {
			t.Errorf("one call that reaches the cap exactly: %v", err)
		}
		if err := sendCalls(api.EthCallParams{To: dead, Value: "1"}); !client.IsCode(err, apierr.PermissionDenied) {
			t.Errorf("one wei past the cap: %v, want a denial", err)
		}
	})
}
