// The rest of the login and organization surface through the official SDKs: the legacy logins older SDK versions
// use (EMAIL_AUTH, INIT_OTP_AUTH/OTP_AUTH, OAUTH) and e-mail recovery (INIT_USER_EMAIL_RECOVERY/RECOVER_USER), each
// ending in a credential bundle that @turnkey/crypto opens; invitations; and MFA policies, with @turnkey/core's
// onMfaRequired completing an activity held for a second factor.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createHash, generateKeyPairSync, randomBytes } from "node:crypto";
import { TurnkeyClient } from "@turnkey/http";
import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { Turnkey } from "@turnkey/sdk-server";
import { generateP256KeyPair, decryptCredentialBundle, getPublicKey } from "@turnkey/crypto";
import { TurnkeySDKClientBase } from "@turnkey/core/dist/__generated__/sdk-client-base.js";

const boot = JSON.parse(readFileSync(join(process.env.SIGIL_DIR, "bootstrap.json"), "utf8"));
const baseUrl = boot.coordinatorUrl;
const organizationId = boot.organizationId;
const rootStamper = new ApiKeyStamper({ apiPublicKey: boot.apiPublicKey, apiPrivateKey: boot.apiPrivateKey });
const http = new TurnkeyClient({ baseUrl }, rootStamper);
const sdk = new Turnkey({ apiBaseUrl: baseUrl, apiPublicKey: boot.apiPublicKey, apiPrivateKey: boot.apiPrivateKey, defaultOrganizationId: organizationId }).apiClient();
const provider = process.env.SIGIL_OIDC_PROVIDER_URL;
const now = () => String(Date.now());
const unique = () => `${Date.now()}-${randomBytes(3).toString("hex")}`;

// outboxTo lists the dev outbox's messages to an address, oldest first.
async function outboxTo(address) {
  const messages = await (await fetch(boot.devOutboxUrl)).json();
  return messages.filter((m) => m.to === address);
}

// bundleFor reads the credential bundle of the newest message to the address.
async function bundleFor(address) {
  const mine = await outboxTo(address);
  assert.ok(mine.length > 0, `a message to ${address}`);
  const m = /^([1-9A-HJ-NP-Za-km-z]{80,})$/m.exec(mine[mine.length - 1].text);
  assert.ok(m, "a credential bundle in the message");
  return m[1];
}

async function codeFor(address) {
  const mine = await outboxTo(address);
  const m = /verification code is ([0-9A-Z]+)/.exec(mine[mine.length - 1].subject);
  assert.ok(m, "a code in the subject");
  return m[1];
}

// clientFor opens a credential bundle with the target key and returns an @turnkey/http client stamping with it.
function clientFor(bundle, target) {
  const privateKey = decryptCredentialBundle(bundle, target.privateKey);
  const publicKey = Buffer.from(getPublicKey(Buffer.from(privateKey, "hex"), true)).toString("hex");
  return new TurnkeyClient({ baseUrl }, new ApiKeyStamper({ apiPublicKey: publicKey, apiPrivateKey: privateKey }));
}

async function subOrg(user) {
  const res = await http.createSubOrganization({
    type: "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7", timestampMs: now(), organizationId,
    parameters: { subOrganizationName: `login surface ${unique()}`, rootQuorumThreshold: 1,
      rootUsers: [{ apiKeys: [], authenticators: [], oauthProviders: [], ...user }] },
  });
  const { subOrganizationId, rootUserIds } = res.activity.result.createSubOrganizationResultV7;
  return { subOrgId: subOrganizationId, userId: rootUserIds[0] };
}

