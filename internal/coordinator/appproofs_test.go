package coordinator_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"math/big"
	"strings"
	"testing"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/testdb"
)

func TestAppProofs(t *testing.T) {
	t.Parallel()
	s := newStack(t, testdb.SQLite(t))
	org := s.boot.OrganizationID
	signer := s.signerKey(t)
	s.root.GenerateAppProofs = true
	w, a, err := s.root.CreateWallet(bg, org, api.CreateWalletIntent{WalletName: "w", Accounts: []api.WalletAccountParams{ethAccount()}})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.AppProofs) != 1 {
		t.Fatalf("%d proofs for one derived address", len(a.AppProofs))
	}
	payload, err := client.VerifyAppProof(a.AppProofs[0], signer)
	if err != nil {
		t.Fatal(err)
	}
	if d := payload.AddressDerivationProof; payload.Type != api.AppProofAddressDerivation || d.Address != w.Addresses[0] || d.WalletID != w.WalletID || d.DerivationPath != "m/44'/60'/0'/0/0" {
		t.Fatalf("payload %+v", payload)
	}
	tampered := a.AppProofs[0]
	tampered.ProofPayload = strings.Replace(tampered.ProofPayload, w.Addresses[0], "0x0000000000000000000000000000000000000001", 1)
	if _, err := client.VerifyAppProof(tampered, signer); err == nil {
		t.Fatal("a tampered proof verified")
	}
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if _, err := client.VerifyAppProof(a.AppProofs[0], &other.PublicKey); err == nil || !strings.Contains(err.Error(), "another key") {
		t.Fatalf("a proof checked against another pinned signer: %v", err)
	}
	for want, change := range map[string]func(*api.AppProof){
		"unknown scheme":            func(p *api.AppProof) { p.Scheme = "SIGNATURE_SCHEME_X" },
		"not two 65-byte keys":      func(p *api.AppProof) { p.PublicKey = p.PublicKey[:128] },
		"not 64 bytes of hex":       func(p *api.AppProof) { p.Signature = "zz" + p.Signature[2:] },
		"signature does not verify": func(p *api.AppProof) { p.Signature = strings.Repeat("0", 128) },
	} {
		bad := a.AppProofs[0]
		change(&bad)
		if _, err := client.VerifyAppProof(bad, signer); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("a proof with %s: %v", want, err)
		}
	}

	_, signed, err := s.root.SignTransaction(bg, org, api.SignTransactionIntentV2{SignWith: w.Addresses[0],
		UnsignedTransaction: unsigned1559(t, token, calldata(t, "approve", vault, big.NewInt(1)), 0), Type: api.TransactionTypeEthereum})
	if err != nil {
		t.Fatal(err)
	}
	listed, err := s.root.ListAppProofs(bg, org, signed.ID)
	if err != nil || len(listed.AppProofs) != 1 {
		t.Fatalf("list_app_proofs: %+v %v", listed, err)
	}
	payload, err = client.VerifyAppProof(listed.AppProofs[0], signer)
	if err != nil {
		t.Fatal(err)
	}
	p := payload.PolicyOutcomeProof
	if payload.Type != api.AppProofPolicyOutcome || p.Outcome != "OUTCOME_ALLOW" || len(p.UserRequestApprovals) != 1 ||
		p.UserRequestApprovals[0].UserID != s.boot.UserID || len(p.OrganizationDataDigest) != 64 {
		t.Fatalf("policy outcome proof %+v", p)
	}
	// Without the flag there are none.
	s.root.GenerateAppProofs = false
	_, plain, _ := s.root.CreateWallet(bg, org, api.CreateWalletIntent{WalletName: "w2", Accounts: []api.WalletAccountParams{ethAccount()}})
	if len(plain.AppProofs) != 0 {
		t.Fatal("proofs without generateAppProofs")
	}
}
