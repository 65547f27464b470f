// Generates transactions.json: Tron transactions built offline with tronweb (a block header given, so nothing is
// fetched), with tronweb's own JSON of each (raw_data), for tron's Go tests. Run from the repository's root after
// `npm ci` in tests/compat: node internal/tron/testdata/generate.mjs
import { createRequire } from "node:module";
import { writeFileSync } from "node:fs";

const require = createRequire(new URL("../../tests/compat/package.json", import.meta.url));
const { TronWeb } = require("tronweb");

const tw = new TronWeb({ fullHost: "http://127.0.0.1:9" });
const from = "TMVQGm1qAQYVdetCeGRRkTWYYrLXuHK2HC", to = "TFxUNfCwhiTSnNntkcXvicSTf4otPXeCXL";
const usdt = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t";
const blockHeader = { ref_block_bytes: "c3e8", ref_block_hash: "e3b7e1a1c2d3f4e5", expiration: 1767229200000, timestamp: 1767225600000 };
const options = { blockHeader };
const b = tw.transactionBuilder;

const out = [];
const add = (name, tx) => out.push({ name, raw_data_hex: tx.raw_data_hex, txID: tx.txID, raw_data: tx.raw_data });

add("TRX transfer with a memo", await b.addUpdateData(await b.sendTrx(to, 1_000_000, from, options), "invoice 42", "utf8", { txLocal: true }));
add("TRC-20 transfer", (await b.triggerSmartContract(usdt, "transfer(address,uint256)", { feeLimit: 100_000_000, callValue: 7, ...options, txLocal: true },
  [{ type: "address", value: to }, { type: "uint256", value: 5_000_000 }], from)).transaction);
add("freeze for energy", await b.freezeBalanceV2(2_000_000, "ENERGY", from, options));
add("unfreeze bandwidth", await b.unfreezeBalanceV2(1_000_000, "BANDWIDTH", from, options));
add("delegate energy, locked", await b.delegateResource(3_000_000, to, "ENERGY", from, true, 86_400, options));
add("undelegate bandwidth", await b.undelegateResource(4_000_000, to, "BANDWIDTH", from, options));
add("account permissions: 2-of-2 owner, one active", await b.updateAccountPermissions(from,
  { type: 0, permission_name: "owner", threshold: 2, keys: [{ address: from, weight: 1 }, { address: to, weight: 1 }] },
  null,
  [{ type: 2, permission_name: "active0", threshold: 1, operations: "7fff1fc0033e0000000000000000000000000000000000000000000000000000", keys: [{ address: to, weight: 1 }] }],
  options));
add("permission 2 transfer", await b.sendTrx(to, 5, from, { ...options, permissionId: 2 }));

writeFileSync(new URL("transactions.json", import.meta.url), JSON.stringify(out, null, 1) + "\n");
console.log(`${out.length} transactions`);
