// Activity fingerprints as the reference forms them ("sha256:<hex>" of the exact body bytes): a co-signer who did not
// submit an activity finds and approves it by @turnkey/crypto's computeActivityFingerprint of the body, through
// @turnkey/sdk-server, unmodified.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { TurnkeyClient } from "@turnkey/http";
import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { Turnkey } from "@turnkey/sdk-server";
import { computeActivityFingerprint, generateP256KeyPair } from "@turnkey/crypto";

const boot = JSON.parse(readFileSync(join(process.env.SIGIL_DIR, "bootstrap.json"), "utf8"));
const baseUrl = boot.coordinatorUrl;
const http = new TurnkeyClient({ baseUrl }, new ApiKeyStamper({ apiPublicKey: boot.apiPublicKey, apiPrivateKey: boot.apiPrivateKey }));
const unique = () => `${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
const apiKey = (name, k) => ({ apiKeyName: name, publicKey: k.publicKey, curveType: "API_KEY_CURVE_P256" });
const sdkAs = (k, organizationId) => new Turnkey({ apiBaseUrl: baseUrl, apiPublicKey: k.publicKey, apiPrivateKey: k.privateKey,
  defaultOrganizationId: organizationId, activityPoller: { intervalMs: 100, numRetries: 1 } }).apiClient();

// A sub-organization whose two root users must both approve: whatever one submits waits for the other.
async function twoOfTwo() {
  const alice = generateP256KeyPair();
  const bob = generateP256KeyPair();
  const res = await http.createSubOrganization({
    type: "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7", timestampMs: String(Date.now()), organizationId: boot.organizationId,
    parameters: { subOrganizationName: `fingerprints ${unique()}`, rootQuorumThreshold: 2, rootUsers: [
      { userName: "alice", apiKeys: [apiKey("alice", alice)], authenticators: [], oauthProviders: [] },
      { userName: "bob", apiKeys: [apiKey("bob", bob)], authenticators: [], oauthProviders: [] },
    ] },
  });
  const { subOrganizationId } = res.activity.result.createSubOrganizationResultV7;
  return { orgId: subOrganizationId, alice: sdkAs(alice, subOrganizationId), bob: sdkAs(bob, subOrganizationId) };
}

const account = { curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" };

test("a second user approves by computeActivityFingerprint of the body the first user sent, with @turnkey/sdk-server", async () => {
  const { orgId, alice, bob } = await twoOfTwo();
  const input = { walletName: `co-signed ${unique()}`, accounts: [account], timestampMs: String(Date.now()) };
  // The exact bytes alice's SDK sends: its stamp method serializes the request the way its submit method does.
  const { body } = await alice.stampCreateWallet(input);
  const pending = await alice.createWallet(input);
  assert.equal(pending.activity.status, "ACTIVITY_STATUS_CONSENSUS_NEEDED");
  const fingerprint = computeActivityFingerprint(body);
  assert.match(fingerprint, /^sha256:[0-9a-f]{64}$/);
  assert.equal(pending.activity.fingerprint, fingerprint, "the server's fingerprint is the reference's form of the same bytes");

  // Bob was never shown the activity: he has only alice's body, as a co-signer handed a proposal.
  const approved = await bob.approveActivity({ fingerprint });
  assert.equal(approved.activity.status, "ACTIVITY_STATUS_COMPLETED");
  assert.equal(approved.activity.id, pending.activity.id);
  assert.equal(approved.activity.fingerprint, fingerprint);
  const walletId = approved.activity.result.createWalletResult.walletId;
  const wallets = await bob.getWallets({ organizationId: orgId });
  assert.ok(wallets.wallets.some((w) => w.walletId === walletId), "the approved wallet exists");

  // Reading the activity back, and the vote's own record, show the same form.
  const got = await bob.getActivity({ organizationId: orgId, activityId: pending.activity.id });
  assert.equal(got.activity.fingerprint, fingerprint);
  const votes = await bob.getActivities({ organizationId: orgId, filterByType: ["ACTIVITY_TYPE_APPROVE_ACTIVITY"] });
  assert.equal(votes.activities[0].intent.approveActivityIntent.fingerprint, fingerprint);
});

test("the bare hex digest earlier versions showed still names the activity; other strings are refused", async () => {
  const { alice, bob } = await twoOfTwo();
  const input = { walletName: `bare ${unique()}`, accounts: [account], timestampMs: String(Date.now()) };
  const { body } = await alice.stampCreateWallet(input);
  const pending = await alice.createWallet(input);
  const hex = computeActivityFingerprint(body).slice("sha256:".length);
  await assert.rejects(bob.rejectActivity({ fingerprint: `sha512:${hex}` }), /is not an activity's fingerprint/);
  await assert.rejects(bob.rejectActivity({ fingerprint: `sha256:${hex.slice(2)}` }), /is not an activity's fingerprint/);
  const rejected = await bob.rejectActivity({ fingerprint: hex });
  assert.equal(rejected.activity.id, pending.activity.id);
  assert.equal(rejected.activity.status, "ACTIVITY_STATUS_REJECTED");
});
