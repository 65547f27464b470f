package coordinator_test

import (
	"crypto/ecdh"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/coordinator"
	"github.com/sigil/sigil/internal/testdb"
	"github.com/sigil/sigil/internal/webhook"
	"github.com/sigil/sigil/stamp"
)

// victim is an organization and the ids of its objects, by the parameter names that refer to them.
type victim struct {
	orgID string
	root  *client.Client
	ids   map[string]string
}

// Tenants are isolated: the root user of one organization, who may do anything in it, names another organization's
// objects (users, keys, wallets, accounts, policies, tags, activities, endpoints, controls, secrets …) in the parameters of
// every activity type and query, submitted in its own organization. None succeeds, and nothing of the other
// organization changes. The same holds between a sub-organization and its parent: the sub-organization's root user
// reaches none of the parent's objects from the sub-organization, but for its session profiles, which are meant for
// the sub-organizations' logins; nor does the parent's root user reach the sub-organization's from the parent.
func TestNoOperationReachesAnotherOrganization(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newStackWith(t, b, nil, func(c *coordinator.Config) {
			c.Webhooks = coordinator.WebhookConfig{AllowPrivateNetworks: true, Backoff: webhook.Backoff{Base: 1 << 40}}
		})
		other, err := s.coord.CreateRootOrganization(bg, "Victim", "root")
		if err != nil {
			t.Fatal(err)
		}
		reachNothing(t, s, newVictim(t, s, other.OrganizationID, s.client(other.APIKey)), s.boot.OrganizationID, s.boot.APIKey)

		subKey, params := newKey(t, stamp.CurveP256)
		sub, _, err := s.root.CreateSubOrganization(bg, s.boot.OrganizationID, subOrgParams("sub", params))
		if err != nil {
			t.Fatal(err)
		}
		parent := newVictim(t, s, s.boot.OrganizationID, s.root)
		delete(parent.ids, "sessionProfileId") // a parent's session profiles serve its sub-organizations' logins (docs/API.md)
		reachNothing(t, s, parent, sub.SubOrganizationID, subKey)

		// And the parent's root user, in the parent, reaches none of the sub-organization's.
		reachNothing(t, s, newVictim(t, s, sub.SubOrganizationID, s.client(subKey)), s.boot.OrganizationID, s.boot.APIKey)
	})
}

// reachNothing submits every activity type and query naming v's objects in org, stamped by key, and fails the test
// for each that succeeds, and if anything of v changes.
func reachNothing(t *testing.T, s *stack, v *victim, org string, key stamp.Stamper) {
	t.Helper()
	leaves := plausibleLeaves(t)
	before := v.snapshot(t)
	for _, op := range coordinator.Operations() {
		tree := filledParams(op)
		plausible(tree, leaves)
		if !v.point(tree) {
			continue
		}
		path, body := s.operationRequest(op, org, tree)
		if r := s.stamped(path, body, key); r.status < 300 || r.status >= 500 {
			t.Errorf("%s naming the objects of organization %s: %d %.300s", path, v.orgID, r.status, r.raw)
		}
	}
	if after := v.snapshot(t); after != before {
		t.Fatalf("organization %s changed:\nbefore %s\nafter  %s", v.orgID, before, after)
	}
}

