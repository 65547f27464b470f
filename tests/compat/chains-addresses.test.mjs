// Every address format, created with the official SDK's default accounts, against the chains' own libraries.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { TurnkeyClient } from "@turnkey/http";
import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { addressFormatConfig } from "@turnkey/core";
import * as bitcoin from "bitcoinjs-lib";
import * as ecc from "tiny-secp256k1";
import { PublicKey } from "@solana/web3.js";
import { TronWeb, utils as tronUtils } from "tronweb";
import { pubkeyToAddress } from "@cosmjs/amino";

bitcoin.initEccLib(ecc);
const boot = JSON.parse(readFileSync(join(process.env.SIGIL_DIR, "bootstrap.json"), "utf8"));
const http = new TurnkeyClient(
  { baseUrl: boot.coordinatorUrl },
  new ApiKeyStamper({ apiPublicKey: boot.apiPublicKey, apiPrivateKey: boot.apiPrivateKey }),
);
const org = boot.organizationId;
const hex = (h) => Uint8Array.from(Buffer.from(h, "hex"));

const networks = { MAINNET: bitcoin.networks.bitcoin, TESTNET: bitcoin.networks.testnet, SIGNET: bitcoin.networks.testnet, REGTEST: bitcoin.networks.regtest };
const doge = { messagePrefix: "\x19Dogecoin Signed Message:\n", bech32: "doge", bip32: { public: 0x02facafd, private: 0x02fac398 }, pubKeyHash: 0x1e, scriptHash: 0x16, wif: 0x9e };

// What each chain's own library derives from a public key, for the formats it covers.
function expected(format, pubHex) {
  const pubkey = hex(pubHex);
  const btc = /^ADDRESS_FORMAT_BITCOIN_([A-Z]+)_(\w+)$/.exec(format);
  if (btc) {
    const network = networks[btc[1]];
    switch (btc[2]) {
      case "P2PKH": return bitcoin.payments.p2pkh({ pubkey, network }).address;
      case "P2SH": return bitcoin.payments.p2sh({ redeem: bitcoin.payments.p2wpkh({ pubkey, network }), network }).address;
      case "P2WPKH": return bitcoin.payments.p2wpkh({ pubkey, network }).address;
      case "P2WSH": return bitcoin.payments.p2wsh({ redeem: bitcoin.payments.p2pk({ pubkey, network }), network }).address;
      case "P2TR": return bitcoin.payments.p2tr({ internalPubkey: pubkey.subarray(1), network }).address;
    }
  }
  switch (format) {
    case "ADDRESS_FORMAT_DOGE_MAINNET": return bitcoin.payments.p2pkh({ pubkey, network: doge }).address;
    case "ADDRESS_FORMAT_DOGE_TESTNET": return bitcoin.payments.p2pkh({ pubkey, network: { ...doge, pubKeyHash: 0x71 } }).address;
    case "ADDRESS_FORMAT_SOLANA": return new PublicKey(pubkey).toBase58();
    case "ADDRESS_FORMAT_TRON": {
      const bytes = tronUtils.crypto.computeAddress(Array.from(ecc.pointCompress(pubkey, false)));
      return TronWeb.address.fromHex(Buffer.from(bytes).toString("hex"));
    }
    case "ADDRESS_FORMAT_COSMOS": return pubkeyToAddress({ type: "tendermint/PubKeySecp256k1", value: Buffer.from(pubkey).toString("base64") }, "cosmos");
    case "ADDRESS_FORMAT_SEI": return pubkeyToAddress({ type: "tendermint/PubKeySecp256k1", value: Buffer.from(pubkey).toString("base64") }, "sei");
    case "ADDRESS_FORMAT_COMPRESSED": return pubHex;
  }
  return undefined; // checked by the Go vectors (internal/keys/address_vectors_test.go)
}

test("a wallet with the SDK's default account of every address format derives what the chains' libraries derive", async () => {
  const accounts = [];
  for (const [format, config] of Object.entries(addressFormatConfig)) {
    if (config.defaultAccounts) accounts.push(config.defaultAccounts[0]);
  }
  // @turnkey/core has no default TON v5r1 account; Sigil's docs give it the v4r2 path.
  accounts.push({ curve: "CURVE_ED25519", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/607'/0'/0'/0'", addressFormat: "ADDRESS_FORMAT_TON_V5R1" });
  assert.equal(accounts.length, 36); // the 38 formats but the two bare-key ones
  const res = await http.createWallet({
    type: "ACTIVITY_TYPE_CREATE_WALLET", timestampMs: String(Date.now()), organizationId: org,
    parameters: { walletName: `formats-${Date.now()}`, accounts },
  });
  assert.equal(res.activity.status, "ACTIVITY_STATUS_COMPLETED");
  const { walletId, addresses } = res.activity.result.createWalletResult;
  assert.equal(addresses.length, accounts.length);
  const listed = await http.getWalletAccounts({ organizationId: org, walletId, paginationOptions: { limit: "100" } });
  let checked = 0;
  for (const a of listed.accounts) {
    const want = expected(a.addressFormat, a.publicKey);
    if (want === undefined) continue;
    assert.equal(a.address, want, a.addressFormat);
    checked++;
  }
  assert.equal(checked, 26); // 20 Bitcoin, 2 Dogecoin, Solana, Tron, Cosmos, Sei
});

test("a private key lists every format of its curve; a format that does not fit the curve is refused by name", async () => {
  const formats = ["ADDRESS_FORMAT_COMPRESSED", "ADDRESS_FORMAT_TRON", "ADDRESS_FORMAT_COSMOS", "ADDRESS_FORMAT_BITCOIN_TESTNET_P2TR"];
  const res = await http.createPrivateKeys({
    type: "ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2", timestampMs: String(Date.now()), organizationId: org,
    parameters: { privateKeys: [{ privateKeyName: `k-${Date.now()}`, curve: "CURVE_SECP256K1", privateKeyTags: [], addressFormats: formats }] },
  });
  const [key] = res.activity.result.createPrivateKeysResultV2.privateKeys;
  const pub = key.addresses.find((a) => a.format === "ADDRESS_FORMAT_COMPRESSED").address;
  for (const a of key.addresses) assert.equal(a.address, expected(a.format, pub), a.format);

  await assert.rejects(
    http.createPrivateKeys({
      type: "ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2", timestampMs: String(Date.now()), organizationId: org,
      parameters: { privateKeys: [{ privateKeyName: `p-${Date.now()}`, curve: "CURVE_P256", privateKeyTags: [], addressFormats: ["ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH"] }] },
    }),
    (err) => /ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH needs a key on CURVE_SECP256K1/.test(err.message),
  );
});
