// Package yieldagent is the second specification's journey, written to be read and copied: an agent holding a
// non-root user's API key earns yield in an ERC-4626 vault (or, by Config.Protocol, in the vault over Morpho Blue or in
// Aave v3's pool). The yield service builds the transactions; the coordinator signs them, allowed only by three
// policies naming one token, one contract and three function selectors; the agent broadcasts them in order and waits
// for each to be mined. With Config.Send the agent hands each transaction's call to the coordinator instead
// (ETH_SEND_TRANSACTION), which signs, broadcasts and watches it, under the same policies.
//
// It uses the public Go SDK (package client) for the coordinator and plain HTTP for the yield service and the chain.
package yieldagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/stamp"
)

// Config is what the journey needs to know: where the services are and the root user's key.
type Config struct {
	CoordinatorURL string
	OrganizationID string
	RootKey        *stamp.APIKey // a root user's API key (bootstrap.json's apiPrivateKey)
	YieldURL       string
	YieldAPIKey    string
	RPCURL         string
	FaucetURL      string // empty on a real network: fund the wallet yourself
	Network        string // the yield service's network id, "sigil-dev" for the dev chain
	ChainID        int64
	Amount         string // USDC to deposit, in token units
	// Protocol is where the USDC goes: "vault" (the plain ERC-4626 vault, the specification's), "morpho" (the
	// ERC-4626 vault over a Morpho Blue market) or "aave" (Aave v3's own pool); "" (or "live") takes the first of them
	// whose reward rate the yield service knows to be above 0, so that the journey never earns at a rate of 0 (a vault
	// on a real network that publishes no accrual rate and has no price history yet reads 0), and the vault when none
	// has one.
	Protocol string
	// Cleanup deletes the agent user and its three policies at the end (the wallet stays: it holds funds).
	Cleanup bool
	// Send hands each transaction to the coordinator (ETH_SEND_TRANSACTION), which signs, broadcasts and watches it,
	// rather than signing it (SIGN_TRANSACTION_V2) and broadcasting it here.
	Send bool
}

// Progress shows the journey as it goes.
type Progress interface {
	Start(step string)
	Done(detail string)
	Fail(err error)
}

// Summary is what the journey did.
type Summary struct {
	AgentUserID, WalletAddress, YieldID string
	RewardRate                          float64 // the yield's, as the service reported it when the journey picked it
	Deposited, BalanceAfterEnter        string
	Earned                              string // what the position earned while held, "0.41 USDC in 30 days"
	BalanceAfterExit                    string
	Hashes                              []string
	Denial                              string
}

// Run runs the whole journey. A failure says which step failed and why.
func Run(ctx context.Context, cfg Config, p Progress) (*Summary, error) {
	if _, ok := protocols[cfg.Protocol]; !ok && cfg.Protocol != "" && cfg.Protocol != "live" {
		return nil, fmt.Errorf("protocol %q is not one of live, %s", cfg.Protocol, strings.Join(Protocols(), ", "))
	}
	j := &journey{cfg: cfg, p: p, sum: &Summary{}}
	j.root = client.New(cfg.CoordinatorURL, cfg.RootKey)
	j.yield = &yieldAPI{base: cfg.YieldURL, key: cfg.YieldAPIKey}
	if cfg.Protocol == "" || cfg.Protocol == "live" {
		j.cfg.Protocol = j.yield.liveProtocol(ctx, cfg.Network)
	}
	j.chain = &rpc{url: cfg.RPCURL}
	steps := []struct {
		name string
		fn   func(context.Context) (string, error)
	}{
		{"create the agent user, in the root quorum", j.createAgent},
		{"create the agent's wallet", j.createWallet},
		{"fund the wallet from the faucet", j.fund},
		{"discover the USDC " + j.protocol().noun, j.discover},
		{"create the three signing policies", j.createPolicies},
		{"remove the agent from the root quorum", j.demoteAgent},
		{"enter the " + j.protocol().noun + " (approve, " + j.protocol().enter.name + ")", j.enter},
		{"read the balance", j.balance(&j.sum.BalanceAfterEnter)},
		{"hold the position for 30 days of accrual", j.hold},
		{"exit the " + j.protocol().noun + " (" + j.protocol().exit.name + ")", j.exit},
		{"read the balance again", j.balance(&j.sum.BalanceAfterExit)},
		{"try a transaction the policies do not allow", j.tryForbidden},
	}
	if cfg.Cleanup {
		steps = append(steps, struct {
			name string
			fn   func(context.Context) (string, error)
		}{"clean up: delete the agent's policies and user", j.cleanup})
	}
	for _, s := range steps {
		p.Start(s.name)
		detail, err := s.fn(ctx)
		if err != nil {
			p.Fail(err)
			return j.sum, fmt.Errorf("%s: %w", s.name, err)
		}
		p.Done(detail)
	}
	return j.sum, nil
}

