package coordinator

import (
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/keys"
	"github.com/sigil/sigil/internal/send"
	"github.com/sigil/sigil/internal/solana"
	"github.com/sigil/sigil/internal/store"
)

// SOL_SEND_TRANSACTION(_V2): a Solana transaction signed by accounts of the organization, broadcast and watched. The
// policy engine decides it as it decides SIGN_TRANSACTION_V2 of the same transaction (solana.tx), once per signer:
// it is allowed only when it would be allowed to each of them. Execution records the send in the activity's
// transaction; the send worker (package send, solana.go) fetches the blockhash when asked, adds the organization's
// fee sponsor as fee payer when the send is sponsored (gas_solana.go), signs, broadcasts and watches it after the
// commit.
var (
	solSendTransactionV2 = &Activity[api.SolSendTransactionIntentV2, *solanaSend, *solanaSendJob, api.SolSendTransactionResult]{
		activityInfo: newInfo(api.SolSendTransactionV2.ActivitySpec, on(resPrivateKey, actSign)),
		Check: func(p *api.SolSendTransactionIntentV2) (*solanaSend, error) {
			return checkSolSend(p.UnsignedTransaction, p.SignWiths, "parameters.signWiths", p.Sponsor, p.Caip2, p.RecentBlockhash)
		},
		Prepare: prepareSolSend[api.SolSendTransactionIntentV2], Execute: execSolSend[api.SolSendTransactionIntentV2],
	}
	solSendTransaction = &Activity[api.SolSendTransactionIntent, *solanaSend, *solanaSendJob, api.SolSendTransactionResult]{
		activityInfo: newInfo(api.SolSendTransaction.ActivitySpec, on(resPrivateKey, actSign)),
		Check: func(p *api.SolSendTransactionIntent) (*solanaSend, error) {
			return checkSolSend(p.UnsignedTransaction, []string{p.SignWith}, "parameters.signWith", p.Sponsor, p.Caip2, p.RecentBlockhash)
		},
		Prepare: prepareSolSend[api.SolSendTransactionIntent], Execute: execSolSend[api.SolSendTransactionIntent],
	}
)

// maxSolanaSigners is the most signWiths a legacy or version 0 transaction may name.
const maxSolanaSigners = 16

// solanaSend is a Solana send's parameters, checked: the transaction (with the caller's blockhash, when given), its
// signers as named, and the canonical CAIP-2 id.
type solanaSend struct {
	tx             *solana.Transaction
	signWiths      []string
	caip2          string
	fetchBlockhash bool
	sponsor        bool
}

// computeBudgetProgram sets a transaction's compute limit and priority fee.
const computeBudgetProgram = "ComputeBudget111111111111111111111111111111"

// checkSponsorable refuses a transaction the fee sponsor may not pay for: one signed already (the sponsor becomes its
// first signer, which changes the message and voids every signature), and one that sets a priority fee (the sponsor
// pays the base fee of each signature, which the gas-spend limits count, and nothing a caller chooses beyond it).
func checkSponsorable(tx *solana.Transaction) error {
	if presigned(tx) {
		return apierr.New(apierr.InvalidArgument, "INVALID_TRANSACTION",
			"parameters.sponsor: a sponsored transaction gets its fee payer, the organization's fee sponsor, as its first signer, which voids the signatures it holds: send it unsigned")
	}
	for i, in := range tx.Parsed.Instructions {
		if in.ProgramKey == computeBudgetProgram && strings.HasPrefix(in.InstructionDataHex, "03") {
			return apierr.New(apierr.InvalidArgument, "INVALID_TRANSACTION",
				"parameters.unsignedTransaction: instruction %d sets a priority fee (SetComputeUnitPrice), which a sponsored transaction may not: the fee sponsor pays the base fee alone", i)
		}
	}
	return nil
}

func checkSolSend(unsigned string, signWiths []string, path string, sponsor *bool, caip2, recentBlockhash string) (*solanaSend, error) {
	id, err := send.NormalizeSolanaCAIP2(caip2)
	if err != nil {
		return nil, apierr.Invalid("parameters.caip2: %s", err.Error())
	}
	if len(signWiths) == 0 || len(signWiths) > maxSolanaSigners {
		return nil, apierr.Invalid("%s must name between 1 and %d signers, got %d", path, maxSolanaSigners, len(signWiths))
	}
	seen := map[string]bool{}
	for i, sw := range signWiths {
		if sw == "" || seen[sw] {
			return nil, apierr.Invalid("%s[%d] must be a Solana address, each once, got %q", path, i, sw)
		}
		seen[sw] = true
	}
	b, err := decodeTxHex(unsigned)
	var tx *solana.Transaction
	if err == nil {
		tx, err = solana.ParseTransaction(b)
	}
	if err != nil {
		return nil, apierr.New(apierr.InvalidArgument, "INVALID_TRANSACTION", "parameters.unsignedTransaction: %s", err.Error())
	}
	out := &solanaSend{tx: tx, signWiths: signWiths, caip2: id, fetchBlockhash: recentBlockhash == "", sponsor: sponsor != nil && *sponsor}
	if out.sponsor {
		if err := checkSponsorable(tx); err != nil {
			return nil, err
		}
	}
	if recentBlockhash != "" {
		h, err := solana.ParseKey(recentBlockhash)
		if err != nil {
			return nil, apierr.Invalid("parameters.recentBlockhash: %s", err.Error())
		}
		if h != tx.Message.RecentBlockhash {
			if presigned(tx) {
				return nil, apierr.New(apierr.InvalidArgument, "INVALID_TRANSACTION",
					"parameters.recentBlockhash differs from the transaction's, which others signed already: replacing it would void their signatures")
			}
			if out.tx, err = tx.WithBlockhash(h); err != nil {
				return nil, apierr.New(apierr.InvalidArgument, "INVALID_TRANSACTION", "parameters.recentBlockhash: %s", err.Error())
			}
		}
	}
	// A transaction others signed keeps its blockhash: a fresh one would void their signatures.
	out.fetchBlockhash = out.fetchBlockhash && !presigned(tx)
	return out, nil
}

