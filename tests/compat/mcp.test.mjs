// sigil mcp driven by the official MCP TypeScript client (@modelcontextprotocol/sdk), over stdio (the client starts
// the binary, as an agent host does) and over Streamable HTTP (a running sigil mcp --http, with its bearer token): the
// second specification's journey, as an agent under three policies walks it. It finds the USDC vault, checks the enter
// with evaluate_activity and a simulation, signs the approval and sends it, sends the deposit, reads the balance and
// exits; a transfer to another contract is denied with the policy engine's reason; a transfer that needs a root user's
// approval waits for it, and the agent's poll completes once the root user approves: through the API, or (over HTTP) in
// the dashboard, at the link the tool gave, where the activity shows it came through MCP and which tool. A second test
// walks a staking position's pending actions (claim, then withdraw after the cooldown) through actions_manage.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TurnkeyClient } from "@turnkey/http";
import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { generateP256KeyPair } from "@turnkey/crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { chromium } from "playwright-core";

const dir = process.env.SIGIL_DIR;
const bin = process.env.SIGIL_BIN ?? "sigil";
const boot = JSON.parse(readFileSync(join(dir, "bootstrap.json"), "utf8"));
const org = boot.organizationId;
const envelope = (type, parameters) => ({ type, timestampMs: String(Date.now()), organizationId: org, parameters });
const root = new TurnkeyClient({ baseUrl: boot.coordinatorUrl }, new ApiKeyStamper({ apiPublicKey: boot.apiPublicKey, apiPrivateKey: boot.apiPrivateKey }));
const work = mkdtempSync(join(tmpdir(), "sigil-mcp-"));
test.after(() => rmSync(work, { recursive: true, force: true }));

async function yieldApi(path) {
  const res = await fetch(boot.yieldUrl + path, { headers: { "X-API-KEY": boot.yieldApiKey } });
  assert.ok(res.ok, `${path}: ${res.status}`);
  return res.json();
}

