package coordinator

import (
	"context"
	"errors"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/abis"
	"github.com/sigil/sigil/internal/earn"
	"github.com/sigil/sigil/internal/evm"
	"github.com/sigil/sigil/internal/policy"
	"github.com/sigil/sigil/internal/send"
	"github.com/sigil/sigil/internal/store"
)

// Earn (this file, earn_queries.go): fee wrappers in front of the catalogue's vaults (internal/earn), deployed,
// deposited into, withdrawn from and claimed from server-side. Every transaction is an ETH_SEND_TRANSACTION of the
// activity's wallet, built here and handed to the send path as that activity would be (checkEthSend, prepareEthSend,
// execEthSend): the policy engine decides each call as eth.tx, velocity controls measure what it moves (a deposit's
// approval moves the asset), the approval and the deposit run as one EIP-7702 batch, and sponsorship, nonces, status
// webhooks and reverts are the send path's. What an activity needs from the chain (balances, share balances, claimable
// fees and rewards, the factory's addresses) is read by its Read step before its transaction, never under a lock.
// The organization's wrappers and Earn requests are rows of their own (earn_wrappers, earn_requests); a request's
// status is its send's.
var (
	earnDeployWrapper = &Activity[api.EarnDeployWrapperIntent, *earnDeployPlan, *earnDeployJob, api.EarnDeployWrapperResult]{
		activityInfo: newInfo(api.EarnDeployWrapper.ActivitySpec, on(resPrivateKey, actSign, policy.ParamVaultAddress,
			policy.ParamChainCAIP2, policy.ParamClientFeeBps, policy.ParamClientFeeWallet)),
		Check: checkEarnDeploy, Read: readEarnDeploy, Prepare: prepareEarnDeploy, Execute: execEarnDeploy,
	}
	earnSetWrapperState = activity(api.EarnSetWrapperState, on(resOrganization, actUpdate, policy.ParamWrapperAddress,
		policy.ParamDepositsDisabled), validateEarnSetWrapperState, execEarnSetWrapperState)
	earnDeposit = &Activity[api.EarnDepositIntent, *earnPlan, *earnSend, api.EarnDepositResult]{
		activityInfo: newInfo(api.EarnDeposit.ActivitySpec, on(resPrivateKey, actSign, policy.ParamWrapperAddress, policy.ParamSignWith,
			policy.ParamAssets, policy.ParamChainCAIP2, policy.ParamSponsor)),
		Check: checkEarnDeposit, Read: readEarnDeposit, Prepare: prepareEarnPlan[api.EarnDepositIntent],
		Execute: func(x *execution, _ *api.EarnDepositIntent, s *earnSend) (*api.EarnDepositResult, error) {
			id, err := x.execEarnSend(s)
			return &api.EarnDepositResult{DepositRequestID: id}, err
		},
	}
	earnWithdraw = &Activity[api.EarnWithdrawIntent, *earnPlan, *earnSend, api.EarnWithdrawResult]{
		activityInfo: newInfo(api.EarnWithdraw.ActivitySpec, on(resPrivateKey, actSign, policy.ParamWrapperAddress, policy.ParamSignWith,
			policy.ParamChainCAIP2, policy.ParamSponsor, policy.ParamAmountValue)),
		Check: checkEarnWithdraw, Read: readEarnWithdraw, Prepare: prepareEarnPlan[api.EarnWithdrawIntent],
		Execute: func(x *execution, _ *api.EarnWithdrawIntent, s *earnSend) (*api.EarnWithdrawResult, error) {
			id, err := x.execEarnSend(s)
			return &api.EarnWithdrawResult{WithdrawRequestID: id}, err
		},
	}
	earnClaimRewards = &Activity[api.EarnClaimRewardsIntent, *earnPlan, *earnSend, api.EarnClaimRewardsResult]{
		activityInfo: newInfo(api.EarnClaimRewards.ActivitySpec, on(resPrivateKey, actSign, policy.ParamSignWith, policy.ParamChainCAIP2,
			policy.ParamSponsor)),
		Check: checkEarnClaimRewards, Read: readEarnClaimRewards, Prepare: prepareEarnPlan[api.EarnClaimRewardsIntent],
		Execute: func(x *execution, _ *api.EarnClaimRewardsIntent, s *earnSend) (*api.EarnClaimRewardsResult, error) {
			id, err := x.execEarnSend(s)
			return &api.EarnClaimRewardsResult{ClaimRequestID: id}, err
		},
	}
	claimEarnFees = &Activity[api.ClaimEarnFeesIntent, *earnPlan, *earnSend, api.ClaimEarnFeesResult]{
		activityInfo: newInfo(api.ClaimEarnFees.ActivitySpec, on(resPrivateKey, actSign, policy.ParamWrapperAddress)),
		Check:        checkClaimEarnFees, Read: readClaimEarnFees, Prepare: prepareEarnPlan[api.ClaimEarnFeesIntent],
		Execute: func(x *execution, _ *api.ClaimEarnFeesIntent, s *earnSend) (*api.ClaimEarnFeesResult, error) {
			id, err := x.execEarnSend(s)
			return &api.ClaimEarnFeesResult{ClaimRequestID: id}, err
		},
	}
)

