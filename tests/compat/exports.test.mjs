// @turnkey/crypto opens Sigil's export bundles and builds import bundles Sigil accepts, with Sigil's signer key pinned.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { TurnkeyClient } from "@turnkey/http";
import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { decryptExportBundle, encryptWalletToBundle, generateP256KeyPair } from "@turnkey/crypto";

const boot = JSON.parse(readFileSync(join(process.env.SIGIL_DIR, "bootstrap.json"), "utf8"));
const http = new TurnkeyClient(
  { baseUrl: boot.coordinatorUrl },
  new ApiKeyStamper({ apiPublicKey: boot.apiPublicKey, apiPrivateKey: boot.apiPrivateKey }),
);
const envelope = (type, parameters) => ({ type, timestampMs: String(Date.now()), organizationId: boot.organizationId, parameters });
const account = { curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" };

test("export a wallet with decryptExportBundle, import it back with encryptWalletToBundle", async () => {
  const signer = (await (await fetch(`${boot.coordinatorUrl}/.well-known/sigil-signer.json`)).json()).publicKey;
  const created = await http.createWallet(envelope("ACTIVITY_TYPE_CREATE_WALLET", { walletName: `export-${Date.now()}`, accounts: [account] }));
  const { walletId, addresses } = created.activity.result.createWalletResult;

  const target = generateP256KeyPair();
  const exported = await http.exportWallet(envelope("ACTIVITY_TYPE_EXPORT_WALLET", { walletId, targetPublicKey: target.publicKeyUncompressed }));
  const mnemonic = await decryptExportBundle({
    exportBundle: exported.activity.result.exportWalletResult.exportBundle,
    embeddedKey: target.privateKey,
    organizationId: boot.organizationId,
    dangerouslyOverrideSignerPublicKey: signer,
    returnMnemonic: true,
  });
  assert.equal(mnemonic.trim().split(/\s+/).length, 12);

  const init = await http.initImportWallet(envelope("ACTIVITY_TYPE_INIT_IMPORT_WALLET", { userId: boot.userId }));
  const encryptedBundle = await encryptWalletToBundle({
    mnemonic,
    importBundle: init.activity.result.initImportWalletResult.importBundle,
    userId: boot.userId,
    organizationId: boot.organizationId,
    dangerouslyOverrideSignerPublicKey: signer,
  });
  const imported = await http.importWallet(envelope("ACTIVITY_TYPE_IMPORT_WALLET", {
    userId: boot.userId, walletName: `imported-${Date.now()}`, encryptedBundle, accounts: [account],
  }));
  assert.deepEqual(imported.activity.result.importWalletResult.addresses, addresses);
});
