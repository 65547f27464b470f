package send

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/sigil/sigil/internal/solanarpc"
)

// solanaClient calls a Solana cluster's JSON-RPC API: the few methods a send needs.
type solanaClient struct{ rpc *solanarpc.Client }

func newSolanaClient(url string) *solanaClient { return &solanaClient{rpc: solanarpc.New(url)} }

// SolanaRPCError is an error the cluster answered: its JSON-RPC code, message and data.
type SolanaRPCError = solanarpc.Error

// call makes one call. An error the cluster answered is a *SolanaRPCError; one it did not answer wraps errNoAnswer.
func (c *solanaClient) call(ctx context.Context, method string, out any, params ...any) error {
	err := c.rpc.Call(ctx, method, out, params...)
	if errors.Is(err, solanarpc.ErrNoAnswer) {
		return fmt.Errorf("%w: %v", errNoAnswer, err)
	}
	return err
}

// latestBlockhash is the cluster's latest blockhash (base58), at confirmed commitment.
func (c *solanaClient) latestBlockhash(ctx context.Context) (string, error) {
	var r struct{ Value struct{ Blockhash string } }
	err := c.call(ctx, "getLatestBlockhash", &r, map[string]string{"commitment": "confirmed"})
	return r.Value.Blockhash, err
}

// blockhashValid reports whether a transaction with the blockhash may still land.
func (c *solanaClient) blockhashValid(ctx context.Context, blockhash string) (bool, error) {
	var r struct{ Value bool }
	err := c.call(ctx, "isBlockhashValid", &r, blockhash, map[string]string{"commitment": "processed"})
	return r.Value, err
}

// solanaStatus is a transaction's status: its slot, its commitment level, and its error (null when it succeeded).
type solanaStatus struct {
	Slot               uint64          `json:"slot"`
	Err                json.RawMessage `json:"err"`
	ConfirmationStatus string          `json:"confirmationStatus"`
}

// signatureStatus is the status of a transaction by its signature; nil when the cluster has not seen it.
func (c *solanaClient) signatureStatus(ctx context.Context, signature string) (*solanaStatus, error) {
	var r struct{ Value []*solanaStatus }
	if err := c.call(ctx, "getSignatureStatuses", &r, []string{signature}, map[string]bool{"searchTransactionHistory": true}); err != nil {
		return nil, err
	}
	if len(r.Value) != 1 {
		return nil, fmt.Errorf("%w: getSignatureStatuses answered %d statuses for one signature", errNoAnswer, len(r.Value))
	}
	return r.Value[0], nil
}

// sendTransaction broadcasts a signed transaction (base64), after the cluster's preflight simulation.
func (c *solanaClient) sendTransaction(ctx context.Context, b64 string) error {
	var sig string
	return c.call(ctx, "sendTransaction", &sig, b64, map[string]any{"encoding": "base64", "preflightCommitment": "processed", "maxRetries": 0})
}
