package client

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"

	"github.com/sigil/sigil/api"
)

// VerifyAppProof checks an app proof against the coordinator's signer key (GET /.well-known/sigil-signer.json, pinned
// by the client) and returns its payload. It proves the holder of that key made the statement; see docs/APP_PROOFS.md
// for what that does and does not establish.
func VerifyAppProof(p api.AppProof, signer *ecdsa.PublicKey) (*api.AppProofPayload, error) {
	if p.Scheme != api.AppProofScheme {
		return nil, fmt.Errorf("app proof: unknown scheme %q", p.Scheme)
	}
	keys, err := hex.DecodeString(p.PublicKey)
	if err != nil || len(keys) != 130 {
		return nil, errors.New("app proof: publicKey is not two 65-byte keys in hex")
	}
	pinned, err := signer.Bytes()
	if err != nil || !bytes.Equal(keys[65:], pinned) {
		return nil, errors.New("app proof: signed by another key than the pinned signer")
	}
	sig, err := hex.DecodeString(p.Signature)
	if err != nil || len(sig) != 64 {
		return nil, errors.New("app proof: signature is not 64 bytes of hex")
	}
	digest := sha256.Sum256([]byte(p.ProofPayload))
	if !ecdsa.Verify(signer, digest[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		return nil, errors.New("app proof: signature does not verify")
	}
	var payload api.AppProofPayload
	if err := json.Unmarshal([]byte(p.ProofPayload), &payload); err != nil {
		return nil, fmt.Errorf("app proof: payload: %w", err)
	}
	return &payload, nil
}

// ListAppProofs returns the app proofs of an activity.
func (c *Client) ListAppProofs(ctx context.Context, orgID, activityID string) (*api.ListAppProofsResponse, error) {
	return query(ctx, c, api.ListAppProofs, api.GetActivityRequest{OrganizationID: orgID, ActivityID: activityID})
}
