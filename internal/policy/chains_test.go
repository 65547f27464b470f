package policy

import (
	"encoding/json"
	"errors"
	"testing"
)

const (
	solSystem = "11111111111111111111111111111111"
	solToken  = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"
	solAlice  = "8EYKVyNCsDFHkxos7V4kr8bMouYU2nPJ1QXk2ET8FBc7"
	solBob    = "4F2PLigowHJbBJxrrUuJvqPH17RB5ELCB4HQ9QEqtQYV"
	solBad    = "HR6AUdPTsPQ9KBjujb89nFgD1okeMbZUriobrPgKXa8j"
	solMint   = "ByCK5UzUkhifVKW7FPDx1oSeMyP8w6nskqRspnmVq1NB"
	solSigner = "BVX6PY3KWr9W3tdfjFbag5eZNmX6aYuCxbN2y5Nzu3wV"
	solTable  = "FKZgVHqRQt7hZMEKGEjkvfRpDFcVS5Edspeb6tpxVswd"
)

// solTransfer is a transaction of one System Program transfer of amount lamports from solAlice to to.
func solTransfer(to string, amount uint64) *Input {
	return &Input{SolanaTx: &SolanaTx{
		AccountKeys: []string{solAlice, to, solSystem}, ProgramKeys: []string{solSystem}, RecentBlockhash: "9sHcv6xwn9YkB8nxTUGKDwPwNnmqVp5oAXxU8Fdkm4J6",
		Instructions: []SolanaInstruction{{ProgramKey: solSystem, InstructionDataHex: "0200000000ca9a3b00000000",
			Accounts: []SolanaAccount{{solAlice, true, true}, {to, false, true}}, AddressTableLookups: []SolanaInstructionLookup{}}},
		Transfers: []SolanaTransfer{{From: solAlice, To: to, Amount: amount}}, SPLTransfers: []SolanaSPLTransfer{},
		AddressTableLookups: []SolanaAddressTableLookup{},
	}}
}

// solSPL is a transaction of one TransferChecked of amount from token account from, owned by a multisig with one
// signer, to token account to.
func solSPL(from, to, mint string, amount uint64) *Input {
	return &Input{SolanaTx: &SolanaTx{
		AccountKeys: []string{solAlice, from, to, solToken}, ProgramKeys: []string{solToken},
		Instructions: []SolanaInstruction{{ProgramKey: solToken, InstructionDataHex: "0c",
			Accounts: []SolanaAccount{{from, false, true}, {to, false, true}}, AddressTableLookups: []SolanaInstructionLookup{}}},
		Transfers:    []SolanaTransfer{},
		SPLTransfers: []SolanaSPLTransfer{{From: from, To: to, Owner: solAlice, TokenMint: mint, Amount: amount, Signers: []string{solSigner}}},
	}}
}

// solLookup is a transfer to an account loaded from a lookup table.
func solLookup() *Input {
	in := solTransfer("ADDRESS_TABLE_LOOKUP", 5)
	in.SolanaTx.AccountKeys = []string{solAlice, solSystem}
	in.SolanaTx.Instructions[0].Accounts = in.SolanaTx.Instructions[0].Accounts[:1]
	in.SolanaTx.Instructions[0].AddressTableLookups = []SolanaInstructionLookup{{AddressTableKey: solTable, Index: 0, Writable: true}}
	in.SolanaTx.AddressTableLookups = []SolanaAddressTableLookup{{AddressTableKey: solTable, WritableIndexes: []uint32{0}, ReadonlyIndexes: []uint32{}}}
	return in
}

const solJupiter = "JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4"

// solRoute is a call of a route instruction decoded with its program's IDL, swapping inAmount.
func solRoute(inAmount string) *Input {
	return &Input{SolanaTx: &SolanaTx{AccountKeys: []string{solAlice, solJupiter}, ProgramKeys: []string{solJupiter},
		Instructions: []SolanaInstruction{{ProgramKey: solJupiter, InstructionDataHex: "e517cb977ae3ad2a",
			Accounts: []SolanaAccount{{solAlice, true, true}},
			Parsed: &SolanaParsedInstruction{InstructionName: "route", Discriminator: "e517cb977ae3ad2a",
				NamedAccounts: map[string]any{"user_transfer_authority": solAlice},
				ProgramCallArgs: map[string]any{"in_amount": json.Number(inAmount),
					"route_plan": []any{map[string]any{"swap": "Saber", "percent": json.Number("100")}}}}}},
		Transfers: []SolanaTransfer{}, SPLTransfers: []SolanaSPLTransfer{}, AddressTableLookups: []SolanaAddressTableLookup{},
	}}
}