test("@turnkey/sdk-server emailAuth mails a credential bundle that @turnkey/crypto opens; the key stamps as the user", async () => {
  const email = `email-auth-${unique()}@example.com`;
  const { subOrgId, userId } = await subOrg({ userName: email, userEmail: email });
  const target = generateP256KeyPair();
  const res = await sdk.emailAuth({ organizationId: subOrgId, email, targetPublicKey: target.publicKeyUncompressed,
    expirationSeconds: "600", emailCustomization: { appName: "Compat", magicLinkTemplate: "https://app.example/email-auth?bundle=%s" } });
  assert.equal(res.activity.type, "ACTIVITY_TYPE_EMAIL_AUTH_V3");
  assert.equal(res.userId, userId);
  const bundle = await bundleFor(email);
  const [message] = (await outboxTo(email)).slice(-1);
  assert.ok(message.text.includes(`https://app.example/email-auth?bundle=${bundle}`), "the magic link carries the bundle");
  const asUser = clientFor(bundle, target);
  assert.equal((await asUser.getWhoami({ organizationId: subOrgId })).userId, userId);
  const key = await http.getApiKey({ organizationId: subOrgId, apiKeyId: res.apiKeyId });
  assert.equal(key.apiKey.credential.type, "CREDENTIAL_TYPE_EMAIL_AUTH_KEY_P256");
  await assert.rejects(sdk.emailAuth({ organizationId: subOrgId, email: `nobody-${unique()}@example.com`,
    targetPublicKey: target.publicKeyUncompressed, emailCustomization: { appName: "Compat" } }), /no user/);
});

test("@turnkey/sdk-server initOtpAuth, then @turnkey/http otpAuth: a code from the outbox for a credential bundle", async () => {
  const email = `otp-auth-${unique()}@example.com`;
  const { subOrgId, userId } = await subOrg({ userName: email, userEmail: email });
  const init = await sdk.initOtpAuth({ organizationId: subOrgId, otpType: "OTP_TYPE_EMAIL", contact: email, appName: "Compat" });
  assert.equal(init.activity.type, "ACTIVITY_TYPE_INIT_OTP_AUTH_V3");
  const target = generateP256KeyPair();
  const res = await http.otpAuth({ type: "ACTIVITY_TYPE_OTP_AUTH", timestampMs: now(), organizationId: subOrgId,
    parameters: { otpId: init.otpId, otpCode: await codeFor(email), targetPublicKey: target.publicKeyUncompressed } });
  const result = res.activity.result.otpAuthResult;
  assert.equal(result.userId, userId);
  assert.notEqual(res.activity.intent.otpAuthIntent.otpCode, await codeFor(email), "the record does not keep the code");
  assert.equal((await clientFor(result.credentialBundle, target).getWhoami({ organizationId: subOrgId })).userId, userId);
  await assert.rejects(http.otpAuth({ type: "ACTIVITY_TYPE_OTP_AUTH", timestampMs: now(), organizationId: subOrgId,
    parameters: { otpId: init.otpId, otpCode: await codeFor(email), targetPublicKey: target.publicKeyUncompressed } }), /OTP|code/);
});

// idToken runs the local provider's authorization-code flow and returns an ID token for subject with the nonce.
async function idToken(subject, nonce) {
  const clientId = "sigil-test-client";
  const redirectUri = "https://app.example/oauth/callback";
  const verifier = randomBytes(32).toString("base64url");
  const auth = new URL(`${provider}/authorize`);
  for (const [k, v] of Object.entries({ response_type: "code", client_id: clientId, redirect_uri: redirectUri,
    code_challenge: createHash("sha256").update(verifier).digest("base64url"), code_challenge_method: "S256", nonce,
    login_hint: subject, state: "s" })) auth.searchParams.set(k, v);
  const code = new URL((await fetch(auth, { redirect: "manual" })).headers.get("location")).searchParams.get("code");
  const res = await fetch(`${provider}/token`, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded",
    Authorization: "Basic " + Buffer.from(`${clientId}:sigil-test-client-secret`).toString("base64") },
    body: new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: redirectUri, code_verifier: verifier }) });
  return (await res.json()).id_token;
}