// UseEarn sets the Earn catalogue: the networks Earn runs on and their curated vaults (nil: Earn is off, and its
// activities say so).
func (c *Coordinator) UseEarn(cat *earn.Catalogue) { c.earn.Store(cat) }

// earnNetwork is the Earn deployment of a CAIP-2 id with the network the coordinator sends on there, or the 400
// naming the networks Earn runs on.
func (c *Coordinator) earnNetwork(path, caip2 string) (*earn.Network, send.Network, error) {
	cat := c.earn.Load()
	en, ok := cat.Network(caip2)
	if !ok {
		var ids []string
		if cat != nil {
			for _, n := range cat.Networks {
				ids = append(ids, n.CAIP2)
			}
		}
		if len(ids) == 0 {
			return nil, send.Network{}, apierr.Invalid("%s: Earn runs on no network of this server", path)
		}
		return nil, send.Network{}, apierr.Invalid("%s: %q is not a network Earn runs on here (%s)", path, caip2, strings.Join(ids, ", "))
	}
	nw, err := c.network(caip2)
	if err != nil {
		return nil, send.Network{}, apierr.Invalid("%s: %q: this server does not send on it", path, caip2)
	}
	return en, nw, nil
}

// earnClients are JSON-RPC clients by node URL, shared by every read of Earn's.
var earnClients sync.Map // string -> *rpc.Client

// chainClient is the JSON-RPC client of a network's node.
func chainClient(nw send.Network) (*rpc.Client, error) {
	if cl, ok := earnClients.Load(nw.RPCURL); ok {
		return cl.(*rpc.Client), nil
	}
	cl, err := rpc.Dial(nw.RPCURL)
	if err != nil {
		return nil, apierr.New(apierr.Unavailable, "NETWORK_UNAVAILABLE", "%s: %s", nw.CAIP2, err.Error())
	}
	actual, loaded := earnClients.LoadOrStore(nw.RPCURL, cl)
	if loaded {
		cl.Close()
	}
	return actual.(*rpc.Client), nil
}

// earnReadTimeout bounds what one request reads from a network's node.
const earnReadTimeout = 10 * time.Second

// parentOnly refuses a management operation in a sub-organization, as the reference does.
func parentOnly(org *Org) error {
	if org.ParentID != "" {
		return apierr.Denied("this endpoint is only callable by a parent organization")
	}
	return nil
}

// parseEarnAmount reads a positive amount of base units (a decimal string under 2^256).
func parseEarnAmount(path, s string) (*big.Int, error) {
	n, ok := new(big.Int).SetString(s, 10)
	switch {
	case !ok || strings.HasPrefix(s, "+"):
		return nil, apierr.Invalid("%s must be a decimal amount in base units of the asset (for example \"1000000\" for 1 USDC), got %q", path, s)
	case n.Sign() <= 0:
		return nil, apierr.Invalid("%s must be more than zero, got %q", path, s)
	case n.BitLen() > 256:
		return nil, apierr.Invalid("%s is more than any token can hold, got %q", path, s)
	}
	return n, nil
}

func checkAddress(path, s string) error {
	if !common.IsHexAddress(s) {
		return apierr.Invalid("%s must be a 0x address, got %q", path, s)
	}
	return nil
}

func checkChain(path, s string) error {
	if _, err := send.ParseCAIP2(s); err != nil {
		return apierr.Invalid("%s: %s", path, err.Error())
	}
	return nil
}

func lower(addr common.Address) string { return strings.ToLower(addr.Hex()) }

// earnWallet is a wallet account or private key of the organization that signs an Earn transaction, by its address.
func earnWallet(r *reading, path, address string) (common.Address, error) {
	s, err := r.c.signer(r.ctx, r.db, r.org, address)
	var apiErr *apierr.Error
	if errors.As(err, &apiErr) {
		return common.Address{}, apierr.Invalid("%s: no wallet account or private key %s in this organization", path, address)
	}
	if err != nil {
		return common.Address{}, err
	}
	from, err := s.ethereumAddress()
	if err != nil {
		return common.Address{}, apierr.Invalid("%s: %s is not an Ethereum address of this organization", path, address)
	}
	return common.HexToAddress(from), nil
}

