#!/usr/bin/env node
// sigil-turnkey-crypto-pin writes keys.js, the Sigil deployment's public keys that index.js binds, before the app is
// built:
//
//   sigil-turnkey-crypto-pin https://sigil.example.com      fetch the coordinator's /.well-known/sigil-signer.json
//   sigil-turnkey-crypto-pin --document signer.json         or read a copy of it kept with the app's sources
//
// The keys are public. Pinning them at build time rather than fetching them in the page means the page never trusts a
// key a server hands it at run time: a compromised auth proxy, or anything on the network path, cannot swap the key
// along with the bundle it signs. The coordinator is fetched over HTTPS (plain HTTP only on a loopback address).
import { readFile, writeFile } from "node:fs/promises";
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const keysFile = fileURLToPath(new URL("./keys.js", import.meta.url));

// fetchDocument reads the signer document of the coordinator at base.
export async function fetchDocument(base) {
  const url = new URL("/.well-known/sigil-signer.json", base);
  const loopback = ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname);
  if (url.protocol !== "https:" && !(url.protocol === "http:" && loopback)) {
    throw new Error(`${url.origin}: the keys must come over HTTPS (plain HTTP only from a loopback address)`);
  }
  const res = await fetch(url);
  if (!res.ok) throw new Error(`GET ${url}: ${res.status} ${res.statusText}`);
  return res.json();
}

// checkKey refuses anything but an uncompressed P-256 public key in hex, the form @turnkey/crypto takes.
async function checkKey(name, hex) {
  if (typeof hex !== "string" || !/^04[0-9a-f]{128}$/.test(hex)) {
    throw new Error(`${name} must be an uncompressed P-256 public key in lower-case hex (04 and 128 digits), got ${JSON.stringify(hex)}`);
  }
  const raw = Uint8Array.from(hex.match(/../g), (b) => parseInt(b, 16));
  try {
    await crypto.subtle.importKey("raw", raw, { name: "ECDSA", namedCurve: "P-256" }, false, ["verify"]);
  } catch {
    throw new Error(`${name} is not a point of P-256`);
  }
}

// pin checks a signer document and writes keys.js from it; source names where it came from, for the file's header.
export async function pin(doc, source) {
  await checkKey("publicKey", doc?.publicKey);
  await checkKey("tokenPublicKey", doc?.tokenPublicKey);
  await writeFile(keysFile, `// Written by sigil-turnkey-crypto-pin from ${source}. Regenerate it for another deployment.
// The signer key: export and import bundles, app proofs.
export const signerPublicKey = "${doc.publicKey}";
// The token key: OTP target bundles, verification tokens, sessions.
export const tokenPublicKey = "${doc.tokenPublicKey}";
`);
  return { signerPublicKey: doc.publicKey, tokenPublicKey: doc.tokenPublicKey };
}

async function main(args) {
  let doc, source;
  if (args.length === 2 && args[0] === "--document") {
    doc = JSON.parse(await readFile(args[1], "utf8"));
    source = args[1];
  } else if (args.length === 1 && !args[0].startsWith("-")) {
    doc = await fetchDocument(args[0]);
    source = new URL("/.well-known/sigil-signer.json", args[0]).href;
  } else {
    throw new Error("usage: sigil-turnkey-crypto-pin COORDINATOR_URL | --document FILE");
  }
  const keys = await pin(doc, source);
  console.log(`pinned signer ${keys.signerPublicKey.slice(0, 18)}… and token ${keys.tokenPublicKey.slice(0, 18)}… in ${keysFile}`);
}

if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((err) => {
    console.error(`sigil-turnkey-crypto-pin: ${err.message}`);
    process.exit(1);
  });
}
