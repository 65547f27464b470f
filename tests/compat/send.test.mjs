// Sending through Sigil with the official SDKs, unmodified: @turnkey/sdk-server's ethSendTransaction (one call, and
// several as an EIP-7702 batch, and sponsored), ethUndelegate7702 and its status polling (pollTransactionStatus) against the stack's
// dev chain, get_nonces, and @turnkey/http's ethSendRawTransaction of a transaction Sigil signed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Turnkey } from "@turnkey/sdk-server";
import { TurnkeyClient } from "@turnkey/http";
import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { createPublicClient, defineChain, encodeFunctionData, http as viemHttp, parseAbi, serializeTransaction } from "viem";

const boot = JSON.parse(readFileSync(join(process.env.SIGIL_DIR, "bootstrap.json"), "utf8"));
const org = boot.organizationId;
const caip2 = `eip155:${boot.chainId}`;
const turnkey = new Turnkey({ apiBaseUrl: boot.coordinatorUrl, apiPublicKey: boot.apiPublicKey, apiPrivateKey: boot.apiPrivateKey, defaultOrganizationId: org });
const api = turnkey.apiClient();
const chain = defineChain({ id: boot.chainId, name: "sigil-dev", nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: { default: { http: [boot.chainRpcUrl] } } });
const publicClient = createPublicClient({ chain, transport: viemHttp(boot.chainRpcUrl) });