// earnPlan is what an Earn activity that moves funds will send, once read: from which wallet, the calls, the
// request it records.
type earnPlan struct {
	from    common.Address
	caip2   string
	sponsor bool
	calls   []earn.Call
	request store.EarnRequest
}

// earnSend is a plan resolved for the send path.
type earnSend struct {
	intent  *api.EthSendTransactionIntentV2
	job     *sendJob
	request store.EarnRequest
}

// prepareEarnPlan gives the send path the plan's calls as an ETH_SEND_TRANSACTION of the wallet: it decides them as
// every send is decided.
func prepareEarnPlan[P any](x *execution, _ *P, p *earnPlan, d *decisionRequest) (*earnSend, error) {
	if p == nil {
		return nil, apierr.New(apierr.Internal, "INTERNAL", "the activity was not read before it was prepared")
	}
	intent := &api.EthSendTransactionIntentV2{From: p.from.Hex(), Caip2: p.caip2, Sponsor: &p.sponsor}
	for _, c := range p.calls {
		intent.Calls = append(intent.Calls, api.EthCallParams{To: c.To.Hex(), Data: hexutil.Encode(c.Data)})
	}
	req, err := checkEthSend(intent)
	if err != nil {
		return nil, err
	}
	job, err := prepareEthSend(x, intent, req, d)
	if err != nil {
		return nil, err
	}
	return &earnSend{intent: intent, job: job, request: p.request}, nil
}

// execEarnSend records the send and the Earn request that names it, in the activity's transaction, and returns the
// request's id.
func (x *execution) execEarnSend(s *earnSend) (string, error) {
	res, err := execEthSend(x, s.intent, s.job)
	if err != nil {
		return "", err
	}
	r := s.request
	r.OrgID, r.ID, r.SendID, r.CreatedAt = x.org.ID, newID(), res.SendTransactionStatusID, x.now.UnixNano()
	r.Wallet = s.job.from
	if err := x.tx.InsertEarnRequest(x.ctx, r); err != nil {
		return "", err
	}
	return r.ID, nil
}

// sponsorable reports whether a network can sponsor a send (a gas station and the batch delegate it calls).
func sponsorable(nw send.Network) bool {
	return nw.GasStation != (common.Address{}) && nw.BatchDelegate != (common.Address{})
}

// The deployment of a wrapper.

// earnDeployPlan is a deployment read from the chain: the vault, the client's fee and wallet, where the factory puts
// the wrapper and its splitter.
type earnDeployPlan struct {
	network      *earn.Network
	sendNetwork  send.Network
	vault        *earn.Vault
	clientFeeBps int64
	wallet       common.Address
	predicted    earn.Predicted
}

// earnDeployJob is a deployment prepared: nothing to do (the organization has the wrapper already), the wrapper to
// record as it is on chain, or the factory's call to send.
type earnDeployJob struct {
	plan     *earnDeployPlan
	existing *store.EarnWrapper
	send     *earnSend // nil when the wrapper exists on chain already
}

func checkEarnDeploy(p *api.EarnDeployWrapperIntent) (*earnDeployPlan, error) {
	if err := checkAddress("parameters.vaultAddress", p.VaultAddress); err != nil {
		return nil, err
	}
	if err := checkChain("parameters.chainCaip2", p.ChainCaip2); err != nil {
		return nil, err
	}
	if err := checkAddress("parameters.clientFeeWallet", p.ClientFeeWallet); err != nil {
		return nil, err
	}
	fee, err := strconv.ParseInt(p.ClientFeeBps, 10, 64)
	if err != nil || fee < 0 || strings.HasPrefix(p.ClientFeeBps, "+") {
		return nil, apierr.Invalid("parameters.clientFeeBps must be a whole number of basis points (\"2000\" is 20%% of the yield), got %q", p.ClientFeeBps)
	}
	if fee > earn.MaxClientFeeBps {
		return nil, apierr.Invalid("parameters.clientFeeBps: %d is over the maximum of %d (%d%% of the yield)", fee, earn.MaxClientFeeBps, earn.MaxClientFeeBps/100)
	}
	return &earnDeployPlan{clientFeeBps: fee}, nil
}

