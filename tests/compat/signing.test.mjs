// @turnkey/viem backed by @turnkey/http pointed at Sigil: viem verifies what Sigil signs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { TurnkeyClient } from "@turnkey/http";
import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { createAccount } from "@turnkey/viem";
import { recoverTransactionAddress, verifyMessage, verifyTypedData, parseGwei } from "viem";

const boot = JSON.parse(readFileSync(join(process.env.SIGIL_DIR, "bootstrap.json"), "utf8"));
const http = new TurnkeyClient(
  { baseUrl: boot.coordinatorUrl },
  new ApiKeyStamper({ apiPublicKey: boot.apiPublicKey, apiPrivateKey: boot.apiPrivateKey }),
);

async function newWallet() {
  const res = await http.createWallet({
    type: "ACTIVITY_TYPE_CREATE_WALLET",
    timestampMs: String(Date.now()),
    organizationId: boot.organizationId,
    parameters: {
      walletName: `viem-${Date.now()}-${Math.random()}`,
      accounts: [{ curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" }],
    },
  });
  assert.equal(res.activity.status, "ACTIVITY_STATUS_COMPLETED");
  return res.activity.result.createWalletResult.addresses[0];
}

test("@turnkey/viem signs an EIP-1559 transaction and a personal message that viem verifies", async () => {
  const address = await newWallet();
  const account = await createAccount({ client: http, organizationId: boot.organizationId, signWith: address });
  assert.equal(account.address.toLowerCase(), address.toLowerCase());

  const serializedTransaction = await account.signTransaction({
    type: "eip1559",
    chainId: 1337,
    nonce: 0,
    to: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
    value: 1000n,
    gas: 21000n,
    maxFeePerGas: parseGwei("2"),
    maxPriorityFeePerGas: parseGwei("1"),
  });
  assert.equal(await recoverTransactionAddress({ serializedTransaction }), account.address);

  const message = "hello from sigil";
  const signature = await account.signMessage({ message });
  assert.ok(await verifyMessage({ address: account.address, message, signature }));
});

test("@turnkey/viem signs EIP-712 typed data that viem verifies", async () => {
  const address = await newWallet();
  const account = await createAccount({ client: http, organizationId: boot.organizationId, signWith: address });
  const typed = {
    domain: { name: "Ether Mail", version: "1", chainId: 1337, verifyingContract: "0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC" },
    // @turnkey/viem serializes the domain with viem's serializeTypedData, which keeps only the domain fields that
    // types.EIP712Domain declares; dapps using eth_signTypedData_v4 declare it, and so does this test.
    types: {
      EIP712Domain: [{ name: "name", type: "string" }, { name: "version", type: "string" }, { name: "chainId", type: "uint256" }, { name: "verifyingContract", type: "address" }],
      Person: [{ name: "name", type: "string" }, { name: "wallet", type: "address" }], Mail: [{ name: "from", type: "Person" }, { name: "contents", type: "string" }] },
    primaryType: "Mail",
    message: { from: { name: "Cow", wallet: "0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826" }, contents: "Hello, Bob!" },
  };
  const signature = await account.signTypedData(typed);
  assert.ok(await verifyTypedData({ address: account.address, signature, ...typed }));
});
