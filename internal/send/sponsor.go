package send

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/keys"
	"github.com/sigil/sigil/internal/store"
)

// NonceSlot is where BatchDelegate keeps an account's sponsored-batch nonce (an ERC-7201 namespaced slot), read with
// eth_getStorageAt whether or not the account delegates to it now.
var NonceSlot = common.HexToHash("0x41958aa71b52c4d75f6688ba452f3e75e10b4f62b3788d50c545f7152b41bf00")

// The EIP-712 types BatchDelegate verifies (internal/contracts/src/BatchDelegate.sol).
var (
	domainTypeHash = crypto.Keccak256Hash([]byte("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"))
	callTypeHash   = crypto.Keccak256Hash([]byte("Call(address to,uint256 value,bytes data)"))
	batchTypeHash  = crypto.Keccak256Hash([]byte("BatchExecution(Call[] calls,uint256 nonce,uint256 deadline)Call(address to,uint256 value,bytes data)"))
	domainName     = crypto.Keccak256Hash([]byte("SigilBatchDelegate"))
	domainVersion  = crypto.Keccak256Hash([]byte("1"))
)

// stationABI is GasStation's entry point.
var stationABI = func() abi.ABI {
	a, err := abi.JSON(strings.NewReader(`[{"type":"function","name":"execute","stateMutability":"nonpayable","outputs":[],"inputs":[
		{"name":"account","type":"address"},
		{"name":"calls","type":"tuple[]","components":[{"name":"to","type":"address"},{"name":"value","type":"uint256"},{"name":"data","type":"bytes"}]},
		{"name":"nonce","type":"uint256"},{"name":"deadline","type":"uint256"},{"name":"signature","type":"bytes"}]}]`))
	if err != nil {
		panic(err)
	}
	return a
}()

// word is a 32-byte ABI word of an integer.
func word(n *big.Int) []byte { return common.BigToHash(n).Bytes() }

// batchDigest is the EIP-712 digest of a sponsored batch: the calls, the account's sponsored-batch nonce and the
// deadline, in the domain of one chain and one account.
func batchDigest(chainID *big.Int, account common.Address, calls []Call, nonce uint64, deadline int64) common.Hash {
	var callHashes []byte
	for _, c := range calls {
		h := crypto.Keccak256(callTypeHash[:], common.LeftPadBytes(c.To[:], 32), word(c.value()), crypto.Keccak256(c.Data))
		callHashes = append(callHashes, h...)
	}
	structHash := crypto.Keccak256(batchTypeHash[:], crypto.Keccak256(callHashes), word(new(big.Int).SetUint64(nonce)), word(big.NewInt(deadline)))
	domain := crypto.Keccak256(domainTypeHash[:], domainName[:], domainVersion[:], word(chainID), common.LeftPadBytes(account[:], 32))
	return crypto.Keccak256Hash([]byte{0x19, 0x01}, domain, structHash)
}

// signBatch is the account's signature of a sponsored batch, r || s || v with v 27 or 28.
func signBatch(key []byte, digest common.Hash) ([]byte, error) {
	sig, err := keys.SignSecp256k1(key, digest[:])
	if err != nil {
		return nil, err
	}
	out := sig.Ethereum()
	out[64] += 27
	return out, nil
}

// defaultDeadline is how long a sponsored batch whose caller gave no deadline stays valid.
const defaultDeadline = time.Hour

// sponsorLimits reads the gas-spend limits of a sponsored send's organization and checks them as they stand (the
// spend, and what the sends signed already may cost, at or past a limit), before the send is priced: sends accepted
// together were each checked before any of them was signed. A refusal fails the send and an error retries it later;
// ok is whether to go on, with the limits to check again, with the send's own cost, as it is signed (nil: none).
func (w *Worker) sponsorLimits(ctx context.Context, s store.Send) (limits SponsorLimits, ok bool, err error) {
	if w.cfg.SponsorLimits == nil {
		return nil, true, nil
	}
	limits, err = w.cfg.SponsorLimits(ctx, s.OrgID)
	if err == nil && limits != nil {
		err = limits.Check(ctx, nil, s.Network, nil)
	}
	if err == nil {
		return limits, true, nil
	}
	return nil, false, w.refuseOrRetry(ctx, s, err)
}

