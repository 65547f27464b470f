// The page: every button calls one method of the kit's useTurnkey hook, and shows what it returned in #out, or what
// went wrong in #error.
import { useState } from "react";
import { AuthState, OtpType, useTurnkey } from "@turnkey/react-wallet-kit";
import { IframeStamper } from "@turnkey/iframe-stamper";
import { parseGwei, serializeTransaction } from "viem";

// A transfer on the dev chain: what the page signs as its EIP-1559 transaction.
const transfer = {
  type: "eip1559", chainId: 1337, nonce: 0, gas: 21000n, maxFeePerGas: parseGwei("2"), maxPriorityFeePerGas: parseGwei("1"),
  to: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", value: 1000000000000000n,
};

// ethSignature joins the coordinator's {r, s, v} into the 65-byte signature wallets and viem verify (v 27 or 28).
function ethSignature({ r, s, v }) {
  const recovery = parseInt(v, 16);
  return `0x${r}${s}${(recovery < 27 ? recovery + 27 : recovery).toString(16)}`;
}

// What the export-and-sign button has the frame sign.
const solanaMessage = "hello from the export-and-sign frame";

export function App({ framesUrl }) {
  const tk = useTurnkey();
  const [email, setEmail] = useState("");
  const [code, setCode] = useState("");
  const [otp, setOtp] = useState(null);
  const [out, setOut] = useState({});
  const [error, setError] = useState("");

  const accounts = tk.wallets.flatMap((w) => w.accounts ?? []);
  const account = accounts.find((a) => a.addressFormat === "ADDRESS_FORMAT_ETHEREUM");
  const solana = accounts.find((a) => a.addressFormat === "ADDRESS_FORMAT_SOLANA");
  const [importedKey, setImportedKey] = useState(null);

  // run calls one kit method and records its result under name, or its error; #out's data-runs counts the calls that
  // have finished.
  const [runs, setRuns] = useState(0);
  const run = (name, fn) => async () => {
    setError("");
    try {
      const result = await fn();
      setOut((o) => ({ ...o, [name]: result ?? "done" }));
    } catch (err) {
      const cause = err.cause?.message ?? err.cause;
      setError(`${name}: ${err.message}${cause ? ` (${cause})` : ""}`);
    }
    setRuns((n) => n + 1);
  };

  const actions = {
    // The kit's own sign-in screen, with every method the auth proxy's configuration enables.
    "kit-login": () => tk.handleLogin(),
    "send-code": async () => {
      const res = await tk.initOtp({ otpType: OtpType.Email, contact: email });
      setOtp(res);
      return res.otpId;
    },
    "verify-code": async () => {
      const res = await tk.completeOtp({ otpId: otp.otpId, otpCode: code, otpEncryptionTargetBundle: otp.otpEncryptionTargetBundle,
        contact: email, otpType: OtpType.Email });
      return res.action;
    },
    "passkey-signup": async () => (await tk.signUpWithPasskey({ passkeyDisplayName: `passkey-${Date.now()}` })).credentialId,
    "passkey-login": async () => (await tk.loginWithPasskey()).credentialId,
    "x-login": () => tk.handleXOauth(),
    logout: () => tk.logout(),
    "create-wallet": async () => (await tk.createWallet({ walletName: `wallet-${Date.now()}`, accounts: ["ADDRESS_FORMAT_ETHEREUM", "ADDRESS_FORMAT_SOLANA"] })),
    "sign-message": async () => ethSignature(await tk.signMessage({ message: "hello from the wallet kit", walletAccount: account, addEthereumPrefix: true })),
    "sign-transaction": async () => {
      const signed = await tk.signTransaction({ walletAccount: account, unsignedTransaction: serializeTransaction(transfer),
        transactionType: "TRANSACTION_TYPE_ETHEREUM" });
      return signed.startsWith("0x") ? signed : `0x${signed}`;
    },
    // The kit's own export and import screens, in Sigil's frames: the mnemonic or key is shown, or typed, in the
    // frame, never in this page.
    "export-wallet": () => tk.handleExportWallet({ walletId: account.walletId }),
    "export-account": () => tk.handleExportWalletAccount({ address: account.address }),
    "import-wallet": async () => {
      await tk.handleImportWallet({ walletName: `imported-${Date.now()}`, defaultWalletAccounts: ["ADDRESS_FORMAT_ETHEREUM"], successPageDuration: 0 });
      await tk.refreshWallets();
      return "imported";
    },
    "import-key": async () => {
      const id = await tk.handleImportPrivateKey({ keyName: `key-${Date.now()}`, curve: "CURVE_SECP256K1",
        addressFormats: ["ADDRESS_FORMAT_ETHEREUM"], keyFormat: "HEXADECIMAL", successPageDuration: 0 });
      setImportedKey(id);
      return id;
    },
    "export-key": () => tk.handleExportPrivateKey({ privateKeyId: importedKey, keyFormat: "HEXADECIMAL" }),
    // The export-and-sign frame, which the kit has no screen for: @turnkey/iframe-stamper loads it, the Solana
    // account's key is exported to the frame's key, and the frame signs with it. The page gets a signature only.
    "export-and-sign": async () => {
      const frame = new IframeStamper({ iframeUrl: `${framesUrl}/export-and-sign`, iframeElementId: "export-and-sign-frame",
        iframeContainer: document.getElementById("export-and-sign") });
      try {
        const targetPublicKey = await frame.init();
        const exportBundle = await tk.exportWalletAccount({ address: solana.address, targetPublicKey });
        await frame.injectKeyExportBundle(exportBundle, tk.session.organizationId, "SOLANA", solana.address);
        return { address: solana.address, message: solanaMessage, signature: await frame.signMessage({ message: solanaMessage, type: "SOLANA" }, solana.address) };
      } finally {
        frame.clear();
      }
    },
  };

  const state = {
    client: tk.clientState, auth: tk.authState, organizationId: tk.session?.organizationId, userId: tk.user?.userId,
    userName: tk.user?.userName, email: tk.user?.userEmail, authenticators: tk.user?.authenticators?.length ?? 0,
    address: account?.address, solanaAddress: solana?.address,
    wallets: tk.wallets.map((w) => ({ walletId: w.walletId, name: w.walletName, addresses: (w.accounts ?? []).map((a) => a.address) })),
  };
  const signedIn = tk.authState === AuthState.Authenticated;

  return (
    <main>
      <h1>Sigil · wallet kit</h1>
      <section hidden={signedIn}>
        <button id="kit-login" onClick={run("kit-login", actions["kit-login"])}>Log in or sign up</button>
        <h2>E-mail code</h2>
        <input id="email" type="email" placeholder="you@example.com" value={email} onChange={(e) => setEmail(e.target.value)} />
        <button id="send-code" onClick={run("send-code", actions["send-code"])}>Send code</button>
        <input id="code" placeholder="code" value={code} onChange={(e) => setCode(e.target.value)} />
        <button id="verify-code" onClick={run("verify-code", actions["verify-code"])}>Sign in</button>
        <h2>Passkey</h2>
        <button id="passkey-signup" onClick={run("passkey-signup", actions["passkey-signup"])}>Sign up with a passkey</button>
        <button id="passkey-login" onClick={run("passkey-login", actions["passkey-login"])}>Log in with a passkey</button>
        <h2>OAuth</h2>
        <button id="x-login" onClick={run("x-login", actions["x-login"])}>Continue with X</button>
      </section>
      <section hidden={!signedIn}>
        <h2>Wallet</h2>
        {["create-wallet", "sign-message", "sign-transaction", "export-wallet", "export-account", "import-wallet", "import-key",
          "export-key", "export-and-sign", "logout"].map((name) => (
          <button key={name} id={name} onClick={run(name, actions[name])}>{name.replace("-", " ")}</button>
        ))}
      </section>
      <div id="export-and-sign" />
      <pre id="state">{JSON.stringify(state, null, 2)}</pre>
      <pre id="out" data-runs={runs}>{JSON.stringify(out, null, 2)}</pre>
      <p id="error" role="alert">{error}</p>
    </main>
  );
}
