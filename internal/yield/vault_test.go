package yield

import (
	"context"
	"math/big"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/sigil/sigil/internal/contracts"
	"github.com/sigil/sigil/internal/testdb"
)

// The seed's flow on the plain USDC vault: approve the vault on USDC, deposit, then a second deposit that skips the
// approval, an exit by amount (redeem of previewWithdraw's shares) and an exit of everything, on both databases.
func TestERC4626EnterExit(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		e := newEnv(t, envOptions{backend: &b})
		usdc, vault := e.addr(contracts.USDC), e.addr(contracts.VaultUSDC)
		id := e.yieldID(KindERC4626, vault.Hex(), "USDC")
		if want := "sigil-dev-usdc-svusdc-" + strings.ToLower(vault.Hex()) + "-4626-vault"; id != want {
			t.Fatalf("yield id %s, want %s", id, want)
		}
		w := e.newWallet("1", map[string]string{"USDC": "1000"})
		if got := e.balances(e.key10, id, w.addr); len(got) != 0 {
			t.Fatalf("balances before entering: %+v", got)
		}

		a := w.act(e.key10, "enter", id, map[string]any{"amount": "100.5"})
		if a.Intent != "enter" || a.Status != actionCreated || *a.Amount != "100.5" || *a.AmountRaw != "100500000" || len(a.Transactions) != 2 {
			t.Fatalf("enter action: %+v", a)
		}
		approve, deposit := unsigned(t, a.Transactions[0]), unsigned(t, a.Transactions[1])
		if a.Transactions[0].Type != "APPROVAL" || approve.To != usdc.Hex() || selector(approve.Data) != "0x095ea7b3" {
			t.Fatalf("step 0: %s %+v", a.Transactions[0].Type, approve)
		}
		if a.Transactions[1].Type != "DEPOSIT" || deposit.To != vault.Hex() || selector(deposit.Data) != "0x6e553f65" {
			t.Fatalf("step 1: %s %+v", a.Transactions[1].Type, deposit)
		}
		if approve.Value != "0x0" || deposit.Nonce != approve.Nonce+1 || approve.Type != 2 || approve.ChainID != e.chainID.Int64() {
			t.Fatalf("unsigned fields: %+v %+v", approve, deposit)
		}
		for _, u := range []unsignedTxDTO{approve, deposit} {
			for _, q := range []string{u.GasLimit, u.MaxFeePerGas, u.MaxPriorityFeePerGas, u.Value} {
				if _, err := hexutil.DecodeBig(q); err != nil {
					t.Fatalf("%q is not a 0x quantity: %+v", q, u)
				}
			}
		}
		if a.Transactions[0].GasEstimate == "" || !strings.Contains(a.Transactions[0].GasEstimate, `"gasLimit"`) {
			t.Fatalf("gasEstimate %q", a.Transactions[0].GasEstimate)
		}

		usdcBefore := e.tokenBalance(usdc, w.addr)
		w.execute(e.key10, a)
		if d := new(big.Int).Sub(usdcBefore, e.tokenBalance(usdc, w.addr)); d.Cmp(baseUnits("100.5", 6)) != 0 {
			t.Fatalf("USDC spent %s, want 100.5", d)
		}
		shares := e.read(vault, contracts.SimpleVault, "balanceOf", w.addr)
		active := e.balances(e.key10, id, w.addr)["active"]
		wantAssets := e.read(vault, contracts.SimpleVault, "convertToAssets", shares)
		if active.AmountRaw != wantAssets.String() || *active.ShareAmountRaw != shares.String() || !active.IsEarning ||
			active.ShareToken == nil || !strings.EqualFold(active.ShareToken.Address, vault.Hex()) {
			t.Fatalf("active balance %+v, want %s assets for %s shares", active, wantAssets, shares)
		}

		// An allowance that covers the amount skips the approval.
		a = w.act(e.key10, "enter", id, map[string]any{"amount": "10", "useMaxAllowance": true})
		if len(a.Transactions) != 2 || !strings.HasSuffix(unsigned(t, a.Transactions[0]).Data, strings.Repeat("f", 64)) {
			t.Fatalf("max approval: %+v", a.Transactions)
		}
		w.execute(e.key10, a)
		a = w.act(e.key10, "enter", id, map[string]any{"amount": "5"})
		if len(a.Transactions) != 1 || a.Transactions[0].Type != "DEPOSIT" || a.Transactions[0].StepIndex != 0 {
			t.Fatalf("allowance skip: %+v", a.Transactions)
		}
		w.execute(e.key10, a)

		// Exit by amount: redeem the shares previewWithdraw names; the wallet receives what they are worth.
		exitAmount := baseUnits("40", 6)
		redeemShares := e.read(vault, contracts.SimpleVault, "previewWithdraw", exitAmount)
		worth := e.read(vault, contracts.SimpleVault, "previewRedeem", redeemShares)
		a = w.act(e.key10, "exit", id, map[string]any{"amount": "40"})
		ex := unsigned(t, a.Transactions[0])
		if len(a.Transactions) != 1 || a.Transactions[0].Type != "WITHDRAW" || selector(ex.Data) != "0xba087652" || ex.To != vault.Hex() {
			t.Fatalf("exit: %+v", a.Transactions)
		}
		if !strings.Contains(ex.Data, common.Bytes2Hex(common.LeftPadBytes(redeemShares.Bytes(), 32))) {
			t.Fatalf("exit redeems other shares than previewWithdraw(40) = %s: %s", redeemShares, ex.Data)
		}
		usdcBefore = e.tokenBalance(usdc, w.addr)
		w.execute(e.key10, a)
		if d := new(big.Int).Sub(e.tokenBalance(usdc, w.addr), usdcBefore); d.Cmp(worth) != 0 || d.Cmp(exitAmount) < 0 {
			t.Fatalf("exit paid %s, want %s (at least 40 USDC)", d, worth)
		}

		// Exit everything.
		shares = e.read(vault, contracts.SimpleVault, "balanceOf", w.addr)
		worth = e.read(vault, contracts.SimpleVault, "previewRedeem", shares)
		a = w.act(e.key10, "exit", id, map[string]any{"useMaxAmount": true})
		if *a.AmountRaw != worth.String() {
			t.Fatalf("max exit amount %s, want %s", *a.AmountRaw, worth)
		}
		usdcBefore = e.tokenBalance(usdc, w.addr)
		w.execute(e.key10, a)
		if d := new(big.Int).Sub(e.tokenBalance(usdc, w.addr), usdcBefore); d.Cmp(worth) != 0 {
			t.Fatalf("max exit paid %s, want %s", d, worth)
		}
		if got := e.balances(e.key10, id, w.addr); len(got) != 0 {
			t.Fatalf("balances after exiting everything: %+v", got)
		}

		// The project's actions, newest first; another project sees none of them.
		var list page[actionDTO]
		e.mustCall(e.key10, "GET", "/v1/actions?address="+w.addr.Hex(), nil, 200, &list)
		if list.Total != 5 || len(list.Items) != 5 || list.Items[0].Intent != "exit" || list.Items[4].Intent != "enter" {
			t.Fatalf("actions: total %d, %d items", list.Total, len(list.Items))
		}
		e.mustCall(e.key20, "GET", "/v1/actions?address="+w.addr.Hex(), nil, 200, &list)
		if list.Total != 0 {
			t.Fatalf("another project sees %d actions", list.Total)
		}
		e.mustCall(e.key20, "GET", "/v1/actions/"+a.ID, nil, 404, nil)
		tx := a.Transactions[0].ID
		e.mustCall(e.key20, "GET", "/v1/transactions/"+tx, nil, 404, nil)
		// Nor can it report a hash or a signed transaction for one of them.
		e.mustCall(e.key20, "PUT", "/v1/transactions/"+tx+"/submit-hash", map[string]any{"hash": "0x" + strings.Repeat("ab", 32)}, 404, nil)
		signed, err := w.sign(a.Transactions[0].UnsignedTransaction).MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		e.mustCall(e.key20, "POST", "/v1/transactions/"+tx+"/submit", map[string]any{"signedTransaction": hexutil.Encode(signed)}, 404, nil)
		var got transactionDTO
		if e.mustCall(e.key10, "GET", "/v1/transactions/"+tx, nil, 200, &got); got.Hash == nil || *got.Hash == "0x"+strings.Repeat("ab", 32) {
			t.Fatalf("another project changed the transaction: %+v", got)
		}
	})
}

