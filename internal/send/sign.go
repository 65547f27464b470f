package send

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/holiman/uint256"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/evm"
	"github.com/sigil/sigil/internal/keys"
	"github.com/sigil/sigil/internal/store"
)

// chainClient is a node of one network.
type chainClient struct{ *ethclient.Client }

// answered reports whether err is the node's answer (a JSON-RPC error), not a failure to reach it.
func answered(err error) bool {
	var rerr rpc.Error
	return errors.As(err, &rerr)
}

// plan is an unsigned send with everything filled but its nonce: one call as an EIP-1559 transaction, or several
// as the account's call to itself through the batch delegate (EIP-7702), with an authorization to delegate to it
// when the account does not yet.
type plan struct {
	chainID   *big.Int
	msg       ethereum.CallMsg // what is sent: to, value, data
	gas       uint64
	tip, fee  *big.Int
	authorize *common.Address // the delegate the sender authorizes in a type-4 transaction of its own
	// auths are authorizations signed already (by an account a sponsor sends for): a type-4 transaction carries them.
	auths []types.SetCodeAuthorization
}

// maxGasCost is the most its gas may cost: the gas limit at the fee cap.
func (p *plan) maxGasCost() *big.Int { return new(big.Int).Mul(new(big.Int).SetUint64(p.gas), p.fee) }

// transaction is the plan's transaction with its nonce, signed with key.
func (p *plan) transaction(key []byte, nonce uint64) ([]byte, error) {
	auths := p.auths
	if p.authorize != nil {
		// The transaction's own nonce is used before its authorizations are applied: the sender's authorization takes
		// the next one.
		auth, err := signAuthorization(key, p.chainID, *p.authorize, nonce+1)
		if err != nil {
			return nil, err
		}
		auths = []types.SetCodeAuthorization{auth}
	}
	if len(auths) == 0 {
		return evm.NewDynamicFeeTx(&types.DynamicFeeTx{ChainID: p.chainID, Nonce: nonce, GasTipCap: p.tip, GasFeeCap: p.fee,
			Gas: p.gas, To: p.msg.To, Value: p.msg.Value, Data: p.msg.Data}).SignBytes(key)
	}
	return evm.NewSetCodeTx(&types.SetCodeTx{ChainID: uint256.MustFromBig(p.chainID), Nonce: nonce, GasTipCap: uint256.MustFromBig(p.tip),
		GasFeeCap: uint256.MustFromBig(p.fee), Gas: p.gas, To: *p.msg.To, Value: uint256.MustFromBig(p.msg.Value), Data: p.msg.Data,
		AuthList: auths}).SignBytes(key)
}

// sign checks a send that is not signed yet against the chain (deadline, simulation, funds, nonce), fills its gas
// and fees, takes its nonce and signs it, in the transaction that records it signed: a nonce is never taken without
// the signed transaction that uses it. A reason of the chain fails the send before anything is signed; a node that
// does not answer leaves it for later.
func (w *Worker) sign(ctx context.Context, cl *chainClient, nw Network, s store.Send) error {
	req, err := decodeRequest(s.Request)
	if err != nil {
		return w.fail(ctx, s, &api.TxError{Message: "the stored request does not decode: " + err.Error()})
	}
	if req.Deadline != 0 && w.cfg.Now().Unix() > req.Deadline {
		return w.fail(ctx, s, &api.TxError{Message: fmt.Sprintf("the deadline (%s) passed before the transaction was signed",
			time.Unix(req.Deadline, 0).UTC().Format(time.RFC3339))})
	}
	if req.Fill != nil {
		return w.signFill(ctx, cl, nw, s, req)
	}
	if req.Sponsor {
		return w.signSponsored(ctx, cl, nw, s, req)
	}
	chainNext, err := cl.PendingNonceAt(ctx, common.HexToAddress(s.From))
	if err != nil {
		return w.retryIn(ctx, s, fmt.Errorf("%w: %v", errNoAnswer, err))
	}
	if req.Nonce != nil {
		if reason, err := w.checkNonce(ctx, cl, nw, s, *req.Nonce, chainNext); err != nil || reason != nil {
			if err != nil {
				return w.retryIn(ctx, s, fmt.Errorf("%w: %v", errNoAnswer, err))
			}
			return w.fail(ctx, s, reason)
		}
	}
	key, err := w.cfg.OpenKey(ctx, s.KeySecret)
	if err != nil {
		return w.fail(ctx, s, &api.TxError{Message: "the signing key cannot be opened: " + err.Error()})
	}
	defer keys.Zero(key)
	p, reason, err := w.plan(ctx, cl, nw, s, req, key, chainNext)
	if err != nil {
		return w.retryIn(ctx, s, nodeTrouble(err))
	}
	if reason != nil {
		return w.fail(ctx, s, reason)
	}
	return w.record(ctx, cl, nw, s, p, key, s.From, chainNext, req.Nonce, nil)
}

