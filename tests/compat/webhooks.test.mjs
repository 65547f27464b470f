// Webhooks through the official SDKs: an endpoint created, listed and updated with @turnkey/sdk-server, and the
// activity update it receives verified with @turnkey/crypto's verifyTurnkeyWebhookSignature against the coordinator's
// webhook JWKS. The dev stack lets webhooks go to a local http receiver.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { Turnkey } from "@turnkey/sdk-server";
import { verifyTurnkeyWebhookSignature } from "@turnkey/crypto";

const boot = JSON.parse(readFileSync(join(process.env.SIGIL_DIR, "bootstrap.json"), "utf8"));
const organizationId = boot.organizationId;

// receive starts a local receiver; next() resolves with the first delivery that satisfies want.
function receive() {
  const arrived = [];
  let waiter = null;
  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      arrived.push({ headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(200).end();
      waiter?.();
    });
  });
  const next = async (want) => {
    for (;;) {
      const found = arrived.find(want);
      if (found) return found;
      await new Promise((resolve) => { waiter = resolve; });
    }
  };
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ server, next, url: `http://127.0.0.1:${server.address().port}/hook` })));
}

test("@turnkey/sdk-server createWebhookEndpoint, and a delivery @turnkey/crypto verifies", async () => {
  const turnkey = new Turnkey({ apiBaseUrl: boot.coordinatorUrl, apiPublicKey: boot.apiPublicKey, apiPrivateKey: boot.apiPrivateKey, defaultOrganizationId: organizationId });
  const api = turnkey.apiClient();
  const rx = await receive();
  try {
    const created = await api.createWebhookEndpoint({
      url: rx.url, name: "compat", subscriptions: [{ eventType: "ACTIVITY_UPDATES", filtersJson: JSON.stringify({ activityTypes: ["ACTIVITY_TYPE_UPDATE_WEBHOOK_ENDPOINT"] }) }],
    });
    assert.match(created.endpointId, /^[0-9a-f-]{36}$/);
    assert.equal(created.webhookEndpoint.url, rx.url);
    const list = await api.listWebhookEndpoints({ organizationId });
    assert.ok(list.webhookEndpoints.some((e) => e.endpointId === created.endpointId && e.name === "compat"));

    // Turnkey's quickstart triggers a harmless event by renaming the endpoint.
    const updated = await api.updateWebhookEndpoint({ endpointId: created.endpointId, name: "compat 2" });
    assert.equal(updated.webhookEndpoint.name, "compat 2");
    const activityId = updated.activity?.id;
    const delivery = await rx.next((d) => JSON.parse(d.body).type === "ACTIVITY_TYPE_UPDATE_WEBHOOK_ENDPOINT" && (!activityId || JSON.parse(d.body).id === activityId));

    const jwks = await (await fetch(`${boot.coordinatorUrl}/public/v1/discovery/webhooks/jwks`)).json();
    const verificationKeys = jwks.keys.map((k) => ({ keyId: k.kid, publicKey: Buffer.from(k.x, "base64url").toString("hex"), algorithm: "ed25519" }));
    const result = verifyTurnkeyWebhookSignature({ headers: delivery.headers, body: new Uint8Array(delivery.body), verificationKeys, maxTimestampAgeMs: 300000 });
    assert.equal(result.ok, true, JSON.stringify(result));
    assert.equal(delivery.headers["x-turnkey-event-type"], "ACTIVITY_UPDATES");
    assert.equal(delivery.headers["x-turnkey-organization-id"], organizationId);
    assert.equal(JSON.parse(delivery.body).status, "ACTIVITY_STATUS_COMPLETED");

    await api.deleteWebhookEndpoint({ endpointId: created.endpointId });
    const after = await api.listWebhookEndpoints({ organizationId });
    assert.ok(!after.webhookEndpoints.some((e) => e.endpointId === created.endpointId));
  } finally {
    rx.server.close();
  }
});
