// Sigil dashboard: talks to the coordinator's public API from the browser. Every request is stamped here, with a
// WebCrypto key that cannot be exported: an imported API key, or the session key a passkey login opened.

const $ = (id) => document.getElementById(id);
const state = { coordinator: "", proxy: "", org: "", stamper: null, config: null };

const METHODS = ["email", "sms", "passkey", "wallet", "google", "apple", "facebook", "x", "discord"];
const SOCIAL = ["google", "apple", "facebook", "x", "discord"];

// ---- encodings ----

const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
const fromHex = (s) => {
  if (!/^([0-9a-fA-F]{2})*$/.test(s)) throw new Error("not hex");
  return Uint8Array.from(s.match(/../g) || [], (h) => parseInt(h, 16));
};
const b64url = (bytes) => btoa(String.fromCharCode(...new Uint8Array(bytes))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
const bigFrom = (bytes) => BigInt("0x" + (hex(bytes) || "0"));
const bytes32 = (n) => fromHex(n.toString(16).padStart(64, "0"));

// ---- P-256 ----

const P = 2n ** 256n - 2n ** 224n + 2n ** 192n + 2n ** 96n - 1n;
const B = 0x5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604bn;

function modPow(b, e, m) {
  let r = 1n;
  b %= m;
  for (; e > 0n; e >>= 1n, b = (b * b) % m) if (e & 1n) r = (r * b) % m;
  return r;
}

// decompress expands a compressed public key (33 bytes) to its coordinates.
function decompress(pub) {
  if (pub.length !== 33 || (pub[0] !== 2 && pub[0] !== 3)) throw new Error("the public key must be a compressed P-256 key (66 hex characters starting with 02 or 03)");
  const x = bigFrom(pub.slice(1));
  let y = modPow((((x * x * x - 3n * x + B) % P) + P) % P, (P + 1n) / 4n, P);
  if (Number(y & 1n) !== (pub[0] & 1)) y = P - y;
  return { x: bytes32(x), y: bytes32(y) };
}

function compress(raw) {
  const out = new Uint8Array(33);
  out[0] = raw[64] & 1 ? 3 : 2;
  out.set(raw.slice(1, 33), 1);
  return out;
}

// der encodes a WebCrypto signature (r‖s) as the ASN.1 DER the coordinator verifies.
function der(sig) {
  const int = (b) => {
    let i = 0;
    while (i < b.length - 1 && b[i] === 0) i++;
    b = b.slice(i);
    return b[0] & 0x80 ? [0x02, b.length + 1, 0, ...b] : [0x02, b.length, ...b];
  };
  const body = [...int(sig.slice(0, 32)), ...int(sig.slice(32))];
  return new Uint8Array([0x30, body.length, ...body]);
}

// apiKeyStamper signs with a non-extractable WebCrypto key and returns the X-Stamp header.
function apiKeyStamper(key, publicKeyHex) {
  return async (body) => {
    const sig = new Uint8Array(await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, key, new TextEncoder().encode(body)));
    const stamp = { publicKey: publicKeyHex, scheme: "SIGNATURE_SCHEME_TK_API_P256", signature: hex(der(sig)) };
    return ["X-Stamp", b64url(new TextEncoder().encode(JSON.stringify(stamp)))];
  };
}

async function importAPIKey(publicHex, privateHex) {
  const pub = fromHex(publicHex.trim().toLowerCase());
  const d = fromHex(privateHex.trim());
  if (d.length !== 32) throw new Error("the private key must be 64 hex characters");
  const { x, y } = decompress(pub);
  const jwk = { kty: "EC", crv: "P-256", x: b64url(x), y: b64url(y), d: b64url(d), ext: false };
  const key = await crypto.subtle.importKey("jwk", jwk, { name: "ECDSA", namedCurve: "P-256" }, false, ["sign"]);
  d.fill(0);
  return { key, pub: hex(pub) };
}

// ---- API ----

