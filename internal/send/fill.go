package send

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
	"github.com/google/uuid"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/internal/keys"
	"github.com/sigil/sigil/internal/store"
)

// A signed transaction the node refuses for good (a gas limit below what it needs, a fee above the node's cap) would
// hold its sender's nonce forever: every later transaction of the sender waits behind it. Its send fails (its
// reservation against a sponsor's limits released) and its nonce is given back to the allocator when no later one was
// taken, or else filled: a filler send, a zero-value transfer of the sender to itself at that nonce, signed by the
// worker like any send and counted against the same sponsor's limits. Operators fill the nonces of an address's
// stuck sends with Unstick (sigil sends unstick).

// abandon fails a signed send the node refused for good, and releases or fills its nonce, in one transaction.
func (w *Worker) abandon(ctx context.Context, s store.Send, tx *types.Transaction, sender common.Address, refusal error) error {
	address := strings.ToLower(sender.Hex())
	secret := s.KeySecret
	switch {
	case isFill(s):
		secret = "" // a filler refused for good is not filled again: an operator unsticks the address
	case s.SponsorOrg != "" && w.cfg.Sponsor != nil:
		var err error
		if secret, _, err = w.cfg.Sponsor(ctx, s.SponsorOrg); err != nil {
			return w.retryIn(ctx, s, fmt.Errorf("the node refused the transaction for good (%v), and the gas sponsor's key to fill its nonce: %v", refusal, err))
		}
	}
	now := w.cfg.Now().UnixNano()
	nonce := tx.Nonce()
	return w.save(ctx, s, func(stx *store.Tx, s *store.Send) error {
		released, err := stx.ReleaseNonce(ctx, s.Network, address, nonce)
		if err != nil {
			return err
		}
		what := fmt.Sprintf("its nonce %d is given back to %s's next transaction", nonce, address)
		switch {
		case released:
		case secret == "":
			what = fmt.Sprintf("its nonce %d, which %s's later transactions wait for, cannot be filled here: an operator can (sigil sends unstick)", nonce, address)
		default:
			if err := stx.InsertSend(ctx, fillSend(*s, address, secret, nonce, nil, now)); err != nil {
				return err
			}
			what = fmt.Sprintf("its nonce %d is filled by a zero-value transfer of %s to itself, so that its later transactions are mined", nonce, address)
		}
		s.Status, s.GasCostWei = store.SendFailed, ""
		s.Error = encodeError(&api.TxError{Message: fmt.Sprintf("the node refused the transaction for good: %v; nothing was spent, and %s", refusal, what)})
		return nil
	})
}

// fillSend is the filler of a nonce of address that s held, to be signed with the key secret, recorded at now: of s's
// organization, and counted against s's sponsor when it had one. min is the transaction it must outbid in a node's
// pool (nil: none).
func fillSend(s store.Send, address, secret string, nonce uint64, min *types.Transaction, now int64) store.Send {
	req := &Request{Fill: &nonce}
	if min != nil {
		// A node replaces a transaction in its pool only with one paying a tenth more of both fees.
		req.FillMinFee = (*hexutil.Big)(bump(min.GasFeeCap()))
		req.FillMinTip = (*hexutil.Big)(bump(min.GasTipCap()))
	}
	return store.Send{ID: uuid.NewString(), OrgID: s.OrgID, ActivityID: fillPrefix + s.ID, Network: s.Network, From: address,
		KeySecret: secret, Request: req.Encode(), Status: store.SendInitialized, Nonce: -1, CreatedAt: now, UpdatedAt: now,
		SponsorOrg: s.SponsorOrg}
}

// bump is v and an eighth more, rounded up: above the tenth a node asks of a replacement.
func bump(v *big.Int) *big.Int {
	out := new(big.Int).Add(v, new(big.Int).Rsh(v, 3))
	return out.Add(out, big.NewInt(1))
}

