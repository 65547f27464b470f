// The organization dashboard in Chromium (Debian's chromium, driven by playwright-core): a root user signs in with the
// API key of bootstrap.json (stamped in the page with WebCrypto), changes the auth proxy's allowed origins, and the
// proxy then refuses the old origin and accepts the new one. Screenshots go to tests/compat/artifacts/.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, mkdirSync } from "node:fs";
import { createServer } from "node:http";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { TurnkeyClient } from "@turnkey/http";
import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { generateP256KeyPair } from "@turnkey/crypto";
import { createAccount } from "@turnkey/viem";
import { createPublicClient, createWalletClient, defineChain, http as viemHttp } from "viem";

const boot = JSON.parse(readFileSync(join(process.env.SIGIL_DIR, "bootstrap.json"), "utf8"));
const artifacts = join(dirname(fileURLToPath(import.meta.url)), "artifacts");
const executablePath = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
const args = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
  "--disable-sync", "--no-first-run"];

// proxyStatus sends a request to the proxy from an origin, as a browser app on that origin would.
async function proxyStatus(origin) {
  const res = await fetch(`${boot.authProxyUrl}/v1/wallet_kit_config`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Auth-Proxy-Config-ID": boot.authProxyConfigId, Origin: origin },
    body: "{}",
  });
  return res.status;
}

// eventually retries until the proxy's cached copy of the configuration (one second) has expired.
async function eventually(check, what) {
  const deadline = Date.now() + 10000;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

// signIn opens the dashboard and signs in with the bootstrap root key, as a person pastes it.
async function signIn(page) {
  await page.goto(boot.dashboardUrl);
  await page.fill("#api-public-key", boot.apiPublicKey);
  await page.fill("#api-private-key", boot.apiPrivateKey);
  await page.click("#sign-in");
  await page.waitForSelector(`#config-id:has-text("${boot.authProxyConfigId}")`);
}

async function saveOrigins(page, origins) {
  await page.fill("#allowed-origins", origins.join("\n"));
  await page.click("#save-auth");
  await page.waitForSelector("#status.show:has-text('Settings saved')");
  assert.equal(await page.inputValue("#allowed-origins"), origins.join("\n"));
}

test("the dashboard signs in with an API key, changes the allowed origins, and the proxy follows", async () => {
  assert.ok(boot.dashboardUrl, "bootstrap.json names dashboardUrl");
  mkdirSync(artifacts, { recursive: true });
  const browser = await chromium.launch({ executablePath, args });
  const before = (await (await fetch(`${boot.authProxyUrl}/healthz`)).json()).status;
  assert.equal(before, "ok");
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const errors = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(boot.dashboardUrl);
    await page.waitForSelector("#sign-in:enabled"); // the configuration has loaded
    assert.equal(await page.inputValue("#org-id"), boot.organizationId);
    await page.fill("#api-public-key", boot.apiPublicKey);
    await page.fill("#api-private-key", boot.apiPrivateKey);
    await page.click("#sign-in");
    await page.waitForSelector(`#config-id:has-text("${boot.authProxyConfigId}")`);
    assert.equal(await page.inputValue("#api-private-key"), "", "the private key is cleared from the form");
    assert.equal(await page.textContent("#proxy-status"), "Enabled");
    assert.equal(await page.textContent("#proxy-url"), boot.authProxyUrl);

    const oldOrigin = "https://old.example";
    const newOrigin = "https://new.example";
    try {
      await saveOrigins(page, [oldOrigin]);
      await eventually(async () => (await proxyStatus(oldOrigin)) === 200 && (await proxyStatus(newOrigin)) === 403, "only the old origin is allowed");
      await saveOrigins(page, [newOrigin]);
      await eventually(async () => (await proxyStatus(oldOrigin)) === 403 && (await proxyStatus(newOrigin)) === 200, "only the new origin is allowed");
      await page.screenshot({ path: join(artifacts, "dashboard.png"), fullPage: true });

      // The other sections and a phone-sized screen.
      await page.click("button[data-tab=users]");
      await page.waitForSelector("#users td:has-text('auth-proxy')");
      await page.click("button[data-tab=policies]");
      await page.waitForSelector("#policies td:has-text('Auth proxy: login activities only')");
      await page.click("button[data-tab=activities]");
      await page.waitForSelector("#activities td:has-text('UPDATE_AUTH_PROXY_CONFIG')");
      await page.setViewportSize({ width: 390, height: 844 });
      await page.click("button[data-tab=auth]");
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(overflow <= 0, `the page fits a phone's width (overflows by ${overflow}px)`);
      await page.screenshot({ path: join(artifacts, "dashboard-phone.png"), fullPage: true });
    } finally {
      await saveOrigins(page, ["*"]); // the other conformance tests call the proxy without an Origin
    }
    assert.deepEqual(errors, [], "no script errors on the page");
  } finally {
    await browser.close();
  }
});