func readEarnDeploy(r *reading, p *api.EarnDeployWrapperIntent, plan *earnDeployPlan) (*earnDeployPlan, error) {
	if err := parentOnly(r.org); err != nil {
		return nil, err
	}
	en, nw, err := r.c.earnNetwork("parameters.chainCaip2", p.ChainCaip2)
	if err != nil {
		return nil, err
	}
	v, ok := en.Vault(p.VaultAddress)
	if !ok {
		return nil, apierr.New(apierr.NotFound, "EARN_VAULT_NOT_FOUND", "parameters.vaultAddress: %s is not a vault of the Earn catalogue on %s (list_earn_vaults lists them)", p.VaultAddress, en.CAIP2)
	}
	wallet, err := earnWallet(r, "parameters.clientFeeWallet", p.ClientFeeWallet)
	if err != nil {
		return nil, apierr.Invalid("parameters.clientFeeWallet: %s is not a wallet account of this organization; fees are paid to one", p.ClientFeeWallet)
	}
	cl, err := chainClient(nw)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(r.ctx, earnReadTimeout)
	defer cancel()
	predicted, err := en.Predict(ctx, cl, v, plan.clientFeeBps, wallet)
	if err != nil {
		return nil, chainUnavailable(nw.CAIP2, err)
	}
	if total := plan.clientFeeBps + predicted.PlatformFeeBps; total > earn.MaxTotalFeeBps {
		return nil, apierr.Invalid("parameters.clientFeeBps: %d with the platform's %d is %d bps, over the maximum of %d", plan.clientFeeBps,
			predicted.PlatformFeeBps, total, earn.MaxTotalFeeBps)
	}
	if wallet == predicted.Platform {
		return nil, apierr.Invalid("parameters.clientFeeWallet: %s is the platform's fee wallet", p.ClientFeeWallet)
	}
	return &earnDeployPlan{network: en, sendNetwork: nw, vault: v, clientFeeBps: plan.clientFeeBps, wallet: wallet, predicted: predicted}, nil
}

// prepareEarnDeploy finds the organization's wrapper of this configuration, if it has it (a repeated deployment is the
// same wrapper: the reference's idempotency), or prepares the factory's call from the fee wallet, sponsored where the
// network can.
func prepareEarnDeploy(x *execution, _ *api.EarnDeployWrapperIntent, plan *earnDeployPlan, d *decisionRequest) (*earnDeployJob, error) {
	if plan == nil || plan.network == nil {
		return nil, apierr.New(apierr.Internal, "INTERNAL", "the activity was not read before it was prepared")
	}
	job := &earnDeployJob{plan: plan}
	w, err := x.tx.EarnWrapper(x.ctx, x.org.ID, plan.network.CAIP2, lower(plan.predicted.Wrapper))
	switch {
	case err == nil:
		job.existing = &w
	case !errors.Is(err, store.ErrNotFound):
		return nil, err
	}
	if job.existing == nil {
		// Every list of the organization's wrappers reads each from the chain: their number is bounded.
		n, err := x.tx.CountEarnWrappers(x.ctx, x.org.ID)
		if err != nil {
			return nil, err
		}
		if n >= maxEarnWrappersPerOrg {
			return nil, limitReached("organization %s has %d Earn wrappers, the most an organization may have", x.org.ID, maxEarnWrappersPerOrg)
		}
	}
	if job.existing != nil || plan.predicted.Deployed {
		// Nothing is sent; the policy engine still decides the activity, as the deployment it would be.
		d.walletID = ""
		return job, nil
	}
	job.send, err = prepareEarnPlan[api.EarnDeployWrapperIntent](x, nil, &earnPlan{from: plan.wallet, caip2: plan.network.CAIP2,
		sponsor: sponsorable(plan.sendNetwork), calls: []earn.Call{plan.network.DeployCall(plan.vault, plan.clientFeeBps, plan.wallet)},
		request: store.EarnRequest{Kind: store.EarnDeploy, Network: plan.network.CAIP2, Wrapper: lower(plan.predicted.Wrapper)}}, d)
	return job, err
}

func execEarnDeploy(x *execution, _ *api.EarnDeployWrapperIntent, job *earnDeployJob) (*api.EarnDeployWrapperResult, error) {
	plan := job.plan
	if w := job.existing; w != nil {
		return &api.EarnDeployWrapperResult{WrapperAddress: common.HexToAddress(w.Wrapper).Hex(), SplitterAddress: common.HexToAddress(w.Splitter).Hex(),
			DeployRequestID: w.DeployRequestID}, nil
	}
	requestID := ""
	if job.send != nil {
		var err error
		if requestID, err = x.execEarnSend(job.send); err != nil {
			return nil, err
		}
	} else { // on chain already (deployed by an earlier installation, or by hand): recorded as a completed deployment
		requestID = newID()
		if err := x.tx.InsertEarnRequest(x.ctx, store.EarnRequest{OrgID: x.org.ID, ID: requestID, Kind: store.EarnDeploy, Network: plan.network.CAIP2,
			Wrapper: lower(plan.predicted.Wrapper), Wallet: lower(plan.wallet), CreatedAt: x.now.UnixNano()}); err != nil {
			return nil, err
		}
	}
	if err := x.tx.InsertEarnWrapper(x.ctx, store.EarnWrapper{OrgID: x.org.ID, Network: plan.network.CAIP2, Wrapper: lower(plan.predicted.Wrapper),
		Vault: lower(plan.vault.Address), Splitter: lower(plan.predicted.Splitter), ClientFeeBps: plan.clientFeeBps,
		ClientFeeWallet: lower(plan.wallet), PlatformFeeBps: plan.predicted.PlatformFeeBps, DeployRequestID: requestID,
		CreatedAt: x.now.UnixNano()}); err != nil {
		return nil, err
	}
	return &api.EarnDeployWrapperResult{WrapperAddress: plan.predicted.Wrapper.Hex(), SplitterAddress: plan.predicted.Splitter.Hex(),
		DeployRequestID: requestID}, nil
}

