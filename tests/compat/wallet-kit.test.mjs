// Turnkey's React wallet kit (@turnkey/react-wallet-kit, unmodified) against Sigil, in headless Chromium: the example
// app examples/wallet-kit, bundled here with esbuild and its one alias (@turnkey/crypto → @sigil/turnkey-crypto, with
// this stack's keys pinned), signs users up and in through the auth proxy with an e-mail code from the dev outbox (also
// on the kit's own sign-in screen), a passkey of Chromium's virtual authenticator, and OAuth through the local provider
// standing in for X; then creates a wallet, signs a message and an EIP-1559 transaction that viem verifies, and shows
// the kit's own export and import screens against Sigil's frames (bootstrap.json's framesUrl, another origin): a
// mnemonic and private keys exported into the frame, a mnemonic and a private key typed into it, and a Solana message
// signed by the export-and-sign frame with a key exported to it.
//
// Needs SIGIL_DIR (a running `sigil up`), SIGIL_OIDC_PROVIDER_URL for the OAuth test, Debian's chromium, and the
// example's npm packages (scripts/test.sh installs them). The page is served on localhost (a passkey's relying party
// must be a host name): on SIGIL_WALLET_KIT_PORT, an origin scripts/test.sh lets the coordinator allow, else any port.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { TurnkeyClient } from "@turnkey/http";
import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { createPublicKey, verify } from "node:crypto";
import { PublicKey } from "@solana/web3.js";
import { english, generateMnemonic, generatePrivateKey, mnemonicToAccount, privateKeyToAccount } from "viem/accounts";
import { parseTransaction, recoverTransactionAddress, verifyMessage } from "viem";
import { start } from "../../examples/wallet-kit/serve.mjs";

const boot = JSON.parse(readFileSync(join(process.env.SIGIL_DIR, "bootstrap.json"), "utf8"));
const provider = process.env.SIGIL_OIDC_PROVIDER_URL;
const root = new TurnkeyClient({ baseUrl: boot.coordinatorUrl },
  new ApiKeyStamper({ apiPublicKey: boot.apiPublicKey, apiPrivateKey: boot.apiPrivateKey }));
const submit = (path, type, parameters) => root.request(`/public/v1/submit/${path}`,
  { type, timestampMs: String(Date.now()), organizationId: boot.organizationId, parameters });

// The confidential client internal/oidc/oidctest registers; sigil up knows the provider as OAUTH2_PROVIDER_X.
const xClient = { id: "sigil-test-client", secret: "sigil-test-client-secret" };

let app, browser, savedSettings, credentialId;

before(async () => {
  app = await start({ dir: process.env.SIGIL_DIR, host: "localhost", port: Number(process.env.SIGIL_WALLET_KIT_PORT || 0) });
  // Turn on what the kit shows: passkeys and X next to e-mail, X's client id and the page as OAuth redirect.
  const { config } = await root.request("/public/v1/query/get_auth_proxy_config", { organizationId: boot.organizationId });
  savedSettings = { allowedAuthMethods: config.allowedAuthMethods, walletKitSettings: config.walletKitSettings };
  await submit("update_auth_proxy_config", "ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG", {
    allowedAuthMethods: ["email", "passkey", "x"],
    walletKitSettings: { enabledSocialProviders: ["x"], oauthClientIds: { x: xClient.id }, oauthRedirectUrl: `${app.url}/oauth-callback` },
  });
  if (provider) {
    const created = await submit("create_oauth2_credential", "ACTIVITY_TYPE_CREATE_OAUTH2_CREDENTIAL",
      { provider: "OAUTH2_PROVIDER_X", clientId: xClient.id, encryptedClientSecret: xClient.secret });
    credentialId = created.activity.result.createOauth2CredentialResult.oauth2CredentialId;
  }
  await new Promise((r) => setTimeout(r, 1100)); // the proxy reads a configuration again after a second
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
      "--disable-sync", "--no-first-run"],
  });
});

