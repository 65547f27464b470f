package send

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/keys"
	"github.com/sigil/sigil/internal/solana"
	"github.com/sigil/sigil/internal/store"
)

// Solana's CAIP-2 ids: solana: and the first 32 characters of the cluster's genesis hash (base58). The aliases the
// reference accepts name the public clusters.
var solanaAliases = map[string]string{
	"solana:mainnet": "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp",
	"solana:devnet":  "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
}

// NormalizeSolanaCAIP2 is the canonical CAIP-2 id of a Solana cluster: an alias (solana:mainnet, solana:devnet)
// resolved, a whole genesis hash cut to its first 32 characters.
func NormalizeSolanaCAIP2(caip2 string) (string, error) {
	if canonical, ok := solanaAliases[caip2]; ok {
		return canonical, nil
	}
	ref, ok := strings.CutPrefix(caip2, "solana:")
	if b, err := keys.Base58Decode(ref); !ok || err != nil || len(ref) < 32 || len(ref) > 44 || len(b) > solana.KeySize {
		return "", fmt.Errorf("%q is not a Solana CAIP-2 id (solana:<genesis hash>, solana:mainnet or solana:devnet)", caip2)
	}
	return "solana:" + ref[:min(len(ref), 32)], nil
}

// Solana reports whether the network is a Solana cluster.
func (nw Network) Solana() bool { return strings.HasPrefix(nw.CAIP2, "solana:") }

// addSolana checks and adds a Solana cluster, under its canonical CAIP-2 id.
func (n *Networks) addSolana(nw Network) error {
	id, err := NormalizeSolanaCAIP2(nw.CAIP2)
	switch {
	case err != nil:
		return err
	case !strings.HasPrefix(nw.RPCURL, "http://") && !strings.HasPrefix(nw.RPCURL, "https://"):
		return fmt.Errorf("rpcUrl %q must be an http(s) URL", nw.RPCURL)
	case n.byID[id].CAIP2 != "":
		return fmt.Errorf("%s is configured twice", id)
	}
	nw.CAIP2, nw.ChainID = id, 0
	n.byID[id] = nw
	return nil
}

// SolanaRequest is a Solana send as its activity allowed it: the transaction (hex, its signers' slots empty or
// signed by others), the accounts of the organization that sign it, with their sealed keys, whether the blockhash is
// fetched when it is signed, and whether the organization's Solana fee sponsor pays its fee (added as its first
// account when it is signed).
type SolanaRequest struct {
	Transaction    string         `json:"transaction"`
	Signers        []SolanaSigner `json:"signers"`
	FetchBlockhash bool           `json:"fetchBlockhash,omitempty"`
	Sponsor        bool           `json:"sponsor,omitempty"`
}

// SolanaSigner is one signer of a Solana send: its address (base58) and its sealed key.
type SolanaSigner struct {
	Address   string `json:"address"`
	KeySecret string `json:"keySecret"`
}

// Encode is the request as the store keeps it.
func (r *SolanaRequest) Encode() []byte { return encode(r) }

// solanaLoop moves the sends of a Solana cluster, as loop does for an EVM network.
func (w *Worker) solanaLoop(ctx context.Context, nw Network, wake <-chan struct{}) {
	cl := newSolanaClient(nw.RPCURL)
	w.every(ctx, nw, wake, func(ctx context.Context) error {
		return w.pollEach(ctx, nw, func(ctx context.Context, s store.Send) error { return w.solanaStep(ctx, cl, s) })
	})
}

// solanaStep moves one Solana send on: one not yet signed is signed (its blockhash fetched first, when asked); a
// signed one is broadcast, or looked for in the cluster.
func (w *Worker) solanaStep(ctx context.Context, cl *solanaClient, s store.Send) error {
	if s.RawTx != "" {
		return w.solanaWatch(ctx, cl, s)
	}
	if claimed, err := w.claim(ctx, s); !claimed || err != nil {
		return err
	}
	return w.solanaSign(ctx, cl, s)
}

