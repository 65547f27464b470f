// Swaps with the official SDKs, unmodified: @turnkey/sdk-server's upsertSwapConfig, createSwapQuote, executeSwap,
// getSwapStatus and claimSwapFees against Uniswap V3 on the stack's dev chains, and @turnkey/http's TurnkeyClient for
// the versions the server SDK does not send (CREATE_SWAP_QUOTE_V2 with a destination, EXECUTE_SWAP_V3), across the
// two dev chains through Sigil's bridge. What the quote says is checked against Uniswap's own QuoterV2 and what the
// swap gave against the chain.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { Turnkey } from "@turnkey/sdk-server";
import { TurnkeyClient } from "@turnkey/http";
import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { createPublicClient, defineChain, encodePacked, http as viemHttp, parseAbi } from "viem";

const boot = JSON.parse(readFileSync(join(process.env.SIGIL_DIR, "bootstrap.json"), "utf8"));
const org = boot.organizationId;
const api = new Turnkey({ apiBaseUrl: boot.coordinatorUrl, apiPublicKey: boot.apiPublicKey, apiPrivateKey: boot.apiPrivateKey, defaultOrganizationId: org }).apiClient();
const http = new TurnkeyClient({ baseUrl: boot.coordinatorUrl }, new ApiKeyStamper({ apiPublicKey: boot.apiPublicKey, apiPrivateKey: boot.apiPrivateKey }));
const envelope = (type, parameters) => ({ type, timestampMs: String(Date.now()), organizationId: org, parameters });

const [first, second] = boot.chains;
const clientOf = (c) => createPublicClient({ chain: defineChain({ id: c.chainId, name: c.networkId,
  nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: { default: { http: [c.rpcUrl] } } }), transport: viemHttp(c.rpcUrl) });
const asset = (c, fixture) => `eip155:${c.chainId}/erc20:${c.contracts[fixture]}`;
const erc20 = parseAbi(["function balanceOf(address) view returns (uint256)"]);
const balanceOf = (c, fixture, holder) => clientOf(c).readContract({ address: c.contracts[fixture], abi: erc20, functionName: "balanceOf", args: [holder] });

async function fundedAccount(name, c, tokens) {
  const wallet = await api.createWallet({ walletName: `${name} ${Date.now()}`,
    accounts: [{ curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" }] });
  const address = wallet.addresses[0];
  const funded = await fetch(c.faucetUrl, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ address, eth: "1", tokens }) });
  assert.ok(funded.ok, "faucet");
  return address;
}

// waitForSwap polls get_swap_status until the swap leaves PENDING (a minute at most: the dev chain mines in a second,
// the bridge's relayer releases within a few).
async function waitForSwap(swapRequestId) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const status = await api.getSwapStatus({ swapRequestId });
    if (status.status !== "PENDING" || Date.now() > deadline) return status;
    await new Promise((r) => setTimeout(r, 250));
  }
}

