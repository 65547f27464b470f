// The Secrets API with the official SDKs: @turnkey/http and @turnkey/sdk-server submit and read, @turnkey/crypto's
// encryptSecretToBundle and decryptSecretBundle build and open the bundles, with Sigil's signer key pinned. The
// multi-party export follows @turnkey/sdk-server's createExportSecretsProposal, submitExportSecrets and
// awaitExportedSecrets step by step (no published @turnkey/sdk-server has them yet: see docs/API.md): the recipient
// builds the body once, computeActivityFingerprint names it, every party stamps and posts those very bytes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { TurnkeyClient } from "@turnkey/http";
import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { Turnkey } from "@turnkey/sdk-server";
import { computeActivityFingerprint, decryptSecretBundle, encryptSecretToBundle, generateP256KeyPair } from "@turnkey/crypto";

const boot = JSON.parse(readFileSync(join(process.env.SIGIL_DIR, "bootstrap.json"), "utf8"));
const org = boot.organizationId;
const suite = "TRANSPORT_ENCRYPTION_SUITE_ENCLAVE_ENCRYPT_V1";
const http = new TurnkeyClient({ baseUrl: boot.coordinatorUrl }, new ApiKeyStamper({ apiPublicKey: boot.apiPublicKey, apiPrivateKey: boot.apiPrivateKey }));
const api = new Turnkey({ apiBaseUrl: boot.coordinatorUrl, apiPublicKey: boot.apiPublicKey, apiPrivateKey: boot.apiPrivateKey, defaultOrganizationId: org }).apiClient();
const envelope = (type, parameters) => ({ type, timestampMs: String(Date.now()), organizationId: org, parameters });
const signer = async () => (await (await fetch(`${boot.coordinatorUrl}/.well-known/sigil-signer.json`)).json()).publicKey;

// importSecrets runs init_import_secrets (@turnkey/http: @turnkey/sdk-server has no method for it) and
// import_secrets (@turnkey/sdk-server), each secret encrypted with encryptSecretToBundle.
async function importSecrets(client, organizationId, secrets) {
  const init = await client.initImportSecrets({ type: "ACTIVITY_TYPE_INIT_IMPORT_SECRETS", timestampMs: String(Date.now()), organizationId,
    parameters: { encryptionSuite: suite, numSecrets: secrets.length } });
  const targets = init.activity.result.initImportSecretsResult.enclaveTargetMessages;
  assert.equal(targets.length, secrets.length);
  const params = [];
  for (const [i, s] of secrets.entries()) {
    const { secretPayload, targetPublicKey } = await encryptSecretToBundle({ plaintext: s.plaintext, ingressTargetBundle: targets[i], organizationId,
      dangerouslyOverrideSignerPublicKey: await signer() });
    params.push({ ...(s.name ? { name: s.name } : {}), secretPayload, targetPublicKey, encryptionSuite: suite,
      staticProperties: Object.entries(s.staticProperties ?? {}).map(([key, value]) => ({ key, value })) });
  }
  return params;
}

