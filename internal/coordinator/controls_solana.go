package coordinator

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/big"
	"regexp"
	"slices"

	"github.com/sigil/sigil/internal/evm"
	"github.com/sigil/sigil/internal/solana"
)

// Velocity controls measure Solana transfers too. A Solana transaction does not name its cluster (mainnet, devnet),
// so a control's Solana asset is matched without it: solana:<any cluster>/slip44:501 is SOL wherever the transaction
// runs, solana:<any cluster>/token:<mint> that mint's SPL token. What the signer moves is measured: the lamports System
// Program instructions move from its address or on its authority (Transfer, TransferWithSeed, the funding of
// CreateAccount and CreateAccountWithSeed, WithdrawNonceAccount), token transfers, approvals and burns it owns with
// their mint named (TransferChecked, ApproveChecked, BurnChecked), and the rent of an associated token account it
// funds. An instruction that may move the signer's assets by an amount that cannot be read — a token Transfer,
// Approve or Burn, which name no mint; a CloseAccount or SetAuthority; the signer's account assigned to another
// program; any instruction of another program that is given the signer's account (its signature lets the program move
// the signer's SOL and tokens) — fails the controls that measure those assets closed.

var solanaCAIP19RE = regexp.MustCompile(`^solana:[1-9A-HJ-NP-Za-km-z]{32}/(slip44:501|token:[1-9A-HJ-NP-Za-km-z]{32,44})$`)

const (
	solanaAssetPrefix = "solana/"
	solanaSOL         = solanaAssetPrefix + "slip44:501"
	solanaTokens      = solanaAssetPrefix + "token:"
)

// solanaAssetKey is a Solana asset id's matching key, its asset part under solanaAssetPrefix; ok is false for an id
// that is not a Solana asset.
func solanaAssetKey(id string) (key string, ok bool) {
	m := solanaCAIP19RE.FindStringSubmatch(id)
	if m == nil {
		return "", false
	}
	return solanaAssetPrefix + m[1], true
}

// Programs whose instructions move nothing of the signer's: they take no account whose authority they could use.
var solanaInert = map[string]bool{
	"ComputeBudget111111111111111111111111111111": true,
	"MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr": true,
	"Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo": true,
}

const (
	associatedTokenProgram = "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL"
	// tokenAccountRent is what funding a Token program account (165 bytes) costs, rent-exempt at the rent every
	// Solana cluster charges: (165 + 128) bytes × 3,480 lamports × 2 years.
	tokenAccountRent = 2_039_280
)

// The token instructions (their first byte) by what they do to the signer's tokens.
var (
	tokenInert = map[byte]bool{0: true, 1: true, 2: true, 5: true, 7: true, 10: true, 11: true, 14: true, 16: true,
		17: true, 18: true, 19: true, 20: true, 21: true, 22: true, 23: true, 24: true} // initializations, Revoke, MintTo, freezes, SyncNative, reads
	tokenNoMint = map[byte]string{3: "Transfer", 4: "Approve", 8: "Burn"} // amounts of an unnamed mint
	// tokenChecked are the Checked approval and burn, by the index of their owner account (their mint is second).
	tokenChecked = map[byte]struct {
		name  string
		owner int
	}{13: {"ApproveChecked", 3}, 15: {"BurnChecked", 2}}
)

// solanaMoves is what signer (its base58 address) moves in a parsed transaction, keyed as solanaAssetKey keys assets.
func solanaMoves(p *solana.Parsed, signer string) evm.Moves {
	var m evm.Moves
	for i, t := range p.Transfers {
		if (t.From == signer || p.Authority(i) == signer) && t.Amount > 0 {
			m.Transfers = append(m.Transfers, evm.AssetTransfer{Asset: solanaSOL, Amount: new(big.Int).SetUint64(t.Amount)})
		}
	}
	for _, t := range p.SPLTransfers {
		if (t.Owner == signer || slices.Contains(t.Signers, signer)) && t.TokenMint != "" && t.Amount > 0 {
			m.Transfers = append(m.Transfers, evm.AssetTransfer{Asset: solanaTokens + t.TokenMint, Amount: new(big.Int).SetUint64(t.Amount)})
		}
	}
	for n, in := range p.Instructions {
		solanaInstructionMoves(&m, n, in, signer)
	}
	return m
}