// Pausing deposits.

func validateEarnSetWrapperState(p *api.EarnSetWrapperStateIntent) error {
	return checkAddress("parameters.wrapperAddress", p.WrapperAddress)
}

func execEarnSetWrapperState(x *execution, p *api.EarnSetWrapperStateIntent) (*api.EarnSetWrapperStateResult, error) {
	if err := parentOnly(x.org); err != nil {
		return nil, err
	}
	wrapper := strings.ToLower(p.WrapperAddress)
	set := false
	for _, n := range x.c.earnNetworks() {
		err := x.tx.SetEarnWrapperDeposits(x.ctx, x.org.ID, n, wrapper, p.DepositsDisabled)
		if err == nil {
			set = true
		} else if !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
	}
	if !set {
		return nil, earnSetupRequired(p.WrapperAddress)
	}
	return &api.EarnSetWrapperStateResult{WrapperAddress: common.HexToAddress(p.WrapperAddress).Hex(), DepositsDisabled: p.DepositsDisabled}, nil
}

// earnNetworks are the CAIP-2 ids Earn runs on.
func (c *Coordinator) earnNetworks() []string {
	var out []string
	if cat := c.earn.Load(); cat != nil {
		for _, n := range cat.Networks {
			out = append(out, n.CAIP2)
		}
	}
	return out
}

// earnSetupRequired is the reference's answer to an address that is not one of the organization's wrappers.
func earnSetupRequired(wrapper string) error {
	return apierr.New(apierr.FailedPrecondition, "EARN_SETUP_REQUIRED",
		"parameters.wrapperAddress: %s is not a wrapper this organization deployed; deploy one with earn_deploy_wrapper (list_earn_enabled_vaults lists them)", wrapper)
}

// orgWrapper is the wrapper at an address that the organization (or, for a sub-organization, its parent) deployed
// on a network, with its vault in the catalogue.
func (r *reading) orgWrapper(en *earn.Network, address string, ownOnly bool) (store.EarnWrapper, *earn.Vault, error) {
	ids := []string{r.org.ID}
	if r.org.ParentID != "" && !ownOnly {
		ids = append(ids, r.org.ParentID)
	}
	ws, err := r.c.store.EarnWrappers(r.ctx, en.CAIP2, ids...)
	if err != nil {
		return store.EarnWrapper{}, nil, err
	}
	want := strings.ToLower(address)
	for _, w := range ws {
		if w.Wrapper != want {
			continue
		}
		v, ok := en.Vault(w.Vault)
		if !ok {
			return store.EarnWrapper{}, nil, apierr.New(apierr.FailedPrecondition, "EARN_VAULT_NOT_FOUND",
				"parameters.wrapperAddress: the vault %s of wrapper %s is no longer in the Earn catalogue", w.Vault, address)
		}
		return w, v, nil
	}
	return store.EarnWrapper{}, nil, earnSetupRequired(address)
}

// deployStatus is the status of a wrapper's deployment.
func (r *reading) deployStatus(w store.EarnWrapper) (string, error) {
	req, err := r.c.store.EarnRequestByID(r.ctx, w.OrgID, store.EarnDeploy, w.DeployRequestID)
	if err != nil {
		return "", err
	}
	status, _, _ := earnRequestStatus(req)
	return status, nil
}

// Deposits.

func checkEarnDeposit(p *api.EarnDepositIntent) (*earnPlan, error) {
	if err := checkAddress("parameters.wrapperAddress", p.WrapperAddress); err != nil {
		return nil, err
	}
	if err := checkAddress("parameters.signWith", p.SignWith); err != nil {
		return nil, err
	}
	if err := checkChain("parameters.chainCaip2", p.ChainCaip2); err != nil {
		return nil, err
	}
	_, err := parseEarnAmount("parameters.assets", p.Assets)
	return nil, err
}

