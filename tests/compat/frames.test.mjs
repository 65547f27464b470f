// Sigil's export, import and export-and-sign frames (bootstrap.json's framesUrl) refusing what they must, in headless
// Chromium, driven by @turnkey/iframe-stamper itself from a page on an embedder origin: bundles signed by another key,
// malformed or changed bundles, a wrong organization or user id (the frames' ERROR answers), bundles replayed, pages on
// other origins. Every refusal is shown in the frame, and nothing the frame posts to the page holds a secret.
//
// The test pages are served on the kit's origin (localhost:SIGIL_WALLET_KIT_PORT, which scripts/test.sh lets the stack
// allow; any localhost port is allowed by sigil up's defaults) and on a foreign one (127.0.0.2, allowed by neither).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createHash, createPrivateKey, createPublicKey, createSign, generateKeyPairSync, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { TurnkeyClient } from "@turnkey/http";
import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { english, generateMnemonic, mnemonicToAccount, privateKeyToAccount } from "viem/accounts";
import { base58, bech32 } from "@scure/base";
import { getAddress, parseTransaction, recoverMessageAddress, recoverTransactionAddress, serializeTransaction } from "viem";

const boot = JSON.parse(readFileSync(join(process.env.SIGIL_DIR, "bootstrap.json"), "utf8"));
const organizationId = boot.organizationId;
const root = new TurnkeyClient({ baseUrl: boot.coordinatorUrl }, new ApiKeyStamper({ apiPublicKey: boot.apiPublicKey, apiPrivateKey: boot.apiPrivateKey }));
const submit = (path, type, parameters) => root.request(`/public/v1/submit/${path}`, { type, timestampMs: String(Date.now()), organizationId, parameters });
const stamperSource = readFileSync(new URL("./node_modules/@turnkey/iframe-stamper/dist/index.mjs", import.meta.url), "utf8");

// servePages serves an empty page and @turnkey/iframe-stamper beside it, on host:port; it resolves to the origin.
async function servePages(host, port, name) {
  const server = createServer((req, res) => {
    const stamper = new URL(req.url, "http://x").pathname === "/iframe-stamper.mjs";
    res.writeHead(200, { "Content-Type": stamper ? "text/javascript" : "text/html" });
    res.end(stamper ? stamperSource : "<!doctype html><title>embedder</title><body></body>");
  });
  await new Promise((resolve) => server.listen(port, host, resolve));
  servers.push(server);
  return `http://${name}:${server.address().port}`;
}

let browser, embedder, foreign;
const servers = [];
before(async () => {
  embedder = await servePages("127.0.0.1", Number(process.env.SIGIL_WALLET_KIT_PORT || 0), "localhost");
  foreign = await servePages("127.0.0.2", 0, "127.0.0.2");
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH || "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"] });
});
after(async () => {
  await browser?.close();
  for (const s of servers) s.close();
});

// harness opens the empty page of an origin, collecting every page error.
async function harness(origin = embedder) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const problems = [];
  page.on("pageerror", (err) => problems.push(err.message));
  await page.goto(`${origin}/`);
  return { context, page, problems };
}

// openFrame embeds a frame with IframeStamper and records everything the frame posts to the page.
async function openFrame(page, kind) {
  return page.evaluate(async (url) => {
    const { IframeStamper } = await import("/iframe-stamper.mjs");
    const container = document.createElement("div");
    document.body.append(container);
    window.frameClient = new IframeStamper({ iframeUrl: url, iframeElementId: "sigil-frame", iframeContainer: container });
    window.received = [];
    window.frameClient.messageChannel.port1.addEventListener("message", (e) => window.received.push(e.data));
    return window.frameClient.init();
  }, `${boot.framesUrl}/${kind}`);
}

// call runs one IframeStamper method in the page: {value} or {error}.
const call = (page, method, ...args) => page.evaluate(async ([m, a]) => {
  try {
    return { value: await window.frameClient[m](...a) };
  } catch (err) {
    return { error: err.message };
  }
}, [method, args]);

const frame = (page) => page.frameLocator("#sigil-frame");
const shown = async (page, id) => (await frame(page).locator(`#${id}`).textContent()).trim();
const received = (page) => page.evaluate(() => window.received);