test("@turnkey/http oauth: an ID token whose nonce binds the target key, for a credential bundle", { skip: !provider && "SIGIL_OIDC_PROVIDER_URL is not set" }, async () => {
  const subject = `legacy-oauth-${unique()}`;
  const { subOrgId, userId } = await subOrg({ userName: subject, oauthProviders: [{ providerName: "Local", oidcToken: await idToken(subject, "signup") }] });
  const target = generateP256KeyPair();
  const sha = (s) => createHash("sha256").update(s).digest("hex");
  const res = await http.oauth({ type: "ACTIVITY_TYPE_OAUTH", timestampMs: now(), organizationId: subOrgId,
    parameters: { oidcToken: await idToken(subject, sha(target.publicKeyUncompressed)), targetPublicKey: target.publicKeyUncompressed } });
  const result = res.activity.result.oauthResult;
  assert.equal(result.userId, userId);
  assert.equal((await clientFor(result.credentialBundle, target).getWhoami({ organizationId: subOrgId })).userId, userId);
  await assert.rejects(http.oauth({ type: "ACTIVITY_TYPE_OAUTH", timestampMs: now(), organizationId: subOrgId,
    parameters: { oidcToken: await idToken(subject, sha("another key")), targetPublicKey: target.publicKeyUncompressed } }), /nonce/);
});

// cbor encodes what a WebAuthn attestation object holds: maps (Map), byte strings, text and integers.
function cbor(v) {
  const head = (major, n) => Buffer.from(n < 24 ? [(major << 5) | n] : n < 256 ? [(major << 5) | 24, n] : [(major << 5) | 25, n >> 8, n & 255]);
  if (typeof v === "number") return v >= 0 ? head(0, v) : head(1, -1 - v);
  if (typeof v === "string") return Buffer.concat([head(3, Buffer.byteLength(v)), Buffer.from(v)]);
  if (v instanceof Uint8Array) return Buffer.concat([head(2, v.length), Buffer.from(v)]);
  return Buffer.concat([head(5, v.size), ...[...v].flatMap(([k, x]) => [cbor(k), cbor(x)])]);
}