// An agent: a user with its own API key (in a key file, as sigil keys new writes one), a funded wallet the root user
// made, and policies scoped to that wallet: approve USDC to the vault, deposit, withdraw (the agent alone), and a USDC
// transfer with the root user's approval as well.
async function newAgent(label) {
  const key = generateP256KeyPair();
  const created = await root.createUsers(envelope("ACTIVITY_TYPE_CREATE_USERS_V3", { users: [{
    userName: `mcp-${label}-${Date.now()}`, apiKeys: [{ apiKeyName: "mcp", publicKey: key.publicKey, curveType: "API_KEY_CURVE_P256" }],
    authenticators: [], oauthProviders: [], userTags: [] }] }));
  const userId = created.activity.result.createUsersResult.userIds[0];
  const keyFile = join(work, `${label}.key.json`);
  writeFileSync(keyFile, JSON.stringify({ curve: "API_KEY_CURVE_P256", publicKey: key.publicKey, privateKey: key.privateKey }), { mode: 0o600 });
  const wallet = await root.createWallet(envelope("ACTIVITY_TYPE_CREATE_WALLET", { walletName: `mcp ${label} ${userId}`,
    accounts: [{ curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" }] }));
  const { walletId, addresses: [address] } = wallet.activity.result.createWalletResult;
  const funded = await fetch(boot.faucetUrl, { method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ address, eth: "1", tokens: { USDC: "1000" } }) });
  assert.ok(funded.ok, "faucet");

  const { items } = await yieldApi(`/v1/yields?network=${boot.network}&token=USDC&types=vault&providers=sigil`);
  const vaultYield = items.find((y) => y.id.endsWith("-4626-vault") && y.id.includes("-usdc-"));
  assert.ok(vaultYield, "a USDC ERC-4626 vault");
  const token = vaultYield.token.address.toLowerCase(), vault = vaultYield.outputToken.address.toLowerCase();
  const mine = `wallet.id == '${walletId}'`;
  const consensus = `approvers.any(user, user.id == '${userId}')`;
  const policy = (name, to, selector, extra = "") => ({ policyName: `${name} ${userId.slice(0, 8)}`, effect: "EFFECT_ALLOW", notes: "",
    consensus: consensus + extra, condition: `${mine} && eth.tx.to == '${to}' && eth.tx.data[0..10] == '${selector}'` });
  await root.createPolicies(envelope("ACTIVITY_TYPE_CREATE_POLICIES", { policies: [
    policy("approve USDC", token, "0x095ea7b3"), policy("deposit into the vault", vault, "0x6e553f65"),
    policy("withdraw from the vault", vault, "0xba087652"),
    policy("transfer USDC with approval", token, "0xa9059cbb", ` && approvers.any(user, user.id == '${boot.userId}')`)] }));
  return { userId, keyFile, address, walletId, yieldId: vaultYield.id, token, vault };
}

// connect starts an MCP session with sigil mcp as the agent, over the transport; close ends it and its process. The
// test polls get_transaction through the tools, so its rate limit is raised.
async function connect(agent, over) {
  const client = new Client({ name: "sigil-compat", version: "1" });
  if (over === "stdio") {
    const transport = new StdioClientTransport({ command: bin, args: ["mcp", "--dir", dir, "--key", agent.keyFile, "--rate-limit", "6000"], stderr: "ignore" });
    await client.connect(transport);
    return { client, close: () => client.close() };
  }
  const tokenFile = join(work, `${agent.userId}.token`);
  const token = `compat-${agent.userId}`;
  writeFileSync(tokenFile, token, { mode: 0o600 });
  const proc = spawn(bin, ["mcp", "--dir", dir, "--key", agent.keyFile, "--rate-limit", "6000", "--http", "127.0.0.1:0", "--http-token-file", tokenFile],
    { stdio: ["ignore", "ignore", "pipe"] });
  const url = await new Promise((resolve, reject) => {
    let seen = "";
    proc.stderr.on("data", (chunk) => {
      seen += chunk;
      const m = /Sigil's MCP server is up at (\S+)/.exec(seen);
      if (m) resolve(m[1]);
    });
    proc.on("exit", (code) => reject(new Error(`sigil mcp --http exited ${code}: ${seen}`)));
  });
  const refused = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });
  assert.equal(refused.status, 401, "the HTTP transport without its bearer token");
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return { client, close: async () => { await client.close(); proc.kill(); } };
}

// The root user approves an activity with the API, or in the dashboard opened at the agent's link.
const approveWithAPI = (approval) => root.approveActivity(envelope("ACTIVITY_TYPE_APPROVE_ACTIVITY", { fingerprint: approval.fingerprint }));

async function approveInDashboard(approval) {
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH || "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"] });
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const errors = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(approval.dashboardUrl);
    await page.fill("#api-public-key", boot.apiPublicKey);
    await page.fill("#api-private-key", boot.apiPrivateKey);
    await page.click("#sign-in");
    await page.waitForSelector("#activity-detail:not([hidden]) dd:has-text('ACTIVITY_TYPE_SIGN_TRANSACTION_V2')");
    assert.ok(await page.isVisible("#activity-detail dd:has-text('MCP · sign_transaction')"), "the activity shows the tool it came through");
    await page.click("#activity-detail button:has-text('Approve')");
    await page.waitForSelector("#status.show:has-text('Approved')");
    await page.click("button[data-tab=activities]");
    await page.waitForSelector("#activities td:has-text('MCP · send_transaction')");
    assert.deepEqual(errors, [], "no script errors on the page");
  } finally {
    await browser.close();
  }
}

for (const [over, approve] of [["stdio", approveWithAPI], ["http", approveInDashboard]]) {
  test(`the agent's journey through sigil mcp over ${over}, with the official MCP client`, async () => {
    const agent = await newAgent(over);
    const { client, close } = await connect(agent, over);
    try {
      await journey(client, agent, approve);
    } finally {
      await close();
    }
  });
}

// call calls a tool and returns its result; ok also requires that it succeeded and returns its structured content.
async function call(client, name, args) {
  return client.callTool({ name, arguments: args });
}
async function ok(client, name, args) {
  const res = await call(client, name, args);
  assert.ok(!res.isError, `${name}(${JSON.stringify(args)}): ${textOf(res)}`);
  return res.structuredContent;
}
const textOf = (res) => res.content.filter((c) => c.type === "text").map((c) => c.text).join("\n");

async function waitConfirmed(client, transactionId) {
  for (let i = 0; i < 600; i++) {
    const res = await ok(client, "get_transaction", { transactionId });
    assert.notEqual(res.untrusted.yieldService.status, "FAILED", JSON.stringify(res));
    if (res.untrusted.yieldService.status === "CONFIRMED") return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`transaction ${transactionId} was not CONFIRMED`);
}

