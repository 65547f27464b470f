// The import frame's bech32 (BIP-173), bundled into static/assets/bech32.js by build.sh from @scure/base (audited,
// without dependencies): a Sui private key is typed as bech32. The frame sees one function.
import { bech32 } from "@scure/base";

globalThis.SigilBech32 = Object.freeze({
  // decode reads a bech32 string (at most 90 characters, one case, a valid checksum, zero padding) and returns its
  // prefix and its data as bytes; it throws for anything else.
  decode(text) {
    const { prefix, words } = bech32.decode(text, 90);
    return { prefix, bytes: bech32.fromWords(words) };
  },
});
