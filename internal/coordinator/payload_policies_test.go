package coordinator_test

import (
	"encoding/hex"
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/testdb"
)

// permit is ERC-2612 typed data approving value of the test token to spender.
func permit(spender common.Address, value string) string {
	return `{"types":{"EIP712Domain":[{"name":"name","type":"string"},{"name":"version","type":"string"},{"name":"chainId","type":"uint256"},{"name":"verifyingContract","type":"address"}],
		"Permit":[{"name":"owner","type":"address"},{"name":"spender","type":"address"},{"name":"value","type":"uint256"},{"name":"nonce","type":"uint256"},{"name":"deadline","type":"uint256"}]},
		"primaryType":"Permit","domain":{"name":"USD Coin","version":"2","chainId":1337,"verifyingContract":"` + token.Hex() + `"},
		"message":{"owner":"0x0000000000000000000000000000000000000001","spender":"` + spender.Hex() + `","value":"` + value + `","nonce":"0","deadline":"99999999999"}}`
}

// batchExecution is the batch delegate's typed data: account's signed batch of one call sending wei to `to`.
func batchExecution(account, to common.Address, wei string) string {
	return `{"types":{"EIP712Domain":[{"name":"name","type":"string"},{"name":"version","type":"string"},{"name":"chainId","type":"uint256"},{"name":"verifyingContract","type":"address"}],
		"Call":[{"name":"to","type":"address"},{"name":"value","type":"uint256"},{"name":"data","type":"bytes"}],
		"BatchExecution":[{"name":"calls","type":"Call[]"},{"name":"nonce","type":"uint256"},{"name":"deadline","type":"uint256"}]},
		"primaryType":"BatchExecution","domain":{"name":"SigilBatchDelegate","version":"1","chainId":1337,"verifyingContract":"` + account.Hex() + `"},
		"message":{"calls":[{"to":"` + to.Hex() + `","value":"` + wei + `","data":"0x"}],"nonce":"0","deadline":"99999999999"}}`
}

// Raw payloads under velocity controls: a payload is no transaction, but a signature of one may move assets. The
// batch delegate's BatchExecution moves its calls' value (3 ETH through the gas station under a 0.5 ETH cap:
// denied), an ERC-2612 Permit approves its value; typed data of another kind, and a hash or message signed as it
// is, cannot be measured and are denied by a policy that reads the control, with the reason.
func TestVelocityControlMeasuresSignedPayloads(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newStack(t, b)
		org := s.boot.OrganizationID
		agent := capControl(t, s, "half_eth", "eip155:1337/slip44:60", "18", "0.5", "")
		tokens := newStack(t, testdb.Another(t, b)) // another deployment, whose agent's policy reads a token cap
		usdcCapped := capControl(t, tokens, "ten_usdc", "eip155:1337/erc20:"+token.Hex(), "6", "10", "")
		from, tokenFrom := s.ethWallet("payloads"), tokens.ethWallet("permits")
		account := common.HexToAddress(from)
		sign := func(c *client.Client, payload, encoding, hash string) error {
			orgID, signWith := org, from
			if c == usdcCapped {
				orgID, signWith = tokens.boot.OrganizationID, tokenFrom
			}
			_, _, err := c.SignRawPayload(bg, orgID, api.SignRawPayloadIntentV2{SignWith: signWith, Payload: payload, Encoding: encoding, HashFunction: hash})
			return err
		}
		dead := common.HexToAddress("0x000000000000000000000000000000000000dEaD")
		if err := sign(agent, batchExecution(account, dead, tenthsOfEther(30).String()), "PAYLOAD_ENCODING_EIP712", "HASH_FUNCTION_NO_OP"); !client.IsCode(err, apierr.PermissionDenied) {
			t.Errorf("a signed batch of 3 ETH under a 0.5 ETH cap: %v, want a denial", err)
		}
		if err := sign(agent, batchExecution(account, dead, tenthsOfEther(4).String()), "PAYLOAD_ENCODING_EIP712", "HASH_FUNCTION_NO_OP"); err != nil {
			t.Errorf("a signed batch of 0.4 ETH: %v", err)
		}
		if err := sign(agent, batchExecution(account, dead, tenthsOfEther(2).String()), "PAYLOAD_ENCODING_EIP712", "HASH_FUNCTION_NO_OP"); !client.IsCode(err, apierr.PermissionDenied) {
			t.Errorf("0.2 ETH more, 0.6 in the day: %v, want a denial", err)
		}
		if err := sign(usdcCapped, permit(other, "20000000"), "PAYLOAD_ENCODING_EIP712", "HASH_FUNCTION_NO_OP"); !client.IsCode(err, apierr.PermissionDenied) {
			t.Errorf("a permit of 20 under a 10 cap: %v, want a denial", err)
		}
		if err := sign(usdcCapped, permit(other, "10000000"), "PAYLOAD_ENCODING_EIP712", "HASH_FUNCTION_NO_OP"); err != nil {
			t.Errorf("a permit of exactly the cap: %v", err)
		}
		order := strings.ReplaceAll(strings.ReplaceAll(permit(other, "1"), `"Permit"`, `"Order"`), `"Permit":`, `"Order":`)
		expectUnmeasured(t, "typed data of an unknown kind", sign(agent, order, "PAYLOAD_ENCODING_EIP712", "HASH_FUNCTION_NO_OP"), "half_eth", "EIP-712 Order")
		digest := strings.Repeat("ab", 32)
		expectUnmeasured(t, "a digest signed as it is", sign(agent, digest, "PAYLOAD_ENCODING_HEXADECIMAL", "HASH_FUNCTION_NO_OP"), "half_eth", "signed as it is")
	})
}

