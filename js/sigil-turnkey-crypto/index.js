// @turnkey/crypto, with one Sigil deployment's public keys wherever it pins Turnkey's.
//
// A frontend maps this package in place of @turnkey/crypto with a bundler alias (docs/WEB_LOGIN.md), so that
// @turnkey/core and @turnkey/react-wallet-kit, unmodified, check every bundle and token against the keys of the
// deployment they talk to: the kit calls encryptOtpCodeToBundle without its signer argument, and nothing in its
// configuration passes one. Everything else is @turnkey/crypto itself, re-exported.
//
// The keys come from ./keys.js, which sigil-turnkey-crypto-pin writes before the app is built (pin.mjs): they are
// baked into the bundle, so the page trusts no key that a server hands it at run time.
//
// The package imports the real @turnkey/crypto under another name (the npm alias upstream-turnkey-crypto in
// package.json), so the app's alias, which sends every import of @turnkey/crypto here, does not send this one back.
import * as upstream from "upstream-turnkey-crypto";
import { signerPublicKey, tokenPublicKey } from "./keys.js";

export * from "upstream-turnkey-crypto";

// The deployment's keys under the names of the keys they replace. Sigil's token key does the work of Turnkey's
// notarizer (session JWTs) and TLS-fetcher signing key (OTP target bundles and verification tokens).
export const PRODUCTION_SIGNER_SIGN_PUBLIC_KEY = signerPublicKey;
export const PRODUCTION_NOTARIZER_SIGN_PUBLIC_KEY = tokenPublicKey;
export const PRODUCTION_TLS_FETCHER_SIGN_PUBLIC_KEY = tokenPublicKey;

// withSigner binds the signer key of a function taking {dangerouslyOverrideSignerPublicKey}; a key the caller passes
// still wins, as it does upstream.
const withSigner = (fn) => (params) =>
  fn({ ...params, dangerouslyOverrideSignerPublicKey: params?.dangerouslyOverrideSignerPublicKey ?? signerPublicKey });

// Export and import bundles: signed by the signer key.
export const decryptExportBundle = withSigner(upstream.decryptExportBundle);
export const encryptWalletToBundle = withSigner(upstream.encryptWalletToBundle);
export const encryptPrivateKeyToBundle = withSigner(upstream.encryptPrivateKeyToBundle);
export const encryptSecretToBundle = withSigner(upstream.encryptSecretToBundle);
export const decryptSecretBundle = withSigner(upstream.decryptSecretBundle);

// OTP target bundles, verification tokens and sessions: signed by the token key.
export const encryptOtpCodeToBundle = (otpCode, otpEncryptionTargetBundle, publicKey, signerKey) =>
  upstream.encryptOtpCodeToBundle(otpCode, otpEncryptionTargetBundle, publicKey, signerKey ?? tokenPublicKey);
export const verifyOtpVerificationToken = (jwt, signerKey) => upstream.verifyOtpVerificationToken(jwt, signerKey ?? tokenPublicKey);
export const verifySessionJwtSignature = (jwt, notarizerKey) => upstream.verifySessionJwtSignature(jwt, notarizerKey ?? tokenPublicKey);