// record numbers the planned transaction from the sender's nonces (chosen, or taken from the allocator past
// chainNext, the chain's pending count), signs it with the sender's key and records it signed, in one transaction:
// a nonce is never taken without the signed transaction that uses it. A sponsored send's limits are checked in that
// transaction with what it may cost, which it reserves: a refusal fails the send, nothing signed. Then it broadcasts
// it.
func (w *Worker) record(ctx context.Context, cl *chainClient, nw Network, s store.Send, p *plan, key []byte, sender string, chainNext uint64,
	chosen *uint64, limits SponsorLimits) error {
	var signed *types.Transaction
	err := w.save(ctx, s, func(tx *store.Tx, s *store.Send) (err error) {
		if err := reserve(ctx, tx, limits, nw.CAIP2, p.maxGasCost()); err != nil {
			return err
		}
		var nonce uint64
		if chosen != nil {
			nonce = *chosen
			err = tx.UseNonce(ctx, nw.CAIP2, sender, nonce)
		} else {
			nonce, err = tx.TakeNonce(ctx, nw.CAIP2, sender, chainNext)
		}
		if err != nil {
			return err
		}
		raw, err := p.transaction(key, nonce)
		if err != nil {
			return err
		}
		signed = new(types.Transaction)
		if err := signed.UnmarshalBinary(raw); err != nil {
			return err
		}
		s.Status, s.Nonce, s.RawTx, s.TxHash = store.SendBroadcasting, int64(nonce), hexutil.Encode(raw), signed.Hash().Hex()
		s.Error, s.Attempts, s.NextAt = nil, 0, 0
		if s.SponsorOrg != "" { // reserved against the sponsor's limit until its receipt says what it cost
			s.GasCostWei = p.maxGasCost().String()
		}
		return nil
	})
	var refusal *apierr.Error
	if errors.As(err, &refusal) {
		return w.fail(ctx, s, &api.TxError{Message: refusal.Message})
	}
	if err == nil {
		// Broadcast at once, now that it is recorded; whatever the node answers, the watch that follows acts on it.
		_ = cl.SendTransaction(ctx, signed)
	}
	return err
}

// message is what the send sends: its one call, or its calls through the batch delegate (the account calling
// itself), with the delegate to authorize when the account does not delegate to it yet.
func (w *Worker) message(ctx context.Context, cl *chainClient, nw Network, from common.Address, req *Request) (ethereum.CallMsg, *common.Address, *api.TxError, error) {
	if req.Undelegate {
		return undelegation(ctx, cl, from)
	}
	if len(req.Calls) == 1 {
		c := req.Calls[0]
		return ethereum.CallMsg{From: from, To: &c.To, Value: c.value(), Data: c.Data}, nil, nil, nil
	}
	if nw.BatchDelegate == (common.Address{}) {
		return ethereum.CallMsg{}, nil, &api.TxError{Message: "several calls run as one EIP-7702 batch, and " + nw.CAIP2 + " has no batch delegate configured"}, nil
	}
	data, err := packExecute(req.Calls)
	if err != nil {
		return ethereum.CallMsg{}, nil, &api.TxError{Message: "the calls do not encode: " + err.Error()}, nil
	}
	code, err := cl.PendingCodeAt(ctx, from)
	if err != nil {
		return ethereum.CallMsg{}, nil, nil, err
	}
	msg := ethereum.CallMsg{From: from, To: &from, Value: new(big.Int), Data: data}
	if current, delegated := types.ParseDelegation(code); delegated && current == nw.BatchDelegate {
		return msg, nil, nil, nil
	}
	if len(code) > 0 {
		if _, delegated := types.ParseDelegation(code); !delegated {
			return ethereum.CallMsg{}, nil, &api.TxError{Message: from.Hex() + " is a contract, not an account that can delegate"}, nil
		}
	}
	delegate := nw.BatchDelegate
	return msg, &delegate, nil, nil
}

// undelegation is the account's transaction to itself whose authorization delegates to the zero address, which
// EIP-7702 takes as removing the delegation; refused for an account with none.
func undelegation(ctx context.Context, cl *chainClient, from common.Address) (ethereum.CallMsg, *common.Address, *api.TxError, error) {
	code, err := cl.PendingCodeAt(ctx, from)
	if err != nil {
		return ethereum.CallMsg{}, nil, nil, err
	}
	if _, delegated := types.ParseDelegation(code); !delegated {
		return ethereum.CallMsg{}, nil, &api.TxError{Message: from.Hex() + " has no EIP-7702 delegation to remove"}, nil
	}
	return ethereum.CallMsg{From: from, To: &from, Value: new(big.Int)}, &common.Address{}, nil, nil
}

