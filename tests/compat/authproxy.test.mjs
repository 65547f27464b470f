// The auth proxy with the official @turnkey/core client, configured with authProxyUrl and authProxyConfigId pointing
// at `sigil up` (bootstrap.json): e-mail OTP sign-up and login through the proxy, codes read from the dev outbox, and
// the session key then stamps getWhoami.
//
// @turnkey/core's newest OTP flow (TurnkeyClient.verifyOtp / completeOtp) calls @turnkey/crypto's
// encryptOtpCodeToBundle without its dangerouslyOverrideSignerPublicKey argument, so it accepts only bundles signed by
// Turnkey's production TLS-fetcher key, and the client offers no setting to change that. That step is the only one
// this test cannot run through the client's high-level methods: it runs the same proxy calls the newest flow makes
// (proxyInitOtpV2, proxyVerifyOtpV2, proxyGetAccount, proxySignupV2) with the bundle encrypted by @turnkey/crypto
// and Sigil's key pinned, and its legacy calls (proxyInitOtp, proxyVerifyOtp, proxySignup, proxyOtpLogin) end to end.
// The last test shows the refusal, so a release of @turnkey/core that adds the override is noticed. Apps map
// @turnkey/crypto to js/sigil-turnkey-crypto, which binds the key (wallet-kit.test.mjs).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createPrivateKey, sign } from "node:crypto";
import { TurnkeyClient as CoreClient, getAuthProxyConfig, getClientSignatureMessageForSignup } from "@turnkey/core";
import { TurnkeyClient } from "@turnkey/http";
import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { generateP256KeyPair, encryptOtpCodeToBundle, verifySessionJwtSignature } from "@turnkey/crypto";

const boot = JSON.parse(readFileSync(join(process.env.SIGIL_DIR, "bootstrap.json"), "utf8"));
assert.ok(boot.authProxyUrl && boot.authProxyConfigId, "bootstrap.json names authProxyUrl and authProxyConfigId");

function coreClient() {
  const core = new CoreClient({
    apiBaseUrl: boot.coordinatorUrl,
    authProxyUrl: boot.authProxyUrl,
    authProxyConfigId: boot.authProxyConfigId,
    organizationId: boot.organizationId,
  });
  // init() sets up browser storage (IndexedDB), which Node lacks; the HTTP client it makes needs none.
  return { core, http: core.createHttpClient() };
}

async function tokenKeyHex() {
  const { keys } = await (await fetch(`${boot.coordinatorUrl}/.well-known/jwks.json`)).json();
  const hex = (b64url) => Buffer.from(b64url, "base64url").toString("hex").padStart(64, "0");
  return "04" + hex(keys[0].x) + hex(keys[0].y);
}

async function codeFor(contact) {
  const messages = await (await fetch(boot.devOutboxUrl)).json();
  const mine = messages.filter((m) => m.to === contact);
  assert.ok(mine.length > 0, `a message to ${contact} in the dev outbox`);
  const m = /verification code is ([0-9A-Z]+)/.exec(mine[mine.length - 1].subject);
  assert.ok(m, "a code in the subject");
  return m[1];
}

// signRaw signs a message as @turnkey/core's clientSignature helpers do: P-256, SHA-256, raw r||s hex.
function signRaw(pair, message) {
  const pub = Buffer.from(pair.publicKeyUncompressed, "hex");
  const key = createPrivateKey({ format: "jwk", key: { kty: "EC", crv: "P-256", d: Buffer.from(pair.privateKey, "hex").toString("base64url"),
    x: pub.subarray(1, 33).toString("base64url"), y: pub.subarray(33).toString("base64url") } });
  return sign("sha256", Buffer.from(message), { key, dsaEncoding: "ieee-p1363" }).toString("hex");
}

function loginSignature(pair, verificationToken, sessionPublicKey) {
  const claims = JSON.parse(Buffer.from(verificationToken.split(".")[1], "base64url").toString());
  const message = JSON.stringify({ login: { publicKey: sessionPublicKey }, tokenId: claims.id, type: "USAGE_TYPE_LOGIN" });
  return { publicKey: pair.publicKey, scheme: "CLIENT_SIGNATURE_SCHEME_API_P256", message, signature: signRaw(pair, message) };
}

async function whoami(session, pair) {
  const payload = JSON.parse(Buffer.from(session.split(".")[1], "base64url").toString());
  assert.equal(await verifySessionJwtSignature(session, await tokenKeyHex()), true);
  const client = new TurnkeyClient({ baseUrl: boot.coordinatorUrl }, new ApiKeyStamper({ apiPublicKey: pair.publicKey, apiPrivateKey: pair.privateKey }));
  const who = await client.getWhoami({ organizationId: payload.organization_id });
  assert.equal(who.userId, payload.user_id);
  return who;
}

test("@turnkey/core reads the wallet kit configuration from the proxy", async () => {
  const cfg = await getAuthProxyConfig(boot.authProxyConfigId, boot.authProxyUrl);
  assert.equal(cfg.organizationId, boot.organizationId);
  assert.ok(cfg.enabledProviders.includes("email"));
  assert.equal(cfg.sessionExpirationSeconds, "900");
  const { http } = coreClient();
  assert.deepEqual(await http.proxyGetWalletKitConfig({}), cfg);
});

