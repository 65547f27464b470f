// Sigil dashboard: the sign-in and session, and the pages (Auth, Users, Policies, Wallets, Yields, Sub-orgs,
// Webhooks; Activity in activities.js), wired together. Every request to the coordinator is stamped in the page
// (api.js) with a WebCrypto key that cannot be exported: an imported API key, or the session key a passkey login opened.

import { apiKeyStamper, importAPIKey, hex, b64url, compress } from "./stamp.js";
import { balances, units, value } from "./chain.js";
import { drawn, horizontalBars } from "./charts.js";
import { showYields, yieldKey, setYieldKey } from "./yields.js";
import { $, el, table, wrapped, facts, say, busy, showError, FieldError, when, code, clickable, button, Pager } from "./ui.js";
import { state, post, query, activity, submit } from "./api.js";
import { loadNames, named } from "./names.js";
import { activityPager, loadActivities, loadActivityChart, showActivity } from "./activities.js";

const METHODS = ["email", "sms", "passkey", "wallet", "google", "apple", "facebook", "x", "discord"];
const SOCIAL = ["google", "apple", "facebook", "x", "discord"];

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
  state.root = { id: state.org, name: who.organizationName, user: who.username };
  $("org-name").textContent = `${who.organizationName} · ${who.username}`;
  $("signin").hidden = true;
  $("app").hidden = false;
  $("sign-out").hidden = false;
  await saveSession({ org: state.org, key, pub, expiresAt }).catch(() => {}); // a browser without IndexedDB signs in anew
  await loadAuth();
  // A link to one activity (?activity=ID, what sigil mcp gives an agent for an approver) opens it on the Activity page.
  const linked = new URLSearchParams(location.search).get("activity");
  if (linked) {
    showTab("activities");
    await showActivity(linked);
  }
}

async function signInWithAPIKey() {
  state.org = $("org-id").value.trim();
  const { key, pub } = await importAPIKey($("api-public-key").value, $("api-private-key").value);
  $("api-private-key").value = "";
  await signIn(key, pub);
}

// signInFromLink signs in with a key that sigil up's dev-mode link carries in the URL fragment (#org=…&pub=…&key=…,
// and yield=… for the Yields page's project key): a fragment is never sent to a server. It is removed from the address
// bar and the history at once.
async function signInFromLink() {
  const frag = new URLSearchParams(location.hash.slice(1));
  if (!frag.get("key") || !frag.get("pub")) return;
  history.replaceState(null, "", location.pathname + location.search);
  if (frag.get("yield")) setYieldKey(frag.get("yield"));
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
  if (s.allowedOrigins.length === 0) throw new FieldError("allowedOrigins", "list at least one allowed origin, or * for every origin");
  return s;
}

async function saveAuth(ev) {
  ev.preventDefault();
  await busy($("save-auth"), async () => {
    await submit("UPDATE_AUTH_PROXY_CONFIG", "update_auth_proxy_config", settingsFromForm());
    await loadAuth();
    say("Settings saved");
  });
}

// ---- users and their API keys ----

const users = { list: [], roots: new Set(), shown: "" };
// list_users answers every user (an organization holds at most 100); the table shows them a page at a time.
const usersPager = new Pager("users", () => loadUsers());

async function loadUsers() {
  const [{ users: all }, org] = await Promise.all([query("list_users"), query("get_organization")]);
  users.list = all;
  users.roots = new Set(org.organizationData.rootQuorum.userIds);
  const list = usersPager.pageOf(all, (u) => u.userId);
  const rows = table($("users"), ["Name", "E-mail", "Role", "Credentials"], list.map((u) => [
    u.userName, u.userEmail || "", users.roots.has(u.userId) ? "root" : "user",
    `${u.apiKeys.length} keys, ${u.authenticators.length} passkeys`,
  ]));
  rows.forEach((tr, i) => clickable(tr, async () => showUser(list[i].userId)));
  const shown = all.find((u) => u.userId === users.shown);
  if (shown) showUser(shown.userId);
  else $("user-detail").hidden = true;
}