type chainExample struct {
	source    string // where the policy is documented
	condition string // the expression: a condition, or for runExamples of another field an expression of that field
	match     *Input
	miss      *Input
}

// Every Solana example policy of the reference (policy-language.md §5, 22 to 25) and of Turnkey's policy
// documentation (concepts/policies/examples/solana, language.mdx) compiles, is true of a matching transaction and
// false of another.
func TestSolanaExamples(t *testing.T) {
	examples := []chainExample{
		{"ref 22, docs: system program only", "solana.tx.program_keys.all(p, p == '11111111111111111111111111111111')",
			solTransfer(solBob, 1), solSPL(solBob, solBad, solMint, 1)},
		{"ref 23: strict recipient", "solana.tx.instructions.count() == 1 && solana.tx.transfers.count() == 1 && solana.tx.transfers.all(transfer, transfer.to == '" + solBob + "')",
			solTransfer(solBob, 1), solTransfer(solBad, 1)},
		{"ref 24, docs: deny a recipient", "solana.tx.transfers.any(transfer, transfer.to == '" + solBad + "')",
			solTransfer(solBad, 1), solTransfer(solBob, 1)},
		{"ref 24, docs: deny lookups", "solana.tx.address_table_lookups.count() > 0", solLookup(), solTransfer(solBob, 1)},
		{"docs: guard lookups without parentheses", "solana.tx.address_table_lookups.count == 0", solTransfer(solBob, 1), solLookup()},
		{"docs: deny a lookup recipient", "solana.tx.transfers.any(t, t.to == 'ADDRESS_TABLE_LOOKUP')", solLookup(), solTransfer(solBob, 1)},
		{"ref 25, docs: every instruction an SPL transfer of one mint", "solana.tx.instructions.count() == solana.tx.spl_transfers.count() && solana.tx.spl_transfers.all(transfer, transfer.token_mint == '" + solMint + "')",
			solSPL(solBob, solBad, solMint, 1), solSPL(solBob, solBad, solSigner, 1)},
		{"ref 25, docs: amount below", "solana.tx.instructions.count() == 1 && solana.tx.spl_transfers.count() == 1 && solana.tx.spl_transfers.all(transfer, transfer.amount < 1000)",
			solSPL(solBob, solBad, solMint, 999), solSPL(solBob, solBad, solMint, 1000)},
		{"ref 25, docs: owner", "solana.tx.instructions.count() == solana.tx.spl_transfers.count() && solana.tx.spl_transfers.all(transfer, transfer.owner == '" + solAlice + "')",
			solSPL(solBob, solBad, solMint, 1), solTransfer(solBob, 1)},
		{"ref 25, docs: multisig signer", "solana.tx.instructions.count() == 1 && solana.tx.spl_transfers.count() == 1 && solana.tx.spl_transfers.all(transfer, transfer.signers.any(s, s == '" + solSigner + "'))",
			solSPL(solBob, solBad, solMint, 1), solTransfer(solBob, 1)},
		{"docs: SPL from a token account", "solana.tx.instructions.count() == 1 && solana.tx.spl_transfers.count() == 1 && solana.tx.spl_transfers.all(transfer, transfer.from == '" + solBob + "')",
			solSPL(solBob, solBad, solMint, 1), solSPL(solBad, solBob, solMint, 1)},
		{"docs: SPL to a token account", "solana.tx.instructions.count() == solana.tx.spl_transfers.count() && solana.tx.spl_transfers.all(transfer, transfer.to == '" + solBad + "')",
			solSPL(solBob, solBad, solMint, 1), solSPL(solBad, solBob, solMint, 1)},
		{"docs: transfers from one sender", "solana.tx.transfers.all(transfer, transfer.from == '" + solAlice + "')", solTransfer(solBob, 1), solSPL(solBob, solBad, solMint, 1).with(func(in *Input) {
			in.SolanaTx.Transfers = []SolanaTransfer{{From: solBob, To: solBad, Amount: 1}}
		})},
		{"docs: one transfer to one recipient, count without parentheses", "solana.tx.transfers.count == 1 && solana.tx.transfers[0].to == '" + solBob + "'",
			solTransfer(solBob, 1), solTransfer(solBad, 1)},
		{"docs: transfers to one recipient", "solana.tx.transfers.all(transfer, transfer.to == '" + solBob + "')", solTransfer(solBob, 1), solTransfer(solBad, 1)},
		{"docs: first instruction's data", "solana.tx.instructions[0].instruction_data_hex == '0200000000ca9a3b00000000'", solTransfer(solBob, 1), solSPL(solBob, solBad, solMint, 1)},
		{"docs: first instruction's first account", "solana.tx.instructions[0].accounts[0].account_key == '" + solAlice + "'", solTransfer(solBob, 1), solSPL(solBob, solBad, solMint, 1)},
		{"fields: signer, writable, blockhash, lookups", "solana.tx.instructions[0].accounts[0].signer && solana.tx.instructions[0].accounts[1].writable && solana.tx.recent_blockhash == '9sHcv6xwn9YkB8nxTUGKDwPwNnmqVp5oAXxU8Fdkm4J6' && '" + solAlice + "' in solana.tx.account_keys",
			solTransfer(solBob, 1), solSPL(solBob, solBad, solMint, 1)},
		{"ref 26: an IDL-decoded instruction", "solana.tx.instructions.any(i, i.program_key == '" + solJupiter + "' && i.parsed_instruction_data.instruction_name == 'route' && i.parsed_instruction_data.program_call_args['in_amount'] == 995500000)",
			solRoute("995500000"), solRoute("995500001")},
		{"IDL: named accounts, nested arguments, discriminator", "solana.tx.instructions[0].parsed_instruction_data.named_accounts['user_transfer_authority'] == '" + solAlice + "' && solana.tx.instructions[0].parsed_instruction_data.program_call_args['route_plan'][0]['percent'] == 100 && solana.tx.instructions[0].parsed_instruction_data.discriminator == 'e517cb977ae3ad2a'",
			solRoute("1"), solRoute("1").with(func(in *Input) { in.SolanaTx.Instructions[0].Parsed.NamedAccounts["user_transfer_authority"] = solBad })},
		{"fields: lookup tables", "solana.tx.address_table_lookups.any(l, l.address_table_key == '" + solTable + "' && l.writable_indexes.contains(0)) && solana.tx.instructions[0].address_table_lookups[0].writable",
			solLookup(), solTransfer(solBob, 1).with(func(in *Input) {
				in.SolanaTx.AddressTableLookups = []SolanaAddressTableLookup{{AddressTableKey: solTable, WritableIndexes: []uint32{1}}}
				in.SolanaTx.Instructions[0].AddressTableLookups = []SolanaInstructionLookup{{AddressTableKey: solTable, Index: 1}}
			})},
	}
	runChainExamples(t, examples)
}