// signFill signs a filler at its nonce, with the node's fees (raised to what outbids a stuck transaction; for a
// sponsor's nonce no more than the network's cap on sponsored fees, unless being mined or outbidding needs more), or
// ends it when the nonce was used meanwhile.
func (w *Worker) signFill(ctx context.Context, cl *chainClient, nw Network, s store.Send, req *Request) error {
	sender := common.HexToAddress(s.From)
	mined, err := cl.NonceAt(ctx, sender, nil)
	if err != nil {
		return w.retryIn(ctx, s, nodeTrouble(err))
	}
	if mined > *req.Fill {
		return w.fail(ctx, s, &api.TxError{Message: fmt.Sprintf("nonce %d of %s was used by another transaction: nothing to fill", *req.Fill, s.From)})
	}
	head, err := cl.HeaderByNumber(ctx, nil)
	if err != nil {
		return w.retryIn(ctx, s, nodeTrouble(err))
	}
	tip, err := cl.SuggestGasTipCap(ctx)
	if err != nil {
		return w.retryIn(ctx, s, nodeTrouble(err))
	}
	base := new(big.Int)
	if head.BaseFee != nil {
		base.Set(head.BaseFee)
	}
	fee := new(big.Int).Add(new(big.Int).Mul(base, big.NewInt(2)), tip)
	if least := new(big.Int).Add(base, tip); s.SponsorOrg != "" && fee.Cmp(nw.sponsorFeeCap()) > 0 {
		fee = bigMax(least, nw.sponsorFeeCap()) // never so low that it is taken and not mined
	}
	if req.FillMinFee != nil && fee.Cmp(req.FillMinFee.ToInt()) < 0 {
		fee = req.FillMinFee.ToInt()
	}
	if req.FillMinTip != nil && tip.Cmp(req.FillMinTip.ToInt()) < 0 {
		tip = req.FillMinTip.ToInt()
	}
	tip = bigMin(tip, fee)
	key, err := w.cfg.OpenKey(ctx, s.KeySecret)
	if err != nil {
		return w.fail(ctx, s, &api.TxError{Message: "the key to fill the nonce with cannot be opened: " + err.Error()})
	}
	defer keys.Zero(key)
	p := &plan{chainID: big.NewInt(nw.ChainID), msg: ethereum.CallMsg{From: sender, To: &sender, Value: new(big.Int)}, gas: params.TxGas, tip: tip, fee: fee}
	return w.record(ctx, cl, nw, s, p, key, s.From, 0, req.Fill, nil)
}

func bigMax(a, b *big.Int) *big.Int {
	if a.Cmp(b) > 0 {
		return a
	}
	return b
}

func bigMin(a, b *big.Int) *big.Int {
	if a.Cmp(b) < 0 {
		return a
	}
	return b
}

// Unstuck is a send whose nonce Unstick filled.
type Unstuck struct {
	SendID string
	Nonce  uint64
}

// Unstick fills the nonce of every signed send of an address on a network that is not mined yet (its status
// BROADCASTING), with a filler that outbids it in a node's pool: whichever of the two is mined, the other is reported
// replaced, and the address's later transactions go on. It is for the sends a node takes but never mines (a fee below
// a base fee that stays above it, a sponsor left unfunded): those the node refuses for good are failed and their
// nonces released or filled by the worker itself. Sends already given a filler are left as they are. The worker signs
// the fillers, with the address's key (the organization's gas sponsor's for its sponsored sends); the key secret of a
// send that does not record one (a raw send recorded before they did) is looked up with sponsorSecret.
func Unstick(ctx context.Context, st *store.Store, network, address string, sponsorSecret func(orgID string) string) ([]Unstuck, error) {
	address = strings.ToLower(address)
	now := time.Now().UnixNano()
	var out []Unstuck
	err := st.Write(ctx, func(tx *store.Tx) error {
		out = out[:0]
		sends, err := tx.SignedSends(ctx, network)
		if err != nil {
			return err
		}
		for _, s := range sends {
			signed, sender, ok := decodeSigned(s)
			if !ok || strings.ToLower(sender.Hex()) != address {
				continue
			}
			if filled, err := tx.ActivityHasSend(ctx, fillPrefix+s.ID); err != nil || filled {
				if err != nil {
					return err
				}
				continue
			}
			secret := s.KeySecret
			if s.SponsorOrg != "" && !isFill(s) {
				secret = sponsorSecret(s.SponsorOrg)
			}
			if secret == "" {
				return fmt.Errorf("send %s (nonce %d) records no key to fill its nonce with", s.ID, signed.Nonce())
			}
			if err := tx.InsertSend(ctx, fillSend(s, address, secret, signed.Nonce(), signed, now)); err != nil {
				return err
			}
			out = append(out, Unstuck{SendID: s.ID, Nonce: signed.Nonce()})
		}
		return nil
	})
	return out, err
}

// decodeSigned is a signed send's transaction and its sender.
func decodeSigned(s store.Send) (*types.Transaction, common.Address, bool) {
	raw, err := hexutil.Decode(s.RawTx)
	if err != nil {
		return nil, common.Address{}, false
	}
	tx := new(types.Transaction)
	if tx.UnmarshalBinary(raw) != nil {
		return nil, common.Address{}, false
	}
	sender, err := types.Sender(types.LatestSignerForChainID(tx.ChainId()), tx)
	return tx, sender, err == nil
}
