// Names for ids: the organization's users, policies and wallets by id, so that a page shows names where the API
// answers ids.

import { query } from "./api.js";
import { el } from "./ui.js";

export const names = new Map();

export async function loadNames() {
  const [{ users: us }, { policies }, { wallets }] = await Promise.all([query("list_users"), query("list_policies"), query("list_wallets")]);
  names.clear();
  for (const u of us) names.set(u.userId, { kind: "user", name: u.userName });
  for (const p of policies) names.set(p.policyId, { kind: "policy", name: p.policyName });
  for (const w of wallets) names.set(w.walletId, { kind: "wallet", name: w.walletName });
}

export const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
export const nameOf = (id) => names.get(id)?.name || id;

// named shows text with each known id replaced by its name (the id in the name's tooltip); inCode keeps the id, as
// an expression must read, and adds the name after it.
export function named(text, inCode = false) {
  const out = el(inCode ? "code" : "span");
  let last = 0;
  for (const m of (text || "").matchAll(UUID)) {
    const known = names.get(m[0].toLowerCase());
    if (!known) continue;
    out.append(text.slice(last, m.index));
    last = m.index + m[0].length;
    if (inCode) {
      const quote = /['"]/.test(text[last] || "") ? text[last++] : ""; // the name after the quoted id, not in it
      out.append(m[0] + quote, el("span", { className: "id-name" }, ` (${known.kind} ${known.name})`));
    } else out.append(el("abbr", { title: m[0], className: "id-name" }, known.name));
  }
  out.append(text.slice(last));
  return out;
}
