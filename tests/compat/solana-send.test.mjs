// Sending Solana transactions through Sigil: @solana/web3.js's Connection, unmodified, against the stack's Solana dev
// node (airdrop, legacy and version 0 transfers, statuses, fees, refusals), and @turnkey/sdk-server's
// solSendTransaction with its status polling (pollTransactionStatus), the recipient's balance read back through the
// Connection.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Turnkey } from "@turnkey/sdk-server";
import {
  Connection, Keypair, LAMPORTS_PER_SOL, PublicKey, SendTransactionError, SystemProgram, Transaction, TransactionMessage,
  VersionedTransaction,
} from "@solana/web3.js";
import { getBase58Decoder } from "@solana/kit";

const boot = JSON.parse(readFileSync(join(process.env.SIGIL_DIR, "bootstrap.json"), "utf8"));
const org = boot.organizationId;
const solana = boot.solana;
const connection = new Connection(solana.rpcUrl, "confirmed");
const turnkey = new Turnkey({ apiBaseUrl: boot.coordinatorUrl, apiPublicKey: boot.apiPublicKey, apiPrivateKey: boot.apiPrivateKey, defaultOrganizationId: org });
const api = turnkey.apiClient();

// base58 of bytes (@solana/kit's decoder turns bytes into their base58 text).
const base58 = (bytes) => getBase58Decoder().decode(bytes);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// confirmed waits, by polling getSignatureStatuses (the dev node has no WebSocket), until a signature is confirmed.
async function confirmed(signature) {
  for (let i = 0; i < 200; i++) {
    const { value } = await connection.getSignatureStatuses([signature]);
    if (value[0]?.err) throw new Error(`${signature} failed: ${JSON.stringify(value[0].err)}`);
    if (value[0]?.confirmationStatus === "confirmed" || value[0]?.confirmationStatus === "finalized") return value[0];
    await sleep(100);
  }
  throw new Error(`${signature} was not confirmed`);
}

async function airdropped(lamports) {
  const kp = Keypair.generate();
  await confirmed(await connection.requestAirdrop(kp.publicKey, lamports));
  return kp;
}