// The vault over Morpho Blue's own contract, through the service: the deposit becomes the vault's supply in the
// market, the position grows by Morpho's interest with block time, and a max exit redeems it from the market.
func TestMorphoVaultEnterExit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	usdc, vault, morpho := e.addr(contracts.USDC), e.addr(contracts.MorphoVaultUSDC), e.addr(contracts.MorphoName)
	id := e.yieldID(KindERC4626, vault.Hex(), "USDC")
	var y yieldDTO
	e.mustCall(e.key10, "GET", "/v1/yields/"+id, nil, 200, &y)
	if y.ProviderID != "morpho" {
		t.Fatalf("Morpho vault %s: provider %s", id, y.ProviderID)
	}
	marketUSDC := e.tokenBalance(usdc, morpho)
	w := e.newWallet("1", map[string]string{"USDC": "1000"})
	w.execute(e.key10, w.act(e.key10, "enter", id, map[string]any{"amount": "250"}))
	if d := new(big.Int).Sub(e.tokenBalance(usdc, morpho), marketUSDC); d.Cmp(baseUnits("250", 6)) != 0 {
		t.Fatalf("Morpho received %s USDC units, want 250 USDC", d)
	}
	shares := e.read(vault, contracts.MorphoMarketVault, "balanceOf", w.addr)
	entered := e.read(vault, contracts.MorphoMarketVault, "convertToAssets", shares)

	e.step(time.Hour)
	worth := e.read(vault, contracts.MorphoMarketVault, "previewRedeem", shares)
	if worth.Cmp(entered) <= 0 {
		t.Fatalf("an hour of Morpho interest: %s, entered %s", worth, entered)
	}
	// Other tests share the chain: a block they seal between two reads adds its seconds of interest, so the service's
	// read must lie between the value read before it and the value read after it.
	active := e.balances(e.key10, id, w.addr)["active"]
	after := e.read(vault, contracts.MorphoMarketVault, "previewRedeem", shares)
	if got, ok := new(big.Int).SetString(active.AmountRaw, 10); !ok || got.Cmp(worth) < 0 || got.Cmp(after) > 0 {
		t.Fatalf("active %+v, the shares are worth %s to %s", active, worth, after)
	}
	a := w.act(e.key10, "exit", id, map[string]any{"useMaxAmount": true})
	before := e.tokenBalance(usdc, w.addr)
	w.execute(e.key10, a)
	// Morpho's interest grows every second, so the redemption, a block later, pays at least what was read.
	if d := new(big.Int).Sub(e.tokenBalance(usdc, w.addr), before); d.Cmp(worth) < 0 {
		t.Fatalf("max exit paid %s, the shares were worth %s", d, worth)
	}
	if got := e.balances(e.key10, id, w.addr); len(got) != 0 {
		t.Fatalf("balances after the max exit: %+v", got)
	}
}