test("the dashboard signs a root user in with a passkey (a virtual authenticator) and stamps with a session key", async () => {
  const browser = await chromium.launch({ executablePath, args });
  try {
    const page = await browser.newPage();
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("WebAuthn.enable");
    await cdp.send("WebAuthn.addVirtualAuthenticator", { options: { protocol: "ctap2", transport: "internal",
      hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true } });
    // WebAuthn refuses IP addresses as relying party: open the page as localhost (sigil up allows that origin too).
    const url = new URL(boot.dashboardUrl);
    url.hostname = "localhost";
    await page.goto(url.href);

    // Register a passkey in the browser and add it to the root user with the root API key.
    const reg = await page.evaluate(async () => {
      const b64url = (buf) => btoa(String.fromCharCode(...new Uint8Array(buf))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
      const challenge = crypto.getRandomValues(new Uint8Array(32));
      const cred = await navigator.credentials.create({ publicKey: { challenge, rp: { id: location.hostname, name: "Sigil" },
        user: { id: crypto.getRandomValues(new Uint8Array(16)), name: "root", displayName: "root" },
        pubKeyCredParams: [{ type: "public-key", alg: -7 }], authenticatorSelection: { residentKey: "required", userVerification: "preferred" },
        attestation: "none" } });
      return { challenge: b64url(challenge), credentialId: b64url(cred.rawId), clientDataJson: b64url(cred.response.clientDataJSON),
        attestationObject: b64url(cred.response.attestationObject) };
    });
    const root = new TurnkeyClient({ baseUrl: boot.coordinatorUrl }, new ApiKeyStamper({ apiPublicKey: boot.apiPublicKey, apiPrivateKey: boot.apiPrivateKey }));
    const added = await root.createAuthenticators({
      type: "ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2", timestampMs: String(Date.now()), organizationId: boot.organizationId,
      parameters: { userId: boot.userId, authenticators: [{ authenticatorName: "dashboard test", challenge: reg.challenge,
        attestation: { credentialId: reg.credentialId, clientDataJson: reg.clientDataJson, attestationObject: reg.attestationObject,
          transports: ["AUTHENTICATOR_TRANSPORT_INTERNAL"] } }] },
    });
    assert.equal(added.activity.status, "ACTIVITY_STATUS_COMPLETED");

    await page.click("summary:has-text('Passkey')");
    await page.click("#sign-in-passkey");
    await page.waitForSelector(`#config-id:has-text("${boot.authProxyConfigId}")`);
    // Further requests are stamped with the session key: the users list loads without the passkey.
    await page.click("button[data-tab=users]");
    await page.waitForSelector("#users td:has-text('passkeys'):not(:has-text('0 passkeys'))");
  } finally {
    await browser.close();
  }
});

test("the dashboard creates a webhook endpoint, sends it a test event, shows the dead letter and replays it", async () => {
  const received = [];
  let refuse = true; // 410 at first: a terminal answer, so the test event goes straight to the dead-letter state
  const receiver = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      received.push({ headers: req.headers, body: JSON.parse(Buffer.concat(chunks)), refused: refuse });
      res.writeHead(refuse ? 410 : 204).end();
    });
  });
  await new Promise((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${receiver.address().port}/hook`;
  const browser = await chromium.launch({ executablePath, args });
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const errors = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await signIn(page);

    await page.click("button[data-tab=webhooks]");
    await page.fill("#endpoint-name", "dashboard test");
    await page.fill("#endpoint-url", url);
    await page.click("#create-endpoint");
    await page.waitForSelector("#status.show:has-text('Endpoint created')");
    const card = page.locator(".endpoint", { hasText: url });
    await card.waitFor();
    await card.locator("button", { hasText: "Send test event" }).click();
    await eventually(async () => received.some((d) => d.body.type === "ACTIVITY_TYPE_UPDATE_WEBHOOK_ENDPOINT"), "the test event arrives");
    const test = received.find((d) => d.body.type === "ACTIVITY_TYPE_UPDATE_WEBHOOK_ENDPOINT");
    assert.equal(test.headers["x-turnkey-event-type"], "ACTIVITY_UPDATES");
    assert.ok(test.headers["x-turnkey-signature"], "the delivery is signed");
    await eventually(async () => {
      await card.locator("button", { hasText: "Refresh" }).click();
      return (await card.locator("table.deliveries tr", { hasText: test.headers["x-turnkey-event-id"] })
        .locator("td", { hasText: "DEAD" }).count()) > 0;
    }, "the dashboard lists the refused delivery as dead");
    refuse = false;
    // Other activities of the organization (other tests') may have died at this endpoint too: replay the test event's.
    const eventId = test.headers["x-turnkey-event-id"];
    await card.locator("table.deliveries tr", { hasText: eventId }).locator("button", { hasText: "Replay" }).click();
    await page.waitForSelector("#status.show:has-text('Queued again')");
    await eventually(async () => received.some((d) => !d.refused && d.headers["x-turnkey-event-id"] === eventId),
      "the replayed event arrives under the same event id");
    await eventually(async () => {
      await card.locator("button", { hasText: "Refresh" }).click();
      return (await card.locator("table.deliveries tr", { hasText: eventId }).locator("td", { hasText: "DELIVERED" }).count()) > 0;
    }, "the dashboard lists the replayed delivery as delivered");
    await page.screenshot({ path: join(artifacts, "dashboard-webhooks.png"), fullPage: true });
    await twice(page.locator(".endpoint", { hasText: url }).locator("button", { hasText: "Delete" }));
    await page.waitForSelector("#status.show:has-text('Endpoint deleted')");
    assert.equal(await page.locator(".endpoint", { hasText: url }).count(), 0);
    assert.deepEqual(errors, [], "no script errors on the page");
  } finally {
    await browser.close();
    receiver.close();
  }
});

test("the dashboard signs in from sigil up's link, whose key stays in the fragment and leaves the address bar", async () => {
  const fragment = new URLSearchParams({ org: boot.organizationId, pub: boot.apiPublicKey, key: boot.apiPrivateKey, yield: boot.yieldApiKey });
  const browser = await chromium.launch({ executablePath, args });
  try {
    const page = await browser.newPage();
    const requests = [];
    page.on("request", (r) => requests.push(r.url()));
    await page.goto(`${boot.dashboardUrl}/#${fragment}`);
    await page.waitForSelector(`#config-id:has-text("${boot.authProxyConfigId}")`);
    assert.ok(!page.url().includes("key="), `the key left the address bar: ${page.url()}`);
    assert.ok(requests.every((u) => !u.includes(boot.apiPrivateKey)), "the key was sent in a request");
    assert.equal(await page.evaluate(() => sessionStorage.getItem("sigil-yield-key")), boot.yieldApiKey, "the link's yield key is kept for the tab");
  } finally {
    await browser.close();
  }
});

test("the dashboard stays signed in across a reload (a non-extractable key in IndexedDB) until Sign out", async () => {
  const browser = await chromium.launch({ executablePath, args });
  try {
    const page = await browser.newPage();
    await signIn(page);
    await page.reload();
    await page.waitForSelector(`#config-id:has-text("${boot.authProxyConfigId}")`);
    const extractable = await page.evaluate(() => new Promise((resolve) => {
      const open = indexedDB.open("sigil-dashboard", 1);
      open.onsuccess = () => {
        const req = open.result.transaction("session").objectStore("session").get("current");
        req.onsuccess = () => resolve(req.result.key.extractable);
      };
    }));
    assert.equal(extractable, false, "the kept key is not extractable");
    await page.click("#sign-out");
    await page.waitForSelector("#signin:not([hidden])");
    await page.reload();
    await page.waitForSelector("#signin:not([hidden])");
    assert.equal(await page.isVisible("#app"), false, "signed out stays signed out");
  } finally {
    await browser.close();
  }
});

