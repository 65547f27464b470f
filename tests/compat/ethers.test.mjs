// @turnkey/ethers backed by @turnkey/http pointed at Sigil: its signer's send path (ethers fills the nonce, gas and
// fees from the dev chain, Sigil signs, ethers broadcasts) and message signing, unmodified.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { TurnkeyClient } from "@turnkey/http";
import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { TurnkeySigner } from "@turnkey/ethers";
import { JsonRpcProvider, parseEther, verifyMessage, Transaction, Wallet } from "ethers";

const boot = JSON.parse(readFileSync(join(process.env.SIGIL_DIR, "bootstrap.json"), "utf8"));
const http = new TurnkeyClient(
  { baseUrl: boot.coordinatorUrl },
  new ApiKeyStamper({ apiPublicKey: boot.apiPublicKey, apiPrivateKey: boot.apiPrivateKey }),
);

async function newFundedAddress() {
  const res = await http.createWallet({
    type: "ACTIVITY_TYPE_CREATE_WALLET",
    timestampMs: String(Date.now()),
    organizationId: boot.organizationId,
    parameters: {
      walletName: `ethers-${Date.now()}-${Math.random()}`,
      accounts: [{ curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" }],
    },
  });
  assert.equal(res.activity.status, "ACTIVITY_STATUS_COMPLETED");
  const address = res.activity.result.createWalletResult.addresses[0];
  const funded = await fetch(boot.faucetUrl, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ address, eth: "1" }) });
  assert.equal(funded.status, 200, await funded.text());
  return address;
}

test("@turnkey/ethers sends a transaction on the dev chain: ethers fills it in, Sigil signs it, ethers broadcasts it", async () => {
  const provider = new JsonRpcProvider(boot.chainRpcUrl, boot.chainId, { staticNetwork: true });
  const address = await newFundedAddress();
  const signer = new TurnkeySigner({ client: http, organizationId: boot.organizationId, signWith: address }).connect(provider);
  assert.equal((await signer.getAddress()).toLowerCase(), address.toLowerCase());

  const to = Wallet.createRandom().address;
  const sent = await signer.sendTransaction({ to, value: parseEther("0.01") });
  const receipt = await sent.wait();
  assert.equal(receipt.status, 1);
  assert.equal(await provider.getBalance(to, receipt.blockNumber), parseEther("0.01"));
  const mined = Transaction.from(await provider.send("eth_getRawTransactionByHash", [sent.hash]));
  assert.equal(mined.from.toLowerCase(), address.toLowerCase(), "the chain recovers the Sigil wallet as the sender");
  assert.equal(mined.type, 2, "an EIP-1559 transaction, as ethers fills it in");

  const message = "hello from ethers";
  assert.equal(verifyMessage(message, await signer.signMessage(message)).toLowerCase(), address.toLowerCase());
});