test("@turnkey/core legacy OTP calls through the proxy: signup, otp_init, code from the outbox, otp_verify, otp_login, whoami", async () => {
  const { http } = coreClient();
  const email = `proxy-legacy-${Date.now()}@example.com`;
  const device = generateP256KeyPair();
  const signup = await http.proxySignup({
    userEmail: email,
    apiKeys: [{ apiKeyName: "device", publicKey: device.publicKey, curveType: "API_KEY_CURVE_P256" }],
    authenticators: [],
    oauthProviders: [],
  });
  assert.ok(signup.organizationId && signup.userId);

  const { otpId } = await http.proxyInitOtp({ otpType: "OTP_TYPE_EMAIL", contact: email });
  const clientKey = generateP256KeyPair();
  const { verificationToken } = await http.proxyVerifyOtp({ otpId, otpCode: await codeFor(email), publicKey: clientKey.publicKey });
  const session = generateP256KeyPair();
  const login = await http.proxyOtpLogin({ verificationToken, publicKey: session.publicKey,
    clientSignature: loginSignature(clientKey, verificationToken, session.publicKey) });
  const who = await whoami(login.session, session);
  assert.equal(who.organizationId, signup.organizationId);
  assert.equal(who.userId, signup.userId);
});

test("@turnkey/core current OTP calls through the proxy: otp_init_v2, otp_verify_v2, account, signup_v2, otp_login_v2", async () => {
  const { http } = coreClient();
  const email = `proxy-v2-${Date.now()}@example.com`;
  const init = await http.proxyInitOtpV2({ otpType: "OTP_TYPE_EMAIL", contact: email });
  const clientKey = generateP256KeyPair();
  // The client's verifyOtp would call encryptOtpCodeToBundle without the signer override (see the top comment).
  const encryptedOtpBundle = await encryptOtpCodeToBundle(await codeFor(email), init.otpEncryptionTargetBundle, clientKey.publicKey, await tokenKeyHex());
  const { verificationToken } = await http.proxyVerifyOtpV2({ otpId: init.otpId, encryptedOtpBundle });

  const lookup = { filterType: "EMAIL", filterValue: email, verificationToken };
  assert.equal((await http.proxyGetAccount(lookup)).organizationId, undefined);

  const apiKeys = [{ apiKeyName: "device", publicKey: clientKey.publicKey, curveType: "API_KEY_CURVE_P256" }];
  const { message } = getClientSignatureMessageForSignup({ verificationToken, email, apiKeys, authenticators: [], oauthProviders: [] });
  const signup = await http.proxySignupV2({
    userEmail: email, verificationToken, apiKeys, authenticators: [], oauthProviders: [],
    clientSignature: { publicKey: clientKey.publicKey, scheme: "CLIENT_SIGNATURE_SCHEME_API_P256", message, signature: signRaw(clientKey, message) },
  });
  assert.equal((await http.proxyGetAccount(lookup)).organizationId, signup.organizationId);

  const session = generateP256KeyPair();
  const login = await http.proxyOtpLoginV2({ verificationToken, publicKey: session.publicKey, organizationId: signup.organizationId,
    clientSignature: loginSignature(clientKey, verificationToken, session.publicKey) });
  assert.equal((await whoami(login.session, session)).organizationId, signup.organizationId);
});

test("the proxy refuses what its configuration does not allow, in the coordinator's error shape", async () => {
  const { http } = coreClient();
  await assert.rejects(http.proxyInitOtp({ otpType: "OTP_TYPE_SMS", contact: "+15555550100" }), (err) => {
    assert.match(err.message, /SMS OTP is not enabled/);
    return true;
  });
  const res = await fetch(`${boot.authProxyUrl}/v1/otp_init`, { method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ otpType: "OTP_TYPE_EMAIL", contact: "a@example.com" }) });
  assert.equal(res.status, 400);
  const body = await res.json();
  assert.equal(body.code, 3);
  assert.match(body.message, /X-Auth-Proxy-Config-Id header is required/);
  assert.equal(body.details[0].turnkeyErrorCode, "REQUEST_INVALID");
});

test("@turnkey/core verifyOtp pins Turnkey's production signer and refuses Sigil's OTP bundle (the known blocker)", async () => {
  const { core, http } = coreClient();
  core.httpClient = http;
  const email = `proxy-pinned-${Date.now()}@example.com`;
  const init = await http.proxyInitOtpV2({ otpType: "OTP_TYPE_EMAIL", contact: email });
  const clientKey = generateP256KeyPair();
  await assert.rejects(
    core.verifyOtp({ otpId: init.otpId, otpCode: await codeFor(email), otpEncryptionTargetBundle: init.otpEncryptionTargetBundle, publicKey: clientKey.publicKey }),
    (err) => {
      const text = `${err.message} ${err.cause?.message ?? ""}`;
      assert.match(text, /does not match signer key from bundle/);
      return true;
    },
  );
});