// showUser shows a user, its API keys (each can be deleted), a form to add one, and deletes the user.
function showUser(userId) {
  const u = users.list.find((x) => x.userId === userId);
  users.shown = userId;
  const keys = el("table", { className: "keys" });
  table(keys, ["Name", "Public key", "Curve", "Created", ""], u.apiKeys.map((k) => [
    k.apiKeyName, code(k.credential.publicKey), k.credential.type.replace("CREDENTIAL_TYPE_API_KEY_", ""), when(k.createdAt),
    button("Delete", async () => {
      await submit("DELETE_API_KEYS", "delete_api_keys", { userId, apiKeyIds: [k.apiKeyId] });
      await loadUsers();
      say("API key deleted");
    }, { confirm: true }),
  ]));
  const form = el("form", { className: "subform" },
    el("h3", {}, "Add an API key"),
    el("div", { className: "grid" },
      el("label", {}, "Name", el("input", { name: "apiKeyName", required: true, autocomplete: "off", "data-param": "apiKeyName" })),
      el("label", {}, "Public key", el("input", { name: "publicKey", required: true, autocomplete: "off", spellcheck: false, "data-param": "publicKey", placeholder: "compressed, hex" })),
      el("label", {}, "Curve", el("select", { name: "curveType", "data-param": "curveType" },
        ...[["API_KEY_CURVE_P256", "P-256"], ["API_KEY_CURVE_SECP256K1", "secp256k1"], ["API_KEY_CURVE_ED25519", "Ed25519"]]
          .map(([value, label]) => el("option", { value }, label))))),
    el("div", { className: "row end" }, el("button", { type: "submit", className: "primary" }, "Add API key")));
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    busy(form.querySelector("button[type=submit]"), async () => {
      const f = form.elements;
      await submit("CREATE_API_KEYS_V2", "create_api_keys", { userId, apiKeys: [{
        apiKeyName: f.apiKeyName.value.trim(), publicKey: f.publicKey.value.trim(), curveType: f.curveType.value }] });
      await loadUsers();
      say("API key added");
    });
  });
  const card = $("user-detail");
  card.replaceChildren(
    el("h2", {}, u.userName),
    facts([["Role", users.roots.has(userId) ? "root" : "user"], ["E-mail", u.userEmail || ""], ["ID", code(userId)],
      ["Passkeys", u.authenticators.map((a) => a.authenticatorName).join(", ")]]),
    el("h3", {}, "API keys"), wrapped(keys), form,
    el("div", { className: "row" }, button("Delete user", async () => {
      await submit("DELETE_USERS", "delete_users", { userIds: [userId] });
      users.shown = "";
      await loadUsers();
      say(`User ${u.userName} deleted`);
    }, { confirm: true })));
  card.hidden = false;
}

async function createUser(ev) {
  ev.preventDefault();
  await busy($("create-user"), async () => {
    const keyName = $("user-key-name").value.trim();
    const publicKey = $("user-key").value.trim();
    if (keyName && !publicKey) throw new FieldError("publicKey", "an API key needs its public key");
    const apiKeys = publicKey ? [{ apiKeyName: keyName || "default", publicKey, curveType: "API_KEY_CURVE_P256" }] : [];
    const [userId] = (await submit("CREATE_USERS_V3", "create_users", { users: [{ userName: $("user-name").value.trim(),
      userEmail: $("user-email").value.trim() || undefined, apiKeys, authenticators: [], oauthProviders: [], userTags: [] }] })).userIds;
    $("user-form").reset();
    say("User created");
    users.shown = userId;
    await loadUsers();
  });
}

// ---- policies ----

async function loadPolicies() {
  const [{ policies }] = await Promise.all([query("list_policies"), loadNames()]);
  table($("policies"), ["Name", "Effect", "Condition", "Consensus", ""], policies.map((p) => [
    p.policyName, p.effect.replace("EFFECT_", ""), named(p.condition, true), named(p.consensus, true),
    button("Delete", async () => {
      await submit("DELETE_POLICY", "delete_policy", { policyId: p.policyId });
      await loadPolicies();
      say(`Policy ${p.policyName} deleted`);
    }, { confirm: true }),
  ]));
}

