package coordinator_test

import (
	"bytes"
	"crypto/ecdh"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/bundle"
	"github.com/sigil/sigil/internal/coordinator"
	"github.com/sigil/sigil/internal/testdb"
	"github.com/sigil/sigil/stamp"
)

// importSecret runs INIT_IMPORT_SECRETS and IMPORT_SECRETS as a client does: it verifies the target bundles with the
// coordinator's signer key and the organization, encrypts each value to a target key, and imports them.
func (s *stack) importSecrets(t *testing.T, c *client.Client, org string, secrets ...api.ImportSecretParams) ([]string, error) {
	t.Helper()
	values := make([][]byte, len(secrets))
	for i := range secrets {
		values[i] = []byte(secrets[i].SecretPayload) // the plaintext, until it is encrypted below
	}
	payloads, targets := s.encryptSecrets(t, c, org, values)
	for i := range secrets {
		secrets[i].SecretPayload, secrets[i].TargetPublicKey, secrets[i].EncryptionSuite = payloads[i], targets[i], api.EncryptionSuiteEnclaveV1
	}
	res, _, err := c.ImportSecrets(bg, org, api.ImportSecretsIntent{Secrets: secrets})
	if err != nil {
		return nil, err
	}
	return res.SecretIDs, nil
}

// encryptSecrets asks for one target key per value and encrypts each value to its key.
func (s *stack) encryptSecrets(t *testing.T, c *client.Client, org string, values [][]byte) (payloads, targets []string) {
	t.Helper()
	init, _, err := c.InitImportSecrets(bg, org, api.InitImportSecretsIntent{EncryptionSuite: api.EncryptionSuiteEnclaveV1, NumSecrets: len(values)})
	if err != nil {
		t.Fatal(err)
	}
	if len(init.EnclaveTargetMessages) != len(values) {
		t.Fatalf("%d target bundles for %d secrets", len(init.EnclaveTargetMessages), len(values))
	}
	for i, value := range values {
		data, key, err := bundle.ParseTargetBundle(init.EnclaveTargetMessages[i], s.signerKey(t))
		if err != nil {
			t.Fatal(err)
		}
		if data.OrganizationID != org {
			t.Fatalf("target bundle for organization %s, want %s", data.OrganizationID, org)
		}
		ct, err := bundle.Seal(key, value)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(ct)
		payloads, targets = append(payloads, string(raw)), append(targets, data.TargetPublic)
	}
	return payloads, targets
}

// exportTarget is a client's key to receive an export.
func exportTarget(t *testing.T) (*ecdh.PrivateKey, string) {
	t.Helper()
	k, err := bundle.NewTargetKey()
	if err != nil {
		t.Fatal(err)
	}
	return k, hex.EncodeToString(k.PublicKey().Bytes())
}

func exportParams(target string, ids ...string) api.ExportSecretsIntent {
	p := api.ExportSecretsIntent{}
	for _, id := range ids {
		p.Secrets = append(p.Secrets, api.ExportSecretParams{SecretID: id, TargetPublicKey: target, EncryptionSuite: api.EncryptionSuiteEnclaveV1})
	}
	return p
}

