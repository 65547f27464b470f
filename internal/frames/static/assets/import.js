// The import frame: the user types a mnemonic or a private key into this page; the embedder hands it the signed
// import bundle of INIT_IMPORT_WALLET or INIT_IMPORT_PRIVATE_KEY, and gets back what the user typed sealed to that
// bundle's one-time key, which only the coordinator can open. The embedder never sees the plaintext.
"use strict";

(() => {
  const F = window.SigilFrame;
  const field = F.element("plaintext");

  // The import bundle's key, once one is injected, and every key already sealed to: an import bundle is used once.
  let target = null;
  const used = new Set();

  // mnemonic reads the field as a BIP-39 phrase: words separated by any white space, in lower case.
  function mnemonic() {
    const words = field.value.trim().toLowerCase().split(/\s+/).filter(Boolean);
    if (![12, 15, 18, 21, 24].includes(words.length)) {
      throw new Error("enter a secret phrase of 12, 15, 18, 21 or 24 words");
    }
    return F.utf8.encode(words.join(" "));
  }

  // privateKey reads the field as a private key in the format the embedder names.
  async function privateKey(keyFormat) {
    const text = field.value.trim();
    switch (keyFormat ?? "HEXADECIMAL") {
      case "HEXADECIMAL": {
        const hex = text.replace(/^0x/i, "");
        if (!/^[0-9a-fA-F]{64}$/.test(hex)) throw new Error("enter the private key as 64 hexadecimal digits");
        return F.fromHex(hex, "the private key");
      }
      case "SOLANA": {
        let pair;
        try {
          pair = F.base58Decode(text, "the private key");
        } catch {
          throw new Error("enter the Solana private key in base58");
        }
        if (pair.length !== 64 && pair.length !== 32) throw new Error("a Solana private key is 64 bytes in base58 (or its 32-byte seed)");
        const seed = pair.slice(0, 32);
        if (pair.length === 64) {
          const { publicKey } = await F.ed25519Key(seed);
          const matches = publicKey.every((b, i) => b === pair[32 + i]);
          pair.fill(0);
          if (!matches) {
            seed.fill(0);
            throw new Error("the Solana key's last 32 bytes are not its public key");
          }
        }
        return seed;
      }
      case "BITCOIN_MAINNET_WIF":
        return wif(text, 0x80, "mainnet");
      case "BITCOIN_TESTNET_WIF":
        return wif(text, 0xef, "testnet");
      case "SUI_BECH32":
        return suiKey(text);
      default:
        throw new Error(`unsupported key format: ${String(keyFormat).slice(0, 40)} (HEXADECIMAL, SOLANA, BITCOIN_MAINNET_WIF, BITCOIN_TESTNET_WIF and SUI_BECH32 are supported)`);
    }
  }

  // wif reads a Bitcoin private key in Wallet Import Format: base58check of the network's version byte, the key and
  // 0x01 (a compressed public key; the reference refuses uncompressed keys too).
  async function wif(text, version, network) {
    let decoded;
    try {
      decoded = F.base58Decode(text, "the private key");
    } catch {
      throw new Error(`enter the Bitcoin ${network} private key in WIF (base58)`);
    }
    try {
      const payload = decoded.subarray(0, decoded.length - 4);
      const check = new Uint8Array(await crypto.subtle.digest("SHA-256", await crypto.subtle.digest("SHA-256", payload)));
      if (decoded.length < 5 || !check.subarray(0, 4).every((b, i) => b === decoded[payload.length + i])) {
        throw new Error("the WIF key's checksum does not match: check what was typed");
      }
      if (payload[0] !== version) throw new Error(`the WIF key is not a ${network} key (version byte 0x${payload[0].toString(16)})`);
      if (payload.length === 33) throw new Error("uncompressed WIF keys are not supported");
      if (payload.length !== 34 || payload[33] !== 0x01) throw new Error("the WIF key is not a compressed private key");
      return payload.slice(1, 33);
    } finally {
      decoded.fill(0);
    }
  }

  // suiKey reads a Sui private key: bech32 (BIP-173, through bech32.js: @scure/base) with the prefix suiprivkey, of a
  // scheme flag and the key; Sigil, as the reference, imports Ed25519 keys (flag 0) only.
  function suiKey(text) {
    let decoded;
    try {
      decoded = window.SigilBech32.decode(text);
    } catch {
      // Not the library's message: it may quote what was typed.
      throw new Error("enter the Sui private key (suiprivkey1…): what was typed is not bech32, or its checksum does not match");
    }
    const bytes = decoded.bytes;
    try {
      if (decoded.prefix !== "suiprivkey") throw new Error("enter the Sui private key, which starts with suiprivkey1");
      if (bytes.length !== 33) throw new Error(`a Sui private key is 33 bytes (a scheme flag and the key), not ${bytes.length}`);
      if (bytes[0] !== 0) throw new Error("the Sui key is not an Ed25519 key (scheme flag 0): only Ed25519 keys are imported");
      return bytes.slice(1);
    } finally {
      bytes.fill(0);
    }
  }

  // seal encrypts the field's secret, read by read, to the injected bundle's key, then forgets both.
  async function seal(read) {
    if (!target) throw new Error("no import bundle was injected: inject the bundle of INIT_IMPORT first");
    const plaintext = await read();
    try {
      const sealed = await F.hpkeSeal(target.publicRaw, plaintext);
      used.add(target.hex);
      target = null;
      field.value = "";
      F.showStatus("Sealed for import.");
      return JSON.stringify(sealed);
    } finally {
      plaintext.fill(0);
    }
  }

  F.serve({
    async INJECT_IMPORT_BUNDLE(m) {
      const signed = await F.verifyBundle(m.value);
      F.checkId("organization id", m.organizationId, signed.organizationId);
      F.checkId("user id", m.userId, signed.userId);
      const hex = String(signed.targetPublic ?? "").toLowerCase();
      const publicRaw = F.fromHex(hex, "the bundle's targetPublic");
      if (publicRaw.length !== 65 || publicRaw[0] !== 4) throw new Error("the bundle's targetPublic is not an uncompressed P-256 key");
      if (used.has(hex)) throw new Error("this import bundle was used already: run INIT_IMPORT again for a new one");
      target = { hex, publicRaw };
      return ["BUNDLE_INJECTED", true];
    },
    async EXTRACT_WALLET_ENCRYPTED_BUNDLE() {
      return ["ENCRYPTED_BUNDLE_EXTRACTED", await seal(mnemonic)];
    },
    async EXTRACT_KEY_ENCRYPTED_BUNDLE(m) {
      return ["ENCRYPTED_BUNDLE_EXTRACTED", await seal(() => privateKey(m.keyFormat))];
    },
  });
})();
