package coordinator

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/evm"
	"github.com/sigil/sigil/internal/policy"
	"github.com/sigil/sigil/internal/send"
	"github.com/sigil/sigil/internal/store"
)

// The sending activities (this file, send_raw.go, send_undelegate.go): the policy engine decides them as it decides
// SIGN_TRANSACTION_V2 (each call is an eth.tx), their execution records the send in the activity's transaction, and
// the send worker (package send) signs, broadcasts and watches it after the commit. Their queries and webhook events
// are in send_status.go, the gas sponsors and their limits in gas.go.
var ethSendTransactionV2 = &Activity[api.EthSendTransactionIntentV2, *send.Request, *sendJob, api.EthSendTransactionResultV2]{
	activityInfo: newInfo(api.EthSendTransactionV2.ActivitySpec, on(resPrivateKey, actSign)),
	Check:        checkEthSend, Prepare: prepareEthSend, Execute: execEthSend,
}

const maxCallsPerSend = 50

// checkEthSend checks the parameters and parses the calls and the chosen fields.
func checkEthSend(p *api.EthSendTransactionIntentV2) (*send.Request, error) {
	if p.From == "" || !common.IsHexAddress(p.From) {
		return nil, apierr.Invalid("parameters.from must be the 0x address of a wallet account or private key, got %q", p.From)
	}
	if _, err := send.ParseCAIP2(p.Caip2); err != nil {
		return nil, apierr.Invalid("parameters.caip2: %s", err.Error())
	}
	sponsor := p.Sponsor != nil && *p.Sponsor
	if sponsor && p.Nonce != "" {
		return nil, apierr.Invalid("parameters.nonce: a sponsored send's transaction is the gas sponsor's, numbered by this server; leave it out")
	}
	if sponsor && (p.GasLimit != "" || p.MaxFeePerGas != "" || p.MaxPriorityFeePerGas != "") {
		return nil, apierr.Invalid("parameters: a sponsored send's gas and fees are its gas sponsor's, which this server sets from its own estimate within the network's cap on sponsored fees; leave out gasLimit, maxFeePerGas and maxPriorityFeePerGas")
	}
	if !sponsor && p.GasStationNonce != "" {
		return nil, apierr.Invalid("parameters.gasStationNonce applies to sponsored sends only")
	}
	if len(p.Calls) == 0 || len(p.Calls) > maxCallsPerSend {
		return nil, apierr.Invalid("parameters.calls must list between 1 and %d calls, got %d", maxCallsPerSend, len(p.Calls))
	}
	r := &send.Request{Sponsor: sponsor}
	for i, c := range p.Calls {
		call, err := parseCall(fmt.Sprintf("parameters.calls[%d]", i), c)
		if err != nil {
			return nil, err
		}
		r.Calls = append(r.Calls, call)
	}
	if err := parseTxFields(r, p.Nonce, p.GasLimit, p.MaxFeePerGas, p.MaxPriorityFeePerGas); err != nil {
		return nil, err
	}
	var err error
	if r.GasStationNonce, err = optionalUint("parameters.gasStationNonce", p.GasStationNonce); err != nil {
		return nil, err
	}
	deadline, err := optionalUint("parameters.deadline", p.Deadline)
	if err != nil {
		return nil, err
	}
	if deadline != nil {
		r.Deadline = int64(min(*deadline, 1<<62))
	}
	return r, nil
}

func parseCall(path string, c api.EthCallParams) (send.Call, error) {
	if !common.IsHexAddress(c.To) {
		return send.Call{}, apierr.Invalid("%s.to must be a 0x address, got %q", path, c.To)
	}
	value, err := optionalWei(path+".value", c.Value)
	if err != nil {
		return send.Call{}, err
	}
	var data []byte
	if c.Data != "" && c.Data != "0x" {
		if data, err = hexutil.Decode(c.Data); err != nil {
			return send.Call{}, apierr.Invalid("%s.data must be 0x-prefixed hex: %s", path, err.Error())
		}
	}
	return send.Call{To: common.HexToAddress(c.To), Value: value, Data: data}, nil
}

// parseTxFields reads the optional nonce, gas limit and fee fields a send may fix (decimal strings; empty: Sigil fills
// them).
func parseTxFields(r *send.Request, nonce, gasLimit, maxFeePerGas, maxPriorityFeePerGas string) (err error) {
	if r.Nonce, err = optionalUint("parameters.nonce", nonce); err != nil {
		return err
	}
	if r.GasLimit, err = optionalUint("parameters.gasLimit", gasLimit); err != nil {
		return err
	}
	if r.MaxFeePerGas, err = optionalWei("parameters.maxFeePerGas", maxFeePerGas); err != nil {
		return err
	}
	if r.MaxPriorityFeePerGas, err = optionalWei("parameters.maxPriorityFeePerGas", maxPriorityFeePerGas); err != nil {
		return err
	}
	if r.MaxFeePerGas != nil && r.MaxPriorityFeePerGas != nil {
		if err := evm.CheckFees(r.MaxPriorityFeePerGas.ToInt(), r.MaxFeePerGas.ToInt()); err != nil {
			return apierr.Invalid("parameters.maxPriorityFeePerGas: %s", err.Error())
		}
	}
	return nil
}

