// Earn through Sigil with the official SDKs, unmodified: @turnkey/sdk-server's Earn methods drive the catalogue, a
// wrapper's deployment, a sponsored deposit and its status, the position, a MAX withdrawal, the organization's wrappers
// and the release of its fee, and (through @turnkey/http, where sdk-server's client has no methods for them) the fee
// release's status, the wallet's rewards and their claim, pausing deposits, on the stack's dev chain.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Turnkey } from "@turnkey/sdk-server";
import { TurnkeyClient } from "@turnkey/http";
import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { createPublicClient, defineChain, http as viemHttp, parseAbi } from "viem";

const boot = JSON.parse(readFileSync(join(process.env.SIGIL_DIR, "bootstrap.json"), "utf8"));
const org = boot.organizationId;
const caip2 = `eip155:${boot.chainId}`;
const turnkey = new Turnkey({ apiBaseUrl: boot.coordinatorUrl, apiPublicKey: boot.apiPublicKey, apiPrivateKey: boot.apiPrivateKey, defaultOrganizationId: org });
const api = turnkey.apiClient();
const http = new TurnkeyClient({ baseUrl: boot.coordinatorUrl }, new ApiKeyStamper({ apiPublicKey: boot.apiPublicKey, apiPrivateKey: boot.apiPrivateKey }));
const chain = defineChain({ id: boot.chainId, name: "sigil-dev", nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: { default: { http: [boot.chainRpcUrl] } } });
const publicClient = createPublicClient({ chain, transport: viemHttp(boot.chainRpcUrl) });
const erc20 = parseAbi(["function balanceOf(address) view returns (uint256)"]);
const usdc = boot.contracts.USDC;
const morphoVault = boot.contracts["morpho-vault-usdc"];

async function wallet(name) {
  const w = await api.createWallet({ walletName: `${name} ${Date.now()}`,
    accounts: [{ curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" }] });
  return w.addresses[0];
}

async function fund(address, eth, tokens = {}) {
  const res = await fetch(boot.faucetUrl, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ address, eth, tokens }) });
  assert.ok(res.ok, `faucet: ${res.status}`);
}

const balance = (token, holder) => publicClient.readContract({ address: token, abi: erc20, functionName: "balanceOf", args: [holder] });

// poll reads an Earn status until it leaves PENDING.
async function poll(read) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const st = await read();
    if (st.status !== "PENDING") return st;
    assert.ok(Date.now() < deadline, "still PENDING after a minute");
    await new Promise((r) => setTimeout(r, 200));
  }
}

