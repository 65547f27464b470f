// sigil.js: e-mail OTP sign-up and login through Sigil's auth proxy, then requests to the coordinator stamped in
// the browser with the session key. No dependencies: WebCrypto for keys and signatures, fetch for HTTP.
//
// The journey, in the order an app runs it:
//
//   const key = await createSessionKey();                      // P-256, private half never leaves WebCrypto
//   const proxy = new AuthProxy(authProxyUrl, authProxyConfigId);
//   const otpId = await proxy.sendEmailCode(email);            // /v1/otp_init
//   const token = await proxy.verifyCode(otpId, code, key);    // /v1/otp_verify, binding the key to the token
//   let orgId = await proxy.findAccount(email, token);         // /v1/account
//   if (!orgId) orgId = (await proxy.signUp(email, token, key, ethereumWallet())).organizationId; // /v1/signup
//   const session = await proxy.logIn(token, key, orgId);      // /v1/otp_login registers the key for the session
//   const sigil = new Coordinator(coordinatorUrl, key);        // every request now carries an X-Stamp by the key
//   await sigil.query("whoami", { organizationId: orgId });

const encoder = new TextEncoder();

/** An error the auth proxy or the coordinator answered ({code, message, details}), or a request that failed. */
export class SigilError extends Error {
  constructor(message, { status = 0, code, details } = {}) {
    super(message);
    this.name = "SigilError";
    this.status = status; // HTTP status, 0 when no answer came
    this.code = code; // gRPC code of the error body
    this.details = details;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The session key

/**
 * createSessionKey makes the key this browser logs in with: a P-256 key pair whose private half is not extractable,
 * so the page can sign with it but no script can read it. Its public key (compressed, hex) is bound to the
 * verification token, registered by the login, and named in every stamp.
 */
export async function createSessionKey() {
  const pair = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, ["sign"]);
  const raw = new Uint8Array(await crypto.subtle.exportKey("raw", pair.publicKey));
  return { privateKey: pair.privateKey, publicKey: compressPublicKey(raw) };
}

/** compressPublicKey turns an uncompressed SEC1 point (04 ‖ X ‖ Y) into the compressed form (02|03 ‖ X) in hex. */
export function compressPublicKey(raw) {
  if (raw.length !== 65 || raw[0] !== 0x04) throw new Error("expected an uncompressed P-256 public key (65 bytes)");
  const prefix = raw[64] & 1 ? 0x03 : 0x02;
  return "0" + prefix.toString(16) + toHex(raw.subarray(1, 33));
}

/** sign signs SHA-256 of a string's UTF-8 bytes. WebCrypto returns the signature as raw r ‖ s (64 bytes). */
async function sign(key, text) {
  const sig = await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, key.privateKey, encoder.encode(text));
  return new Uint8Array(sig);
}

/** rawToDer re-encodes a raw r ‖ s signature as ASN.1 DER, SEQUENCE { INTEGER r, INTEGER s }, which stamps use. */
export function rawToDer(sig) {
  if (sig.length !== 64) throw new Error("expected a 64-byte r ‖ s signature");
  const integer = (bytes) => {
    let start = 0;
    while (start < bytes.length - 1 && bytes[start] === 0) start++; // minimal: no leading zero bytes...
    const value = bytes.subarray(start);
    const pad = value[0] & 0x80 ? [0] : []; // ...except one that keeps the number positive
    return [0x02, value.length + pad.length, ...pad, ...value];
  };
  const body = [...integer(sig.subarray(0, 32)), ...integer(sig.subarray(32))];
  return Uint8Array.from([0x30, body.length, ...body]); // at most 70 bytes: a one-byte length
}

/**
 * stamp makes the X-Stamp header of a request body: base64url of {publicKey, scheme, signature}, the signature
 * being P-256 ECDSA over SHA-256 of the exact body bytes, DER, hex. Sign the very string you send.
 */
export async function stamp(body, key) {
  const signature = toHex(rawToDer(await sign(key, body)));
  const json = JSON.stringify({ publicKey: key.publicKey, scheme: "SIGNATURE_SCHEME_TK_API_P256", signature });
  return base64url(encoder.encode(json));
}

/**
 * clientSignature proves to the coordinator that the holder of the key a verification token binds wants the token
 * used this way (a login of this session key, a signup of this user): P-256 over SHA-256 of the JSON usage, raw r ‖ s.
 */
export async function clientSignature(key, usage) {
  const message = JSON.stringify(usage);
  return {
    publicKey: key.publicKey,
    scheme: "CLIENT_SIGNATURE_SCHEME_API_P256",
    message,
    signature: toHex(await sign(key, message)),
  };
}

/** jwtClaims reads a JWT's payload. It does not verify the token: the coordinator does, wherever it is used. */
export function jwtClaims(jwt) {
  const payload = jwt.split(".")[1] ?? "";
  const bytes = Uint8Array.from(atob(payload.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
  return JSON.parse(new TextDecoder().decode(bytes));
}

// ---------------------------------------------------------------------------------------------------------------
// HTTP

/** postJSON sends a JSON string and returns the parsed answer, or throws a SigilError with the server's message. */
async function postJSON(url, body, headers) {
  let res;
  try {
    res = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body });
  } catch (err) {
    // fetch says no more on purpose (CORS, refused connection, DNS): name what to check.
    throw new SigilError(
      `could not reach ${new URL(url).origin} (${err.message}). Is the stack running, and does it allow requests ` +
        `from ${location.origin}?`,
    );
  }
  const text = await res.text();
  let data;
  try {
    data = text ? JSON.parse(text) : {};
  } catch {
    throw new SigilError(`${res.status} ${res.statusText}: ${url} did not answer JSON`, { status: res.status });
  }
  if (!res.ok) {
    throw new SigilError(data.message || `${res.status} ${res.statusText}`, {
      status: res.status,
      code: data.code,
      details: data.details,
    });
  }
  return data;
}

