// app.js: the page. It walks the user through e-mail → code → wallet with the calls of sigil.js and keeps the
// session key in memory only: reloading the page signs the user out.
import { AuthProxy, Coordinator, createSessionKey, ethereumWallet, jwtClaims } from "./sigil.js";

const $ = (id) => document.getElementById(id);

/** state of the sign-in under way, and of the session once logged in. */
let state = {};

/**
 * loadConfig reads the stack's addresses: config.json when a server provides it (`sigil demo web` writes it from
 * bootstrap.json), else the query parameters (?coordinatorUrl=…&authProxyUrl=…&authProxyConfigId=…), for the page
 * hosted by any static file server. A config.json always wins, so a link cannot point this page at other servers.
 */
async function loadConfig() {
  let config;
  try {
    const res = await fetch("config.json", { cache: "no-store" });
    if (res.ok) config = await res.json();
  } catch {
    // No config.json: fall back to the query parameters.
  }
  if (!config) config = Object.fromEntries(new URLSearchParams(location.search));
  const missing = ["coordinatorUrl", "authProxyUrl", "authProxyConfigId"].filter((k) => !config[k]);
  if (missing.length > 0) {
    throw new Error(`This page needs ${missing.join(", ")}: serve it with \`sigil demo web\`, or pass them as query parameters.`);
  }
  return config;
}

// ---------------------------------------------------------------------------------------------------------------
// Showing things

function show(panel) {
  for (const el of document.querySelectorAll("[data-panel]")) el.hidden = el.dataset.panel !== panel;
  for (const li of document.querySelectorAll(".steps li")) {
    if (li.dataset.step === panel) li.setAttribute("aria-current", "step");
    else li.removeAttribute("aria-current");
  }
  const first = document.querySelector(`[data-panel="${panel}"] input, [data-panel="${panel}"] textarea`);
  first?.focus();
}

function status(text) {
  $("status").textContent = text;
}

function showError(err) {
  $("error").textContent = err ? err.message : "";
  $("error").hidden = !err;
}

/** busy runs an action with its button disabled and a status line, and shows any error. */
async function busy(button, text, action) {
  showError(null);
  button.disabled = true;
  button.classList.add("busy");
  status(text);
  try {
    await action();
    status("");
  } catch (err) {
    console.error(err);
    status("");
    showError(err);
  } finally {
    button.disabled = false;
    button.classList.remove("busy");
  }
}

async function copy(text, button) {
  await navigator.clipboard.writeText(text);
  const label = button.textContent;
  button.textContent = "Copied";
  setTimeout(() => (button.textContent = label), 1500);
}

// ---------------------------------------------------------------------------------------------------------------
// The journey

async function sendCode(config, proxy) {
  const email = $("email").value.trim().toLowerCase();
  // A fresh key for each attempt: the verification token binds it, the login registers it.
  const key = await createSessionKey();
  const otpId = await proxy.sendEmailCode(email);
  state = { email, key, otpId };
  $("sent-to").textContent = email;
  $("code").value = "";
  if (config.devOutboxUrl) {
    $("dev-outbox-link").href = config.devOutboxUrl;
    $("dev-outbox").hidden = false;
  }
  show("code");
}

async function verifyAndLogIn(config, proxy) {
  const { email, key, otpId } = state;
  // Keep the token once the code checks out: if a later step fails, Continue retries from there.
  state.token ??= await proxy.verifyCode(otpId, $("code").value.trim().toUpperCase(), key);
  const token = state.token;

  status("Looking up your account…");
  let organizationId = await proxy.findAccount(email, token);
  let created = false;
  if (!organizationId) {
    status("Creating your account and wallet…");
    ({ organizationId } = await proxy.signUp(email, token, key, ethereumWallet()));
    created = true;
  }

  status("Logging in…");
  const session = await proxy.logIn(token, key, organizationId);

  status("Loading your wallet…");
  const sigil = new Coordinator(config.coordinatorUrl, key);
  const me = await sigil.query("whoami", { organizationId });
  const address = await sigil.firstEthereumAddress(organizationId);
  if (!address) throw new Error("Your account has no Ethereum wallet account.");

  state = { sigil, organizationId, address };
  const expires = new Date(jwtClaims(session).exp * 1000);
  $("welcome").textContent = created ? "Welcome! Your wallet is ready" : "Welcome back";
  $("wallet-address").textContent = address;
  $("user-name").textContent = me.username;
  $("organization-id").textContent = me.organizationId;
  $("session-expiry").textContent = `until ${expires.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })}`;
  $("signature-box").hidden = true;
  show("wallet");
}

async function signMessage() {
  const { sigil, organizationId, address } = state;
  const signature = await sigil.signMessage(organizationId, address, $("message").value);
  $("signature").textContent = signature;
  $("signature-box").hidden = false;
}

function signOut() {
  state = {}; // the key was never stored anywhere else
  showError(null);
  $("email").value = "";
  show("email");
}

// ---------------------------------------------------------------------------------------------------------------
// Wiring

async function main() {
  let config;
  try {
    config = await loadConfig();
  } catch (err) {
    showError(err);
    $("send-code").disabled = true;
    return;
  }
  const proxy = new AuthProxy(config.authProxyUrl, config.authProxyConfigId);

  // The configuration decides the code's shape; shape the input to match (digits get a numeric keypad).
  proxy.settings().then((s) => {
    const length = Number(s.otpLength) || 9;
    $("code").maxLength = length;
    $("code").placeholder = s.otpAlphanumeric ? "X".repeat(length) : "0".repeat(length);
    $("code").inputMode = s.otpAlphanumeric ? "text" : "numeric";
  }, showError);

  const on = (form, button, text, action) =>
    $(form).addEventListener("submit", (e) => {
      e.preventDefault();
      busy($(button), text, action);
    });
  on("email-form", "send-code", "Sending your code…", () => sendCode(config, proxy));
  on("code-form", "verify", "Checking your code…", () => verifyAndLogIn(config, proxy));
  on("sign-form", "sign", "Signing…", signMessage);
  $("change-email").addEventListener("click", signOut);
  $("sign-out").addEventListener("click", signOut);
  $("copy-address").addEventListener("click", (e) => copy($("wallet-address").textContent, e.target));
  $("copy-signature").addEventListener("click", (e) => copy($("signature").textContent, e.target));
}

main();
