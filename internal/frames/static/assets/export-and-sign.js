// The export-and-sign frame: it opens private keys' export bundles and keeps each key in this page, as a
// non-extractable WebCrypto key, to sign Solana messages and transactions the embedder asks it to sign. The embedder
// gets signatures, never a key. It can be told to decrypt bundles with a P-256 key of the embedder's instead of its own
// (SET_EMBEDDED_KEY_OVERRIDE, itself sent in a bundle). Ethereum signing needs secp256k1, which WebCrypto lacks: it is refused.
"use strict";

(() => {
  const F = window.SigilFrame;
  const keyLifetime = 24 * 60 * 60 * 1000; // as the reference's frame: a key is dropped a day after it was injected

  // The keys, by the address the embedder named ("default" for none): {key, publicKey, expires}.
  const keys = new Map();

  function keyFor(address) {
    const name = address || "default";
    const k = keys.get(name);
    if (!k) throw new Error(`key bytes not found. Please re-inject export bundle for address ${name} into iframe. Note that address is case sensitive.`);
    if (Date.now() >= k.expires) {
      keys.delete(name);
      throw new Error(`key bytes have expired. Please re-inject export bundle for address ${name} into iframe. Note that address is case sensitive.`);
    }
    return k;
  }

  const sign = async (k, bytes) => new Uint8Array(await crypto.subtle.sign({ name: "Ed25519" }, k.key, bytes));

  // parseRequest reads the JSON {<field>, type} a SIGN_ request carries.
  function parseRequest(value, field) {
    let request;
    try {
      request = JSON.parse(value);
    } catch {
      throw new Error("the request is not JSON");
    }
    if (typeof request?.[field] !== "string") throw new Error(`the request has no ${field}`);
    if (request.type !== "SOLANA") throw new Error(`unsupported ${field} type: ${String(request.type).slice(0, 20)} (this frame signs SOLANA)`);
    return request[field];
  }

  // shortVec reads Solana's compact-u16 at offset: [value, next offset].
  function shortVec(bytes, at) {
    let value = 0;
    for (let i = 0; i < 3; i++) {
      if (at + i >= bytes.length) throw new Error("the transaction is truncated");
      value |= (bytes[at + i] & 0x7f) << (7 * i);
      if ((bytes[at + i] & 0x80) === 0) return [value, at + i + 1];
    }
    throw new Error("the transaction has a malformed length");
  }

  // signTransaction signs a serialized Solana transaction (legacy or v0) as the signer it names with k's key.
  async function signTransaction(k, hex) {
    const tx = F.fromHex(hex, "the transaction");
    const [count, sigStart] = shortVec(tx, 0);
    const messageStart = sigStart + 64 * count;
    const message = tx.subarray(messageStart);
    let at = message[0] & 0x80 ? 1 : 0; // a versioned message starts with its version
    if (message.length < at + 3) throw new Error("the transaction is truncated");
    const required = message[at];
    if (required !== count) throw new Error("the transaction's signature count does not match its message");
    const [keyCount, keysStart] = shortVec(message, at + 3);
    if (keysStart + 32 * keyCount > message.length || keyCount < required) throw new Error("the transaction is truncated");
    let slot = -1;
    for (let i = 0; i < required; i++) {
      const key = message.subarray(keysStart + 32 * i, keysStart + 32 * (i + 1));
      if (key.every((b, j) => b === k.publicKey[j])) slot = i;
    }
    if (slot < 0) throw new Error("the transaction does not name this key as a signer");
    tx.set(await sign(k, message), sigStart + 64 * slot);
    return F.toHex(tx);
  }

  F.serve({
    async INJECT_KEY_EXPORT_BUNDLE(m) {
      await F.openExportBundle(m.value, m.organizationId, async (raw) => {
        if (raw.length !== 32) throw new Error("the exported key is not a 32-byte Ed25519 key");
        const { key, publicKey } = await F.ed25519Key(raw);
        if (m.address && F.base58Encode(publicKey) !== m.address) {
          throw new Error(`the exported key is not the key of address ${m.address} (addresses are case-sensitive)`);
        }
        keys.set(m.address || "default", { key, publicKey, expires: Date.now() + keyLifetime });
        F.showStatus(`The key of ${F.base58Encode(publicKey)} is held in this frame for signing.`);
      });
      return ["BUNDLE_INJECTED", true];
    },
    async INJECT_WALLET_EXPORT_BUNDLE() {
      throw new Error("this frame signs with private keys: export a wallet account (INJECT_KEY_EXPORT_BUNDLE), not a wallet");
    },
    async SIGN_MESSAGE(m) {
      const k = keyFor(m.address);
      const message = parseRequest(m.value, "message");
      return ["MESSAGE_SIGNED", F.toHex(await sign(k, F.utf8.encode(message)))];
    },
    async SIGN_TRANSACTION(m) {
      const k = keyFor(m.address);
      return ["TRANSACTION_SIGNED", await signTransaction(k, parseRequest(m.value, "transaction"))];
    },
    // SET_EMBEDDED_KEY_OVERRIDE opens a bundle holding a P-256 private key (exported to this frame's key) and decrypts
    // later bundles with that key instead; RESET_TO_DEFAULT_EMBEDDED_KEY goes back to the frame's own.
    async SET_EMBEDDED_KEY_OVERRIDE(m) {
      await F.openExportBundle(m.value, m.organizationId, async (raw) => {
        const publicKey = await F.setEmbeddedKeyOverride(raw);
        F.showStatus(`Bundles are decrypted with the key ${publicKey.slice(0, 18)}… until the default key is restored.`);
      });
      return ["EMBEDDED_KEY_OVERRIDE_SET", true];
    },
    async RESET_TO_DEFAULT_EMBEDDED_KEY() {
      F.resetEmbeddedKeyOverride();
      F.showStatus("Bundles are decrypted with this frame's own key.");
      return ["RESET_TO_DEFAULT_EMBEDDED_KEY", true];
    },
    async CLEAR_EMBEDDED_PRIVATE_KEY(m) {
      if (!m.address) {
        keys.clear();
      } else if (!keys.delete(m.address)) {
        throw new Error(`key not found for address ${m.address}. Note that address is case sensitive.`);
      }
      F.showStatus(keys.size ? `${keys.size} key(s) held for signing.` : "No key is held.");
      return ["EMBEDDED_PRIVATE_KEY_CLEARED", true];
    },
  });
})();
