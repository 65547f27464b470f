package coordinator

import (
	"strings"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/evm"
	"github.com/sigil/sigil/internal/send"
	"github.com/sigil/sigil/internal/store"
)

// ETH_SEND_RAW_TRANSACTION: a transaction signed elsewhere, by a key of the organization, broadcast and watched.
var ethSendRawTransaction = &Activity[api.EthSendRawTransactionIntent, *types.Transaction, *rawSendJob, api.EthSendRawTransactionResult]{
	activityInfo: newInfo(api.EthSendRawTransaction.ActivitySpec, on(resPrivateKey, actSign)),
	Check:        checkRawSend, Prepare: prepareRawSend, Execute: execRawSend,
}

// checkRawSend decodes the signed transaction.
func checkRawSend(p *api.EthSendRawTransactionIntent) (*types.Transaction, error) {
	if _, err := send.ParseCAIP2(p.Caip2); err != nil {
		return nil, apierr.Invalid("parameters.caip2: %s", err.Error())
	}
	raw, err := hexutil.Decode(p.SignedTransaction)
	if err != nil {
		if raw, err = hexutil.Decode("0x" + p.SignedTransaction); err != nil {
			return nil, apierr.Invalid("parameters.signedTransaction must be hex: %s", err.Error())
		}
	}
	tx := new(types.Transaction)
	if err := tx.UnmarshalBinary(raw); err != nil {
		return nil, apierr.Invalid("parameters.signedTransaction is not a signed Ethereum transaction: %s", err.Error())
	}
	return tx, nil
}

// rawSendJob is a signed transaction with its sender and network resolved, and the sender's sealed key: it signs
// the filler of the transaction's nonce should a node refuse the transaction for good.
type rawSendJob struct {
	tx        *types.Transaction
	from      string
	network   send.Network
	keySecret string
}

// prepareRawSend checks the transaction's chain and sender, which must be a key of the organization, and gives the
// policy engine its eth.tx: a transaction signed elsewhere is broadcast only as far as a policy allows it.
func prepareRawSend(x *execution, p *api.EthSendRawTransactionIntent, tx *types.Transaction, d *decisionRequest) (*rawSendJob, error) {
	nw, err := x.c.network(p.Caip2)
	if err != nil {
		return nil, err
	}
	if tx.ChainId() == nil || tx.ChainId().Int64() != nw.ChainID {
		return nil, apierr.Invalid("parameters.signedTransaction is signed for chain %v, not %s", tx.ChainId(), p.Caip2)
	}
	sender, err := types.LatestSignerForChainID(tx.ChainId()).Sender(tx)
	if err != nil {
		return nil, apierr.Invalid("parameters.signedTransaction: its signature does not recover a sender: %s", err.Error())
	}
	s, err := x.signer(sender.Hex())
	if err != nil {
		return nil, apierr.Invalid("parameters.signedTransaction is signed by %s, which is no wallet account or private key of this organization", sender.Hex())
	}
	if err := x.c.checkRawGas(nw, tx); err != nil {
		return nil, err
	}
	unsigned := evm.Unsigned(tx)
	facts, _, err := ethereumTx{unsigned}.prepare(s)
	if err != nil {
		return nil, err
	}
	if facts.EthTx.Call, err = x.c.contractCall(x.ctx, x.org, facts.EthTx.To, tx.Data()); err != nil {
		return nil, err
	}
	s.facts(facts)
	d.facts, d.walletID, d.moves = facts, s.groupID(), unsigned.Moves(sender)
	return &rawSendJob{tx: tx, from: strings.ToLower(sender.Hex()), network: nw, keySecret: s.keySecret}, nil
}

// checkRawGas refuses a signed transaction a node would refuse for good, which would hold its sender's nonce: its
// priority fee above its fee cap, its gas limit below what it needs before it runs, above the network's cap on one
// transaction or the latest block's gas limit the send worker read.
func (c *Coordinator) checkRawGas(nw send.Network, tx *types.Transaction) error {
	if err := evm.CheckFees(tx.GasTipCap(), tx.GasFeeCap()); err != nil {
		return apierr.Invalid("parameters.signedTransaction: %s", err.Error())
	}
	block := uint64(0)
	if networks := c.networks.Load(); networks != nil {
		block = networks.BlockGasLimit(nw.CAIP2)
	}
	need := evm.MinGas(tx.To(), tx.Value(), tx.Data(), tx.AccessList(), len(tx.SetCodeAuthorizations()))
	if err := evm.CheckGas(tx.Gas(), need, nw.GasLimits(block)); err != nil {
		return apierr.Invalid("parameters.signedTransaction: %s", err.Error())
	}
	return nil
}

// execRawSend records the signed transaction for the worker to broadcast and watch; its nonce is marked taken, so that
// the coordinator's own sends from the address go after it.
func execRawSend(x *execution, _ *api.EthSendRawTransactionIntent, j *rawSendJob) (*api.EthSendRawTransactionResult, error) {
	raw, err := j.tx.MarshalBinary()
	if err != nil {
		return nil, err
	}
	// A nonce past the address's next one would wait for the nonces between forever, and so would every send of the
	// address this server numbers after it.
	if next, found, err := x.tx.NextNonce(x.ctx, j.network.CAIP2, j.from); err != nil {
		return nil, err
	} else if found && j.tx.Nonce() > next {
		return nil, apierr.Invalid("parameters.signedTransaction: nonce %d is ahead of %s's next nonce %d: it would wait for the nonces between forever, and the address's later sends behind it",
			j.tx.Nonce(), j.from, next)
	}
	hash := j.tx.Hash().Hex()
	err = x.tx.InsertSend(x.ctx, store.Send{ID: newID(), OrgID: x.org.ID, ActivityID: x.activityID, Network: j.network.CAIP2,
		From: j.from, KeySecret: j.keySecret, Request: []byte("{}"), Status: store.SendBroadcasting, Nonce: int64(j.tx.Nonce()), TxHash: hash,
		RawTx: hexutil.Encode(raw), CreatedAt: x.now.UnixNano(), UpdatedAt: x.now.UnixNano()})
	if err != nil {
		return nil, err
	}
	if err := x.tx.UseNonce(x.ctx, j.network.CAIP2, j.from, j.tx.Nonce()); err != nil {
		return nil, err
	}
	return &api.EthSendRawTransactionResult{TransactionHash: hash}, nil
}