test("secrets go in with encryptSecretToBundle, are listed without their values, come out with decryptSecretBundle", async () => {
  const name = `exchange/API_KEY-${Date.now()}`;
  const params = await importSecrets(http, org, [
    { plaintext: "sk_live_0123456789abcdef", name, staticProperties: { kind: "exchangeApiKey", permissions: "trade" } },
    { plaintext: "abandon ability able about above absent absorb abstract absurd abuse access accident" },
  ]);
  const imported = await api.importSecrets({ secrets: params });
  assert.equal(imported.activity.status, "ACTIVITY_STATUS_COMPLETED");
  const [apiKeyId, seedId] = imported.secretIds;

  const listed = await api.listSecrets({ paginationOptions: { limit: "100" } });
  const meta = listed.secrets.find((s) => s.secretId === apiKeyId);
  assert.equal(meta.name, name);
  const page = await http.listSecrets({ organizationId: org, paginationOptions: { limit: "1", before: apiKeyId } });
  assert.deepEqual(page.secrets.map((s) => s.secretId), [seedId], "newest first: the seed was imported after the API key");
  assert.deepEqual(meta.staticProperties, [{ key: "kind", value: "exchangeApiKey" }, { key: "permissions", value: "trade" }]);
  assert.match(meta.createdAtUnixMs, /^\d+$/);
  assert.ok(!JSON.stringify(listed).includes("sk_live_"), "list_secrets shows no value");

  const target = generateP256KeyPair();
  const encapped = [];
  for (let round = 0; round < 2; round++) {
    // The first round through @turnkey/sdk-server, the second through @turnkey/http.
    const secrets = [apiKeyId, seedId].map((secretId) => ({ secretId, targetPublicKey: target.publicKeyUncompressed, encryptionSuite: suite }));
    const exported = round === 0 ? await api.exportSecrets({ secrets })
      : (await http.exportSecrets(envelope("ACTIVITY_TYPE_EXPORT_SECRETS", { secrets }))).activity.result.exportSecretsResult;
    const [apiKey, seed] = await Promise.all(exported.secretPayloads.map(async (secretPayload) =>
      decryptSecretBundle({ secretPayload, embeddedPrivateKey: target.privateKey, organizationId: org, dangerouslyOverrideSignerPublicKey: await signer() })));
    assert.equal(apiKey, "sk_live_0123456789abcdef");
    assert.equal(seed.split(" ").length, 12);
    encapped.push(JSON.parse(Buffer.from(JSON.parse(exported.secretPayloads[0]).data, "hex")).encappedPublic);
  }
  assert.notEqual(encapped[0], encapped[1], "two exports of one secret share an ephemeral sender key");

  await http.deleteSecrets(envelope("ACTIVITY_TYPE_DELETE_SECRETS", { secretIds: [apiKeyId, seedId] }));
  await assert.rejects(api.exportSecrets({ secrets: [{ secretId: apiKeyId, targetPublicKey: target.publicKeyUncompressed, encryptionSuite: suite }] }),
    (err) => { assert.match(String(err.message), /no secret .* \(it may have been deleted\)/); return true; });
});

test("bad imports are refused with their reason: over 16 KiB, a name taken, a one-time key used twice", async () => {
  const name = `taken-${Date.now()}`;
  const [taken] = await importSecrets(http, org, [{ plaintext: "v", name }]);
  const imported = await http.importSecrets(envelope("ACTIVITY_TYPE_IMPORT_SECRETS", { secrets: [taken] }));
  assert.equal(imported.activity.result.importSecretsResult.secretIds.length, 1);
  const [big] = await importSecrets(http, org, [{ plaintext: "a".repeat(16 * 1024 + 1) }]);
  await assert.rejects(api.importSecrets({ secrets: [big] }), (err) => { assert.match(String(err.message), /from 1 to 16384 bytes/); return true; });
  const [again] = await importSecrets(http, org, [{ plaintext: "v", name }]);
  await assert.rejects(api.importSecrets({ secrets: [again] }), (err) => { assert.match(String(err.message), /has a secret named/); return true; });
  await assert.rejects(api.importSecrets({ secrets: [taken] }), (err) => { assert.match(String(err.message), /none of the one-time keys/); return true; });
});

// newAgent creates a user with an API key and returns its id and a stamper.
async function newAgent(name) {
  const pair = generateP256KeyPair();
  const created = await api.createUsers({ users: [{ userName: `${name}-${Date.now()}`, apiKeys: [{ apiKeyName: name, publicKey: pair.publicKey,
    curveType: "API_KEY_CURVE_P256" }], authenticators: [], oauthProviders: [], userTags: [] }] });
  return { userId: created.userIds[0], stamper: new ApiKeyStamper({ apiPublicKey: pair.publicKey, apiPrivateKey: pair.privateKey }),
    http: new TurnkeyClient({ baseUrl: boot.coordinatorUrl }, new ApiKeyStamper({ apiPublicKey: pair.publicKey, apiPrivateKey: pair.privateKey })) };
}

// proposal is createExportSecretsProposal: the canonical body, serialized once, and its fingerprint.
function proposal(secretIds, targetPublicKey) {
  const body = JSON.stringify({ type: "ACTIVITY_TYPE_EXPORT_SECRETS", timestampMs: String(Date.now()), organizationId: org,
    parameters: { secrets: secretIds.map((secretId) => ({ secretId, targetPublicKey, encryptionSuite: suite })) } });
  return { body, fingerprint: computeActivityFingerprint(body), organizationId: org, targetPublicKey };
}

// submit is submitExportSecrets: the body stamped and posted byte for byte.
async function submit(p, stamper) {
  const stamp = await stamper.stamp(p.body);
  const res = await fetch(`${boot.coordinatorUrl}/public/v1/submit/export_secrets`, { method: "POST",
    headers: { [stamp.stampHeaderName]: stamp.stampHeaderValue, "Content-Type": "application/json" }, body: p.body });
  return { status: res.status, body: await res.json() };
}