test("the Solana dev node answers @solana/web3.js as a cluster does", async () => {
  assert.equal(await connection.getGenesisHash(), solana.genesisHash);
  assert.equal(solana.caip2, `solana:${solana.genesisHash.slice(0, 32)}`);
  assert.ok((await connection.getVersion())["solana-core"]);
  assert.equal(await connection.getMinimumBalanceForRentExemption(0), 890880);
  // A block's height is its slot less the slots skipped before it (the dev node skips one each time it restarts).
  const slot = await connection.getSlot();
  const block = await connection.getBlock(slot, { maxSupportedTransactionVersion: 0, transactionDetails: "full", rewards: false });
  assert.ok(slot >= 0 && block.blockHeight <= slot && (await connection.getBlockHeight()) >= block.blockHeight);
  assert.equal(block.parentSlot < slot || slot === 0, true);
  assert.deepEqual(await connection.getBlocks(slot, slot), [slot]);

  const alice = await airdropped(2 * LAMPORTS_PER_SOL);
  assert.equal(await connection.getBalance(alice.publicKey), 2 * LAMPORTS_PER_SOL);
  const bob = Keypair.generate().publicKey;
  const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash();
  assert.equal((await connection.isBlockhashValid(blockhash)).value, true);
  const tx = new Transaction({ feePayer: alice.publicKey, blockhash, lastValidBlockHeight })
    .add(SystemProgram.transfer({ fromPubkey: alice.publicKey, toPubkey: bob, lamports: LAMPORTS_PER_SOL }));
  assert.equal((await connection.getFeeForMessage(tx.compileMessage())).value, 5000);
  tx.sign(alice);
  const sim = await connection.simulateTransaction(tx);
  assert.equal(sim.value.err, null);
  const signature = await connection.sendRawTransaction(tx.serialize());
  assert.equal(signature, base58(tx.signature));
  await confirmed(signature);
  assert.equal(await connection.getBalance(bob), LAMPORTS_PER_SOL);
  assert.equal(await connection.getBalance(alice.publicKey), LAMPORTS_PER_SOL - 5000);
  const got = await connection.getTransaction(signature, { commitment: "confirmed", maxSupportedTransactionVersion: 0 });
  assert.equal(got.meta.fee, 5000);
  assert.equal(got.meta.err, null);
  assert.equal(got.transaction.message.staticAccountKeys[0].toBase58(), alice.publicKey.toBase58());
  const parsed = await connection.getParsedTransaction(signature, { commitment: "confirmed", maxSupportedTransactionVersion: 0 });
  assert.deepEqual(parsed.transaction.message.instructions[0].parsed,
    { type: "transfer", info: { source: alice.publicKey.toBase58(), destination: bob.toBase58(), lamports: LAMPORTS_PER_SOL } });
  const account = await connection.getAccountInfo(alice.publicKey);
  assert.equal(account.owner.toBase58(), SystemProgram.programId.toBase58());

  // A version 0 transaction, sent base58 by hand: the RPC's default encoding.
  const v0 = new VersionedTransaction(new TransactionMessage({ payerKey: alice.publicKey, recentBlockhash: (await connection.getLatestBlockhash()).blockhash,
    instructions: [SystemProgram.transfer({ fromPubkey: alice.publicKey, toPubkey: bob, lamports: 1_000 })] }).compileToV0Message());
  v0.sign([alice]);
  const res = await (await fetch(solana.rpcUrl, { method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "sendTransaction", params: [base58(v0.serialize())] }) })).json();
  assert.equal(res.result, base58(v0.signatures[0]));
  await confirmed(res.result);
  assert.equal(await connection.getBalance(bob), LAMPORTS_PER_SOL + 1_000);

  // Refusals, in the cluster's shapes: a duplicate, an overdraft, a signature that does not verify.
  await assert.rejects(connection.sendRawTransaction(tx.serialize()), (err) => err instanceof SendTransactionError && /already been processed/.test(err.message));
  const overdraft = new Transaction({ feePayer: alice.publicKey, ...(await connection.getLatestBlockhash()) })
    .add(SystemProgram.transfer({ fromPubkey: alice.publicKey, toPubkey: bob, lamports: 10 * LAMPORTS_PER_SOL }));
  overdraft.sign(alice);
  await assert.rejects(connection.sendRawTransaction(overdraft.serialize()), (err) => {
    assert.ok(err instanceof SendTransactionError);
    assert.match(err.message, /custom program error: 0x1/);
    return true;
  });
  const forged = overdraft.serialize();
  forged[1] ^= 1;
  await assert.rejects(connection.sendRawTransaction(forged), /signature verification failure/);
});

