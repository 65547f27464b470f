package main

import (
	"context"
	"encoding/json"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/sigil/sigil/internal/store"
)

// sigil sends unstick records a filler for the nonce of each stuck send of the address — a gas sponsor's, found by its
// organization — outbidding it, once; it refuses a malformed network or address, and a directory without a database.
func TestSendsUnstickCommand(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	st, err := store.Open(ctx, "", dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	key, _ := crypto.GenerateKey()
	sponsor := crypto.PubkeyToAddress(key.PublicKey)
	stuck, err := types.SignNewTx(key, types.LatestSignerForChainID(big.NewInt(1337)), &types.DynamicFeeTx{ChainID: big.NewInt(1337), Nonce: 5,
		Gas: 90_000, GasTipCap: big.NewInt(1), GasFeeCap: big.NewInt(8)})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := stuck.MarshalBinary()
	if err := st.Write(ctx, func(tx *store.Tx) error {
		return tx.InsertSend(ctx, store.Send{ID: "stuck", OrgID: "sub", ActivityID: "a", Network: "eip155:1337", From: "0xaccount",
			Request: []byte(`{"sponsor":true}`), Status: store.SendBroadcasting, Nonce: 5, TxHash: stuck.Hash().Hex(), RawTx: hexutil.Encode(raw),
			SponsorOrg: "billing", GasCostWei: "720000"})
	}); err != nil {
		t.Fatal(err)
	}
	stdout, errs, code := sigil(t, "sends", "unstick", "--dir", dir, "--network", "eip155:1337", "--address", sponsor.Hex())
	if code != 0 || !strings.Contains(stdout, "send stuck: nonce 5 is filled") {
		t.Fatalf("unstick: exit %d\n%s%s", code, stdout, errs)
	}
	due, err := st.DueSends(ctx, "eip155:1337", 1<<62, 10)
	if err != nil || len(due) != 2 {
		t.Fatalf("sends after unstick: %+v %v", due, err)
	}
	fill := due[1]
	var req struct {
		Fill       *uint64      `json:"fill"`
		FillMinFee *hexutil.Big `json:"fillMinFee"`
	}
	if err := json.Unmarshal(fill.Request, &req); err != nil || req.Fill == nil || *req.Fill != 5 || req.FillMinFee.ToInt().Int64() <= 8 ||
		fill.KeySecret != "gas-sponsor/billing" || fill.From != strings.ToLower(sponsor.Hex()) || fill.SponsorOrg != "billing" || fill.OrgID != "sub" {
		t.Fatalf("the filler: %+v %s", fill, fill.Request)
	}
	if stdout, _, code := sigil(t, "sends", "unstick", "--dir", dir, "--network", "eip155:1337", "--address", sponsor.Hex()); code != 0 || !strings.Contains(stdout, "has no send") {
		t.Errorf("unstick again: exit %d %s", code, stdout)
	}
	for _, args := range [][]string{{"--network", "mainnet", "--address", sponsor.Hex()}, {"--network", "eip155:1", "--address", "0x12"}} {
		if _, _, code := sigil(t, append([]string{"sends", "unstick", "--dir", dir}, args...)...); code != 2 {
			t.Errorf("unstick %v: exit %d, want 2", args, code)
		}
	}
	if _, errs, code := sigil(t, "sends", "unstick", "--dir", t.TempDir(), "--network", "eip155:1", "--address", sponsor.Hex()); code != 1 || !strings.Contains(errs, "no database") {
		t.Errorf("unstick without a database: exit %d %s", code, errs)
	}
}