// A secret goes in encrypted to a one-time key, is listed by its name and properties only, and comes out encrypted to
// the key the export names, in the export bundle decryptSecretBundle opens: the value is the one imported. Two exports
// of one secret use two ephemeral sender keys. Nothing the coordinator writes — its log, its audit stream, the
// activities' records, the database — holds the value in the clear.
func TestSecretsImportListExport(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		var logs, audit syncBuffer
		s := newStackWith(t, b, nil, func(c *coordinator.Config) {
			c.Logger = slog.New(slog.NewJSONHandler(&logs, nil))
			c.Audit = &audit
		})
		org := s.boot.OrganizationID
		apiKey := "sk_live_" + strings.Repeat("7f", 20)
		seed := "abandon ability able about above absent absorb abstract absurd abuse access accident"
		ids, err := s.importSecrets(t, s.root, org,
			api.ImportSecretParams{Name: "exchange/API_KEY", SecretPayload: apiKey, StaticProperties: []api.KeyValue{{Key: "kind", Value: "exchangeApiKey"}, {Key: "scope", Value: "trading"}}},
			api.ImportSecretParams{SecretPayload: seed})
		if err != nil {
			t.Fatal(err)
		}
		if len(ids) != 2 {
			t.Fatalf("imported %v", ids)
		}

		list, err := s.root.ListSecrets(bg, api.ListSecretsRequest{OrganizationID: org})
		if err != nil {
			t.Fatal(err)
		}
		if len(list.Secrets) != 2 || list.Secrets[0].SecretID != ids[1] || list.Secrets[1].Name != "exchange/API_KEY" ||
			len(list.Secrets[1].StaticProperties) != 2 || list.Secrets[1].StaticProperties[1] != (api.KeyValue{Key: "scope", Value: "trading"}) ||
			list.Secrets[0].CreatedAtUnixMs == "" {
			t.Fatalf("list_secrets: %+v", list.Secrets)
		}
		page, err := s.root.ListSecrets(bg, api.ListSecretsRequest{OrganizationID: org, PaginationOptions: &api.Pagination{Limit: "1", After: ids[1]}})
		if err != nil || len(page.Secrets) != 1 || page.Secrets[0].SecretID != ids[0] {
			t.Fatalf("list_secrets after %s: %+v, %v", ids[1], page, err)
		}

		key, target := exportTarget(t)
		var encapped []string
		for range 2 {
			res, _, err := s.root.ExportSecrets(bg, org, exportParams(target, ids...))
			if err != nil {
				t.Fatal(err)
			}
			for i, want := range []string{apiKey, seed} {
				got, err := bundle.OpenExportBundle(res.SecretPayloads[i], s.signerKey(t), key, org)
				if err != nil {
					t.Fatal(err)
				}
				if string(got) != want {
					t.Fatalf("secret %d exported as %q, want %q", i, got, want)
				}
			}
			data, err := bundle.Verify(res.SecretPayloads[0], s.signerKey(t))
			if err != nil {
				t.Fatal(err)
			}
			var sent bundle.ExportData
			_ = json.Unmarshal(data, &sent)
			encapped = append(encapped, sent.EncappedPublic)
		}
		if encapped[0] == encapped[1] || encapped[0] == "" {
			t.Fatalf("two exports of one secret used the ephemeral sender key %s and %s", encapped[0], encapped[1])
		}

		dump := testdb.Dump(t, b)
		for _, value := range []string{apiKey, seed} {
			for _, leak := range []string{value, hex.EncodeToString([]byte(value)), base64.StdEncoding.EncodeToString([]byte(value)), value[:12]} {
				if strings.Contains(logs.String(), leak) || strings.Contains(audit.String(), leak) {
					t.Errorf("the log or the audit stream holds a secret's value")
				}
				if bytes.Contains(dump, []byte(leak)) {
					t.Errorf("the database holds a secret's value in the clear")
				}
			}
		}
		acts, err := s.root.ListActivities(bg, api.ListActivitiesRequest{OrganizationID: org, PaginationOptions: &api.Pagination{Limit: "100"}})
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(acts)
		if bytes.Contains(raw, []byte(apiKey)) || bytes.Contains(raw, []byte("abandon")) {
			t.Error("an activity record holds a secret's value")
		}

		sealedBefore, _ := s.store.SecretIDs(bg)
		if _, _, err := s.root.DeleteSecrets(bg, org, api.DeleteSecretsIntent{SecretIDs: ids[:1]}); err != nil {
			t.Fatal(err)
		}
		if sealed, _ := s.store.SecretIDs(bg); len(sealedBefore)-len(sealed) != 1 {
			t.Errorf("the delete removed %d sealed rows, want the secret's one", len(sealedBefore)-len(sealed))
		}
		_, _, err = s.root.ExportSecrets(bg, org, exportParams(target, ids[0]))
		expectErr(t, "export of a deleted secret", err, apierr.NotFound, "no secret "+ids[0])
		if list, _ := s.root.ListSecrets(bg, api.ListSecretsRequest{OrganizationID: org}); len(list.Secrets) != 1 {
			t.Fatalf("after the delete: %+v", list)
		}
	})
}

