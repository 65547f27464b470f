// Balances on the configured chains, read through the dashboard's relay (POST rpc/{caip2}), which passes on only
// eth_getBalance and the ERC-20 reads balanceOf, decimals and symbol.

// MAX_BATCH is the most calls the relay takes in one batch.
const MAX_BATCH = 100;

// rpc sends calls ([method, params] pairs) in batches of at most MAX_BATCH, one after the other, and returns their
// results in order; a call the node refused is undefined.
async function rpc(chain, calls) {
  const out = [];
  for (let i = 0; i < calls.length; i += MAX_BATCH) out.push(...(await batch(chain, calls.slice(i, i + MAX_BATCH))));
  return out;
}

async function batch(chain, calls) {
  if (!calls.length) return [];
  const body = calls.map(([method, params], id) => ({ jsonrpc: "2.0", id, method, params }));
  const res = await fetch("rpc/" + encodeURIComponent(chain.caip2), {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  });
  const out = await res.json().catch(() => null);
  if (!res.ok || !Array.isArray(out)) throw new Error(`${chain.name}: ${(out && out.message) || res.status + " " + res.statusText}`);
  const byId = new Map(out.map((r) => [r.id, r.result]));
  return calls.map((_, id) => byId.get(id));
}

const word = (hex) => hex.replace(/^0x/, "").toLowerCase().padStart(64, "0");
const call = (to, data) => ["eth_call", [{ to, data }, "latest"]];

// abiString decodes a string an ERC-20 returns (ABI-encoded: offset, length, bytes).
function abiString(hex) {
  const h = (hex || "").replace(/^0x/, "");
  if (h.length < 128) return "";
  const len = parseInt(h.slice(64, 128), 16);
  const bytes = Uint8Array.from(h.slice(128, 128 + len * 2).match(/../g) || [], (b) => parseInt(b, 16));
  return new TextDecoder().decode(bytes);
}

const tokenCache = new Map();

// tokens reads the symbol and decimals of a chain's listed contracts once; a contract that is not an ERC-20 (it
// answers neither) is left out.
async function tokens(chain) {
  if (!tokenCache.has(chain.caip2)) {
    const list = chain.tokens || [];
    const out = await rpc(chain, list.flatMap((t) => [call(t, "0x95d89b41"), call(t, "0x313ce567")]));
    tokenCache.set(chain.caip2, list.map((address, i) => ({ address, symbol: abiString(out[2 * i]), decimals: out[2 * i + 1] }))
      .filter((t) => t.symbol && t.decimals && t.decimals !== "0x")
      .map((t) => ({ ...t, decimals: Number(BigInt(t.decimals)) })));
  }
  return tokenCache.get(chain.caip2);
}

// balances reads what each address holds on a chain: the native coin and every token, as
// { address: [{ symbol, amount (base units, BigInt), decimals }] }, the coin first and only tokens held.
export async function balances(chain, addresses) {
  const list = await tokens(chain);
  const calls = addresses.flatMap((a) => [["eth_getBalance", [a, "latest"]], ...list.map((t) => call(t.address, "0x70a08231" + word(a)))]);
  const out = await rpc(chain, calls);
  const per = 1 + list.length;
  const result = {};
  addresses.forEach((a, i) => {
    const row = out.slice(i * per, (i + 1) * per).map((v) => (v && v !== "0x" ? BigInt(v) : 0n));
    result[a] = [{ symbol: "ETH", amount: row[0], decimals: 18 },
      ...list.map((t, j) => ({ symbol: t.symbol, amount: row[j + 1], decimals: t.decimals })).filter((b) => b.amount > 0n)];
  });
  return result;
}

// units shows an amount of base units in whole units, with at most four decimals.
export function units(amount, decimals) {
  const scale = 10n ** BigInt(decimals);
  const whole = amount / scale;
  const frac = ((amount % scale) * 10000n) / scale;
  const shown = frac ? `${whole}.${frac.toString().padStart(4, "0").replace(/0+$/, "")}` : String(whole);
  return amount > 0n && shown === "0" ? "<0.0001" : shown;
}

// value is an amount as a number of whole units, for charts.
export const value = (amount, decimals) => Number(amount) / 10 ** decimals;
