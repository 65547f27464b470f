// Generates transactions.json: Solana transactions built with @solana/web3.js and @solana/spl-token, and what those
// libraries' own decoders read back from them, for solana's Go tests. Run from the repository's root after
// `npm ci` in tests/compat: node internal/solana/testdata/generate.mjs
import { createRequire } from "node:module";
import { writeFileSync } from "node:fs";

const require = createRequire(new URL("../../tests/compat/package.json", import.meta.url));
const web3 = require("@solana/web3.js");
const spl = require("@solana/spl-token");
const { PublicKey, Keypair, SystemProgram, SystemInstruction, ComputeBudgetProgram, TransactionMessage,
  VersionedTransaction, Transaction, TransactionInstruction, AddressLookupTableAccount } = web3;

// Deterministic keys: seeds 1, 2, 3, ...
const kp = (n) => Keypair.fromSeed(Uint8Array.from({ length: 32 }, (_, i) => (i === 0 ? n : 0)));
const payer = kp(1), alice = kp(2), bob = kp(3), s1 = kp(4), s2 = kp(5), multisig = kp(6), mint = kp(7), table = kp(8);
const ata = (owner, m = mint.publicKey, program = spl.TOKEN_PROGRAM_ID) => spl.getAssociatedTokenAddressSync(m, owner, true, program);
const blockhash = "9sHcv6xwn9YkB8nxTUGKDwPwNnmqVp5oAXxU8Fdkm4J6";
const MEMO = new PublicKey("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr");

// What the official decoders read from a transaction, in the view's terms.
function expect(vtx, lookups = []) {
  const m = vtx.message;
  const keys = m.staticAccountKeys.map((k) => k.toBase58());
  const resolved = m.getAccountKeys({ addressLookupTableAccounts: lookups });
  const invoked = new Set(m.compiledInstructions.map((i) => i.programIdIndex));
  const transfers = [], splTransfers = [];
  const placeholder = (i) => (i < keys.length ? keys[i] : "ADDRESS_TABLE_LOOKUP");
  for (const ci of m.compiledInstructions) {
    const ix = new TransactionInstruction({
      programId: resolved.get(ci.programIdIndex),
      keys: ci.accountKeyIndexes.map((i) => ({ pubkey: resolved.get(i), isSigner: m.isAccountSigner(i), isWritable: m.isAccountWritable(i) })),
      data: Buffer.from(ci.data),
    });
    if (ix.programId.equals(SystemProgram.programId) && SystemInstruction.decodeInstructionType(ix) === "Transfer") {
      const t = SystemInstruction.decodeTransfer(ix);
      transfers.push({ from: placeholder(ci.accountKeyIndexes[0]), to: placeholder(ci.accountKeyIndexes[1]), amount: t.lamports.toString() });
    }
    if (ix.programId.equals(spl.TOKEN_PROGRAM_ID) || ix.programId.equals(spl.TOKEN_2022_PROGRAM_ID)) {
      const a = ci.accountKeyIndexes.map(placeholder);
      if (ix.data[0] === spl.TokenInstruction.Transfer) {
        const d = spl.decodeTransferInstruction(ix, ix.programId);
        splTransfers.push({ from: a[0], to: a[1], owner: a[2], token_mint: "", amount: d.data.amount.toString(), signers: a.slice(3) });
      } else if (ix.data[0] === spl.TokenInstruction.TransferChecked) {
        const d = spl.decodeTransferCheckedInstruction(ix, ix.programId);
        splTransfers.push({ from: a[0], token_mint: a[1], to: a[2], owner: a[3], amount: d.data.amount.toString(), decimals: d.data.decimals, signers: a.slice(4) });
      } else if (ix.data[0] === spl.TokenInstruction.TransferFeeExtension) {
        const d = spl.decodeTransferCheckedWithFeeInstruction(ix, ix.programId);
        splTransfers.push({ from: a[0], token_mint: a[1], to: a[2], owner: a[3], amount: d.data.amount.toString(), decimals: d.data.decimals, fee: d.data.fee.toString(), signers: a.slice(4) });
      }
    }
  }
  return {
    version: m.version === "legacy" ? -1 : m.version,
    header: [m.header.numRequiredSignatures, m.header.numReadonlySignedAccounts, m.header.numReadonlyUnsignedAccounts],
    account_keys: keys,
    program_keys: keys.filter((_, i) => invoked.has(i)),
    recent_blockhash: m.recentBlockhash,
    signers: keys.filter((_, i) => m.isAccountSigner(i)),
    writable: keys.filter((_, i) => m.isAccountWritable(i)),
    instructions: m.compiledInstructions.map((ci) => ({
      program_key: keys[ci.programIdIndex],
      accounts: ci.accountKeyIndexes.filter((i) => i < keys.length).map((i) => keys[i]),
      lookups: ci.accountKeyIndexes.filter((i) => i >= keys.length).length,
      instruction_data_hex: Buffer.from(ci.data).toString("hex"),
    })),
    transfers,
    spl_transfers: splTransfers,
    address_table_lookups: m.addressTableLookups.map((l) => ({ address_table_key: l.accountKey.toBase58(), writable_indexes: l.writableIndexes, readonly_indexes: l.readonlyIndexes })),
  };
}

