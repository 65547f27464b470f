// OAuth login with the official SDKs against `sigil up --trusted-oidc-issuer $SIGIL_OIDC_PROVIDER_URL`: the local
// provider (tests/compat/oidcprovider) issues an ID token through its authorization and token endpoints, with the
// nonce bound to a fresh session key; the token signs a user up, finds its sub-organization, and logs in with
// @turnkey/http's oauthLogin; the session key then stamps getWhoami. The same provider, configured as X, redeems the
// code of @turnkey/http's oauth2Authenticate.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createHash, randomBytes } from "node:crypto";
import { TurnkeyClient } from "@turnkey/http";
import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { generateP256KeyPair, verifySessionJwtSignature } from "@turnkey/crypto";

const provider = process.env.SIGIL_OIDC_PROVIDER_URL;
const boot = JSON.parse(readFileSync(join(process.env.SIGIL_DIR, "bootstrap.json"), "utf8"));
const baseUrl = boot.coordinatorUrl;
const http = new TurnkeyClient({ baseUrl }, new ApiKeyStamper({ apiPublicKey: boot.apiPublicKey, apiPrivateKey: boot.apiPrivateKey }));

// The client internal/oidc/oidctest registers.
const clientId = "sigil-test-client";
const clientSecret = "sigil-test-client-secret";
const redirectUri = "https://app.example/oauth/callback";

const sha256hex = (s) => createHash("sha256").update(s).digest("hex");

// authorize runs the provider's authorization endpoint, as the browser would, and returns the code and the PKCE
// verifier whose challenge it was sent with.
async function authorize(subject, nonce) {
  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  const auth = new URL(`${provider}/authorize`);
  for (const [k, v] of Object.entries({
    response_type: "code", client_id: clientId, redirect_uri: redirectUri, code_challenge: challenge,
    code_challenge_method: "S256", nonce, login_hint: subject, state: "s",
  })) auth.searchParams.set(k, v);
  const redirect = await fetch(auth, { redirect: "manual" });
  assert.equal(redirect.status, 302);
  const code = new URL(redirect.headers.get("location")).searchParams.get("code");
  assert.ok(code, "the provider redirects back with a code");
  return { code, verifier };
}

// idToken runs the authorization-code flow with PKCE at the provider and returns the ID token for subject, whose
// nonce is hex(sha256(publicKey)) as the SDKs compute it.
async function idToken(subject, publicKey) {
  const { code, verifier } = await authorize(subject, sha256hex(publicKey));
  const res = await fetch(`${provider}/token`, {
    method: "POST",
    headers: {
      "Content-Type": "application/x-www-form-urlencoded",
      Authorization: "Basic " + Buffer.from(`${clientId}:${clientSecret}`).toString("base64"),
    },
    body: new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: redirectUri, code_verifier: verifier }),
  });
  assert.equal(res.status, 200);
  return (await res.json()).id_token;
}

async function tokenKeyHex() {
  const { keys } = await (await fetch(`${baseUrl}/.well-known/jwks.json`)).json();
  const hex = (b64url) => Buffer.from(b64url, "base64url").toString("hex").padStart(64, "0");
  return "04" + hex(keys[0].x) + hex(keys[0].y);
}

test("@turnkey/http oauthLogin with an ID token of a trusted issuer", { skip: !provider && "SIGIL_OIDC_PROVIDER_URL is not set" }, async () => {
  const subject = `oauth-${Date.now()}`;
  const session = generateP256KeyPair();
  const token = await idToken(subject, session.publicKey);

  // Signup: the token names the root user's identity (verified by the coordinator).
  const created = await http.createSubOrganization({
    type: "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7",
    timestampMs: String(Date.now()),
    organizationId: boot.organizationId,
    parameters: {
      subOrganizationName: `oauth ${subject}`,
      rootQuorumThreshold: 1,
      rootUsers: [{ userName: subject, apiKeys: [], authenticators: [], oauthProviders: [{ providerName: "Local", oidcToken: token }] }],
    },
  });
  const { subOrganizationId: subOrgId, rootUserIds: [userId] } = created.activity.result.createSubOrganizationResultV7;
  const user = await http.getUser({ organizationId: subOrgId, userId });
  assert.deepEqual(
    user.user.oauthProviders.map(({ issuer, subject, audience }) => ({ issuer, subject, audience })),
    [{ issuer: provider, subject, audience: clientId }],
  );

  // The auth proxy's account lookup: the sub-organization of the token's identity.
  const found = await http.getSubOrgIds({ organizationId: boot.organizationId, filterType: "OIDC_TOKEN", filterValue: token });
  assert.deepEqual(found.organizationIds, [subOrgId]);

  const res = await http.oauthLogin({
    type: "ACTIVITY_TYPE_OAUTH_LOGIN",
    timestampMs: String(Date.now()),
    organizationId: subOrgId,
    parameters: { oidcToken: token, publicKey: session.publicKey, expirationSeconds: "900", invalidateExisting: true },
  });
  const a = res.activity;
  assert.equal(a.status, "ACTIVITY_STATUS_COMPLETED");
  assert.equal(a.type, "ACTIVITY_TYPE_OAUTH_LOGIN");
  assert.notEqual(a.intent.oauthLoginIntent.oidcToken, token, "the activity record does not keep the token");
  const jwt = a.result.oauthLoginResult.session;
  assert.ok(await verifySessionJwtSignature(jwt, await tokenKeyHex()), "the session JWT verifies with the coordinator's token key");
  const claims = JSON.parse(Buffer.from(jwt.split(".")[1], "base64").toString());
  assert.equal(claims.public_key, session.publicKey);
  assert.equal(claims.user_id, userId);
  assert.equal(claims.organization_id, subOrgId);

  const asUser = new TurnkeyClient({ baseUrl }, new ApiKeyStamper({ apiPublicKey: session.publicKey, apiPrivateKey: session.privateKey }));
  const who = await asUser.getWhoami({ organizationId: subOrgId });
  assert.equal(who.userId, userId);
  const keys = await asUser.getApiKeys({ organizationId: subOrgId, userId });
  assert.ok(keys.apiKeys.some((k) => k.credential.publicKey === session.publicKey && k.credential.type === "CREDENTIAL_TYPE_OAUTH_KEY_P256"));

  // A token whose nonce binds another key does not log this key in.
  const other = generateP256KeyPair();
  await assert.rejects(
    http.oauthLogin({
      type: "ACTIVITY_TYPE_OAUTH_LOGIN",
      timestampMs: String(Date.now()),
      organizationId: subOrgId,
      parameters: { oidcToken: await idToken(subject, other.publicKey), publicKey: session.publicKey },
    }),
    /nonce/,
  );
});