// passkeyRegistration is what a browser's navigator.credentials.create returns for a new P-256 passkey ("none"
// attestation), as @turnkey/http's authenticator parameters carry it.
function passkeyRegistration(challenge) {
  const { publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const jwk = publicKey.export({ format: "jwk" });
  const coseKey = cbor(new Map([[1, 2], [3, -7], [-1, 1], [-2, Buffer.from(jwk.x, "base64url")], [-3, Buffer.from(jwk.y, "base64url")]]));
  const credentialId = randomBytes(16);
  const authData = Buffer.concat([createHash("sha256").update("app.example").digest(), Buffer.from([0x41, 0, 0, 0, 0]),
    Buffer.alloc(16), Buffer.from([0, credentialId.length]), credentialId, coseKey]);
  const clientData = JSON.stringify({ type: "webauthn.create", challenge, origin: "https://app.example" });
  return {
    authenticatorName: "recovered passkey", challenge,
    attestation: { credentialId: credentialId.toString("base64url"), clientDataJson: Buffer.from(clientData).toString("base64url"),
      attestationObject: cbor(new Map([["fmt", "none"], ["attStmt", new Map()], ["authData", authData]])).toString("base64url"),
      transports: ["AUTHENTICATOR_TRANSPORT_INTERNAL"] },
  };
}

test("@turnkey/sdk-server initUserEmailRecovery, then recoverUser with the mailed credential registers a passkey", async () => {
  const email = `recovery-${unique()}@example.com`;
  const { subOrgId, userId } = await subOrg({ userName: email, userEmail: email });
  const target = generateP256KeyPair();
  const init = await sdk.initUserEmailRecovery({ organizationId: subOrgId, email, targetPublicKey: target.publicKeyUncompressed,
    emailCustomization: { appName: "Compat" } });
  assert.equal(init.activity.type, "ACTIVITY_TYPE_INIT_USER_EMAIL_RECOVERY_V2");
  assert.equal(init.userId, userId);
  const recovery = clientFor(await bundleFor(email), target);
  await assert.rejects(recovery.updateRootQuorum({ type: "ACTIVITY_TYPE_UPDATE_ROOT_QUORUM", timestampMs: now(), organizationId: subOrgId,
    parameters: { threshold: 1, userIds: [userId] } }), /recovery credential/);
  const res = await recovery.recoverUser({ type: "ACTIVITY_TYPE_RECOVER_USER", timestampMs: now(), organizationId: subOrgId,
    parameters: { userId, authenticator: passkeyRegistration(randomBytes(32).toString("base64url")) } });
  const [authenticatorId] = res.activity.result.recoverUserResult.authenticatorId;
  const got = await http.getAuthenticator({ organizationId: subOrgId, authenticatorId });
  assert.equal(got.authenticator.authenticatorName, "recovered passkey");
  await assert.rejects(recovery.getWhoami({ organizationId: subOrgId }), /Turnkey error 16/, "the recovery credential recovers once");
});

test("@turnkey/sdk-server createInvitations and deleteInvitation; an address a user has is refused", async () => {
  const email = `invited-${unique()}@example.com`;
  const whoami = await http.getWhoami({ organizationId });
  const res = await sdk.createInvitations({ invitations: [{ receiverUserName: "guest", receiverUserEmail: email, receiverUserTags: [],
    accessType: "ACCESS_TYPE_WEB", senderUserId: whoami.userId }] });
  assert.equal(res.invitationIds.length, 1);
  const org = await http.getOrganization({ organizationId });
  const listed = org.organizationData.invitations.find((i) => i.invitationId === res.invitationIds[0]);
  assert.equal(listed.receiverEmail, email);
  assert.equal(listed.status, "INVITATION_STATUS_CREATED");
  const taken = `taken-${unique()}@example.com`;
  await sdk.createUsers({ users: [{ userName: "taken", userEmail: taken, apiKeys: [], authenticators: [], oauthProviders: [], userTags: [] }] });
  await assert.rejects(sdk.createInvitations({ invitations: [{ receiverUserName: "again", receiverUserEmail: taken, receiverUserTags: [],
    accessType: "ACCESS_TYPE_ALL", senderUserId: whoami.userId }] }), /already belongs to user/);
  const del = await sdk.deleteInvitation({ invitationId: res.invitationIds[0] });
  assert.equal(del.invitationId, res.invitationIds[0]);
});

test("MFA policies with @turnkey/sdk-server; @turnkey/core's onMfaRequired approves the held activity with the second key", async () => {
  const first = generateP256KeyPair();
  const second = generateP256KeyPair();
  const key = (name, k) => ({ apiKeyName: name, publicKey: k.publicKey, curveType: "API_KEY_CURVE_P256" });
  const { subOrgId, userId } = await subOrg({ userName: "mfa user", apiKeys: [key("first", first), key("second", second)] });
  const keys = await http.getApiKeys({ organizationId: subOrgId, userId });
  const secondId = keys.apiKeys.find((k) => k.credential.publicKey === second.publicKey).apiKeyId;
  const asUser = (k) => new ApiKeyStamper({ apiPublicKey: k.publicKey, apiPrivateKey: k.privateKey });
  const userSdk = new Turnkey({ apiBaseUrl: baseUrl, apiPublicKey: first.publicKey, apiPrivateKey: first.privateKey, defaultOrganizationId: subOrgId }).apiClient();

  const created = await userSdk.createMfaPolicy({ userId, mfaPolicyName: "wallets need the second key", condition: "activity.resource == 'WALLET'",
    requiredAuthenticationMethods: [{ any: [{ type: "AUTHENTICATION_TYPE_API_KEY", id: secondId }] }], order: 0, notes: "compat" });
  const policies = await userSdk.getMfaPolicies({ organizationId: subOrgId, userId });
  assert.deepEqual(policies.mfaPolicies.map((p) => p.mfaPolicyId), [created.mfaPolicyId]);
  assert.equal((await userSdk.getMfaPolicy({ organizationId: subOrgId, userId, mfaPolicyId: created.mfaPolicyId })).mfaPolicy.condition, "activity.resource == 'WALLET'");

  const secondHttp = new TurnkeyClient({ baseUrl }, asUser(second));
  let seen;
  const core = new TurnkeySDKClientBase({
    apiBaseUrl: baseUrl, organizationId: subOrgId, apiKeyStamper: asUser(first), activityPoller: { intervalMs: 200, numRetries: 10 },
    onMfaRequired: async (ctx) => {
      seen = ctx;
      await secondHttp.approveActivity({ type: "ACTIVITY_TYPE_APPROVE_ACTIVITY", timestampMs: now(), organizationId: subOrgId,
        parameters: { fingerprint: ctx.fingerprint } });
    },
  });
  const account = { curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" };
  const wallet = await core.createWallet({ walletName: `mfa ${unique()}`, accounts: [account] });
  assert.equal(seen.activityStatus, "ACTIVITY_STATUS_AUTHENTICATORS_NEEDED");
  assert.equal(seen.mfaStatuses.length, 1);
  assert.equal(seen.mfaStatuses[0].satisfied, false);
  assert.equal(seen.mfaStatuses[0].mfaPolicyId, created.mfaPolicyId);
  assert.equal(wallet.activity.status, "ACTIVITY_STATUS_COMPLETED");
  assert.ok(wallet.walletId, "the held activity completed once the second key approved it");
  const status = await userSdk.getMfaStatus({ organizationId: subOrgId, activityId: seen.activityId });
  assert.equal(status.mfaStatuses[0].satisfied, true);
  assert.deepEqual(status.mfaStatuses[0].satisfiedMethods, [{ type: "AUTHENTICATION_TYPE_API_KEY", id: secondId }]);

  await userSdk.updateMfaPolicy({ userId, mfaPolicyId: created.mfaPolicyId, condition: "activity.resource == 'POLICY'" });
  const direct = await userSdk.createWallet({ walletName: `no mfa ${unique()}`, accounts: [account] });
  assert.equal(direct.activity.status, "ACTIVITY_STATUS_COMPLETED", "outside the updated condition nothing is held");
  await userSdk.deleteMfaPolicy({ userId, mfaPolicyId: created.mfaPolicyId });
  assert.deepEqual((await userSdk.getMfaPolicies({ organizationId: subOrgId, userId })).mfaPolicies, []);
});

test("@turnkey/http: the older versions EMAIL_AUTH, _V2, INIT_OTP_AUTH, _V2 and INIT_USER_EMAIL_RECOVERY", async () => {
  const email = `versions-${unique()}@example.com`;
  const { subOrgId, userId } = await subOrg({ userName: email, userEmail: email });
  for (const type of ["ACTIVITY_TYPE_EMAIL_AUTH", "ACTIVITY_TYPE_EMAIL_AUTH_V2"]) {
    const target = generateP256KeyPair();
    const res = await http.emailAuth({ type, timestampMs: now(), organizationId: subOrgId,
      parameters: { email, targetPublicKey: target.publicKeyUncompressed, emailCustomization: { appName: "Compat" } } });
    assert.equal(res.activity.result.emailAuthResult.userId, userId, type);
    assert.equal((await clientFor(await bundleFor(email), target).getWhoami({ organizationId: subOrgId })).userId, userId, type);
  }
  for (const [type, resultKey, extra] of [["ACTIVITY_TYPE_INIT_OTP_AUTH", "initOtpAuthResult", {}],
    ["ACTIVITY_TYPE_INIT_OTP_AUTH_V2", "initOtpAuthResultV2", { otpLength: 6, alphanumeric: false }]]) {
    const res = await http.initOtpAuth({ type, timestampMs: now(), organizationId: subOrgId,
      parameters: { otpType: "OTP_TYPE_EMAIL", contact: email, ...extra } });
    const { otpId } = res.activity.result[resultKey];
    const code = await codeFor(email);
    if (extra.otpLength) assert.match(code, /^[0-9]{6}$/);
    const target = generateP256KeyPair();
    const auth = await http.otpAuth({ type: "ACTIVITY_TYPE_OTP_AUTH", timestampMs: now(), organizationId: subOrgId,
      parameters: { otpId, otpCode: code, targetPublicKey: target.publicKeyUncompressed } });
    assert.equal(auth.activity.result.otpAuthResult.userId, userId, type);
  }
  const target = generateP256KeyPair();
  const rec = await http.initUserEmailRecovery({ type: "ACTIVITY_TYPE_INIT_USER_EMAIL_RECOVERY", timestampMs: now(), organizationId: subOrgId,
    parameters: { email, targetPublicKey: target.publicKeyUncompressed } });
  assert.equal(rec.activity.result.initUserEmailRecoveryResult.userId, userId);
});