const policyIntent = () => ({
  policyName: $("policy-name").value.trim(), effect: $("policy-effect").value, condition: $("policy-condition").value.trim(),
  consensus: $("policy-consensus").value.trim(), notes: $("policy-notes").value.trim(),
});

const DECISIONS = { ALLOW: "Allowed", DENY: "Denied", CONSENSUS_NEEDED: "Needs more approvals", REJECTED: "Rejected" };

// checkPolicy is the dry run: what the policy engine decides about creating this policy now (evaluate_activity),
// each policy's outcome by name; a condition or consensus that does not compile is refused at its field. Only a
// checked policy, unchanged since, can be saved.
async function checkPolicy(ev) {
  ev.preventDefault();
  await busy($("check-policy"), async () => {
    const intent = policyIntent();
    if (!intent.policyName) throw new FieldError("policyName", "name the policy");
    const [dry, { policies }] = await Promise.all([
      query("evaluate_activity", { activity: activity("CREATE_POLICY_V3", intent) }), query("list_policies")]);
    const names = new Map(policies.map((p) => [p.policyId, p.policyName]));
    const outcomes = el("table");
    table(outcomes, ["Policy", "Outcome", "Error"], dry.policyEvaluations.map((p) => [
      names.get(p.policyId) || p.policyId, p.outcome.replace("OUTCOME_", "").toLowerCase(), p.error || ""]));
    const box = $("policy-dry-run");
    box.replaceChildren(
      el("p", { className: "decision " + dry.decision.toLowerCase() }, `${DECISIONS[dry.decision] || dry.decision}: ${dry.message}`),
      ...(dry.policyEvaluations.length ? [wrapped(outcomes)] : []));
    box.hidden = false;
    state.checkedPolicy = JSON.stringify(intent);
    $("save-policy").disabled = dry.decision === "DENY";
  });
}

async function savePolicy() {
  await busy($("save-policy"), async () => {
    const intent = policyIntent();
    if (JSON.stringify(intent) !== state.checkedPolicy) throw new Error("the policy changed since it was checked: check it again");
    await submit("CREATE_POLICY_V3", "create_policy", intent);
    $("policy-form").reset();
    policyChanged();
    await loadPolicies();
    say(`Policy ${intent.policyName} created`);
  }, $("policy-form"));
  $("save-policy").disabled = !state.checkedPolicy; // once saved, the emptied form is checked again first
}

// policyChanged withdraws a dry run the form no longer matches.
function policyChanged() {
  state.checkedPolicy = "";
  $("save-policy").disabled = true;
  $("policy-dry-run").hidden = true;
}

// ---- wallets ----

const ETH_PATH = "m/44'/60'/0'/0/";
const ethAccount = (index) => ({ curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: ETH_PATH + index, addressFormat: "ADDRESS_FORMAT_ETHEREUM" });

async function loadWallets() {
  const { wallets } = await query("list_wallets");
  const cards = await Promise.all(wallets.map(walletCard));
  $("wallets").replaceChildren(...cards);
  if (!wallets.length) $("wallets").textContent = "No wallets yet.";
  await showBalances();
}

// showBalances fills in what each Ethereum account holds on every configured chain, read live from the chains
// (again every 10 seconds while the page is shown); a chain that does not answer says so in its place.
async function showBalances() {
  const spots = [...document.querySelectorAll("#wallets .balance")];
  const addresses = [...new Set(spots.map((s) => s.dataset.address))];
  if (!addresses.length) return;
  const read = await Promise.all(state.chains.map((c) => balances(c, addresses).then((b) => [c, b], (e) => [c, null, e])));
  for (const spot of spots) {
    spot.classList.remove("muted");
    spot.replaceChildren(...read.map(([c, b, err]) => el("div", { "data-chain": c.caip2 },
      state.chains.length > 1 ? el("span", { className: "muted" }, c.name + ": ") : "",
      b ? b[spot.dataset.address].map((x) => `${units(x.amount, x.decimals)} ${x.symbol}`).join(" · ") : el("span", { className: "field-error" }, err.message))));
  }
  balanceCharts(spots, read);
}