test("the dashboard lists wallets with their accounts and shows an activity's detail", async () => {
  const root = new TurnkeyClient({ baseUrl: boot.coordinatorUrl }, new ApiKeyStamper({ apiPublicKey: boot.apiPublicKey, apiPrivateKey: boot.apiPrivateKey }));
  const walletName = `dashboard wallet ${Date.now()}`;
  const created = await root.createWallet({
    type: "ACTIVITY_TYPE_CREATE_WALLET", timestampMs: String(Date.now()), organizationId: boot.organizationId,
    parameters: { walletName, accounts: [{ curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" }] },
  });
  const address = created.activity.result.createWalletResult.addresses[0];
  const browser = await chromium.launch({ executablePath, args });
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const errors = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await signIn(page);
    await page.click("button[data-tab=wallets]");
    await page.waitForSelector(`.wallet:has-text("${walletName}") td:has-text("${address}")`);

    await page.click("button[data-tab=activities]");
    await page.locator("#activities tr.clickable", { hasText: "CREATE_WALLET" }).first().click();
    await page.waitForSelector("#activity-detail:not([hidden]) dd:has-text('ACTIVITY_TYPE_CREATE_WALLET')");
    assert.ok(await page.isVisible("#activity-detail dd:has-text('COMPLETED')"));
    await page.click("#activity-detail summary:has-text('Intent')");
    assert.ok((await page.textContent("#activity-detail pre")).includes(walletName), "the intent shows the wallet's name");
    await page.screenshot({ path: join(artifacts, "dashboard-activity.png"), fullPage: true });
    assert.deepEqual(errors, [], "no script errors on the page");
  } finally {
    await browser.close();
  }
});

test("the dashboard approves an activity waiting for consensus", async () => {
  const root = new TurnkeyClient({ baseUrl: boot.coordinatorUrl }, new ApiKeyStamper({ apiPublicKey: boot.apiPublicKey, apiPrivateKey: boot.apiPrivateKey }));
  const submit = (type, parameters) => ({ type, timestampMs: String(Date.now()), organizationId: boot.organizationId, parameters });
  const pair = generateP256KeyPair();
  const users = await root.createUsers(submit("ACTIVITY_TYPE_CREATE_USERS_V3", { users: [{ userName: `needs-consensus-${Date.now()}`,
    apiKeys: [{ apiKeyName: "k", publicKey: pair.publicKey, curveType: "API_KEY_CURVE_P256" }], authenticators: [], oauthProviders: [], userTags: [] }] }));
  const userId = users.activity.result.createUsersResult.userIds[0];
  const policy = await root.createPolicy(submit("ACTIVITY_TYPE_CREATE_POLICY_V3", { policyName: `two approvers for tags ${Date.now()}`,
    effect: "EFFECT_ALLOW", notes: "", consensus: "approvers.count() >= 2", condition: "activity.type == 'ACTIVITY_TYPE_CREATE_USER_TAG'" }));
  const policyId = policy.activity.result.createPolicyResult.policyId;
  const tagName = `pending-${Date.now()}`;
  const user = new TurnkeyClient({ baseUrl: boot.coordinatorUrl }, new ApiKeyStamper({ apiPublicKey: pair.publicKey, apiPrivateKey: pair.privateKey }));
  const pending = await user.createUserTag(submit("ACTIVITY_TYPE_CREATE_USER_TAG", { userTagName: tagName, userIds: [] })).catch((e) => e);
  const browser = await chromium.launch({ executablePath, args });
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    await signIn(page);
    await page.click("button[data-tab=activities]");
    await page.locator("#activities tr.clickable", { hasText: "CONSENSUS_NEEDED" }).first().click();
    await page.waitForSelector("#activity-detail:not([hidden]) dd:has-text('ACTIVITY_TYPE_CREATE_USER_TAG')");
    await page.click("#activity-detail button:has-text('Approve')");
    await page.waitForSelector("#status.show:has-text('Approved')");
    await page.waitForSelector("#activity-detail dd:has-text('COMPLETED')");
    const tags = await root.listUserTags({ organizationId: boot.organizationId });
    assert.ok(tags.userTags.some((t) => t.tagName === tagName), `the approved activity created the tag (it was ${pending.activity?.status})`);
  } finally {
    await browser.close();
    await root.deletePolicy(submit("ACTIVITY_TYPE_DELETE_POLICY", { policyId }));
    await root.deleteUsers(submit("ACTIVITY_TYPE_DELETE_USERS", { userIds: [userId] }));
  }
});

// fieldError is the error shown at a field: the field is marked invalid and described by the message beside it.
async function fieldError(page, field) {
  await page.waitForSelector(`${field}[aria-invalid=true]`);
  const id = await page.getAttribute(field, "aria-describedby");
  const text = await page.textContent(`#${id}`);
  assert.ok(await page.evaluate(([f, id]) => document.querySelector(f).nextElementSibling?.id === id, [field, id]), "the message is beside the field");
  return text;
}

// twice clicks a deletion's button and then its confirmation.
async function twice(button) {
  await button.click();
  await button.click();
}

test("the dashboard creates and deletes users, API keys, policies (after a dry run) and wallets, errors at the field", async () => {
  const stamp = Date.now();
  const browser = await chromium.launch({ executablePath, args });
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const errors = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(boot.dashboardUrl);
    await page.fill("#api-public-key", boot.apiPublicKey);
    await page.fill("#api-private-key", "12ab");
    await page.click("#sign-in");
    assert.match(await fieldError(page, "#api-private-key"), /64 hex characters/);
    await signIn(page);

    // Users: a key that is not a key is refused at its field; then the user, a second key, their deletion.
    await page.click("button[data-tab=users]");
    const userName = `dash-user-${stamp}`;
    await page.fill("#user-name", userName);
    await page.fill("#user-key", "02zz");
    await page.click("#create-user");
    assert.match(await fieldError(page, "#user-key"), /publicKey/);
    const first = generateP256KeyPair();
    await page.fill("#user-key", first.publicKey);
    assert.equal(await page.getAttribute("#user-key", "aria-invalid"), null, "typing clears the error");
    await page.click("#create-user");
    await page.waitForSelector(`#user-detail:not([hidden]) h2:has-text("${userName}")`);
    await page.waitForSelector(`#users td:has-text("${userName}")`);
    const detail = page.locator("#user-detail");
    const second = generateP256KeyPair();
    await detail.locator("input[name=apiKeyName]").fill("second");
    await detail.locator("input[name=publicKey]").fill("not a key");
    await detail.locator("button", { hasText: "Add API key" }).click();
    assert.match(await fieldError(page, "#user-detail input[name=publicKey]"), /publicKey/);
    await detail.locator("input[name=publicKey]").fill(second.publicKey);
    await detail.locator("button", { hasText: "Add API key" }).click();
    await page.waitForSelector(`#user-detail table.keys td:has-text("${second.publicKey}")`);
    await twice(detail.locator("tr", { hasText: second.publicKey }).locator("button", { hasText: "Delete" }));
    await page.waitForSelector("#status.show:has-text('API key deleted')");
    assert.equal(await detail.locator("tr", { hasText: second.publicKey }).count(), 0);
    await twice(detail.locator("button", { hasText: "Delete user" }));
    await page.waitForSelector(`#status.show:has-text("User ${userName} deleted")`);
    assert.equal(await page.locator("#users td", { hasText: userName }).count(), 0);

    // Policies: a condition that does not compile is refused at its field by the dry run; a good one is explained,
    // then saved; any change asks for a new check.
    await page.click("button[data-tab=policies]");
    const policyName = `dash policy ${stamp}`;
    await page.fill("#policy-name", policyName);
    await page.fill("#policy-condition", "activity.type ==");
    await page.click("#check-policy");
    assert.match(await fieldError(page, "#policy-condition"), /condition/);
    assert.ok(await page.isDisabled("#save-policy"), "an unchecked policy cannot be saved");
    await page.fill("#policy-condition", "activity.type == 'ACTIVITY_TYPE_CREATE_USER_TAG'");
    await page.click("#check-policy");
    await page.waitForSelector("#policy-dry-run:not([hidden]) .decision.allow:has-text('Allowed')");
    assert.ok(await page.isEnabled("#save-policy"));
    await page.fill("#policy-notes", "changed");
    assert.ok(await page.isDisabled("#save-policy"), "a changed policy must be checked again");
    await page.click("#check-policy");
    await page.waitForSelector("#policy-dry-run:not([hidden]) .decision");
    await page.click("#save-policy");
    await page.waitForSelector(`#status.show:has-text("Policy ${policyName} created")`);
    assert.ok(await page.isDisabled("#save-policy"), "the next policy is checked before it is saved");
    const policyRow = page.locator("#policies tr", { hasText: policyName });
    await policyRow.waitFor();
    await page.screenshot({ path: join(artifacts, "dashboard-policies.png"), fullPage: true });
    await twice(policyRow.locator("button", { hasText: "Delete" }));
    await page.waitForSelector(`#status.show:has-text("Policy ${policyName} deleted")`);
    assert.equal(await policyRow.count(), 0);

    // Wallets: created with an Ethereum account, a second account, then deleted; a name that would show one thing and
    // be another is refused at its field.
    await page.click("button[data-tab=wallets]");
    const walletName = `dash wallet ${stamp}`;
    await page.fill("#wallet-name", walletName);
    await page.click("#create-wallet");
    const wallet = page.locator(".wallet", { hasText: walletName });
    await wallet.locator("td", { hasText: /^0x[0-9a-fA-F]{40}$/ }).waitFor();
    await page.fill("#wallet-name", "invoice \u202Egnp.exe");
    await page.click("#create-wallet");
    assert.match(await fieldError(page, "#wallet-name"), /walletName must not contain control characters or bidirectional overrides/);
    await wallet.locator("button", { hasText: "Add Ethereum account" }).click();
    await wallet.locator("td", { hasText: "m/44'/60'/0'/0/1" }).waitFor();
    await twice(wallet.locator("button", { hasText: "Delete wallet" }));
    await page.waitForSelector(`#status.show:has-text("Wallet ${walletName} deleted")`);
    assert.equal(await wallet.count(), 0);
    assert.deepEqual(errors, [], "no script errors on the page");
  } finally {
    await browser.close();
  }
});