// solanaSign signs the send's transaction — its fee sponsor added first when it is sponsored, its blockhash fetched
// when asked — with each of its signers' keys, saves it BROADCASTING with its first signature as its hash, and
// broadcasts it. A cluster that does not answer leaves it for later; what cannot be signed fails it.
func (w *Worker) solanaSign(ctx context.Context, cl *solanaClient, s store.Send) error {
	var req SolanaRequest
	if err := json.Unmarshal(s.Request, &req); err != nil {
		return w.fail(ctx, s, &api.TxError{Message: "the stored request does not decode: " + err.Error()})
	}
	raw, err := hex.DecodeString(req.Transaction)
	if err != nil {
		return w.fail(ctx, s, &api.TxError{Message: "the stored transaction does not decode: " + err.Error()})
	}
	tx, err := solana.ParseTransaction(raw)
	if err != nil {
		return w.fail(ctx, s, &api.TxError{Message: "the stored transaction does not parse: " + err.Error()})
	}
	var signers []SolanaSigner
	if req.Sponsor {
		sponsor, paid, err := w.solanaSponsor(ctx, s, tx)
		if err != nil {
			return err
		}
		if sponsor == nil {
			return nil // failed, or left for later
		}
		signers, tx = append(signers, *sponsor), paid
	}
	if req.FetchBlockhash {
		h, err := cl.latestBlockhash(ctx)
		if err != nil {
			return w.retryIn(ctx, s, err)
		}
		key, err := solana.ParseKey(h)
		if err == nil {
			tx, err = tx.WithBlockhash(key)
		}
		if err != nil {
			return w.retryIn(ctx, s, fmt.Errorf("the cluster's latest blockhash: %v", err))
		}
	}
	for _, signer := range append(signers, req.Signers...) {
		if tx, err = w.solanaSignWith(ctx, tx, signer); err != nil {
			return w.fail(ctx, s, &api.TxError{Message: err.Error()})
		}
	}
	for i, sig := range tx.Signatures {
		if sig == ([solana.SignatureSize]byte{}) {
			return w.fail(ctx, s, &api.TxError{Message: fmt.Sprintf("nothing was sent: the signature of %s (slot %d) is missing", tx.Message.AccountKeys[i], i)})
		}
	}
	s.Status, s.RawTx, s.TxHash = store.SendBroadcasting, hex.EncodeToString(tx.Serialize()), keys.Base58Encode(tx.Signatures[0][:])
	s.Error, s.Attempts, s.NextAt = nil, 0, 0
	saved, err := w.saveSolanaSigned(ctx, s, tx, req.Sponsor)
	if err != nil || !saved {
		return err
	}
	// Broadcast at once, now that it is recorded; whatever the cluster answers, the watch that follows acts on it.
	_ = cl.sendTransaction(ctx, base64.StdEncoding.EncodeToString(tx.Serialize()))
	return nil
}

// saveSolanaSigned records a send signed; saved is false when a sponsored send was failed instead, or left for later,
// by its sponsor's limits. The limit check and the reservation of the fee are one step: sends signed at once cannot
// all pass one check.
func (w *Worker) saveSolanaSigned(ctx context.Context, s store.Send, tx *solana.Transaction, sponsored bool) (saved bool, err error) {
	if !sponsored {
		return true, w.save(ctx, s, nil)
	}
	w.sponsoring.Lock()
	defer w.sponsoring.Unlock()
	limits, ok, err := w.sponsorLimits(ctx, s)
	if !ok {
		return false, err
	}
	// What the sponsor pays: the base fee of each signature (a sponsored transaction sets no priority fee).
	fee := SolanaLamportsPerSignature * uint64(len(tx.Signatures))
	s.GasCostWei = strconv.FormatUint(fee, 10)
	err = w.save(ctx, s, func(tx *store.Tx, _ *store.Send) error {
		return reserve(ctx, tx, limits, s.Network, new(big.Int).SetUint64(fee))
	})
	var refusal *apierr.Error
	if errors.As(err, &refusal) { // nothing was sent: the send fails as it was before it was signed
		s.Status, s.RawTx, s.TxHash = store.SendInitialized, "", ""
		return false, w.fail(ctx, s, &api.TxError{Message: refusal.Message})
	}
	return err == nil, err
}