async function journey(client, agent, approveAsRoot) {
  const { tools } = await client.listTools();
  for (const name of ["yields_get_all", "yields_get", "actions_enter", "actions_exit", "submit_hash", "get_transaction",
    "evaluate_activity", "simulate_transaction", "sign_transaction", "send_transaction", "activities_get"]) {
    assert.ok(tools.some((t) => t.name === name), `tool ${name}`);
  }

  // Find the vault.
  const found = await ok(client, "yields_get_all", { networks: [boot.network], token: "USDC", types: ["vault"] });
  assert.ok(found.untrusted.yieldService.items.some((y) => y.id === agent.yieldId), "yields_get_all finds the USDC vault");

  // Enter: the approval and the deposit, decoded from their bytes, the effect restated.
  const enter = await ok(client, "actions_enter", { yieldId: agent.yieldId, walletAddress: agent.address, amount: "100" });
  const txs = enter.untrusted.yieldService.transactions;
  assert.equal(txs.length, 2);
  const [approve, deposit] = enter.sigil.transactions;
  assert.equal(approve.function, "approve(address,uint256)");
  assert.deepEqual([approve.amounts[0].amount, approve.amounts[0].symbol], ["100", "USDC"]);
  assert.equal(approve.arguments.spender.toLowerCase(), agent.vault);
  assert.equal(deposit.function, "deposit(uint256,address)");
  assert.match(enter.summary, /deposits 100 USDC into the vault/);

  // Check before acting.
  for (const tx of txs) {
    const ev = await ok(client, "evaluate_activity", { unsignedTransaction: tx.unsignedTransaction });
    assert.equal(ev.sigil.decision, "ALLOW", JSON.stringify(ev));
  }
  const sim = await ok(client, "simulate_transaction", { actionId: enter.sigil.actionId });
  assert.equal(sim.sigil.allSucceed, true, JSON.stringify(sim));

  // The approval signed, then broadcast with its hash submitted; the deposit signed and sent by the coordinator.
  const signed = await ok(client, "sign_transaction", { unsignedTransaction: txs[0].unsignedTransaction });
  assert.match(signed.sigil.signedTransaction, /^0x02/);
  const sentApproval = await ok(client, "send_raw_transaction", { signedTransaction: signed.sigil.signedTransaction, transactionId: txs[0].id });
  assert.equal(sentApproval.sigil.status, "INCLUDED");
  await waitConfirmed(client, txs[0].id);
  const sentDeposit = await ok(client, "send_transaction", { unsignedTransaction: txs[1].unsignedTransaction, transactionId: txs[1].id });
  assert.equal(sentDeposit.sigil.status, "INCLUDED");
  await waitConfirmed(client, txs[1].id);

  // The balance, then exit everything.
  const balances = await ok(client, "yields_get_balances", { walletAddress: agent.address, yieldId: agent.yieldId });
  assert.match(JSON.stringify(balances.untrusted.yieldService), /"type":"active"/);
  const exit = await ok(client, "actions_exit", { yieldId: agent.yieldId, walletAddress: agent.address, arguments: { useMaxAmount: true } });
  const [exitTx] = exit.untrusted.yieldService.transactions;
  assert.equal(exit.sigil.transactions[0].function, "redeem(uint256,address,address)");
  await ok(client, "send_transaction", { unsignedTransaction: exitTx.unsignedTransaction, transactionId: exitTx.id });
  await waitConfirmed(client, exitTx.id);

  // A transfer to another contract: denied, the reason in the result.
  const transfer = "0xa9059cbb" + agent.vault.slice(2).padStart(64, "0") + (1).toString(16).padStart(64, "0");
  const denied = await call(client, "send_transaction", { from: agent.address, caip2: `eip155:${boot.chainId}`,
    calls: [{ to: "0x000000000000000000000000000000000000dEaD", data: transfer }] });
  assert.ok(denied.isError, "the transfer to another contract was not refused");
  assert.match(denied.structuredContent.summary, /denied by the organization's policies/);
  assert.match(textOf(denied), new RegExp(`approve USDC ${agent.userId.slice(0, 8)}`));

  // A USDC transfer needs the root user's approval too: the agent polls while the root user approves.
  const usdcTransfer = JSON.stringify({ from: agent.address, to: agent.token, data: transfer, value: "0x0", gasLimit: "0x186a0",
    maxFeePerGas: "0x77359400", maxPriorityFeePerGas: "0x3b9aca00", nonce: 99, chainId: boot.chainId, type: 2 });
  const held = await ok(client, "sign_transaction", { unsignedTransaction: usdcTransfer });
  const approval = held.sigil.approval;
  assert.equal(approval.status, "ACTIVITY_STATUS_CONSENSUS_NEEDED");
  assert.ok(approval.approvers.some((a) => a.userId === boot.userId), JSON.stringify(approval.approvers));
  assert.match(approval.dashboardUrl, new RegExp(`\\?activity=${approval.activityId}$`));
  const polling = ok(client, "activities_get", { activityId: approval.activityId, waitSeconds: 60 });
  await approveAsRoot(approval);
  const done = await polling;
  assert.equal(done.sigil.status, "ACTIVITY_STATUS_COMPLETED", JSON.stringify(done));
  assert.match(done.sigil.signedTransaction, /^0x02/);
}

// A staking position's pending actions, as the skill walks them: stake ETH through the fee wrapper, let chain time
// pass (the dev chain pays that time's rewards), exit, claim what yields_get_balances offers with actions_manage, wait
// out the cooldown, and withdraw with the passthrough the balance then offers. The agent may call only the staking
// functions its policy names.
test("a staking position's pending actions through actions_manage, with the official MCP client", async () => {
  const agent = await newAgent("manage");
  const { client, close } = await connect(agent, "stdio");
  const rpc = (method, params) => fetch(boot.chainRpcUrl, { method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) }).then((r) => r.json());
  const increaseTime = async (seconds) => assert.equal((await rpc("evm_increaseTime", [seconds])).error, undefined);
  const pending = async (yieldId, type) => {
    const res = await ok(client, "yields_get_balances", { walletAddress: agent.address, yieldId });
    return res.untrusted.yieldService.items.flatMap((i) => i.balances).flatMap((b) => b.pendingActions).find((p) => p.type === type);
  };
  const sendAll = async (action) => {
    for (const tx of action.untrusted.yieldService.transactions) {
      const sent = await ok(client, "send_transaction", { unsignedTransaction: tx.unsignedTransaction, transactionId: tx.id });
      assert.equal(sent.sigil.status, "INCLUDED");
      await waitConfirmed(client, tx.id);
    }
  };
  try {
    const found = await ok(client, "yields_get_all", { networks: [boot.network], types: ["staking"] });
    const yieldId = found.untrusted.yieldService.items.map((y) => y.id).find((id) => id.endsWith("-eth-native-staking"));
    assert.ok(yieldId, "native ETH staking");
    const enter = await ok(client, "actions_enter", { yieldId, walletAddress: agent.address, amount: "0.5" });
    const [stake] = enter.sigil.transactions;
    assert.equal(stake.function, "stake(address,address)");
    assert.equal(stake.value.amount, "0.5");
    const wrapper = stake.contract.toLowerCase(), staking = stake.arguments.staking.toLowerCase();
    const calls = [[wrapper, "0x808615ac"], [staking, "0x372500ab"], [staking, "0x23095721"], [staking, "0x3ccfd60b"]]; // stake(address,address), claimRewards(), requestUnstake(uint256), withdraw()
    await root.createPolicies(envelope("ACTIVITY_TYPE_CREATE_POLICIES", { policies: [{ policyName: `staking ${agent.userId.slice(0, 8)}`,
      effect: "EFFECT_ALLOW", notes: "", consensus: `approvers.any(user, user.id == '${agent.userId}')`,
      condition: `wallet.id == '${agent.walletId}' && (` + calls.map(([to, sel]) => `(eth.tx.to == '${to}' && eth.tx.data[0..10] == '${sel}')`).join(" || ") + ")" }] }));
    await sendAll(enter);

    // A minute of chain time pays rewards; the exit books them (the unstaked amount earns nothing more) for the claim.
    await increaseTime(60);
    const exit = await ok(client, "actions_exit", { yieldId, walletAddress: agent.address, arguments: { useMaxAmount: true } });
    assert.equal(exit.sigil.transactions[0].function, "requestUnstake(uint256)");
    await sendAll(exit);
    const claim = await pending(yieldId, "CLAIM_REWARDS");
    assert.ok(claim, "CLAIM_REWARDS is offered once rewards are paid");
    const claimed = await ok(client, "actions_manage", { yieldId, walletAddress: agent.address, action: "CLAIM_REWARDS", passthrough: claim.passthrough });
    assert.equal(claimed.sigil.transactions[0].function, "claimRewards()");
    assert.deepEqual([claimed.sigil.transactions[0].amounts[0].role, claimed.sigil.transactions[0].amounts[0].amount], ["payout", claim.amount]);
    await sendAll(claimed);
    assert.equal(await pending(yieldId, "CLAIM_REWARDS"), undefined, "the rewards are claimed");
    assert.equal(await pending(yieldId, "WITHDRAW"), undefined, "WITHDRAW waits for the cooldown");

    await increaseTime(11 * 60); // the dev staking contract's cooldown is ten minutes
    const withdraw = await pending(yieldId, "WITHDRAW");
    assert.ok(withdraw, "WITHDRAW is offered once the cooldown has passed");
    const withdrawn = await ok(client, "actions_manage", { yieldId, walletAddress: agent.address, action: "WITHDRAW", passthrough: withdraw.passthrough });
    assert.equal(withdrawn.sigil.transactions[0].function, "withdraw()");
    assert.match(withdrawn.summary, /paying the caller 0\.\d+ of the native coin/);
    await sendAll(withdrawn);
    assert.equal(await pending(yieldId, "WITHDRAW"), undefined, "the unstake is withdrawn");
  } finally {
    await close();
  }
});