type journey struct {
	cfg   Config
	p     Progress
	sum   *Summary
	root  *client.Client
	agent *client.Client
	yield *yieldAPI
	chain *rpc

	agentID, address string
	yieldID          string
	active           string            // the position's active amount at the last reading, in token units
	token, target    string            // contract addresses of the deposit token and of the vault or pool it goes to
	policies         map[string]string // the agent's policies: name by id
}

func (j *journey) createAgent(ctx context.Context) (string, error) {
	key, err := stamp.GenerateAPIKey(stamp.CurveP256)
	if err != nil {
		return "", err
	}
	res, _, err := j.root.CreateUsers(ctx, j.cfg.OrganizationID, api.CreateUsersIntentV4{Users: []api.UserParamsV4{{
		UserName:       fmt.Sprintf("yield-agent-%d", time.Now().Unix()),
		APIKeys:        []api.APIKeyParamsV2{{APIKeyName: "agent", PublicKey: key.PublicKeyHex(), CurveType: api.CurveP256}},
		Authenticators: []api.AuthenticatorParamsV2{}, OauthProviders: []api.OauthProviderParamsV2{}, UserTags: []string{},
	}}})
	if err != nil {
		return "", err
	}
	j.agentID, j.sum.AgentUserID = res.UserIDs[0], res.UserIDs[0]
	j.agent = client.New(j.cfg.CoordinatorURL, key)
	// As the specification has it, the signer starts in the root quorum (threshold 1: any one root user decides).
	if err := j.setRootQuorum(ctx, true); err != nil {
		return "", err
	}
	return "user " + j.agentID, nil
}

// setRootQuorum puts the agent in the root quorum or takes it out, keeping every other root user.
func (j *journey) setRootQuorum(ctx context.Context, withAgent bool) error {
	org, err := j.root.GetOrganization(ctx, j.cfg.OrganizationID)
	if err != nil {
		return err
	}
	ids := []string{}
	for _, id := range org.OrganizationData.RootQuorum.UserIDs {
		if id != j.agentID {
			ids = append(ids, id)
		}
	}
	if withAgent {
		ids = append(ids, j.agentID)
	}
	one := int32(1)
	_, _, err = j.root.UpdateRootQuorum(ctx, j.cfg.OrganizationID, api.UpdateRootQuorumIntent{Threshold: &one, UserIDs: ids})
	return err
}

func (j *journey) createWallet(ctx context.Context) (string, error) {
	w, _, err := j.agent.CreateWallet(ctx, j.cfg.OrganizationID, api.CreateWalletIntent{
		WalletName: "yield agent " + j.agentID[:8],
		Accounts: []api.WalletAccountParams{{Curve: "CURVE_SECP256K1", PathFormat: "PATH_FORMAT_BIP32",
			Path: "m/44'/60'/0'/0/0", AddressFormat: "ADDRESS_FORMAT_ETHEREUM"}},
	})
	if err != nil {
		return "", err
	}
	j.address, j.sum.WalletAddress = w.Addresses[0], w.Addresses[0]
	return j.address, nil
}

func (j *journey) fund(ctx context.Context) (string, error) {
	if j.cfg.FaucetURL == "" {
		return "no faucet on this network: the wallet must hold ETH and USDC already", nil
	}
	amount := j.cfg.Amount
	if err := postJSON(ctx, j.cfg.FaucetURL, map[string]any{"address": j.address, "eth": "1", "tokens": map[string]string{"USDC": amount}}, nil); err != nil {
		return "", err
	}
	return "1 ETH and " + amount + " USDC", nil
}