// Bad imports and exports are refused with a clear error, and store nothing: a payload that is not the JSON bundle, one
// encrypted to another key, a one-time key used twice or made for another user or organization, a secret over 16 KiB,
// names taken in the request or the organization, targets that are not uncompressed P-256 keys, batches out of range.
func TestSecretsRefuseBadInput(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newStack(t, b)
		org := s.boot.OrganizationID
		if _, err := s.importSecrets(t, s.root, org, api.ImportSecretParams{Name: "taken", SecretPayload: "v"}); err != nil {
			t.Fatal(err)
		}
		before := s.activityCount(org)
		secretsBefore, _ := s.root.ListSecrets(bg, api.ListSecretsRequest{OrganizationID: org})

		imp := func(params ...api.ImportSecretParams) error {
			_, _, err := s.root.ImportSecrets(bg, org, api.ImportSecretsIntent{Secrets: params})
			return err
		}
		one := func(value []byte) api.ImportSecretParams {
			payloads, targets := s.encryptSecrets(t, s.root, org, [][]byte{value})
			return api.ImportSecretParams{SecretPayload: payloads[0], TargetPublicKey: targets[0], EncryptionSuite: api.EncryptionSuiteEnclaveV1}
		}

		p := one([]byte("x"))
		p.SecretPayload = `{"encappedPublic": "04", "ciphertext": "zz"}`
		expectErr(t, "a malformed payload", imp(p), apierr.InvalidArgument, "does not decrypt")
		p.SecretPayload = "not json"
		expectErr(t, "a payload that is not JSON", imp(p), apierr.InvalidArgument, "is not the JSON {encappedPublic, ciphertext}")

		other, _ := bundle.NewTargetKey()
		p = one([]byte("x"))
		ct, _ := bundle.Seal(other.PublicKey(), []byte("x"))
		raw, _ := json.Marshal(ct)
		p.SecretPayload = string(raw)
		expectErr(t, "a payload encrypted to another key", imp(p), apierr.InvalidArgument, "does not decrypt with the key of its targetPublicKey")

		p = one(bytes.Repeat([]byte("a"), 16<<10+1))
		expectErr(t, "a secret over the limit", imp(p), apierr.InvalidArgument, "from 1 to 16384 bytes")
		p = one([]byte{})
		expectErr(t, "an empty secret", imp(p), apierr.InvalidArgument, "from 1 to 16384 bytes")

		p = one([]byte("x"))
		p.Name = "taken"
		expectErr(t, "a name another secret has", imp(p), apierr.AlreadyExists, `has a secret named "taken"`)

		payloads, targets := s.encryptSecrets(t, s.root, org, [][]byte{[]byte("a"), []byte("b")})
		twins := []api.ImportSecretParams{{Name: "twin", SecretPayload: payloads[0], TargetPublicKey: targets[0], EncryptionSuite: api.EncryptionSuiteEnclaveV1},
			{Name: "twin", SecretPayload: payloads[1], TargetPublicKey: targets[1], EncryptionSuite: api.EncryptionSuiteEnclaveV1}}
		expectErr(t, "one name twice in a request", imp(twins...), apierr.InvalidArgument, `"twin" is given to two secrets`)
		// The second secret of a batch fails: the first is not kept, and its one-time key is not spent.
		twins[1].Name, twins[1].SecretPayload = "twin2", `{"encappedPublic":"04","ciphertext":"00"}`
		expectErr(t, "a batch with a bad second secret", imp(twins...), apierr.InvalidArgument, "secrets[1].secretPayload")
		twins = twins[:1]
		if err := imp(twins...); err != nil {
			t.Fatalf("the batch's first secret, alone, after the batch failed: %v", err)
		}
		expectErr(t, "a one-time key used twice", imp(twins...), apierr.FailedPrecondition, "none of the one-time keys")

		// Another user's one-time key, and another organization's.
		aliceID, alice := s.createUser(org, s.root, "alice")
		if _, _, err := s.root.CreatePolicy(bg, org, api.CreatePolicyIntentV3{PolicyName: "alice imports", Effect: api.EffectAllow,
			Consensus: "approvers.any(user, user.id == '" + aliceID + "')", Condition: "activity.resource == 'SECRET' && activity.action == 'IMPORT'"}); err != nil {
			t.Fatal(err)
		}
		payloads, targets = s.encryptSecrets(t, alice, org, [][]byte{[]byte("alice's")})
		expectErr(t, "another user's one-time key", imp(api.ImportSecretParams{SecretPayload: payloads[0], TargetPublicKey: targets[0],
			EncryptionSuite: api.EncryptionSuiteEnclaveV1}), apierr.FailedPrecondition, "made for another user or organization")
		subKey, subParams := newKey(t, stamp.CurveP256)
		sub, _, err := s.root.CreateSubOrganization(bg, org, subOrgParams("Sub", subParams))
		if err != nil {
			t.Fatal(err)
		}
		payloads, targets = s.encryptSecrets(t, s.client(subKey), sub.SubOrganizationID, [][]byte{[]byte("sub's")})
		expectErr(t, "another organization's one-time key", imp(api.ImportSecretParams{SecretPayload: payloads[0], TargetPublicKey: targets[0],
			EncryptionSuite: api.EncryptionSuiteEnclaveV1}), apierr.FailedPrecondition, "none of the one-time keys")

		_, _, err = s.root.InitImportSecrets(bg, org, api.InitImportSecretsIntent{EncryptionSuite: api.EncryptionSuiteEnclaveV1, NumSecrets: 33})
		expectErr(t, "33 one-time keys", err, apierr.InvalidArgument, "from 1 to 32")
		_, _, err = s.root.InitImportSecrets(bg, org, api.InitImportSecretsIntent{EncryptionSuite: "TRANSPORT_ENCRYPTION_SUITE_NONE", NumSecrets: 1})
		expectErr(t, "another suite", err, apierr.InvalidArgument, "TRANSPORT_ENCRYPTION_SUITE_ENCLAVE_ENCRYPT_V1")

		key, _ := exportTarget(t)
		compressed := hex.EncodeToString(compress(key.PublicKey().Bytes()))
		_, _, err = s.root.ExportSecrets(bg, org, exportParams(compressed, secretsBefore.Secrets[0].SecretID))
		expectErr(t, "a compressed target key", err, apierr.InvalidArgument, "uncompressed P-256 public key")
		_, target := exportTarget(t)
		_, _, err = s.root.ExportSecrets(bg, org, exportParams(target, secretsBefore.Secrets[0].SecretID, secretsBefore.Secrets[0].SecretID))
		expectErr(t, "one secret twice in an export", err, apierr.InvalidArgument, "exported twice")
		ids := make([]string, 33)
		for i := range ids {
			ids[i] = newUUID(t)
		}
		_, _, err = s.root.ExportSecrets(bg, org, exportParams(target, ids...))
		expectErr(t, "33 secrets in an export", err, apierr.InvalidArgument, "from 1 to 32 secrets")
		_, _, err = s.root.DeleteSecrets(bg, org, api.DeleteSecretsIntent{SecretIDs: ids[:1]})
		expectErr(t, "deleting a secret that does not exist", err, apierr.NotFound, "no secret")
		_, _, err = s.root.ExportSecrets(bg, org, exportParams(target, newUUID(t)))
		expectErr(t, "exporting a secret that does not exist", err, apierr.NotFound, "no secret")

		after, _ := s.root.ListSecrets(bg, api.ListSecretsRequest{OrganizationID: org})
		if len(after.Secrets) != len(secretsBefore.Secrets)+1 { // the one batch-of-one above
			t.Errorf("secrets: %d before, %d after; want one more", len(secretsBefore.Secrets), len(after.Secrets))
		}
		_ = before
	})
}