// newVictim makes, in an organization whose root user root is, one object of each kind a parameter can name.
func newVictim(t *testing.T, s *stack, org string, root *client.Client) *victim {
	t.Helper()
	v := &victim{orgID: org, root: root, ids: map[string]string{}}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	bobID, _ := s.createUser(org, v.root, "bob")
	keys, err := v.root.GetAPIKeys(bg, org, bobID)
	must(err)
	w, wa, err := v.root.CreateWallet(bg, org, api.CreateWalletIntent{WalletName: "w", Accounts: []api.WalletAccountParams{ethAccount()}})
	must(err)
	account, err := v.root.GetWalletAccount(bg, api.GetWalletAccountRequest{OrganizationID: org, WalletID: w.WalletID, Address: w.Addresses[0]})
	must(err)
	pk, _, err := v.root.CreatePrivateKeys(bg, org, api.CreatePrivateKeysIntentV2{PrivateKeys: []api.PrivateKeyParams{{
		PrivateKeyName: "k", Curve: "CURVE_SECP256K1", PrivateKeyTags: []string{}, AddressFormats: []string{"ADDRESS_FORMAT_ETHEREUM"}}}})
	must(err)
	pkID := pk.PrivateKeys[0].PrivateKeyID
	userTag, _, err := v.root.CreateUserTag(bg, org, api.CreateUserTagIntent{UserTagName: "ops", UserIDs: []string{bobID}})
	must(err)
	keyTag, _, err := v.root.CreatePrivateKeyTag(bg, org, api.CreatePrivateKeyTagIntent{PrivateKeyTagName: "hot", PrivateKeyIDs: []string{pkID}})
	must(err)
	pol, _, err := v.root.CreatePolicy(bg, org, api.CreatePolicyIntentV3{PolicyName: "p", Effect: api.EffectAllow, Condition: "false", Notes: ""})
	must(err)
	sci, _, err := v.root.CreateSmartContractInterface(bg, org, api.CreateSmartContractInterfaceIntent{
		SmartContractAddress: strings.ToLower(token.Hex()), SmartContractInterface: erc4626ABI, Type: api.InterfaceTypeEthereum, Label: "USDC"})
	must(err)
	hook, _, err := v.root.CreateWebhookEndpoint(bg, org, api.CreateWebhookEndpointIntent{URL: "http://127.0.0.1:9/hook", Name: "h",
		Subscriptions: []api.WebhookSubscriptionParams{{EventType: api.WebhookActivityUpdates}}})
	must(err)
	prof, _, err := v.root.CreateSessionProfile(bg, org, api.CreateSessionProfileIntent{SessionProfileName: "s", Scope: "true"})
	must(err)
	mfa, _, err := v.root.CreateMfaPolicy(bg, org, api.CreateMfaPolicyIntent{UserID: bobID, MfaPolicyName: "m", Condition: "false",
		RequiredAuthenticationMethods: steps(api.AuthPasskey)})
	must(err)
	deliveries, err := v.root.ListWebhookDeliveries(bg, api.ListWebhookDeliveriesRequest{OrganizationID: org, EndpointID: hook.EndpointID})
	must(err)
	secrets, err := s.importSecrets(t, v.root, org, api.ImportSecretParams{Name: "s", SecretPayload: "victim's"})
	must(err)
	for _, name := range []string{"userId", "userIds", "senderUserId", "addUserIds", "removeUserIds"} {
		v.ids[name] = bobID
	}
	for name, id := range map[string]string{
		"apiKeyId": keys.APIKeys[0].APIKeyID, "apiKeyIds": keys.APIKeys[0].APIKeyID,
		"walletId": w.WalletID, "walletIds": w.WalletID, "walletAccountIds": account.Account.WalletAccountID,
		"address": w.Addresses[0], "signWith": w.Addresses[0],
		"privateKeyId": pkID, "privateKeyIds": pkID, "addPrivateKeyIds": pkID, "removePrivateKeyIds": pkID,
		"userTagId": userTag.UserTagID, "userTagIds": userTag.UserTagID,
		"privateKeyTagId": keyTag.PrivateKeyTagID, "privateKeyTagIds": keyTag.PrivateKeyTagID,
		"policyId": pol.PolicyID, "policyIds": pol.PolicyID,
		"activityId": wa.ID, "fingerprint": wa.Fingerprint,
		"smartContractInterfaceId": sci.SmartContractInterfaceID, "endpointId": hook.EndpointID,
		"sessionProfileId": prof.SessionProfileID, "mfaPolicyId": mfa.MfaPolicyID, "deliveryIds": deliveries.Deliveries[0].DeliveryID,
		"secretId": secrets[0], "secretIds": secrets[0],
	} {
		v.ids[name] = id
	}
	return v
}