test("deposit → status → position → withdraw MAX → rewards claim", async () => {
  const feeWallet = await wallet("earn fees");
  const user = await wallet("earn user");
  await fund(user, "1", { USDC: "500" });

  const { vaults } = await api.listEarnVaults({ caip19: `${caip2}/erc20:${usdc.toLowerCase()}` });
  assert.ok(vaults.length >= 2, "the Morpho vault and Aave's USDC reserve");
  const tvl = vaults.map((v) => BigInt(v.tvl));
  assert.deepEqual([...tvl].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0)), tvl, "sorted by TVL");
  const vault = vaults.find((v) => v.vaultAddress.toLowerCase() === morphoVault.toLowerCase());
  assert.equal(vault.provider, "EARN_PROVIDER_MORPHO");
  assert.ok(Number(vault.apyPct) > 0, `APY from the chain: ${vault.apyPct}`);

  const deployed = await api.earnDeployWrapper({ vaultAddress: vault.vaultAddress, chainCaip2: caip2, clientFeeBps: "1500", clientFeeWallet: feeWallet });
  const deploy = await poll(() => api.getEarnDeployStatus({ deployRequestId: deployed.deployRequestId }));
  assert.equal(deploy.status, "COMPLETED", deploy.error);
  assert.match(deploy.deployTxHash, /^0x[0-9a-f]{64}$/);
  const { wrapperAddress } = deployed;

  const deposit = await api.earnDeposit({ wrapperAddress, signWith: user, assets: "250000000", chainCaip2: caip2, sponsor: true });
  const deposited = await poll(() => api.getEarnDepositStatus({ depositRequestId: deposit.depositRequestId }));
  assert.equal(deposited.status, "COMPLETED", deposited.error);
  assert.match(deposited.depositTxHash, /^0x[0-9a-f]{64}$/);

  let { positions } = await api.listEarnPositions({ walletAddress: user });
  assert.equal(positions.length, 1);
  assert.equal(positions[0].wrapperAddress, wrapperAddress);
  assert.equal(positions[0].totalDeposited, "250000000");
  assert.ok(BigInt(positions[0].currentValue) >= 249_999_990n, positions[0].currentValue);

  // Three minutes of chain time: interest, and a reward root (the stack publishes one every two minutes).
  const rpc = (method, params) => fetch(boot.chainRpcUrl, { method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) }).then((r) => r.json());
  const jumped = await rpc("evm_increaseTime", [180]);
  assert.equal(jumped.error, undefined, JSON.stringify(jumped.error));

  ({ positions } = await api.listEarnPositions({ walletAddress: user }));
  const worth = BigInt(positions[0].currentValue);
  assert.ok(worth > 250_000_000n, `earned nothing: ${worth}`);

  const before = await balance(usdc, user);
  const withdraw = await api.earnWithdraw({ wrapperAddress, signWith: user, amountValue: "MAX", chainCaip2: caip2, sponsor: true });
  const withdrawn = await poll(() => api.getEarnWithdrawStatus({ withdrawRequestId: withdraw.withdrawRequestId }));
  assert.equal(withdrawn.status, "COMPLETED", withdrawn.error);
  assert.ok((await balance(usdc, user)) - before >= worth, "MAX paid the position's value");
  assert.equal(await balance(wrapperAddress, user), 0n, "no dust: the exact share balance was redeemed");
  ({ positions } = await api.listEarnPositions({ walletAddress: user }));
  assert.equal(positions.length, 0);

  // The client's fee on the yield, accrued in the wrapper's splitter, released to the fee wallet in USDC.
  const { enabledVaults } = await api.listEarnEnabledVaults({ includeExposure: true });
  const enabled = enabledVaults.find((v) => v.wrapperAddress === wrapperAddress);
  assert.equal(enabled.clientFeeBps, "1500");
  assert.equal(enabled.deployStatus, "COMPLETED");
  assert.equal(enabled.clientFeeWallet.toLowerCase(), feeWallet.toLowerCase());
  assert.ok(enabled.exposures.length > 0, "the Morpho vault's markets");
  assert.ok(Number(enabled.netApyPct) < Number(enabled.apyPct), `net ${enabled.netApyPct} of gross ${enabled.apyPct}`);
  const fee = BigInt(enabled.claimableClientFee);
  assert.ok(fee > 0n, `no client fee accrued: ${enabled.claimableClientFee}`);
  const fees = await api.claimEarnFees({ wrapperAddress });
  const released = await poll(() => http.getClaimEarnFeesStatus({ organizationId: org, claimRequestId: fees.claimRequestId }));
  assert.equal(released.status, "COMPLETED", released.error);
  assert.ok((await balance(usdc, feeWallet)) >= fee, "the fee wallet received the claimable fee");

  const { rewards } = await http.listEarnRewards({ organizationId: org, walletAddress: user, caip2 });
  assert.equal(rewards.length, 1);
  assert.equal(rewards[0].symbol, "MORPHO");
  const claimable = BigInt(rewards[0].claimable);
  assert.ok(claimable > 0n, JSON.stringify(rewards[0]));
  const claim = await http.earnClaimRewards({ type: "ACTIVITY_TYPE_EARN_CLAIM_REWARDS", timestampMs: String(Date.now()), organizationId: org,
    parameters: { signWith: user, chainCaip2: caip2, sponsor: true } });
  const { claimRequestId } = claim.activity.result.earnClaimRewardsResult;
  const claimed = await poll(() => http.getEarnClaimRewardsStatus({ organizationId: org, claimRequestId }));
  assert.equal(claimed.status, "COMPLETED", claimed.error);
  assert.equal(await balance(boot.contracts.MORPHO, user), claimable, "the proven amount was paid");
  const after = await http.listEarnRewards({ organizationId: org, walletAddress: user, caip2 });
  assert.equal(after.rewards[0].claimable, "0");
  assert.equal(after.rewards[0].claimed, claimable.toString());

  // Deposits paused: refused, nothing sent; resumed: accepted again.
  const setState = (depositsDisabled) => http.earnSetWrapperState({ type: "ACTIVITY_TYPE_EARN_SET_WRAPPER_STATE", timestampMs: String(Date.now()),
    organizationId: org, parameters: { wrapperAddress, depositsDisabled } });
  const paused = await setState(true);
  assert.deepEqual(paused.activity.result.earnSetWrapperStateResult, { wrapperAddress, depositsDisabled: true });
  await assert.rejects(api.earnDeposit({ wrapperAddress, signWith: user, assets: "1000000", chainCaip2: caip2, sponsor: true }), /EARN_DEPOSITS_DISABLED|paused/);
  await setState(false);
  const resumed = await api.earnDeposit({ wrapperAddress, signWith: user, assets: "1000000", chainCaip2: caip2, sponsor: true });
  assert.equal((await poll(() => api.getEarnDepositStatus({ depositRequestId: resumed.depositRequestId }))).status, "COMPLETED");
});

test("bad input gets the reference's errors and sends nothing", async () => {
  const feeWallet = await wallet("earn fees 2");
  const user = await wallet("earn broke user");
  await fund(user, "0", { USDC: "1" });
  const reject = async (p, code) => {
    await assert.rejects(p, (e) => { assert.match(String(e.message ?? e), code); return true; });
  };
  await reject(api.earnDeployWrapper({ vaultAddress: "0x000000000000000000000000000000000000dEaD", chainCaip2: caip2, clientFeeBps: "100", clientFeeWallet: feeWallet }),
    /not a vault of the Earn catalogue/);
  await reject(api.earnDeployWrapper({ vaultAddress: morphoVault, chainCaip2: caip2, clientFeeBps: "4001", clientFeeWallet: feeWallet }), /over the maximum of 4000/);
  const deployed = await api.earnDeployWrapper({ vaultAddress: morphoVault, chainCaip2: caip2, clientFeeBps: "100", clientFeeWallet: feeWallet });
  await poll(() => api.getEarnDeployStatus({ deployRequestId: deployed.deployRequestId }));
  const { wrapperAddress } = deployed;
  await reject(api.earnDeposit({ wrapperAddress, signWith: user, assets: "0", chainCaip2: caip2 }), /more than zero/);
  await reject(api.earnDeposit({ wrapperAddress, signWith: user, assets: "-5", chainCaip2: caip2 }), /more than zero/);
  await reject(api.earnDeposit({ wrapperAddress, signWith: user, assets: "2000000", chainCaip2: caip2 }), /more than the USDC/);
  await reject(api.earnDeposit({ wrapperAddress: morphoVault, signWith: user, assets: "1", chainCaip2: caip2 }), /EARN_SETUP_REQUIRED|not a wrapper this organization deployed/);
  const nonce = await publicClient.getTransactionCount({ address: user });
  assert.equal(nonce, 0, "nothing was sent from the wallet");
});