after(async () => {
  await browser?.close();
  await app?.close();
  if (credentialId) await submit("delete_oauth2_credential", "ACTIVITY_TYPE_DELETE_OAUTH2_CREDENTIAL", { oauth2CredentialId: credentialId });
  if (savedSettings) await submit("update_auth_proxy_config", "ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG", savedSettings);
});

// openApp opens the app in a fresh browser context, with a virtual passkey authenticator when asked, and waits for the
// kit to be ready. Every page error fails the test that made it.
async function openApp({ passkeys = false } = {}) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const problems = [];
  page.on("pageerror", (err) => problems.push(err.message));
  if (passkeys) {
    const cdp = await context.newCDPSession(page);
    await cdp.send("WebAuthn.enable");
    await cdp.send("WebAuthn.addVirtualAuthenticator", { options: { protocol: "ctap2", transport: "internal",
      hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true } });
  }
  await page.goto(app.url);
  await waitState(page, (s) => s.client === "ready");
  return { context, page, problems };
}

const readJSON = async (page, id) => JSON.parse(await page.textContent(id));

// waitState waits until the page's #state satisfies ok, failing early with the page's error.
async function waitState(page, ok, timeout = 30_000) {
  const end = Date.now() + timeout;
  for (;;) {
    const state = await readJSON(page, "#state");
    if (ok(state)) return state;
    const error = await page.textContent("#error");
    if (error) throw new Error(`the page says: ${error}`);
    if (Date.now() > end) throw new Error(`the page did not reach the expected state: ${JSON.stringify(state)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// click presses a button and returns what its kit method returned (#out), failing with the page's error.
async function click(page, id) {
  const runs = async () => Number(await page.getAttribute("#out", "data-runs"));
  const before = await runs();
  await page.click(`#${id}`);
  const end = Date.now() + 30_000;
  while ((await runs()) === before) {
    if (Date.now() > end) throw new Error(`#${id} did not finish`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const error = await page.textContent("#error");
  if (error) throw new Error(`the page says: ${error}`);
  return (await readJSON(page, "#out"))[id];
}

// begin presses a button whose kit method waits for the user (a kit screen), and returns a function that waits for it
// to finish and returns its result.
async function begin(page, id) {
  const runs = async () => Number(await page.getAttribute("#out", "data-runs"));
  const before = await runs();
  await page.click(`#${id}`);
  return async () => {
    const end = Date.now() + 30_000;
    while ((await runs()) === before) {
      if (Date.now() > end) throw new Error(`#${id} did not finish`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const error = await page.textContent("#error");
    if (error) throw new Error(`the page says: ${error}`);
    return (await readJSON(page, "#out"))[id];
  };
}

// The kit's frame (export or import screen).
const kitFrame = (page) => page.frameLocator("#turnkey-default-iframe-element-id");

// frameText waits for the text the kit's frame shows at selector, failing early with what the frame or the page says
// went wrong.
async function frameText(page, selector) {
  const frame = kitFrame(page);
  const end = Date.now() + 30_000;
  for (;;) {
    const text = (await frame.locator(selector).textContent({ timeout: 30_000 }))?.trim();
    if (text) return text;
    const refused = (await frame.locator("#error").textContent()).trim();
    if (refused) throw new Error(`the frame says: ${refused}`);
    const error = await page.textContent("#error");
    if (error) throw new Error(`the page says: ${error}`);
    if (Date.now() > end) throw new Error(`the frame shows nothing at ${selector}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// kitFrameReady waits until the kit has its frame client: the kit keeps it once the frame has answered its channel and
// its settings (then React renders, which two animation frames of the page see done). A button pressed before then
// finds no client, in the kit as for a user.
async function kitFrameReady(page) {
  await kitFrame(page).locator('body[data-channel="open"][data-settings="applied"]').waitFor({ state: "attached", timeout: 30_000 });
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}

// exportOnKitScreen runs an export button: confirms the kit's warning, reads what Sigil's export frame shows, and
// closes the screen. The secret is in the frame only, never in the app's page.
async function exportOnKitScreen(page, id) {
  const done = await begin(page, id);
  await kitFrameReady(page);
  await page.locator("button", { hasText: /^Export / }).click(); // the kit's warning, "Export Wallet" or "Export Private Key"
  const secret = await frameText(page, "#secret");
  assert.ok(!(await page.content()).includes(secret), "the exported secret is not in the app's own page");
  await page.locator("button", { hasText: /^Done$/ }).click();
  await done();
  return secret;
}

// importOnKitScreen types a secret into Sigil's import frame on the kit's screen and presses the kit's Import button.
async function importOnKitScreen(page, id, secret) {
  const done = await begin(page, id);
  await kitFrameReady(page);
  await kitFrame(page).locator("#plaintext").fill(secret);
  await page.locator("button", { hasText: /^Import$/ }).click();
  return done();
}

// codeFor waits for the newest code e-mailed to an address since `since`.
async function codeFor(email, since) {
  for (let i = 0; i < 100; i++) {
    const mine = (await (await fetch(boot.devOutboxUrl)).json()).filter((m) => m.to === email && Date.parse(m.sentAt) >= since);
    if (mine.length > 0) return /verification code is ([0-9A-Z]+)/.exec(mine[mine.length - 1].subject)[1];
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no code e-mailed to ${email}`);
}

async function otpSignIn(page, email) {
  await page.fill("#email", email);
  const since = Date.now() - 1000;
  await click(page, "send-code");
  await page.fill("#code", await codeFor(email, since));
  const action = await click(page, "verify-code");
  return { action, state: await waitState(page, (s) => s.auth === "authenticated" && s.userId) };
}

// The package the alias maps in, as the example installed it and start() pinned it: it checks what Sigil signs with
// no key passed, and still refuses what another key signs.
test("@sigil/turnkey-crypto checks Sigil's OTP bundle and tokens with no key passed, and refuses a bundle it did not sign", async () => {
  const pinned = await import(new URL("../../examples/wallet-kit/node_modules/@sigil/turnkey-crypto/index.js", import.meta.url));
  const doc = await (await fetch(`${boot.coordinatorUrl}/.well-known/sigil-signer.json`)).json();
  assert.equal(pinned.PRODUCTION_SIGNER_SIGN_PUBLIC_KEY, doc.publicKey);
  assert.equal(pinned.PRODUCTION_TLS_FETCHER_SIGN_PUBLIC_KEY, doc.tokenPublicKey);

  const email = `kit-pinned-${Date.now()}@example.com`;
  const since = Date.now() - 1000;
  const proxy = async (path, body) => {
    const res = await fetch(`${boot.authProxyUrl}/v1/${path}`, { method: "POST", body: JSON.stringify(body),
      headers: { "Content-Type": "application/json", "X-Auth-Proxy-Config-Id": boot.authProxyConfigId } });
    assert.equal(res.status, 200, await res.clone().text());
    return res.json();
  };
  const { otpId, otpEncryptionTargetBundle } = await proxy("otp_init_v2", { otpType: "OTP_TYPE_EMAIL", contact: email });
  const client = pinned.generateP256KeyPair();
  const encryptedOtpBundle = await pinned.encryptOtpCodeToBundle(await codeFor(email, since), otpEncryptionTargetBundle, client.publicKey);
  const { verificationToken } = await proxy("otp_verify_v2", { otpId, encryptedOtpBundle });
  const claims = await pinned.verifyOtpVerificationToken(verificationToken);
  assert.equal(claims.contact, email);
  assert.equal(claims.public_key, client.publicKey);

  // A target key swapped on the way breaks the signature; a bundle signed by another key names a key not pinned.
  const bundle = JSON.parse(otpEncryptionTargetBundle);
  const data = JSON.parse(Buffer.from(bundle.data, "hex").toString());
  const swapped = { ...bundle, data: Buffer.from(JSON.stringify({ ...data, targetPublic: pinned.generateP256KeyPair().publicKeyUncompressed })).toString("hex") };
  await assert.rejects(pinned.encryptOtpCodeToBundle("123456", JSON.stringify(swapped), client.publicKey), /signature verification failed/);
  const other = { ...bundle, enclaveQuorumPublic: pinned.generateP256KeyPair().publicKeyUncompressed };
  await assert.rejects(pinned.encryptOtpCodeToBundle("123456", JSON.stringify(other), client.publicKey), /does not match/);
});

test("sigil-turnkey-crypto-pin takes keys over HTTPS or from loopback only, and P-256 points only", async () => {
  const { fetchDocument, pin } = await import(new URL("../../examples/wallet-kit/node_modules/@sigil/turnkey-crypto/pin.mjs", import.meta.url));
  await assert.rejects(fetchDocument("http://sigil.example.com"), /HTTPS/);
  const doc = await fetchDocument(boot.coordinatorUrl);
  await assert.rejects(pin({ ...doc, tokenPublicKey: `04${"00".repeat(64)}` }, "a test"), /not a point of P-256/);
  await assert.rejects(pin({ ...doc, publicKey: doc.publicKey.slice(0, 66) }, "a test"), /uncompressed P-256/);
});

test("e-mail code: sign up, log out, log in again to the same account", async () => {
  const { context, page, problems } = await openApp();
  const email = `kit-${Date.now()}@example.com`;
  const signup = await otpSignIn(page, email);
  assert.equal(signup.action, "SIGNUP");
  assert.equal(signup.state.email, email);
  assert.notEqual(signup.state.organizationId, boot.organizationId, "the user has a sub-organization of their own");
  await click(page, "logout");
  await waitState(page, (s) => s.auth === "unauthenticated");
  const login = await otpSignIn(page, email);
  assert.equal(login.action, "LOGIN");
  assert.equal(login.state.organizationId, signup.state.organizationId);
  assert.equal(login.state.userId, signup.state.userId);
  assert.deepEqual(problems, []);
  await context.close();
});

test("the kit's own sign-in screen: e-mail, then the code typed into its boxes", async () => {
  const { context, page, problems } = await openApp();
  const email = `kit-modal-${Date.now()}@example.com`;
  await click(page, "kit-login");
  await page.fill("input[placeholder='Enter your email']", email);
  const since = Date.now() - 1000;
  await page.click("[data-testid='email-continue-icon']");
  const code = await codeFor(email, since);
  await page.locator("input[maxlength='1']").first().click();
  await page.keyboard.type(code);
  const state = await waitState(page, (s) => s.auth === "authenticated" && s.userId);
  assert.equal(state.email, email);
  assert.notEqual(state.organizationId, boot.organizationId);
  assert.deepEqual(problems, []);
  await context.close();
});

test("a wallet: create it, sign a message and an EIP-1559 transaction that viem verifies, export its mnemonic on the kit's screen", async () => {
  const { context, page, problems } = await openApp();
  await otpSignIn(page, `kit-wallet-${Date.now()}@example.com`);
  await click(page, "create-wallet");
  const { address } = await waitState(page, (s) => s.address);

  const signature = await click(page, "sign-message");
  assert.equal(await verifyMessage({ address, message: "hello from the wallet kit", signature }), true);

  const signed = await click(page, "sign-transaction");
  const tx = parseTransaction(signed);
  assert.equal(tx.type, "eip1559");
  assert.equal(tx.chainId, 1337);
  assert.equal(tx.to.toLowerCase(), "0x70997970c51812dc3a010c7d01b50e0d17dc79c8");
  assert.equal(await recoverTransactionAddress({ serializedTransaction: signed }), address);

  const mnemonic = await exportOnKitScreen(page, "export-wallet");
  assert.equal(mnemonic.split(/\s+/).length, 12);
  assert.equal(mnemonicToAccount(mnemonic).address, address, "the exported mnemonic derives the wallet's address");
  assert.deepEqual(problems, []);
  await context.close();
});

test("the kit's export and import screens in Sigil's frames: keys out, a mnemonic and a key in, and export-and-sign", async () => {
  const { context, page, problems } = await openApp();
  await otpSignIn(page, `kit-frames-${Date.now()}@example.com`);
  await click(page, "create-wallet");
  const { address, solanaAddress } = await waitState(page, (s) => s.address && s.solanaAddress);
  assert.notEqual(new URL(boot.framesUrl).origin, new URL(app.url).origin, "the frames are an origin apart from the app");

  const accountKey = await exportOnKitScreen(page, "export-account");
  assert.match(accountKey, /^0x[0-9a-f]{64}$/);
  assert.equal(privateKeyToAccount(accountKey).address, address, "the exported account key is the account's");

  const mnemonic = generateMnemonic(english);
  assert.equal(await importOnKitScreen(page, "import-wallet", mnemonic), "imported");
  const imported = mnemonicToAccount(mnemonic).address;
  await waitState(page, (s) => s.wallets.some((w) => w.addresses.includes(imported)));

  const key = generatePrivateKey();
  const privateKeyId = await importOnKitScreen(page, "import-key", key);
  assert.match(privateKeyId, /^[0-9a-f-]{36}$/);
  assert.equal(await exportOnKitScreen(page, "export-key"), key, "the imported key comes back out the export frame");

  const signed = await click(page, "export-and-sign");
  assert.equal(signed.address, solanaAddress);
  const publicKey = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: Buffer.from(new PublicKey(solanaAddress).toBytes()).toString("base64url") }, format: "jwk" });
  assert.ok(verify(null, Buffer.from(signed.message), publicKey, Buffer.from(signed.signature, "hex")), "the frame's signature verifies with the Solana address");
  assert.deepEqual(problems, []);
  await context.close();
});

test("passkey: sign up with Chromium's virtual authenticator, log out, log in with the same passkey", async () => {
  const { context, page, problems } = await openApp({ passkeys: true });
  await click(page, "passkey-signup");
  const signup = await waitState(page, (s) => s.auth === "authenticated" && s.userId);
  assert.equal(signup.authenticators, 1);
  assert.notEqual(signup.organizationId, boot.organizationId);
  await click(page, "logout");
  await waitState(page, (s) => s.auth === "unauthenticated");
  await click(page, "passkey-login");
  const login = await waitState(page, (s) => s.auth === "authenticated" && s.userId);
  assert.equal(login.organizationId, signup.organizationId);
  assert.equal(login.userId, signup.userId);
  assert.deepEqual(problems, []);
  await context.close();
});

// The kit sends the browser to X's authorization page, which it names itself (x.com/i/oauth2/authorize). The test
// stands in for the user at X: it answers that page with a redirect to the local provider's authorization endpoint,
// with the kit's query (client id, redirect URI, PKCE challenge, state) and the user to sign in as. Everything after
// is real: the provider redirects back to the app, the kit exchanges the code through the auth proxy
// (/v1/oauth2_authenticate: the coordinator redeems it at the provider configured as OAUTH2_PROVIDER_X and issues an
// OIDC token bound to the kit's key), signs the user up or finds their account, and logs in with X-Stamp-Attested.
async function signInAtX(context, subject) {
  await context.route("https://x.com/i/oauth2/authorize**", (route) => {
    const query = new URL(route.request().url()).searchParams;
    query.set("login_hint", subject);
    return route.fulfill({ status: 302, headers: { Location: `${provider}/authorize?${query}` } });
  });
}

test("OAuth with X through the auth proxy: sign up, log out, log in to the same account", { skip: !provider && "SIGIL_OIDC_PROVIDER_URL is not set" }, async () => {
  const { context, page, problems } = await openApp();
  await signInAtX(context, `kit-x-${Date.now()}`);
  await click(page, "x-login");
  const signup = await waitState(page, (s) => s.auth === "authenticated" && s.userId);
  assert.notEqual(signup.organizationId, boot.organizationId);
  await click(page, "logout");
  await waitState(page, (s) => s.auth === "unauthenticated");
  await click(page, "x-login");
  const login = await waitState(page, (s) => s.auth === "authenticated" && s.userId);
  assert.equal(login.organizationId, signup.organizationId);
  assert.equal(login.userId, signup.userId);
  assert.deepEqual(problems, []);
  await context.close();
});