// SolanaLamportsPerSignature is Solana's base fee of a signature.
const SolanaLamportsPerSignature = 5000

// solanaSponsor is the send's fee sponsor and the transaction with the sponsor as its fee payer. A nil sponsor and
// error means the send was failed (no sponsor configured, a transaction that names the sponsor) or left for later.
func (w *Worker) solanaSponsor(ctx context.Context, s store.Send, tx *solana.Transaction) (*SolanaSigner, *solana.Transaction, error) {
	if w.cfg.SolanaSponsor == nil {
		return nil, nil, w.fail(ctx, s, &api.TxError{Message: "sponsored Solana sends need a fee sponsor, and this server has none configured"})
	}
	secret, address, err := w.cfg.SolanaSponsor(ctx, s.SponsorOrg)
	if err != nil {
		return nil, nil, w.retryIn(ctx, s, fmt.Errorf("the fee sponsor: %v", err))
	}
	payer, err := solana.ParseKey(address)
	if err == nil {
		tx, err = tx.WithFeePayer(payer)
	}
	if err != nil {
		return nil, nil, w.fail(ctx, s, &api.TxError{Message: "nothing was sent: the fee sponsor " + address + " cannot pay for the transaction: " + err.Error()})
	}
	return &SolanaSigner{Address: address, KeySecret: secret}, tx, nil
}

// solanaSignWith fills a signer's slot, its key opened for this one signature.
func (w *Worker) solanaSignWith(ctx context.Context, tx *solana.Transaction, signer SolanaSigner) (*solana.Transaction, error) {
	pub, err := solana.ParseKey(signer.Address)
	if err != nil {
		return nil, err
	}
	slot, ok := tx.Message.SignerIndex(pub)
	if !ok {
		return nil, fmt.Errorf("nothing was sent: %s is not a signer of the transaction", signer.Address)
	}
	key, err := w.cfg.OpenKey(ctx, signer.KeySecret)
	if err != nil {
		return nil, fmt.Errorf("nothing was sent: the key of %s: %v", signer.Address, err)
	}
	defer keys.Zero(key)
	sig, err := keys.Sign(keys.CurveEd25519, key, tx.Message.Bytes())
	if err != nil {
		return nil, fmt.Errorf("nothing was sent: signing with %s: %v", signer.Address, err)
	}
	var both [solana.SignatureSize]byte
	copy(both[:32], sig.R[:])
	copy(both[32:], sig.S[:])
	return tx.Signed(slot, both), nil
}