async function post(path, payload, stamper = state.stamper) {
  const body = JSON.stringify(payload);
  const headers = { "Content-Type": "application/json" };
  const [name, value] = await stamper(body);
  headers[name] = value;
  const res = await fetch(state.coordinator + path, { method: "POST", headers, body });
  const data = await res.json().catch(() => null);
  if (!res.ok) throw new Error((data && data.message) || `${res.status} ${res.statusText}`);
  return data;
}

const query = (name, fields = {}) => post("/public/v1/query/" + name, { organizationId: state.org, ...fields });

async function submit(type, path, resultKey, parameters) {
  const res = await post("/public/v1/submit/" + path, {
    type: "ACTIVITY_TYPE_" + type, timestampMs: String(Date.now()), organizationId: state.org, parameters,
  });
  const a = res.activity;
  if (a.status !== "ACTIVITY_STATUS_COMPLETED") {
    throw new Error(`${type} ended ${a.status.replace("ACTIVITY_STATUS_", "").toLowerCase()}` + (a.failure ? `: ${a.failure.message}` : " (more approvals are needed)"));
  }
  return a.result[resultKey];
}

// ---- status line ----

let statusTimer;
function say(text, error = false) {
  const el = $("status");
  el.textContent = text;
  el.className = "show" + (error ? " error" : "");
  clearTimeout(statusTimer);
  statusTimer = setTimeout(() => (el.className = error ? "error" : ""), error ? 8000 : 3000);
}

async function busy(button, fn) {
  button.disabled = true;
  try {
    await fn();
  } catch (e) {
    say(e.message, true);
  } finally {
    button.disabled = false;
  }
}

// ---- sign-in ----

// ---- the session, kept across reloads ----
// The signing key is a non-extractable WebCrypto key: IndexedDB keeps the key object itself, which no script can read
// out, so a reload stays signed in without the private key ever being stored in a readable form. An API key's session
// lasts until Sign out; a passkey's, as long as its STAMP_LOGIN session.

const SESSION_DB = "sigil-dashboard";

function sessionStore(mode, fn) {
  return new Promise((resolve, reject) => {
    const open = indexedDB.open(SESSION_DB, 1);
    open.onupgradeneeded = () => open.result.createObjectStore("session");
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const tx = open.result.transaction("session", mode);
      const req = fn(tx.objectStore("session"));
      tx.oncomplete = () => { open.result.close(); resolve(req && req.result); };
      tx.onerror = () => reject(tx.error);
    };
  });
}
const saveSession = (session) => sessionStore("readwrite", (st) => st.put(session, "current"));
const loadSession = () => sessionStore("readonly", (st) => st.get("current"));
const clearSession = () => sessionStore("readwrite", (st) => st.delete("current"));

// resumeSession signs in again with the kept key, unless it expired or the coordinator no longer takes it.
async function resumeSession() {
  const session = await loadSession().catch(() => null);
  if (!session || (session.expiresAt && session.expiresAt < Date.now())) {
    if (session) await clearSession();
    return;
  }
  state.org = session.org;
  $("org-id").value = session.org;
  try {
    await signIn(session.key, session.pub, session.expiresAt);
  } catch (e) {
    await clearSession();
    throw e;
  }
}

async function signIn(key, pub, expiresAt = 0) {
  state.stamper = apiKeyStamper(key, pub);
  const who = await query("whoami");
  const org = await query("get_organization");
  if (!org.organizationData.rootQuorum.userIds.includes(who.userId)) {
    state.stamper = null;
    throw new Error(`${who.username} is not a root user of ${who.organizationName}; the dashboard is for administrators`);
  }
  $("org-name").textContent = `${who.organizationName} · ${who.username}`;
  $("signin").hidden = true;
  $("app").hidden = false;
  $("sign-out").hidden = false;
  await saveSession({ org: state.org, key, pub, expiresAt }).catch(() => {}); // a browser without IndexedDB signs in anew
  await loadAuth();
}

