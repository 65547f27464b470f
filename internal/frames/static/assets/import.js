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
      default:
        throw new Error(`unsupported key format: ${String(keyFormat).slice(0, 40)} (HEXADECIMAL and SOLANA are supported)`);
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
