// OTP login with the official SDKs against `sigil up`: the code is read from the dev outbox (bootstrap.json
// devOutboxUrl), and the session key the login registers then stamps getWhoami.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createPrivateKey, sign } from "node:crypto";
import { TurnkeyClient } from "@turnkey/http";
import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { Turnkey } from "@turnkey/sdk-server";
import {
  generateP256KeyPair,
  encryptOtpCodeToBundle,
  verifyOtpVerificationToken,
  verifySessionJwtSignature,
} from "@turnkey/crypto";

const boot = JSON.parse(readFileSync(join(process.env.SIGIL_DIR, "bootstrap.json"), "utf8"));
const baseUrl = boot.coordinatorUrl;
const rootStamper = new ApiKeyStamper({ apiPublicKey: boot.apiPublicKey, apiPrivateKey: boot.apiPrivateKey });
const http = new TurnkeyClient({ baseUrl }, rootStamper);

// tokenKeyHex is the coordinator's token key (uncompressed P-256 hex) from its JWKS: it signs verification tokens,
// sessions and OTP target bundles, and tests pin it where the SDKs pin the commercial service's key.
async function tokenKeyHex() {
  const res = await fetch(`${baseUrl}/.well-known/jwks.json`);
  assert.equal(res.status, 200);
  const { keys } = await res.json();
  assert.equal(keys[0].kty, "EC");
  const hex = (b64url) => Buffer.from(b64url, "base64url").toString("hex").padStart(64, "0");
  return "04" + hex(keys[0].x) + hex(keys[0].y);
}

// codeFor reads the newest code sent to a contact from the dev outbox.
async function codeFor(contact) {
  assert.ok(boot.devOutboxUrl, "bootstrap.json names devOutboxUrl");
  const res = await fetch(boot.devOutboxUrl);
  assert.equal(res.status, 200);
  const messages = await res.json();
  const mine = messages.filter((m) => m.to === contact);
  assert.ok(mine.length > 0, `a message to ${contact} in the outbox`);
  const last = mine[mine.length - 1];
  for (const k of ["to", "from", "subject", "text", "html", "sentAt"]) assert.ok(k in last, `outbox entry has ${k}`);
  const m = /verification code is ([0-9A-Z]+)/.exec(last.subject);
  assert.ok(m, `code in subject ${last.subject}`);
  return m[1];
}

// subOrgFor creates a sub-organization whose root user has the e-mail address, as a signup would.
async function subOrgFor(email) {
  const res = await http.createSubOrganization({
    type: "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7",
    timestampMs: String(Date.now()),
    organizationId: boot.organizationId,
    parameters: {
      subOrganizationName: `otp ${email}`,
      rootQuorumThreshold: 1,
      rootUsers: [{ userName: email, userEmail: email, apiKeys: [], authenticators: [], oauthProviders: [] }],
    },
  });
  const r = res.activity.result.createSubOrganizationResultV7;
  return { subOrgId: r.subOrganizationId, userId: r.rootUserIds[0] };
}

// loginSignature is the clientSignature @turnkey/core makes: P-256 over SHA-256 of the login usage, raw r||s hex,
// by the key the verification token binds.
function loginSignature(pair, verificationToken, sessionPublicKey) {
  const claims = JSON.parse(Buffer.from(verificationToken.split(".")[1], "base64url").toString());
  const message = JSON.stringify({ login: { publicKey: sessionPublicKey }, tokenId: claims.id, type: "USAGE_TYPE_LOGIN" });
  const pub = Buffer.from(pair.publicKeyUncompressed, "hex");
  const key = createPrivateKey({
    format: "jwk",
    key: {
      kty: "EC",
      crv: "P-256",
      d: Buffer.from(pair.privateKey, "hex").toString("base64url"),
      x: pub.subarray(1, 33).toString("base64url"),
      y: pub.subarray(33).toString("base64url"),
    },
  });
  const signature = sign("sha256", Buffer.from(message), { key, dsaEncoding: "ieee-p1363" }).toString("hex");
  return { publicKey: pair.publicKey, scheme: "CLIENT_SIGNATURE_SCHEME_API_P256", message, signature };
}

async function whoamiWithSession(session, subOrgId) {
  const asSession = new TurnkeyClient(
    { baseUrl },
    new ApiKeyStamper({ apiPublicKey: session.publicKey, apiPrivateKey: session.privateKey }),
  );
  return asSession.getWhoami({ organizationId: subOrgId });
}