// readEarnDeposit checks the deposit against the wrapper (the organization's, deployed, open to deposits) and the
// wallet's balance of the asset, and plans its two calls.
func readEarnDeposit(r *reading, p *api.EarnDepositIntent, _ *earnPlan) (*earnPlan, error) {
	en, nw, err := r.c.earnNetwork("parameters.chainCaip2", p.ChainCaip2)
	if err != nil {
		return nil, err
	}
	w, v, err := r.orgWrapper(en, p.WrapperAddress, false)
	if err != nil {
		return nil, err
	}
	if w.DepositsDisabled {
		return nil, apierr.New(apierr.FailedPrecondition, "EARN_DEPOSITS_DISABLED",
			"parameters.wrapperAddress: deposits to %s are paused (earn_set_wrapper_state); withdrawals are not", p.WrapperAddress)
	}
	if status, err := r.deployStatus(w); err != nil {
		return nil, err
	} else if status != api.EarnStatusCompleted {
		return nil, apierr.New(apierr.FailedPrecondition, "EARN_SETUP_REQUIRED",
			"parameters.wrapperAddress: the deployment of %s is %s; deposit once get_earn_deploy_status reports COMPLETED", p.WrapperAddress, status)
	}
	from, err := earnWallet(r, "parameters.signWith", p.SignWith)
	if err != nil {
		return nil, err
	}
	assets, _ := parseEarnAmount("parameters.assets", p.Assets)
	cl, err := chainClient(nw)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(r.ctx, earnReadTimeout)
	defer cancel()
	reads := earn.NewReads(cl)
	balance := reads.Add(&abis.ERC20, v.Asset.Address, "balanceOf", from)
	if err := reads.Do(ctx); err != nil {
		return nil, chainUnavailable(nw.CAIP2, err)
	}
	if have := (*balance)[0].(*big.Int); have.Cmp(assets) < 0 {
		return nil, apierr.New(apierr.FailedPrecondition, "INSUFFICIENT_BALANCE",
			"parameters.assets: %s is more than the %s %s holds (%s)", assets, v.Asset.Symbol, p.SignWith, have)
	}
	wrapper := common.HexToAddress(w.Wrapper)
	return &earnPlan{from: from, caip2: en.CAIP2, sponsor: p.Sponsor != nil && *p.Sponsor,
		calls:   earn.DepositCalls(v.Asset.Address, wrapper, from, assets),
		request: store.EarnRequest{Kind: store.EarnDeposit, Network: en.CAIP2, Wrapper: w.Wrapper, Amount: assets.String()}}, nil
}

// Withdrawals.

func checkEarnWithdraw(p *api.EarnWithdrawIntent) (*earnPlan, error) {
	if err := checkAddress("parameters.wrapperAddress", p.WrapperAddress); err != nil {
		return nil, err
	}
	if err := checkAddress("parameters.signWith", p.SignWith); err != nil {
		return nil, err
	}
	if err := checkChain("parameters.chainCaip2", p.ChainCaip2); err != nil {
		return nil, err
	}
	if p.AmountValue == api.EarnWithdrawMax {
		return nil, nil
	}
	_, err := parseEarnAmount("parameters.amountValue", p.AmountValue)
	return nil, err
}

// readEarnWithdraw checks the withdrawal against the wallet's position (paused wrappers included: withdrawals are
// always allowed) and plans it: MAX redeems the exact share balance, an amount withdraws exactly that much.
func readEarnWithdraw(r *reading, p *api.EarnWithdrawIntent, _ *earnPlan) (*earnPlan, error) {
	en, nw, err := r.c.earnNetwork("parameters.chainCaip2", p.ChainCaip2)
	if err != nil {
		return nil, err
	}
	w, v, err := r.orgWrapper(en, p.WrapperAddress, false)
	if err != nil {
		return nil, err
	}
	from, err := earnWallet(r, "parameters.signWith", p.SignWith)
	if err != nil {
		return nil, err
	}
	cl, err := chainClient(nw)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(r.ctx, earnReadTimeout)
	defer cancel()
	wrapper := common.HexToAddress(w.Wrapper)
	states, err := earn.ReadWrappers(ctx, cl, []common.Address{wrapper}, nil, nil, from)
	if err != nil {
		return nil, chainUnavailable(nw.CAIP2, err)
	}
	st := states[0]
	if st.Shares.Sign() == 0 {
		return nil, apierr.New(apierr.FailedPrecondition, "EARN_NO_POSITION", "parameters.signWith: %s holds no position in %s", p.SignWith, p.WrapperAddress)
	}
	plan := &earnPlan{from: from, caip2: en.CAIP2, sponsor: p.Sponsor != nil && *p.Sponsor,
		request: store.EarnRequest{Kind: store.EarnWithdraw, Network: en.CAIP2, Wrapper: w.Wrapper, Amount: p.AmountValue}}
	if p.AmountValue == api.EarnWithdrawMax {
		if st.MaxWithdraw.Cmp(st.Value) < 0 {
			return nil, apierr.New(apierr.FailedPrecondition, "EARN_INSUFFICIENT_LIQUIDITY",
				"parameters.amountValue: the vault can let out %s %s now, less than the position's %s; withdraw that much, or later", st.MaxWithdraw, v.Asset.Symbol, st.Value)
		}
		plan.calls = []earn.Call{earn.RedeemCall(wrapper, from, st.Shares)}
		return plan, nil
	}
	amount, _ := parseEarnAmount("parameters.amountValue", p.AmountValue)
	switch {
	case amount.Cmp(st.Value) > 0:
		return nil, apierr.New(apierr.FailedPrecondition, "INSUFFICIENT_BALANCE",
			"parameters.amountValue: %s is more than the position's value %s (in base units of %s); pass \"MAX\" to withdraw it all", amount, st.Value, v.Asset.Symbol)
	case amount.Cmp(st.MaxWithdraw) > 0:
		return nil, apierr.New(apierr.FailedPrecondition, "EARN_INSUFFICIENT_LIQUIDITY",
			"parameters.amountValue: the vault can let out %s %s now, less than %s", st.MaxWithdraw, v.Asset.Symbol, amount)
	}
	plan.calls = []earn.Call{earn.WithdrawCall(wrapper, from, amount)}
	return plan, nil
}