func (in *Input) with(f func(*Input)) *Input { f(in); return in }

func runChainExamples(t *testing.T, examples []chainExample) {
	t.Helper()
	runExamples(t, Condition, examples)
}

// runExamples compiles each example's expression for field and evaluates it on its match and its miss.
func runExamples(t *testing.T, field Field, examples []chainExample) {
	t.Helper()
	for _, ex := range examples {
		t.Run(ex.source, func(t *testing.T) {
			e, err := Compile(ex.condition, field)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				in   *Input
				want bool
			}{{ex.match, true}, {ex.miss, false}} {
				got, err := e.Eval(c.in)
				// A miss may also be an error (an index out of range); never a match.
				if c.want && (err != nil || !got) || !c.want && got && err == nil {
					t.Errorf("Eval = %v, %v; want %v", got, err, c.want)
				}
			}
		})
	}
}

// A chain keyword on a request that does not carry it is an evaluation error, as eth.tx is on a Solana transaction.
func TestChainKeywordsApply(t *testing.T) {
	e, err := Compile("solana.tx.transfers.count() == 1", Condition)
	if err != nil {
		t.Fatal(err)
	}
	var ee *EvalError
	if _, err := e.Eval(&Input{EthTx: &EthTx{}}); !errors.As(err, &ee) || ee.Kind != NotApplicable {
		t.Errorf("solana.tx on an Ethereum transaction: %v", err)
	}
	// An instruction no uploaded IDL decodes has no parsed_instruction_data: the request has the instruction, so a
	// policy on it still concerns the request (Absent, not NotApplicable).
	e, err = Compile("solana.tx.instructions.any(i, i.parsed_instruction_data.instruction_name == 'route')", Condition)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Eval(solTransfer(solBob, 1)); !errors.As(err, &ee) || ee.Kind != Absent {
		t.Errorf("parsed_instruction_data without an IDL: %v", err)
	}
}

