// TRANSACTION_TYPE_BITCOIN through @turnkey/http: a PSBT built with bitcoinjs-lib, signed through Sigil under a
// bitcoin.tx policy, whose signatures bitcoinjs-lib validates and whose inputs it finalizes into a transaction.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createHash } from "node:crypto";
import { TurnkeyClient } from "@turnkey/http";
import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { generateP256KeyPair } from "@turnkey/crypto";
import * as bitcoin from "bitcoinjs-lib";
import * as ecc from "tiny-secp256k1";

bitcoin.initEccLib(ecc);
const network = bitcoin.networks.testnet;
const boot = JSON.parse(readFileSync(join(process.env.SIGIL_DIR, "bootstrap.json"), "utf8"));
const org = boot.organizationId;
const root = new TurnkeyClient({ baseUrl: boot.coordinatorUrl }, new ApiKeyStamper({ apiPublicKey: boot.apiPublicKey, apiPrivateKey: boot.apiPrivateKey }));
const ts = () => String(Date.now());
const policies = [];

async function submit(client, method, type, parameters) {
  const res = await client[method]({ type, timestampMs: ts(), organizationId: org, parameters });
  assert.equal(res.activity.status, "ACTIVITY_STATUS_COMPLETED");
  return res.activity.result;
}
after(async () => {
  if (policies.length) await submit(root, "deletePolicies", "ACTIVITY_TYPE_DELETE_POLICIES", { policyIds: policies });
});

const formats = ["P2PKH", "P2SH", "P2WPKH", "P2WSH", "P2TR"].map((s) => `ADDRESS_FORMAT_BITCOIN_TESTNET_${s}`);

// A PSBT spending one output of each of the key's five address types, paying `to` and change.
function buildPsbt(pubkey, to) {
  const pay = {
    P2PKH: bitcoin.payments.p2pkh({ pubkey, network }),
    P2SH: bitcoin.payments.p2sh({ redeem: bitcoin.payments.p2wpkh({ pubkey, network }), network }),
    P2WPKH: bitcoin.payments.p2wpkh({ pubkey, network }),
    P2WSH: bitcoin.payments.p2wsh({ redeem: bitcoin.payments.p2pk({ pubkey, network }), network }),
    P2TR: bitcoin.payments.p2tr({ internalPubkey: pubkey.subarray(1), network }),
  };
  const funding = new bitcoin.Transaction();
  funding.addInput(new Uint8Array(32).fill(9), 0);
  for (const p of Object.values(pay)) funding.addOutput(p.output, 100_000n);
  const psbt = new bitcoin.Psbt({ network });
  Object.entries(pay).forEach(([kind, p], index) => {
    const input = { hash: funding.getId(), index };
    if (kind === "P2PKH") input.nonWitnessUtxo = funding.toBuffer();
    else input.witnessUtxo = { script: p.output, value: 100_000n };
    if (kind === "P2SH") input.redeemScript = p.redeem.output;
    if (kind === "P2WSH") input.witnessScript = p.redeem.output;
    if (kind === "P2TR") input.tapInternalKey = pubkey.subarray(1);
    psbt.addInput(input);
  });
  psbt.addOutput({ address: to, value: 450_000n });
  psbt.addOutput({ address: pay.P2WPKH.address, value: 40_000n });
  return { psbt, change: pay.P2WPKH.address };
}

const validator = (pubkey, msghash, signature) =>
  pubkey.length === 32 ? ecc.verifySchnorr(msghash, pubkey, signature) : ecc.verify(msghash, pubkey, signature);