// Rewards.

func checkEarnClaimRewards(p *api.EarnClaimRewardsIntent) (*earnPlan, error) {
	if err := checkAddress("parameters.signWith", p.SignWith); err != nil {
		return nil, err
	}
	return nil, checkChain("parameters.chainCaip2", p.ChainCaip2)
}

// readEarnClaimRewards reads the wallet's rewards from the network's rewards API, checks each against the
// distributor's live root and the wallet's claims, and plans one claim of everything claimable.
func readEarnClaimRewards(r *reading, p *api.EarnClaimRewardsIntent, _ *earnPlan) (*earnPlan, error) {
	en, nw, err := r.c.earnNetwork("parameters.chainCaip2", p.ChainCaip2)
	if err != nil {
		return nil, err
	}
	from, err := earnWallet(r, "parameters.signWith", p.SignWith)
	if err != nil {
		return nil, err
	}
	claimable, err := r.c.earnRewards(r.ctx, en, nw, from)
	if err != nil {
		return nil, err
	}
	var claims []earn.Claimable
	for _, c := range claimable {
		if c.Claimable.Sign() > 0 {
			claims = append(claims, c)
		}
	}
	if len(claims) == 0 {
		return nil, apierr.Invalid("parameters.signWith: %s has no reward claimable on %s now (list_earn_rewards: pending rewards become claimable with the next root)", p.SignWith, en.CAIP2)
	}
	return &earnPlan{from: from, caip2: en.CAIP2, sponsor: p.Sponsor != nil && *p.Sponsor,
		calls:   []earn.Call{earn.ClaimCall(en.Distributor, from, claims)},
		request: store.EarnRequest{Kind: store.EarnClaimRewards, Network: en.CAIP2}}, nil
}