const (
	btcTo     = "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4"
	btcChange = "bc1qngw83fg8dz0k749cg7k3emc7v98wy0c74dlrkd"
	btcOther  = "bc1pmfr3p9j00pfxjh0zmgp99y8zftmd3s5pmedqhyptwy6lm87hf5sspknck9"
	btcTxID   = "4d3f1c2a9b8e7f6a5d4c3b2a1f0e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e"
)

// btcTx is a transaction of one input (btcTxID:1) paying value to `to` and 50,000 satoshis of change.
func btcTx(to string, value, fee uint64) *Input {
	return &Input{BitcoinTx: &BitcoinTx{Version: "2",
		Inputs: []BitcoinInput{{TxID: btcTxID, Vout: 1, Sequence: 0xfffffffd}},
		Outputs: []BitcoinOutput{{Value: value, ScriptPubKey: "0014751e76e8199196d454941c45d1b3a323f1433bd6", Address: to, AddressType: "P2WPKH"},
			{Value: 50_000, ScriptPubKey: "00149a1c78a507689f6f54b847ad1cef1e614ee23f1e", Address: btcChange, AddressType: "P2WPKH"}},
		Locktime: BitcoinLocktime{Amount: 840_000, Type: "Blocks"}, Fee: &fee}}
}

// Every Bitcoin example policy of the reference (policy-language.md §5, 28) and of Turnkey's policy documentation
// (concepts/policies/examples/bitcoin, the with-bitcoin SDK example) compiles and decides.
func TestBitcoinExamples(t *testing.T) {
	noFee := btcTx(btcTo, 1, 0)
	noFee.BitcoinTx.Fee = nil
	runChainExamples(t, []chainExample{
		{"docs: every output to one address", "bitcoin.tx.outputs.all(o, o.address == '" + btcTo + "')",
			btcTx(btcTo, 1, 0).with(func(in *Input) { in.BitcoinTx.Outputs = in.BitcoinTx.Outputs[:1] }), btcTx(btcTo, 1, 0)},
		{"ref 28, docs: output values", "bitcoin.tx.outputs.all(o, o.value < 200000)", btcTx(btcTo, 199_999, 0), btcTx(btcTo, 200_000, 0)},
		{"docs: one UTXO", "bitcoin.tx.inputs.all(i, i.tx_id == '" + btcTxID + "' && i.vout == 1)", btcTx(btcTo, 1, 0),
			btcTx(btcTo, 1, 0).with(func(in *Input) { in.BitcoinTx.Inputs[0].Vout = 0 })},
		{"ref 28: fee cap (a DENY)", "bitcoin.tx.fee > 50000", btcTx(btcTo, 1, 50_001), btcTx(btcTo, 1, 50_000)},
		{"fee unknown is an error, never a match", "bitcoin.tx.fee > 50000", btcTx(btcTo, 1, 60_000), noFee},
		{"ref 28, SDK: two outputs to the recipient and the change", "bitcoin.tx.outputs.count() == 2 && bitcoin.tx.outputs.all(o, o.address in ['" + btcTo + "','" + btcChange + "'])",
			btcTx(btcTo, 1, 0), btcTx(btcOther, 1, 0)},
		{"fields: version, sequence, locktime, script, type", "bitcoin.tx.version == '2' && bitcoin.tx.inputs[0].sequence == 4294967293 && bitcoin.tx.locktime.type == 'Blocks' && bitcoin.tx.locktime.amount == 840000 && bitcoin.tx.outputs[0].script_pubkey[0..4] == '0014' && bitcoin.tx.outputs.all(o, o.address_type == 'P2WPKH')",
			btcTx(btcTo, 1, 0), btcTx(btcTo, 1, 0).with(func(in *Input) { in.BitcoinTx.Locktime = BitcoinLocktime{1_700_000_000, "Seconds"} })},
	})
}