test("sdk-server: upsertSwapConfig, createSwapQuote, executeSwap, getSwapStatus, claimSwapFees on Uniswap V3", async () => {
  const trader = await fundedAccount("sdk swapper", first, { USDC: "2000" });
  const feeReceiver = await fundedAccount("sdk swap fees", first, {});
  const config = await api.upsertSwapConfig({ feeBps: "25", stableFeeBps: "5", feeReceiverWalletAddress: feeReceiver });
  assert.equal(config.feeBps, "25");
  assert.equal(config.feeReceiverWalletAddress.toLowerCase(), feeReceiver.toLowerCase());

  const quoted = await api.createSwapQuote({ signWith: trader, inputToken: asset(first, "USDC"), outputToken: asset(first, "weth"),
    inputAmount: "1000000000", slippageBps: "200" });
  assert.equal(quoted.activity.status, "ACTIVITY_STATUS_COMPLETED");
  assert.equal(quoted.quotes.length, 1);
  const q = quoted.quotes[0];
  assert.equal(q.provider, "UNISWAP_V3");
  assert.equal(q.clientFeeBps, "25");
  assert.ok(Number(q.expiresAt) > Date.now(), "the quote has not expired");
  // Uniswap's own QuoterV2 over the quote's route, for the input net of the 0.25% client fee.
  const path = [asset(first, "USDC"), ...q.route.map((s) => s.outputToken)].map((a) => a.split(":").pop());
  const packed = encodePacked(q.route.flatMap((_, i) => i === 0 ? ["address", "uint24", "address"] : ["uint24", "address"]),
    q.route.flatMap((s, i) => i === 0 ? [path[0], Number(s.feeTier), path[1]] : [Number(s.feeTier), path[i + 1]]));
  const { result: [truth] } = await clientOf(first).simulateContract({ address: first.contracts["uniswap-v3-quoter"],
    abi: parseAbi(["function quoteExactInput(bytes path, uint256 amountIn) returns (uint256 amountOut, uint160[] sqrtPriceX96AfterList, uint32[] initializedTicksCrossedList, uint256 gasEstimate)"]),
    functionName: "quoteExactInput", args: [packed, 997_500_000n] });
  // The simulator moves the pools between the quote and this read (the Go tests compare them exactly on a still chain).
  const out = BigInt(q.outputAmount);
  assert.ok(out * 100n > truth * 98n && out * 100n < truth * 102n, `quoted ${out}, QuoterV2 gives ${truth}`);
  assert.equal(BigInt(q.minOutputAmount), out * 9800n / 10000n);

  const executed = await api.executeSwap({ quoteId: q.quoteId, inputToken: asset(first, "USDC"), inputAmount: "1000000000",
    outputToken: asset(first, "weth"), quotedOutputAmount: q.outputAmount, minOutputAmount: q.minOutputAmount, sponsor: false });
  assert.equal(executed.activity.status, "ACTIVITY_STATUS_COMPLETED");
  assert.equal(executed.quoteId, q.quoteId);
  const status = await waitForSwap(executed.swapRequestId);
  assert.equal(status.status, "COMPLETED", JSON.stringify(status));
  assert.ok(BigInt(status.outputAmount) >= BigInt(q.minOutputAmount), "at least the quote's minimum");
  assert.equal(await balanceOf(first, "weth", trader), BigInt(status.outputAmount));
  assert.equal(await balanceOf(first, "USDC", trader), 1_000_000_000n);
  const receipt = await clientOf(first).getTransactionReceipt({ hash: status.originTxHash });
  assert.equal(receipt.status, "success");

  // The quote executes once.
  await assert.rejects(api.executeSwap({ quoteId: q.quoteId, inputToken: asset(first, "USDC"), inputAmount: "1000000000",
    outputToken: asset(first, "weth"), quotedOutputAmount: q.outputAmount, minOutputAmount: q.minOutputAmount, sponsor: false }),
  (err) => /was executed already/.test(err.message));

  // The 2.5 USDC client fee accrued on-chain; the receiver claims it.
  const claim = await api.claimSwapFees({ caip2: `eip155:${first.chainId}` });
  const fee = claim.fees.find((f) => f.asset === asset(first, "USDC").toLowerCase());
  assert.ok(fee && BigInt(fee.amount) >= 2_500_000n, JSON.stringify(claim.fees));
  const sent = await api.pollTransactionStatus({ sendTransactionStatusId: claim.sendTransactionStatusId, pollingIntervalMs: 100, timeoutMs: 60_000 });
  assert.equal(sent.txStatus, "INCLUDED");
  assert.equal(await balanceOf(first, "USDC", feeReceiver), BigInt(fee.amount));
  await api.upsertSwapConfig({ feeBps: "0", stableFeeBps: "0" }); // the other tests quote without a client fee
});

