// The browser journey of the first specification: examples/web-login, served by `sigil demo web`, driven end to end
// in headless Chromium. A new user signs up through the auth proxy with an e-mail code (read from the dev outbox),
// sees their wallet address and signs a message with the session key; the signature must verify for that address.
// The same user then logs in again, in a fresh browser context, to the same account. Screenshots go to artifacts/.
//
// Needs SIGIL_DIR (a running `sigil up`), SIGIL_BIN, and Debian's chromium. The page must be served from an origin
// the coordinator allows: SIGIL_WEB_PORT (scripts/test.sh passes one it allowed), else 8085, which `sigil up` allows.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createPublicKey, verify } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { TurnkeyClient } from "@turnkey/http";
import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { isAddress, verifyMessage } from "viem";
import { clientSignature, createSessionKey, rawToDer, stamp } from "../../examples/web-login/sigil.js";

const boot = JSON.parse(readFileSync(join(process.env.SIGIL_DIR, "bootstrap.json"), "utf8"));
const root = new TurnkeyClient(
  { baseUrl: boot.coordinatorUrl },
  new ApiKeyStamper({ apiPublicKey: boot.apiPublicKey, apiPrivateKey: boot.apiPrivateKey }),
);
const artifacts = new URL("./artifacts/", import.meta.url).pathname;
const phone = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

// ---------------------------------------------------------------------------------------------------------------
// sigil.js's cryptography, checked against node:crypto: the stamps and client signatures the page makes.

/** nodeKey is the node:crypto public key of a compressed P-256 hex key. */
function nodeKey(compressedHex) {
  const spkiPrefix = "3039301306072a8648ce3d020106082a8648ce3d030107032200"; // SubjectPublicKeyInfo, P-256, compressed
  return createPublicKey({ key: Buffer.from(spkiPrefix + compressedHex, "hex"), format: "der", type: "spki" });
}

test("sigil.js stamps verify as DER P-256 over SHA-256 of the body, for many keys and bodies", async () => {
  // Enough signatures that r or s with a high bit, or with leading zero bytes, are all but certain to occur.
  for (let i = 0; i < 300; i++) {
    const key = await createSessionKey();
    assert.match(key.publicKey, /^0[23][0-9a-f]{64}$/);
    const body = JSON.stringify({ organizationId: "org", n: i, text: "héllo ✓" });
    const header = JSON.parse(Buffer.from(await stamp(body, key), "base64url").toString());
    assert.deepEqual(Object.keys(header).sort(), ["publicKey", "scheme", "signature"]);
    assert.equal(header.publicKey, key.publicKey);
    assert.equal(header.scheme, "SIGNATURE_SCHEME_TK_API_P256");
    const ok = verify("sha256", Buffer.from(body), { key: nodeKey(key.publicKey), dsaEncoding: "der" }, Buffer.from(header.signature, "hex"));
    assert.ok(ok, `stamp ${i} verifies`);
  }
});

test("sigil.js client signatures are raw r||s P-256 over SHA-256 of the usage JSON", async () => {
  const key = await createSessionKey();
  const usage = { login: { publicKey: key.publicKey }, tokenId: "t-1", type: "USAGE_TYPE_LOGIN" };
  const cs = await clientSignature(key, usage);
  assert.equal(cs.message, JSON.stringify(usage));
  assert.equal(cs.scheme, "CLIENT_SIGNATURE_SCHEME_API_P256");
  assert.match(cs.signature, /^[0-9a-f]{128}$/);
  const ok = verify("sha256", Buffer.from(cs.message), { key: nodeKey(key.publicKey), dsaEncoding: "ieee-p1363" }, Buffer.from(cs.signature, "hex"));
  assert.ok(ok);
});

