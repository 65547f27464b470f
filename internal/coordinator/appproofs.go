package coordinator

import (
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"

	"github.com/sigil/sigil/api"
)

// The queries of this file.
var (
	listAppProofs = query(api.ListAppProofs, queryListAppProofs)
)

// App proofs are statements signed by the coordinator's signer key (published at /.well-known/sigil-signer.json):
// that a wallet derived an address at a path, or that the policy engine allowed a signing activity on given approvals.
// Without a hardware enclave they prove only that the holder of that key said so: an operator with the key and the
// database could sign anything. They let a client check that responses came from this coordinator unaltered, and let
// an auditor replay an outcome against the digests; they are not remote attestation. See docs/APP_PROOFS.md.

// proof signs one payload with the signer key.
func (c *Coordinator) proof(key *ecdsa.PrivateKey, payload api.AppProofPayload) (api.AppProof, error) {
	data, err := json.Marshal(payload)
	if err != nil {
		return api.AppProof{}, err
	}
	digest := sha256.Sum256(data)
	r, s, err := ecdsa.Sign(rand.Reader, key, digest[:])
	if err != nil {
		return api.AppProof{}, err
	}
	sig := append(r.FillBytes(make([]byte, 32)), s.FillBytes(make([]byte, 32))...)
	pub, err := key.PublicKey.ECDH()
	if err != nil {
		return api.AppProof{}, err
	}
	// The reference's publicKey is an encryption key and a signing key, 65 bytes each. Sigil has one key for both
	// jobs, so it appears twice.
	pk := hex.EncodeToString(pub.Bytes())
	return api.AppProof{Scheme: api.AppProofScheme, PublicKey: pk + pk, ProofPayload: string(data), Signature: hex.EncodeToString(sig)}, nil
}

// proveAddresses records an address-derivation proof per new account, when the request asked for proofs.
func (x *execution) proveAddresses(org *Org, w *Wallet, accounts []*WalletAccount) error {
	if !x.wantProofs {
		return nil
	}
	key, err := x.c.ownKey(x.ctx, signerKeyName)
	if err != nil {
		return err
	}
	for _, a := range accounts {
		p, err := x.c.proof(key, api.AppProofPayload{Type: api.AppProofAddressDerivation, TimestampMs: strconv.FormatInt(x.now.UnixMilli(), 10),
			AddressDerivationProof: &api.AddressDerivationProof{OrganizationID: org.ID, WalletID: w.ID, DerivationPath: a.Path, Address: a.Address}})
		if err != nil {
			return err
		}
		x.proofs = append(x.proofs, p)
	}
	return nil
}

// proveOutcome records the policy outcome of an allowed signing activity (x.signs), over
// digests of the organization as the decision saw it and of the decision's context (type, intent, fingerprint,
// per-policy outcomes).
func (x *execution) proveOutcome(rec *record, orgBefore []byte, evaluations []api.PolicyEvaluation) error {
	if !x.wantProofs || !x.signs {
		return nil
	}
	key, err := x.c.ownKey(x.ctx, signerKeyName)
	if err != nil {
		return err
	}
	// The fingerprint is signed in the form the activity shows ("sha256:<hex>"). Proofs made before that form was
	// adopted signed the bare digest; they verify as they were signed, since a proof is checked over its own payload.
	fingerprint := wireFingerprint(rec.Fingerprint)
	ctxData, _ := json.Marshal(map[string]any{"type": rec.Type, "intent": rec.Intent, "fingerprint": fingerprint, "evaluations": evaluations})
	approvals := []api.RequestApproval{}
	for _, v := range rec.Votes {
		if v.Selection == api.VoteApproved {
			approvals = append(approvals, api.RequestApproval{UserID: v.UserID, PublicKey: v.PublicKey, Signature: v.Signature, Fingerprint: fingerprint})
		}
	}
	parentDigest := ""
	if x.org.ParentID != "" {
		read := x.c.store.GetOrg
		if x.tx != nil {
			read = x.tx.GetOrg // the transaction holds its organization: it reads through itself
		}
		if parent, err := read(x.ctx, x.org.ParentID); err == nil { // signing changes no organization
			parentDigest = digest(parent.Data)
		}
	}
	p, err := x.c.proof(key, api.AppProofPayload{Type: api.AppProofPolicyOutcome, TimestampMs: strconv.FormatInt(x.now.UnixMilli(), 10),
		PolicyOutcomeProof: &api.PolicyOutcomeProof{OrganizationID: x.org.ID, Outcome: "OUTCOME_ALLOW", DecisionContextDigest: digest(ctxData),
			OrganizationDataDigest: digest(orgBefore), ParentOrganizationDataDigest: parentDigest, UserRequestApprovals: approvals}})
	if err != nil {
		return err
	}
	x.proofs = append(x.proofs, p)
	return nil
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func queryListAppProofs(r *reader, q *api.GetActivityRequest) (*api.ListAppProofsResponse, error) {
	rec, err := r.activity(q.ActivityID)
	if err != nil {
		return nil, err
	}
	out := &api.ListAppProofsResponse{AppProofs: []api.AppProof{}}
	out.AppProofs = append(out.AppProofs, rec.AppProofs...)
	return out, nil
}
