// The organization Turnkey's own SDK test suites run in: a non-root user allowed to sign, barred from one address by a
// DENY on eth.tx.to. As against the reference, that user signs messages and EIP-712 data with @turnkey/viem (the DENY
// does not apply to an activity with no transaction), and a transaction to the barred address is refused.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { TurnkeyClient } from "@turnkey/http";
import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { generateP256KeyPair } from "@turnkey/crypto";
import { createAccount } from "@turnkey/viem";
import { parseGwei, verifyMessage, verifyTypedData } from "viem";

const boot = JSON.parse(readFileSync(join(process.env.SIGIL_DIR, "bootstrap.json"), "utf8"));
const baseUrl = boot.coordinatorUrl;
const stamper = (k) => new ApiKeyStamper({ apiPublicKey: k.publicKey, apiPrivateKey: k.privateKey });
const banned = "0x08d2b0a37f869ff76bacb5bab3278e26ab7067b7";

// testOrganization makes a sub-organization as the SDKs' test suites expect one: a root user, a non-root user with
// an API key, a wallet, an ALLOW of signing for that user and the DENY on the barred address.
async function testOrganization() {
  const root = generateP256KeyPair();
  const member = generateP256KeyPair();
  const key = (name, k) => ({ apiKeyName: name, publicKey: k.publicKey, curveType: "API_KEY_CURVE_P256" });
  const now = () => String(Date.now());
  const parent = new TurnkeyClient({ baseUrl }, new ApiKeyStamper({ apiPublicKey: boot.apiPublicKey, apiPrivateKey: boot.apiPrivateKey }));
  const sub = await parent.createSubOrganization({ type: "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7", timestampMs: now(), organizationId: boot.organizationId,
    parameters: { subOrganizationName: `sdk tests ${Date.now()}`, rootQuorumThreshold: 1,
      rootUsers: [{ userName: "root", apiKeys: [key("root", root)], authenticators: [], oauthProviders: [] }],
      wallet: { walletName: "test wallet", accounts: [{ curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" }] } } });
  const { subOrganizationId: organizationId, wallet } = sub.activity.result.createSubOrganizationResultV7;
  const asRoot = new TurnkeyClient({ baseUrl }, stamper(root));
  const users = await asRoot.createUsers({ type: "ACTIVITY_TYPE_CREATE_USERS_V3", timestampMs: now(), organizationId,
    parameters: { users: [{ userName: "non-root", apiKeys: [key("member", member)], authenticators: [], oauthProviders: [], userTags: [] }] } });
  const [userId] = users.activity.result.createUsersResult.userIds;
  const policy = (policyName, effect, condition, consensus) => asRoot.createPolicy({ type: "ACTIVITY_TYPE_CREATE_POLICY_V3", timestampMs: now(),
    organizationId, parameters: { policyName, effect, condition, consensus, notes: "" } });
  await policy("the non-root user signs", "EFFECT_ALLOW", "activity.action == 'SIGN'", `approvers.any(user, user.id == '${userId}')`);
  const deny = await policy("banned address", "EFFECT_DENY", `eth.tx.to == '${banned}'`, "");
  const client = new TurnkeyClient({ baseUrl }, stamper(member));
  const account = await createAccount({ client, organizationId, signWith: wallet.addresses[0] });
  return { organizationId, client, account, denyId: deny.activity.result.createPolicyResult.policyId };
}

test("a transaction-scoped DENY leaves message and EIP-712 signing alone, as in the reference", async () => {
  const { organizationId, client, account, denyId } = await testOrganization();
  const message = "hello from the SDK's test suite";
  assert.ok(await verifyMessage({ address: account.address, message, signature: await account.signMessage({ message }) }));

  const typed = {
    domain: { name: "Ether Mail", version: "1", chainId: 1337, verifyingContract: "0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC" },
    types: {
      EIP712Domain: [{ name: "name", type: "string" }, { name: "version", type: "string" }, { name: "chainId", type: "uint256" }, { name: "verifyingContract", type: "address" }],
      Person: [{ name: "name", type: "string" }, { name: "wallet", type: "address" }], Mail: [{ name: "from", type: "Person" }, { name: "contents", type: "string" }] },
    primaryType: "Mail",
    message: { from: { name: "Cow", wallet: "0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826" }, contents: "Hello, Bob!" },
  };
  assert.ok(await verifyTypedData({ address: account.address, signature: await account.signTypedData(typed), ...typed }));

  // The DENY's evaluation is reported, with the reason it did not apply.
  const activities = await client.getActivities({ organizationId, filterByType: ["ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2"] });
  const evals = await client.getPolicyEvaluations({ organizationId, activityId: activities.activities[0].id });
  const denied = evals.policyEvaluations[0].policyEvaluations.find((e) => e.policyId === denyId);
  assert.equal(denied.outcome, "OUTCOME_ERROR");

  const tx = { type: "eip1559", chainId: 1337, nonce: 0, value: 1n, gas: 21000n, maxFeePerGas: parseGwei("2"), maxPriorityFeePerGas: parseGwei("1") };
  await account.signTransaction({ ...tx, to: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" });
  await assert.rejects(account.signTransaction({ ...tx, to: banned }), (err) => {
    assert.match(String(err.message ?? err) + String(err.cause?.message ?? ""), /denied|permission|PERMISSION_DENIED/i);
    return true;
  });
});