// plausibleLeaves are values for parameters, by name, that pass validation, so that a request gets as far as
// looking up the objects it names.
func plausibleLeaves(t *testing.T) map[string]any {
	_, compressed := newP256(t)
	target, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]any{
		"curveType": string(stamp.CurveP256), "publicKey": compressed, "targetPublicKey": hex.EncodeToString(target.PublicKey().Bytes()),
		"curve": "CURVE_SECP256K1", "pathFormat": "PATH_FORMAT_BIP32", "path": "m/44'/60'/0'/0/7",
		"addressFormat": "ADDRESS_FORMAT_ETHEREUM", "addressFormats": []any{"ADDRESS_FORMAT_ETHEREUM"},
		"userEmail": "eve@example.com", "receiverUserEmail": "eve@example.com", "email": "eve@example.com",
		"condition": "true", "consensus": "", "effect": api.EffectAllow, "policyEffect": api.EffectAllow,
		"policyCondition": "true", "policyConsensus": "", "time": "", "language": "MNEMONIC_LANGUAGE_ENGLISH",
		"limit": "10", "before": "", "after": "", "verificationToken": omitted, "expirationSeconds": "900",
		"userPhoneNumber": "+14155550123", "type": "AUTHENTICATION_TYPE_PASSKEY",
		"hashFunction": "HASH_FUNCTION_NO_OP", "encoding": "PAYLOAD_ENCODING_HEXADECIMAL",
		"payload": "0x" + strings.Repeat("ab", 32), "payloads": []any{"0x" + strings.Repeat("ab", 32)},
		"unsignedTransaction": unsigned1559(t, token, nil, 0),
	}
}

// omitted is a leaf left out of the parameters.
var omitted = struct{}{}

// plausible sets the parameters of node (at any depth) that leaves names, and that hold a value of the same JSON
// type, to the leaf's value; a transaction's type follows its unsigned transaction.
func plausible(node any, leaves map[string]any) {
	switch n := node.(type) {
	case map[string]any:
		for k, e := range n {
			v, ok := leaves[k]
			switch {
			case ok && v == omitted:
				delete(n, k)
			case ok && reflect.TypeOf(v) == reflect.TypeOf(e):
				n[k] = v
			default:
				plausible(e, leaves)
			}
		}
		if _, ok := n["unsignedTransaction"]; ok && n["type"] != nil {
			n["type"] = api.TransactionTypeEthereum
		}
	case []any:
		for _, e := range n {
			plausible(e, leaves)
		}
	}
}

// point sets every parameter of node that names an object (at any depth) to the victim's object of that kind, and
// reports whether it set any.
func (v *victim) point(node any) bool {
	named := false
	switch n := node.(type) {
	case map[string]any:
		for k, e := range n {
			if id, ok := v.ids[k]; ok {
				switch e.(type) {
				case string:
					n[k], named = id, true
					continue
				case []any:
					n[k], named = []any{id}, true
					continue
				}
			}
			named = v.point(e) || named
		}
	case []any:
		for _, e := range n {
			named = v.point(e) || named
		}
	}
	return named
}

// snapshot is everything the victim's root user can list, as one string.
func (v *victim) snapshot(t *testing.T) string {
	t.Helper()
	var parts []any
	add := func(x any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, x)
	}
	add(v.root.GetOrganization(bg, v.orgID))
	add(v.root.ListUsers(bg, v.orgID))
	add(v.root.ListWallets(bg, v.orgID))
	add(v.root.ListPrivateKeys(bg, v.orgID))
	add(v.root.ListPolicies(bg, v.orgID))
	add(v.root.ListUserTags(bg, v.orgID))
	add(v.root.ListPrivateKeyTags(bg, v.orgID))
	add(v.root.GetSmartContractInterfaces(bg, v.orgID))
	add(v.root.ListWebhookEndpoints(bg, v.orgID))
	add(v.root.GetSessionProfiles(bg, v.orgID))
	add(v.root.ListActivities(bg, api.ListActivitiesRequest{OrganizationID: v.orgID, PaginationOptions: &api.Pagination{Limit: "100"}}))
	add(v.root.ListSecrets(bg, api.ListSecretsRequest{OrganizationID: v.orgID}))
	add(v.root.GetIPAllowlist(bg, api.GetIPAllowlistRequest{OrganizationID: v.orgID}))
	b, _ := json.Marshal(parts)
	return string(b)
}