// solanaWatch follows a signed send: INCLUDED once the cluster confirms it, FAILED when it landed with an error, when
// the preflight refused it, or when its blockhash expired before it landed (it never can, and cost nothing); sent
// again, the same signed bytes, while the cluster has not seen it. It claims the send only to write a change.
func (w *Worker) solanaWatch(ctx context.Context, cl *solanaClient, s store.Send) error {
	change := w.changer(ctx, s)
	raw, err := hex.DecodeString(s.RawTx)
	var tx *solana.Transaction
	if err == nil {
		tx, err = solana.ParseTransaction(raw)
	}
	if err != nil {
		return change(func() error {
			return w.fail(ctx, s, &api.TxError{Message: "the stored transaction does not decode: " + err.Error()})
		})
	}
	// The blockhash first, then the status: a transaction that lands between the two reads is found landed, never
	// taken for expired.
	valid, err := cl.blockhashValid(ctx, tx.Message.RecentBlockhash.String())
	if err != nil {
		return change(func() error { return w.retryIn(ctx, s, err) })
	}
	st, err := cl.signatureStatus(ctx, s.TxHash)
	switch {
	case err != nil:
		return change(func() error { return w.retryIn(ctx, s, err) })
	case st != nil && len(st.Err) > 0 && string(st.Err) != "null":
		return change(func() error {
			// It landed, so its fee was paid: it fails at its cost, which stays counted against a sponsor's limit.
			s.Status, s.Error = store.SendFailed, encodeError(&api.TxError{Message: fmt.Sprintf("the transaction failed in slot %d: %s", st.Slot, st.Err),
				Solana: &api.SolanaFailureDetails{Source: "execution", TransactionErrorJSON: string(st.Err)}})
			return w.save(ctx, s, nil)
		})
	case st != nil && (st.ConfirmationStatus == "confirmed" || st.ConfirmationStatus == "finalized"):
		return change(func() error { s.Status, s.Error = store.SendIncluded, nil; return w.save(ctx, s, nil) })
	case st != nil:
		return nil // processed: wait for its confirmation
	case !valid:
		return change(func() error {
			return w.fail(ctx, s, &api.TxError{Message: fmt.Sprintf("the transaction's blockhash %s expired before it landed: it was not executed and cost nothing",
				tx.Message.RecentBlockhash), Solana: &api.SolanaFailureDetails{Source: "expiry"}})
		})
	}
	err = cl.sendTransaction(ctx, base64.StdEncoding.EncodeToString(raw))
	var rpcErr *SolanaRPCError
	switch {
	case errors.As(err, &rpcErr):
		refusal, lookAgain := solanaRefusal(rpcErr)
		switch {
		case refusal != nil:
			return change(func() error { return w.fail(ctx, s, refusal) })
		case lookAgain:
			return nil // already processed, or a blockhash the node does not know yet: the next look decides
		}
		// A node unhealthy or behind says nothing of the transaction: it is sent again after a while.
		return change(func() error {
			return w.retryIn(ctx, s, fmt.Errorf("the cluster did not take the transaction: %v", rpcErr))
		})
	case err != nil:
		return change(func() error { return w.retryIn(ctx, s, err) })
	case len(s.Error) > 0: // a failure to reach the cluster before this broadcast is over
		return change(func() error { s.Error, s.NextAt = nil, 0; return w.save(ctx, s, nil) })
	}
	return nil
}

// The JSON-RPC errors by which a cluster refuses a transaction for good: its preflight simulation failed, its
// signatures do not verify, it does not parse. Any other (a node unhealthy or behind, an internal error) says nothing
// of the transaction.
const (
	solanaPreflightFailure  = -32002
	solanaSignatureFailure  = -32003
	solanaInvalidParameters = -32602
)

// solanaRefusal is the failure of a send the cluster refused for good; lookAgain when the refusal says to look
// again (the transaction already processed, or its blockhash not yet known to the node); neither for an error that
// says nothing of the transaction.
func solanaRefusal(e *SolanaRPCError) (refusal *api.TxError, lookAgain bool) {
	var sim struct {
		Err  json.RawMessage `json:"err"`
		Logs []string        `json:"logs"`
	}
	_ = json.Unmarshal(e.Data, &sim)
	txErr := strings.TrimSpace(string(sim.Err))
	switch {
	case txErr == `"AlreadyProcessed"` || txErr == `"BlockhashNotFound"`:
		return nil, true
	case e.Code == solanaPreflightFailure && (txErr == "" || txErr == "null"):
		return nil, false // a preflight that failed without the runtime's error: the node's trouble, not the transaction's
	case e.Code != solanaPreflightFailure && e.Code != solanaSignatureFailure && e.Code != solanaInvalidParameters:
		return nil, false
	}
	if txErr == "null" {
		txErr = ""
	}
	return &api.TxError{Message: "the cluster refused the transaction: " + e.Message,
		Solana: &api.SolanaFailureDetails{Source: "preflight", RPCCode: int32(e.Code), RPCMessage: e.Message, TransactionErrorJSON: txErr, Logs: sim.Logs}}, false
}
