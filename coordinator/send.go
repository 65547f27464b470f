package coordinator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/holiman/uint256"

	"sigil/api"
	"sigil/apierr"
	"sigil/evm"
	"sigil/keys"
	"sigil/policy"
	"sigil/send"
	"sigil/store"
)

// The sending activities: the policy engine decides them as it decides SIGN_TRANSACTION_V2 (each call is an eth.tx),
// their execution records the send in the activity's transaction, and the send worker (package send) signs,
// broadcasts and watches it after the commit.
var (
	ethSendTransactionV2 = &Activity[api.EthSendTransactionIntentV2, *send.Request, *sendJob, api.EthSendTransactionResultV2]{
		activityInfo: newInfo(api.EthSendTransactionV2.ActivitySpec, on(resPrivateKey, actSign)),
		Check:        checkEthSend, Prepare: prepareEthSend, Execute: execEthSend,
	}
	ethUndelegate7702 = &Activity[api.EthUndelegate7702Intent, *send.Request, *sendJob, api.EthUndelegate7702Result]{
		activityInfo: newInfo(api.EthUndelegate7702.ActivitySpec, on(resPrivateKey, actSign)),
		Check:        checkUndelegate, Prepare: prepareUndelegate, Execute: execUndelegate,
	}
	ethSendRawTransaction = &Activity[api.EthSendRawTransactionIntent, *types.Transaction, *rawSendJob, api.EthSendRawTransactionResult]{
		activityInfo: newInfo(api.EthSendRawTransaction.ActivitySpec, on(resPrivateKey, actSign)),
		Check:        checkRawSend, Prepare: prepareRawSend, Execute: execRawSend,
	}

	getSendTransactionStatus = query(api.GetSendTransactionStatus, queryGetSendTransactionStatus)
	getNonces                = query(api.GetNonces, queryGetNonces)
)

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
	var err error
	if r.Nonce, err = optionalUint("parameters.nonce", p.Nonce); err != nil {
		return nil, err
	}
	if r.GasLimit, err = optionalUint("parameters.gasLimit", p.GasLimit); err != nil {
		return nil, err
	}
	if r.MaxFeePerGas, err = optionalWei("parameters.maxFeePerGas", p.MaxFeePerGas); err != nil {
		return nil, err
	}
	if r.MaxPriorityFeePerGas, err = optionalWei("parameters.maxPriorityFeePerGas", p.MaxPriorityFeePerGas); err != nil {
		return nil, err
	}
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
	s, err := x.org.signer(p.From)
	if err != nil {
		return nil, apierr.Invalid("parameters.from: no wallet account or private key %s in this organization", p.From)
	}
	from, err := s.ethereumAddress()
	if err != nil {
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
		billing, err := x.c.billingOrg(x.ctx, x.org)
		if err != nil {
			return nil, err
		}
		if err := x.c.checkGasLimit(x.ctx, x.org); err != nil {
			return nil, err
		}
		j.sponsorOrg = billing.ID
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
	d.transfers = append(d.transfers, unsigned.Transfers()...)
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

// checkUndelegate checks the parameters and parses the chosen fields.
func checkUndelegate(p *api.EthUndelegate7702Intent) (*send.Request, error) {
	if !common.IsHexAddress(p.From) {
		return nil, apierr.Invalid("parameters.from must be the 0x address of a wallet account or private key, got %q", p.From)
	}
	if _, err := send.ParseCAIP2(p.Caip2); err != nil {
		return nil, apierr.Invalid("parameters.caip2: %s", err.Error())
	}
	r := &send.Request{Undelegate: true}
	var err error
	if r.Nonce, err = optionalUint("parameters.nonce", p.Nonce); err != nil {
		return nil, err
	}
	if r.GasLimit, err = optionalUint("parameters.gasLimit", p.GasLimit); err != nil {
		return nil, err
	}
	if r.MaxFeePerGas, err = optionalWei("parameters.maxFeePerGas", p.MaxFeePerGas); err != nil {
		return nil, err
	}
	if r.MaxPriorityFeePerGas, err = optionalWei("parameters.maxPriorityFeePerGas", p.MaxPriorityFeePerGas); err != nil {
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
	s, err := x.org.signer(p.From)
	if err != nil {
		return nil, apierr.Invalid("parameters.from: no wallet account or private key %s in this organization", p.From)
	}
	from, err := s.ethereumAddress()
	if err != nil {
		return nil, err
	}
	account := common.HexToAddress(from)
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

// recordSend records a send the worker signs, in the activity's transaction, and returns its id.
func (x *execution) recordSend(j *sendJob) (string, error) {
	id := newID()
	return id, x.tx.InsertSend(x.ctx, store.Send{ID: id, OrgID: x.org.ID, ActivityID: x.activityID, Network: j.network.CAIP2,
		From: j.from, KeySecret: j.signer.keySecret, Request: j.req.Encode(), Status: store.SendInitialized, Nonce: -1,
		CreatedAt: x.now.UnixNano(), UpdatedAt: x.now.UnixNano(), SponsorOrg: j.sponsorOrg})
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

// rawSendJob is a signed transaction with its sender and network resolved.
type rawSendJob struct {
	tx      *types.Transaction
	from    string
	network send.Network
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
	s, err := x.org.signer(sender.Hex())
	if err != nil {
		return nil, apierr.Invalid("parameters.signedTransaction is signed by %s, which is no wallet account or private key of this organization", sender.Hex())
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
	d.facts, d.walletID, d.transfers = facts, s.groupID(), unsigned.Transfers()
	return &rawSendJob{tx: tx, from: strings.ToLower(sender.Hex()), network: nw}, nil
}

// execRawSend records the signed transaction for the worker to broadcast and watch; its nonce is marked taken, so that
// the coordinator's own sends from the address go after it.
func execRawSend(x *execution, _ *api.EthSendRawTransactionIntent, j *rawSendJob) (*api.EthSendRawTransactionResult, error) {
	raw, err := j.tx.MarshalBinary()
	if err != nil {
		return nil, err
	}
	hash := j.tx.Hash().Hex()
	err = x.tx.InsertSend(x.ctx, store.Send{ID: newID(), OrgID: x.org.ID, ActivityID: x.activityID, Network: j.network.CAIP2,
		From: j.from, Request: []byte("{}"), Status: store.SendBroadcasting, Nonce: int64(j.tx.Nonce()), TxHash: hash,
		RawTx: hexutil.Encode(raw), CreatedAt: x.now.UnixNano(), UpdatedAt: x.now.UnixNano()})
	if err != nil {
		return nil, err
	}
	if err := x.tx.UseNonce(x.ctx, j.network.CAIP2, j.from, j.tx.Nonce()); err != nil {
		return nil, err
	}
	return &api.EthSendRawTransactionResult{TransactionHash: hash}, nil
}

// queryGetSendTransactionStatus reads a send of the organization: by the id ETH_SEND_TRANSACTION gave, or by the
// transaction hash ETH_SEND_RAW_TRANSACTION gave.
func queryGetSendTransactionStatus(r *reader, q *api.GetSendTransactionStatusRequest) (*api.GetSendTransactionStatusResponse, error) {
	var s store.Send
	var err error
	if strings.HasPrefix(q.SendTransactionStatusID, "0x") {
		s, err = r.c.store.SendByHash(r.ctx, r.org.ID, strings.ToLower(q.SendTransactionStatusID))
	} else {
		if err := checkID("sendTransactionStatusId", q.SendTransactionStatusID); err != nil {
			return nil, err
		}
		s, err = r.c.store.SendByID(r.ctx, r.org.ID, q.SendTransactionStatusID)
	}
	if errors.Is(err, store.ErrNotFound) {
		return nil, apierr.NotFoundf("send transaction status %s not found in organization %s", q.SendTransactionStatusID, r.org.ID)
	}
	if err != nil {
		return nil, err
	}
	return send.Status(s), nil
}

// queryGetNonces is the next nonce of an address of the organization: the larger of the chain's pending count and the
// coordinator's own next one (which is ahead while its sends wait to be broadcast).
func queryGetNonces(r *reader, q *api.GetNoncesRequest) (*api.GetNoncesResponse, error) {
	nw, err := r.c.network(q.Caip2)
	if err != nil {
		return nil, err
	}
	s, err := r.org.signer(q.Address)
	if err != nil {
		return nil, apierr.Invalid("address: no wallet account or private key %s in this organization", q.Address)
	}
	from, err := s.ethereumAddress()
	if err != nil {
		return nil, err
	}
	out := &api.GetNoncesResponse{}
	ctx, cancel := context.WithTimeout(r.ctx, 10*time.Second)
	defer cancel()
	cl, err := ethclient.DialContext(ctx, nw.RPCURL)
	if err != nil {
		return nil, apierr.New(apierr.Unavailable, "NETWORK_UNAVAILABLE", "%s: %s", nw.CAIP2, err.Error())
	}
	defer cl.Close()
	if q.GasStationNonce != nil && *q.GasStationNonce {
		slot, err := cl.StorageAt(ctx, common.HexToAddress(from), send.NonceSlot, nil)
		if err != nil {
			return nil, apierr.New(apierr.Unavailable, "NETWORK_UNAVAILABLE", "%s: the node did not answer: %s", nw.CAIP2, err.Error())
		}
		out.GasStationNonce = new(big.Int).SetBytes(slot).String()
	}
	if q.Nonce != nil && !*q.Nonce {
		return out, nil
	}
	chain, err := cl.PendingNonceAt(ctx, common.HexToAddress(from))
	if err != nil {
		return nil, apierr.New(apierr.Unavailable, "NETWORK_UNAVAILABLE", "%s: the node did not answer: %s", nw.CAIP2, err.Error())
	}
	ours, _, err := r.c.store.NextNonce(ctx, nw.CAIP2, strings.ToLower(from))
	if err != nil {
		return nil, err
	}
	out.Nonce = strconv.FormatUint(max(chain, ours), 10)
	return out, nil
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
	w := send.NewWorker(send.Config{Store: c.store, Networks: networks, OpenKey: c.openSecret, CustomErrors: c.customError, Sponsor: c.gasSponsor,
		Changed: c.enqueueSendUpdate, Committed: c.notifyWebhooks, GiveUp: c.cfg.SendGiveUp, Now: c.cfg.Now, Logger: c.cfg.Logger})
	c.sendWorker.Store(w)
	defer c.sendWorker.Store(nil)
	return w.Run(ctx)
}

// gasSponsor is an organization's gas sponsor: a secp256k1 key sealed like every key (a secret row of the
// organization, named after it, so every process finds the same one), created on first use and then funded by
// Config.FundSponsor when there is one (the dev chain's faucet).
func (c *Coordinator) gasSponsor(ctx context.Context, orgID string) (string, common.Address, error) {
	id := "gas-sponsor/" + orgID
	key, err := c.openSecret(ctx, id)
	created := false
	if errors.Is(err, store.ErrNotFound) {
		key, created, err = c.createGasSponsor(ctx, orgID, id)
	}
	if err != nil {
		return "", common.Address{}, err
	}
	defer keys.Zero(key)
	pub, err := keys.PublicKey(keys.CurveSecp256k1, key)
	if err != nil {
		return "", common.Address{}, err
	}
	hexAddress, err := keys.Address(keys.CurveSecp256k1, keys.AddressFormatEthereum, pub)
	if err != nil {
		return "", common.Address{}, err
	}
	address := common.HexToAddress(hexAddress)
	if created && c.cfg.FundSponsor != nil {
		if err := c.cfg.FundSponsor(ctx, address); err != nil {
			c.cfg.Logger.Warn("fund the gas sponsor", "organization", orgID, "address", address.Hex(), "err", err)
		}
	}
	return id, address, nil
}

func (c *Coordinator) createGasSponsor(ctx context.Context, orgID, id string) ([]byte, bool, error) {
	k, err := crypto.GenerateKey()
	if err != nil {
		return nil, false, err
	}
	key := k.D.FillBytes(make([]byte, 32))
	blob, err := c.vault.seal(id, key)
	if err != nil {
		return nil, false, err
	}
	err = c.store.Write(ctx, func(tx *store.Tx) error {
		return tx.PutSecret(ctx, store.Secret{ID: id, OrgID: orgID, Blob: blob, CreatedAt: c.now().UnixNano()})
	})
	if err != nil {
		// Another process created it first: use theirs.
		keys.Zero(key)
		key, err = c.openSecret(ctx, id)
		return key, false, err
	}
	return key, true, nil
}

// UseNetworks replaces the networks the coordinator sends on (Config.Networks), before RunSends starts: for a
// network, such as a dev chain, that starts after the coordinator was made.
func (c *Coordinator) UseNetworks(n *send.Networks) { c.networks.Store(n) }

// wakeSends tells this process's send worker that an activity recorded a send.
func (c *Coordinator) wakeSends(rec *record) {
	if rec.Status != api.StatusCompleted || (rec.Type != ethSendTransactionV2.Type && rec.Type != ethSendRawTransaction.Type && rec.Type != ethUndelegate7702.Type) {
		return
	}
	if w := c.sendWorker.Load(); w != nil {
		w.Wake()
	}
}

// sendEvent is the body of a SEND_TRANSACTION_STATUS_UPDATES delivery: the send's status as
// get_send_transaction_status gives it, with what names the send.
type sendEvent struct {
	Type                    string `json:"type"`
	OrganizationID          string `json:"organizationId"`
	SendTransactionStatusID string `json:"sendTransactionStatusId"`
	ActivityID              string `json:"activityId"`
	Network                 string `json:"network"`
	From                    string `json:"from"`
	*api.GetSendTransactionStatusResponse
}

// sendStatusOrder numbers a send's statuses in the order it passes through them.
func sendStatusOrder(status string) int64 {
	switch status {
	case store.SendInitialized:
		return 1
	case store.SendBroadcasting:
		return 2
	}
	return 3
}

// enqueueSendUpdate writes a send's new status into the outbox for every endpoint of its organization (or the
// parent's) subscribed to SEND_TRANSACTION_STATUS_UPDATES whose networks and addresses filters hold it, in the
// transaction that moves the send. The event id is the send and its status; the subject is the send, so its updates
// arrive in order.
func (c *Coordinator) enqueueSendUpdate(ctx context.Context, tx *store.Tx, s store.Send) error {
	org, err := c.loadOrg(ctx, s.OrgID)
	if errors.Is(err, errOrgNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	endpoints, err := c.listeners(ctx, org)
	if err != nil || len(endpoints) == 0 {
		return err
	}
	var body []byte
	var ds []store.WebhookDelivery
	now := c.now().UnixNano()
	for _, e := range endpoints {
		if !e.wantsSend(s) {
			continue
		}
		if body == nil {
			ev := sendEvent{Type: api.WebhookSendTransactionUpdates, OrganizationID: s.OrgID, SendTransactionStatusID: s.ID,
				ActivityID: s.ActivityID, Network: s.Network, From: s.From, GetSendTransactionStatusResponse: send.Status(s)}
			if body, err = json.Marshal(ev); err != nil {
				return err
			}
		}
		ds = append(ds, store.WebhookDelivery{ID: newID(), EventID: s.ID + ":" + s.Status, EndpointID: e.ID, OrgID: s.OrgID, URL: e.URL,
			EventType: api.WebhookSendTransactionUpdates, Subject: "send:" + s.ID, Sequence: sendStatusOrder(s.Status), Body: body, CreatedAt: now})
	}
	return tx.EnqueueWebhookDeliveries(ctx, ds)
}

// wantsSend reports whether the endpoint receives a send's status updates.
func (e *WebhookEndpoint) wantsSend(s store.Send) bool {
	if !e.Active {
		return false
	}
	for _, sub := range e.Subscriptions {
		if sub.Active && sub.EventType == api.WebhookSendTransactionUpdates && sub.Filters.matchesBalance(s.Network, s.From) &&
			inFilter(sub.Filters.OrganizationIDs, s.OrgID) {
			return true
		}
	}
	return false
}
