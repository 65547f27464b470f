// The export-and-sign frame: it opens private keys' export bundles and keeps each key in this page to sign the Solana
// and Ethereum messages and transactions the embedder asks it to sign. The embedder gets signatures, never a key. An
// Ed25519 key is held as a non-extractable WebCrypto key; WebCrypto has no secp256k1, so an Ethereum key is held as
// its 32 bytes (zeroed when cleared or expired) and used through ethereum-crypto.js (the noble libraries, vendor/).
// The frame can be told to decrypt bundles with a P-256 key of the embedder's instead of its own
// (SET_EMBEDDED_KEY_OVERRIDE, itself sent in a bundle).
"use strict";

(() => {
  const F = window.SigilFrame;
  const E = window.SigilEthereumCrypto;
  const keyLifetime = 24 * 60 * 60 * 1000; // as the reference's frame: a key is dropped a day after it was injected

  // The keys, by the address the embedder named ("default" for none): {key, publicKey} for Solana and {secp256k1}
  // for Ethereum (a key injected without an address may be either: it holds both), and expires.
  const keys = new Map();

  function forget(name) {
    keys.get(name)?.secp256k1?.fill(0);
    return keys.delete(name);
  }

  function keyFor(address) {
    const name = address || "default";
    const k = keys.get(name);
    if (!k) throw new Error(`key bytes not found. Please re-inject export bundle for address ${name} into iframe. Note that address is case sensitive.`);
    if (Date.now() >= k.expires) {
      forget(name);
      throw new Error(`key bytes have expired. Please re-inject export bundle for address ${name} into iframe. Note that address is case sensitive.`);
    }
    return k;
  }

  // keyOf checks that the key held under a name can sign for a chain.
  function keyOf(k, type, address) {
    if (type === "SOLANA" && !k.key) throw new Error(`the key of ${address || "default"} is an Ethereum key: it does not sign SOLANA`);
    if (type === "ETHEREUM" && !k.secp256k1) throw new Error(`the key of ${address || "default"} is not a secp256k1 key: it does not sign ETHEREUM`);
    return k;
  }

  const sign = async (k, bytes) => new Uint8Array(await crypto.subtle.sign({ name: "Ed25519" }, k.key, bytes));

  // parseRequest reads the JSON {<field>, type} a SIGN_ request carries: [the field, the type].
  function parseRequest(value, field) {
    let request;
    try {
      request = JSON.parse(value);
    } catch {
      throw new Error("the request is not JSON");
    }
    if (typeof request?.[field] !== "string") throw new Error(`the request has no ${field}`);
    if (request.type !== "SOLANA" && request.type !== "ETHEREUM") {
      throw new Error(`unsupported ${field} type: ${String(request.type).slice(0, 20)} (this frame signs SOLANA and ETHEREUM)`);
    }
    return [request[field], request.type];
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

  // ---- Ethereum ----

  const ethAddress = (secret) => "0x" + F.toHex(E.keccak256(E.publicKey(secret).subarray(1)).subarray(12));

  // secp256k1Key copies a 32-byte secret that is a secp256k1 key (the bundle's bytes are zeroed once used), or null.
  function secp256k1Key(raw) {
    try {
      E.publicKey(raw);
    } catch {
      return null;
    }
    return raw.slice();
  }

  // signature is an Ethereum signature, r || s || v with v 27 or 28, in 0x-hex: what viem's signMessage answers.
  function signature(digest, secret) {
    const { recovery, r, s } = E.sign(digest, secret);
    return "0x" + F.toHex(r) + F.toHex(s) + (27 + recovery).toString(16);
  }

  // signMessage signs a message as EIP-191's personal_sign: Keccak-256 of "\x19Ethereum Signed Message:\n", the
  // message's length in bytes and its UTF-8 bytes.
  function signEthereumMessage(k, message) {
    const bytes = F.utf8.encode(message);
    const prefix = F.utf8.encode(`\x19Ethereum Signed Message:\n${bytes.length}`);
    return signature(E.keccak256(F.concat(prefix, bytes)), k.secp256k1);
  }

  // rlpDecode reads one RLP item that fills bytes (a Uint8Array, or an array of items), refusing what is not its
  // canonical encoding: a transaction is signed as it was given, so it must read back as the same bytes.
  function rlpDecode(bytes) {
    const [item, end] = rlpItem(bytes, 0);
    if (end !== bytes.length) throw new Error("the transaction has bytes after its RLP list");
    return item;
  }

  function rlpItem(b, at) {
    if (at >= b.length) throw new Error("the transaction is truncated");
    const p = b[at];
    if (p < 0x80) return [b.subarray(at, at + 1), at + 1];
    const list = p >= 0xc0;
    const short = list ? p <= 0xf7 : p <= 0xb7;
    let length, start;
    if (short) {
      [length, start] = [p - (list ? 0xc0 : 0x80), at + 1];
    } else {
      const n = p - (list ? 0xf7 : 0xb7);
      if (at + 1 + n > b.length || b[at + 1] === 0 || n > 4) throw new Error("the transaction has a malformed RLP length");
      length = 0;
      for (let i = 0; i < n; i++) length = length * 256 + b[at + 1 + i];
      if (length < 56) throw new Error("the transaction has a malformed RLP length");
      start = at + 1 + n;
    }
    const end = start + length;
    if (end > b.length) throw new Error("the transaction is truncated");
    if (!list) {
      if (length === 1 && b[start] < 0x80) throw new Error("the transaction has a non-canonical RLP byte");
      return [b.subarray(start, end), end];
    }
    const items = [];
    for (let i = start; i < end; ) {
      let item;
      [item, i] = rlpItem(b, i);
      items.push(item);
    }
    return [items, end];
  }

  function rlpEncode(item) {
    if (item instanceof Uint8Array) {
      if (item.length === 1 && item[0] < 0x80) return item;
      return F.concat(rlpLength(item.length, 0x80), item);
    }
    const body = F.concat(...item.map(rlpEncode));
    return F.concat(rlpLength(body.length, 0xc0), body);
  }

  function rlpLength(n, offset) {
    if (n < 56) return Uint8Array.of(offset + n);
    const digits = [];
    for (let x = n; x > 0; x = Math.floor(x / 256)) digits.unshift(x % 256);
    return Uint8Array.of(offset + 55 + digits.length, ...digits);
  }

  // minimal is a big-endian number without its leading zeros, as RLP writes integers.
  function minimal(bytes) {
    let i = 0;
    while (i < bytes.length && bytes[i] === 0) i++;
    return bytes.subarray(i);
  }

  const bigOf = (bytes) => (bytes.length ? BigInt("0x" + F.toHex(bytes)) : 0n);
  const bytesOf = (n) => minimal(F.fromHex(n.toString(16).padStart(2 * Math.ceil(n.toString(16).length / 2), "0"), "a number"));

  // The typed transactions' fields before the signature (EIP-2930, EIP-1559, EIP-4844 without its blobs, EIP-7702).
  const typedFields = { 1: 8, 2: 9, 3: 11, 4: 10 };

  // signEthereumTransaction signs a serialized transaction — legacy (with EIP-155's chain id, or none) or typed,
  // unsigned or signed (the signature is replaced) — and answers it signed, in 0x-hex, ready to broadcast.
  function signEthereumTransaction(k, hex) {
    const tx = F.fromHex(hex.replace(/^0x/i, ""), "the transaction");
    if (!tx.length) throw new Error("the transaction is empty");
    const type = tx[0];
    if (type >= 0xc0) return signLegacy(k, rlpDecode(tx));
    const count = typedFields[type];
    if (!count) throw new Error(`unsupported transaction type 0x${type.toString(16).padStart(2, "0")} (0x01, 0x02, 0x03 and 0x04 are signed, and legacy)`);
    const fields = rlpDecode(tx.subarray(1));
    if (!Array.isArray(fields) || (fields.length !== count && fields.length !== count + 3)) {
      throw new Error(`a type 0x0${type} transaction is a list of ${count} fields (or ${count + 3} signed)`);
    }
    const unsigned = fields.slice(0, count);
    const { recovery, r, s } = E.sign(E.keccak256(F.concat(Uint8Array.of(type), rlpEncode(unsigned))), k.secp256k1);
    return "0x" + F.toHex(F.concat(Uint8Array.of(type), rlpEncode([...unsigned, bytesOf(BigInt(recovery)), minimal(r), minimal(s)])));
  }

  function signLegacy(k, fields) {
    if (!Array.isArray(fields) || (fields.length !== 6 && fields.length !== 9)) throw new Error("a legacy transaction is a list of 6 or 9 fields");
    const body = fields.slice(0, 6);
    let chainId = null;
    if (fields.length === 9) {
      const [v, r, s] = fields.slice(6).map(bigOf);
      if (r === 0n && s === 0n) chainId = v; // EIP-155's unsigned form: [.., chainId, 0, 0]
      else if (v >= 35n) chainId = (v - 35n) / 2n;
      else if (v !== 27n && v !== 28n) throw new Error("the transaction's signature has a v that is neither 27, 28 nor EIP-155's");
    }
    const preimage = chainId === null ? body : [...body, bytesOf(chainId), new Uint8Array(), new Uint8Array()];
    const { recovery, r, s } = E.sign(E.keccak256(rlpEncode(preimage)), k.secp256k1);
    const v = chainId === null ? 27n + BigInt(recovery) : chainId * 2n + 35n + BigInt(recovery);
    return "0x" + F.toHex(rlpEncode([...body, bytesOf(v), minimal(r), minimal(s)]));
  }

  // holdKey keeps an exported key under the name the embedder gave: an Ethereum address holds a secp256k1 key that
  // must be that address's, any other address an Ed25519 key that must be its, and no address either.
  async function holdKey(raw, address) {
    if (raw.length !== 32) throw new Error("the exported key is not a 32-byte private key");
    const name = address || "default";
    let held;
    if (/^0x[0-9a-fA-F]{40}$/.test(name)) {
      const secret = secp256k1Key(raw);
      if (!secret || ethAddress(secret) !== name.toLowerCase()) {
        secret?.fill(0);
        throw new Error(`the exported key is not the key of address ${name}`);
      }
      held = { secp256k1: secret, shown: name };
    } else {
      const { key, publicKey } = await F.ed25519Key(raw);
      if (address && F.base58Encode(publicKey) !== address) {
        throw new Error(`the exported key is not the key of address ${address} (addresses are case-sensitive)`);
      }
      held = { key, publicKey, shown: F.base58Encode(publicKey) };
      if (!address) {
        held.secp256k1 = secp256k1Key(raw);
        if (held.secp256k1) held.shown += ` (Solana) or ${ethAddress(held.secp256k1)} (Ethereum)`;
      }
    }
    forget(name);
    keys.set(name, { ...held, expires: Date.now() + keyLifetime });
    F.showStatus(`The key of ${held.shown} is held in this frame for signing.`);
  }

  F.serve({
    async INJECT_KEY_EXPORT_BUNDLE(m) {
      await F.openExportBundle(m.value, m.organizationId, (raw) => holdKey(raw, m.address));
      return ["BUNDLE_INJECTED", true];
    },
    async INJECT_WALLET_EXPORT_BUNDLE() {
      throw new Error("this frame signs with private keys: export a wallet account (INJECT_KEY_EXPORT_BUNDLE), not a wallet");
    },
    async SIGN_MESSAGE(m) {
      const [message, type] = parseRequest(m.value, "message");
      const k = keyOf(keyFor(m.address), type, m.address);
      if (type === "ETHEREUM") return ["MESSAGE_SIGNED", signEthereumMessage(k, message)];
      return ["MESSAGE_SIGNED", F.toHex(await sign(k, F.utf8.encode(message)))];
    },
    async SIGN_TRANSACTION(m) {
      const [transaction, type] = parseRequest(m.value, "transaction");
      const k = keyOf(keyFor(m.address), type, m.address);
      if (type === "ETHEREUM") return ["TRANSACTION_SIGNED", signEthereumTransaction(k, transaction)];
      return ["TRANSACTION_SIGNED", await signTransaction(k, transaction)];
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
        for (const name of [...keys.keys()]) forget(name);
      } else if (!forget(m.address)) {
        throw new Error(`key not found for address ${m.address}. Note that address is case sensitive.`);
      }
      F.showStatus(keys.size ? `${keys.size} key(s) held for signing.` : "No key is held.");
      return ["EMBEDDED_PRIVATE_KEY_CLEARED", true];
    },
  });
})();