// A deposit fee outside an allocator vault goes through the fee wrapper: the approval and the deposit name it, the
// fee recipient receives the fee and the wallet the vault's shares for the rest.
func TestFeeWrappedVaultDeposit(t *testing.T) {
	e := newEnv(t, envOptions{})
	dai, vault, wrapper := e.addr(contracts.DAI), e.addr(contracts.VaultDAI), e.addr(contracts.FeeWrapperName)
	id := e.yieldID(KindERC4626, vault.Hex(), "DAI")
	w := e.newWallet("1", map[string]string{"DAI": "500"})
	a := w.act(e.key10, "enter", id, map[string]any{"amount": "200"})
	approve, deposit := unsigned(t, a.Transactions[0]), unsigned(t, a.Transactions[1])
	if approve.To != dai.Hex() || !strings.Contains(approve.Data, strings.ToLower(wrapper.Hex()[2:])) {
		t.Fatalf("approval does not name the wrapper: %+v", approve)
	}
	if deposit.To != wrapper.Hex() || a.Transactions[1].Type != "DEPOSIT" {
		t.Fatalf("deposit does not go through the wrapper: %+v", deposit)
	}
	feeTo := e.chain.DevAccount()
	feeBefore := e.tokenBalance(dai, feeTo)
	amount := baseUnits("200", 18)
	fee := new(big.Int).Div(new(big.Int).Mul(amount, big.NewInt(e.yieldCfg(id).Fees.DepositBps)), big.NewInt(10_000))
	wantShares := e.read(vault, contracts.SimpleVault, "previewDeposit", new(big.Int).Sub(amount, fee))
	receipts := w.execute(e.key10, a)
	if d := new(big.Int).Sub(e.tokenBalance(dai, feeTo), feeBefore); d.Cmp(fee) != 0 || fee.Sign() == 0 {
		t.Fatalf("fee paid %s, want %s", d, fee)
	}
	if charged := e.event(receipts[1], wrapper, contracts.FeeWrapper, "FeeCharged"); charged[0].(*big.Int).Cmp(amount) != 0 ||
		charged[1].(*big.Int).Cmp(fee) != 0 {
		t.Fatalf("the wrapper charged %v, want %s of %s", charged, fee, amount)
	}
	if got := e.read(vault, contracts.SimpleVault, "balanceOf", w.addr); got.Cmp(wantShares) != 0 {
		t.Fatalf("shares %s, want %s", got, wantShares)
	}
	// The service reads the position back: the vault's shares, worth what the vault says.
	worth := e.read(vault, contracts.SimpleVault, "convertToAssets", wantShares)
	if b := e.balances(e.key10, id, w.addr); len(b) != 1 || b["active"].AmountRaw != worth.String() ||
		*b["active"].ShareAmountRaw != wantShares.String() || !strings.EqualFold(b["active"].ShareToken.Address, vault.Hex()) {
		t.Fatalf("balances after the wrapped deposit: %+v, want %s DAI for %s shares", b, worth, wantShares)
	}
	var y yieldDTO
	e.mustCall(e.key10, "GET", "/v1/yields/"+id, nil, 200, &y)
	if y.Mechanics.Fee.Deposit != "0.50" || !y.Mechanics.PossibleFeeTakingMechanisms.DepositFee {
		t.Fatalf("fee of the wrapped vault: %+v", y.Mechanics.Fee)
	}
	// The exit is the vault's own redeem, here handed to the service signed, to broadcast.
	a = w.act(e.key10, "exit", id, map[string]any{"useMaxAmount": true})
	if u := unsigned(t, a.Transactions[0]); u.To != vault.Hex() || selector(u.Data) != "0xba087652" {
		t.Fatalf("exit: %+v", u)
	}
	path := "/v1/transactions/" + a.Transactions[0].ID + "/submit"
	signed := w.sign(a.Transactions[0].UnsignedTransaction)
	forged := w.sign(strings.Replace(a.Transactions[0].UnsignedTransaction, `"value":"0x0"`, `"value":"0x1"`, 1))
	raw := func(tx *types.Transaction) string { data, _ := tx.MarshalBinary(); return hexutil.Encode(data) }
	checkErrorShape(t, e.call(e.key10, "POST", path, map[string]string{"signedTransaction": raw(forged)}), 400, "not the transaction built")
	checkErrorShape(t, e.call(e.key10, "POST", path, map[string]string{"signedTransaction": "0x1234"}), 400, "signedTransaction")
	var tr transactionDTO
	e.mustCall(e.key10, "POST", path, map[string]string{"signedTransaction": raw(signed)}, 200, &tr)
	if tr.Status != txBroadcasted || *tr.Hash != strings.ToLower(signed.Hash().Hex()) {
		t.Fatalf("submitted: %+v", tr)
	}
	if rcpt := e.waitMined(signed.Hash()); rcpt.Status != types.ReceiptStatusSuccessful {
		t.Fatal("the submitted exit reverted")
	}
	if err := e.svc.PollReceipts(context.Background()); err != nil {
		t.Fatal(err)
	}
	var done actionDTO
	e.mustCall(e.key10, "GET", "/v1/actions/"+a.ID, nil, 200, &done)
	if done.Status != actionSuccess || e.read(vault, contracts.SimpleVault, "balanceOf", w.addr).Sign() != 0 {
		t.Fatalf("after the submitted exit: %s", done.Status)
	}
	if b := e.balances(e.key10, id, w.addr); len(b) != 0 {
		t.Fatalf("balances after the exit: %+v", b)
	}
}

