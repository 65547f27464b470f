package coordinator

import (
	"math/big"
	"regexp"

	"github.com/sigil/sigil/internal/evm"
	"github.com/sigil/sigil/internal/solana"
)

// Velocity controls measure Solana transfers too. A Solana transaction does not name its cluster (mainnet, devnet),
// so a control's Solana asset is matched without it: solana:<any cluster>/slip44:501 is SOL wherever the transaction
// runs, solana:<any cluster>/token:<mint> that mint's SPL token. Only what the signer moves is measured: SOL
// transfers from its address, SPL transfers it owns or is delegated, with a mint named (TransferChecked; a plain
// Transfer names no mint, so it cannot be attributed to an asset).

var solanaCAIP19RE = regexp.MustCompile(`^solana:[1-9A-HJ-NP-Za-km-z]{32}/(slip44:501|token:[1-9A-HJ-NP-Za-km-z]{32,44})$`)

const solanaAssetPrefix = "solana/"

// solanaAssetKey is a Solana asset id's matching key, its asset part under solanaAssetPrefix; ok is false for an id
// that is not a Solana asset.
func solanaAssetKey(id string) (key string, ok bool) {
	m := solanaCAIP19RE.FindStringSubmatch(id)
	if m == nil {
		return "", false
	}
	return solanaAssetPrefix + m[1], true
}

// solanaTransfers lists what signer (its base58 address) moves in a parsed transaction, keyed as solanaAssetKey keys
// assets.
func solanaTransfers(p *solana.Parsed, signer string) []evm.AssetTransfer {
	var out []evm.AssetTransfer
	for _, t := range p.Transfers {
		if t.From == signer && t.Amount > 0 {
			out = append(out, evm.AssetTransfer{Asset: solanaAssetPrefix + "slip44:501", Amount: new(big.Int).SetUint64(t.Amount)})
		}
	}
	for _, t := range p.SPLTransfers {
		if t.Owner == signer && t.TokenMint != "" && t.Amount > 0 {
			out = append(out, evm.AssetTransfer{Asset: solanaAssetPrefix + "token:" + t.TokenMint, Amount: new(big.Int).SetUint64(t.Amount)})
		}
	}
	return out
}