// EIP-7702 and EIP-712 raw payloads under policies: an authorization is decided with eth.eip_7702_authorization (a
// policy allowing only the batch delegate allows it, and denies another delegate); every payload of
// SIGN_RAW_PAYLOADS is decided, not the first only (a permit to an allowed spender cannot carry one to an attacker);
// and a hexadecimal payload hashed with keccak256 that is an authorization, an EIP-712 signing input or a transaction
// is refused: its signature would be theirs, decided as a message.
func TestRawPayloadPoliciesSeeWhatIsSigned(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newStack(t, b)
		org := s.boot.OrganizationID
		agentID, agent := s.createUser(org, s.root, "agent")
		approver := "approvers.any(u, u.id == '" + agentID + "')"
		delegate := "0x00000000000000000000000000000000000de1e9"
		s.policy("delegate to ours only", api.EffectAllow, "eth.eip_7702_authorization.address == '"+delegate+"' && eth.eip_7702_authorization.chain_id == 1337", approver)
		s.policy("permits to the vault only", api.EffectAllow, "eth.eip_712.primary_type == 'Permit' && eth.eip_712.message['spender'] == '"+strings.ToLower(vault.Hex())+"'", approver)
		s.policy("messages", api.EffectAllow, "activity.params.encoding == 'PAYLOAD_ENCODING_HEXADECIMAL'", approver)
		from := s.ethWallet("authorizer")
		auth := func(address string) string {
			return fmt.Sprintf(`{"address":%q,"chainId":1337,"nonce":3}`, address)
		}
		if _, _, err := agent.SignRawPayload(bg, org, api.SignRawPayloadIntentV2{SignWith: from, Payload: auth(delegate),
			Encoding: "PAYLOAD_ENCODING_EIP7702_AUTHORIZATION", HashFunction: "HASH_FUNCTION_NO_OP"}); err != nil {
			t.Errorf("an authorization to the allowed delegate: %v", err)
		}
		_, _, err := agent.SignRawPayload(bg, org, api.SignRawPayloadIntentV2{SignWith: from, Payload: auth("0x000000000000000000000000000000000000bAd0"),
			Encoding: "PAYLOAD_ENCODING_EIP7702_AUTHORIZATION", HashFunction: "HASH_FUNCTION_NO_OP"})
		if !client.IsCode(err, apierr.PermissionDenied) {
			t.Errorf("an authorization to another delegate: %v, want a denial", err)
		}
		_, _, err = agent.SignRawPayloads(bg, org, api.SignRawPayloadsIntent{SignWith: from, Payloads: []string{permit(vault, "5"), permit(other, "1000000000")},
			Encoding: "PAYLOAD_ENCODING_EIP712", HashFunction: "HASH_FUNCTION_NO_OP"})
		if !client.IsCode(err, apierr.PermissionDenied) {
			t.Errorf("a permit to the vault followed by one to another spender: %v, want a denial", err)
		}
		if _, _, err := agent.SignRawPayloads(bg, org, api.SignRawPayloadsIntent{SignWith: from, Payloads: []string{permit(vault, "5"), permit(vault, "6")},
			Encoding: "PAYLOAD_ENCODING_EIP712", HashFunction: "HASH_FUNCTION_NO_OP"}); err != nil {
			t.Errorf("two permits to the vault: %v", err)
		}

		authRLP, _ := rlp.EncodeToBytes([]any{big.NewInt(1337), common.HexToAddress("0x000000000000000000000000000000000000bAd0"), uint64(3)})
		disguised := map[string]string{
			"an authorization":     hex.EncodeToString(append([]byte{0x05}, authRLP...)),
			"an EIP-712 input":     "1901" + strings.Repeat("11", 64),
			"a transaction (1559)": unsigned1559(t, other, nil, 7),
		}
		for what, payload := range disguised {
			_, _, err := agent.SignRawPayload(bg, org, api.SignRawPayloadIntentV2{SignWith: from, Payload: payload,
				Encoding: "PAYLOAD_ENCODING_HEXADECIMAL", HashFunction: "HASH_FUNCTION_KECCAK256"})
			if !client.IsCode(err, apierr.InvalidArgument) || !strings.Contains(err.Error(), "whose keccak256 hash is what a signature of it signs") {
				t.Errorf("%s as a hexadecimal payload hashed with keccak256: %v, want a 400", what, err)
			}
		}
		if _, _, err := agent.SignRawPayload(bg, org, api.SignRawPayloadIntentV2{SignWith: from, Payload: hex.EncodeToString([]byte("hello")),
			Encoding: "PAYLOAD_ENCODING_HEXADECIMAL", HashFunction: "HASH_FUNCTION_KECCAK256"}); err != nil {
			t.Errorf("a message hashed with keccak256: %v", err)
		}
	})
}