// balanceCharts draws, for each chain and asset, what each account holds: ether for every account, a token for
// the accounts that hold it.
function balanceCharts(spots, read) {
  const shown = new Map([...$("balance-charts").children].map((f) => [f.dataset.key, f]));
  const charts = [];
  for (const [c, b] of read) {
    if (!b) continue;
    const assets = new Map();
    for (const spot of spots) {
      for (const x of b[spot.dataset.address]) {
        if (!assets.has(x.symbol)) assets.set(x.symbol, []);
        assets.get(x.symbol).push({ label: spot.dataset.label, value: value(x.amount, x.decimals), text: `${units(x.amount, x.decimals)} ${x.symbol}` });
      }
    }
    for (const [symbol, items] of assets) {
      const label = `${symbol} per account on ${c.name}`;
      const key = `${c.caip2}/${symbol}`;
      const figure = shown.get(key) || el("figure", { className: "figure", "data-asset": symbol, "data-key": key },
        el("figcaption", {}, label), el("div", { className: "chart-box" }));
      drawn(figure.querySelector(".chart-box"), (width) => horizontalBars(width, { items, label, key: "balance" }));
      charts.push(figure);
    }
  }
  $("balance-charts").replaceChildren(...charts);
  $("balance-card").hidden = !charts.length;
}

// walletCard shows a wallet's accounts a page at a time (a wallet may hold any number), adds the next Ethereum
// account, and deletes the wallet.
async function walletCard(w) {
  const t = el("table");
  const els = { prev: el("button", { type: "button" }, "‹ Previous"), next: el("button", { type: "button" }, "Next ›"),
    range: el("span", { className: "muted" }), list: t };
  const pager = new Pager("wallet-" + w.walletId, () => showAccounts(w, pager, t), els);
  await showAccounts(w, pager, t);
  return el("div", { className: "wallet", "data-wallet-id": w.walletId },
    el("h3", {}, w.walletName), wrapped(t),
    el("div", { className: "row pager" }, els.prev, els.range, els.next),
    el("div", { className: "row" },
      button("Add Ethereum account", async () => {
        await submit("CREATE_WALLET_ACCOUNTS", "create_wallet_accounts", { walletId: w.walletId, accounts: [ethAccount(await freeEthIndex(w, pager.shown))] });
        await loadWallets();
        say("Account added");
      }),
      button("Delete wallet", async () => {
        // A wallet never exported is deleted only when asked so: its keys are then gone for good.
        await submit("DELETE_WALLETS", "delete_wallets", { walletIds: [w.walletId], deleteWithoutExport: true });
        await loadWallets();
        say(`Wallet ${w.walletName} deleted`);
      }, { confirm: true })));
}

// showAccounts shows the wallet's page of accounts and their balances.
async function showAccounts(w, pager, t) {
  const { accounts: page } = await query("list_wallet_accounts", { walletId: w.walletId, paginationOptions: pager.options });
  const accounts = pager.page(page, (a) => a.walletAccountId);
  pager.shown = accounts;
  table(t, ["Address", "Format", "Path", "Curve", "Balances"], accounts.map((acc) => [
    code(acc.address), acc.addressFormat.replace("ADDRESS_FORMAT_", ""), acc.path, acc.curve.replace("CURVE_", ""),
    acc.addressFormat === "ADDRESS_FORMAT_ETHEREUM" && state.chains.length
      ? el("span", { className: "balance muted", "data-address": acc.address, "data-label": `${w.walletName} ${acc.path}` }, "…") : "",
  ]));
  if (t.isConnected) await showBalances();
}