// The allocator vault of a key's fee set: the seed's approve + deposit shape on the vault itself, which takes its
// own deposit fee; each fee set sees its own vault and fees.
func TestAllocatorVaultsPerFeeSet(t *testing.T) {
	e := newEnv(t, envOptions{})
	usdc := e.addr(contracts.USDC)
	id10 := e.yieldID(KindAllocatorVault, e.addr(contracts.OAV10USDC).Hex(), "USDC")
	id20 := e.yieldID(KindAllocatorVault, e.addr(contracts.OAV20USDC).Hex(), "USDC")

	for _, tc := range []struct {
		key, visible, hidden, performance string
		vault                             common.Address
	}{
		{e.key10, id10, id20, "10.00", e.addr(contracts.OAV10USDC)},
		{e.key20, id20, id10, "20.00", e.addr(contracts.OAV20USDC)},
	} {
		var y yieldDTO
		e.mustCall(tc.key, "GET", "/v1/yields/"+tc.visible, nil, 200, &y)
		m := y.Mechanics
		if m.Fee.Performance != tc.performance || m.Fee.Management != "1.00" || m.Fee.Deposit != "0.50" ||
			!m.PossibleFeeTakingMechanisms.PerformanceFee || !m.PossibleFeeTakingMechanisms.ManagementFee {
			t.Fatalf("%s fees: %+v %+v", tc.visible, m.Fee, m.PossibleFeeTakingMechanisms)
		}
		e.mustCall(tc.key, "GET", "/v1/yields/"+tc.hidden, nil, 404, nil)
		var list page[yieldDTO]
		e.mustCall(tc.key, "GET", "/v1/yields?type=vault&limit=100", nil, 200, &list)
		for _, it := range list.Items {
			if it.ID == tc.hidden {
				t.Fatalf("key sees the other fee set's vault %s", tc.hidden)
			}
		}
		r := e.call(tc.key, "POST", "/v1/actions/enter", map[string]any{"yieldId": tc.hidden, "address": e.chain.DevAccount().Hex(),
			"arguments": map[string]any{"amount": "1"}})
		if r.status != 400 || !strings.Contains(string(r.body), "yieldId") {
			t.Fatalf("enter of the other set's vault: %d %s", r.status, r.body)
		}

		w := e.newWallet("1", map[string]string{"USDC": "300"})
		a := w.act(tc.key, "enter", tc.visible, map[string]any{"amount": "250"})
		if u := unsigned(t, a.Transactions[1]); u.To != tc.vault.Hex() || selector(u.Data) != "0x6e553f65" {
			t.Fatalf("allocator deposit: %+v", u)
		}
		if u := unsigned(t, a.Transactions[0]); u.To != usdc.Hex() || !strings.Contains(u.Data, strings.ToLower(tc.vault.Hex()[2:])) {
			t.Fatalf("allocator approval: %+v", u)
		}
		before := e.tokenBalance(usdc, w.addr)
		receipts := w.execute(tc.key, a)
		// The vault's share price moves with every second of management fee, so the deposit's own event says what
		// it minted.
		assets, minted := e.vaultEvent(receipts[1], tc.vault, "Deposit")
		shares := e.read(tc.vault, contracts.AllocatorVault, "balanceOf", w.addr)
		if shares.Cmp(minted) != 0 || assets.Cmp(baseUnits("250", 6)) != 0 || new(big.Int).Sub(before, e.tokenBalance(usdc, w.addr)).Cmp(assets) != 0 {
			t.Fatalf("shares %s, minted %s for %s", shares, minted, assets)
		}
		active := e.balances(tc.key, tc.visible, w.addr)["active"]
		if want := e.read(tc.vault, contracts.AllocatorVault, "convertToAssets", shares); active.AmountRaw != want.String() {
			t.Fatalf("active %s, want %s", active.AmountRaw, want)
		}
		before = e.tokenBalance(usdc, w.addr)
		a = w.act(tc.key, "exit", tc.visible, map[string]any{"useMaxAmount": true})
		receipts = w.execute(tc.key, a)
		paid, burnt := e.vaultEvent(receipts[0], tc.vault, "Withdraw")
		if d := new(big.Int).Sub(e.tokenBalance(usdc, w.addr), before); d.Cmp(paid) != 0 || burnt.Cmp(shares) != 0 || paid.Sign() == 0 {
			t.Fatalf("exit paid %s (event %s) for %s shares of %s", d, paid, burnt, shares)
		}
		if got := e.read(tc.vault, contracts.AllocatorVault, "balanceOf", w.addr); got.Sign() != 0 {
			t.Fatalf("shares left %s", got)
		}
		if b := e.balances(tc.key, tc.visible, w.addr); len(b) != 0 {
			t.Fatalf("balances after the exit: %+v", b)
		}
	}
}