async function fundedAccount(name, eth) {
  const wallet = await api.createWallet({ walletName: `${name} ${Date.now()}`,
    accounts: [{ curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" }] });
  const address = wallet.addresses[0];
  if (eth) {
    const funded = await fetch(boot.faucetUrl, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ address, eth }) });
    assert.ok(funded.ok, "faucet");
  }
  return address;
}

test("ethSendTransaction is signed, broadcast and INCLUDED, as pollTransactionStatus reports", async () => {
  const from = await fundedAccount("sdk sender", "1");
  const to = "0x000000000000000000000000000000000000f00d";
  const before = await publicClient.getBalance({ address: to });
  const sent = await api.ethSendTransaction({ from, caip2, calls: [{ to, value: "12345", data: "0x" }] });
  assert.equal(sent.activity.status, "ACTIVITY_STATUS_COMPLETED");
  assert.match(sent.sendTransactionStatusId, /^[0-9a-f-]{36}$/);
  const status = await api.pollTransactionStatus({ sendTransactionStatusId: sent.sendTransactionStatusId, pollingIntervalMs: 100, timeoutMs: 30_000 });
  assert.equal(status.txStatus, "INCLUDED");
  const receipt = await publicClient.getTransactionReceipt({ hash: status.eth.txHash });
  assert.equal(receipt.status, "success");
  assert.equal(receipt.from.toLowerCase(), from.toLowerCase());
  assert.equal(await publicClient.getBalance({ address: to }) - before, 12345n);
  const nonces = await api.getNonces({ address: from, caip2, nonce: true });
  assert.equal(nonces.nonce, "1");
});

test("a reverting call fails before anything is signed, and pollTransactionStatus rejects with the reason", async () => {
  const from = await fundedAccount("sdk reverter", "1");
  const usdc = boot.contracts.USDC;
  const data = encodeFunctionData({ abi: parseAbi(["function transfer(address to, uint256 value) returns (bool)"]),
    functionName: "transfer", args: ["0x000000000000000000000000000000000000dEaD", 1n] });
  const sent = await api.ethSendTransaction({ from, caip2, calls: [{ to: usdc, data }] });
  await assert.rejects(api.pollTransactionStatus({ sendTransactionStatusId: sent.sendTransactionStatusId, pollingIntervalMs: 100, timeoutMs: 30_000 }),
    (err) => {
      assert.match(err.message, /the simulation reverts, so nothing was signed/);
      return true;
    });
  const status = await api.getSendTransactionStatus({ sendTransactionStatusId: sent.sendTransactionStatusId });
  assert.equal(status.txStatus, "FAILED");
  assert.equal(status.eth, undefined);
  assert.equal(status.error.revertChain[0].address, usdc.toLowerCase());
  assert.equal(status.error.revertChain[0].unknown.selector, "0xe450d38c"); // ERC20InsufficientBalance, no ABI uploaded
});

test("several calls are one EIP-7702 batch: the account delegates to the batch delegate and runs them in order", async () => {
  const from = await fundedAccount("sdk batcher", "1");
  const [a, b] = ["0x000000000000000000000000000000000000bA01", "0x000000000000000000000000000000000000bA02"];
  const sent = await api.ethSendTransaction({ from, caip2, calls: [{ to: a, value: "3" }, { to: b, value: "4", data: "0x" }] });
  const status = await api.pollTransactionStatus({ sendTransactionStatusId: sent.sendTransactionStatusId, pollingIntervalMs: 100, timeoutMs: 30_000 });
  assert.equal(status.txStatus, "INCLUDED");
  const tx = await publicClient.getTransaction({ hash: status.eth.txHash });
  assert.equal(tx.type, "eip7702");
  assert.equal(tx.authorizationList[0].address.toLowerCase(), boot.contracts["batch-delegate"].toLowerCase());
  assert.equal(await publicClient.getCode({ address: from }), "0xef0100" + boot.contracts["batch-delegate"].slice(2).toLowerCase());
  assert.equal(await publicClient.getBalance({ address: a }), 3n);
  assert.equal(await publicClient.getBalance({ address: b }), 4n);

  const undelegated = await api.ethUndelegate7702({ from, caip2 });
  assert.equal(undelegated.activity.type, "ACTIVITY_TYPE_ETH_UNDELEGATE_7702");
  const removed = await api.pollTransactionStatus({ sendTransactionStatusId: undelegated.sendTransactionStatusId, pollingIntervalMs: 100, timeoutMs: 30_000 });
  assert.equal(removed.txStatus, "INCLUDED");
  assert.equal(await publicClient.getCode({ address: from }), undefined);
});

test("a sponsored send: the organization's gas sponsor pays, through the gas station", async () => {
  const wallet = await api.createWallet({ walletName: `sdk sponsored ${Date.now()}`,
    accounts: [{ curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" }] });
  const from = wallet.addresses[0];
  const funded = await fetch(boot.faucetUrl, { method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ address: from, tokens: { USDC: "5" } }) }); // tokens, no ETH for gas
  assert.ok(funded.ok);
  const to = "0x000000000000000000000000000000000000c0fe";
  const data = encodeFunctionData({ abi: parseAbi(["function transfer(address to, uint256 value) returns (bool)"]), functionName: "transfer", args: [to, 2_000_000n] });
  const sent = await api.ethSendTransaction({ from, caip2, sponsor: true, calls: [{ to: boot.contracts.USDC, data }] });
  const status = await api.pollTransactionStatus({ sendTransactionStatusId: sent.sendTransactionStatusId, pollingIntervalMs: 100, timeoutMs: 30_000 });
  assert.equal(status.txStatus, "INCLUDED");
  const tx = await publicClient.getTransaction({ hash: status.eth.txHash });
  assert.equal(tx.to.toLowerCase(), boot.contracts["gas-station"].toLowerCase());
  assert.notEqual(tx.from.toLowerCase(), from.toLowerCase());
  assert.equal(await publicClient.getBalance({ address: from }), 0n);
  const balance = await publicClient.readContract({ address: boot.contracts.USDC, abi: parseAbi(["function balanceOf(address) view returns (uint256)"]), functionName: "balanceOf", args: [to] });
  assert.equal(balance, 2_000_000n);
  const nonces = await api.getNonces({ address: from, caip2, gasStationNonce: true });
  assert.equal(nonces.gasStationNonce, "1");
});

test("an unknown network is refused", async () => {
  const from = await fundedAccount("sdk lost", "");
  await assert.rejects(api.ethSendTransaction({ from, caip2: "eip155:1", calls: [{ to: from, value: "1" }] }),
    (err) => {
      assert.match(String(err.message), /unknown network "eip155:1": this server sends on eip155:/);
      return true;
    });
});

test("@turnkey/http ethSendRawTransaction broadcasts a transaction Sigil signed, its status read by hash", async () => {
  const from = await fundedAccount("raw sender", "1");
  const http = new TurnkeyClient({ baseUrl: boot.coordinatorUrl }, new ApiKeyStamper({ apiPublicKey: boot.apiPublicKey, apiPrivateKey: boot.apiPrivateKey }));
  const unsigned = serializeTransaction({ type: "eip1559", chainId: boot.chainId, nonce: 0, to: "0x000000000000000000000000000000000000bEEF",
    value: 7n, gas: 21000n, maxFeePerGas: 50_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n });
  const signed = await http.signTransaction({ type: "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", timestampMs: String(Date.now()), organizationId: org,
    parameters: { signWith: from, unsignedTransaction: unsigned.slice(2), type: "TRANSACTION_TYPE_ETHEREUM" } });
  const signedTransaction = "0x" + signed.activity.result.signTransactionResult.signedTransaction;
  const raw = await http.ethSendRawTransaction({ type: "ACTIVITY_TYPE_ETH_SEND_RAW_TRANSACTION", timestampMs: String(Date.now()), organizationId: org,
    parameters: { signedTransaction, caip2 } });
  const hash = raw.activity.result.ethSendRawTransactionResult.transactionHash;
  const status = await api.pollTransactionStatus({ sendTransactionStatusId: hash, pollingIntervalMs: 100, timeoutMs: 30_000 });
  assert.equal(status.txStatus, "INCLUDED");
  assert.equal(status.eth.txHash, hash);
  assert.equal((await publicClient.getTransactionReceipt({ hash })).status, "success");
});