func (j *journey) discover(ctx context.Context) (string, error) {
	y, err := j.yield.usdcYield(ctx, j.cfg.Network, j.protocol())
	if err != nil {
		return "", err
	}
	j.yieldID, j.sum.YieldID, j.sum.RewardRate = y.ID, y.ID, y.RewardRate.Total
	j.token, j.target = y.Token.Address, y.vaultAddress()
	if j.protocol().lending { // a lending yield's output token is the aToken; the pool is the contract its risk names
		if j.target, err = j.yield.contractOf(ctx, y.ID); err != nil {
			return "", err
		}
	}
	if j.target == "" {
		return "", fmt.Errorf("yield %s names no contract", y.ID)
	}
	return fmt.Sprintf("%s (reward rate %.2f%%)", y.ID, y.RewardRate.Total*100), nil
}

// createPolicies creates the specification's three policies: each allows the agent exactly one function on one
// contract, matched by the selector (eth.tx.data[0..10] is 0x and the 4-byte selector).
func (j *journey) createPolicies(ctx context.Context) (string, error) {
	consensus := "approvers.any(user, user.id == '" + j.agentID + "')"
	policy := func(name, contract, selector string) api.CreatePolicyIntentV3 {
		return api.CreatePolicyIntentV3{PolicyName: name + " " + j.agentID[:8], Effect: api.EffectAllow, Consensus: consensus, Notes: "",
			Condition: "eth.tx.to == '" + contract + "' && eth.tx.data[0..10] == '" + selector + "'"}
	}
	p := j.protocol()
	intents := []api.CreatePolicyIntentV3{
		policy("approve USDC for the "+p.noun, j.token, "0x095ea7b3"), // approve(address,uint256)
		policy(p.enter.policy, j.target, p.enter.selector),
		policy(p.exit.policy, j.target, p.exit.selector),
	}
	res, _, err := j.root.CreatePolicies(ctx, j.cfg.OrganizationID, api.CreatePoliciesIntent{Policies: intents})
	if err != nil {
		return "", err
	}
	j.policies = map[string]string{}
	var names []string
	for i, id := range res.PolicyIDs {
		j.policies[id] = intents[i].PolicyName
		names = append(names, "\""+intents[i].PolicyName+"\"")
	}
	return strings.Join(names, ", "), nil
}

// cleanup deletes what the journey created for the agent: its policies and its user. The wallet stays, with what it
// holds.
func (j *journey) cleanup(ctx context.Context) (string, error) {
	ids := make([]string, 0, len(j.policies))
	for id := range j.policies {
		ids = append(ids, id)
	}
	if _, _, err := j.root.DeletePolicies(ctx, j.cfg.OrganizationID, api.DeletePoliciesIntent{PolicyIDs: ids}); err != nil {
		return "", err
	}
	if _, _, err := j.root.DeleteUsers(ctx, j.cfg.OrganizationID, api.DeleteUsersIntent{UserIDs: []string{j.agentID}}); err != nil {
		return "", err
	}
	return fmt.Sprintf("%d policies and user %s deleted; wallet %s kept", len(ids), j.agentID, j.address), nil
}

func (j *journey) demoteAgent(ctx context.Context) (string, error) {
	if err := j.setRootQuorum(ctx, false); err != nil {
		return "", err
	}
	return "from here on the agent is bound by the policies", nil
}

func (j *journey) enter(ctx context.Context) (string, error) {
	action, err := j.yield.action(ctx, "enter", j.yieldID, j.address, j.cfg.Amount)
	if err != nil {
		return "", err
	}
	j.sum.Deposited = j.cfg.Amount
	return j.execute(ctx, action)
}

func (j *journey) exit(ctx context.Context) (string, error) {
	action, err := j.yield.action(ctx, "exit", j.yieldID, j.address, j.cfg.Amount)
	if err != nil {
		return "", err
	}
	return j.execute(ctx, action)
}

// execute has an action's transactions signed, broadcast and confirmed in order, each mined before the next is sent,
// and reports each hash to the yield service.
func (j *journey) execute(ctx context.Context, a *action) (string, error) {
	run := j.signAndBroadcast
	if j.cfg.Send {
		run = j.send
	}
	var done []string
	for _, tx := range a.Transactions {
		hash, err := run(ctx, tx.UnsignedTransaction)
		if err != nil {
			return "", fmt.Errorf("%s: %w", tx.Type, err)
		}
		if err := j.yield.submitHash(ctx, tx.ID, hash); err != nil {
			return "", err
		}
		j.sum.Hashes = append(j.sum.Hashes, hash)
		done = append(done, fmt.Sprintf("%s %s", strings.ToLower(tx.Type), hash))
	}
	return strings.Join(done, "; "), nil
}

