package coordinator

import (
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/holiman/uint256"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/evm"
	"github.com/sigil/sigil/internal/policy"
	"github.com/sigil/sigil/internal/send"
)

// ETH_UNDELEGATE_7702: an account's EIP-7702 delegation removed by a send of its own, decided like the sends.
var ethUndelegate7702 = &Activity[api.EthUndelegate7702Intent, *send.Request, *sendJob, api.EthUndelegate7702Result]{
	activityInfo: newInfo(api.EthUndelegate7702.ActivitySpec, on(resPrivateKey, actSign)),
	Check:        checkUndelegate, Prepare: prepareUndelegate, Execute: execUndelegate,
}

// checkUndelegate checks the parameters and parses the chosen fields.
func checkUndelegate(p *api.EthUndelegate7702Intent) (*send.Request, error) {
	if !common.IsHexAddress(p.From) {
		return nil, apierr.Invalid("parameters.from must be the 0x address of a wallet account or private key, got %q", p.From)
	}
	if _, err := send.ParseCAIP2(p.Caip2); err != nil {
		return nil, apierr.Invalid("parameters.caip2: %s", err.Error())
	}
	r := &send.Request{Undelegate: true}
	if err := parseTxFields(r, p.Nonce, p.GasLimit, p.MaxFeePerGas, p.MaxPriorityFeePerGas); err != nil {
		return nil, err
	}
	return r, nil
}

// prepareUndelegate resolves the signer and the network and gives the policy engine the transaction that removes the
// delegation: eth.tx of a type-4 transaction from the account to itself, and eth.eip_7702_authorization delegating to
// the zero address on the network's chain (its nonce that of the caller's nonce after the transaction's own, or 0
// when Sigil numbers the transaction).
func prepareUndelegate(x *execution, p *api.EthUndelegate7702Intent, req *send.Request, d *decisionRequest) (*sendJob, error) {
	nw, err := x.c.network(p.Caip2)
	if err != nil {
		return nil, err
	}
	s, err := x.signer(p.From)
	if err != nil {
		return nil, apierr.Invalid("parameters.from: no wallet account or private key %s in this organization", p.From)
	}
	from, err := s.ethereumAddress()
	if err != nil {
		return nil, err
	}
	account := common.HexToAddress(from)
	if err := x.c.checkGasLimit(nw, account, req); err != nil {
		return nil, err
	}
	auth := types.SetCodeAuthorization{ChainID: *uint256.NewInt(uint64(nw.ChainID))}
	tx := &types.SetCodeTx{ChainID: uint256.NewInt(uint64(nw.ChainID)), To: account, Value: new(uint256.Int), GasTipCap: new(uint256.Int),
		GasFeeCap: new(uint256.Int)}
	if req.Nonce != nil {
		tx.Nonce, auth.Nonce = *req.Nonce, *req.Nonce+1
	}
	tx.AuthList = []types.SetCodeAuthorization{auth}
	if req.GasLimit != nil {
		tx.Gas = *req.GasLimit
	}
	if req.MaxFeePerGas != nil {
		tx.GasFeeCap = uint256.MustFromBig(req.MaxFeePerGas.ToInt())
	}
	if req.MaxPriorityFeePerGas != nil {
		tx.GasTipCap = uint256.MustFromBig(req.MaxPriorityFeePerGas.ToInt())
	}
	facts, _, err := ethereumTx{evm.NewSetCodeTx(tx)}.prepare(s)
	if err != nil {
		return nil, err
	}
	facts.EIP7702Authorization = &policy.EIP7702Authorization{Address: strings.ToLower(common.Address{}.Hex()), ChainID: big.NewInt(nw.ChainID),
		Nonce: new(big.Int).SetUint64(auth.Nonce)}
	s.facts(facts)
	d.facts, d.walletID = facts, s.groupID()
	return &sendJob{signer: s, from: strings.ToLower(from), network: nw, req: req}, nil
}

// execUndelegate records the send for the worker, as execEthSend does.
func execUndelegate(x *execution, _ *api.EthUndelegate7702Intent, j *sendJob) (*api.EthUndelegate7702Result, error) {
	id, err := x.recordSend(j)
	if err != nil {
		return nil, err
	}
	return &api.EthUndelegate7702Result{SendTransactionStatusID: id}, nil
}