test("the dashboard names users and policies where the API answers ids, shows a denial's policies by name, and pages past 25", async () => {
  const root = new TurnkeyClient({ baseUrl: boot.coordinatorUrl }, new ApiKeyStamper({ apiPublicKey: boot.apiPublicKey, apiPrivateKey: boot.apiPrivateKey }));
  const submit = (type, parameters) => ({ type, timestampMs: String(Date.now()), organizationId: boot.organizationId, parameters });
  const stamp = Date.now();
  const pair = generateP256KeyPair();
  const userName = `denied-${stamp}`;
  const users = await root.createUsers(submit("ACTIVITY_TYPE_CREATE_USERS_V3", { users: [{ userName,
    apiKeys: [{ apiKeyName: "k", publicKey: pair.publicKey, curveType: "API_KEY_CURVE_P256" }], authenticators: [], oauthProviders: [], userTags: [] }] }));
  const userId = users.activity.result.createUsersResult.userIds[0];
  const condition = "activity.type == 'ACTIVITY_TYPE_CREATE_USER_TAG'";
  const consensus = `approvers.any(user, user.id == '${userId}')`;
  const allowName = `tags for ${userName}`;
  const denyName = `but never tags for ${userName}`;
  const policyIds = [];
  for (const [policyName, effect] of [[allowName, "EFFECT_ALLOW"], [denyName, "EFFECT_DENY"]]) {
    const p = await root.createPolicy(submit("ACTIVITY_TYPE_CREATE_POLICY_V3", { policyName, effect, notes: "", condition, consensus }));
    policyIds.push(p.activity.result.createPolicyResult.policyId);
  }
  // 26 denials: more than a page of activities.
  const user = new TurnkeyClient({ baseUrl: boot.coordinatorUrl }, new ApiKeyStamper({ apiPublicKey: pair.publicKey, apiPrivateKey: pair.privateKey }));
  for (let i = 0; i < 26; i++) await user.createUserTag(submit("ACTIVITY_TYPE_CREATE_USER_TAG", { userTagName: `t-${stamp}-${i}`, userIds: [] })).catch((e) => e);
  const browser = await chromium.launch({ executablePath, args });
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const errors = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await signIn(page);

    // The policies' consensus names the user beside its id.
    await page.click("button[data-tab=policies]");
    await page.waitForSelector(`#policies tr:has-text("${denyName}") .id-name:has-text("user ${userName}")`);

    // The newest activity is the last denial: by the user's name, DENIED, with the reason.
    await page.click("button[data-tab=activities]");
    const first = page.locator("#activities tr.clickable").first();
    await first.locator("td:nth-child(4)", { hasText: userName }).waitFor();
    assert.equal(await first.locator("td").nth(2).textContent(), "DENIED");
    assert.ok(await first.evaluate((tr) => tr.classList.contains("denied")), "a denial stands out");
    assert.ok((await first.locator("td").nth(5).textContent()).length > 0, "the reason is in the list"); // after When, Type, Status, By, Via
    assert.equal(await page.locator("#activities tr.clickable").count(), 25);
    assert.equal(await page.textContent("#activities-page"), "1–25");

    // The chart over time: the denials are there, red, and counted in the summary.
    await page.waitForSelector("#activity-chart svg rect.s-denied");
    assert.ok(await page.locator("#activity-chart rect.s-denied").count() > 0);
    assert.equal(await page.locator("#activity-chart rect.s-denied").first().evaluate((r) => getComputedStyle(r).fill), "rgb(180, 35, 24)", "denials in the page's red");
    assert.match(await page.textContent("#activity-summary strong.bad"), /^\d+ denied$/);
    assert.match(await page.getAttribute("#activity-chart svg", "aria-label"), /\d+ denied/);
    assert.ok(await page.isDisabled("#activities-prev"));

    // Its detail: who, the reason, and each policy's outcome by name.
    await first.click();
    await page.waitForSelector("#activity-detail:not([hidden]) dd:has-text('DENIED by policy')");
    assert.ok(await page.isVisible(`#activity-detail dd:has-text("${userName}")`), "the submitter by name");
    assert.ok(await page.isVisible("#activity-detail dt:has-text('Reason')"));
    const outcomes = await page.locator("#activity-detail table.outcomes td:first-child").allTextContents();
    assert.ok(outcomes.includes(allowName) && outcomes.includes(denyName), `policies by name: ${outcomes}`);
    assert.ok(outcomes.every((o) => !/^[0-9a-f-]{36}$/.test(o)), `no raw ids: ${outcomes}`);
    await page.screenshot({ path: join(artifacts, "dashboard-denied.png"), fullPage: true });

    // The next page, and back.
    const newest = await first.getAttribute("data-activity-id");
    await page.click("#activities-next");
    await page.waitForSelector("#activities-page:has-text('26–')");
    assert.notEqual(await page.locator("#activities tr.clickable").first().getAttribute("data-activity-id"), newest);
    assert.ok(await page.isEnabled("#activities-prev"));
    await page.click("#activities-prev");
    await page.waitForSelector("#activities-page:text-is('1–25')");
    assert.equal(await page.locator("#activities tr.clickable").first().getAttribute("data-activity-id"), newest);
    assert.deepEqual(errors, [], "no script errors on the page");
  } finally {
    await browser.close();
    for (const policyId of policyIds) await root.deletePolicy(submit("ACTIVITY_TYPE_DELETE_POLICY", { policyId }));
    await root.deleteUsers(submit("ACTIVITY_TYPE_DELETE_USERS", { userIds: [userId] }));
  }
});