// signAndBroadcast has the coordinator sign a transaction the yield service built, broadcasts it and waits for it to
// be mined.
func (j *journey) signAndBroadcast(ctx context.Context, unsignedJSON string) (string, error) {
	unsigned, err := client.UnsignedTransaction(unsignedJSON)
	if err != nil {
		return "", err
	}
	signed, _, err := j.agent.SignTransaction(ctx, j.cfg.OrganizationID, api.SignTransactionIntentV2{
		SignWith: j.address, UnsignedTransaction: unsigned, Type: api.TransactionTypeEthereum})
	if err != nil {
		return "", fmt.Errorf("sign: %w", err)
	}
	hash, err := j.chain.sendRawTransaction(ctx, "0x"+signed.SignedTransaction)
	if err != nil {
		return "", fmt.Errorf("broadcast: %w", err)
	}
	if err := j.chain.waitMined(ctx, hash); err != nil {
		return "", fmt.Errorf("%s: %w", hash, err)
	}
	return hash, nil
}

// send hands the call of a transaction the yield service built to the coordinator (its destination, value and
// calldata: the coordinator numbers and prices it itself) and waits for it to be included.
func (j *journey) send(ctx context.Context, unsignedJSON string) (string, error) {
	var tx struct {
		To    string `json:"to"`
		Data  string `json:"data"`
		Value string `json:"value"`
	}
	if err := json.Unmarshal([]byte(unsignedJSON), &tx); err != nil {
		return "", fmt.Errorf("the unsigned transaction: %w", err)
	}
	value := new(big.Int)
	if tx.Value != "" {
		if _, ok := value.SetString(strings.TrimPrefix(tx.Value, "0x"), 16); !ok {
			return "", fmt.Errorf("the unsigned transaction's value %q is not hex", tx.Value)
		}
	}
	res, _, err := j.agent.EthSendTransaction(ctx, j.cfg.OrganizationID, api.EthSendTransactionIntentV2{From: j.address,
		Caip2: fmt.Sprintf("eip155:%d", j.cfg.ChainID), Calls: []api.EthCallParams{{To: tx.To, Value: value.String(), Data: tx.Data}}})
	if err != nil {
		return "", fmt.Errorf("send: %w", err)
	}
	st, err := j.agent.WaitForSendTransaction(ctx, j.cfg.OrganizationID, res.SendTransactionStatusID, 2*time.Minute)
	if err != nil {
		return "", err
	}
	return st.Eth.TxHash, nil
}

func (j *journey) balance(out *string) func(context.Context) (string, error) {
	return func(ctx context.Context) (string, error) {
		text, active, err := j.yield.balances(ctx, j.yieldID, j.address)
		if err != nil {
			return "", err
		}
		*out, j.active = text, active
		return text, nil
	}
}

// holdDays is how long the journey holds its position: long enough for a visible accrual at a few percent a year.
const holdDays = 30

// hold keeps the position across one accrual and says what it earned. The dev chain's clock moves forward (its
// evm_increaseTime pays the yield that time earned); a real network's does not on demand, so there nothing is held.
func (j *journey) hold(ctx context.Context) (string, error) {
	if j.cfg.FaucetURL == "" {
		return "skipped: on a real network the position earns as blocks come", nil
	}
	before := j.active
	if err := j.chain.call(ctx, "evm_increaseTime", []any{holdDays * 24 * 3600}, nil); err != nil {
		return "", fmt.Errorf("move the dev chain's clock: %w", err)
	}
	text, after, err := j.yield.balances(ctx, j.yieldID, j.address)
	if err != nil {
		return "", err
	}
	j.active = after
	earned, err := decimalDifference(after, before)
	if err != nil {
		return "", err
	}
	j.sum.Earned = fmt.Sprintf("%s USDC in %d days", earned, holdDays)
	return fmt.Sprintf("%d days later: %s; earned %s USDC", holdDays, text, earned), nil
}

// decimalDifference is a − b for decimal strings, exact.
func decimalDifference(a, b string) (string, error) {
	x, ok1 := new(big.Rat).SetString(a)
	y, ok2 := new(big.Rat).SetString(b)
	if !ok1 || !ok2 {
		return "", fmt.Errorf("amounts %q and %q are not decimal numbers", a, b)
	}
	d := new(big.Rat).Sub(x, y)
	text := d.FloatString(18)
	text = strings.TrimRight(strings.TrimRight(text, "0"), ".")
	return text, nil
}

