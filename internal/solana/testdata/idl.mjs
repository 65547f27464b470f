// Generates idl.json: instruction data encoded by Anchor's own coder (@coral-xyz/anchor's BorshInstructionCoder)
// from an Anchor 0.30 IDL, with the arguments as solana's IDL decoder should read them back, for solana's Go tests.
// Run from the repository's root after `npm ci` in tests/compat: node internal/solana/testdata/idl.mjs
import { createRequire } from "node:module";
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";

const require = createRequire(new URL("../../tests/compat/package.json", import.meta.url));
const { BorshInstructionCoder, BN } = require("@coral-xyz/anchor");
const { PublicKey } = require("@solana/web3.js");

const disc = (name) => [...createHash("sha256").update(`global:${name}`).digest().subarray(0, 8)];
const key = (n) => new PublicKey(Uint8Array.from({ length: 32 }, (_, i) => (i === 0 ? n : i)));

// A router and vault program in the shape of Jupiter's route and an ERC-4626-like deposit, using every Borsh type.
export const idl = {
  address: key(9).toBase58(),
  metadata: { name: "vault_router", version: "0.1.0", spec: "0.1.0" },
  instructions: [
    {
      name: "route", discriminator: disc("route"),
      accounts: [
        { name: "token_program" }, { name: "user_transfer_authority", signer: true },
        { name: "user_source_token_account", writable: true }, { name: "destination_mint" },
      ],
      args: [
        { name: "route_plan", type: { vec: { defined: { name: "RoutePlanStep" } } } },
        { name: "in_amount", type: "u64" }, { name: "quoted_out_amount", type: "u64" },
        { name: "slippage_bps", type: "u16" }, { name: "platform_fee_bps", type: "u8" },
      ],
    },
    {
      name: "deposit_with_memo", discriminator: disc("deposit_with_memo"),
      accounts: [
        { name: "vault", writable: true },
        { name: "user", accounts: [{ name: "owner", signer: true }, { name: "owner_token_account", writable: true }] },
        { name: "system_program", address: "11111111111111111111111111111111" },
      ],
      args: [
        { name: "amount", type: { defined: { name: "Amount" } } },
        { name: "memo", type: { option: "string" } },
        { name: "beneficiary", type: "pubkey" },
        { name: "payload", type: "bytes" },
        { name: "scores", type: { array: ["i16", 3] } },
        { name: "big", type: "u128" }, { name: "debt", type: "i64" }, { name: "delta", type: "i128" },
        { name: "ok", type: "bool" }, { name: "ratio", type: "f64" },
        { name: "fee", type: { option: { defined: { name: "Fee" } } } },
        { name: "point", type: { defined: { name: "Point" } } },
      ],
    },
  ],
  types: [
    { name: "RoutePlanStep", type: { kind: "struct", fields: [
      { name: "swap", type: { defined: { name: "Swap" } } }, { name: "percent", type: "u8" },
      { name: "input_index", type: "u8" }, { name: "output_index", type: "u8" } ] } },
    { name: "Swap", type: { kind: "enum", variants: [
      { name: "Saber" }, { name: "Whirlpool", fields: [{ name: "a_to_b", type: "bool" }] },
      { name: "Custom", fields: ["u64", "pubkey"] } ] } },
    { name: "Amount", type: { kind: "type", alias: "u64" } },
    { name: "Fee", type: { kind: "struct", fields: [{ name: "bps", type: "u16" }, { name: "recipient", type: "pubkey" }] } },
    { name: "Point", type: { kind: "struct", fields: ["i32", "i32"] } },
  ],
};

const coder = new BorshInstructionCoder(idl);
const bn = (s) => new BN(s);

// Each case: the instruction, the arguments as Anchor takes them, and as the decoder gives them.
const cases = [
  {
    name: "route",
    anchor: { route_plan: [
      { swap: { Whirlpool: { a_to_b: true } }, percent: 60, input_index: 0, output_index: 1 },
      { swap: { Saber: {} }, percent: 40, input_index: 0, output_index: 1 },
      { swap: { Custom: { 0: bn("18446744073709551615"), 1: key(5) } }, percent: 100, input_index: 1, output_index: 2 },
    ], in_amount: bn("995500000"), quoted_out_amount: bn("12345"), slippage_bps: 50, platform_fee_bps: 0 },
    want: { route_plan: [
      { swap: { Whirlpool: { a_to_b: true } }, percent: "60", input_index: "0", output_index: "1" },
      { swap: "Saber", percent: "40", input_index: "0", output_index: "1" },
      { swap: { Custom: ["18446744073709551615", key(5).toBase58()] }, percent: "100", input_index: "1", output_index: "2" },
    ], in_amount: "995500000", quoted_out_amount: "12345", slippage_bps: "50", platform_fee_bps: "0" },
  },
  {
    name: "deposit_with_memo",
    anchor: { amount: bn("1000000"), memo: "for the vault ✓", beneficiary: key(3), payload: Buffer.from("00ff10", "hex"),
      scores: [-1, 0, 32767], big: bn("340282366920938463463374607431768211455"), debt: bn("-9223372036854775808"),
      delta: bn("-170141183460469231731687303715884105728"), ok: true, ratio: 0.25,
      fee: { bps: 30, recipient: key(4) }, point: { 0: -7, 1: 2147483647 } },
    want: { amount: "1000000", memo: "for the vault ✓", beneficiary: key(3).toBase58(), payload: "00ff10",
      scores: ["-1", "0", "32767"], big: "340282366920938463463374607431768211455", debt: "-9223372036854775808",
      delta: "-170141183460469231731687303715884105728", ok: true, ratio: "0.25",
      fee: { bps: "30", recipient: key(4).toBase58() }, point: ["-7", "2147483647"] },
  },
  {
    name: "deposit_with_memo",
    anchor: { amount: bn("0"), memo: null, beneficiary: key(3), payload: Buffer.alloc(0), scores: [0, 0, 0], big: bn("0"),
      debt: bn("0"), delta: bn("0"), ok: false, ratio: -1.5, fee: null, point: { 0: 0, 1: 0 } },
    want: { amount: "0", memo: null, beneficiary: key(3).toBase58(), payload: "", scores: ["0", "0", "0"], big: "0",
      debt: "0", delta: "0", ok: false, ratio: "-1.5", fee: null, point: ["0", "0"] },
  },
];

const out = {
  idl,
  cases: cases.map((c) => ({ instruction: c.name, data_hex: coder.encode(c.name, c.anchor).toString("hex"), args: c.want })),
};
writeFileSync(new URL("./idl.json", import.meta.url), JSON.stringify(out, null, 2) + "\n");