// refuseOrRetry fails a send its organization's limits refuse (an *apierr.Error), and leaves it for later on any
// other error.
func (w *Worker) refuseOrRetry(ctx context.Context, s store.Send, err error) error {
	var refusal *apierr.Error
	if errors.As(err, &refusal) {
		return w.fail(ctx, s, &api.TxError{Message: refusal.Message})
	}
	return w.retryIn(ctx, s, err)
}

// reserve checks a sponsored send's limits with what it may cost, in the transaction that records it signed (which
// reserves that cost): nil limits check nothing.
func reserve(ctx context.Context, tx *store.Tx, limits SponsorLimits, network string, cost *big.Int) error {
	if limits == nil {
		return nil
	}
	return limits.Check(ctx, tx, network, cost)
}

// signSponsored signs a sponsored send: the account signs its calls (EIP-712) and, when it does not delegate to the
// batch delegate yet, the authorization to; the organization's gas sponsor signs and pays for the transaction that
// submits them through the gas station, numbered from the sponsor's nonces.
func (w *Worker) signSponsored(ctx context.Context, cl *chainClient, nw Network, s store.Send, req *Request) error {
	if nw.GasStation == (common.Address{}) || nw.BatchDelegate == (common.Address{}) || w.cfg.Sponsor == nil {
		return w.fail(ctx, s, &api.TxError{Message: "sponsored sends need a gas station and a gas sponsor, and " + nw.CAIP2 + " has none configured"})
	}
	w.sponsoring.Lock() // the limits are checked in the database too; this keeps one process's sends from queueing there
	defer w.sponsoring.Unlock()
	limits, ok, err := w.sponsorLimits(ctx, s)
	if !ok {
		return err
	}
	sponsorSecret, sponsor, err := w.cfg.Sponsor(ctx, s.SponsorOrg)
	if err != nil {
		return w.retryIn(ctx, s, fmt.Errorf("the organization's gas sponsor: %v", err))
	}
	// The account's sponsored batches are numbered by the delegate (a nonce in its storage), read from the chain: the
	// next one is signed once the one before it is mined, so that it reads the nonce that one used up.
	if busy, err := w.cfg.Store.SponsoredInFlight(ctx, s.Network, s.From); err != nil || busy {
		return w.retryIn(ctx, s, cmp.Or(err, errors.New("waiting for the account's previous sponsored batch to be mined")))
	}
	account := common.HexToAddress(s.From)
	slot, err := cl.StorageAt(ctx, account, NonceSlot, nil)
	if err != nil {
		return w.retryIn(ctx, s, fmt.Errorf("%w: %v", errNoAnswer, err))
	}
	gsNonce := new(big.Int).SetBytes(slot).Uint64()
	if req.GasStationNonce != nil && *req.GasStationNonce != gsNonce {
		return w.fail(ctx, s, &api.TxError{Message: fmt.Sprintf("gasStationNonce %d is not %s's next sponsored-batch nonce, %d", *req.GasStationNonce, s.From, gsNonce)})
	}
	deadline := req.Deadline
	if deadline == 0 {
		deadline = w.cfg.Now().Add(defaultDeadline).Unix()
	}
	key, err := w.cfg.OpenKey(ctx, s.KeySecret)
	if err != nil {
		return w.fail(ctx, s, &api.TxError{Message: "the signing key cannot be opened: " + err.Error()})
	}
	defer keys.Zero(key)
	chainID := big.NewInt(nw.ChainID)
	signature, err := signBatch(key, batchDigest(chainID, account, req.Calls, gsNonce, deadline))
	if err != nil {
		return w.fail(ctx, s, &api.TxError{Message: "the batch cannot be signed: " + err.Error()})
	}
	p, reason, err := w.planSponsored(ctx, cl, nw, s, req, key, sponsor, gsNonce, deadline, signature)
	if err != nil {
		return w.retryIn(ctx, s, nodeTrouble(err))
	}
	if reason != nil {
		return w.fail(ctx, s, reason)
	}
	sponsorKey, err := w.cfg.OpenKey(ctx, sponsorSecret)
	if err != nil {
		return w.fail(ctx, s, &api.TxError{Message: "the gas sponsor's key cannot be opened: " + err.Error()})
	}
	defer keys.Zero(sponsorKey)
	sponsorNext, err := cl.PendingNonceAt(ctx, sponsor)
	if err != nil {
		return w.retryIn(ctx, s, fmt.Errorf("%w: %v", errNoAnswer, err))
	}
	return w.record(ctx, cl, nw, s, p, sponsorKey, strings.ToLower(sponsor.Hex()), sponsorNext, nil, limits)
}

