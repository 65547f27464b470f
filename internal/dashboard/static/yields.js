// The Yields page: the yield service's yields with their reward rates, and the organization's positions with what
// each is worth over time at the yield's sampled share prices. The service is reached through the dashboard's relay
// (yield/…) with the project API key given here, kept for this tab only (sessionStorage).

import { $, el, table, FieldError } from "./ui.js";
import { drawn, horizontalBars, line } from "./charts.js";

const KEY = "sigil-yield-key";

export const yieldKey = () => sessionStorage.getItem(KEY) || "";
export const setYieldKey = (k) => (k ? sessionStorage.setItem(KEY, k) : sessionStorage.removeItem(KEY));

async function call(method, path, body) {
  const res = await fetch("yield/v1/" + path, {
    method, headers: { "X-API-KEY": yieldKey(), "Content-Type": "application/json" }, body: body && JSON.stringify(body),
  });
  const data = await res.json().catch(() => null);
  if (!res.ok) {
    const message = `the yield service answers ${res.status}: ${(data && data.message) || res.statusText}`;
    throw res.status === 401 || res.status === 403 ? new FieldError("apiKey", message) : new Error(message);
  }
  return data;
}

const percent = (r) => `${(r * 100).toFixed(2)}%`;
const yieldName = (y) => y.metadata?.name || y.id;

// showYields draws the rates and the positions of accounts ({ address, label }).
export async function showYields(accounts) {
  const { items: yields } = await call("GET", "yields?limit=100");
  const byId = new Map(yields.map((y) => [y.id, y]));
  const rated = [...yields].sort((a, b) => b.rewardRate.total - a.rewardRate.total).slice(0, 12);
  const rateLabel = `Reward rates of the ${rated.length} best-paying yields`;
  const networks = [...new Set(yields.map((y) => y.network))];
  // The same yield on two networks (sigil up runs two dev chains) is told apart by its network.
  const where = (y) => (networks.length > 1 ? ` on ${y.network}` : "");
  drawn($("yield-rates"), (width) => horizontalBars(width, {
    label: rateLabel, key: "rate",
    items: rated.map((y) => ({ label: `${yieldName(y)}${where(y)} (${y.rewardRate.rateType})`, value: y.rewardRate.total, text: percent(y.rewardRate.total) })),
  }));
  const queries = accounts.flatMap((a) => networks.map((network) => ({ address: a.address, network })));
  const positions = [];
  for (let i = 0; i < queries.length; i += 50) { // the service takes a bounded number of queries a request
    const { items } = await call("POST", "yields/balances", { queries: queries.slice(i, i + 50) });
    for (const item of items) for (const b of item.balances) positions.push({ y: byId.get(item.yieldId), b });
  }
  const labelOf = new Map(accounts.map((a) => [a.address.toLowerCase(), a.label]));
  table($("positions"), ["Account", "Yield", "State", "Amount"], positions.map(({ y, b }) => [
    labelOf.get(b.address.toLowerCase()) || b.address, y ? yieldName(y) : "", b.type, `${b.amount} ${b.token.symbol}`]));
  $("positions-none").hidden = positions.length > 0;
  const active = positions.filter(({ y, b }) => y && b.type === "active");
  const shown = new Map([...$("position-charts").children].map((f) => [f.dataset.key, f]));
  const charts = await Promise.all(active.map(async ({ y, b }) => {
    // The amount held now, at each sampled share price relative to the latest: what these shares were worth then.
    const { items } = await call("GET", `yields/${encodeURIComponent(y.id)}/share-prices?days=7`);
    const last = items.length ? items[items.length - 1].price : 0;
    const points = last ? items.map((p) => ({ t: Date.parse(p.timestamp), v: (Number(b.amount) * p.price) / last })) : [];
    const label = `${labelOf.get(b.address.toLowerCase()) || b.address} in ${yieldName(y)}: value over 7 days, in ${b.token.symbol}`;
    const key = `${y.id}/${b.address}`;
    const figure = shown.get(key) || el("figure", { className: "figure", "data-yield": y.id, "data-key": key },
      el("figcaption", {}, label), el("div", { className: "chart-box" }));
    drawn(figure.querySelector(".chart-box"), (width) => line(width, { points, label, key: "value", format: (v) => `${v.toFixed(4)} ${b.token.symbol}` }));
    return figure;
  }));
  $("position-charts").replaceChildren(...charts);
}
