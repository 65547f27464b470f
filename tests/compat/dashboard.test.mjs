// The organization dashboard in Chromium (Debian's chromium, driven by playwright-core): a root user signs in with the
// API key of bootstrap.json (stamped in the page with WebCrypto), changes the auth proxy's allowed origins, and the
// proxy then refuses the old origin and accepts the new one. Screenshots go to tests/compat/artifacts/.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, mkdirSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

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