// assertNothingSecret checks what a frame posted to the page: answers of the protocol only, and no two consecutive
// words of the mnemonic anywhere in them.
function assertNothingSecret(posted, mnemonic) {
  const allowed = new Set(["PUBLIC_KEY_READY", "BUNDLE_INJECTED", "ENCRYPTED_BUNDLE_EXTRACTED", "ERROR"]);
  assert.deepEqual(posted.map((m) => m.type).filter((t) => !allowed.has(t)), [], "only the protocol's answers");
  const text = JSON.stringify(posted).toLowerCase();
  const words = mnemonic.toLowerCase().split(" ");
  for (let i = 0; i + 1 < words.length; i++) assert.ok(!text.includes(`${words[i]} ${words[i + 1]}`), "no part of the mnemonic");
}

async function newWallet() {
  const res = await submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", { walletName: `frames ${Date.now()}-${Math.random()}`,
    accounts: [{ curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" }] });
  return res.activity.result.createWalletResult;
}

async function exportBundle(walletId, targetPublicKey) {
  const res = await submit("export_wallet", "ACTIVITY_TYPE_EXPORT_WALLET", { walletId, targetPublicKey });
  return res.activity.result.exportWalletResult.exportBundle;
}

// signedBy re-signs a bundle's data with another P-256 key, naming that key (naming: false keeps the real signer's).
function signedBy(bundle, { naming = true, data } = {}) {
  const b = JSON.parse(bundle);
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const raw = publicKey.export({ format: "jwk" });
  const point = Buffer.concat([Buffer.from([4]), Buffer.from(raw.x, "base64url"), Buffer.from(raw.y, "base64url")]).toString("hex");
  const signedData = data ?? b.data;
  const signature = createSign("SHA256").update(Buffer.from(signedData, "hex")).sign(privateKey).toString("hex");
  return JSON.stringify({ ...b, data: signedData, dataSignature: signature, enclaveQuorumPublic: naming ? point : b.enclaveQuorumPublic });
}

test("an export bundle opens once in the frame; a replay is refused, and the page gets no secret", async () => {
  const { context, page, problems } = await harness();
  const publicKey = await openFrame(page, "export");
  assert.match(publicKey, /^04[0-9a-f]{128}$/);
  const wallet = await newWallet();
  const bundle = await exportBundle(wallet.walletId, publicKey);

  assert.deepEqual(await call(page, "injectWalletExportBundle", bundle, organizationId), { value: true });
  const mnemonic = await shown(page, "secret");
  assert.equal(mnemonicToAccount(mnemonic).address, wallet.addresses[0]);

  const replay = await call(page, "injectWalletExportBundle", bundle, organizationId);
  assert.match(replay.error, /opened in this frame already/);
  assert.match(await shown(page, "error"), /opened in this frame already/);

  assertNothingSecret(await received(page), mnemonic);
  assert.ok(!(await page.content()).includes(mnemonic));
  assert.deepEqual(problems, []);
  await context.close();
});

test("bundles the frame must refuse: another signer, a changed signature or data, not JSON, another key, another organization", async () => {
  const { context, page, problems } = await harness();
  const publicKey = await openFrame(page, "export");
  const wallet = await newWallet();
  const bundle = await exportBundle(wallet.walletId, publicKey);
  const data = JSON.parse(Buffer.from(JSON.parse(bundle).data, "hex").toString());
  const changedData = Buffer.from(JSON.stringify({ ...data, organizationId: "00000000-0000-4000-8000-000000000000" })).toString("hex");

  const otherFrame = await harness();
  const elsewhere = await exportBundle(wallet.walletId, await openFrame(otherFrame.page, "export"));
  await otherFrame.context.close();

  const refusals = [
    [signedBy(bundle), organizationId, /signed by another key than this deployment's signer key/],
    [signedBy(bundle, { naming: false }), organizationId, /failed to verify the bundle's signature/],
    [JSON.stringify({ ...JSON.parse(bundle), data: changedData }), organizationId, /failed to verify the bundle's signature/],
    ["{not json", organizationId, /the bundle is not JSON/],
    [JSON.stringify({ ...JSON.parse(bundle), version: "v0" }), organizationId, /unsupported version/],
    [elsewhere, organizationId, /does not decrypt with this frame's embedded key/],
    [bundle, "4f1b7ad0-0000-4000-8000-000000000001", /organization id does not match expected value\. Expected: 4f1b7ad0-0000-4000-8000-000000000001\. Found: /],
    [bundle, "", /organization id is required/],
  ];
  for (const [b, org, want] of refusals) {
    const res = await call(page, "injectWalletExportBundle", b, org);
    assert.match(res.error ?? "", want, `${want}: ${JSON.stringify(res)}`);
    assert.match(await shown(page, "error"), want);
    assert.equal(await shown(page, "secret"), "", "nothing is shown after a refusal");
  }
  // None of them counted as opening it: the bundle, as made, still opens.
  assert.deepEqual(await call(page, "injectWalletExportBundle", bundle, organizationId), { value: true });
  assert.equal(mnemonicToAccount(await shown(page, "secret")).address, wallet.addresses[0]);
  assert.deepEqual(problems, []);
  await context.close();
});

test("the import frame checks the organization and user ids, seals to the bundle's key once, and the coordinator imports it", async () => {
  const { context, page, problems } = await harness();
  await openFrame(page, "import");
  const init = await submit("init_import_wallet", "ACTIVITY_TYPE_INIT_IMPORT_WALLET", { userId: boot.userId });
  const importBundle = init.activity.result.initImportWalletResult.importBundle;

  const early = await call(page, "extractWalletEncryptedBundle");
  assert.match(early.error, /no import bundle was injected/);
  const otherUser = await call(page, "injectImportBundle", importBundle, organizationId, "4f1b7ad0-0000-4000-8000-000000000002");
  assert.match(otherUser.error, /user id does not match expected value\. Expected: 4f1b7ad0-0000-4000-8000-000000000002\. Found: /);
  assert.match(await shown(page, "error"), /user id does not match/);
  const otherOrg = await call(page, "injectImportBundle", importBundle, "4f1b7ad0-0000-4000-8000-000000000003", boot.userId);
  assert.match(otherOrg.error, /organization id does not match expected value/);
  assert.match((await call(page, "injectImportBundle", signedBy(importBundle), organizationId, boot.userId)).error, /signed by another key/);

  const mnemonic = generateMnemonic(english);
  await frame(page).locator("#plaintext").fill("only three words");
  assert.deepEqual(await call(page, "injectImportBundle", importBundle, organizationId, boot.userId), { value: true });
  assert.match((await call(page, "extractWalletEncryptedBundle")).error, /12, 15, 18, 21 or 24 words/);
  await frame(page).locator("#plaintext").fill(`  ${mnemonic.toUpperCase().replace(/ /g, "\n ")} `);
  const sealed = await call(page, "extractWalletEncryptedBundle");
  assert.deepEqual(Object.keys(JSON.parse(sealed.value)).sort(), ["ciphertext", "encappedPublic"]);
  assert.equal(await frame(page).locator("#plaintext").inputValue(), "", "the field is cleared once sealed");

  const replay = await call(page, "injectImportBundle", importBundle, organizationId, boot.userId);
  assert.match(replay.error, /used already/);

  const imported = await submit("import_wallet", "ACTIVITY_TYPE_IMPORT_WALLET", { userId: boot.userId, walletName: `framed import ${Date.now()}`,
    encryptedBundle: sealed.value, accounts: [{ curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" }] });
  assert.equal(imported.activity.result.importWalletResult.addresses[0], mnemonicToAccount(mnemonic).address);

  assertNothingSecret(await received(page), mnemonic);
  assert.deepEqual(problems, []);
  await context.close();
});

// A private key in the import frame's other formats: Bitcoin WIF (mainnet and testnet) and Sui's bech32.
const sha256d = (b) => createHash("sha256").update(createHash("sha256").update(b).digest()).digest();
const wifOf = (key, version) => { const p = Buffer.concat([Buffer.from([version]), key, Buffer.from([1])]); return base58.encode(Buffer.concat([p, sha256d(p).subarray(0, 4)])); };
const suiOf = (key, flag = 0) => bech32.encode("suiprivkey", bech32.toWords(Buffer.concat([Buffer.from([flag]), key])));
function ed25519Address(seed) {
  const privateKey = createPrivateKey({ key: Buffer.concat([Buffer.from("302e020100300506032b657004220420", "hex"), seed]), format: "der", type: "pkcs8" });
  return base58.encode(Buffer.from(createPublicKey(privateKey).export({ format: "jwk" }).x, "base64url"));
}

test("the import frame reads a private key as Bitcoin WIF (mainnet, testnet) or Sui bech32, refuses a wrong checksum, network or scheme, and the coordinator imports it", async () => {
  const { context, page, problems } = await harness();
  await openFrame(page, "import");
  const secp = randomBytes(32), secpTest = randomBytes(32), ed = randomBytes(32);
  const cases = [
    { keyFormat: "BITCOIN_MAINNET_WIF", text: wifOf(secp, 0x80), curve: "CURVE_SECP256K1", format: "ADDRESS_FORMAT_ETHEREUM",
      address: privateKeyToAccount(`0x${secp.toString("hex")}`).address },
    { keyFormat: "BITCOIN_TESTNET_WIF", text: wifOf(secpTest, 0xef), curve: "CURVE_SECP256K1", format: "ADDRESS_FORMAT_ETHEREUM",
      address: privateKeyToAccount(`0x${secpTest.toString("hex")}`).address },
    { keyFormat: "SUI_BECH32", text: suiOf(ed), curve: "CURVE_ED25519", format: "ADDRESS_FORMAT_SOLANA", address: ed25519Address(ed) },
  ];
  const wrong = { BITCOIN_MAINNET_WIF: [[wifOf(secp, 0xef), /not a mainnet key/], [wifOf(secp, 0x80).slice(0, -1) + "1", /checksum does not match|not base58/]],
    BITCOIN_TESTNET_WIF: [[wifOf(secp, 0x80), /not a testnet key/]],
    SUI_BECH32: [[suiOf(ed, 1), /not an Ed25519 key/], [suiOf(ed).slice(0, -1) + (suiOf(ed).endsWith("q") ? "p" : "q"), /checksum does not match/],
      ["suiprivkex1" + suiOf(ed).slice(11), /not bech32/], [bech32.encode("suipubkey", bech32.toWords(Buffer.concat([Buffer.from([0]), ed]))), /starts with suiprivkey1/]] };
  for (const c of cases) {
    const init = await submit("init_import_private_key", "ACTIVITY_TYPE_INIT_IMPORT_PRIVATE_KEY", { userId: boot.userId });
    assert.deepEqual(await call(page, "injectImportBundle", init.activity.result.initImportPrivateKeyResult.importBundle, organizationId, boot.userId), { value: true });
    for (const [text, reason] of wrong[c.keyFormat]) {
      await frame(page).locator("#plaintext").fill(text);
      assert.match((await call(page, "extractKeyEncryptedBundle", c.keyFormat)).error, reason, `${c.keyFormat}: ${text}`);
    }
    await frame(page).locator("#plaintext").fill(c.text);
    const sealed = await call(page, "extractKeyEncryptedBundle", c.keyFormat);
    assert.ok(sealed.value, `${c.keyFormat}: ${sealed.error}`);
    const imported = await submit("import_private_key", "ACTIVITY_TYPE_IMPORT_PRIVATE_KEY", { userId: boot.userId,
      privateKeyName: `framed ${c.keyFormat} ${Date.now()}`, encryptedBundle: sealed.value, curve: c.curve, addressFormats: [c.format] });
    assert.equal(imported.activity.result.importPrivateKeyResult.addresses[0].address, c.address, `${c.keyFormat}: the key imported is the key typed`);
  }
  const posted = JSON.stringify(await received(page));
  const typed = [...cases.map((c) => c.text), ...Object.values(wrong).flat().map(([text]) => text)];
  for (const secret of [secp.toString("hex"), secpTest.toString("hex"), ed.toString("hex"), ...typed]) {
    assert.ok(!posted.includes(secret) && !(await shown(page, "error")).includes(secret), "nothing typed is posted or shown in an error");
  }
  assert.deepEqual(problems, []);
  await context.close();
});

test("export-and-sign refuses what it cannot sign, and a key it does not hold", async () => {
  const { context, page, problems } = await harness();
  const publicKey = await openFrame(page, "export-and-sign");
  const w = await submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", { walletName: `frames sol ${Date.now()}`,
    accounts: [{ curve: "CURVE_ED25519", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/501'/0'/0'", addressFormat: "ADDRESS_FORMAT_SOLANA" }] });
  const address = w.activity.result.createWalletResult.addresses[0];
  const exported = await submit("export_wallet_account", "ACTIVITY_TYPE_EXPORT_WALLET_ACCOUNT", { address, targetPublicKey: publicKey });
  const bundle = exported.activity.result.exportWalletAccountResult.exportBundle;

  assert.match((await call(page, "injectKeyExportBundle", bundle, organizationId, "SOLANA", "11111111111111111111111111111111")).error, /not the key of address/);
  assert.deepEqual(await call(page, "injectKeyExportBundle", bundle, organizationId, "SOLANA", address), { value: true });
  assert.match((await call(page, "signMessage", { message: "hi", type: "ETHEREUM" }, address)).error, /not a secp256k1 key: it does not sign ETHEREUM/);
  assert.match((await call(page, "signMessage", { message: "hi", type: "BITCOIN" }, address)).error, /unsupported message type: BITCOIN/);
  assert.match((await call(page, "signMessage", { message: "hi", type: "SOLANA" }, "So11111111111111111111111111111111111111112")).error, /key bytes not found/);
  const signed = await call(page, "signMessage", { message: "hi", type: "SOLANA" }, address);
  assert.match(signed.value, /^[0-9a-f]{128}$/);
  assert.deepEqual(await call(page, "clearEmbeddedPrivateKey", address), { value: true });
  assert.match((await call(page, "signMessage", { message: "hi", type: "SOLANA" }, address)).error, /key bytes not found/);
  assert.deepEqual(problems, []);
  await context.close();
});

// The unsigned transactions of every type the frame signs, as viem serializes them.
function ethereumTransactions(to) {
  const common = { chainId: 31337, nonce: 7, gas: 21000n, to, value: 10n ** 15n, data: "0x" };
  const accessList = [{ address: to, storageKeys: ["0x" + "00".repeat(31) + "01"] }];
  return {
    "EIP-1559": { ...common, type: "eip1559", maxFeePerGas: 3n * 10n ** 9n, maxPriorityFeePerGas: 10n ** 9n, accessList },
    "EIP-2930": { ...common, type: "eip2930", gasPrice: 2n * 10n ** 9n, accessList },
    "legacy, EIP-155": { ...common, type: "legacy", gasPrice: 2n * 10n ** 9n },
    "legacy, no chain id": { ...common, chainId: undefined, type: "legacy", gasPrice: 2n * 10n ** 9n, data: "0xdeadbeef" },
    "EIP-7702": { ...common, type: "eip7702", maxFeePerGas: 3n * 10n ** 9n, maxPriorityFeePerGas: 10n ** 9n, authorizationList: [{
      address: to, chainId: 31337, nonce: 8, r: "0x" + "11".repeat(32), s: "0x" + "22".repeat(32), yParity: 1 }] },
  };
}

test("export-and-sign signs Ethereum messages (EIP-191) and transactions of every type with an exported secp256k1 key, as the coordinator signs them", async () => {
  const { context, page, problems } = await harness();
  const publicKey = await openFrame(page, "export-and-sign");
  const { addresses: [address] } = await newWallet();
  const exportTo = async (targetPublicKey) => (await submit("export_wallet_account", "ACTIVITY_TYPE_EXPORT_WALLET_ACCOUNT",
    { address, targetPublicKey })).activity.result.exportWalletAccountResult.exportBundle;
  const other = getAddress("0x" + "ab".repeat(20));
  assert.match((await call(page, "injectKeyExportBundle", await exportTo(publicKey), organizationId, "HEXADECIMAL", other)).error,
    /not the key of address/, "an address the key is not");
  assert.deepEqual(await call(page, "injectKeyExportBundle", await exportTo(publicKey), organizationId, "HEXADECIMAL", address), { value: true });

  const message = "Sigil ✓ signs in the frame";
  const sig = await call(page, "signMessage", { message, type: "ETHEREUM" }, address);
  assert.match(sig.value, /^0x[0-9a-f]{130}$/);
  assert.equal(await recoverMessageAddress({ message, signature: sig.value }), address, "EIP-191 over the message's UTF-8 bytes");

  for (const [kind, tx] of Object.entries(ethereumTransactions(other))) {
    const unsigned = serializeTransaction(tx);
    const signed = await call(page, "signTransaction", { transaction: unsigned, type: "ETHEREUM" }, address);
    assert.match(signed.value ?? signed.error, /^0x[0-9a-f]+$/, kind);
    assert.equal(await recoverTransactionAddress({ serializedTransaction: signed.value }), address, `${kind}: signed by the account`);
    const { r, s, v, yParity, ...fields } = parseTransaction(signed.value);
    const { r: _r, s: _s, v: _v, yParity: _y, ...given } = parseTransaction(unsigned);
    assert.deepEqual(fields, given, `${kind}: the transaction as given`);
    const resigned = await call(page, "signTransaction", { transaction: signed.value, type: "ETHEREUM" }, address);
    assert.equal(resigned.value, signed.value, `${kind}: a signed transaction is signed again the same (RFC 6979)`);
    if (kind === "EIP-1559" || kind === "legacy, EIP-155") {
      const byCoordinator = await submit("sign_transaction", "ACTIVITY_TYPE_SIGN_TRANSACTION_V2",
        { signWith: address, unsignedTransaction: unsigned.slice(2), type: "TRANSACTION_TYPE_ETHEREUM" });
      assert.equal(signed.value, "0x" + byCoordinator.activity.result.signTransactionResult.signedTransaction.replace(/^0x/, ""),
        `${kind}: the frame's signature is the coordinator's`);
    }
  }

  const refused = async (transaction) => (await call(page, "signTransaction", { transaction, type: "ETHEREUM" }, address)).error;
  assert.match(await refused("0x05c0"), /unsupported transaction type 0x05/);
  assert.match(await refused("0x02c3010203"), /list of 9 fields/);
  assert.match(await refused("0xc781058080808080"), /non-canonical RLP byte/);
  assert.match(await refused("0x02f8"), /malformed RLP length|truncated/);
  assert.match(await refused("nothex"), /not hexadecimal/);
  assert.match((await call(page, "signTransaction", { transaction: "00", type: "SOLANA" }, address)).error, /Ethereum key: it does not sign SOLANA/);
  assert.deepEqual(await call(page, "clearEmbeddedPrivateKey", address), { value: true });
  assert.match((await call(page, "signMessage", { message, type: "ETHEREUM" }, address)).error, /key bytes not found/);
  const posted = JSON.stringify(await received(page));
  assert.ok(!/"type":"(?!PUBLIC_KEY_READY|BUNDLE_INJECTED|MESSAGE_SIGNED|TRANSACTION_SIGNED|ERROR|EMBEDDED_PRIVATE_KEY_CLEARED)/.test(posted), "only the protocol's answers");
  assert.deepEqual(problems, []);
  await context.close();
});

test("export-and-sign decrypts with an embedder's P-256 key once told to (SET_EMBEDDED_KEY_OVERRIDE), and with its own again after RESET_TO_DEFAULT_EMBEDDED_KEY", async () => {
  const { context, page, problems } = await harness();
  const framePublicKey = await openFrame(page, "export-and-sign");
  // The embedder's P-256 key, held by the organization, exported to the frame's own key.
  const created = await submit("create_private_keys", "ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2", { privateKeys: [{
    privateKeyName: `frames override ${Date.now()}`, curve: "CURVE_P256", privateKeyTags: [], addressFormats: ["ADDRESS_FORMAT_UNCOMPRESSED"] }] });
  const [p256] = created.activity.result.createPrivateKeysResultV2.privateKeys;
  const overridePublicKey = p256.addresses[0].address;
  assert.match(overridePublicKey, /^04[0-9a-f]{128}$/);
  const exportKey = async (targetPublicKey) => (await submit("export_private_key", "ACTIVITY_TYPE_EXPORT_PRIVATE_KEY",
    { privateKeyId: p256.privateKeyId, targetPublicKey })).activity.result.exportPrivateKeyResult.exportBundle;
  // A Solana account whose key bundles are made for one key or the other.
  const w = await submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", { walletName: `frames override sol ${Date.now()}`,
    accounts: [{ curve: "CURVE_ED25519", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/501'/0'/0'", addressFormat: "ADDRESS_FORMAT_SOLANA" }] });
  const address = w.activity.result.createWalletResult.addresses[0];
  const accountBundle = async (targetPublicKey) => (await submit("export_wallet_account", "ACTIVITY_TYPE_EXPORT_WALLET_ACCOUNT",
    { address, targetPublicKey })).activity.result.exportWalletAccountResult.exportBundle;

  assert.match((await call(page, "injectKeyExportBundle", await accountBundle(overridePublicKey), organizationId, "SOLANA", address)).error,
    /does not decrypt with this frame's embedded key/, "a bundle for the embedder's key, before the override");
  assert.match((await call(page, "setEmbeddedKeyOverride", "4f1b7ad0-0000-4000-8000-000000000004", await exportKey(framePublicKey))).error,
    /organization id does not match/);
  assert.deepEqual(await call(page, "setEmbeddedKeyOverride", organizationId, await exportKey(framePublicKey)), { value: true });
  assert.equal(await call(page, "getEmbeddedPublicKey").then((r) => r.value), framePublicKey, "the frame's own key is still the one it shows");

  assert.deepEqual(await call(page, "injectKeyExportBundle", await accountBundle(overridePublicKey), organizationId, "SOLANA", address), { value: true });
  assert.match((await call(page, "signMessage", { message: "hi", type: "SOLANA" }, address)).value, /^[0-9a-f]{128}$/);
  assert.match((await call(page, "injectKeyExportBundle", await accountBundle(framePublicKey), organizationId, "SOLANA", address)).error,
    /does not decrypt with this frame's embedded key/, "a bundle for the frame's own key, under the override");

  assert.deepEqual(await call(page, "resetToDefaultEmbeddedKey"), { value: true });
  assert.match((await call(page, "injectKeyExportBundle", await accountBundle(overridePublicKey), organizationId, "SOLANA", address)).error,
    /does not decrypt with this frame's embedded key/, "a bundle for the embedder's key, after the reset");
  assert.deepEqual(await call(page, "injectKeyExportBundle", await accountBundle(framePublicKey), organizationId, "SOLANA", address), { value: true });
  const posted = (await received(page)).map((m) => m.type);
  assert.ok(posted.includes("EMBEDDED_KEY_OVERRIDE_SET") && posted.includes("RESET_TO_DEFAULT_EMBEDDED_KEY"), posted.join(" "));
  assert.deepEqual(problems, []);
  await context.close();
});

test("the frames answer only their embedder: another origin cannot frame them, nor talk to them from a window it opened", async () => {
  // Framed by a page on another origin, the frame does not load: its CSP frame-ancestors names the embedders only.
  const { context, page } = await harness(foreign);
  const refused = new Promise((resolve) => page.on("console", (m) => /frame-ancestors/.test(m.text()) && resolve(m.text())));
  await page.evaluate((url) => {
    const f = document.createElement("iframe");
    f.src = url;
    document.body.append(f);
  }, `${boot.framesUrl}/export`);
  assert.match(await refused, /Framing '[^']+' violates the following Content Security Policy directive: "frame-ancestors/);

  // Opened as a window by that page, the frame refuses its messages and shows why; the opener gets nothing back.
  const [popup] = await Promise.all([context.waitForEvent("page"), page.evaluate((url) => { window.opened = window.open(url); }, `${boot.framesUrl}/export`)]);
  await popup.waitForLoadState("load");
  await popup.waitForFunction(() => window.SigilFrame !== undefined);
  await page.evaluate((origin) => {
    const channel = new MessageChannel();
    window.answers = [];
    channel.port1.onmessage = (e) => window.answers.push(e.data);
    window.opened.postMessage({ type: "TURNKEY_INIT_MESSAGE_CHANNEL" }, origin, [channel.port2]);
  }, new URL(boot.framesUrl).origin);
  await popup.locator("#error").filter({ hasText: /refused/ }).waitFor();
  assert.match(await popup.textContent("#error"), new RegExp(`A message from ${foreign.replace(/\./g, "\\.")} was refused`));
  assert.deepEqual(await page.evaluate(() => window.answers), []);
  await context.close();

  // Embedded by its embedder, the frame takes one channel: a second TURNKEY_INIT_MESSAGE_CHANNEL is refused.
  const ok = await harness();
  await openFrame(ok.page, "import");
  await ok.page.evaluate((origin) => {
    const channel = new MessageChannel();
    document.getElementById("sigil-frame").contentWindow.postMessage({ type: "TURNKEY_INIT_MESSAGE_CHANNEL" }, origin, [channel.port2]);
  }, new URL(boot.framesUrl).origin);
  await frame(ok.page).locator("#error").filter({ hasText: /second TURNKEY_INIT_MESSAGE_CHANNEL/ }).waitFor();
  await ok.context.close();
});