// compress is the compressed form of an uncompressed P-256 point.
func compress(uncompressed []byte) []byte {
	out := []byte{2 + uncompressed[64]&1}
	return append(out, uncompressed[1:33]...)
}

// Policies read a secret's static properties: a user allowed to export the secrets of one scope exports those, not
// the others', and a batch holding one it may not export is refused whole, nothing exported.
func TestSecretPoliciesReadStaticProperties(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newStack(t, b)
		org := s.boot.OrganizationID
		agentID, agent := s.createUser(org, s.root, "agent")
		ids, err := s.importSecrets(t, s.root, org,
			api.ImportSecretParams{Name: "billing/TOKEN", SecretPayload: "billing-token", StaticProperties: []api.KeyValue{{Key: "scope", Value: "billing"}}},
			api.ImportSecretParams{Name: "ops/TOKEN", SecretPayload: "ops-token", StaticProperties: []api.KeyValue{{Key: "scope", Value: "ops"}}})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.root.CreatePolicy(bg, org, api.CreatePolicyIntentV3{PolicyName: "agent exports billing secrets", Effect: api.EffectAllow,
			Consensus: "approvers.any(user, user.id == '" + agentID + "')",
			Condition: "activity.resource == 'SECRET' && activity.action == 'EXPORT' && secret.static_properties['scope'] == 'billing'"}); err != nil {
			t.Fatal(err)
		}
		key, target := exportTarget(t)
		res, _, err := agent.ExportSecrets(bg, org, exportParams(target, ids[0]))
		if err != nil {
			t.Fatal(err)
		}
		if got, err := bundle.OpenExportBundle(res.SecretPayloads[0], s.signerKey(t), key, org); err != nil || string(got) != "billing-token" {
			t.Fatalf("the agent's export: %q, %v", got, err)
		}
		before := s.activityCount(org)
		_, _, err = agent.ExportSecrets(bg, org, exportParams(target, ids[1]))
		expectErr(t, "the agent exports another scope's secret", err, apierr.PermissionDenied, "")
		_, _, err = agent.ExportSecrets(bg, org, exportParams(target, ids[0], ids[1]))
		expectErr(t, "the agent exports a batch with another scope's secret", err, apierr.PermissionDenied, "")
		var ae *apierr.Error
		if errors.As(err, &ae) && strings.Contains(ae.Error(), "ops-token") {
			t.Error("the refusal names the secret's value")
		}
		// The refused exports are recorded FAILED, with no result.
		acts, _ := s.root.ListActivities(bg, api.ListActivitiesRequest{OrganizationID: org, FilterByType: []string{api.ExportSecrets.Type},
			PaginationOptions: &api.Pagination{Limit: "2"}})
		for _, a := range acts.Activities {
			if a.Status != api.StatusFailed || len(a.Result) > 0 && string(a.Result[api.ExportSecrets.ResultKey]) != "" {
				t.Errorf("a refused export is %s with result %s", a.Status, a.Result)
			}
		}
		if n := s.activityCount(org) - before; n != 2 {
			t.Errorf("%d activities recorded for 2 refused exports", n)
		}
		// No policy lets the agent delete or import.
		_, _, err = agent.DeleteSecrets(bg, org, api.DeleteSecretsIntent{SecretIDs: ids[:1]})
		expectErr(t, "the agent deletes a secret", err, apierr.PermissionDenied, "")
	})
}