// freeEthIndex finds an index i whose Ethereum account (ETH_PATH + i) the wallet lacks, reading a few accounts by
// path rather than every account: past the highest on the page shown, it gallops until a path is free, then halves the
// gap back to the first free one after a taken one (the next index, for a wallet whose accounts were added in order).
async function freeEthIndex(w, shown) {
  const taken = async (i) => query("get_wallet_account", { walletId: w.walletId, path: ETH_PATH + i }).then(() => true, (e) => {
    if (e.status === 404) return false;
    throw e;
  });
  let low = Math.max(-1, ...(shown || []).filter((a) => a.path.startsWith(ETH_PATH)).map((a) => Number(a.path.slice(ETH_PATH.length))));
  let high = low + 1;
  for (let step = 1; await taken(high); step *= 2) [low, high] = [high, high + step];
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2);
    if (await taken(mid)) low = mid;
    else high = mid;
  }
  return high;
}

async function createWallet(ev) {
  ev.preventDefault();
  await busy($("create-wallet"), async () => {
    await submit("CREATE_WALLET", "create_wallet", { walletName: $("wallet-name").value.trim(), accounts: $("wallet-eth").checked ? [ethAccount(0)] : [] });
    $("wallet-form").reset();
    await loadWallets();
    say("Wallet created");
  });
}

// ---- yields ----

// ethAccounts are the organization's Ethereum accounts, named by wallet and path: the first 100 of each wallet (a
// wallet may hold any number; the yields are read for these).
async function ethAccounts() {
  const { wallets } = await query("list_wallets");
  const lists = await Promise.all(wallets.map((w) => query("list_wallet_accounts", { walletId: w.walletId, paginationOptions: { limit: "100" } })
    .then(({ accounts }) => accounts.filter((a) => a.addressFormat === "ADDRESS_FORMAT_ETHEREUM")
      .map((a) => ({ address: a.address, label: `${w.walletName} ${a.path}` })))));
  return lists.flat();
}

async function loadYields() {
  const known = !!yieldKey();
  $("forget-yield-key").hidden = !known;
  $("yield-key-set").hidden = !known;
  $("yield-key").closest("label").hidden = known;
  $("use-yield-key").hidden = known;
  $("yield-body").hidden = !known;
  if (!yieldKey()) return;
  await showYields(await ethAccounts());
}

// useYieldKey keeps the project's API key for this tab and shows the yields; a key the service refuses is
// forgotten, and said so at its field.
async function useYieldKey(ev) {
  ev.preventDefault();
  await busy($("use-yield-key"), async () => {
    const key = $("yield-key").value.trim();
    if (!key) throw new FieldError("apiKey", "the yield service's API key of a project");
    setYieldKey(key);
    try {
      await loadYields();
    } catch (e) {
      setYieldKey("");
      await loadYields(); // back to asking for a key
      throw e;
    }
    $("yield-key").value = "";
  });
}

// ---- sub-organizations ----
// The parent's credentials read a direct sub-organization but cannot change it (only logins may be submitted there
// by the parent), so a sub-organization is shown read-only: no forms, no buttons that act.

const SUBORG_FILTERS = [["NAME", "Name"], ["USERNAME", "User name"], ["EMAIL", "E-mail"], ["WALLET_ACCOUNT_ADDRESS", "Wallet address"]];
const suborgPager = new Pager("suborgs", () => loadSuborgs());

async function loadSuborgs() {
  const filter = $("suborg-value").value.trim() ? { filterType: $("suborg-filter-type").value, filterValue: $("suborg-value").value.trim() } : {};
  const { organizationIds } = await query("list_suborgs", { ...filter, paginationOptions: suborgPager.options });
  const orgs = await Promise.all(suborgPager.visible(organizationIds)
    .map((id) => query("get_organization", { organizationId: id }).then((r) => r.organizationData)));
  suborgPager.page(organizationIds, (id) => id);
  table($("suborgs"), ["Name", "Users", "Wallets", "ID", ""], orgs.map((o) => [
    o.name, o.users.map((u) => u.userName).join(", "), String(o.wallets.length), code(o.organizationId),
    button("Open", async () => enterOrg(o), { mutates: false }),
  ]));
}

async function findSuborgs(ev) {
  ev.preventDefault();
  suborgPager.reset();
  await busy($("find-suborgs"), loadSuborgs);
}