// tryForbidden asks the coordinator to sign (or, with Send, to send) an ERC-20 transfer to another contract: no
// policy allows it.
func (j *journey) tryForbidden(ctx context.Context) (string, error) {
	recipient := strings.TrimPrefix(strings.ToLower(j.target), "0x")
	data := "0xa9059cbb" + strings.Repeat("0", 24) + recipient + fmt.Sprintf("%064x", big.NewInt(1))
	const to = "0x000000000000000000000000000000000000dEaD"
	var err error
	if j.cfg.Send {
		_, _, err = j.agent.EthSendTransaction(ctx, j.cfg.OrganizationID, api.EthSendTransactionIntentV2{From: j.address,
			Caip2: fmt.Sprintf("eip155:%d", j.cfg.ChainID), Calls: []api.EthCallParams{{To: to, Data: data}}})
	} else {
		unsigned, uerr := client.UnsignedTransaction(fmt.Sprintf(`{"to":%q,"data":%q,"value":"0x0","gasLimit":"0x186a0","maxFeePerGas":"0x77359400","maxPriorityFeePerGas":"0x3b9aca00","nonce":0,"chainId":%d,"type":2}`,
			to, data, j.cfg.ChainID))
		if uerr != nil {
			return "", uerr
		}
		_, _, err = j.agent.SignTransaction(ctx, j.cfg.OrganizationID, api.SignTransactionIntentV2{
			SignWith: j.address, UnsignedTransaction: unsigned, Type: api.TransactionTypeEthereum})
	}
	var denied *apierr.Error
	if !errors.As(err, &denied) || denied.Code != apierr.PermissionDenied {
		return "", fmt.Errorf("the coordinator should have refused, got %v", err)
	}
	j.sum.Denial = fmt.Sprintf("transfer(%s, 1) sent to 0x…dEaD, a contract no policy names — %s", j.target, j.describeOutcomes(denied))
	return "refused: " + j.sum.Denial, nil
}

// describeOutcomes says what each of the agent's policies decided, by name, from a denial's details; the
// organization's other policies are left out.
func (j *journey) describeOutcomes(e *apierr.Error) string {
	var parts []string
	for _, d := range e.Extra {
		m, _ := d.(map[string]any)
		evals, _ := m["policyEvaluations"].([]any)
		for _, ev := range evals {
			em, _ := ev.(map[string]any)
			id, _ := em["policyId"].(string)
			if name, ok := j.policies[id]; ok {
				outcome, _ := em["outcome"].(string)
				parts = append(parts, fmt.Sprintf("%q: %s", name, strings.ToLower(strings.TrimPrefix(outcome, "OUTCOME_"))))
			}
		}
	}
	if len(parts) == 0 {
		return "no policy of the agent allowed it"
	}
	return strings.Join(parts, ", ")
}

// protocol is how the journey enters and exits one kind of yield: the contract's two functions its policies allow.
type protocol struct {
	noun        string // "vault" or "pool"
	provider    string // the yield's provider in the yield service
	lending     bool   // an Aave v3 pool (the contract is not the output token)
	enter, exit call
}

type call struct{ name, policy, selector string }

var protocols = map[string]protocol{
	"vault": {noun: "vault", provider: "sigil",
		enter: call{"deposit", "deposit into the vault", "0x6e553f65"},  // deposit(uint256,address)
		exit:  call{"redeem", "withdraw from the vault", "0xba087652"}}, // redeem(uint256,address,address)
	"morpho": {noun: "vault", provider: "morpho",
		enter: call{"deposit", "deposit into the vault", "0x6e553f65"},
		exit:  call{"redeem", "withdraw from the vault", "0xba087652"}},
	"aave": {noun: "pool", provider: "aave", lending: true,
		enter: call{"supply", "supply to the pool", "0x617ba037"},        // supply(address,uint256,address,uint16)
		exit:  call{"withdraw", "withdraw from the pool", "0x69328dec"}}, // withdraw(address,uint256,address)
}

// Protocols lists the values Config.Protocol takes.
func Protocols() []string { return []string{"vault", "morpho", "aave"} }

func (j *journey) protocol() protocol {
	if p, ok := protocols[j.cfg.Protocol]; ok {
		return p
	}
	return protocols["vault"]
}