// ---------------------------------------------------------------------------------------------------------------
// The auth proxy: unstamped requests naming the app's proxy configuration; the proxy stamps them for the coordinator.

export class AuthProxy {
  constructor(url, configId) {
    this.url = url.replace(/\/+$/, "");
    this.configId = configId;
  }

  post(endpoint, body) {
    return postJSON(`${this.url}/v1/${endpoint}`, JSON.stringify(body), { "X-Auth-Proxy-Config-Id": this.configId });
  }

  /** settings returns the configuration's public settings (enabled providers, OTP length and alphabet, ...). */
  settings() {
    return this.post("wallet_kit_config", {});
  }

  /** sendEmailCode e-mails a one-time code to the address and returns the OTP's id. */
  async sendEmailCode(email) {
    const { otpId } = await this.post("otp_init", { otpType: "OTP_TYPE_EMAIL", contact: email });
    return otpId;
  }

  /** verifyCode checks the code and returns a verification token that binds the session key. */
  async verifyCode(otpId, otpCode, key) {
    const { verificationToken } = await this.post("otp_verify", { otpId, otpCode, publicKey: key.publicKey });
    return verificationToken;
  }

  /** findAccount returns the id of the sub-organization holding the e-mail address, or null. */
  async findAccount(email, verificationToken) {
    const { organizationId } = await this.post("account", { filterType: "EMAIL", filterValue: email, verificationToken });
    return organizationId || null;
  }

  /**
   * signUp creates the user's own sub-organization, with the user (its e-mail marked verified by the token) as its
   * only root user and, optionally, a wallet. Returns {organizationId, userId, wallet: {walletId, addresses}}.
   */
  async signUp(email, verificationToken, key, wallet) {
    // The user starts with no credential of its own: the login below registers the session key.
    const credentials = { apiKeys: [], authenticators: [], oauthProviders: [] };
    const usage = { signupV2: { ...credentials, email }, tokenId: jwtClaims(verificationToken).id, type: "USAGE_TYPE_SIGNUP" };
    return this.post("signup", {
      userEmail: email,
      verificationToken,
      ...credentials,
      wallet,
      clientSignature: await clientSignature(key, usage),
    });
  }

  /** logIn registers the session key in the user's sub-organization and returns the session (a JWT). */
  async logIn(verificationToken, key, organizationId) {
    const usage = { login: { publicKey: key.publicKey }, tokenId: jwtClaims(verificationToken).id, type: "USAGE_TYPE_LOGIN" };
    const { session } = await this.post("otp_login", {
      verificationToken,
      publicKey: key.publicKey,
      organizationId,
      clientSignature: await clientSignature(key, usage),
    });
    return session;
  }
}

/** ethereumWallet describes a wallet with one Ethereum account (BIP-44 path m/44'/60'/0'/0/0). */
export function ethereumWallet(walletName = "Wallet") {
  return {
    walletName,
    accounts: [
      { curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" },
    ],
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The coordinator, called directly: every request is stamped with the session key.

export class Coordinator {
  constructor(url, key) {
    this.url = url.replace(/\/+$/, "");
    this.key = key;
  }

  async post(path, request) {
    const body = JSON.stringify(request);
    return postJSON(this.url + path, body, { "X-Stamp": await stamp(body, this.key) });
  }

  /** query runs a read-only query, for example query("whoami", {organizationId}). */
  query(name, request) {
    return this.post(`/public/v1/query/${name}`, request);
  }

  /** submit runs an activity and returns it once completed; any other outcome is an error. */
  async submit(name, type, organizationId, parameters) {
    const { activity } = await this.post(`/public/v1/submit/${name}`, {
      type,
      timestampMs: String(Date.now()),
      organizationId,
      parameters,
    });
    if (activity.status !== "ACTIVITY_STATUS_COMPLETED") {
      const why = activity.failure?.message ?? "it needs approval or was refused";
      throw new SigilError(`activity ${activity.id} ended ${activity.status}: ${why}`);
    }
    return activity;
  }

  /** firstEthereumAddress finds the organization's first Ethereum wallet account. */
  async firstEthereumAddress(organizationId) {
    const { wallets } = await this.query("list_wallets", { organizationId });
    for (const { walletId } of wallets) {
      const { accounts } = await this.query("list_wallet_accounts", { organizationId, walletId });
      const account = accounts.find((a) => a.addressFormat === "ADDRESS_FORMAT_ETHEREUM");
      if (account) return account.address;
    }
    return null;
  }

  /**
   * signMessage signs an EIP-191 personal message (what wallets' personal_sign and viem's signMessage sign) with an
   * Ethereum account and returns the 65-byte signature r ‖ s ‖ v as 0x-hex, v being 27 or 28.
   */
  async signMessage(organizationId, address, message) {
    // keccak256("\x19Ethereum Signed Message:\n" + byte length + message): the coordinator hashes the text.
    const payload = `\x19Ethereum Signed Message:\n${encoder.encode(message).length}${message}`;
    const activity = await this.submit("sign_raw_payload", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", organizationId, {
      signWith: address,
      payload,
      encoding: "PAYLOAD_ENCODING_TEXT_UTF8",
      hashFunction: "HASH_FUNCTION_KECCAK256",
    });
    const { r, s, v } = activity.result.signRawPayloadResult;
    const recovery = parseInt(v, 16) % 27; // the coordinator answers the recovery id (00 or 01)
    return `0x${r.padStart(64, "0")}${s.padStart(64, "0")}${(27 + recovery).toString(16)}`;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Encoding

function toHex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function base64url(bytes) {
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}