test("@turnkey/http initOtp V2, code from the dev outbox, verifyOtp, otpLogin, getWhoami with the session key", async () => {
  const email = `otp-http-${Date.now()}@example.com`;
  const { subOrgId, userId } = await subOrgFor(email);
  const ts = () => String(Date.now());

  const init = await http.initOtp({
    type: "ACTIVITY_TYPE_INIT_OTP_V2",
    timestampMs: ts(),
    organizationId: boot.organizationId,
    parameters: { otpType: "OTP_TYPE_EMAIL", contact: email, appName: "Sigil compat", otpLength: 6, alphanumeric: false },
  });
  assert.equal(init.activity.status, "ACTIVITY_STATUS_COMPLETED");
  const { otpId } = init.activity.result.initOtpResult;
  const code = await codeFor(email);
  assert.match(code, /^\d{6}$/);

  const clientKey = generateP256KeyPair();
  const verify = await http.verifyOtp({
    type: "ACTIVITY_TYPE_VERIFY_OTP",
    timestampMs: ts(),
    organizationId: boot.organizationId,
    parameters: { otpId, otpCode: code, publicKey: clientKey.publicKey },
  });
  const { verificationToken } = verify.activity.result.verifyOtpResult;
  const claims = await verifyOtpVerificationToken(verificationToken, await tokenKeyHex());
  assert.equal(claims.contact, email);
  assert.equal(claims.verification_type, "OTP_TYPE_EMAIL");
  assert.equal(claims.public_key, clientKey.publicKey);

  const session = generateP256KeyPair();
  const login = await http.otpLogin({
    type: "ACTIVITY_TYPE_OTP_LOGIN",
    timestampMs: ts(),
    organizationId: subOrgId,
    parameters: {
      verificationToken,
      publicKey: session.publicKey,
      clientSignature: loginSignature(clientKey, verificationToken, session.publicKey),
    },
  });
  const jwt = login.activity.result.otpLoginResult.session;
  assert.equal(await verifySessionJwtSignature(jwt, await tokenKeyHex()), true);

  const who = await whoamiWithSession(session, subOrgId);
  assert.equal(who.userId, userId);
  assert.equal(who.organizationId, subOrgId);

  await assert.rejects(
    http.otpLogin({
      type: "ACTIVITY_TYPE_OTP_LOGIN",
      timestampMs: ts(),
      organizationId: subOrgId,
      parameters: { verificationToken, publicKey: session.publicKey, clientSignature: loginSignature(clientKey, verificationToken, session.publicKey) },
    }),
    /already been used/,
  );
});

test("@turnkey/sdk-server initOtp, verifyOtp, otpLogin with their default versions (V3, V2, V2)", async () => {
  const email = `otp-sdk-${Date.now()}@example.com`;
  const { subOrgId, userId } = await subOrgFor(email);
  const turnkey = new Turnkey({
    apiBaseUrl: baseUrl,
    apiPublicKey: boot.apiPublicKey,
    apiPrivateKey: boot.apiPrivateKey,
    defaultOrganizationId: boot.organizationId,
  });
  const api = turnkey.apiClient();

  const init = await api.initOtp({ otpType: "OTP_TYPE_EMAIL", contact: email, appName: "Sigil compat" });
  assert.equal(init.activity.type, "ACTIVITY_TYPE_INIT_OTP_V3");
  assert.ok(init.otpEncryptionTargetBundle);
  const code = await codeFor(email);
  assert.match(code, /^[0-9A-HJKMNP-TV-Z]{9}$/);

  const clientKey = generateP256KeyPair();
  const encryptedOtpBundle = await encryptOtpCodeToBundle(code, init.otpEncryptionTargetBundle, clientKey.publicKey, await tokenKeyHex());
  const verify = await api.verifyOtp({ otpId: init.otpId, encryptedOtpBundle });
  assert.equal(verify.activity.type, "ACTIVITY_TYPE_VERIFY_OTP_V2");

  const session = generateP256KeyPair();
  const login = await api.otpLogin({
    organizationId: subOrgId,
    verificationToken: verify.verificationToken,
    publicKey: session.publicKey,
    clientSignature: loginSignature(clientKey, verify.verificationToken, session.publicKey),
  });
  assert.equal(login.activity.type, "ACTIVITY_TYPE_OTP_LOGIN_V2");
  const payload = JSON.parse(Buffer.from(login.session.split(".")[1], "base64url").toString());
  assert.equal(payload.user_id, userId);
  assert.equal(payload.public_key, session.publicKey);

  const who = await whoamiWithSession(session, subOrgId);
  assert.equal(who.userId, userId);
});
