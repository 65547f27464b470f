// @turnkey/cosmjs's TurnkeyDirectWallet, unmodified, against Sigil: direct sign docs signed through it verify as
// Cosmos SDK chains verify them; amino JSON sign docs signed through sign_raw_payload too; Cosmos and Sei addresses
// are the wallet's.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { TurnkeyClient } from "@turnkey/http";
import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { Turnkey } from "@turnkey/sdk-server";
import { TurnkeyDirectWallet } from "@turnkey/cosmjs";
import { makeSignDoc, makeSignBytes } from "@cosmjs/proto-signing";
import { makeSignDoc as makeAminoSignDoc, serializeSignDoc, pubkeyToAddress } from "@cosmjs/amino";
import { Secp256k1, Secp256k1Signature, sha256 } from "@cosmjs/crypto";
import { fromBase64, fromHex, toHex } from "@cosmjs/encoding";

const boot = JSON.parse(readFileSync(join(process.env.SIGIL_DIR, "bootstrap.json"), "utf8"));
const org = boot.organizationId;
const http = new TurnkeyClient({ baseUrl: boot.coordinatorUrl }, new ApiKeyStamper({ apiPublicKey: boot.apiPublicKey, apiPrivateKey: boot.apiPrivateKey }));
const server = new Turnkey({ apiBaseUrl: boot.coordinatorUrl, apiPublicKey: boot.apiPublicKey, apiPrivateKey: boot.apiPrivateKey, defaultOrganizationId: org }).apiClient();

// A wallet with one key at the Cosmos path, by its Cosmos address and its uncompressed key (what TurnkeyDirectWallet
// takes as signWith), and a Sei account.
async function wallet() {
  const account = (path, addressFormat) => ({ curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path, addressFormat });
  const res = await http.createWallet({ type: "ACTIVITY_TYPE_CREATE_WALLET", timestampMs: String(Date.now()), organizationId: org, parameters: {
    walletName: `cosmos-${Date.now()}`, accounts: [account("m/44'/118'/0'/0/0", "ADDRESS_FORMAT_COSMOS"), account("m/44'/118'/0'/0/0", "ADDRESS_FORMAT_UNCOMPRESSED"),
      account("m/44'/118'/0'/0'/0'", "ADDRESS_FORMAT_SEI"), account("m/44'/118'/0'/0'/0'", "ADDRESS_FORMAT_UNCOMPRESSED")] } });
  const [cosmos, uncompressed, sei, seiKey] = res.activity.result.createWalletResult.addresses;
  return { cosmos, uncompressed, sei, seiKey };
}

const docFor = (accountNumber) => makeSignDoc(Uint8Array.from([10, 3, 1, 2, 3]), Uint8Array.from([18, 2, 4, 5]), "cosmoshub-4", accountNumber);

// @turnkey/cosmjs hands the r and s it receives to @cosmjs/crypto's ExtendedSecp256k1Signature, which refuses a
// leading zero byte; Sigil, like the reference, returns both as 32 bytes (what @turnkey/viem concatenates), so about
// one signature in 128 is refused inside the SDK, against the reference too. Signing is deterministic (RFC 6979),
// so the same doc always gives the same signature: on that one refusal, sign a doc with the next account number.
async function signDirect(signer, address) {
  for (let accountNumber = 7n; ; accountNumber++) {
    const doc = docFor(accountNumber);
    try {
      return { doc, ...(await signer.signDirect(address, doc)) };
    } catch (err) {
      if (!/must be encoded as unpadded big endian/.test(err.message) || accountNumber > 10n) throw err;
    }
  }
}
const verifies = (signature, digest, pubkey) =>
  Secp256k1.verifySignature(Secp256k1Signature.fromFixedLength(fromBase64(signature)), digest, pubkey);