async function signInWithAPIKey() {
  state.org = $("org-id").value.trim();
  const { key, pub } = await importAPIKey($("api-public-key").value, $("api-private-key").value);
  $("api-private-key").value = "";
  await signIn(key, pub);
}

// signInFromLink signs in with a key that sigil up's dev-mode link carries in the URL fragment (#org=…&pub=…&key=…):
// a fragment is never sent to a server. It is removed from the address bar and the history at once.
async function signInFromLink() {
  const frag = new URLSearchParams(location.hash.slice(1));
  if (!frag.get("key") || !frag.get("pub")) return;
  history.replaceState(null, "", location.pathname + location.search);
  state.org = frag.get("org") || $("org-id").value.trim();
  $("org-id").value = state.org;
  const { key, pub } = await importAPIKey(frag.get("pub"), frag.get("key"));
  await signIn(key, pub);
}

// signInWithPasskey opens a 15-minute session: a new WebCrypto key, registered by STAMP_LOGIN stamped with the passkey.
async function signInWithPasskey() {
  state.org = $("org-id").value.trim();
  const pair = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, ["sign"]);
  const sessionPub = hex(compress(new Uint8Array(await crypto.subtle.exportKey("raw", pair.publicKey))));
  const passkey = async (body) => {
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(body)));
    const cred = await navigator.credentials.get({
      publicKey: { challenge: new TextEncoder().encode(hex(digest)), rpId: location.hostname, userVerification: "preferred", timeout: 60000 },
    });
    const r = cred.response;
    return ["X-Stamp-WebAuthn", JSON.stringify({
      credentialId: b64url(cred.rawId), clientDataJson: b64url(r.clientDataJSON),
      authenticatorData: b64url(r.authenticatorData), signature: b64url(r.signature),
    })];
  };
  const res = await post("/public/v1/submit/stamp_login", {
    type: "ACTIVITY_TYPE_STAMP_LOGIN", timestampMs: String(Date.now()), organizationId: state.org,
    parameters: { publicKey: sessionPub, expirationSeconds: "900" },
  }, passkey);
  if (res.activity.status !== "ACTIVITY_STATUS_COMPLETED") throw new Error("passkey login ended " + res.activity.status);
  await signIn(pair.privateKey, sessionPub, Date.now() + 900 * 1000);
}

async function signOut() {
  state.stamper = null;
  state.config = null;
  await clearSession().catch(() => {});
  location.reload();
}

// ---- AUTH section ----

function renderMethods() {
  $("methods").replaceChildren(...METHODS.map((m) => {
    const label = document.createElement("label");
    const box = document.createElement("input");
    box.type = "checkbox";
    box.value = m;
    box.id = "method-" + m;
    label.append(box, " " + ({ sms: "SMS", x: "X" }[m] || m[0].toUpperCase() + m.slice(1)));
    return label;
  }));
  $("oauth-ids").replaceChildren(...SOCIAL.map((p) => {
    const label = document.createElement("label");
    const input = document.createElement("input");
    input.id = "client-id-" + p;
    label.append(`${p === "x" ? "X" : p[0].toUpperCase() + p.slice(1)} client ID`, input);
    return label;
  }));
}

