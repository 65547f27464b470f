// The agent journey the way the public cookbook does it: @turnkey/viem + viem sign and broadcast through Sigil,
// fetch talks to the yield service. A non-root agent, bound by three policies, enters and exits the USDC vault.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { TurnkeyClient } from "@turnkey/http";
import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { createAccount } from "@turnkey/viem";
import { generateP256KeyPair } from "@turnkey/crypto";
import { createPublicClient, createWalletClient, defineChain, encodeFunctionData, http as viemHttp, parseAbi } from "viem";

const boot = JSON.parse(readFileSync(join(process.env.SIGIL_DIR, "bootstrap.json"), "utf8"));
const org = boot.organizationId;
const envelope = (type, parameters) => ({ type, timestampMs: String(Date.now()), organizationId: org, parameters });
const root = new TurnkeyClient({ baseUrl: boot.coordinatorUrl }, new ApiKeyStamper({ apiPublicKey: boot.apiPublicKey, apiPrivateKey: boot.apiPrivateKey }));
const chain = defineChain({ id: boot.chainId, name: "sigil-dev", nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: { default: { http: [boot.chainRpcUrl] } } });
const publicClient = createPublicClient({ chain, transport: viemHttp(boot.chainRpcUrl) });

async function yieldApi(method, path, body) {
  const res = await fetch(boot.yieldUrl + path, {
    method, headers: { "X-API-KEY": boot.yieldApiKey, "Content-Type": "application/json" }, body: body && JSON.stringify(body),
  });
  const data = await res.json();
  assert.ok(res.ok, `${method} ${path}: ${res.status} ${JSON.stringify(data)}`);
  return data;
}

async function setRootQuorum(userIds) {
  await root.updateRootQuorum(envelope("ACTIVITY_TYPE_UPDATE_ROOT_QUORUM", { threshold: 1, userIds }));
}

test("a policy-restricted agent enters and exits the USDC vault with @turnkey/viem", async () => {
  // 1. An agent user with its own API key, in the root quorum for now, with a wallet funded from the faucet.
  const agentKey = generateP256KeyPair();
  const created = await root.createUsers(envelope("ACTIVITY_TYPE_CREATE_USERS_V3", { users: [{
    userName: `viem-agent-${Date.now()}`, apiKeys: [{ apiKeyName: "agent", publicKey: agentKey.publicKey, curveType: "API_KEY_CURVE_P256" }],
    authenticators: [], oauthProviders: [], userTags: [] }] }));
  const agentId = created.activity.result.createUsersResult.userIds[0];
  await setRootQuorum([boot.userId, agentId]);
  const agent = new TurnkeyClient({ baseUrl: boot.coordinatorUrl }, new ApiKeyStamper({ apiPublicKey: agentKey.publicKey, apiPrivateKey: agentKey.privateKey }));
  const wallet = await agent.createWallet(envelope("ACTIVITY_TYPE_CREATE_WALLET", { walletName: `viem agent ${agentId}`,
    accounts: [{ curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" }] }));
  const address = wallet.activity.result.createWalletResult.addresses[0];
  const funded = await fetch(boot.faucetUrl, { method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ address, eth: "1", tokens: { USDC: "50" } }) });
  assert.ok(funded.ok);

  // 2. Discovery, as the specification has it.
  const { items } = await yieldApi("GET", `/v1/yields?network=${boot.network}&token=USDC&limit=10`);
  const vaultYield = items.find((y) => y.id.endsWith("-4626-vault") && y.mechanics.type === "vault");
  assert.ok(vaultYield, "a USDC ERC-4626 vault");
  const token = vaultYield.token.address, vault = vaultYield.outputToken.address;

  // 3. Three policies, then the agent leaves the root quorum.
  const consensus = `approvers.any(user, user.id == '${agentId}')`;
  const policy = (name, to, selector) => ({ policyName: `${name} ${agentId}`, effect: "EFFECT_ALLOW", consensus, notes: "",
    condition: `eth.tx.to == '${to}' && eth.tx.data[0..10] == '${selector}'` });
  await root.createPolicies(envelope("ACTIVITY_TYPE_CREATE_POLICIES", { policies: [
    policy("approve", token, "0x095ea7b3"), policy("deposit", vault, "0x6e553f65"), policy("withdraw", vault, "0xba087652")] }));
  await setRootQuorum([boot.userId]);

  // 4. As the agent: each transaction of the action, in order, signed by Sigil, broadcast, mined, reported.
  const account = await createAccount({ client: agent, organizationId: org, signWith: address });
  const walletClient = createWalletClient({ account, chain, transport: viemHttp(boot.chainRpcUrl) });
  async function run(intent) {
    const action = await yieldApi("POST", `/v1/actions/${intent}`, { yieldId: vaultYield.id, address, arguments: { amount: "50" } });
    for (const tx of action.transactions) {
      const u = JSON.parse(tx.unsignedTransaction);
      const hash = await walletClient.sendTransaction({ to: u.to, data: u.data, value: BigInt(u.value ?? "0x0"), gas: BigInt(u.gasLimit),
        maxFeePerGas: BigInt(u.maxFeePerGas), maxPriorityFeePerGas: BigInt(u.maxPriorityFeePerGas), nonce: u.nonce });
      const receipt = await publicClient.waitForTransactionReceipt({ hash });
      assert.equal(receipt.status, "success", `${tx.type} mined`);
      await yieldApi("PUT", `/v1/transactions/${tx.id}/submit-hash`, { hash });
    }
    return action;
  }
  const enter = await run("enter");
  assert.deepEqual(enter.transactions.map((t) => t.type), ["APPROVAL", "DEPOSIT"]);
  const afterEnter = await yieldApi("POST", `/v1/yields/${vaultYield.id}/balances`, { address });
  assert.ok(afterEnter.balances.some((b) => b.type === "active" && Number(b.amount) > 0), JSON.stringify(afterEnter));
  await run("exit");

  // 5. A transfer to another contract is not allowed by any policy.
  await assert.rejects(
    walletClient.sendTransaction({ to: "0x000000000000000000000000000000000000dEaD", data: encodeFunctionData({
      abi: parseAbi(["function transfer(address,uint256)"]), functionName: "transfer", args: [vault, 1n] }) }),
    (err) => /No policies evaluated to outcome: Allow|sufficient permissions/.test(String(err.message ?? err)),
  );
});