// solanaInstructionMoves adds what one instruction moves beyond the transfers the parser reads.
func solanaInstructionMoves(m *evm.Moves, n int, in solana.ParsedInstruction, signer string) {
	if !slices.Contains(in.Addresses, signer) || solanaInert[in.ProgramKey] {
		return // without the signer's account, no program can use its authority
	}
	data, _ := hex.DecodeString(in.InstructionDataHex) // the parser's own encoding
	unmeasured := func(asset, reason string, args ...any) {
		m.Unmeasured = append(m.Unmeasured, evm.Unmeasured{Asset: asset, Prefix: true, Reason: fmt.Sprintf("instruction %d: ", n) + fmt.Sprintf(reason, args...)})
	}
	switch in.ProgramKey {
	case solana.SystemProgram.String():
		if len(data) < 4 {
			return
		}
		switch tag := binary.LittleEndian.Uint32(data); tag {
		case 1, 10: // Assign, AssignWithSeed: the account (or the base's derived one) goes to another program
			if in.Addresses[0] == signer || tag == 10 && len(in.Addresses) > 1 && in.Addresses[1] == signer {
				unmeasured(solanaSOL, "assigns an account of %s to another program, which may then move all its lamports", signer)
			}
		case 7: // AuthorizeNonceAccount: the nonce account's lamports go to another authority
			unmeasured(solanaSOL, "hands a nonce account of %s to another authority, which may then withdraw its lamports", signer)
		}
	case solana.TokenProgram.String(), solana.Token2022Program.String():
		tokenInstructionMoves(m, data, in.Addresses, signer, unmeasured)
	case associatedTokenProgram:
		if (len(data) == 0 || data[0] <= 1) && in.Addresses[0] == signer && len(in.Addresses) > 5 && in.Addresses[5] == solana.TokenProgram.String() {
			m.Transfers = append(m.Transfers, evm.AssetTransfer{Asset: solanaSOL, Amount: big.NewInt(tokenAccountRent)})
			return
		}
		unmeasured(solanaAssetPrefix, "an Associated Token Account instruction given %s's account, whose cost cannot be read from it", signer)
	default:
		unmeasured(solanaAssetPrefix, "program %s is given %s's account, and its signature lets the program move any of its SOL and tokens", in.ProgramKey, signer)
	}
}

// tokenInstructionMoves reads a Token or Token-2022 instruction given the signer's account.
func tokenInstructionMoves(m *evm.Moves, data []byte, addrs []string, signer string, unmeasured func(asset, reason string, args ...any)) {
	if len(data) == 0 {
		return // the parser refused it already
	}
	tag := data[0]
	switch {
	case tokenInert[tag]:
	case tokenNoMint[tag] != "":
		unmeasured(solanaTokens, "a token %s names no mint, so the token it moves cannot be measured (use the Checked form)", tokenNoMint[tag])
	case tag == 12 || tag == 26 && len(data) > 1 && data[1] == 1: // TransferChecked, TransferCheckedWithFee: read by the parser
	case tokenChecked[tag].name != "":
		c := tokenChecked[tag]
		if len(data) < 9 || len(addrs) <= c.owner {
			unmeasured(solanaTokens, "a token %s too short to read", c.name)
			return
		}
		if slices.Contains(addrs[c.owner:], signer) { // the owner, or a signer of a multisig owner
			m.Transfers = append(m.Transfers, evm.AssetTransfer{Asset: solanaTokens + addrs[1], Amount: new(big.Int).SetUint64(binary.LittleEndian.Uint64(data[1:]))})
		}
	default: // SetAuthority, CloseAccount, an extension's instruction: its tokens or its account's lamports may go
		unmeasured(solanaAssetPrefix, "token instruction %d may hand over %s's tokens or its token account's lamports", tag, signer)
	}
}