// newUUID is a fresh id.
func newUUID(t *testing.T) string {
	t.Helper()
	k, _ := bundle.NewTargetKey()
	b := k.Bytes()[:16]
	b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80
	h := hex.EncodeToString(b)
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// userWithKey creates a user with one P-256 API key and returns the user's id and the key.
func (s *stack) userWithKey(org, name string) (string, *stamp.APIKey) {
	s.t.Helper()
	key, params := newKey(s.t, stamp.CurveP256)
	res, _, err := s.root.CreateUsers(bg, org, api.CreateUsersIntentV4{Users: []api.UserParamsV4{{
		UserName: name, APIKeys: []api.APIKeyParamsV2{params}, Authenticators: []api.AuthenticatorParamsV2{},
		OauthProviders: []api.OauthProviderParamsV2{}, UserTags: []string{},
	}}})
	if err != nil {
		s.t.Fatal(err)
	}
	return res.UserIDs[0], key
}

// A multi-party export, as @turnkey/sdk-server's createExportSecretsProposal, submitExportSecrets and
// awaitExportedSecrets run it: the recipient builds the body once, around its own ephemeral key, and every party
// stamps and submits those very bytes. The first submission waits in CONSENSUS_NEEDED; a user outside the consensus
// who submits them is refused; the second party's submission approves it, and the activity completes with the secret
// encrypted to the recipient's key, both approvals in its votes. The same wait may also end with APPROVE_ACTIVITY by
// the fingerprint computeActivityFingerprint gives ("sha256:" and the hex digest).
func TestMultiPartySecretExport(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		var audit syncBuffer
		s := newStackWith(t, b, nil, func(c *coordinator.Config) { c.Audit = &audit })
		org := s.boot.OrganizationID
		paymentID, payment := s.userWithKey(org, "payment-agent")
		browserID, browser := s.userWithKey(org, "browser-agent")
		_, outsider := s.userWithKey(org, "outsider")
		ids, err := s.importSecrets(t, s.root, org, api.ImportSecretParams{Name: "corporate-visa", SecretPayload: `{"number":"4242424242424242"}`,
			StaticProperties: []api.KeyValue{{Key: "kind", Value: "creditCard"}, {Key: "requiresConsensus", Value: "true"}}})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.root.CreatePolicy(bg, org, api.CreatePolicyIntentV3{PolicyName: "both agents release the card", Effect: api.EffectAllow,
			Consensus: "approvers.any(u, u.id == '" + paymentID + "') && approvers.any(u, u.id == '" + browserID + "')",
			Condition: "secret.static_properties['requiresConsensus'] == 'true' && secret.static_properties['kind'] == 'creditCard' && " +
				"activity.type == 'ACTIVITY_TYPE_EXPORT_SECRETS'"}); err != nil {
			t.Fatal(err)
		}

		for _, approveByFingerprint := range []bool{false, true} {
			recipient, target := exportTarget(t)
			body := envelope(api.ExportSecrets.Type, org, exportParams(target, ids...), s.stamps.Now())
			path := "/public/v1/submit/" + api.ExportSecrets.Path
			first := s.stamped(path, body, payment)
			if first.status != 200 || activityStatus(first) != api.StatusConsensusNeeded {
				t.Fatalf("the first submission: %d %s", first.status, first.raw)
			}
			if r := s.stamped(path, body, outsider); r.status != 403 {
				t.Fatalf("a user outside the consensus submitting the proposal: %d %s", r.status, r.raw)
			}
			var last response
			if approveByFingerprint {
				fingerprint := activityField(first, "fingerprint")
				if sum := sha256.Sum256(body); fingerprint != "sha256:"+hex.EncodeToString(sum[:]) {
					t.Fatalf("fingerprint %s, want computeActivityFingerprint's", fingerprint)
				}
				vote := envelope(api.ApproveActivity.Type, org, api.VoteIntent{Fingerprint: fingerprint}, s.stamps.Now())
				last = s.stamped("/public/v1/submit/approve_activity", vote, browser)
			} else {
				last = s.stamped(path, body, browser)
			}
			if last.status != 200 || activityStatus(last) != api.StatusCompleted {
				t.Fatalf("the second party's approval: %d %s", last.status, last.raw)
			}
			a := last.body["activity"].(map[string]any)
			if a["id"] != first.body["activity"].(map[string]any)["id"] {
				t.Fatalf("the approval answered another activity: %s", last.raw)
			}
			votes, _ := a["votes"].([]any)
			var voters []string
			for _, v := range votes {
				voters = append(voters, v.(map[string]any)["userId"].(string))
			}
			if len(voters) != 2 || voters[0] != paymentID || voters[1] != browserID {
				t.Fatalf("votes of the export: %v", voters)
			}
			var res api.ExportSecretsResult
			raw, _ := json.Marshal(a["result"].(map[string]any)[api.ExportSecrets.ResultKey])
			if err := json.Unmarshal(raw, &res); err != nil || len(res.SecretPayloads) != 1 {
				t.Fatalf("result %s: %v", raw, err)
			}
			card, err := bundle.OpenExportBundle(res.SecretPayloads[0], s.signerKey(t), recipient, org)
			if err != nil || string(card) != `{"number":"4242424242424242"}` {
				t.Fatalf("the recipient decrypts %q, %v", card, err)
			}
			// The audit stream has a line for each party: the submission, then the approval that completed it.
			id := activityField(first, "id")
			if !strings.Contains(audit.String(), `"activityId":"`+id+`","organizationId":"`+org+`","type":"ACTIVITY_TYPE_EXPORT_SECRETS","status":"ACTIVITY_STATUS_COMPLETED","userId":"`+browserID+`"`) &&
				!approveByFingerprint {
				t.Errorf("no audit line for the co-signer's approval: %s", audit.String())
			}
			// Done: one more submission of the same bytes, by a party, is the same activity, answered again.
			if again := s.stamped(path, body, payment); again.status != 200 || activityField(again, "id") != activityField(first, "id") ||
				activityStatus(again) != api.StatusCompleted {
				t.Fatalf("the proposal submitted again: %d %s", again.status, again.raw)
			}
			if r := s.stamped(path, body, outsider); r.status != 409 {
				t.Fatalf("an outsider submitting the completed proposal: %d %s", r.status, r.raw)
			}
		}
	})
}

func activityStatus(r response) string { return activityField(r, "status") }

func activityField(r response, name string) string {
	a, _ := r.body["activity"].(map[string]any)
	v, _ := a[name].(string)
	return v
}