const (
	tronFrom = "TMVQGm1qAQYVdetCeGRRkTWYYrLXuHK2HC"
	tronTo   = "TFxUNfCwhiTSnNntkcXvicSTf4otPXeCXL"
	tronUSDT = "TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf"
)

func u64(v uint64) *uint64 { return &v }
func str(s string) *string { return &s }

func tronTx(c TronContract) *Input {
	c.OwnerAddress = str(tronFrom)
	return &Input{TronTx: &TronTx{RefBlockBytes: "c3e8", RefBlockHash: "e3b7e1a1c2d3f4e5", Expiration: 1767229200000,
		Timestamp: 1767225600000, FeeLimit: 100_000_000, Contract: []TronContract{c}}}
}

func tronTransfer(amount uint64) *Input {
	return tronTx(TronContract{Type: "TransferContract", ToAddress: str(tronTo), Amount: u64(amount)})
}

func tronTrigger(contract, data string) *Input {
	return tronTx(TronContract{Type: "TriggerSmartContract", ContractAddress: str(contract), Data: str(data),
		CallValue: u64(0), CallTokenValue: u64(0), TokenID: u64(0)})
}

// Every Tron example policy of the reference (policy-language.md §5, 27) and of Turnkey's policy documentation
// (concepts/policies/examples/tron) compiles and decides; fields a contract type lacks are errors, never matches.
func TestTronExamples(t *testing.T) {
	trc20 := "a9059cbb000000000000000000000041ad2bc63a2059f9b623533d87fe99887d794847"
	delegate := tronTx(TronContract{Type: "DelegateResourceContract", Resource: str("ENERGY"), Balance: u64(3_000_000),
		ReceiverAddress: str(tronTo), Lock: new(bool), LockPeriod: u64(0)})
	perms := tronTx(TronContract{Type: "AccountPermissionUpdateContract", Actives: []TronPermission{},
		Owner: &TronPermission{Type: "Owner", PermissionName: "owner", Threshold: 2, Keys: []TronKey{{tronFrom, 1}, {tronTo, 1}}}})
	runChainExamples(t, []chainExample{
		{"ref 27, docs: Tether transfers", "tron.tx.contract[0].contract_address == '" + tronUSDT + "' && tron.tx.contract[0].data[0..8] == 'a9059cbb'",
			tronTrigger(tronUSDT, trc20), tronTrigger(tronTo, trc20)},
		{"ref 27, docs: TRX under 10 TRX", "tron.tx.contract[0].amount < 10000000", tronTransfer(9_999_999), tronTransfer(10_000_000)},
		{"amount of a contract call is an error, never a match", "tron.tx.contract[0].amount < 10000000", tronTransfer(1), tronTrigger(tronUSDT, trc20)},
		{"docs: every TRX transfer", "tron.tx.contract[0].type == 'TransferContract'", tronTransfer(1), tronTrigger(tronUSDT, trc20)},
		{"fields: owner, to, permission, fee limit, times", "tron.tx.contract[0].owner_address == '" + tronFrom + "' && tron.tx.contract[0].to_address == '" + tronTo + "' && tron.tx.contract[0].permission_id == 0 && tron.tx.fee_limit <= 100000000 && tron.tx.expiration > tron.tx.timestamp && tron.tx.ref_block_bytes == 'c3e8'",
			tronTransfer(1), tronTransfer(1).with(func(in *Input) { in.TronTx.Contract[0].PermissionID = 2 })},
		{"fields: delegation", "tron.tx.contract.all(c, c.type == 'DelegateResourceContract' && c.resource == 'ENERGY' && c.receiver_address == '" + tronTo + "' && c.balance <= 5000000 && !c.lock)",
			delegate, tronTransfer(1)},
		{"fields: permissions", "tron.tx.contract[0].owner.threshold == 2 && tron.tx.contract[0].owner.keys.all(k, k.address in ['" + tronFrom + "', '" + tronTo + "'] && k.weight == 1) && tron.tx.contract[0].actives.count() == 0",
			perms, tronTransfer(1)},
	})
}
