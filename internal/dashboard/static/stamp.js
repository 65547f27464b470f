// Stamping in the browser: an API key imported into WebCrypto as a non-extractable key, and the X-Stamp header the
// coordinator verifies (a DER ECDSA P-256 signature of the request body).

import { FieldError } from "./ui.js";

// ---- encodings ----

export const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
const fromHex = (s) => {
  if (!/^([0-9a-fA-F]{2})*$/.test(s)) throw new Error("not hexadecimal");
  return Uint8Array.from(s.match(/../g) || [], (h) => parseInt(h, 16));
};
export const b64url = (bytes) => btoa(String.fromCharCode(...new Uint8Array(bytes))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
const bigFrom = (bytes) => BigInt("0x" + (hex(bytes) || "0"));
const bytes32 = (n) => fromHex(n.toString(16).padStart(64, "0"));

// ---- P-256 ----

const P = 2n ** 256n - 2n ** 224n + 2n ** 192n + 2n ** 96n - 1n;
const B = 0x5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604bn;

function modPow(b, e, m) {
  let r = 1n;
  b %= m;
  for (; e > 0n; e >>= 1n, b = (b * b) % m) if (e & 1n) r = (r * b) % m;
  return r;
}

// decompress expands a compressed public key (33 bytes) to its coordinates.
function decompress(pub) {
  if (pub.length !== 33 || (pub[0] !== 2 && pub[0] !== 3)) throw new Error("the public key must be a compressed P-256 key (66 hex characters starting with 02 or 03)");
  const x = bigFrom(pub.slice(1));
  let y = modPow((((x * x * x - 3n * x + B) % P) + P) % P, (P + 1n) / 4n, P);
  if (Number(y & 1n) !== (pub[0] & 1)) y = P - y;
  return { x: bytes32(x), y: bytes32(y) };
}

export function compress(raw) {
  const out = new Uint8Array(33);
  out[0] = raw[64] & 1 ? 3 : 2;
  out.set(raw.slice(1, 33), 1);
  return out;
}

// der encodes a WebCrypto signature (r‖s) as the ASN.1 DER the coordinator verifies.
function der(sig) {
  const int = (b) => {
    let i = 0;
    while (i < b.length - 1 && b[i] === 0) i++;
    b = b.slice(i);
    return b[0] & 0x80 ? [0x02, b.length + 1, 0, ...b] : [0x02, b.length, ...b];
  };
  const body = [...int(sig.slice(0, 32)), ...int(sig.slice(32))];
  return new Uint8Array([0x30, body.length, ...body]);
}

// apiKeyStamper signs with a non-extractable WebCrypto key and returns the X-Stamp header.
export function apiKeyStamper(key, publicKeyHex) {
  return async (body) => {
    const sig = new Uint8Array(await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, key, new TextEncoder().encode(body)));
    const stamp = { publicKey: publicKeyHex, scheme: "SIGNATURE_SCHEME_TK_API_P256", signature: hex(der(sig)) };
    return ["X-Stamp", b64url(new TextEncoder().encode(JSON.stringify(stamp)))];
  };
}

export async function importAPIKey(publicHex, privateHex) {
  let pub, x, y;
  try {
    pub = fromHex(publicHex.trim().toLowerCase());
    ({ x, y } = decompress(pub));
  } catch (e) {
    throw new FieldError("publicKey", e.message.startsWith("the public key") ? e.message : "the public key is not hexadecimal");
  }
  if (!/^[0-9a-fA-F]{64}$/.test(privateHex.trim())) throw new FieldError("privateKey", "the private key must be 64 hex characters");
  const d = fromHex(privateHex.trim());
  const jwk = { kty: "EC", crv: "P-256", x: b64url(x), y: b64url(y), d: b64url(d), ext: false };
  d.fill(0);
  const key = await crypto.subtle.importKey("jwk", jwk, { name: "ECDSA", namedCurve: "P-256" }, false, ["sign"])
    .catch(() => { throw new FieldError("publicKey", "the public key is not a point of P-256"); });
  return { key, pub: hex(pub) };
}