test("rawToDer encodes minimal positive integers", () => {
  const raw = (r, s) => Uint8Array.from(Buffer.from(r.padStart(64, "0") + s.padStart(64, "0"), "hex"));
  const cases = [
    { name: "small values lose their leading zeros", r: "01", s: "7f", der: "300602010102017f" },
    { name: "a high bit gets a zero byte", r: "80", s: "ff".repeat(32), der: "302702020080022100" + "ff".repeat(32) },
    { name: "zero stays one byte", r: "00", s: "01", der: "3006020100020101" },
    { name: "full-size values", r: "7f".repeat(32), s: "01" + "00".repeat(31), der: "30440220" + "7f".repeat(32) + "0220" + "01" + "00".repeat(31) },
  ];
  for (const c of cases) {
    assert.equal(Buffer.from(rawToDer(raw(c.r, c.s))).toString("hex"), c.der, c.name);
  }
  assert.throws(() => rawToDer(new Uint8Array(63)), /64-byte/);
});

// ---------------------------------------------------------------------------------------------------------------
// The journey in Chromium

let demo; // the `sigil demo web` process
let demoURL;
let browser;

/** startDemo runs `sigil demo web` and resolves with its URL once it listens. */
function startDemo(port) {
  const proc = spawn(process.env.SIGIL_BIN, ["demo", "web", "--dir", process.env.SIGIL_DIR, "--listen", `127.0.0.1:${port}`], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const url = new Promise((resolve, reject) => {
    const onData = (chunk) => {
      output += chunk;
      const m = /Web login demo: (http:\/\/\S+)/.exec(output);
      if (m) resolve(m[1]);
    };
    proc.stdout.on("data", onData);
    proc.stderr.on("data", onData);
    proc.on("exit", (code) => reject(new Error(`sigil demo web exited (${code}):\n${output}`)));
    setTimeout(() => reject(new Error(`sigil demo web did not start in 10 s:\n${output}`)), 10_000).unref();
  });
  return { proc, url };
}

/**
 * proxyAccepts waits until the auth proxy accepts requests from an origin. Another test may have just put the
 * configuration's allowed origins back to "*", and the proxy reads a configuration again only after a second.
 */
async function proxyAccepts(origin) {
  let last;
  for (let i = 0; i < 50; i++) {
    const res = await fetch(`${boot.authProxyUrl}/v1/wallet_kit_config`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Auth-Proxy-Config-Id": boot.authProxyConfigId, Origin: origin },
      body: "{}",
    });
    if (res.ok) return;
    last = `${res.status} ${await res.text()}`;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the auth proxy refuses requests from ${origin}: ${last}`);
}

before(async () => {
  assert.ok(boot.authProxyUrl && boot.authProxyConfigId, "bootstrap.json names the auth proxy and its configuration");
  assert.ok(process.env.SIGIL_BIN, "SIGIL_BIN names the sigil binary");
  const started = startDemo(process.env.SIGIL_WEB_PORT || "8085");
  demo = started.proc;
  demoURL = await started.url;
  await proxyAccepts(new URL(demoURL).origin);
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || "/usr/bin/chromium",
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
  mkdirSync(artifacts, { recursive: true });
});

after(async () => {
  await browser?.close();
  demo?.kill();
});

/** codeFor waits for the newest code e-mailed to an address since `since` and returns it. */
async function codeFor(email, since) {
  for (let i = 0; i < 50; i++) {
    const messages = await (await fetch(boot.devOutboxUrl)).json();
    const mine = messages.filter((m) => m.to === email && Date.parse(m.sentAt) >= since);
    if (mine.length > 0) {
      const m = /verification code is ([0-9A-Z]+)/.exec(mine[mine.length - 1].subject);
      assert.ok(m, `a code in the subject ${mine[mine.length - 1].subject}`);
      return m[1];
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no code e-mailed to ${email} in the dev outbox`);
}

/** openPage opens the demo in a fresh browser context and records what would show a broken page. */
async function openPage(options) {
  const context = await browser.newContext(options);
  const page = await context.newPage();
  const problems = [];
  page.on("pageerror", (err) => problems.push(`uncaught: ${err.message}`));
  page.on("console", (msg) => {
    if (/Content Security Policy|CORS/.test(msg.text())) problems.push(`console: ${msg.text()}`);
  });
  await page.goto(demoURL);
  return { context, page, problems };
}

