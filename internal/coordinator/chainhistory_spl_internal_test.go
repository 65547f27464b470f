package coordinator

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/internal/send"
	"github.com/sigil/sigil/internal/solana"
)

func newSolanaKey(t *testing.T) solana.Key {
	t.Helper()
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return solana.Key(pub)
}

// splBlockTx is a block's SPL Token Transfer (instruction 3) from one owner's token account to another's, with the
// meta the node gives it: the token accounts' balances before and after, by owner and mint, as getBlock writes them.
func splBlockTx(t *testing.T, payer, srcAccount, dstAccount solana.Key, meta string) solanaBlockTx {
	t.Helper()
	data := binary.LittleEndian.AppendUint64([]byte{3}, 250_000)
	tx, err := solana.NewLegacyTransaction(payer, solana.Key{}, solana.NewInstruction{Program: solana.TokenProgram, Data: data,
		Accounts: []solana.AccountMeta{{Key: srcAccount, Writable: true}, {Key: dstAccount, Writable: true}, {Key: payer, Signer: true}}})
	if err != nil {
		t.Fatal(err)
	}
	raw := fmt.Sprintf(`{"transaction": [%q, "base64"], "meta": %s}`, base64.StdEncoding.EncodeToString(tx.Serialize()), meta)
	b := solanaBlock{}
	if err := json.Unmarshal([]byte(`{"blockhash": "x", "transactions": [`+raw+`]}`), &b); err != nil {
		t.Fatal(err)
	}
	b.parse()
	if b.Transactions[0].parsed == nil {
		t.Fatal("the transaction does not parse")
	}
	return b.Transactions[0]
}

// An SPL transfer is in the history of both owners, though neither receiver's wallet is among the transaction's keys
// (its token account is): OUT for the sender, IN for the receiver, each the other's counterparty, the mint's asset
// when the cluster lists it and none when it does not. A wallet whose holdings did not move has no transfer of it.
func TestSolanaHistorySPLTransfers(t *testing.T) {
	t.Parallel()
	sender, receiver, bystander := newSolanaKey(t), newSolanaKey(t), newSolanaKey(t)
	srcAccount, dstAccount := newSolanaKey(t), newSolanaKey(t)
	const listed, unlisted = "2cHr7QS3xfuSV8wdxo3ztuF4xbiarF6Nrgx3qpx3HzXR", "So11111111111111111111111111111111111111112"
	balance := func(index int, mint string, owner solana.Key, amount string) string {
		return fmt.Sprintf(`{"accountIndex": %d, "mint": %q, "owner": %q, "programId": %q, "uiTokenAmount": {"amount": %q, "decimals": 6, "uiAmountString": "0"}}`,
			index, mint, owner, solana.TokenProgram, amount)
	}
	meta := fmt.Sprintf(`{"err": null, "fee": 5000, "preBalances": [], "postBalances": [],
		"preTokenBalances": [%s, %s, %s], "postTokenBalances": [%s, %s, %s]}`,
		balance(1, listed, sender, "1000000"), balance(2, listed, receiver, "0"), balance(3, unlisted, bystander, "7"),
		balance(1, listed, sender, "750000"), balance(2, listed, receiver, "250000"), balance(3, unlisted, bystander, "7"))
	tx := splBlockTx(t, sender, srcAccount, dstAccount, meta)

	if owners := tx.tokenOwners(); !slices.Contains(owners, receiver.String()) || slices.Contains(tx.accountKeys(), receiver.String()) {
		t.Fatalf("the receiver's wallet is among the token owners %v and not among the keys %v", owners, tx.accountKeys())
	}
	token := send.Token{Symbol: "TEST", Name: "Test token", Decimals: 6, Address: listed}
	n := &chainNetwork{Network: Network{CAIP2: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1"}, solana: true}
	asset := &chainAsset{Token: token, CAIP19: n.caip19(token)}
	tokens := func(mint string) *chainAsset {
		if mint == listed {
			return asset
		}
		return nil
	}
	native := chainAsset{Token: solAsset, CAIP19: n.caip19(solAsset)}
	transfers := func(owner solana.Key) []api.TransactionHistoryTransfer {
		return tx.historyEntry(1, "x", 0, native, tokens, owner.String()).Transfers
	}
	testAsset := &api.TransactionHistoryAsset{CAIP19: asset.CAIP19, Symbol: "TEST", Name: "Test token", Decimals: 6}
	for _, c := range []struct {
		owner solana.Key
		want  []api.TransactionHistoryTransfer
	}{
		{sender, []api.TransactionHistoryTransfer{{Direction: api.TransferOut, Asset: testAsset, Amount: "250000", Counterparty: receiver.String(),
			Display: &api.TransactionHistoryDisplay{Crypto: "0.25"}}}},
		{receiver, []api.TransactionHistoryTransfer{{Direction: api.TransferIn, Asset: testAsset, Amount: "250000", Counterparty: sender.String(),
			Display: &api.TransactionHistoryDisplay{Crypto: "0.25"}}}},
		{bystander, []api.TransactionHistoryTransfer{}},
	} {
		got, _ := json.Marshal(transfers(c.owner))
		want, _ := json.Marshal(c.want)
		if string(got) != string(want) {
			t.Errorf("transfers of %s\n got %s\nwant %s", c.owner, got, want)
		}
	}

	// A mint the cluster does not list is shown without its asset; a mint to the receiver has no counterparty.
	minted := splBlockTx(t, sender, srcAccount, dstAccount, fmt.Sprintf(`{"err": null, "fee": 5000, "preBalances": [], "postBalances": [],
		"preTokenBalances": [], "postTokenBalances": [%s]}`, balance(2, unlisted, receiver, "42")))
	got := minted.historyEntry(1, "x", 0, native, tokens, receiver.String()).Transfers
	if len(got) != 1 || got[0].Asset != nil || got[0].Display != nil || got[0].Amount != "42" || got[0].Direction != api.TransferIn || got[0].Counterparty != "" {
		t.Errorf("a mint of an unlisted token: %+v", got)
	}
}