// findByFingerprint is awaitExportedSecrets' look-up of an activity it was not given the id of: list_activities,
// filtered to export_secrets, newest first, walked page by page for the proposal's fingerprint.
async function findByFingerprint(fingerprint) {
  let before;
  for (;;) {
    const { activities } = await http.getActivities({ organizationId: org, filterByType: ["ACTIVITY_TYPE_EXPORT_SECRETS"],
      paginationOptions: { limit: "100", ...(before ? { before } : {}) } });
    const match = activities.find((a) => a.fingerprint === fingerprint);
    if (match) return match.id;
    if (activities.length < 100) return undefined;
    before = activities[activities.length - 1].id;
  }
}

// awaitExported is awaitExportedSecrets: the activity polled to its end, each payload decrypted with the recipient's key.
async function awaitExported(p, activityId, embeddedPrivateKey) {
  for (;;) {
    const { activity } = await http.getActivity({ organizationId: org, activityId });
    if (activity.status === "ACTIVITY_STATUS_COMPLETED") {
      return Promise.all(activity.result.exportSecretsResult.secretPayloads.map(async (secretPayload) =>
        decryptSecretBundle({ secretPayload, embeddedPrivateKey, organizationId: org, dangerouslyOverrideSignerPublicKey: await signer() })));
    }
    assert.equal(activity.status, "ACTIVITY_STATUS_CONSENSUS_NEEDED");
    await new Promise((r) => setTimeout(r, 100));
  }
}

test("a multi-party export waits in CONSENSUS_NEEDED until the second party submits the proposal, or approves its fingerprint", async () => {
  const payment = await newAgent("payment-agent");
  const browser = await newAgent("browser-agent");
  const outsider = await newAgent("outsider");
  const kind = `creditCard-${Date.now()}`;
  const [card] = await importSecrets(http, org, [{ plaintext: '{"number":"4242424242424242"}', staticProperties: { kind, requiresConsensus: "true" } }]);
  const { secretIds: [cardId] } = await api.importSecrets({ secrets: [card] });
  await api.createPolicy({ policyName: `both agents release ${kind}`, effect: "EFFECT_ALLOW", notes: "",
    consensus: `approvers.any(u, u.id == '${payment.userId}') && approvers.any(u, u.id == '${browser.userId}')`,
    condition: `secret.static_properties['requiresConsensus'] == 'true' && secret.static_properties['kind'] == '${kind}' && activity.type == 'ACTIVITY_TYPE_EXPORT_SECRETS'` });

  for (const byFingerprint of [false, true]) {
    const recipient = generateP256KeyPair();
    const p = proposal([cardId], recipient.publicKeyUncompressed);
    const first = await submit(p, payment.stamper);
    assert.equal(first.status, 200);
    assert.equal(first.body.activity.status, "ACTIVITY_STATUS_CONSENSUS_NEEDED");
    // The fingerprint is the one computeActivityFingerprint gives, by which the other parties find the activity.
    assert.equal(first.body.activity.fingerprint, p.fingerprint);
    assert.equal(await findByFingerprint(p.fingerprint), first.body.activity.id);
    const refused = await submit(p, outsider.stamper);
    assert.equal(refused.status, 403);

    if (byFingerprint) {
      const voted = await browser.http.approveActivity({ type: "ACTIVITY_TYPE_APPROVE_ACTIVITY", timestampMs: String(Date.now()), organizationId: org,
        parameters: { fingerprint: p.fingerprint } });
      assert.equal(voted.activity.id, first.body.activity.id);
    } else {
      const second = await submit(p, browser.stamper);
      assert.equal(second.status, 200);
      assert.equal(second.body.activity.id, first.body.activity.id);
      assert.equal(second.body.activity.status, "ACTIVITY_STATUS_COMPLETED");
    }
    const [plaintext] = await awaitExported(p, first.body.activity.id, recipient.privateKey);
    assert.equal(plaintext, '{"number":"4242424242424242"}');
    const { activity } = await http.getActivity({ organizationId: org, activityId: first.body.activity.id });
    assert.deepEqual(activity.votes.map((v) => v.userId), [payment.userId, browser.userId]);
    // Only the proposal's target key opens the result.
    await assert.rejects(decryptSecretBundle({ secretPayload: activity.result.exportSecretsResult.secretPayloads[0],
      embeddedPrivateKey: generateP256KeyPair().privateKey, organizationId: org, dangerouslyOverrideSignerPublicKey: await signer() }));
  }
});