async function loadAuth() {
  try {
    state.config = (await query("get_auth_proxy_config")).config;
  } catch (e) {
    if (!/no auth proxy configuration/.test(e.message)) throw e;
    state.config = null;
  }
  const c = state.config;
  $("proxy-off").hidden = !!c;
  $("proxy-on").hidden = !c;
  $("auth-form").hidden = !c;
  if (!c) return;
  $("proxy-status").textContent = c.enabled ? "Enabled" : "Disabled";
  $("proxy-status").className = "pill " + (c.enabled ? "on" : "off");
  $("config-id").textContent = c.configId;
  $("proxy-url").textContent = state.proxy || "(not running)";
  $("proxy-user").textContent = c.proxyUserId;
  $("toggle-proxy").textContent = c.enabled ? "Disable auth proxy" : "Enable auth proxy";
  $("rotate-key").hidden = !c.enabled;
  $("allowed-origins").value = c.allowedOrigins.join("\n");
  const enabled = new Set([...c.allowedAuthMethods, ...(c.walletKitSettings.enabledSocialProviders || [])]);
  for (const m of METHODS) $("method-" + m).checked = enabled.has(m);
  $("otp-length").value = String(c.otpLength || 6);
  $("otp-alphanumeric").checked = c.otpAlphanumeric;
  $("otp-expiration").value = c.otpExpirationSeconds || "";
  $("token-expiration").value = c.verificationTokenExpirationSeconds || "";
  $("session-expiration").value = c.sessionExpirationSeconds || "";
  $("pii-token").checked = c.verificationTokenRequiredForGetAccountPii;
  const e = c.emailCustomizationParams;
  $("app-name").value = e.appName || "";
  $("logo-url").value = e.logoUrl || "";
  $("template-id").value = e.templateId || "";
  $("magic-link").value = e.magicLinkTemplate || "";
  $("from-address").value = c.sendFromEmailAddress || "";
  $("from-name").value = c.sendFromEmailSenderName || "";
  $("reply-to").value = c.replyToEmailAddress || "";
  $("sms-template").value = c.smsCustomizationParams.template || "";
  for (const p of SOCIAL) $("client-id-" + p).value = (c.walletKitSettings.oauthClientIds || {})[p] || "";
  $("redirect-url").value = c.walletKitSettings.oauthRedirectUrl || "";
}

const num = (id) => ($(id).value === "" ? undefined : Number($(id).value));

function settingsFromForm() {
  const methods = METHODS.filter((m) => $("method-" + m).checked);
  const clientIds = {};
  for (const p of SOCIAL) if ($("client-id-" + p).value.trim()) clientIds[p] = $("client-id-" + p).value.trim();
  const s = {
    allowedOrigins: $("allowed-origins").value.split(/[\s,]+/).filter(Boolean),
    allowedAuthMethods: methods,
    sendFromEmailAddress: $("from-address").value.trim(),
    sendFromEmailSenderName: $("from-name").value.trim(),
    replyToEmailAddress: $("reply-to").value.trim(),
    emailCustomizationParams: {
      appName: $("app-name").value.trim() || undefined, logoUrl: $("logo-url").value.trim() || undefined,
      templateId: $("template-id").value.trim() || undefined, magicLinkTemplate: $("magic-link").value.trim() || undefined,
    },
    smsCustomizationParams: { template: $("sms-template").value.trim() || undefined },
    walletKitSettings: {
      enabledSocialProviders: methods.filter((m) => SOCIAL.includes(m)), oauthClientIds: clientIds,
      oauthRedirectUrl: $("redirect-url").value.trim(),
    },
    otpLength: Number($("otp-length").value),
    otpAlphanumeric: $("otp-alphanumeric").checked,
    otpExpirationSeconds: num("otp-expiration"),
    verificationTokenExpirationSeconds: num("token-expiration"),
    sessionExpirationSeconds: num("session-expiration"),
    verificationTokenRequiredForGetAccountPii: $("pii-token").checked,
  };
  if (s.allowedOrigins.length === 0) throw new Error("list at least one allowed origin, or * for every origin");
  return s;
}

async function saveAuth(ev) {
  ev.preventDefault();
  await busy($("save-auth"), async () => {
    await submit("UPDATE_AUTH_PROXY_CONFIG", "update_auth_proxy_config", "updateAuthProxyConfigResult", settingsFromForm());
    await loadAuth();
    say("Settings saved");
  });
}

// ---- lists ----

function table(el, head, rows) {
  const tr = (cells, tag) => {
    const row = document.createElement("tr");
    for (const c of cells) {
      const cell = document.createElement(tag);
      cell.textContent = c;
      row.append(cell);
    }
    return row;
  };
  el.replaceChildren(tr(head, "th"), ...rows.map((r) => tr(r, "td")));
}

