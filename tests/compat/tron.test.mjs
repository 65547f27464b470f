// TRANSACTION_TYPE_TRON through @turnkey/http: transactions built offline with tronweb, signed through Sigil under
// tron.tx policies; tronweb encodes the same signed transaction and recovers the signer from it.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { TurnkeyClient } from "@turnkey/http";
import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { generateP256KeyPair } from "@turnkey/crypto";
import { TronWeb, Trx, utils } from "tronweb";

const boot = JSON.parse(readFileSync(join(process.env.SIGIL_DIR, "bootstrap.json"), "utf8"));
const org = boot.organizationId;
const root = new TurnkeyClient({ baseUrl: boot.coordinatorUrl }, new ApiKeyStamper({ apiPublicKey: boot.apiPublicKey, apiPrivateKey: boot.apiPrivateKey }));
const ts = () => String(Date.now());
const policies = [];
// No node: every transaction is built from a given block header.
const tronWeb = new TronWeb({ fullHost: "http://127.0.0.1:9" });
const blockHeader = { ref_block_bytes: "c3e8", ref_block_hash: "e3b7e1a1c2d3f4e5", expiration: Date.now() + 60_000, timestamp: Date.now() };
const usdt = "TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf";
const to = "TFxUNfCwhiTSnNntkcXvicSTf4otPXeCXL";

async function submit(client, method, type, parameters) {
  const res = await client[method]({ type, timestampMs: ts(), organizationId: org, parameters });
  assert.equal(res.activity.status, "ACTIVITY_STATUS_COMPLETED");
  return res.activity.result;
}
after(async () => {
  if (policies.length) await submit(root, "deletePolicies", "ACTIVITY_TYPE_DELETE_POLICIES", { policyIds: policies });
});

test("TRX and TRC-20 transfers signed through Sigil are what tronweb encodes, signed by the account; others are denied", async () => {
  const pair = generateP256KeyPair();
  const user = await submit(root, "createUsers", "ACTIVITY_TYPE_CREATE_USERS_V4", { users: [{ userName: `tron-${Date.now()}`,
    apiKeys: [{ apiKeyName: "k", publicKey: pair.publicKey, curveType: "API_KEY_CURVE_P256" }], authenticators: [], oauthProviders: [], userTags: [] }] });
  const userId = user.createUsersResult.userIds[0];
  const agent = new TurnkeyClient({ baseUrl: boot.coordinatorUrl }, new ApiKeyStamper({ apiPublicKey: pair.publicKey, apiPrivateKey: pair.privateKey }));
  const wallet = await submit(root, "createWallet", "ACTIVITY_TYPE_CREATE_WALLET", { walletName: `tron-${Date.now()}`,
    accounts: [{ curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/195'/0'", addressFormat: "ADDRESS_FORMAT_TRON" }] });
  const from = wallet.createWalletResult.addresses[0];
  for (const condition of [
    `tron.tx.contract[0].type == 'TransferContract' && tron.tx.contract[0].amount < 10000000`,
    `tron.tx.contract[0].contract_address == '${usdt}' && tron.tx.contract[0].data[0..8] == 'a9059cbb'`,
  ]) {
    const r = await submit(root, "createPolicy", "ACTIVITY_TYPE_CREATE_POLICY_V3", { policyName: `tron ${Date.now()} ${Math.random()}`,
      effect: "EFFECT_ALLOW", consensus: `approvers.any(user, user.id == '${userId}')`, condition, notes: "" });
    policies.push(r.createPolicyResult.policyId);
  }
  const sign = (tx) => agent.signTransaction({ type: "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", timestampMs: ts(), organizationId: org,
    parameters: { signWith: from, unsignedTransaction: tx.raw_data_hex, type: "TRANSACTION_TYPE_TRON" } });

  const transfer = await tronWeb.transactionBuilder.sendTrx(to, 5_000_000, from, { blockHeader });
  const trc20 = (await tronWeb.transactionBuilder.triggerSmartContract(usdt, "transfer(address,uint256)", { feeLimit: 50_000_000, blockHeader, txLocal: true },
    [{ type: "address", value: to }, { type: "uint256", value: 1_000_000 }], from)).transaction;
  for (const tx of [transfer, trc20]) {
    const res = await sign(tx);
    const signedHex = res.activity.result.signTransactionResult.signedTransaction;
    const signature = signedHex.slice(-130);
    // tronweb's own protobuf encoding of the transaction with that signature is what Sigil returned.
    const pb = utils.transaction.txJsonToPb(tx);
    pb.addSignature(Uint8Array.from(Buffer.from(signature, "hex")));
    assert.equal(Buffer.from(pb.serializeBinary()).toString("hex"), signedHex);
    assert.equal(Trx.ecRecover({ ...tx, signature: [signature] }), from);
  }

  const big = await tronWeb.transactionBuilder.sendTrx(to, 10_000_000, from, { blockHeader });
  await assert.rejects(sign(big), /No policies evaluated to outcome: Allow/);
  const other = (await tronWeb.transactionBuilder.triggerSmartContract(to, "transfer(address,uint256)", { feeLimit: 50_000_000, blockHeader, txLocal: true },
    [{ type: "address", value: to }, { type: "uint256", value: 1 }], from)).transaction;
  await assert.rejects(sign(other), /No policies evaluated to outcome: Allow/);
});