func TestERC4626DevCatalogueMatchesChain(t *testing.T) {
	e := newEnv(t, envOptions{})
	// Start verified the catalogue; a catalogue that lies about a fee is refused.
	cat := e.cat
	cat.Yields = append([]YieldConfig(nil), e.cat.Yields...)
	for i := range cat.Yields {
		if cat.Yields[i].Kind == KindAllocatorVault {
			cat.Yields[i].Fees.PerformanceBps = 3000
			break
		}
	}
	svc, err := New(Config{Catalogue: cat, Store: e.store, Logger: quietLog})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	if err := svc.Start(context.Background()); err == nil || !strings.Contains(err.Error(), "performance fee") {
		t.Fatalf("a catalogue with the wrong fee started: %v", err)
	}
}

// The dev catalogue written to a file loads back the same, and a file with an unknown field is refused.
func TestDevCatalogueFile(t *testing.T) {
	n := devChain(t)
	path := t.TempDir() + "/" + DefaultCatalogueFile
	written, err := DevCatalogue(context.Background(), n.Bootstrap())
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteCatalogue(path, written); err != nil {
		t.Fatal(err)
	}
	loaded, err := LoadCatalogue(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(loaded.Yields) != len(written.Yields) || len(loaded.Yields) != 13 {
		t.Fatalf("loaded %d yields, wrote %d", len(loaded.Yields), len(written.Yields))
	}
	for i := range loaded.Yields {
		if loaded.Yields[i].ID != written.Yields[i].ID || loaded.Yields[i].Fees != written.Yields[i].Fees {
			t.Fatalf("yield %d: %+v != %+v", i, loaded.Yields[i], written.Yields[i])
		}
	}
	if err := os.WriteFile(path, []byte(`{"networks": [], "yields": [], "providers": [], "extra": 1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadCatalogue(path); err == nil || !strings.Contains(err.Error(), "extra") {
		t.Fatalf("unknown field: %v", err)
	}
}

// A token marked allowanceReset (USDT's rule: no change from one non-zero allowance to another) whose allowance is
// non-zero but short gets approve(spender, 0) first: the steps are approve 0, approve the amount, deposit, and they
// execute. Without an allowance there is one approval, and an unmarked token with a short allowance gets one too.
func TestAllowanceResetBeforeApproval(t *testing.T) {
	t.Parallel()
	usdcVault := func(e *env) string { return e.yieldID(KindERC4626, e.addr(contracts.VaultUSDC).Hex(), "USDC") }
	e := newEnv(t, envOptions{edit: func(c *Catalogue) {
		for i := range c.Yields {
			if c.Yields[i].Kind == KindERC4626 && c.Yields[i].Token.Symbol == "USDC" {
				c.Yields[i].Token.AllowanceReset = true
			}
		}
	}})
	vault, usdc := usdcVault(e), e.addr(contracts.USDC)
	vaultAddr := e.addr(contracts.VaultUSDC)
	w := e.newWallet("1", map[string]string{"USDC": "1000"})
	approvedAmount := func(u unsignedTxDTO) *big.Int {
		t.Helper()
		data := hexutil.MustDecode(u.Data)
		if u.To != usdc.Hex() || selector(u.Data) != "0x095ea7b3" || len(data) != 68 ||
			common.BytesToAddress(data[4:36]) != vaultAddr {
			t.Fatalf("not an approval of the vault on USDC: %+v", u)
		}
		return new(big.Int).SetBytes(data[36:])
	}

	// No allowance yet: one approval, and only it is sent, leaving an allowance of 100.
	a := w.act(e.key10, "enter", vault, map[string]any{"amount": "100"})
	if len(a.Transactions) != 2 || approvedAmount(unsigned(t, a.Transactions[0])).Cmp(baseUnits("100", 6)) != 0 {
		t.Fatalf("first enter: %+v", a.Transactions)
	}
	if rcpt := w.send(w.sign(a.Transactions[0].UnsignedTransaction)); rcpt.Status != 1 {
		t.Fatal("approval reverted")
	}

	// Allowance 100, enter 300: reset to 0, approve 300, deposit.
	a = w.act(e.key10, "enter", vault, map[string]any{"amount": "300"})
	if len(a.Transactions) != 3 || a.Transactions[0].Type != "APPROVAL" || a.Transactions[1].Type != "APPROVAL" ||
		a.Transactions[2].Type != "DEPOSIT" {
		t.Fatalf("enter with a short allowance: %+v", a.Transactions)
	}
	reset, approve, deposit := unsigned(t, a.Transactions[0]), unsigned(t, a.Transactions[1]), unsigned(t, a.Transactions[2])
	if approvedAmount(reset).Sign() != 0 || approvedAmount(approve).Cmp(baseUnits("300", 6)) != 0 ||
		deposit.To != vaultAddr.Hex() || selector(deposit.Data) != "0x6e553f65" {
		t.Fatalf("steps: %+v %+v %+v", reset, approve, deposit)
	}
	if !strings.Contains(a.Transactions[0].Title, "Reset the USDC allowance to 0") {
		t.Fatalf("reset title %q", a.Transactions[0].Title)
	}
	if approve.Nonce != reset.Nonce+1 || deposit.Nonce != reset.Nonce+2 {
		t.Fatalf("nonces %d %d %d", reset.Nonce, approve.Nonce, deposit.Nonce)
	}
	before := e.tokenBalance(usdc, w.addr)
	w.execute(e.key10, a)
	if d := new(big.Int).Sub(before, e.tokenBalance(usdc, w.addr)); d.Cmp(baseUnits("300", 6)) != 0 {
		t.Fatalf("deposited %s", d)
	}

	// An unmarked token (USDC lending) with a short non-zero allowance gets one approval.
	pool := e.addr(contracts.Lending)
	lending := e.yieldID(KindLending, pool.Hex(), "USDC")
	a = w.act(e.key10, "enter", lending, map[string]any{"amount": "100"})
	w.send(w.sign(a.Transactions[0].UnsignedTransaction))
	a = w.act(e.key10, "enter", lending, map[string]any{"amount": "200"})
	if len(a.Transactions) != 2 || a.Transactions[0].Type != "APPROVAL" || a.Transactions[1].Type != "SUPPLY" {
		t.Fatalf("unmarked token: %+v", a.Transactions)
	}
	// The dev catalogue marks USDT, as on Ethereum.
	if !e.yieldCfg(e.yieldID(KindLending, pool.Hex(), "USDT")).Token.AllowanceReset || e.yieldCfg(lending).Token.AllowanceReset {
		t.Fatal("the dev catalogue should mark USDT, and only USDT, allowanceReset")
	}
}

// An address without the ether to pay the gas of its action's steps is refused with a 400 naming what is needed and
// what is there, and no action is stored: nothing is handed out that a node would reject.
func TestEnterRefusedWithoutGasMoney(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	vault := e.yieldID(KindERC4626, e.addr(contracts.VaultUSDC).Hex(), "USDC")
	w := e.newWallet("", map[string]string{"USDC": "100"})
	if b := e.ethBalance(w.addr); b.Sign() != 0 {
		t.Fatalf("the wallet holds %s wei, want none", b)
	}
	var body errorBody
	e.mustCall(e.key10, "POST", "/v1/actions/enter", map[string]any{"yieldId": vault, "address": w.addr.Hex(),
		"arguments": map[string]any{"amount": "100"}}, 400, &body)
	if body.StatusCode != 400 || body.Error != "Bad Request" || !strings.HasPrefix(body.Message, "address: holds 0 ETH") ||
		!strings.Contains(body.Message, "does not cover the action's value and gas of up to ") ||
		!strings.Contains(body.Message, "(2 transactions") || !strings.HasSuffix(body.Message, " ETH short") {
		t.Fatalf("error %+v", body)
	}
	var list struct {
		Total int `json:"total"`
	}
	e.mustCall(e.key10, "GET", "/v1/actions?address="+w.addr.Hex(), nil, 200, &list)
	if list.Total != 0 {
		t.Fatalf("%d actions stored for a refused enter", list.Total)
	}
}