test("refused before anything is sent: a zero amount, an unknown token, an altered quote", async () => {
  const trader = await fundedAccount("sdk swap refusals", first, { USDC: "10" });
  const quote = (inputToken, inputAmount) => api.createSwapQuote({ signWith: trader, inputToken, outputToken: asset(first, "weth"), inputAmount });
  await assert.rejects(quote(asset(first, "USDC"), "0"), (err) => /inputAmount must be more than zero/.test(err.message));
  await assert.rejects(quote(asset(first, "USDC"), "-5"), (err) => /inputAmount must be a decimal amount/.test(err.message));
  await assert.rejects(quote(`eip155:${first.chainId}/erc20:0x000000000000000000000000000000000000dEaD`, "5"), (err) => /is not a token swaps accept/.test(err.message));
  await assert.rejects(quote(asset(first, "USDC"), "11000000"), (err) => /balance|holds/i.test(err.message), "more than the balance");

  const { quotes: [q] } = await quote(asset(first, "USDC"), "5000000");
  await assert.rejects(api.executeSwap({ quoteId: q.quoteId, inputToken: asset(first, "USDC"), inputAmount: "5000000",
    outputToken: asset(first, "weth"), quotedOutputAmount: q.outputAmount, minOutputAmount: "1", sponsor: false }),
  (err) => /minOutputAmount: 1 is not what quote/.test(err.message));
  assert.equal(await clientOf(first).getTransactionCount({ address: trader }), 0, "nothing sent");
});

test("@turnkey/http: CREATE_SWAP_QUOTE_V2 to another chain's address, EXECUTE_SWAP_V3, sponsored, through Sigil's bridge", async () => {
  assert.ok(second, "the stack runs a second dev chain");
  const trader = await fundedAccount("http bridger", first, { USDC: "500" });
  const destination = "0x" + randomBytes(20).toString("hex"); // an address no one holds the key of, new each run
  const quoted = await http.createSwapQuote(envelope("ACTIVITY_TYPE_CREATE_SWAP_QUOTE_V2", { signWith: trader,
    inputToken: asset(first, "USDC"), outputToken: asset(second, "weth"), inputAmount: "300000000", slippageBps: "200", destinationAddress: destination }));
  const q = quoted.activity.result.createSwapQuoteResult.quotes[0];
  assert.equal(q.provider, "SIGIL_BRIDGE");
  assert.equal(q.swapKind, "CROSS_CHAIN");
  assert.equal(q.destinationAddress.toLowerCase(), destination);
  const bridge = q.route.find((s) => s.type === "SIGIL_BRIDGE");
  assert.ok(bridge, `the route says it bridges: ${JSON.stringify(q.route)}`);
  assert.equal(bridge.address.toLowerCase(), first.contracts["sigil-bridge"].toLowerCase());
  assert.equal(bridge.destinationCaip2, `eip155:${second.chainId}`);

  const executed = await http.executeSwap(envelope("ACTIVITY_TYPE_EXECUTE_SWAP_V3", { quoteId: q.quoteId, inputToken: asset(first, "USDC"),
    inputAmount: "300000000", outputToken: asset(second, "weth"), quotedOutputAmount: q.outputAmount, minOutputAmount: q.minOutputAmount,
    sponsor: true, destinationAddress: destination }));
  const { swapRequestId } = executed.activity.result.executeSwapResult;
  const status = await waitForSwap(swapRequestId);
  assert.equal(status.swapKind, "CROSS_CHAIN");
  assert.equal(status.status, "COMPLETED", JSON.stringify(status));
  assert.equal(status.destinationTxHashes.length, 1);
  const release = await clientOf(second).getTransactionReceipt({ hash: status.destinationTxHashes[0] });
  assert.equal(release.status, "success");
  assert.equal(await balanceOf(second, "weth", destination), BigInt(status.outputAmount));
  assert.ok(BigInt(status.outputAmount) >= BigInt(q.minOutputAmount));
  assert.equal(await clientOf(first).getBalance({ address: trader }), 10n ** 18n, "sponsored: the trader paid no gas");
});