// sigil up is started with --oauth2-provider OAUTH2_PROVIDER_X=<the local provider's X-shaped endpoints>.
test("@turnkey/http oauth2Authenticate: an X-style code exchange, then oauthLogin with the coordinator's token", { skip: !provider && "SIGIL_OIDC_PROVIDER_URL is not set" }, async () => {
  const submit = (type, organizationId, parameters) => ({ type, timestampMs: String(Date.now()), organizationId, parameters });
  const created = await http.createOauth2Credential(submit("ACTIVITY_TYPE_CREATE_OAUTH2_CREDENTIAL", boot.organizationId,
    { provider: "OAUTH2_PROVIDER_X", clientId, encryptedClientSecret: clientSecret }));
  const credentialId = created.activity.result.createOauth2CredentialResult.oauth2CredentialId;
  try {
    const { oauth2Credential } = await http.getOauth2Credential({ organizationId: boot.organizationId, oauth2CredentialId: credentialId });
    assert.equal(oauth2Credential.clientId, clientId);
    assert.notEqual(oauth2Credential.encryptedClientSecret, clientSecret, "the secret is never returned");

    const subject = `x-${Date.now()}`;
    const session = generateP256KeyPair();
    const { code, verifier } = await authorize(subject, "");
    const res = await http.oauth2Authenticate(submit("ACTIVITY_TYPE_OAUTH2_AUTHENTICATE", boot.organizationId, {
      oauth2CredentialId: credentialId, authCode: code, redirectUri, codeVerifier: verifier, nonce: sha256hex(session.publicKey),
    }));
    const token = res.activity.result.oauth2AuthenticateResult.oidcToken;
    const claims = JSON.parse(Buffer.from(token.split(".")[1], "base64url").toString());
    const discovery = await (await fetch(`${baseUrl}/.well-known/openid-configuration`)).json();
    assert.equal(claims.iss, discovery.issuer);
    assert.equal(claims.sub, subject);
    assert.equal(claims.aud, clientId);
    assert.equal(claims.nonce, sha256hex(session.publicKey));

    const sub = await http.createSubOrganization(submit("ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7", boot.organizationId, {
      subOrganizationName: `x ${subject}`, rootQuorumThreshold: 1,
      rootUsers: [{ userName: subject, apiKeys: [], authenticators: [], oauthProviders: [{ providerName: "X", oidcToken: token }] }],
    }));
    const { subOrganizationId, rootUserIds: [userId] } = sub.activity.result.createSubOrganizationResultV7;
    const login = await http.oauthLogin(submit("ACTIVITY_TYPE_OAUTH_LOGIN", subOrganizationId, { oidcToken: token, publicKey: session.publicKey }));
    const asUser = new TurnkeyClient({ baseUrl }, new ApiKeyStamper({ apiPublicKey: session.publicKey, apiPrivateKey: session.privateKey }));
    assert.ok(login.activity.result.oauthLoginResult.session);
    assert.equal((await asUser.getWhoami({ organizationId: subOrganizationId })).userId, userId);

    // A code is single-use: the provider refuses it the second time and the activity fails with its answer.
    await assert.rejects(
      http.oauth2Authenticate(submit("ACTIVITY_TYPE_OAUTH2_AUTHENTICATE", boot.organizationId, {
        oauth2CredentialId: credentialId, authCode: code, redirectUri, codeVerifier: verifier, nonce: sha256hex(session.publicKey),
      })),
      /invalid_grant/,
    );
  } finally {
    await http.deleteOauth2Credential(submit("ACTIVITY_TYPE_DELETE_OAUTH2_CREDENTIAL", boot.organizationId, { oauth2CredentialId: credentialId }));
  }
  const { oauth2Credentials } = await http.listOauth2Credentials({ organizationId: boot.organizationId });
  assert.ok(!oauth2Credentials.some((c) => c.oauth2CredentialId === credentialId));
});

test("the coordinator publishes its OIDC discovery document", async () => {
  const res = await fetch(`${baseUrl}/.well-known/openid-configuration`);
  assert.equal(res.status, 200);
  const doc = await res.json();
  assert.equal(doc.jwks_uri, `${doc.issuer}/.well-known/jwks.json`);
  assert.deepEqual(doc.id_token_signing_alg_values_supported, ["ES256"]);
  const jwks = await (await fetch(doc.jwks_uri.replace(doc.issuer, baseUrl))).json();
  assert.equal(jwks.keys[0].alg, "ES256");
});