// checkGasLimit refuses a gas limit a node would refuse for good for the transaction the request sends from: below
// what it needs before it runs, above the network's cap on one transaction, or above the latest block's gas limit the
// send worker read (when it has read one; it checks again before it signs).
func (c *Coordinator) checkGasLimit(nw send.Network, from common.Address, req *send.Request) error {
	if req.GasLimit == nil {
		return nil
	}
	block := uint64(0)
	if networks := c.networks.Load(); networks != nil {
		block = networks.BlockGasLimit(nw.CAIP2)
	}
	if err := evm.CheckGas(*req.GasLimit, req.MinGas(from), nw.GasLimits(block)); err != nil {
		return apierr.Invalid("parameters.gasLimit: %s", err.Error())
	}
	return nil
}

func optionalUint(path, s string) (*uint64, error) {
	if s == "" {
		return nil, nil
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return nil, apierr.Invalid("%s must be a decimal integer, got %q", path, s)
	}
	return &n, nil
}

func optionalWei(path, s string) (*hexutil.Big, error) {
	if s == "" {
		return nil, nil
	}
	n, ok := new(big.Int).SetString(s, 10)
	if !ok || n.Sign() < 0 || n.BitLen() > 256 {
		return nil, apierr.Invalid("%s must be a decimal amount of wei, got %q", path, s)
	}
	return (*hexutil.Big)(n), nil
}

// sendJob is a send with its signer and network resolved: what the execute step records.
type sendJob struct {
	signer  *signer
	from    string // the signer's address, lower case
	network send.Network
	req     *send.Request
	// sponsorOrg is the billing organization whose gas sponsor pays a sponsored send.
	sponsorOrg string
}

// network is the configured network of a CAIP-2 id, or the 400 naming the ones there are.
func (c *Coordinator) network(caip2 string) (send.Network, error) {
	networks := c.networks.Load()
	if networks == nil {
		return send.Network{}, apierr.Invalid("parameters.caip2: unknown network %q: this server has no network to send on", caip2)
	}
	nw, err := networks.Get(caip2)
	if err != nil {
		return send.Network{}, apierr.Invalid("parameters.caip2: %s", err.Error())
	}
	return nw, nil
}

// prepareEthSend resolves the signer and the network, and gives the policy engine each call as the eth.tx of the
// transaction that would carry it (with the nonce and fee fields the caller chose, zero for the others).
func prepareEthSend(x *execution, p *api.EthSendTransactionIntentV2, req *send.Request, d *decisionRequest) (*sendJob, error) {
	nw, err := x.c.network(p.Caip2)
	if err != nil {
		return nil, err
	}
	if req.Deadline != 0 && x.now.Unix() > req.Deadline {
		return nil, apierr.Invalid("parameters.deadline (%s) has passed", time.Unix(req.Deadline, 0).UTC().Format(time.RFC3339))
	}
	s, err := x.signer(p.From)
	if err != nil {
		return nil, apierr.Invalid("parameters.from: no wallet account or private key %s in this organization", p.From)
	}
	from, err := s.ethereumAddress()
	if err != nil {
		return nil, err
	}
	if err := x.c.checkGasLimit(nw, common.HexToAddress(from), req); err != nil {
		return nil, err
	}
	for i, call := range req.Calls {
		facts, err := x.callFacts(s, nw, req, call, d)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			d.facts = facts
		} else {
			d.moreFacts = append(d.moreFacts, facts)
		}
	}
	d.walletID = s.groupID()
	j := &sendJob{signer: s, from: strings.ToLower(from), network: nw, req: req}
	if req.Sponsor {
		var err error
		if j.sponsorOrg, err = x.sponsoringOrg(); err != nil {
			return nil, err
		}
	}
	return j, nil
}

// callFacts is what the policy engine reads of one call, as eth.tx, and the assets it moves for velocity controls.
func (x *execution) callFacts(s *signer, nw send.Network, req *send.Request, call send.Call, d *decisionRequest) (*policy.Input, error) {
	tx := &types.DynamicFeeTx{ChainID: big.NewInt(nw.ChainID), To: &call.To, Value: new(big.Int), Data: call.Data,
		GasTipCap: new(big.Int), GasFeeCap: new(big.Int)}
	if call.Value != nil {
		tx.Value = call.Value.ToInt()
	}
	if req.Nonce != nil {
		tx.Nonce = *req.Nonce
	}
	if req.GasLimit != nil {
		tx.Gas = *req.GasLimit
	}
	if req.MaxFeePerGas != nil {
		tx.GasFeeCap = req.MaxFeePerGas.ToInt()
	}
	if req.MaxPriorityFeePerGas != nil {
		tx.GasTipCap = req.MaxPriorityFeePerGas.ToInt()
	}
	unsigned := evm.NewDynamicFeeTx(tx)
	facts, _, err := ethereumTx{unsigned}.prepare(s)
	if err != nil {
		return nil, err
	}
	if facts.EthTx.Call, err = x.c.contractCall(x.ctx, x.org, facts.EthTx.To, call.Data); err != nil {
		return nil, err
	}
	s.facts(facts)
	d.moves.Add(unsigned.Moves(common.HexToAddress(facts.EthTx.From)))
	return facts, nil
}