const when = (ts) => new Date(Number(ts.seconds) * 1000).toLocaleString();

async function loadUsers() {
  const [{ users }, org] = await Promise.all([query("list_users"), query("get_organization")]);
  const roots = new Set(org.organizationData.rootQuorum.userIds);
  table($("users"), ["Name", "E-mail", "Role", "Credentials", "ID"], users.map((u) => [
    u.userName, u.userEmail || "", roots.has(u.userId) ? "root" : "user",
    `${u.apiKeys.length} keys, ${u.authenticators.length} passkeys`, u.userId,
  ]));
}

async function loadPolicies() {
  const { policies } = await query("list_policies");
  table($("policies"), ["Name", "Effect", "Condition", "Consensus"], policies.map((p) => [
    p.policyName, p.effect.replace("EFFECT_", ""), p.condition, p.consensus,
  ]));
}

async function loadActivities() {
  const { activities } = await query("list_activities", { paginationOptions: { limit: "25" } });
  const rows = activities.map((a) => [
    when(a.createdAt), a.type.replace("ACTIVITY_TYPE_", ""), a.status.replace("ACTIVITY_STATUS_", ""),
  ]);
  table($("activities"), ["When", "Type", "Status"], rows);
  // Each row opens the activity's detail.
  [...$("activities").querySelectorAll("tr")].slice(1).forEach((tr, i) => {
    tr.classList.add("clickable");
    tr.addEventListener("click", () => showActivity(activities[i].id).catch((e) => say(e.message, true)));
  });
}

// showActivity shows who asked for an activity, what it asked, what came of it, and what each policy decided, by name;
// one waiting for consensus can be approved or rejected here.
async function showActivity(id) {
  const [{ activity: a }, { policyEvaluations }, { policies }, { users }] = await Promise.all([
    query("get_activity", { activityId: id }), query("get_policy_evaluations", { activityId: id }),
    query("list_policies"), query("list_users"),
  ]);
  const policyName = new Map(policies.map((p) => [p.policyId, p.policyName]));
  const userName = new Map(users.map((u) => [u.userId, u.userName]));
  const el = $("activity-detail");
  const h = (tag, text, cls) => {
    const e = document.createElement(tag);
    e.textContent = text;
    if (cls) e.className = cls;
    return e;
  };
  const facts = document.createElement("dl");
  facts.className = "facts";
  const add = (k, v) => facts.append(h("dt", k), h("dd", v));
  add("Type", a.type);
  add("Status", a.status.replace("ACTIVITY_STATUS_", ""));
  add("ID", a.id);
  add("Created", when(a.createdAt));
  add("Votes", (a.votes || []).map((v) => `${userName.get(v.userId) || v.userId}: ${v.selection.replace("VOTE_SELECTION_", "").toLowerCase()}`).join(", "));
  if (a.failure) add("Failure", a.failure.message);
  const outcomes = [];
  for (const ev of policyEvaluations) {
    for (const p of ev.policyEvaluations) {
      outcomes.push([policyName.get(p.policyId) || p.policyId, p.outcome.replace("OUTCOME_", "").toLowerCase(), p.error || ""]);
    }
  }
  const decided = document.createElement("table");
  table(decided, ["Policy", "Outcome", "Error"], outcomes);
  const pretty = (label, v) => {
    const d = document.createElement("details");
    d.append(h("summary", label), h("pre", JSON.stringify(v, null, 2)));
    return d;
  };
  const children = [h("h2", "Activity"), facts];
  if (outcomes.length) children.push(h("h3", "Policies"), decided);
  children.push(pretty("Intent", a.intent));
  if (a.result && Object.keys(a.result).length) children.push(pretty("Result", a.result));
  if (a.status === "ACTIVITY_STATUS_CONSENSUS_NEEDED") {
    const row = document.createElement("div");
    row.className = "row";
    for (const [label, type, path, key] of [["Approve", "APPROVE_ACTIVITY", "approve_activity", "activity"], ["Reject", "REJECT_ACTIVITY", "reject_activity", "activity"]]) {
      const b = h("button", label);
      b.type = "button";
      b.disabled = label === "Approve" ? !a.canApprove : !a.canReject;
      b.addEventListener("click", () => busy(b, async () => {
        await post("/public/v1/submit/" + path, { type: "ACTIVITY_TYPE_" + type, timestampMs: String(Date.now()), organizationId: state.org, parameters: { fingerprint: a.fingerprint } });
        say(label === "Approve" ? "Approved" : "Rejected");
        await loadActivities();
        await showActivity(id);
      }));
      row.append(b);
    }
    children.push(row);
  }
  el.replaceChildren(...children);
  el.hidden = false;
  el.scrollIntoView({ block: "nearest" });
}