test("a PSBT's P2PKH, P2SH-P2WPKH, P2WPKH, P2WSH and P2TR inputs signed through Sigil finalize and verify with bitcoinjs-lib", async () => {
  const pair = generateP256KeyPair();
  const user = await submit(root, "createUsers", "ACTIVITY_TYPE_CREATE_USERS_V4", { users: [{ userName: `btc-${Date.now()}`,
    apiKeys: [{ apiKeyName: "k", publicKey: pair.publicKey, curveType: "API_KEY_CURVE_P256" }], authenticators: [], oauthProviders: [], userTags: [] }] });
  const userId = user.createUsersResult.userIds[0];
  const agent = new TurnkeyClient({ baseUrl: boot.coordinatorUrl }, new ApiKeyStamper({ apiPublicKey: pair.publicKey, apiPrivateKey: pair.privateKey }));

  // One secp256k1 key with every testnet script type: its id names it, and every input is its.
  const key = await submit(root, "createPrivateKeys", "ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2", { privateKeys: [{
    privateKeyName: `btc-${Date.now()}`, curve: "CURVE_SECP256K1", privateKeyTags: [], addressFormats: ["ADDRESS_FORMAT_COMPRESSED", ...formats] }] });
  const { privateKeyId, addresses } = key.createPrivateKeysResultV2.privateKeys[0];
  const pubkey = Uint8Array.from(Buffer.from(addresses.find((a) => a.format === "ADDRESS_FORMAT_COMPRESSED").address, "hex"));
  const to = bitcoin.payments.p2wpkh({ hash: createHash("sha256").update("to").digest().subarray(0, 20), network }).address;
  const elsewhere = bitcoin.payments.p2wpkh({ hash: createHash("sha256").update("elsewhere").digest().subarray(0, 20), network }).address;
  const { psbt, change } = buildPsbt(pubkey, to);

  const r = await submit(root, "createPolicy", "ACTIVITY_TYPE_CREATE_POLICY_V3", { policyName: `bitcoin ${Date.now()}`, effect: "EFFECT_ALLOW",
    consensus: `approvers.any(user, user.id == '${userId}')`, notes: "",
    condition: `bitcoin.tx.outputs.count() == 2 && bitcoin.tx.outputs.all(o, o.address in ['${to}', '${change}']) && bitcoin.tx.fee <= 20000 && bitcoin.tx.inputs.all(i, i.vout < 5)` });
  policies.push(r.createPolicyResult.policyId);

  const res = await agent.signTransaction({ type: "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", timestampMs: ts(), organizationId: org,
    parameters: { signWith: privateKeyId, unsignedTransaction: psbt.toHex(), type: "TRANSACTION_TYPE_BITCOIN" } });
  assert.equal(res.activity.status, "ACTIVITY_STATUS_COMPLETED");
  const signed = bitcoin.Psbt.fromHex(res.activity.result.signTransactionResult.signedTransaction, { network });
  assert.equal(signed.data.inputs[4].tapKeySig.length, 64);
  for (const i of [0, 1, 2, 3]) assert.equal(signed.data.inputs[i].partialSig.length, 1);
  assert.ok(signed.validateSignaturesOfAllInputs(validator));
  signed.finalizeAllInputs();
  const tx = signed.extractTransaction();
  assert.equal(tx.ins.length, 5);
  assert.equal(tx.ins[4].witness.length, 1); // a key-path spend

  const other = buildPsbt(pubkey, elsewhere).psbt;
  await assert.rejects(agent.signTransaction({ type: "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", timestampMs: ts(), organizationId: org,
    parameters: { signWith: privateKeyId, unsignedTransaction: other.toHex(), type: "TRANSACTION_TYPE_BITCOIN" } }),
  /No policies evaluated to outcome: Allow/);
});

test("raw payloads: a P2TR address signs BIP-340 with its tweaked key, a Spark address plain BIP-340, a P2WPKH address a Bitcoin signed message", async () => {
  const account = (path, addressFormat) => ({ curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path, addressFormat });
  const w = await submit(root, "createWallet", "ACTIVITY_TYPE_CREATE_WALLET", { walletName: `schnorr-${Date.now()}`, accounts: [
    account("m/86'/1'/0'/0/0", "ADDRESS_FORMAT_BITCOIN_TESTNET_P2TR"), account("m/86'/1'/0'/0/0", "ADDRESS_FORMAT_SPARK_REGTEST"),
    account("m/86'/1'/0'/0/0", "ADDRESS_FORMAT_COMPRESSED"), account("m/86'/1'/0'/0/0", "ADDRESS_FORMAT_BITCOIN_TESTNET_P2WPKH")] });
  const [taproot, spark, compressed, segwit] = w.createWalletResult.addresses;
  const pubkey = Uint8Array.from(Buffer.from(compressed, "hex"));
  assert.equal(bitcoin.payments.p2tr({ internalPubkey: pubkey.subarray(1), network }).address, taproot);
  const sign = async (signWith, payload, hashFunction) => {
    const res = await root.signRawPayload({ type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", timestampMs: ts(), organizationId: org,
      parameters: { signWith, payload, encoding: "PAYLOAD_ENCODING_HEXADECIMAL", hashFunction } });
    return res.activity.result.signRawPayloadResult;
  };
  const digest = createHash("sha256").update("a taproot message").digest();
  const outputKey = bitcoin.address.fromBech32(taproot).data;
  const t = await sign(taproot, digest.toString("hex"), "HASH_FUNCTION_NO_OP");
  assert.ok(ecc.verifySchnorr(digest, outputKey, Buffer.from(t.r + t.s, "hex")));
  assert.equal(t.v, "00");
  const s = await sign(spark, digest.toString("hex"), "HASH_FUNCTION_NO_OP");
  assert.ok(ecc.verifySchnorr(digest, pubkey.subarray(1), Buffer.from(s.r + s.s, "hex")));

  // Bitcoin message signing (BIP-137): the signed hash is SHA-256d of the prefixed message; the caller sends one
  // SHA-256 and asks for HASH_FUNCTION_SHA256.
  const message = Buffer.from("sigil signs this");
  const prefixed = Buffer.concat([Buffer.from("\x18Bitcoin Signed Message:\n"), Buffer.from([message.length]), message]);
  const once = createHash("sha256").update(prefixed).digest();
  const hash = createHash("sha256").update(once).digest();
  const m = await sign(segwit, once.toString("hex"), "HASH_FUNCTION_SHA256");
  const sig = Buffer.from(m.r + m.s, "hex");
  assert.ok(ecc.verify(hash, pubkey, sig));
  assert.deepEqual(Buffer.from(ecc.recover(hash, sig, parseInt(m.v, 16), true)), Buffer.from(pubkey));
});