// enterOrg shows a sub-organization, read-only; leaveOrg returns to the organization signed in to.
function enterOrg(o) {
  state.org = o.organizationId;
  $("viewing-name").textContent = o.name;
  $("viewing").hidden = false;
  $("app").classList.add("readonly");
  $("org-name").textContent = `${state.root.name} › ${o.name} (read-only) · ${state.root.user}`;
  resetPages();
  showTab("users");
}

function leaveOrg() {
  state.org = state.root.id;
  $("viewing").hidden = true;
  $("app").classList.remove("readonly");
  $("org-name").textContent = `${state.root.name} · ${state.root.user}`;
  resetPages();
  showTab("suborgs");
}

// resetPages forgets what was shown of the organization left: the pages, the details open.
function resetPages() {
  activityPager.reset();
  usersPager.reset();
  users.shown = "";
  for (const id of ["user-detail", "activity-detail"]) $(id).hidden = true;
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
  const { deliveries } = await query("list_webhook_deliveries", { endpointId: e.endpointId, limit: 10 });
  const list = el("table", { className: "deliveries" });
  // A dead letter is sent again by REPLAY_WEBHOOK_DELIVERIES (Sigil's activity), under the same event id.
  const replay = (deliveryIds) => async () => {
    await submit("REPLAY_WEBHOOK_DELIVERIES", "replay_webhook_deliveries", { endpointId: e.endpointId, deliveryIds });
    say("Queued again");
    setTimeout(() => loadWebhooks().catch((err) => showError($("tab-webhooks"), err)), 1500);
  };
  table(list, ["Created", "Event", "State", "Attempts", "Last answer", ""], deliveries.map((d) => [
    ms(d.createdMs), d.eventId, d.state.replace("WEBHOOK_DELIVERY_STATE_", ""), String(d.attempts),
    d.lastError || (d.lastStatusCode ? String(d.lastStatusCode) : ""),
    d.state === "WEBHOOK_DELIVERY_STATE_DEAD" && e.isActive ? button("Replay", replay([d.deliveryId])) : "",
  ]));
  const row = el("div", { className: "row" },
    // A test event, the way Turnkey's quickstart makes one: an update of the endpoint that changes nothing, whose
    // ACTIVITY_UPDATES event the endpoint itself receives.
    button("Send test event", async () => {
      await submit("UPDATE_WEBHOOK_ENDPOINT", "update_webhook_endpoint", { endpointId: e.endpointId, name: e.name });
      say("Test event sent");
      setTimeout(() => loadWebhooks().catch((err) => showError($("tab-webhooks"), err)), 1500);
    }),
    button(e.isActive ? "Deactivate" : "Activate", async () => {
      await submit("UPDATE_WEBHOOK_ENDPOINT", "update_webhook_endpoint", { endpointId: e.endpointId, isActive: !e.isActive });
      await loadWebhooks();
    }),
    button("Refresh", loadWebhooks, { mutates: false }),
    ...(e.isActive && deliveries.some((d) => d.state === "WEBHOOK_DELIVERY_STATE_DEAD") ? [button("Replay dead letters", replay([]))] : []),
    button("Delete", async () => {
      await submit("DELETE_WEBHOOK_ENDPOINT", "delete_webhook_endpoint", { endpointId: e.endpointId });
      await loadWebhooks();
      say("Endpoint deleted");
    }, { confirm: true }));
  return el("div", { className: "endpoint", "data-endpoint-id": e.endpointId },
    el("h3", {}, e.name),
    facts([["Name", e.name], ["URL", e.url], ["Status", e.isActive ? "Active" : "Inactive"],
      ["Events", (e.subscriptions || []).map((s) => s.eventType + (s.filtersJson ? " " + s.filtersJson : "")).join(", ")], ["ID", e.endpointId]]),
    row, wrapped(list));
}

async function createEndpoint(ev) {
  ev.preventDefault();
  await busy($("create-endpoint"), async () => {
    await submit("CREATE_WEBHOOK_ENDPOINT", "create_webhook_endpoint", {
      url: $("endpoint-url").value.trim(), name: $("endpoint-name").value.trim(), subscriptions: [{ eventType: "ACTIVITY_UPDATES" }],
    });
    $("endpoint-form").reset();
    await loadWebhooks();
    say("Endpoint created");
  });
}