// plan simulates the send, fills its gas and fees and checks that the account can pay: reason is why the send fails,
// err a node that did not answer. key signs the authorization the simulation of a first batch needs (for the
// account's next nonce, chainNext, as the node sees it).
func (w *Worker) plan(ctx context.Context, cl *chainClient, nw Network, s store.Send, req *Request, key []byte, chainNext uint64) (*plan, *api.TxError, error) {
	from := common.HexToAddress(s.From)
	msg, authorize, reason, err := w.message(ctx, cl, nw, from, req)
	if err != nil || reason != nil {
		return nil, reason, err
	}
	value := new(big.Int)
	for _, c := range req.Calls {
		value.Add(value, c.value())
	}
	balance, err := cl.PendingBalanceAt(ctx, from)
	if err != nil {
		return nil, nil, err
	}
	if balance.Cmp(value) < 0 {
		return nil, &api.TxError{Message: fmt.Sprintf("insufficient funds: %s holds %s wei and the calls send %s wei", s.From, balance, value)}, nil
	}
	chainID := big.NewInt(nw.ChainID)
	if authorize != nil {
		auth, err := signAuthorization(key, chainID, *authorize, chainNext+1)
		if err != nil {
			return nil, &api.TxError{Message: "the authorization cannot be signed: " + err.Error()}, nil
		}
		msg.AuthorizationList = []types.SetCodeAuthorization{auth}
	}
	p, reason, err := w.price(ctx, cl, nw, s, req, msg, *msg.To)
	if err != nil || reason != nil {
		return nil, reason, err
	}
	if cost := new(big.Int).Add(p.maxGasCost(), value); balance.Cmp(cost) < 0 {
		return nil, &api.TxError{Message: fmt.Sprintf("insufficient funds: %s holds %s wei, and the transaction may cost %s wei (value + gas %d × max fee %s wei)",
			s.From, balance, cost, p.gas, p.fee)}, nil
	}
	p.chainID, p.authorize = chainID, authorize
	return p, nil, nil
}

// price simulates msg, a revert's reason decoded as raised at revertAt, and plans it with its fees and gas, which it
// checks as the node will (a gas limit below what the transaction needs before it runs, above the network's cap or the
// block's, a priority fee above the fee cap: refused for good, so never signed): reason is why the send fails, err a
// node that did not answer or a wait. The plan's chain and authorizations are the caller's to fill.
func (w *Worker) price(ctx context.Context, cl *chainClient, nw Network, s store.Send, req *Request, msg ethereum.CallMsg, revertAt common.Address) (*plan, *api.TxError, error) {
	if reason, err := w.simulate(ctx, cl, s, msg, revertAt); err != nil || reason != nil {
		return nil, reason, err
	}
	head, err := cl.HeaderByNumber(ctx, nil)
	if err != nil {
		return nil, nil, err
	}
	w.cfg.Networks.sawBlockGasLimit(nw.CAIP2, head.GasLimit)
	tip, feeCap, err := w.fees(ctx, cl, nw, req, head)
	if err != nil {
		return nil, nil, err
	}
	gas, reason, err := w.gas(ctx, cl, s, req, msg)
	if err != nil || reason != nil {
		return nil, reason, err
	}
	if err := evm.CheckFees(tip, feeCap); err != nil {
		return nil, &api.TxError{Message: "nothing was signed: " + err.Error()}, nil
	}
	need := evm.MinGas(msg.To, msg.Value, msg.Data, nil, len(msg.AuthorizationList))
	if err := evm.CheckGas(gas, need, nw.GasLimits(head.GasLimit)); err != nil {
		return nil, &api.TxError{Message: "nothing was signed: " + err.Error()}, nil
	}
	return &plan{msg: msg, gas: gas, tip: tip, fee: feeCap}, nil, nil
}

// simulate runs the message on the pending state before anything is signed: a revert is the send's failure, with its
// reason decoded as raised at revertAt; an error the node could not answer is returned for a retry.
func (w *Worker) simulate(ctx context.Context, cl *chainClient, s store.Send, msg ethereum.CallMsg, revertAt common.Address) (*api.TxError, error) {
	_, err := cl.PendingCallContract(ctx, msg)
	if err == nil {
		return nil, nil
	}
	if data, reverted := revertData(err); reverted {
		return revertFailure("the simulation reverts, so nothing was signed", w.revertChain(ctx, cl, s.OrgID, msg, "latest", revertAt, data)), nil
	}
	if answered(err) {
		return &api.TxError{Message: "the simulation fails, so nothing was signed: " + err.Error()}, nil
	}
	return nil, err
}