// ---- wallets ----

async function loadWallets() {
  const { wallets } = await query("list_wallets");
  const cards = await Promise.all(wallets.map(async (w) => {
    const { accounts } = await query("list_wallet_accounts", { walletId: w.walletId });
    const card = document.createElement("div");
    card.className = "wallet";
    const title = document.createElement("h3");
    title.textContent = w.walletName;
    const t = document.createElement("table");
    table(t, ["Address", "Format", "Path", "Curve"], accounts.map((acc) => [
      acc.address, acc.addressFormat.replace("ADDRESS_FORMAT_", ""), acc.path, acc.curve.replace("CURVE_", ""),
    ]));
    const wrap = document.createElement("div");
    wrap.className = "table-wrap";
    wrap.append(t);
    card.append(title, wrap);
    return card;
  }));
  $("wallets").replaceChildren(...cards);
  if (!wallets.length) $("wallets").textContent = "No wallets yet.";
}

// ---- webhooks ----

const ms = (v) => (v ? new Date(Number(v)).toLocaleString() : "");

async function loadWebhooks() {
  const { webhookEndpoints } = await query("list_webhook_endpoints");
  const cards = await Promise.all(webhookEndpoints.map(endpointCard));
  $("endpoints").replaceChildren(...cards);
  if (!webhookEndpoints.length) $("endpoints").textContent = "No endpoints yet.";
}

// endpointCard shows an endpoint, its latest deliveries, and what can be done with it.
async function endpointCard(e) {
  const card = document.createElement("div");
  card.className = "endpoint";
  card.dataset.endpointId = e.endpointId;
  const facts = document.createElement("dl");
  facts.className = "facts";
  for (const [k, v] of [["Name", e.name], ["URL", e.url], ["Status", e.isActive ? "Active" : "Inactive"],
    ["Events", (e.subscriptions || []).map((s) => s.eventType + (s.filtersJson ? " " + s.filtersJson : "")).join(", ")], ["ID", e.endpointId]]) {
    const dt = document.createElement("dt");
    dt.textContent = k;
    const dd = document.createElement("dd");
    dd.textContent = v;
    facts.append(dt, dd);
  }
  const { deliveries } = await query("list_webhook_deliveries", { endpointId: e.endpointId, limit: 10 });
  const list = document.createElement("table");
  list.className = "deliveries";
  table(list, ["Created", "Event", "State", "Attempts", "Last answer"], deliveries.map((d) => [
    ms(d.createdMs), d.eventId, d.state.replace("WEBHOOK_DELIVERY_STATE_", ""), String(d.attempts),
    d.lastError || (d.lastStatusCode ? String(d.lastStatusCode) : ""),
  ]));
  const wrap = document.createElement("div");
  wrap.className = "table-wrap";
  wrap.append(list);
  const row = document.createElement("div");
  row.className = "row";
  const button = (label, fn) => {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = label;
    b.addEventListener("click", () => busy(b, fn));
    row.append(b);
  };
  // A test event, the way Turnkey's quickstart makes one: an update of the endpoint that changes nothing, whose
  // ACTIVITY_UPDATES event the endpoint itself receives.
  button("Send test event", async () => {
    await submit("UPDATE_WEBHOOK_ENDPOINT", "update_webhook_endpoint", "updateWebhookEndpointResult", { endpointId: e.endpointId, name: e.name });
    say("Test event sent");
    setTimeout(() => loadWebhooks().catch((err) => say(err.message, true)), 1500);
  });
  button(e.isActive ? "Deactivate" : "Activate", async () => {
    await submit("UPDATE_WEBHOOK_ENDPOINT", "update_webhook_endpoint", "updateWebhookEndpointResult", { endpointId: e.endpointId, isActive: !e.isActive });
    await loadWebhooks();
  });
  button("Refresh", loadWebhooks);
  button("Delete", async () => {
    await submit("DELETE_WEBHOOK_ENDPOINT", "delete_webhook_endpoint", "deleteWebhookEndpointResult", { endpointId: e.endpointId });
    await loadWebhooks();
    say("Endpoint deleted");
  });
  const title = document.createElement("h3");
  title.textContent = e.name;
  card.append(title, facts, row, wrap);
  return card;
}