const loaders = { auth: loadAuth, users: loadUsers, policies: loadPolicies, wallets: loadWallets,
  activities: () => Promise.all([loadActivities(), loadActivityChart()]),
  yields: loadYields, suborgs: loadSuborgs, webhooks: loadWebhooks };

// refreshers are the tabs that show live values, read again every 10 seconds while shown.
const refreshers = { wallets: () => showBalances() };

function showTab(name) {
  for (const b of document.querySelectorAll(".tabs button")) {
    b.classList.toggle("active", b.dataset.tab === name);
    b.setAttribute("aria-selected", String(b.dataset.tab === name));
  }
  for (const t of Object.keys(loaders)) $("tab-" + t).hidden = t !== name;
  clearInterval(state.refresh);
  loaders[name]().catch((e) => showError($("tab-" + name), e));
  if (refreshers[name]) state.refresh = setInterval(() => refreshers[name]().catch((e) => showError($("tab-" + name), e)), 10000);
}

// ---- wiring ----

async function main() {
  const cfg = await (await fetch("config.json")).json();
  state.coordinator = cfg.coordinatorUrl.replace(/\/$/, "");
  state.proxy = cfg.authProxyUrl || "";
  state.chains = cfg.chains || [];
  if (cfg.organizationId) $("org-id").value = cfg.organizationId;
  renderMethods();
  // The buttons come disabled (index.html) until now, so that a click made before the configuration has loaded is
  // not lost without a word.
  for (const [id, signIn] of [["sign-in", signInWithAPIKey], ["sign-in-passkey", signInWithPasskey]]) {
    $(id).addEventListener("click", (e) => busy(e.target, signIn));
    $(id).disabled = false;
  }
  $("sign-out").addEventListener("click", signOut);
  $("auth-form").addEventListener("submit", saveAuth);
  $("endpoint-form").addEventListener("submit", createEndpoint);
  $("user-form").addEventListener("submit", createUser);
  $("policy-form").addEventListener("submit", checkPolicy);
  $("policy-form").addEventListener("input", policyChanged);
  $("save-policy").addEventListener("click", savePolicy);
  $("wallet-form").addEventListener("submit", createWallet);
  $("suborg-form").addEventListener("submit", findSuborgs);
  $("leave-org").addEventListener("click", leaveOrg);
  $("yield-key-form").addEventListener("submit", useYieldKey);
  $("forget-yield-key").addEventListener("click", () => {
    setYieldKey("");
    loadYields();
  });
  document.querySelector("[data-tab=yields]").hidden = !cfg.yield;
  $("suborg-filter-type").replaceChildren(...SUBORG_FILTERS.map(([value, label]) => el("option", { value }, label)));
  $("enable-proxy").addEventListener("click", (e) => busy(e.target, async () => {
    await submit("ENABLE_AUTH_PROXY", "enable_auth_proxy", {});
    await loadAuth();
    say("Auth proxy enabled");
  }));
  $("toggle-proxy").addEventListener("click", (e) => busy(e.target, async () => {
    if (state.config.enabled) await submit("DISABLE_AUTH_PROXY", "disable_auth_proxy", {});
    else await submit("ENABLE_AUTH_PROXY", "enable_auth_proxy", {});
    await loadAuth();
    say(state.config.enabled ? "Auth proxy enabled" : "Auth proxy disabled");
  }));
  $("rotate-key").addEventListener("click", (e) => busy(e.target, async () => {
    await submit("ROTATE_AUTH_PROXY_KEY", "rotate_auth_proxy_key", {});
    await loadAuth();
    say("Proxy key rotated");
  }));
  for (const b of document.querySelectorAll(".tabs button")) b.addEventListener("click", () => showTab(b.dataset.tab));
  if (location.hash.includes("key=")) await signInFromLink();
  else await resumeSession();
}

main().catch((e) => showError($("app").hidden ? $("signin") : document.querySelector(".tab:not([hidden])"), e));
