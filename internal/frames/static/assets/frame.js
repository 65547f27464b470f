// What every Sigil frame shares: the message protocol of @turnkey/iframe-stamper, the frame's embedded key, the
// checks of signed bundles against the deployment's signer key, HPKE as @turnkey/crypto speaks it, and the encodings.
// Each frame's own script (export.js, import.js, export-and-sign.js) calls SigilFrame.serve with its request handlers.
//
// Key material stays in this page: the embedded key is a non-extractable WebCrypto key, decrypted bytes are zeroed
// once encoded for display or imported into WebCrypto, and nothing but public keys, sealed bundles, signatures and
// error messages (which never quote a secret) is posted to the embedder.
"use strict";

(() => {
  const utf8 = new TextEncoder();
  const fromUtf8 = new TextDecoder("utf-8", { fatal: true });
  const body = document.body.dataset;
  const signerHex = body.signerPublicKey;
  const embedders = JSON.parse(body.embedderOrigins);

  // ---- encodings --------------------------------------------------------------------------------------------------

  const toHex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

  function fromHex(s, what) {
    if (typeof s !== "string" || s.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(s)) {
      throw new Error(`${what} is not hexadecimal`);
    }
    const out = new Uint8Array(s.length / 2);
    for (let i = 0; i < out.length; i++) out[i] = parseInt(s.slice(2 * i, 2 * i + 2), 16);
    return out;
  }

  const B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

  function base58Encode(bytes) {
    let zeros = 0;
    while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
    const digits = []; // base 58, least significant first
    for (let i = zeros; i < bytes.length; i++) {
      let carry = bytes[i];
      for (let j = 0; j < digits.length; j++) {
        carry += digits[j] * 256;
        digits[j] = carry % 58;
        carry = Math.floor(carry / 58);
      }
      for (; carry > 0; carry = Math.floor(carry / 58)) digits.push(carry % 58);
    }
    return "1".repeat(zeros) + digits.reverse().map((d) => B58[d]).join("");
  }

  function base58Decode(s, what) {
    if (typeof s !== "string" || s.length === 0 || s.length > 200) throw new Error(`${what} is not base58`);
    let zeros = 0;
    while (zeros < s.length && s[zeros] === "1") zeros++;
    const bytes = []; // base 256, least significant first
    for (let i = zeros; i < s.length; i++) {
      let carry = B58.indexOf(s[i]);
      if (carry < 0) throw new Error(`${what} is not base58`);
      for (let j = 0; j < bytes.length; j++) {
        carry += bytes[j] * 58;
        bytes[j] = carry & 0xff;
        carry >>= 8;
      }
      for (; carry > 0; carry >>= 8) bytes.push(carry & 0xff);
    }
    return Uint8Array.from([...new Array(zeros).fill(0), ...bytes.reverse()]);
  }

  const concat = (...parts) => {
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  };

  // sameString compares in time that depends only on the lengths: organization and user ids, and signer keys.
  function sameString(a, b) {
    if (typeof a !== "string" || typeof b !== "string") return false;
    const x = utf8.encode(a);
    const y = utf8.encode(b);
    let diff = x.length ^ y.length;
    for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
    return diff === 0;
  }

  // ---- origins ----------------------------------------------------------------------------------------------------

  // originAllowed matches as the server does: an exact origin, or scheme://host:* for any port of that host.
  function originAllowed(origin) {
    const o = String(origin).toLowerCase();
    return embedders.some((allowed) => {
      const a = allowed.toLowerCase();
      if (a === o) return true;
      if (!a.endsWith(":*")) return false;
      const prefix = a.slice(0, -1); // scheme://host:
      return o.startsWith(prefix) && /^[0-9]{1,5}$/.test(o.slice(prefix.length));
    });
  }

  // ---- what the frame shows ---------------------------------------------------------------------------------------

  const element = (id) => document.getElementById(id);

  function showError(message) {
    element("status").textContent = "";
    element("error").textContent = message;
  }

  function showStatus(message) {
    element("error").textContent = "";
    element("status").textContent = message;
  }

  // Settings the embedder may apply (APPLY_SETTINGS): a few CSS properties of the frame's one field, with values of
  // plain characters only (no url(), no quotes), as the reference's frames allow.
  const styleProperties = new Set(["padding", "margin", "borderWidth", "borderStyle", "borderColor", "borderRadius", "fontSize",
    "fontWeight", "fontFamily", "color", "backgroundColor", "width", "height", "maxWidth", "maxHeight", "lineHeight",
    "boxShadow", "textAlign", "overflowWrap", "wordWrap", "resize"]);

  function applySettings(json) {
    let settings;
    try {
      settings = JSON.parse(json);
    } catch {
      throw new Error("settings are not JSON");
    }
    const styles = settings?.styles ?? {};
    if (typeof styles !== "object" || Array.isArray(styles)) throw new Error("settings.styles must be an object");
    const target = element("plaintext") ?? element("secret");
    for (const [name, value] of Object.entries(styles)) {
      if (!styleProperties.has(name)) throw new Error(`the style ${name} cannot be set`);
      if (typeof value !== "string" || !/^[#(),.%\w\s-]{1,100}$/.test(value) || /url\s*\(|expression/i.test(value)) {
        throw new Error(`the value of the style ${name} is not accepted`);
      }
      target.style[name] = value;
      if (name === "backgroundColor") document.body.style.backgroundColor = value;
    }
  }

  // ---- the embedded key -------------------------------------------------------------------------------------------

  // The frame's P-256 key: export bundles are encrypted to it. It lives as long as the page, never stored and never
  // extractable; a reload makes a new one, so a bundle made for an earlier page cannot be opened again.
  //
  // An override (SET_EMBEDDED_KEY_OVERRIDE, export-and-sign) replaces it for decryption: a P-256 key the embedder had
  // exported to this frame, so that bundles made for that key (a key the embedder keeps across pages) open here. It is
  // held in memory only, as the key itself, and dropped by RESET_TO_DEFAULT_EMBEDDED_KEY or RESET_EMBEDDED_KEY.
  const embedded = {
    key: null,
    publicRaw: null,
    override: null, // {key: {privateKey}, publicRaw}
    async init() {
      if (!this.key) {
        this.key = await crypto.subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, false, ["deriveBits"]);
        this.publicRaw = new Uint8Array(await crypto.subtle.exportKey("raw", this.key.publicKey));
      }
      return toHex(this.publicRaw);
    },
    // receiver is the key bundles are decrypted with: the override, else the frame's own.
    receiver() {
      return this.override ?? (this.key ? { key: this.key, publicRaw: this.publicRaw } : null);
    },
    // setOverride makes a 32-byte P-256 private scalar the key bundles are decrypted with.
    async setOverride(scalar) {
      if (scalar.length !== 32) throw new Error(`invalid decryption key length: expected 32 bytes, got ${scalar.length}`);
      const pkcs8 = concat(p256Pkcs8, scalar);
      try {
        let exportable;
        try {
          exportable = await crypto.subtle.importKey("pkcs8", pkcs8, { name: "ECDH", namedCurve: "P-256" }, true, ["deriveBits"]);
        } catch {
          throw new Error("the bundle does not hold a P-256 private key");
        }
        const jwk = await crypto.subtle.exportKey("jwk", exportable);
        const coordinate = (c) => Uint8Array.from(atob(c.replace(/-/g, "+").replace(/_/g, "/")), (ch) => ch.charCodeAt(0));
        const publicRaw = concat(Uint8Array.of(4), coordinate(jwk.x), coordinate(jwk.y));
        jwk.d = "";
        const privateKey = await crypto.subtle.importKey("pkcs8", pkcs8, { name: "ECDH", namedCurve: "P-256" }, false, ["deriveBits"]);
        this.override = { key: { privateKey }, publicRaw };
        return toHex(publicRaw);
      } finally {
        pkcs8.fill(0);
      }
    },
    clear() {
      this.key = null;
      this.publicRaw = null;
      this.override = null;
    },
  };

  // p256Pkcs8 is the PKCS#8 PrivateKeyInfo of a P-256 key up to its 32-byte scalar (RFC 5958, RFC 5480 §2.1.1,
  // RFC 5915 §3): version 0, id-ecPublicKey with secp256r1, and an ECPrivateKey of version 1 whose scalar follows.
  const p256Pkcs8 = new Uint8Array([0x30, 0x41, 0x02, 0x01, 0x00, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02,
    0x01, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07, 0x04, 0x27, 0x30, 0x25, 0x02, 0x01, 0x01, 0x04, 0x20]);

  // ---- signed bundles ---------------------------------------------------------------------------------------------

  let signerKey;
  const signer = async () => (signerKey ??= await crypto.subtle.importKey("raw", fromHex(signerHex, "the signer key"),
    { name: "ECDSA", namedCurve: "P-256" }, false, ["verify"]));

  // derToRaw turns an ASN.1 DER ECDSA signature into the r‖s WebCrypto verifies.
  function derToRaw(der) {
    const fail = () => { throw new Error("the bundle's dataSignature is not a DER ECDSA signature"); };
    if (der.length < 8 || der[0] !== 0x30 || der[1] !== der.length - 2) fail();
    const out = new Uint8Array(64);
    let at = 2;
    for (const half of [0, 32]) {
      if (der[at] !== 0x02) fail();
      const len = der[at + 1];
      let int = der.subarray(at + 2, at + 2 + len);
      if (len === 0 || int.length !== len) fail();
      while (int.length > 1 && int[0] === 0) int = int.subarray(1);
      if (int.length > 32) fail();
      out.set(int, half + 32 - int.length);
      at += 2 + len;
    }
    if (at !== der.length) fail();
    return out;
  }

  // verifyBundle checks a signed bundle ({version, data, dataSignature, enclaveQuorumPublic}) against the
  // deployment's signer key and returns its signed data, parsed.
  async function verifyBundle(text) {
    if (typeof text !== "string" || text.length === 0 || text.length > 65536) throw new Error("the bundle is not a string of at most 64 KiB");
    let bundle;
    try {
      bundle = JSON.parse(text);
    } catch {
      throw new Error("the bundle is not JSON");
    }
    if (bundle?.version !== "v1.0.0") throw new Error(`unsupported version: ${String(bundle?.version).slice(0, 20)}`);
    for (const field of ["data", "dataSignature", "enclaveQuorumPublic"]) {
      if (typeof bundle[field] !== "string" || bundle[field] === "") throw new Error(`missing "${field}" in bundle`);
    }
    if (!sameString(bundle.enclaveQuorumPublic.toLowerCase(), signerHex)) {
      throw new Error("the bundle is signed by another key than this deployment's signer key");
    }
    const data = fromHex(bundle.data, "the bundle's data");
    const signature = derToRaw(fromHex(bundle.dataSignature, "the bundle's dataSignature"));
    if (!(await crypto.subtle.verify({ name: "ECDSA", hash: "SHA-256" }, await signer(), signature, data))) {
      throw new Error("failed to verify the bundle's signature with this deployment's signer key");
    }
    let signed;
    try {
      signed = JSON.parse(fromUtf8.decode(data));
    } catch {
      throw new Error("the bundle's signed data is not JSON");
    }
    if (signed === null || typeof signed !== "object") throw new Error("the bundle's signed data is not a JSON object");
    return signed;
  }

  // checkId compares an id the embedder names with the one the bundle was signed for: the answer the reference's
  // frames give.
  function checkId(what, expected, found) {
    if (!expected) throw new Error(`${what} is required`);
    if (!sameString(found, expected)) {
      throw new Error(`${what} does not match expected value. Expected: ${expected}. Found: ${String(found).slice(0, 100)}.`);
    }
  }

  // ---- HPKE: RFC 9180 base mode, DHKEM(P-256, HKDF-SHA256), HKDF-SHA256, AES-256-GCM ---------------------------------

  const kemSuite = concat(utf8.encode("KEM"), new Uint8Array([0x00, 0x10]));
  const hpkeSuite = concat(utf8.encode("HPKE"), new Uint8Array([0x00, 0x10, 0x00, 0x01, 0x00, 0x02]));
  const info = utf8.encode("turnkey_hpke");
  const version = utf8.encode("HPKE-v1");
  const empty = new Uint8Array(0);

  async function hmac(key, message) {
    const k = await crypto.subtle.importKey("raw", key.length ? key : new Uint8Array(32), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    return new Uint8Array(await crypto.subtle.sign("HMAC", k, message));
  }
  const labeledExtract = (suite, salt, label, ikm) => hmac(salt, concat(version, suite, utf8.encode(label), ikm));
  const labeledExpand = async (suite, prk, label, context, length) =>
    (await hmac(prk, concat(new Uint8Array([0, length]), version, suite, utf8.encode(label), context, new Uint8Array([1])))).slice(0, length);

  // aeadKey derives the key and nonce of the one message a bundle carries.
  async function aeadKey(dh, enc, receiverRaw) {
    const prk = await labeledExtract(kemSuite, empty, "eae_prk", dh);
    const shared = await labeledExpand(kemSuite, prk, "shared_secret", concat(enc, receiverRaw), 32);
    const context = concat(new Uint8Array([0]), await labeledExtract(hpkeSuite, empty, "psk_id_hash", empty),
      await labeledExtract(hpkeSuite, empty, "info_hash", info));
    const secret = await labeledExtract(hpkeSuite, shared, "secret", empty);
    const key = await labeledExpand(hpkeSuite, secret, "key", context, 32);
    const nonce = await labeledExpand(hpkeSuite, secret, "base_nonce", context, 12);
    const aes = await crypto.subtle.importKey("raw", key, "AES-GCM", false, ["encrypt", "decrypt"]);
    [dh, prk, shared, secret, key].forEach((b) => b.fill(0));
    return { aes, nonce, aad: concat(enc, receiverRaw) };
  }

  const importPublic = (raw, usages) => crypto.subtle.importKey("raw", raw, { name: "ECDH", namedCurve: "P-256" }, true, usages);

  // hpkeOpen decrypts a ciphertext sent to the embedded key.
  async function hpkeOpen(encHex, ciphertextHex) {
    const receiver = embedded.receiver();
    if (!receiver) throw new Error("this frame has no embedded key (it was reset): initialize one and export again");
    const enc = fromHex(encHex, "encappedPublic");
    const ciphertext = fromHex(ciphertextHex, "ciphertext");
    if (enc.length !== 65 || enc[0] !== 4) throw new Error("encappedPublic is not an uncompressed P-256 key");
    let sender;
    try {
      sender = await importPublic(enc, []);
    } catch {
      throw new Error("encappedPublic is not a P-256 point");
    }
    const dh = new Uint8Array(await crypto.subtle.deriveBits({ name: "ECDH", public: sender }, receiver.key.privateKey, 256));
    const { aes, nonce, aad } = await aeadKey(dh, enc, receiver.publicRaw);
    try {
      return new Uint8Array(await crypto.subtle.decrypt({ name: "AES-GCM", iv: nonce, additionalData: aad }, aes, ciphertext));
    } catch {
      throw new Error("the bundle does not decrypt with this frame's embedded key: it was made for another key, or changed");
    }
  }

  // hpkeSeal encrypts plaintext to a receiver's uncompressed P-256 key, as {encappedPublic, ciphertext} in hex.
  async function hpkeSeal(receiverRaw, plaintext) {
    const receiver = await importPublic(receiverRaw, []);
    const ephemeral = await crypto.subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, false, ["deriveBits"]);
    const enc = new Uint8Array(await crypto.subtle.exportKey("raw", ephemeral.publicKey));
    const dh = new Uint8Array(await crypto.subtle.deriveBits({ name: "ECDH", public: receiver }, ephemeral.privateKey, 256));
    const { aes, nonce, aad } = await aeadKey(dh, enc, receiverRaw);
    const ciphertext = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv: nonce, additionalData: aad }, aes, plaintext));
    return { encappedPublic: toHex(enc), ciphertext: toHex(ciphertext) };
  }

  // ---- export bundles ---------------------------------------------------------------------------------------------

  // Every export bundle this page opened, by its encapsulated key (one per encryption): a bundle is opened once.
  const opened = new Set();

  // openExportBundle verifies an export bundle, checks the organization it was made for, refuses one opened
  // before, decrypts it with the embedded key and hands the plaintext to use, zeroing it after. The bundle counts as
  // opened once use has succeeded: one refused (a key that is not the address named) may be injected again.
  async function openExportBundle(text, organizationId, use) {
    if (!organizationId) {
      throw new Error("organization id is required: @turnkey/iframe-stamper 2 and later pass it with the bundle");
    }
    const signed = await verifyBundle(text);
    checkId("organization id", organizationId, signed.organizationId);
    if (typeof signed.encappedPublic !== "string" || !signed.encappedPublic) throw new Error('missing "encappedPublic" in bundle signed data');
    if (typeof signed.ciphertext !== "string" || !signed.ciphertext) throw new Error('missing "ciphertext" in bundle signed data');
    const id = signed.encappedPublic.toLowerCase();
    if (opened.has(id)) throw new Error("this bundle was opened in this frame already: a bundle is opened once");
    const plaintext = await hpkeOpen(signed.encappedPublic, signed.ciphertext);
    try {
      const result = await use(plaintext);
      opened.add(id);
      return result;
    } finally {
      plaintext.fill(0);
    }
  }

  // ---- Ed25519 (Solana keys) --------------------------------------------------------------------------------------

  const ed25519Pkcs8 = new Uint8Array([0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20]);

  // ed25519Key imports a 32-byte seed for signing (not extractable) and returns it with its public key.
  async function ed25519Key(seed) {
    if (seed.length !== 32) throw new Error("an Ed25519 private key is 32 bytes");
    const pkcs8 = concat(ed25519Pkcs8, seed);
    try {
      const exportable = await crypto.subtle.importKey("pkcs8", pkcs8, { name: "Ed25519" }, true, ["sign"]);
      const jwk = await crypto.subtle.exportKey("jwk", exportable);
      const publicKey = Uint8Array.from(atob(jwk.x.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
      jwk.d = "";
      const key = await crypto.subtle.importKey("pkcs8", pkcs8, { name: "Ed25519" }, false, ["sign"]);
      return { key, publicKey };
    } finally {
      pkcs8.fill(0);
    }
  }

  // ---- the protocol -----------------------------------------------------------------------------------------------

  // serve answers the embedder: it accepts one TURNKEY_INIT_MESSAGE_CHANNEL, from the parent window on an embedder
  // origin, answers PUBLIC_KEY_READY on the port it hands over, then runs the requests that arrive on that port, one
  // at a time, with handlers[type] (an async function of the message returning [answerType, value]). A handler that
  // throws answers ERROR with its message, which the frame shows too.
  function serve(handlers) {
    const common = {
      GET_EMBEDDED_PUBLIC_KEY: async () => ["EMBEDDED_PUBLIC_KEY", embedded.key ? toHex(embedded.publicRaw) : ""],
      INIT_EMBEDDED_KEY: async () => ["EMBEDDED_PUBLIC_KEY", await embedded.init()],
      RESET_EMBEDDED_KEY: async () => {
        embedded.clear();
        return ["RESET_EMBEDDED_KEY", true];
      },
      APPLY_SETTINGS: async (m) => {
        applySettings(m.value);
        document.body.dataset.settings = "applied";
        return ["SETTINGS_APPLIED", true];
      },
    };
    let port = null;
    let queue = Promise.resolve();
    window.addEventListener("message", (event) => {
      if (window.parent === window || event.source !== window.parent) {
        showError(`A message from ${event.origin || "another window"} was refused: this frame answers only the page that embeds it.`);
        return;
      }
      if (!originAllowed(event.origin)) {
        showError(`A message from ${event.origin} was refused: this frame may be embedded only by ${embedders.join(", ")}.`);
        return;
      }
      if (event.data?.type !== "TURNKEY_INIT_MESSAGE_CHANNEL" || !event.ports?.[0]) {
        showError("A message outside the frame's message channel was refused: send TURNKEY_INIT_MESSAGE_CHANNEL with a port first.");
        return;
      }
      if (port) {
        showError("A second TURNKEY_INIT_MESSAGE_CHANNEL was refused: this frame already has its channel.");
        return;
      }
      port = event.ports[0];
      port.onmessage = (e) => {
        queue = queue.then(() => answer(e.data));
      };
      embedded.init().then((publicKey) => {
        port.postMessage({ type: "PUBLIC_KEY_READY", value: publicKey });
        document.body.dataset.channel = "open"; // the frame's state, for styles and for tests that wait on it
      });
    });

    async function answer(message) {
      const requestId = typeof message?.requestId === "string" ? message.requestId : undefined;
      const handler = Object.hasOwn(handlers, message?.type) ? handlers[message.type] : Object.hasOwn(common, message?.type) ? common[message.type] : null;
      try {
        if (!handler) throw new Error(`unknown message type: ${String(message?.type).slice(0, 60)}`);
        const [type, value] = await handler(message);
        port.postMessage({ type, value, requestId });
      } catch (err) {
        const text = err instanceof Error ? err.message : String(err);
        showError(text);
        port.postMessage({ type: "ERROR", value: `Error: ${text}`, requestId });
      }
    }
  }

  window.SigilFrame = Object.freeze({
    serve, showStatus, showError, verifyBundle, checkId, openExportBundle, hpkeSeal, ed25519Key,
    setEmbeddedKeyOverride: (scalar) => embedded.setOverride(scalar),
    resetEmbeddedKeyOverride: () => { embedded.override = null; },
    toHex, fromHex, base58Encode, base58Decode, concat, utf8, element,
  });
})();