test("TurnkeyDirectWallet (with @turnkey/sdk-server) signs direct sign docs that verify over SHA-256 of the sign bytes", async () => {
  const w = await wallet();
  const signer = await TurnkeyDirectWallet.init({ config: { client: server, organizationId: org, signWith: w.uncompressed } });
  const [account] = await signer.getAccounts();
  assert.equal(account.address, w.cosmos);
  const { doc, signature, signed } = await signDirect(signer, account.address);
  assert.equal(signed, doc);
  assert.equal(toHex(fromBase64(signature.pub_key.value)), toHex(account.pubkey));
  assert.ok(await verifies(signature.signature, sha256(makeSignBytes(doc)), account.pubkey));

  const sei = await TurnkeyDirectWallet.init({ config: { client: server, organizationId: org, signWith: w.seiKey }, prefix: "sei" });
  const [seiAccount] = await sei.getAccounts();
  assert.equal(seiAccount.address, w.sei);
  assert.equal(pubkeyToAddress({ type: "tendermint/PubKeySecp256k1", value: Buffer.from(seiAccount.pubkey).toString("base64") }, "sei"), w.sei);
  const seiSigned = await signDirect(sei, seiAccount.address);
  assert.ok(await verifies(seiSigned.signature.signature, sha256(makeSignBytes(seiSigned.doc)), seiAccount.pubkey));
});

test("TurnkeyDirectWallet with a private key id fetches its public key and signs", async () => {
  const res = await http.createPrivateKeys({ type: "ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2", timestampMs: String(Date.now()), organizationId: org,
    parameters: { privateKeys: [{ privateKeyName: `cosmos-${Date.now()}`, curve: "CURVE_SECP256K1", privateKeyTags: [], addressFormats: ["ADDRESS_FORMAT_COSMOS"] }] } });
  const { privateKeyId, addresses } = res.activity.result.createPrivateKeysResultV2.privateKeys[0];
  const signer = await TurnkeyDirectWallet.init({ config: { client: server, organizationId: org, signWith: privateKeyId } });
  const [account] = await signer.getAccounts();
  assert.equal(account.address, addresses[0].address);
  const { doc, signature } = await signDirect(signer, account.address);
  assert.ok(await verifies(signature.signature, sha256(makeSignBytes(doc)), account.pubkey));
});

test("with a @turnkey/http client, @turnkey/cosmjs 0.8.2 asks for HASH_FUNCTION_SHA256 over the digest: Sigil hashes it once more, as the reference does", async () => {
  const w = await wallet();
  const signer = await TurnkeyDirectWallet.init({ config: { client: http, organizationId: org, signWith: w.uncompressed } });
  const [account] = await signer.getAccounts();
  const { doc, signature } = await signDirect(signer, account.address);
  // This SDK version's http path sends sha256(signBytes) with HASH_FUNCTION_SHA256; the signature is over
  // sha256(sha256(signBytes)). Its sdk-server path (above) sends HASH_FUNCTION_NO_OP and is what chains accept.
  assert.ok(await verifies(signature.signature, sha256(sha256(makeSignBytes(doc))), account.pubkey));
});

test("amino JSON sign docs signed through sign_raw_payload verify over SHA-256 of the serialized doc", async () => {
  const w = await wallet();
  const pubkey = Secp256k1.compressPubkey(fromHex(w.uncompressed));
  const doc = makeAminoSignDoc([{ type: "cosmos-sdk/MsgSend", value: { from_address: w.cosmos, to_address: "cosmos1w508d6qejxtdg4y5r3zarvary0c5xw7k6ah60c", amount: [{ denom: "uatom", amount: "1000" }] } }],
    { amount: [{ denom: "uatom", amount: "500" }], gas: "200000" }, "cosmoshub-4", "sigil", 7, 3);
  const digest = sha256(serializeSignDoc(doc));
  const { r, s } = await server.signRawPayload({ signWith: w.cosmos, payload: toHex(digest), encoding: "PAYLOAD_ENCODING_HEXADECIMAL", hashFunction: "HASH_FUNCTION_NO_OP" });
  assert.ok(await Secp256k1.verifySignature(Secp256k1Signature.fromFixedLength(fromHex(r + s)), digest, pubkey));
  // The same with the doc itself and HASH_FUNCTION_SHA256.
  const again = await server.signRawPayload({ signWith: w.cosmos, payload: toHex(serializeSignDoc(doc)), encoding: "PAYLOAD_ENCODING_HEXADECIMAL", hashFunction: "HASH_FUNCTION_SHA256" });
  assert.ok(await Secp256k1.verifySignature(Secp256k1Signature.fromFixedLength(fromHex(again.r + again.s)), digest, pubkey));
});
