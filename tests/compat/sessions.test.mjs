// Sessions through the official SDKs: a read-write session's credential bundle opened by @turnkey/crypto and its key
// stamping with @turnkey/api-key-stamper; a read-only session sent as X-Session, as @turnkey/sdk-browser sends it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { TurnkeyClient } from "@turnkey/http";
import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { generateP256KeyPair, decryptCredentialBundle, getPublicKey } from "@turnkey/crypto";

const boot = JSON.parse(readFileSync(join(process.env.SIGIL_DIR, "bootstrap.json"), "utf8"));
const organizationId = boot.organizationId;
const http = new TurnkeyClient({ baseUrl: boot.coordinatorUrl },
  new ApiKeyStamper({ apiPublicKey: boot.apiPublicKey, apiPrivateKey: boot.apiPrivateKey }));

test("createReadWriteSession: @turnkey/crypto opens the credential bundle, and its key stamps as the user", async () => {
  const target = generateP256KeyPair();
  const res = await http.createReadWriteSession({
    type: "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2", timestampMs: String(Date.now()), organizationId,
    parameters: { targetPublicKey: target.publicKeyUncompressed, expirationSeconds: "900" },
  });
  const result = res.activity.result.createReadWriteSessionResultV2;
  assert.equal(result.userId, boot.userId);
  const privateKey = decryptCredentialBundle(result.credentialBundle, target.privateKey);
  const publicKey = Buffer.from(getPublicKey(Buffer.from(privateKey, "hex"), true)).toString("hex");
  const asSession = new TurnkeyClient({ baseUrl: boot.coordinatorUrl }, new ApiKeyStamper({ apiPublicKey: publicKey, apiPrivateKey: privateKey }));
  const who = await asSession.getWhoami({ organizationId });
  assert.equal(who.userId, boot.userId);
});

test("createReadOnlySession: the session answers queries sent with X-Session, and refuses activities", async () => {
  const res = await http.createReadOnlySession({
    type: "ACTIVITY_TYPE_CREATE_READ_ONLY_SESSION", timestampMs: String(Date.now()), organizationId, parameters: {},
  });
  const { session, sessionExpiry } = res.activity.result.createReadOnlySessionResult;
  assert.ok(Number(sessionExpiry) > Date.now() / 1000);
  const post = (path, body) => fetch(boot.coordinatorUrl + path, { method: "POST", headers: { "Content-Type": "application/json", "X-Session": session }, body: JSON.stringify(body) });
  const who = await post("/public/v1/query/whoami", { organizationId });
  assert.equal(who.status, 200);
  assert.equal((await who.json()).userId, boot.userId);
  const write = await post("/public/v1/submit/update_organization_name", { type: "ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME", timestampMs: String(Date.now()), organizationId, parameters: { organizationName: "nope" } });
  assert.equal(write.status, 401);
});