async function createEndpoint(ev) {
  ev.preventDefault();
  await busy($("create-endpoint"), async () => {
    await submit("CREATE_WEBHOOK_ENDPOINT", "create_webhook_endpoint", "createWebhookEndpointResult", {
      url: $("endpoint-url").value.trim(), name: $("endpoint-name").value.trim(), subscriptions: [{ eventType: "ACTIVITY_UPDATES" }],
    });
    $("endpoint-form").reset();
    await loadWebhooks();
    say("Endpoint created");
  });
}

const loaders = { auth: loadAuth, users: loadUsers, policies: loadPolicies, wallets: loadWallets, activities: loadActivities, webhooks: loadWebhooks };

function showTab(name) {
  for (const b of document.querySelectorAll(".tabs button")) b.classList.toggle("active", b.dataset.tab === name);
  for (const t of Object.keys(loaders)) $("tab-" + t).hidden = t !== name;
  loaders[name]().catch((e) => say(e.message, true));
}

// ---- wiring ----

async function main() {
  const cfg = await (await fetch("config.json")).json();
  state.coordinator = cfg.coordinatorUrl.replace(/\/$/, "");
  state.proxy = cfg.authProxyUrl || "";
  if (cfg.organizationId) $("org-id").value = cfg.organizationId;
  renderMethods();
  $("sign-in").addEventListener("click", (e) => busy(e.target, signInWithAPIKey));
  $("sign-in-passkey").addEventListener("click", (e) => busy(e.target, signInWithPasskey));
  $("sign-out").addEventListener("click", signOut);
  $("auth-form").addEventListener("submit", saveAuth);
  $("endpoint-form").addEventListener("submit", createEndpoint);
  $("enable-proxy").addEventListener("click", (e) => busy(e.target, async () => {
    await submit("ENABLE_AUTH_PROXY", "enable_auth_proxy", "enableAuthProxyResult", {});
    await loadAuth();
    say("Auth proxy enabled");
  }));
  $("toggle-proxy").addEventListener("click", (e) => busy(e.target, async () => {
    if (state.config.enabled) await submit("DISABLE_AUTH_PROXY", "disable_auth_proxy", "disableAuthProxyResult", {});
    else await submit("ENABLE_AUTH_PROXY", "enable_auth_proxy", "enableAuthProxyResult", {});
    await loadAuth();
    say(state.config.enabled ? "Auth proxy enabled" : "Auth proxy disabled");
  }));
  $("rotate-key").addEventListener("click", (e) => busy(e.target, async () => {
    await submit("ROTATE_AUTH_PROXY_KEY", "rotate_auth_proxy_key", "rotateAuthProxyKeyResult", {});
    await loadAuth();
    say("Proxy key rotated");
  }));
  for (const b of document.querySelectorAll(".tabs button")) b.addEventListener("click", () => showTab(b.dataset.tab));
  if (location.hash.includes("key=")) await signInFromLink();
  else await resumeSession();
}

main().catch((e) => say(e.message, true));