// waiting is why a send is left for later that is no failure of the node: a sponsored send waiting for a base fee
// above its network's cap on sponsored fees to fall.
type waiting struct{ reason string }

func (e *waiting) Error() string { return e.reason }

// nodeTrouble is err as the reason a send did not move: a wait as it is, anything else as the node's.
func nodeTrouble(err error) error {
	var wait *waiting
	if errors.As(err, &wait) {
		return err
	}
	return fmt.Errorf("%w: %v", errNoAnswer, err)
}

// fees are the send's priority fee and fee cap: the caller's, or the node's suggested tip on twice the base fee of
// head. A sponsored send's are always the server's, the fee cap no more than the network's cap on sponsored fees,
// so that no caller sets what its sponsor pays; while the base fee is above that cap, the send waits.
func (w *Worker) fees(ctx context.Context, cl *chainClient, nw Network, req *Request, head *types.Header) (tip, feeCap *big.Int, err error) {
	own := !req.Sponsor
	if own && req.MaxPriorityFeePerGas != nil {
		tip = req.MaxPriorityFeePerGas.ToInt()
	} else if tip, err = cl.SuggestGasTipCap(ctx); err != nil {
		return nil, nil, err
	}
	base := new(big.Int)
	if head.BaseFee != nil {
		base.Set(head.BaseFee)
	}
	switch {
	case own && req.MaxFeePerGas != nil:
		feeCap = req.MaxFeePerGas.ToInt()
		if req.MaxPriorityFeePerGas == nil && tip.Cmp(feeCap) > 0 {
			tip = new(big.Int).Set(feeCap)
		}
	default:
		feeCap = new(big.Int).Add(new(big.Int).Mul(base, big.NewInt(2)), tip)
	}
	if !own {
		// A fee cap below the base fee and the node's tip would be taken but never mined, holding the sponsor's nonce.
		limit, least := nw.sponsorFeeCap(), new(big.Int).Add(base, tip)
		if least.Cmp(limit) > 0 {
			return nil, nil, &waiting{fmt.Sprintf("waiting for the base fee (%s wei) and the node's tip (%s wei) to fall to this network's cap on sponsored fees (%s wei)",
				base, tip, limit)}
		}
		if feeCap.Cmp(limit) > 0 {
			feeCap = new(big.Int).Set(limit)
		}
	}
	return tip, feeCap, nil
}

// gas is the send's gas limit: the caller's (never a sponsored send's), or the node's estimate with a fifth more for a
// contract call (whose gas may change with the state between estimate and block).
func (w *Worker) gas(ctx context.Context, cl *chainClient, s store.Send, req *Request, msg ethereum.CallMsg) (uint64, *api.TxError, error) {
	if req.GasLimit != nil && !req.Sponsor {
		return *req.GasLimit, nil, nil
	}
	est, err := cl.EstimateGas(ctx, msg)
	if err != nil {
		if data, reverted := revertData(err); reverted {
			return 0, revertFailure("the gas estimate reverts, so nothing was signed", w.revertChain(ctx, cl, s.OrgID, msg, "latest", *msg.To, data)), nil
		}
		if answered(err) {
			return 0, &api.TxError{Message: "the gas estimate fails, so nothing was signed: " + err.Error()}, nil
		}
		return 0, nil, err
	}
	if len(msg.Data) == 0 && msg.AuthorizationList == nil {
		return est, nil, nil
	}
	return est + est/5, nil, nil
}

// checkNonce refuses a nonce the caller chose that the chain used already, or that is ahead of the account's next
// one: it would wait for the nonces between forever.
func (w *Worker) checkNonce(ctx context.Context, cl *chainClient, nw Network, s store.Send, nonce, chainNext uint64) (*api.TxError, error) {
	mined, err := cl.NonceAt(ctx, common.HexToAddress(s.From), nil)
	if err != nil {
		return nil, err
	}
	if nonce < mined {
		return &api.TxError{Message: fmt.Sprintf("nonce %d is used already: %s's next nonce is %d", nonce, s.From, mined)}, nil
	}
	next := chainNext
	if ours, found, err := w.cfg.Store.NextNonce(ctx, nw.CAIP2, s.From); err != nil {
		return nil, err
	} else if found && ours > next {
		next = ours
	}
	if nonce > next {
		return &api.TxError{Message: fmt.Sprintf("nonce %d is ahead of %s's next nonce %d: it would wait for the nonces between forever", nonce, s.From, next)}, nil
	}
	return nil, nil
}