// execEthSend records the send for the worker, in the activity's transaction: the activity and its send exist
// together or not at all, and an activity sends once.
func execEthSend(x *execution, _ *api.EthSendTransactionIntentV2, j *sendJob) (*api.EthSendTransactionResultV2, error) {
	if j.req.Sponsor && (j.network.GasStation == (common.Address{}) || j.network.BatchDelegate == (common.Address{})) {
		return nil, apierr.New(apierr.FailedPrecondition, "SPONSORSHIP_NOT_SUPPORTED",
			"parameters.sponsor: every call is allowed, but %s has no gas station configured; send with sponsor false", j.network.CAIP2)
	}
	if len(j.req.Calls) > 1 && j.network.BatchDelegate == (common.Address{}) {
		return nil, apierr.New(apierr.FailedPrecondition, "BATCH_NOT_SUPPORTED",
			"parameters.calls: every call is allowed, but several calls run as one EIP-7702 batch, and %s has no batch delegate configured; send them one by one", j.network.CAIP2)
	}
	id, err := x.recordSend(j)
	if err != nil {
		return nil, err
	}
	return &api.EthSendTransactionResultV2{SendTransactionStatusID: id}, nil
}

// recordSend records a send the worker signs, in the activity's transaction, and returns its id.
func (x *execution) recordSend(j *sendJob) (string, error) {
	id := newID()
	return id, x.tx.InsertSend(x.ctx, store.Send{ID: id, OrgID: x.org.ID, ActivityID: x.activityID, Network: j.network.CAIP2,
		From: j.from, KeySecret: j.signer.keySecret, Request: j.req.Encode(), Status: store.SendInitialized, Nonce: -1,
		CreatedAt: x.now.UnixNano(), UpdatedAt: x.now.UnixNano(), SponsorOrg: j.sponsorOrg})
}

// customError decodes a custom error with the interface the organization uploaded for the reverting address.
func (c *Coordinator) customError(ctx context.Context, orgID, address string, data []byte) (string, string, bool) {
	org, err := c.loadOrg(ctx, orgID)
	if err != nil {
		return "", "", false
	}
	ci := org.interfaceFor(address, api.InterfaceTypeEthereum)
	if ci == nil {
		return "", "", false
	}
	pi, err := c.parsedInterface(ctx, ci)
	if err != nil {
		return "", "", false
	}
	e, err := evm.DecodeError(pi.abi, data)
	if err != nil {
		return "", "", false
	}
	params, err := json.Marshal(e.Args)
	if err != nil {
		return "", "", false
	}
	return e.FunctionName, string(params), true
}

// RunSends runs this process's send worker until ctx ends: it signs, broadcasts and watches the sends of every
// configured network. Any number of processes may run one over the same database.
func (c *Coordinator) RunSends(ctx context.Context) error {
	networks := c.networks.Load()
	if networks == nil {
		return nil
	}
	w := send.NewWorker(send.Config{Store: c.store, Networks: networks, OpenKey: c.openSecret, CustomErrors: c.customError, Sponsor: c.gasSponsor, SolanaSponsor: c.solanaSponsor,
		SponsorLimits: c.sponsorLimits, Changed: c.enqueueSendUpdate, Committed: c.notifyWebhooks, GiveUp: c.cfg.SendGiveUp, Lease: c.cfg.SendLease,
		Now: c.cfg.Now, Logger: c.cfg.Logger})
	c.sendWorker.Store(w)
	defer c.sendWorker.Store(nil)
	return w.Run(ctx)
}

// UseNetworks replaces the networks the coordinator sends on (Config.Networks), before RunSends starts: for a
// network, such as a dev chain, that starts after the coordinator was made.
func (c *Coordinator) UseNetworks(n *send.Networks) { c.networks.Store(n) }

// wakeSends tells this process's send worker that an activity recorded a send.
func (c *Coordinator) wakeSends(rec *record) {
	switch rec.Type {
	case ethSendTransactionV2.Type, ethSendRawTransaction.Type, ethUndelegate7702.Type, solSendTransactionV2.Type, solSendTransaction.Type:
	case executeSwapV2.Type, executeSwapV3.Type, claimSwapFees.Type: // swaps send too
	default:
		return
	}
	if rec.Status != api.StatusCompleted {
		return
	}
	if w := c.sendWorker.Load(); w != nil {
		w.Wake()
	}
}
