// The export frame: it opens a wallet's or a private key's export bundle with its embedded key and shows the
// mnemonic or the key to the user, in this page only. The embedder learns that the bundle was opened, nothing more.
"use strict";

(() => {
  const F = window.SigilFrame;

  // show puts the secret on the page for the user to copy, replacing any shown before.
  function show(text) {
    F.element("secret").textContent = text;
    F.showStatus("");
  }

  // keyText encodes a private key as wallets import it: HEXADECIMAL is 0x and 64 hexadecimal digits (Ethereum, Tron),
  // SOLANA is base58 of the 32-byte key and its public key (Phantom, Solflare), which must be address when one is
  // given.
  async function keyText(raw, keyFormat, address) {
    switch (keyFormat ?? "HEXADECIMAL") {
      case "HEXADECIMAL":
        return "0x" + F.toHex(raw);
      case "SOLANA": {
        if (raw.length !== 32) throw new Error("a Solana private key is 32 bytes");
        const { publicKey } = await F.ed25519Key(raw);
        if (address && F.base58Encode(publicKey) !== address) {
          throw new Error(`the exported key is not the key of address ${address} (addresses are case-sensitive)`);
        }
        const pair = F.concat(raw, publicKey);
        try {
          return F.base58Encode(pair);
        } finally {
          pair.fill(0);
        }
      }
      default:
        throw new Error(`unsupported key format: ${String(keyFormat).slice(0, 40)} (HEXADECIMAL and SOLANA are supported)`);
    }
  }

  F.serve({
    async INJECT_WALLET_EXPORT_BUNDLE(m) {
      await F.openExportBundle(m.value, m.organizationId, (secret) => {
        let text;
        try {
          text = new TextDecoder("utf-8", { fatal: true }).decode(secret).trim();
        } catch {
          throw new Error("the exported wallet is not a mnemonic");
        }
        show(text);
      });
      return ["BUNDLE_INJECTED", true];
    },
    async INJECT_KEY_EXPORT_BUNDLE(m) {
      await F.openExportBundle(m.value, m.organizationId, async (raw) => show(await keyText(raw, m.keyFormat, m.address)));
      return ["BUNDLE_INJECTED", true];
    },
  });
})();
