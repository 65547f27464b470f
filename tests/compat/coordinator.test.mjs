// The official SDKs against a running Sigil coordinator. SIGIL_DIR names the data directory of `sigil up`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { TurnkeyClient } from "@turnkey/http";
import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { Turnkey } from "@turnkey/sdk-server";
import { generateP256KeyPair } from "@turnkey/crypto";

const boot = JSON.parse(readFileSync(join(process.env.SIGIL_DIR, "bootstrap.json"), "utf8"));
const baseUrl = boot.coordinatorUrl;
const rootStamper = new ApiKeyStamper({ apiPublicKey: boot.apiPublicKey, apiPrivateKey: boot.apiPrivateKey });
const http = new TurnkeyClient({ baseUrl }, rootStamper);
const turnkey = new Turnkey({
  apiBaseUrl: baseUrl,
  apiPublicKey: boot.apiPublicKey,
  apiPrivateKey: boot.apiPrivateKey,
  defaultOrganizationId: boot.organizationId,
});

function newUser(name) {
  const pair = generateP256KeyPair();
  return {
    pair,
    params: {
      userName: name,
      userEmail: `${name}@example.com`,
      apiKeys: [{ apiKeyName: `${name}-key`, publicKey: pair.publicKey, curveType: "API_KEY_CURVE_P256" }],
      authenticators: [],
      oauthProviders: [],
      userTags: [],
    },
  };
}

test("@turnkey/http createUsers V3, getActivity, getWhoami, getUsers", async () => {
  const { params } = newUser(`http-${Date.now()}`);
  const res = await http.createUsers({
    type: "ACTIVITY_TYPE_CREATE_USERS_V3",
    timestampMs: String(Date.now()),
    organizationId: boot.organizationId,
    parameters: { users: [params] },
  });
  const a = res.activity;
  assert.equal(a.status, "ACTIVITY_STATUS_COMPLETED");
  assert.equal(a.type, "ACTIVITY_TYPE_CREATE_USERS_V3");
  assert.equal(a.organizationId, boot.organizationId);
  assert.match(a.timestampMs, /^\d+$/);
  assert.equal(a.intent.createUsersIntentV3.users[0].userName, params.userName);
  const [userId] = a.result.createUsersResult.userIds;
  assert.match(userId, /^[0-9a-f-]{36}$/);
  assert.equal(a.result.activity.id, a.id);
  assert.deepEqual(a.result.activity.result.createUsersResult.userIds, [userId]);
  assert.equal(a.votes.length, 1);
  assert.equal(a.votes[0].userId, boot.userId);
  assert.equal(a.votes[0].selection, "VOTE_SELECTION_APPROVED");
  assert.match(a.createdAt.seconds, /^\d+$/);
  assert.equal(typeof a.canApprove, "boolean");

  const got = await http.getActivity({ organizationId: boot.organizationId, activityId: a.id });
  assert.equal(got.activity.id, a.id);
  assert.equal(got.activity.fingerprint, a.fingerprint);

  const who = await http.getWhoami({ organizationId: boot.organizationId });
  assert.deepEqual(who, { organizationId: boot.organizationId, organizationName: who.organizationName, userId: boot.userId, username: "root" });

  const users = await http.getUsers({ organizationId: boot.organizationId });
  const created = users.users.find((u) => u.userId === userId);
  assert.ok(created, "created user listed");
  assert.equal(created.userEmail, params.userEmail);
  assert.equal(created.apiKeys[0].credential.publicKey, params.apiKeys[0].publicKey);
  assert.equal(created.apiKeys[0].credential.type, "CREDENTIAL_TYPE_API_KEY_P256");
});

test("@turnkey/http surfaces the server's error code and message", async () => {
  await assert.rejects(
    http.createUsers({
      type: "ACTIVITY_TYPE_CREATE_USERS_V3",
      timestampMs: String(Date.now()),
      organizationId: boot.organizationId,
      parameters: { users: [{ userName: "bad", userEmail: "not-an-email", apiKeys: [], authenticators: [], oauthProviders: [], userTags: [] }] },
    }),
    (err) => {
      assert.match(String(err.message), /not a valid e-mail address/);
      return true;
    },
  );
});

test("@turnkey/http and @turnkey/sdk-server hear which endpoints Sigil does not implement, and why", async () => {
  for (const [call, want] of [
    [() => http.getTvcApp({ organizationId: boot.organizationId, tvcAppId: "x" }), /query\/get_tvc_app is not implemented by Sigil \(Turnkey Verifiable Cloud: /],
    [() => turnkey.apiClient().listFiatOnRampCredentials({}), /query\/list_fiat_on_ramp_credentials is not implemented by Sigil \(Fiat on-ramp: /],
    [() => turnkey.apiClient().createFiatOnRampCredential({}), /submit\/create_fiat_on_ramp_credential is not implemented by Sigil \(Fiat on-ramp: /],
  ]) {
    await assert.rejects(call(), (err) => {
      assert.match(String(err.message), want);
      return true;
    });
  }
});

test("@turnkey/sdk-server apiClient createUsers (V4) and a new user's own stamp", async () => {
  const { pair, params } = newUser(`sdk-${Date.now()}`);
  const res = await turnkey.apiClient().createUsers({ users: [params] });
  assert.equal(res.activity.type, "ACTIVITY_TYPE_CREATE_USERS_V4");
  assert.equal(res.activity.status, "ACTIVITY_STATUS_COMPLETED");
  assert.equal(res.userIds.length, 1);

  const asUser = new TurnkeyClient({ baseUrl }, new ApiKeyStamper({ apiPublicKey: pair.publicKey, apiPrivateKey: pair.privateKey }));
  const who = await asUser.getWhoami({ organizationId: boot.organizationId });
  assert.equal(who.userId, res.userIds[0]);
  assert.equal(who.username, params.userName);
});