// earnRewards are a wallet's rewards on a network, checked against the chain.
func (c *Coordinator) earnRewards(ctx context.Context, en *earn.Network, nw send.Network, wallet common.Address) ([]earn.Claimable, error) {
	if en.Distributor == (common.Address{}) || en.RewardsAPI == "" {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(ctx, earnReadTimeout)
	defer cancel()
	rewards, err := earn.FetchRewards(ctx, earnHTTP, en.RewardsAPI, wallet, nw.ChainID)
	if err != nil {
		return nil, apierr.New(apierr.Unavailable, "REWARDS_UNAVAILABLE", "%s: the rewards API did not answer: %s", en.CAIP2, err.Error())
	}
	if len(rewards) == 0 {
		return nil, nil
	}
	cl, err := chainClient(nw)
	if err != nil {
		return nil, err
	}
	out, err := earn.CheckRewards(ctx, cl, en.Distributor, wallet, rewards)
	if err != nil {
		return nil, chainUnavailable(nw.CAIP2, err)
	}
	return out, nil
}

// Fees.

func checkClaimEarnFees(p *api.ClaimEarnFeesIntent) (*earnPlan, error) {
	return nil, checkAddress("parameters.wrapperAddress", p.WrapperAddress)
}

// readClaimEarnFees finds the organization's own wrapper (on whichever network it is), checks that the client has
// fees to release, and plans the release from the client's fee wallet, sponsored where the network can.
func readClaimEarnFees(r *reading, p *api.ClaimEarnFeesIntent, _ *earnPlan) (*earnPlan, error) {
	if err := parentOnly(r.org); err != nil {
		return nil, err
	}
	cat := r.c.earn.Load()
	if cat == nil {
		return nil, earnSetupRequired(p.WrapperAddress)
	}
	var lastErr error = earnSetupRequired(p.WrapperAddress)
	for i := range cat.Networks {
		en := &cat.Networks[i]
		w, v, err := r.orgWrapper(en, p.WrapperAddress, true)
		if err != nil {
			lastErr = err
			continue
		}
		_, nw, err := r.c.earnNetwork("parameters.wrapperAddress", en.CAIP2)
		if err != nil {
			return nil, err
		}
		cl, err := chainClient(nw)
		if err != nil {
			return nil, err
		}
		ctx, cancel := context.WithTimeout(r.ctx, earnReadTimeout)
		defer cancel()
		wallet, splitter := common.HexToAddress(w.ClientFeeWallet), common.HexToAddress(w.Splitter)
		states, err := earn.ReadWrappers(ctx, cl, []common.Address{common.HexToAddress(w.Wrapper)}, []common.Address{splitter}, []common.Address{wallet}, common.Address{})
		if err != nil {
			return nil, chainUnavailable(nw.CAIP2, err)
		}
		if states[0].ClaimableClientFee.Sign() == 0 {
			return nil, apierr.New(apierr.FailedPrecondition, "EARN_NOTHING_TO_CLAIM", "parameters.wrapperAddress: %s has no fee of yours to claim now (%s %s accrued)",
				p.WrapperAddress, states[0].ClaimableClientFee, v.Asset.Symbol)
		}
		return &earnPlan{from: wallet, caip2: en.CAIP2, sponsor: sponsorable(nw), calls: []earn.Call{earn.ReleaseCall(splitter, wallet)},
			request: store.EarnRequest{Kind: store.EarnClaimFees, Network: en.CAIP2, Wrapper: w.Wrapper, Amount: states[0].ClaimableClientFee.String()}}, nil
	}
	return nil, lastErr
}

// earnRequestStatus is an Earn request's status as its send has it: PENDING until the send is in a block, COMPLETED
// with its hash, or FAILED with why (the send's failure, with its decoded revert).
func earnRequestStatus(r store.EarnRequest) (status, txHash, reason string) {
	if r.Send == nil {
		return api.EarnStatusCompleted, "", ""
	}
	st := send.Status(*r.Send)
	if st.Eth != nil {
		txHash = st.Eth.TxHash
	}
	switch r.Send.Status {
	case store.SendIncluded:
		return api.EarnStatusCompleted, txHash, ""
	case store.SendFailed:
		reason = st.TxError
		if st.Error != nil {
			// The send's message names the innermost revert (the cause); what else of the chain was decoded is added,
			// and the frames nothing decodes (a caller re-raising its callee's revert) are not.
			for _, e := range st.Error.RevertChain {
				if e.ErrorType != "unknown" && e.DisplayMessage != "" && !strings.Contains(reason, e.DisplayMessage) {
					reason += ": " + e.DisplayMessage
				}
			}
		}
		return api.EarnStatusFailed, txHash, reason
	}
	return api.EarnStatusPending, txHash, ""
}

// earnCustomErrors decodes reverts with the interface an organization uploaded, and otherwise, for the Earn contracts
// (the organization's wrappers and splitters, the factories and distributors of the catalogue), with their own
// errors (OpenZeppelin's ERC-4626 and ERC-20 errors among the wrapper's), so that a failed Earn transaction says why
// without an upload. Other contracts' reverts are decoded as before.
func (c *Coordinator) earnCustomErrors(ctx context.Context, orgID, address string, data []byte) (string, string, bool) {
	if name, params, ok := c.customError(ctx, orgID, address, data); ok {
		return name, params, ok
	}
	if !c.isEarnContract(ctx, orgID, address) {
		return "", "", false
	}
	for _, a := range earnErrorABIs {
		if e, err := evm.DecodeError(a, data); err == nil {
			return e.FunctionName, jsonString(e.Args), true
		}
	}
	return "", "", false
}

// isEarnContract reports whether address is one of the organization's (or its parent's) wrappers or splitters, or a
// factory or distributor of the catalogue.
func (c *Coordinator) isEarnContract(ctx context.Context, orgID, address string) bool {
	if !common.IsHexAddress(address) {
		return false
	}
	a := common.HexToAddress(address)
	if cat := c.earn.Load(); cat != nil {
		for _, n := range cat.Networks {
			if a == n.Factory || a == n.Distributor {
				return true
			}
		}
	}
	ids := []string{orgID}
	if org, err := c.loadOrg(ctx, orgID); err == nil && org.ParentID != "" {
		ids = append(ids, org.ParentID)
	}
	ws, err := c.store.EarnWrappers(ctx, "", ids...)
	if err != nil {
		return false
	}
	return slices.ContainsFunc(ws, func(w store.EarnWrapper) bool { return w.Wrapper == lower(a) || w.Splitter == lower(a) })
}