/** signIn runs the e-mail and code steps, optionally typing a wrong code first, and waits for the wallet panel. */
async function signIn(page, email, { wrongCodeFirst = false } = {}) {
  await page.fill("#email", email);
  const since = Date.now() - 1000;
  await page.click("#send-code");
  await page.locator("#code").waitFor({ state: "visible" });
  assert.equal(await page.textContent("#sent-to"), email);
  assert.equal(await page.getAttribute("#dev-outbox-link", "href"), boot.devOutboxUrl, "dev mode links the outbox");
  const code = await codeFor(email, since);
  if (wrongCodeFirst) {
    const wrong = code.replace(/^./, (c) => (c === "2" ? "3" : "2"));
    await page.fill("#code", wrong);
    await page.click("#verify");
    await page.locator("#error").waitFor({ state: "visible" });
    assert.match(await page.textContent("#error"), /code/i, "a wrong code says so");
  }
  await page.fill("#code", code);
  await page.click("#verify");
  await page.locator("#wallet").waitFor({ state: "visible", timeout: 20_000 });
  assert.equal(await page.isVisible("#error"), false, "no error once signed in");
  return {
    address: await page.textContent("#wallet-address"),
    organizationId: await page.textContent("#organization-id"),
    welcome: await page.textContent("#welcome"),
  };
}

/** signWith signs a message on the page and returns the signature it shows. */
async function signWith(page, message) {
  await page.fill("#message", message);
  await page.click("#sign");
  await page.locator("#signature-box").waitFor({ state: "visible" });
  return page.textContent("#signature");
}

const email = `web-${Date.now()}@example.com`;
let account;

test("a new user signs up with an e-mail code, sees their wallet and signs a message (phone screen)", async () => {
  const { context, page, problems } = await openPage(phone);
  try {
    account = await signIn(page, email);
    assert.match(account.welcome, /wallet is ready/, "a new account");
    assert.ok(isAddress(account.address), `an Ethereum address: ${account.address}`);
    assert.equal(await page.textContent("#user-name"), email);

    // The account is a sub-organization of the stack's organization holding that wallet account.
    const { organizationIds } = await root.getSubOrgIds({ organizationId: boot.organizationId, filterType: "EMAIL", filterValue: email });
    assert.deepEqual(organizationIds, [account.organizationId]);
    const { accounts } = await root.getWalletAccounts({
      organizationId: account.organizationId,
      walletId: (await root.getWallets({ organizationId: account.organizationId })).wallets[0].walletId,
    });
    assert.deepEqual(accounts.map((a) => a.address), [account.address]);

    const message = "Hello from Sigil, signed in the browser ✓";
    const signature = await signWith(page, message);
    assert.match(signature, /^0x[0-9a-f]{130}$/);
    assert.ok(await verifyMessage({ address: account.address, message, signature }), "the signature verifies for the wallet address");

    // Nothing scrolls sideways on a phone.
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `the page is ${overflow}px wider than the phone screen`);
    await page.screenshot({ path: join(artifacts, "web-login-phone.png"), fullPage: true });
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test("the same user logs in again with a new session key, after a wrong code, to the same account", async () => {
  assert.ok(account, "the sign-up test ran first");
  const { context, page, problems } = await openPage({ viewport: { width: 1280, height: 800 } });
  try {
    const again = await signIn(page, email, { wrongCodeFirst: true });
    assert.match(again.welcome, /Welcome back/);
    assert.equal(again.organizationId, account.organizationId);
    assert.equal(again.address, account.address);

    const message = "second session";
    const signature = await signWith(page, message);
    assert.ok(await verifyMessage({ address: account.address, message, signature }));
    await page.screenshot({ path: join(artifacts, "web-login-desktop.png"), fullPage: true });

    // Signing out forgets the session: the page is back at the first step.
    await page.click("#sign-out");
    await page.locator("#email").waitFor({ state: "visible" });
    assert.equal(await page.isVisible("#wallet"), false);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