// planSponsored simulates the station's call from the sponsor, fills gas and fees, and checks that the account holds
// the calls' value and the sponsor the gas.
func (w *Worker) planSponsored(ctx context.Context, cl *chainClient, nw Network, s store.Send, req *Request, key []byte,
	sponsor common.Address, gsNonce uint64, deadline int64, signature []byte) (*plan, *api.TxError, error) {
	account := common.HexToAddress(s.From)
	type call struct {
		To    common.Address
		Value *big.Int
		Data  []byte
	}
	calls := make([]call, len(req.Calls))
	value := new(big.Int)
	for i, c := range req.Calls {
		calls[i] = call{To: c.To, Value: c.value(), Data: c.Data}
		value.Add(value, c.value())
	}
	data, err := stationABI.Pack("execute", account, calls, new(big.Int).SetUint64(gsNonce), big.NewInt(deadline), signature)
	if err != nil {
		return nil, &api.TxError{Message: "the calls do not encode: " + err.Error()}, nil
	}
	if balance, err := cl.PendingBalanceAt(ctx, account); err != nil {
		return nil, nil, err
	} else if balance.Cmp(value) < 0 {
		return nil, &api.TxError{Message: fmt.Sprintf("insufficient funds: %s holds %s wei and the calls send %s wei", s.From, balance, value)}, nil
	}
	station := nw.GasStation
	msg := ethereum.CallMsg{From: sponsor, To: &station, Value: new(big.Int), Data: data}
	chainID := big.NewInt(nw.ChainID)
	code, err := cl.PendingCodeAt(ctx, account)
	if err != nil {
		return nil, nil, err
	}
	var auths []types.SetCodeAuthorization
	if current, delegated := types.ParseDelegation(code); !delegated || current != nw.BatchDelegate {
		if len(code) > 0 && !delegated {
			return nil, &api.TxError{Message: account.Hex() + " is a contract, not an account that can delegate"}, nil
		}
		// The sponsor sends the transaction: the account's nonce is not used by it, and the authorization takes it.
		accountNonce, err := cl.PendingNonceAt(ctx, account)
		if err != nil {
			return nil, nil, err
		}
		auth, err := signAuthorization(key, chainID, nw.BatchDelegate, accountNonce)
		if err != nil {
			return nil, &api.TxError{Message: "the authorization cannot be signed: " + err.Error()}, nil
		}
		auths = []types.SetCodeAuthorization{auth}
		msg.AuthorizationList = auths
	}
	p, reason, err := w.price(ctx, cl, nw, s, req, msg, account)
	if err != nil || reason != nil {
		return nil, reason, err
	}
	if balance, err := cl.PendingBalanceAt(ctx, sponsor); err != nil {
		return nil, nil, err
	} else if cost := p.maxGasCost(); balance.Cmp(cost) < 0 {
		return nil, &api.TxError{Message: fmt.Sprintf("the organization's gas sponsor %s holds %s wei, and the transaction may cost %s wei: fund it",
			strings.ToLower(sponsor.Hex()), balance, cost)}, nil
	}
	p.chainID, p.auths = chainID, auths
	return p, nil, nil
}