test("the dashboard lists sub-organizations, finds one by name and opens it read-only", async () => {
  const root = new TurnkeyClient({ baseUrl: boot.coordinatorUrl }, new ApiKeyStamper({ apiPublicKey: boot.apiPublicKey, apiPrivateKey: boot.apiPrivateKey }));
  const stamp = Date.now();
  const subName = `dash sub ${stamp}`;
  const subUser = `sub-root-${stamp}`;
  const walletName = `sub wallet ${stamp}`;
  const sub = await root.createSubOrganization({ type: "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7", timestampMs: String(Date.now()),
    organizationId: boot.organizationId, parameters: { subOrganizationName: subName, rootQuorumThreshold: 1,
      rootUsers: [{ userName: subUser, apiKeys: [{ apiKeyName: "k", publicKey: generateP256KeyPair().publicKey, curveType: "API_KEY_CURVE_P256" }],
        authenticators: [], oauthProviders: [] }],
      wallet: { walletName, accounts: [{ curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" }] } } });
  assert.equal(sub.activity.status, "ACTIVITY_STATUS_COMPLETED");
  const browser = await chromium.launch({ executablePath, args });
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const errors = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await signIn(page);
    assert.equal(await page.isVisible("#viewing"), false, "no sub-organization banner in one's own organization");
    await page.click("button[data-tab=suborgs]");
    await page.waitForSelector("#suborgs-page:not(:empty)");
    await page.selectOption("#suborg-filter-type", "NAME");
    await page.fill("#suborg-value", subName);
    await page.click("#find-suborgs");
    const row = page.locator("#suborgs tr", { hasText: subName });
    // The unfiltered first page, listed when the tab opened, may still be showing: wait for the search's answer.
    await page.waitForFunction(() => document.querySelectorAll("#suborgs tr").length === 2, null, { timeout: 10000 })
      .catch(() => {});
    assert.equal(await page.locator("#suborgs tr").count(), 2, "only the sub-organization found (and the header)");
    await row.waitFor();
    assert.ok((await row.textContent()).includes(subUser), "its users by name");
    await row.locator("button", { hasText: "Open" }).click();

    // Inside: its users and wallets, read-only, said so.
    await page.waitForSelector(`#viewing:not([hidden]) #viewing-name:has-text("${subName}")`);
    await page.waitForSelector(`#users td:has-text("${subUser}")`);
    assert.match(await page.textContent("#org-name"), new RegExp(`› ${subName} \\(read-only\\)`));
    assert.equal(await page.isVisible("#user-form"), false, "no create form in a sub-organization");
    await page.click("button[data-tab=wallets]");
    await page.waitForSelector(`.wallet:has-text("${walletName}") td:has-text("0x")`);
    assert.equal(await page.locator("button.mutates:visible").count(), 0, "no button that acts");
    assert.equal(await page.isVisible("button[data-tab=auth]"), false);
    await page.click("button[data-tab=activities]");
    await page.waitForSelector("#activities-page:not(:empty)");

    await page.click("#leave-org");
    await page.waitForSelector("#viewing[hidden]", { state: "attached" });
    assert.ok(!(await page.textContent("#org-name")).includes("›"));
    await page.click("button[data-tab=users]");
    await page.waitForSelector("#users td:has-text('auth-proxy')");
    assert.ok(await page.isVisible("#user-form"));
    assert.deepEqual(errors, [], "no script errors on the page");
  } finally {
    await browser.close();
  }
});

// fund sends dev-chain ether and test tokens to an address from the faucet.
async function fund(address, eth, tokens = {}) {
  const res = await fetch(boot.faucetUrl, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ address, eth, tokens }) });
  assert.ok(res.ok, `the faucet answers ${res.status}`);
}

test("the dashboard shows each Ethereum account's live balances on the dev chain, read through its relay", async () => {
  const root = new TurnkeyClient({ baseUrl: boot.coordinatorUrl }, new ApiKeyStamper({ apiPublicKey: boot.apiPublicKey, apiPrivateKey: boot.apiPrivateKey }));
  const walletName = `funded wallet ${Date.now()}`;
  const created = await root.createWallet({ type: "ACTIVITY_TYPE_CREATE_WALLET", timestampMs: String(Date.now()), organizationId: boot.organizationId,
    parameters: { walletName, accounts: [{ curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" }] } });
  const address = created.activity.result.createWalletResult.addresses[0];
  await fund(address, "1.5", { USDC: "50" });
  const browser = await chromium.launch({ executablePath, args });
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const errors = [];
    page.on("pageerror", (e) => errors.push(e.message));
    const relayed = [];
    page.on("request", (r) => r.url().includes("/rpc/") && relayed.push(r.url()));
    await signIn(page);
    await page.click("button[data-tab=wallets]");
    const spot = page.locator(`.balance[data-address="${address}"]`);
    await page.waitForSelector(`.balance[data-address="${address}"]:has-text("1.5 ETH")`);
    assert.match(await spot.textContent(), /50 USDC/);
    await page.waitForSelector("#balance-charts figure[data-asset=ETH] svg rect.s-balance", { state: "attached" });
    assert.ok(await page.locator(`#balance-charts figure[data-asset=USDC] rect.s-balance title:text-matches("${walletName}.*: 50 USDC")`).count() === 1,
      "the USDC chart has the account's bar");
    await page.screenshot({ path: join(artifacts, "dashboard-wallets.png"), fullPage: true });
    assert.ok(relayed.length > 0 && relayed.every((u) => u.startsWith(boot.dashboardUrl)), "the page reads the chain through the dashboard only");

    // Live: more ether arrives, and the page shows it without a reload.
    await fund(address, "1");
    await page.waitForSelector(`.balance[data-address="${address}"]:has-text("2.5 ETH")`, { timeout: 15000 });
    assert.deepEqual(errors, [], "no script errors on the page");
  } finally {
    await browser.close();
  }
});

// pictureOf measures a screenshot in a blank page: its size, how many colours it has, and the share of its pixels
// that are not the page's background (#f5f6f8).
async function pictureOf(blank, png) {
  return blank.evaluate(async (b64) => {
    const img = new Image();
    img.src = "data:image/png;base64," + b64;
    await img.decode();
    const canvas = new OffscreenCanvas(img.width, img.height);
    const g = canvas.getContext("2d");
    g.drawImage(img, 0, 0);
    const d = g.getImageData(0, 0, img.width, img.height).data;
    const colours = new Set();
    let ink = 0;
    let n = 0;
    for (let i = 0; i < d.length; i += 4 * 5) {
      colours.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
      if (Math.abs(d[i] - 0xf5) + Math.abs(d[i + 1] - 0xf6) + Math.abs(d[i + 2] - 0xf8) > 12) ink++;
      n++;
    }
    return { width: img.width, height: img.height, colours: colours.size, ink: ink / n };
  }, png.toString("base64"));
}

// visibleBox is where an element is drawn, waiting a little for it: a chart being refreshed is redrawn in place.
async function visibleBox(locator) {
  for (let i = 0; i < 50; i++) {
    const box = await locator.boundingBox().catch(() => null);
    if (box) return box;
    await new Promise((r) => setTimeout(r, 100));
  }
  return null;
}

test("every page of the dashboard at 1280 and 390 pixels: drawn, within the width, its main parts in view", async () => {
  const root = new TurnkeyClient({ baseUrl: boot.coordinatorUrl }, new ApiKeyStamper({ apiPublicKey: boot.apiPublicKey, apiPrivateKey: boot.apiPrivateKey }));
  const created = await root.createWallet({ type: "ACTIVITY_TYPE_CREATE_WALLET", timestampMs: String(Date.now()), organizationId: boot.organizationId,
    parameters: { walletName: `screens ${Date.now()}`, accounts: [{ curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" }] } });
  await fund(created.activity.result.createWalletResult.addresses[0], "0.25", { USDC: "10" });
  await root.createSubOrganization({ type: "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7", timestampMs: String(Date.now()),
    organizationId: boot.organizationId, parameters: { subOrganizationName: `screens sub ${Date.now()}`, rootQuorumThreshold: 1,
      rootUsers: [{ userName: "screens", apiKeys: [{ apiKeyName: "k", publicKey: generateP256KeyPair().publicKey, curveType: "API_KEY_CURVE_P256" }], authenticators: [], oauthProviders: [] }] } });
  // What each page must show once loaded, and what must then be in view (a wide table scrolls in its box, which
  // must fit).
  const pages = {
    auth: { ready: "#config-id:not(:empty)", parts: ["#tab-auth h2", "#save-auth"] },
    users: { ready: "#users td", parts: [".table-wrap:has(#users)", "#create-user"] },
    policies: { ready: "#policies td", parts: [".table-wrap:has(#policies)", "#check-policy"] },
    wallets: { ready: "#balance-charts svg", parts: ["#wallets .wallet", "#balance-charts svg", "#create-wallet"] },
    activities: { ready: "#activity-chart svg", parts: ["#activity-chart svg", ".table-wrap:has(#activities)", "#activities-next"] },
    suborgs: { ready: "#suborgs td", parts: [".table-wrap:has(#suborgs)", "#find-suborgs"] },
    webhooks: { ready: "#endpoints:not(:empty)", parts: ["#endpoint-form"] },
    yields: { ready: "#yield-rates svg", parts: ["#yield-rates svg", "#positions-none, #positions"] },
  };
  const browser = await chromium.launch({ executablePath, args });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const blank = await browser.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await signIn(page);
    await page.click("button[data-tab=yields]");
    await page.fill("#yield-key", boot.yieldApiKey);
    await page.click("#use-yield-key");
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: width > 600 ? 900 : 844 });
      for (const [tab, { ready, parts }] of Object.entries(pages)) {
        await page.click(`button[data-tab=${tab}]`);
        assert.equal(await page.locator("[role=tab][aria-selected=true]").getAttribute("data-tab"), tab, "the tab says it is selected");
        await page.waitForSelector(ready, { state: "attached" });
        await page.waitForLoadState("networkidle");
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        assert.ok(overflow <= 0, `${tab} at ${width}px overflows by ${overflow}px`);
        for (const part of parts) {
          const box = await visibleBox(page.locator(part).first());
          assert.ok(box && box.width > 0 && box.height > 0, `${tab} at ${width}px shows ${part}: ${JSON.stringify(box)}`);
          assert.ok(box.x >= 0 && box.x + box.width <= width + 0.5, `${tab} at ${width}px: ${part} spans ${box.x}..${box.x + box.width}`);
        }
        if (width < 600) {
          const sideways = await page.evaluate(() => [...document.querySelectorAll(".tab:not([hidden]) .table-wrap")].filter((w) => w.scrollWidth > w.clientWidth).length);
          assert.equal(sideways, 0, `${tab} at ${width}px: every table fits without scrolling sideways`);
        }
        const png = await page.screenshot({ path: join(artifacts, `dashboard-${tab}-${width}.png`), fullPage: true });
        const pic = await pictureOf(blank, png);
        assert.equal(pic.width, width, `the ${tab} screenshot at ${width}px is as wide as the screen`);
        assert.ok(pic.colours > 20 && pic.ink > 0.05, `the ${tab} screenshot at ${width}px is drawn: ${JSON.stringify(pic)}`);
      }
    }
    assert.deepEqual(errors, [], "no script errors on the page");
  } finally {
    await browser.close();
  }
});

// enterVault puts amount DAI of a new wallet of the root user into the dev chain's DAI vault, the way the yield
// journey does: the yield service builds the transactions, Sigil signs them, viem broadcasts them. (The DAI vault:
// the USDC one is the agent journey's and the demo's, whose exact exits a share price moved by accrual would upset.)
async function enterVault(walletName, amount) {
  const root = new TurnkeyClient({ baseUrl: boot.coordinatorUrl }, new ApiKeyStamper({ apiPublicKey: boot.apiPublicKey, apiPrivateKey: boot.apiPrivateKey }));
  const created = await root.createWallet({ type: "ACTIVITY_TYPE_CREATE_WALLET", timestampMs: String(Date.now()), organizationId: boot.organizationId,
    parameters: { walletName, accounts: [{ curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" }] } });
  const address = created.activity.result.createWalletResult.addresses[0];
  await fund(address, "1", { DAI: amount });
  const yieldApi = async (method, path, body) => {
    const res = await fetch(boot.yieldUrl + path, { method, headers: { "X-API-KEY": boot.yieldApiKey, "Content-Type": "application/json" }, body: body && JSON.stringify(body) });
    const data = await res.json();
    assert.ok(res.ok, `${method} ${path}: ${res.status} ${JSON.stringify(data)}`);
    return data;
  };
  const { items } = await yieldApi("GET", `/v1/yields?network=${boot.network}&token=DAI&limit=10`);
  const vault = items.find((y) => y.id.endsWith("-4626-vault") && y.mechanics.type === "vault");
  const chain = defineChain({ id: boot.chainId, name: "sigil-dev", nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: { default: { http: [boot.chainRpcUrl] } } });
  const publicClient = createPublicClient({ chain, transport: viemHttp(boot.chainRpcUrl) });
  const account = await createAccount({ client: root, organizationId: boot.organizationId, signWith: address });
  const walletClient = createWalletClient({ account, chain, transport: viemHttp(boot.chainRpcUrl) });
  const action = await yieldApi("POST", "/v1/actions/enter", { yieldId: vault.id, address, arguments: { amount } });
  for (const tx of action.transactions) {
    const u = JSON.parse(tx.unsignedTransaction);
    const hash = await walletClient.sendTransaction({ to: u.to, data: u.data, value: BigInt(u.value ?? "0x0"), gas: BigInt(u.gasLimit),
      maxFeePerGas: BigInt(u.maxFeePerGas), maxPriorityFeePerGas: BigInt(u.maxPriorityFeePerGas), nonce: u.nonce });
    assert.equal((await publicClient.waitForTransactionReceipt({ hash })).status, "success");
    await yieldApi("PUT", `/v1/transactions/${tx.id}/submit-hash`, { hash });
  }
  return { address, vault };
}

test("the dashboard shows the yields' rates and a position's value over time, with the page's yield API key", async () => {
  const walletName = `earning ${Date.now()}`;
  const { vault } = await enterVault(walletName, "40");
  const browser = await chromium.launch({ executablePath, args });
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const errors = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await signIn(page);
    await page.click("button[data-tab=yields]");
    await page.fill("#yield-key", "not-a-key");
    await page.click("#use-yield-key");
    assert.match(await fieldError(page, "#yield-key"), /yield service answers 401/);
    await page.fill("#yield-key", boot.yieldApiKey);
    await page.click("#use-yield-key");
    await page.waitForSelector("#yield-rates svg rect.s-rate", { state: "attached" });
    // The best-paying yield heads the chart, named with its network (sigil up runs two dev chains).
    const res = await fetch(`${boot.yieldUrl}/v1/yields?limit=100`, { headers: { "X-API-KEY": boot.yieldApiKey } });
    const best = (await res.json()).items.reduce((a, b) => (b.rewardRate.total > a.rewardRate.total ? b : a));
    const bars = page.locator("#yield-rates rect.s-rate title");
    assert.equal(await bars.count(), 12, "the 12 best-paying yields");
    assert.match(await bars.first().textContent(), new RegExp(`${best.metadata.name} on sigil-dev`), "the best-paying yield first");
    const row = page.locator("#positions tr", { hasText: walletName });
    await row.waitFor();
    assert.match(await row.textContent(), /active/);
    assert.match(await row.textContent(), /\d+(\.\d+)? DAI/, "the amount, less the vault's deposit fee");
    const chart = page.locator(`#position-charts figure[data-yield="${vault.id}"]`).filter({ hasText: walletName });
    await chart.locator("svg").waitFor();
    assert.match(await chart.locator("svg").getAttribute("aria-label"), /value over 7 days, in DAI/);
    // One point per sample the service has (it samples every 10 minutes, so a fresh stack may have only one).
    const samples = await (await fetch(`${boot.yieldUrl}/v1/yields/${vault.id}/share-prices?days=7`, { headers: { "X-API-KEY": boot.yieldApiKey } })).json();
    if (samples.items.length >= 2) {
      assert.equal(await chart.locator("circle.dot").count(), samples.items.length);
      assert.equal(await chart.locator("path.stroke").count(), 1);
    } else {
      assert.match(await chart.textContent(), /not enough samples yet/);
    }
    await page.screenshot({ path: join(artifacts, "dashboard-yields.png"), fullPage: true });

    // The key stays for the tab across a reload, and is forgotten on request.
    await page.reload();
    await page.click("button[data-tab=yields]");
    await page.waitForSelector("#yield-rates svg", { state: "attached" });
    await page.click("#forget-yield-key");
    await page.waitForSelector("#yield-body", { state: "hidden" });
    assert.deepEqual(errors, [], "no script errors on the page");
  } finally {
    await browser.close();
  }
});

test("the dashboard opens a wallet of 10,000 accounts a page at a time, with balances, and adds the next account", async () => {
  const root = new TurnkeyClient({ baseUrl: boot.coordinatorUrl }, new ApiKeyStamper({ apiPublicKey: boot.apiPublicKey, apiPrivateKey: boot.apiPrivateKey }));
  const eth = (i) => ({ curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: `m/44'/60'/0'/0/${i}`, addressFormat: "ADDRESS_FORMAT_ETHEREUM" });
  const walletName = `ten thousand ${Date.now()}`;
  const created = await root.createWallet({ type: "ACTIVITY_TYPE_CREATE_WALLET", timestampMs: String(Date.now()), organizationId: boot.organizationId,
    parameters: { walletName, accounts: [eth(0)] } });
  const walletId = created.activity.result.createWalletResult.walletId;
  for (let from = 1; from < 10000; from += 100) {
    const accounts = Array.from({ length: Math.min(100, 10000 - from) }, (_, i) => eth(from + i));
    const added = await root.createWalletAccounts({ type: "ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS", timestampMs: String(Date.now()),
      organizationId: boot.organizationId, parameters: { walletId, accounts } });
    assert.equal(added.activity.status, "ACTIVITY_STATUS_COMPLETED");
  }
  const browser = await chromium.launch({ executablePath, args });
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const errors = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await signIn(page);
    await page.click("button[data-tab=wallets]");
    const wallet = page.locator(`.wallet[data-wallet-id="${walletId}"]`);
    const range = wallet.locator(".pager span");
    await wallet.locator("td", { hasText: "m/44'/60'/0'/0/24" }).waitFor();
    assert.equal(await range.textContent(), "1–25");
    assert.equal(await wallet.locator("tr").count(), 26, "a header and a page of 25 accounts");
    // Every account shown gets its balances, read in batches the relay takes (at most 100 calls each).
    await wallet.locator(".balance.muted").first().waitFor({ state: "detached" });
    assert.equal(await wallet.locator(".field-error").count(), 0, await wallet.textContent());
    assert.match(await wallet.locator(".balance").first().textContent(), /ETH/);

    await wallet.locator("button", { hasText: "Next" }).click();
    await wallet.locator("td", { hasText: "m/44'/60'/0'/0/49" }).waitFor();
    assert.equal(await range.textContent(), "26–50");
    await wallet.locator("button", { hasText: "Previous" }).click();
    await wallet.locator("td", { hasText: "m/44'/60'/0'/0/0" }).waitFor();
    await wallet.locator(".balance.muted").first().waitFor({ state: "detached" });
    await wallet.screenshot({ path: join(artifacts, "dashboard-10000-accounts.png") });

    // The next Ethereum account is the 10,001st: found by a few look-ups by path, not by reading all 10,000.
    await wallet.locator("button", { hasText: "Add Ethereum account" }).click();
    await page.waitForSelector("#status.show:has-text('Account added')");
    const next = await root.getWalletAccount({ organizationId: boot.organizationId, walletId, path: "m/44'/60'/0'/0/10000" });
    assert.equal(next.account.path, "m/44'/60'/0'/0/10000");
    assert.deepEqual(errors, [], "no script errors on the page");
  } finally {
    await browser.close();
    await root.deleteWallets({ type: "ACTIVITY_TYPE_DELETE_WALLETS", timestampMs: String(Date.now()), organizationId: boot.organizationId,
      parameters: { walletIds: [walletId], deleteWithoutExport: true } });
  }
});