// presigned reports whether any signature slot holds a signature already.
func presigned(tx *solana.Transaction) bool {
	for _, s := range tx.Signatures {
		if s != ([solana.SignatureSize]byte{}) {
			return true
		}
	}
	return false
}

// solanaSendJob is a Solana send with its signers and network resolved: what the execute step records.
type solanaSendJob struct {
	network send.Network
	req     send.SolanaRequest
	// sponsorOrg is the billing organization whose fee sponsor pays a sponsored send.
	sponsorOrg string
}

// prepareSolSend resolves the network and each signer, gives the policy engine the transaction's solana.tx once per
// signer (as SIGN_TRANSACTION_V2 would give it), and checks that every signature slot is either one of the signers'
// or signed already.
func prepareSolSend[P any](x *execution, _ *P, p *solanaSend, d *decisionRequest) (*solanaSendJob, error) {
	nw, err := x.c.network(p.caip2)
	if err != nil {
		return nil, err
	}
	j := &solanaSendJob{network: nw, req: send.SolanaRequest{Transaction: hex.EncodeToString(p.tx.Serialize()), FetchBlockhash: p.fetchBlockhash,
		Sponsor: p.sponsor}}
	if p.sponsor {
		if j.sponsorOrg, err = x.sponsoringOrg(); err != nil {
			return nil, err
		}
	}
	covered := make([]bool, len(p.tx.Signatures))
	for i, sw := range p.signWiths {
		s, err := x.signer(sw)
		if err != nil {
			return nil, apierr.Invalid("parameters.signWiths[%d]: no wallet account or private key %s in this organization", i, sw)
		}
		pub, err := hexBytes(s.publicKey)
		if s.curve != keys.CurveEd25519 || err != nil || len(pub) != solana.KeySize {
			return nil, apierr.Invalid("parameters.signWiths[%d]: a Solana transaction needs a CURVE_ED25519 key, %s is %s", i, sw, s.curve)
		}
		address := keys.Base58Encode(pub)
		slot, ok := p.tx.Message.SignerIndex(solana.Key(pub))
		if !ok {
			return nil, apierr.New(apierr.InvalidArgument, "INVALID_TRANSACTION", "parameters.signWiths[%d]: %s is not one of the transaction's %d signers",
				i, address, p.tx.Message.Header.NumRequiredSignatures)
		}
		covered[slot] = true
		facts, _, err := solanaTx{p.tx}.prepare(s) // the facts SIGN_TRANSACTION_V2 gives the policies
		if err != nil {
			return nil, err
		}
		if err := x.c.decodeInstructions(x.ctx, x.org, p.tx, facts.SolanaTx); err != nil {
			return nil, err
		}
		s.facts(facts)
		d.moves.Add(solanaMoves(p.tx.Parsed, address))
		if i == 0 {
			d.facts, d.walletID = facts, s.groupID()
		} else {
			d.moreFacts = append(d.moreFacts, facts)
		}
		j.req.Signers = append(j.req.Signers, send.SolanaSigner{Address: address, KeySecret: s.keySecret})
	}
	for i, ok := range covered {
		if !ok && p.tx.Signatures[i] == ([solana.SignatureSize]byte{}) {
			return nil, apierr.New(apierr.InvalidArgument, "INVALID_TRANSACTION",
				"parameters.unsignedTransaction: signer %s (slot %d) is neither in signWiths nor signed already", p.tx.Message.AccountKeys[i], i)
		}
	}
	return j, nil
}

// execSolSend records the send for the worker, in the activity's transaction. The send's address is its first
// signer's (the fee payer's when it pays, as a transaction's first signer does).
func execSolSend[P any](x *execution, _ *P, j *solanaSendJob) (*api.SolSendTransactionResult, error) {
	id := newID()
	first := j.req.Signers[0]
	err := x.tx.InsertSend(x.ctx, store.Send{ID: id, OrgID: x.org.ID, ActivityID: x.activityID, Network: j.network.CAIP2,
		From: first.Address, KeySecret: first.KeySecret, Request: j.req.Encode(), Status: store.SendInitialized, Nonce: -1,
		CreatedAt: x.now.UnixNano(), UpdatedAt: x.now.UnixNano(), SponsorOrg: j.sponsorOrg})
	if err != nil {
		return nil, fmt.Errorf("record the send: %w", err)
	}
	return &api.SolSendTransactionResult{SendTransactionStatusID: id}, nil
}
