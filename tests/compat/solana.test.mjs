// @turnkey/solana's TurnkeySigner, unmodified, backed by @turnkey/http pointed at Sigil; what it signs executes in
// litesvm, an in-process Solana runtime with the SPL programs loaded.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createPublicKey, verify } from "node:crypto";
import { TurnkeyClient } from "@turnkey/http";
import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { generateP256KeyPair } from "@turnkey/crypto";
import { TurnkeySigner } from "@turnkey/solana";
import {
  Keypair, PublicKey, SystemProgram, Transaction, TransactionMessage, VersionedTransaction, AddressLookupTableAccount,
} from "@solana/web3.js";
import * as spl from "@solana/spl-token";
import { LiteSVM, TransactionMetadata } from "litesvm";
import { getTransactionDecoder } from "@solana/kit";

const boot = JSON.parse(readFileSync(join(process.env.SIGIL_DIR, "bootstrap.json"), "utf8"));
const org = boot.organizationId;
const root = new TurnkeyClient({ baseUrl: boot.coordinatorUrl }, new ApiKeyStamper({ apiPublicKey: boot.apiPublicKey, apiPrivateKey: boot.apiPrivateKey }));
const ts = () => String(Date.now());
const policies = [];

async function submit(method, type, parameters) {
  const res = await root[method]({ type, timestampMs: ts(), organizationId: org, parameters });
  assert.equal(res.activity.status, "ACTIVITY_STATUS_COMPLETED");
  return res.activity.result;
}

// A non-root user with an API key, and a TurnkeySigner that stamps with it.
async function agent(name) {
  const pair = generateP256KeyPair();
  const r = await submit("createUsers", "ACTIVITY_TYPE_CREATE_USERS_V4", { users: [{ userName: `${name}-${Date.now()}`,
    apiKeys: [{ apiKeyName: "k", publicKey: pair.publicKey, curveType: "API_KEY_CURVE_P256" }], authenticators: [], oauthProviders: [], userTags: [] }] });
  const client = new TurnkeyClient({ baseUrl: boot.coordinatorUrl }, new ApiKeyStamper({ apiPublicKey: pair.publicKey, apiPrivateKey: pair.privateKey }));
  return { userId: r.createUsersResult.userIds[0], client, signer: new TurnkeySigner({ organizationId: org, client }) };
}