// solanaAccount creates a wallet with one Solana account and returns its address.
async function solanaAccount(name) {
  const wallet = await api.createWallet({ walletName: `${name} ${Date.now()}`,
    accounts: [{ curve: "CURVE_ED25519", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/501'/0'/0'", addressFormat: "ADDRESS_FORMAT_SOLANA" }] });
  return wallet.addresses[0];
}

// unsignedTransfer is a transfer as an SDK user builds it, hex, its signature slot empty and its blockhash a
// placeholder (Sigil fetches a fresh one: recentBlockhash is omitted).
function unsignedTransfer(from, to, lamports) {
  const tx = new Transaction({ feePayer: new PublicKey(from), recentBlockhash: PublicKey.default.toBase58() })
    .add(SystemProgram.transfer({ fromPubkey: new PublicKey(from), toPubkey: new PublicKey(to), lamports }));
  return tx.serialize({ requireAllSignatures: false, verifySignatures: false }).toString("hex");
}

test("solSendTransaction is signed, broadcast and INCLUDED, as pollTransactionStatus reports; the Connection sees it", async () => {
  const from = await solanaAccount("sdk solana sender");
  await confirmed(await connection.requestAirdrop(new PublicKey(from), LAMPORTS_PER_SOL));
  const to = Keypair.generate().publicKey.toBase58();
  const sent = await api.solSendTransaction({ unsignedTransaction: unsignedTransfer(from, to, LAMPORTS_PER_SOL / 4), signWiths: [from], caip2: solana.caip2 });
  assert.equal(sent.activity.status, "ACTIVITY_STATUS_COMPLETED");
  assert.equal(sent.activity.type, "ACTIVITY_TYPE_SOL_SEND_TRANSACTION_V2");
  assert.match(sent.sendTransactionStatusId, /^[0-9a-f-]{36}$/);
  const status = await api.pollTransactionStatus({ sendTransactionStatusId: sent.sendTransactionStatusId, pollingIntervalMs: 100, timeoutMs: 30_000 });
  assert.equal(status.txStatus, "INCLUDED");
  assert.equal(status.eth, undefined);
  const signature = status.solana.signature;
  const got = await connection.getTransaction(signature, { commitment: "confirmed", maxSupportedTransactionVersion: 0 });
  assert.equal(got.meta.err, null);
  assert.equal(got.transaction.message.staticAccountKeys[0].toBase58(), from);
  assert.equal(await connection.getBalance(new PublicKey(to)), LAMPORTS_PER_SOL / 4);
  assert.equal(await connection.getBalance(new PublicKey(from)), LAMPORTS_PER_SOL - LAMPORTS_PER_SOL / 4 - 5000);
});

test("an unfunded account's send fails with the cluster's reason; an unknown cluster is refused", async () => {
  const from = await solanaAccount("sdk solana unfunded");
  const sent = await api.solSendTransaction({ unsignedTransaction: unsignedTransfer(from, from, 1), signWiths: [from], caip2: solana.caip2 });
  await assert.rejects(api.pollTransactionStatus({ sendTransactionStatusId: sent.sendTransactionStatusId, pollingIntervalMs: 100, timeoutMs: 30_000 }),
    (err) => {
      assert.match(err.message, /no record of a prior credit/);
      return true;
    });
  const status = await api.getSendTransactionStatus({ sendTransactionStatusId: sent.sendTransactionStatusId });
  assert.equal(status.txStatus, "FAILED");
  assert.equal(status.error.solana.source, "preflight");
  assert.equal(status.error.solana.transactionErrorJson, '"AccountNotFound"');
  await assert.rejects(api.solSendTransaction({ unsignedTransaction: unsignedTransfer(from, from, 1), signWiths: [from], caip2: "solana:mainnet" }),
    /unknown network "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp"/);
});

test("a sponsored solSendTransaction: the organization's fee sponsor pays the fee, the account only what it sends", async () => {
  const from = await solanaAccount("sdk solana sponsored");
  await confirmed(await connection.requestAirdrop(new PublicKey(from), LAMPORTS_PER_SOL));
  const to = Keypair.generate().publicKey.toBase58();
  const sent = await api.solSendTransaction({ unsignedTransaction: unsignedTransfer(from, to, LAMPORTS_PER_SOL / 2), signWiths: [from],
    caip2: solana.caip2, sponsor: true });
  const status = await api.pollTransactionStatus({ sendTransactionStatusId: sent.sendTransactionStatusId, pollingIntervalMs: 100, timeoutMs: 30_000 });
  assert.equal(status.txStatus, "INCLUDED");
  const got = await connection.getTransaction(status.solana.signature, { commitment: "confirmed", maxSupportedTransactionVersion: 0 });
  const feePayer = got.transaction.message.staticAccountKeys[0].toBase58();
  assert.notEqual(feePayer, from);
  assert.equal(got.meta.fee, 10_000);
  assert.equal(await connection.getBalance(new PublicKey(from)), LAMPORTS_PER_SOL / 2);
  assert.equal(await connection.getBalance(new PublicKey(to)), LAMPORTS_PER_SOL / 2);
});
