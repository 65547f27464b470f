// Chain data with the official SDKs: @turnkey/sdk-server and @turnkey/http read the balances, supported assets and
// transaction histories of the stack's dev chain and Solana dev node, as the coordinator's balance watchers follow them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { TurnkeyClient } from "@turnkey/http";
import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { Turnkey } from "@turnkey/sdk-server";
import { Connection, Keypair, LAMPORTS_PER_SOL, PublicKey, SystemProgram, Transaction } from "@solana/web3.js";

const boot = JSON.parse(readFileSync(join(process.env.SIGIL_DIR, "bootstrap.json"), "utf8"));
const org = boot.organizationId;
const caip2 = `eip155:${boot.chainId}`;
const http = new TurnkeyClient({ baseUrl: boot.coordinatorUrl }, new ApiKeyStamper({ apiPublicKey: boot.apiPublicKey, apiPrivateKey: boot.apiPrivateKey }));
const api = new Turnkey({ apiBaseUrl: boot.coordinatorUrl, apiPublicKey: boot.apiPublicKey, apiPrivateKey: boot.apiPrivateKey, defaultOrganizationId: org }).apiClient();

// until polls f until it returns something truthy (a generous deadline: the watchers poll each second).
async function until(what, f) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

test("an EVM account's balances, the network's assets and the account's history, paged by pageInfo.endCursor", async () => {
  const wallet = await api.createWallet({ walletName: `chain data ${Date.now()}`,
    accounts: [{ curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" }] });
  const address = wallet.addresses[0];
  // The watcher reads blocks from when it started; wait for it to have read the account's creation's era.
  const funded = await fetch(boot.faucetUrl, { method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ address, eth: "1", tokens: { USDC: "250" } }) });
  assert.ok(funded.ok, "faucet");
  const usdc = `${caip2}/erc20:${boot.contracts.USDC.toLowerCase()}`;

  const { balances } = await until("the balances", async () => {
    const res = await api.getWalletAddressBalances({ address, caip2 });
    return res.balances?.length === 2 && res;
  });
  assert.deepEqual(balances.map((b) => b.caip19), [`${caip2}/slip44:60`, usdc]);
  assert.equal(balances[0].balance, "1000000000000000000");
  assert.equal(balances[0].display.crypto, "1");
  assert.equal(balances[1].symbol, "USDC");
  assert.equal(balances[1].decimals, 6);
  assert.equal(balances[1].display.crypto, "250");
  assert.deepEqual((await http.getWalletAddressBalances({ organizationId: org, address, caip2 })).balances, balances);

  const { assets } = await http.listSupportedAssets({ organizationId: org, caip2 });
  assert.equal(assets[0].caip19, `${caip2}/slip44:60`);
  assert.ok(assets.some((a) => a.caip19 === usdc && a.decimals === 6), JSON.stringify(assets));

  const history = await until("two transactions", async () => {
    const res = await api.listEthTransactionHistory({ address, caip2, paginationOptions: { limit: "100" } });
    return res.transactions.length === 2 && res;
  });
  for (const tx of history.transactions) {
    assert.match(tx.transactionHash, /^0x[0-9a-f]{64}$/);
    assert.ok(["CONFIRMED", "FINALIZED"].includes(tx.status));
    assert.equal(tx.origin, "EXTERNAL");
    assert.equal(tx.transfers[0].direction, "IN");
    assert.equal(tx.fee.caip19, `${caip2}/slip44:60`);
    assert.match(tx.block.timestamp, /^\d{4}-\d\d-\d\dT/);
  }
  assert.deepEqual(history.transactions.map((t) => t.transfers[0].asset.caip19).sort(), [`${caip2}/slip44:60`, usdc].sort());

  const first = await http.listEthTransactionHistory({ organizationId: org, address, caip2, paginationOptions: { limit: "1" } });
  assert.equal(first.transactions[0].transactionHash, history.transactions[0].transactionHash);
  assert.equal(first.pageInfo.hasNextPage, true);
  const next = await http.listEthTransactionHistory({ organizationId: org, address, caip2, paginationOptions: { limit: "1", after: first.pageInfo.endCursor } });
  assert.equal(next.transactions[0].transactionHash, history.transactions[1].transactionHash);
  assert.equal(next.pageInfo.hasNextPage, false);

  await assert.rejects(api.getWalletAddressBalances({ address, caip2: "eip155:1" }),
    (err) => { assert.match(String(err.message), /is not a network this server follows/); return true; });
  await assert.rejects(api.getWalletAddressBalances({ address: "0x1234", caip2 }),
    (err) => { assert.match(String(err.message), /is not an EVM address/); return true; });
  await assert.rejects(api.listSolTransactionHistory({ address, caip2 }),
    (err) => { assert.match(String(err.message), /use list_eth_transaction_history/); return true; });
});

test("a Solana account's SOL balance and history: an airdrop in, a solSendTransaction out, sent through Sigil", async () => {
  const solana = boot.solana;
  const connection = new Connection(solana.rpcUrl, "confirmed");
  const wallet = await api.createWallet({ walletName: `sol chain data ${Date.now()}`,
    accounts: [{ curve: "CURVE_ED25519", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/501'/0'/0'", addressFormat: "ADDRESS_FORMAT_SOLANA" }] });
  const address = wallet.addresses[0];
  const airdrop = await connection.requestAirdrop(new PublicKey(address), LAMPORTS_PER_SOL);
  await until("the airdrop in the history", async () => {
    const res = await api.listSolTransactionHistory({ address, caip2: solana.caip2 });
    return res.transactions.some((t) => t.signature === airdrop);
  });
  const to = Keypair.generate().publicKey.toBase58();
  const unsigned = new Transaction({ feePayer: new PublicKey(address), recentBlockhash: PublicKey.default.toBase58() })
    .add(SystemProgram.transfer({ fromPubkey: new PublicKey(address), toPubkey: new PublicKey(to), lamports: LAMPORTS_PER_SOL / 100 }))
    .serialize({ requireAllSignatures: false, verifySignatures: false }).toString("hex");
  const sent = await api.solSendTransaction({ unsignedTransaction: unsigned, signWiths: [address], caip2: solana.caip2 });
  const status = await api.pollTransactionStatus({ sendTransactionStatusId: sent.sendTransactionStatusId, pollingIntervalMs: 100, timeoutMs: 30_000 });
  const history = await until("the send in the history", async () => {
    const res = await http.listSolTransactionHistory({ organizationId: org, address, caip2: solana.caip2 });
    return res.transactions.length === 2 && res;
  });
  const [out, inbound] = history.transactions;
  assert.equal(out.signature, status.solana.signature);
  assert.equal(out.origin, "TURNKEY");
  assert.equal(out.turnkey.sponsored, false);
  assert.equal(out.feePayer, address);
  assert.deepEqual(out.signers, [{ address, writable: true }]);
  assert.deepEqual(out.transfers.map((t) => [t.direction, t.amount, t.counterparty]), [["OUT", String(LAMPORTS_PER_SOL / 100), to]]);
  assert.equal(inbound.signature, airdrop);
  assert.equal(inbound.transfers[0].asset.caip19, `${solana.caip2}/slip44:501`);

  const lamports = await connection.getBalance(new PublicKey(address), "confirmed");
  const { balances } = await until("the balance after the send", async () => {
    const res = await api.getWalletAddressBalances({ address, caip2: solana.caip2 });
    return res.balances?.[0]?.balance === String(lamports) && res;
  });
  assert.equal(balances[0].symbol, "SOL");
  assert.equal(balances[0].decimals, 9);
  const { assets } = await api.listSupportedAssets({ caip2: solana.caip2 });
  assert.deepEqual(assets.map((a) => a.caip19), [`${solana.caip2}/slip44:501`]);
  await assert.rejects(api.getWalletAddressBalances({ address: "0x000000000000000000000000000000000000bEEF", caip2: solana.caip2 }),
    (err) => { assert.match(String(err.message), /is an EVM address/); return true; });
});