async function solanaWallet() {
  const r = await submit("createWallet", "ACTIVITY_TYPE_CREATE_WALLET", { walletName: `sol-${Date.now()}-${Math.random()}`,
    accounts: [{ curve: "CURVE_ED25519", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/501'/0'/0'", addressFormat: "ADDRESS_FORMAT_SOLANA" }] });
  return new PublicKey(r.createWalletResult.addresses[0]);
}

// An ALLOW policy on solana.tx for one user only, deleted when the file's tests end (the root organization is shared).
async function allow(userId, condition) {
  const r = await submit("createPolicy", "ACTIVITY_TYPE_CREATE_POLICY_V3", { policyName: `solana ${Date.now()} ${Math.random()}`,
    effect: "EFFECT_ALLOW", consensus: `approvers.any(user, user.id == '${userId}')`, condition, notes: "" });
  policies.push(r.createPolicyResult.policyId);
}
after(async () => {
  if (policies.length) await submit("deletePolicies", "ACTIVITY_TYPE_DELETE_POLICIES", { policyIds: policies });
});

const send = (svm, tx) => {
  const res = svm.sendTransaction(getTransactionDecoder().decode(tx.serialize()));
  assert.ok(res instanceof TransactionMetadata, `the runtime refused the transaction: ${res.err?.()} ${res.meta?.().logs?.()}`);
};
const denied = (err) => /No policies evaluated to outcome: Allow/.test(err.message) || assert.fail(err.message);

test("TurnkeySigner.signTransaction: a SOL transfer a solana.tx policy allows executes in litesvm; another recipient is denied", async () => {
  const { userId, signer } = await agent("sol-agent");
  const from = await solanaWallet();
  const bob = Keypair.generate().publicKey, eve = Keypair.generate().publicKey;
  await allow(userId, `solana.tx.instructions.count() == 1 && solana.tx.transfers.count() == 1 && solana.tx.transfers.all(t, t.from == '${from}' && t.to == '${bob}' && t.amount <= 2000000000)`);

  const svm = new LiteSVM();
  svm.airdrop(from.toBase58(), 5_000_000_000n);
  const transfer = (to, lamports) => new Transaction({ feePayer: from, recentBlockhash: svm.latestBlockhash() })
    .add(SystemProgram.transfer({ fromPubkey: from, toPubkey: to, lamports }));

  const signed = await signer.signTransaction(transfer(bob, 1_500_000_000), from.toBase58());
  assert.ok(signed instanceof Transaction);
  assert.ok(signed.verifySignatures());
  send(svm, signed);
  assert.equal(svm.getBalance(bob.toBase58()), 1_500_000_000n);

  await assert.rejects(signer.signTransaction(transfer(eve, 1), from.toBase58()), denied);
  await assert.rejects(signer.signTransaction(transfer(bob, 3_000_000_000), from.toBase58()), denied);
  assert.equal(svm.getBalance(eve.toBase58()), null);
});

test("TurnkeySigner.signTransaction: an SPL TransferChecked a solana.tx policy allows executes in litesvm; another token account is denied", async () => {
  const { userId, signer } = await agent("spl-agent");
  const owner = await solanaWallet();
  const svm = new LiteSVM();
  const payer = Keypair.generate(), mint = Keypair.generate(), bob = Keypair.generate().publicKey, eve = Keypair.generate().publicKey;
  svm.airdrop(payer.publicKey.toBase58(), 10_000_000_000n);
  svm.airdrop(owner.toBase58(), 1_000_000_000n);
  const ata = (who) => spl.getAssociatedTokenAddressSync(mint.publicKey, who);
  // The mint, three token accounts and a balance, set up by a local payer.
  const setup = new Transaction({ feePayer: payer.publicKey, recentBlockhash: svm.latestBlockhash() }).add(
    SystemProgram.createAccount({ fromPubkey: payer.publicKey, newAccountPubkey: mint.publicKey, space: spl.MINT_SIZE,
      lamports: Number(svm.minimumBalanceForRentExemption(BigInt(spl.MINT_SIZE))), programId: spl.TOKEN_PROGRAM_ID }),
    spl.createInitializeMint2Instruction(mint.publicKey, 6, payer.publicKey, null),
    ...[owner, bob, eve].map((w) => spl.createAssociatedTokenAccountIdempotentInstruction(payer.publicKey, ata(w), w, mint.publicKey)),
    spl.createMintToInstruction(mint.publicKey, ata(owner), payer.publicKey, 1_000_000n),
  );
  setup.sign(payer, mint);
  send(svm, setup);

  await allow(userId, `solana.tx.instructions.count() == solana.tx.spl_transfers.count() && solana.tx.spl_transfers.all(t, t.token_mint == '${mint.publicKey}' && t.to == '${ata(bob)}' && t.owner == '${owner}' && t.amount < 500000)`);
  const pay = (to, amount) => new Transaction({ feePayer: owner, recentBlockhash: svm.latestBlockhash() })
    .add(spl.createTransferCheckedInstruction(ata(owner), mint.publicKey, ata(to), owner, amount, 6));

  send(svm, await signer.signTransaction(pay(bob, 250_000n), owner.toBase58()));
  const balance = (who) => spl.AccountLayout.decode(svm.getAccount(ata(who).toBase58()).data).amount;
  assert.equal(balance(bob), 250_000n);
  assert.equal(balance(owner), 750_000n);

  await assert.rejects(signer.signTransaction(pay(eve, 1n), owner.toBase58()), denied);
  await assert.rejects(signer.signTransaction(pay(bob, 500_000n), owner.toBase58()), denied);
  assert.equal(balance(eve), 0n);
});

test("TurnkeySigner.signTransaction: a version 0 transaction whose recipient is in an address lookup table executes in litesvm", async () => {
  const { userId, signer } = await agent("v0-agent");
  const from = await solanaWallet();
  const svm = new LiteSVM();
  svm.airdrop(from.toBase58(), 2_000_000_000n);
  const bob = Keypair.generate().publicKey, table = Keypair.generate().publicKey;
  // An active lookup table holding bob, written directly: 56 bytes of metadata (type 1, never deactivated, extended
  // at slot 0, no authority), then the addresses.
  const data = Buffer.alloc(56 + 32);
  data.writeUInt32LE(1, 0);
  data.writeBigUInt64LE(0xffffffffffffffffn, 4);
  data[20] = 1; // last extended slot's start index: one address, usable from the next slot
  bob.toBuffer().copy(data, 56);
  svm.setAccount({ address: table.toBase58(), data, executable: false, lamports: svm.minimumBalanceForRentExemption(BigInt(data.length)),
    programAddress: "AddressLookupTab1e1111111111111111111111111", space: BigInt(data.length) });
  svm.warpToSlot(10n);
  const lookup = new AddressLookupTableAccount({ key: table, state: AddressLookupTableAccount.deserialize(data) });
  await allow(userId, `solana.tx.address_table_lookups.count() == 1 && solana.tx.address_table_lookups[0].address_table_key == '${table}' && solana.tx.transfers.all(t, t.to == 'ADDRESS_TABLE_LOOKUP' && t.amount == 1234567)`);

  const msg = new TransactionMessage({ payerKey: from, recentBlockhash: svm.latestBlockhash(),
    instructions: [SystemProgram.transfer({ fromPubkey: from, toPubkey: bob, lamports: 1234567 })] }).compileToV0Message([lookup]);
  assert.equal(msg.addressTableLookups.length, 1);
  const signed = await signer.signTransaction(new VersionedTransaction(msg), from.toBase58());
  assert.ok(signed instanceof VersionedTransaction);
  send(svm, signed);
  assert.equal(svm.getBalance(bob.toBase58()), 1234567n);
});

test("TurnkeySigner.signAllTransactions, addSignature and signMessage sign through sign_raw_payload(s)", async () => {
  const from = await solanaWallet();
  const signer = new TurnkeySigner({ organizationId: org, client: root });
  const svm = new LiteSVM();
  svm.airdrop(from.toBase58(), 2_000_000_000n);
  const bob = Keypair.generate().publicKey;
  const transfer = (lamports) => new Transaction({ feePayer: from, recentBlockhash: svm.latestBlockhash() })
    .add(SystemProgram.transfer({ fromPubkey: from, toPubkey: bob, lamports }));

  const all = await signer.signAllTransactions([transfer(1_000_000), transfer(2_000_000)], from.toBase58());
  for (const tx of all) send(svm, tx);
  assert.equal(svm.getBalance(bob.toBase58()), 3_000_000n);

  const v0 = new VersionedTransaction(new TransactionMessage({ payerKey: from, recentBlockhash: svm.latestBlockhash(),
    instructions: [SystemProgram.transfer({ fromPubkey: from, toPubkey: bob, lamports: 4_000_000 })] }).compileToV0Message());
  await signer.addSignature(v0, from.toBase58());
  send(svm, v0);
  assert.equal(svm.getBalance(bob.toBase58()), 7_000_000n);

  const message = new TextEncoder().encode("sigil signs this message");
  const signature = await signer.signMessage(message, from.toBase58());
  const key = createPublicKey({ key: Buffer.concat([Buffer.from("302a300506032b6570032100", "hex"), from.toBuffer()]), format: "der", type: "spki" });
  assert.ok(verify(null, message, key, signature));
});
