// Policy power through the official SDKs: a smart contract interface uploaded with @turnkey/sdk-server, a velocity
// control and a time-based policy with @turnkey/http (the newest @turnkey/sdk-server has no velocity control method).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { TurnkeyClient } from "@turnkey/http";
import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { Turnkey } from "@turnkey/sdk-server";

const boot = JSON.parse(readFileSync(join(process.env.SIGIL_DIR, "bootstrap.json"), "utf8"));
const organizationId = boot.organizationId;
const http = new TurnkeyClient(
  { baseUrl: boot.coordinatorUrl },
  new ApiKeyStamper({ apiPublicKey: boot.apiPublicKey, apiPrivateKey: boot.apiPrivateKey }),
);
const submit = (type, parameters) => ({ type, timestampMs: String(Date.now()), organizationId, parameters });

// The stack's root organization is shared by every conformance test: the policies created here name a user who does
// not exist, so they allow nobody, and are deleted at the end.
const nobody = "approvers.any(user, user.id == '00000000-0000-4000-8000-000000000000')";
async function deletePolicy(activity) {
  const policyId = activity.result.createPolicyResult.policyId;
  await http.deletePolicy(submit("ACTIVITY_TYPE_DELETE_POLICY", { policyId }));
}

const erc20ABI = JSON.stringify([
  { type: "function", name: "transfer", inputs: [{ name: "to", type: "address" }, { name: "amount", type: "uint256" }], outputs: [{ type: "bool" }] },
]);

test("@turnkey/sdk-server createSmartContractInterface, then the interface is read back", async () => {
  const turnkey = new Turnkey({ apiBaseUrl: boot.coordinatorUrl, apiPublicKey: boot.apiPublicKey, apiPrivateKey: boot.apiPrivateKey, defaultOrganizationId: organizationId });
  const address = "0x" + [...crypto.getRandomValues(new Uint8Array(20))].map((b) => b.toString(16).padStart(2, "0")).join("");
  const res = await turnkey.apiClient().createSmartContractInterface({
    smartContractAddress: address, smartContractInterface: erc20ABI, type: "SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM", label: "token", notes: "compat",
  });
  assert.match(res.smartContractInterfaceId, /^[0-9a-f-]{36}$/);
  const list = await turnkey.apiClient().getSmartContractInterfaces({ organizationId });
  const mine = list.smartContractInterfaces.find((i) => i.smartContractInterfaceId === res.smartContractInterfaceId);
  assert.equal(mine.smartContractAddress, address);
  assert.equal(mine.smartContractInterface, erc20ABI);

  const policy = await http.createPolicy(submit("ACTIVITY_TYPE_CREATE_POLICY_V3", {
    policyName: `abi-${Date.now()}`, effect: "EFFECT_ALLOW", notes: "", consensus: nobody,
    condition: `eth.tx.to == '${address}' && eth.tx.function_name == 'transfer' && eth.tx.contract_call_args['amount'] < 100`,
  }));
  assert.equal(policy.activity.status, "ACTIVITY_STATUS_COMPLETED");
  await deletePolicy(policy.activity);
  await http.deleteSmartContractInterface(submit("ACTIVITY_TYPE_DELETE_SMART_CONTRACT_INTERFACE", { smartContractInterfaceId: res.smartContractInterfaceId }));
});

test("@turnkey/http createVelocityControl, getVelocityControl, listVelocityControls, and a policy reading it", async () => {
  const identifier = `daily_${Date.now()}`;
  const res = await http.createVelocityControl(submit("ACTIVITY_TYPE_CREATE_VELOCITY_CONTROL", {
    name: "daily USDC", identifier,
    dataSource: { chainAssetTransfer: { definition: [{ caip19: "eip155:1337/erc20:0x5FbDB2315678afecb367f032d93F642f64180aa3", decimals: "6" }], phase: { signature: {} } } },
    aggregation: { method: "VELOCITY_CONTROL_AGGREGATION_METHOD_SUM", operator: "VELOCITY_CONTROL_AGGREGATION_OPERATOR_LESS_THAN_OR_EQUAL", threshold: "1000", window: { rolling: { duration: "86400" } }, groupBy: { wallet: {} } },
  }));
  assert.equal(res.activity.status, "ACTIVITY_STATUS_COMPLETED");
  const id = res.activity.result.createVelocityControlResult.velocityControlId;
  const got = await http.getVelocityControl({ organizationId, velocityControlId: id });
  assert.equal(got.velocityControl.identifier, identifier);
  assert.equal(got.velocityControl.aggregation.threshold, "1000");
  const list = await http.listVelocityControls({ organizationId });
  assert.ok(list.velocityControls.some((c) => c.velocityControlId === id));
  assert.equal(typeof list.pageInfo.hasNextPage, "boolean");

  const policy = await http.createPolicy(submit("ACTIVITY_TYPE_CREATE_POLICY_V3", {
    policyName: `cap-${identifier}`, effect: "EFFECT_ALLOW", notes: "", consensus: nobody, condition: `activity.action == 'SIGN' && controls.${identifier}`,
  }));
  assert.equal(policy.activity.status, "ACTIVITY_STATUS_COMPLETED");
  await deletePolicy(policy.activity);
  await http.deleteVelocityControl(submit("ACTIVITY_TYPE_DELETE_VELOCITY_CONTROL", { velocityControlId: id }));
  await assert.rejects(
    http.createPolicy(submit("ACTIVITY_TYPE_CREATE_POLICY_V3", { policyName: `typo-${identifier}`, effect: "EFFECT_ALLOW", notes: "", consensus: nobody, condition: "controls.nope" })),
    (err) => /unknown velocity control 'controls.nope'/.test(err.message),
  );
});

test("@turnkey/http a time-based policy and getActivePolicies", async () => {
  const name = `window-${Date.now()}`;
  const policy = await http.createPolicy(submit("ACTIVITY_TYPE_CREATE_POLICY_V3", {
    policyName: name, effect: "EFFECT_DENY", notes: "", consensus: nobody, condition: "activity.action == 'EXPORT'",
    time: "time.now < Timestamp('2000-01-01T00:00:00Z') || CronSpan('0 9 * * 1-5', '8h', 'America/New_York')",
  }));
  const policyId = policy.activity.result.createPolicyResult.policyId;
  const active = await http.getActivePolicies({ organizationId });
  const status = active.statuses.find((s) => s.policyId === policyId);
  assert.equal(typeof status.active, "boolean");
  assert.match(status.timeExpr, /CronSpan/);
  assert.match(active.evaluatedAtMs, /^\d+$/);
  await http.deletePolicy(submit("ACTIVITY_TYPE_DELETE_POLICY", { policyId }));
});