const out = [];
function add(name, vtx, lookups) {
  const bytes = vtx.serialize();
  out.push({ name, hex: Buffer.from(bytes).toString("hex"), message_hex: Buffer.from(vtx.message.serialize()).toString("hex"), expect: expect(vtx, lookups) });
}
const legacy = (ixs, feePayer, signers = []) => {
  const tx = new Transaction({ feePayer, recentBlockhash: blockhash }).add(...ixs);
  const v = VersionedTransaction.deserialize(tx.serialize({ requireAllSignatures: false, verifySignatures: false }));
  for (const s of signers) v.sign([s]);
  return v;
};

add("legacy SOL transfer", legacy([SystemProgram.transfer({ fromPubkey: alice.publicKey, toPubkey: bob.publicKey, lamports: 1_000_000_000 })], alice.publicKey));

add("legacy two signers, the second signed", legacy([
  SystemProgram.transfer({ fromPubkey: alice.publicKey, toPubkey: bob.publicKey, lamports: 5 }),
  SystemProgram.transfer({ fromPubkey: s1.publicKey, toPubkey: bob.publicKey, lamports: 7 }),
], payer.publicKey, [s1]));

add("legacy SPL TransferChecked by a 2-of-2 multisig", legacy([
  spl.createTransferCheckedInstruction(ata(multisig.publicKey), mint.publicKey, ata(bob.publicKey), multisig.publicKey, 250_000n, 6, [s1, s2]),
], payer.publicKey));

add("legacy SPL Transfer and a memo", legacy([
  spl.createTransferInstruction(ata(alice.publicKey), ata(bob.publicKey), alice.publicKey, 42n),
  new TransactionInstruction({ programId: MEMO, keys: [], data: Buffer.from("sigil") }),
], alice.publicKey));

add("legacy Token-2022 TransferCheckedWithFee", legacy([
  spl.createTransferCheckedWithFeeInstruction(ata(alice.publicKey, mint.publicKey, spl.TOKEN_2022_PROGRAM_ID), mint.publicKey,
    ata(bob.publicKey, mint.publicKey, spl.TOKEN_2022_PROGRAM_ID), alice.publicKey, 1_000_000n, 9, 5_000n, [], spl.TOKEN_2022_PROGRAM_ID),
], alice.publicKey));

// Five instructions and one lookup table holding the recipients and a token account.
const lookup = new AddressLookupTableAccount({ key: table.publicKey, state: {
  deactivationSlot: BigInt("18446744073709551615"), lastExtendedSlot: 0, lastExtendedSlotStartIndex: 0,
  addresses: [bob.publicKey, ata(bob.publicKey), s2.publicKey, spl.TOKEN_PROGRAM_ID] } });
const v0 = new VersionedTransaction(new TransactionMessage({ payerKey: alice.publicKey, recentBlockhash: blockhash, instructions: [
  ComputeBudgetProgram.setComputeUnitLimit({ units: 200_000 }),
  ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 1_000 }),
  SystemProgram.transfer({ fromPubkey: alice.publicKey, toPubkey: bob.publicKey, lamports: 123_456 }),
  spl.createTransferCheckedInstruction(ata(alice.publicKey), mint.publicKey, ata(bob.publicKey), alice.publicKey, 777n, 6),
  new TransactionInstruction({ programId: MEMO, keys: [{ pubkey: s2.publicKey, isSigner: false, isWritable: false }], data: Buffer.from("five") }),
] }).compileToV0Message([lookup]));
add("v0 five instructions and a lookup table", v0, [lookup]);

writeFileSync(new URL("transactions.json", import.meta.url), JSON.stringify(out, null, 1) + "\n");
console.log(`${out.length} transactions`);
