// IP allowlists with the official SDKs: @turnkey/sdk-server sets and removes them, @turnkey/http reads them, and
// either hears the refusal of a request from an address a list does not allow. The stack runs without
// --trusted-proxies, so every request's address is its connection's, 127.0.0.1, whatever X-Forwarded-For claims.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { TurnkeyClient } from "@turnkey/http";
import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { Turnkey } from "@turnkey/sdk-server";
import { generateP256KeyPair } from "@turnkey/crypto";

const boot = JSON.parse(readFileSync(join(process.env.SIGIL_DIR, "bootstrap.json"), "utf8"));
const org = boot.organizationId;
const http = new TurnkeyClient({ baseUrl: boot.coordinatorUrl }, new ApiKeyStamper({ apiPublicKey: boot.apiPublicKey, apiPrivateKey: boot.apiPrivateKey }));
const api = new Turnkey({ apiBaseUrl: boot.coordinatorUrl, apiPublicKey: boot.apiPublicKey, apiPrivateKey: boot.apiPrivateKey, defaultOrganizationId: org }).apiClient();
const refusedFrom = (addr) => (err) => { assert.match(String(err.message), new RegExp(`requests from IP address ${addr.replaceAll(".", "\\.")} are not allowed`)); return true; };

test("an API key's list overrides the organization's; a spoofed X-Forwarded-For is not believed; no one locks themselves out", async () => {
  const pair = generateP256KeyPair();
  await api.createUsers({ users: [{ userName: `allowlisted-${Date.now()}`, apiKeys: [{ apiKeyName: "bot", publicKey: pair.publicKey, curveType: "API_KEY_CURVE_P256" }],
    authenticators: [], oauthProviders: [], userTags: [] }] });
  const botStamper = new ApiKeyStamper({ apiPublicKey: pair.publicKey, apiPrivateKey: pair.privateKey });
  const bot = new TurnkeyClient({ baseUrl: boot.coordinatorUrl }, botStamper);
  try {
    await http.setIpAllowlist({ type: "ACTIVITY_TYPE_SET_IP_ALLOWLIST", timestampMs: String(Date.now()), organizationId: org,
      parameters: { publicKey: pair.publicKey, rules: [{ cidr: "203.0.113.0/24", label: "office" }] } });
    await assert.rejects(bot.getWhoami({ organizationId: org }), refusedFrom("127.0.0.1"));

    // The bot claims an address its list allows; the connection is from loopback, no trusted proxy: refused.
    const body = JSON.stringify({ organizationId: org });
    const stamp = await botStamper.stamp(body);
    const spoofed = await fetch(`${boot.coordinatorUrl}/public/v1/query/whoami`, { method: "POST",
      headers: { [stamp.stampHeaderName]: stamp.stampHeaderValue, "Content-Type": "application/json", "X-Forwarded-For": "203.0.113.5" }, body });
    assert.equal(spoofed.status, 403);
    assert.match((await spoofed.json()).message, /127\.0\.0\.1/);

    const keyList = await http.getIpAllowlist({ organizationId: org, publicKey: pair.publicKey });
    assert.equal(keyList.allowlist.rules[0].cidr, "203.0.113.0/24");
    assert.equal(keyList.allowlist.publicKey, pair.publicKey);

    // The organization's list allows loopback: the root user is in, the bot, under its own list, still out.
    await api.setIpAllowlist({ enabled: true, rules: [{ cidr: "127.0.0.0/8", label: "loopback" }, { cidr: "::1/128", label: "loopback v6" }] });
    const orgList = await api.getIpAllowlist({});
    assert.equal(orgList.allowlist.enabled, true);
    assert.equal(orgList.allowlist.onEvaluationError, "DENY");
    assert.deepEqual(orgList.allowlist.rules.map((r) => r.cidr), ["127.0.0.0/8", "::1/128"]);
    await http.getWhoami({ organizationId: org });
    await assert.rejects(bot.getWhoami({ organizationId: org }), refusedFrom("127.0.0.1"));
    await http.removeIpAllowlist({ type: "ACTIVITY_TYPE_REMOVE_IP_ALLOWLIST", timestampMs: String(Date.now()), organizationId: org,
      parameters: { publicKey: pair.publicKey } });
    assert.equal((await bot.getWhoami({ organizationId: org })).organizationId, org);

    // A list that would refuse the request setting it is refused.
    await assert.rejects(api.setIpAllowlist({ enabled: true, rules: [{ cidr: "10.0.0.0/8" }] }),
      (err) => { assert.match(String(err.message), /would lock out the request making it/); return true; });
    await assert.rejects(api.setIpAllowlist({ rules: [{ cidr: "10.0.0.300/8" }] }),
      (err) => { assert.match(String(err.message), /is not a CIDR block/); return true; });
  } finally {
    await api.removeIpAllowlist({}).catch(() => {});
    await api.removeIpAllowlist({ publicKey: pair.publicKey }).catch(() => {});
  }
  const none = await http.getIpAllowlist({ organizationId: org });
  assert.deepEqual(none.allowlist.rules, []);
  assert.equal(none.allowlist.enabled, false);
});
