package yieldagent

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"net/url"
	"strings"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/abis"
)

// The journey's second chapter: the same kind of policy-restricted agent borrows against its vault position. It enters
// the plain USDC vault as in the first chapter, supplies the vault's shares as collateral to the Morpho Blue market
// that lends USDT against them (the yield service's Borrow API builds every transaction), borrows within the limit
// its policies set, is refused by the coordinator a borrow above that limit (which the market itself would allow),
// then repays everything and takes its shares back. The borrowing policies name the market's contract and the
// selectors of supplyCollateral, borrow, repay and withdrawCollateral; the borrow policy also bounds the amount and the
// receiver, read from the calldata with Morpho Blue's ABI uploaded to the coordinator (eth.tx.contract_call_args).

// BorrowSummary is what the second chapter did.
type BorrowSummary struct {
	AgentUserID, WalletAddress, MarketID string
	Borrowed, Limit                      string // USDT, token units
	HealthFactor                         string // after the borrow, as the Borrow API reported it
	Denial                               string
	Hashes                               []string
}

// Morpho Blue's selectors (IMorpho), which the borrowing policies name.
var morphoCalls = []call{
	{"supplyCollateral", "supply the vault shares to the market", "0x238d6579"}, // supplyCollateral((address,address,address,address,uint256),uint256,address,bytes)
	{"borrow", "borrow from the market", "0x50d8cd4b"},                          // borrow((address,address,address,address,uint256),uint256,uint256,address,address)
	{"repay", "repay the market", "0x20b76e81"},                                 // repay((address,address,address,address,uint256),uint256,uint256,address,bytes)
	{"withdrawCollateral", "withdraw the vault shares", "0x8720316d"},           // withdrawCollateral((address,address,address,address,uint256),uint256,address,address)
}

// RunBorrow runs the second chapter; Config.Amount is the USDC entered into the vault, borrow the USDT borrowed and
// limit the most the borrow policy allows.
func RunBorrow(ctx context.Context, cfg Config, borrow, limit string, p Progress) (*BorrowSummary, error) {
	cfg.Protocol = "vault"
	j := &journey{cfg: cfg, p: p, sum: &Summary{}}
	j.root = client.New(cfg.CoordinatorURL, cfg.RootKey)
	j.yield = &yieldAPI{base: cfg.YieldURL, key: cfg.YieldAPIKey}
	j.chain = &rpc{url: cfg.RPCURL}
	b := &borrowJourney{journey: j, borrow: borrow, limit: limit, sum: &BorrowSummary{Borrowed: borrow, Limit: limit}}
	steps := []struct {
		name string
		fn   func(context.Context) (string, error)
	}{
		{"create the agent user, in the root quorum", j.createAgent},
		{"create the agent's wallet", j.createWallet},
		{"fund the wallet from the faucet", b.fund},
		{"discover the USDC vault", j.discover},
		{"discover the market lending USDT against the vault's shares", b.discoverMarket},
		{"upload Morpho Blue's ABI, for the borrowing policy's limit", b.uploadABI},
		{"create the vault's three policies", j.createPolicies},
		{"create the borrowing policies", b.createPolicies},
		{"remove the agent from the root quorum", j.demoteAgent},
		{"enter the vault (approve, deposit)", j.enter},
		{"supply the vault shares as collateral (approve, supplyCollateral)", b.supply},
		{"borrow USDT within the policies' limit", b.doBorrow},
		{"try to borrow above the policies' limit", b.tryAboveLimit},
		{"repay everything (approve, repay)", b.repay},
		{"withdraw the vault shares (withdrawCollateral)", b.withdraw},
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
			return b.sum, fmt.Errorf("%s: %w", s.name, err)
		}
		p.Done(detail)
	}
	b.sum.AgentUserID, b.sum.WalletAddress, b.sum.Hashes = j.agentID, j.address, j.sum.Hashes
	return b.sum, nil
}

type borrowJourney struct {
	*journey
	borrow, limit          string
	sum                    *BorrowSummary
	marketID, morpho, usdt string
	shares                 string // the vault shares supplied, token units
}

func (b *borrowJourney) fund(ctx context.Context) (string, error) {
	if b.cfg.FaucetURL == "" {
		return "no faucet on this network: the wallet must hold ETH, USDC and a little USDT already", nil
	}
	// A little USDT beyond what is borrowed pays the interest accrued until the repayment is mined.
	tokens := map[string]string{"USDC": b.cfg.Amount, "USDT": "1"}
	if err := postJSON(ctx, b.cfg.FaucetURL, map[string]any{"address": b.address, "eth": "1", "tokens": tokens}, nil); err != nil {
		return "", err
	}
	return "1 ETH, " + b.cfg.Amount + " USDC and 1 USDT", nil
}

func (b *borrowJourney) discoverMarket(ctx context.Context) (string, error) {
	var page struct {
		Items []struct {
			ID               string `json:"id"`
			Address          string `json:"address"`
			LoanToken        yieldToken
			CollateralTokens []struct {
				Token  yieldToken `json:"token"`
				MaxLtv string     `json:"maxLtv"`
			} `json:"collateralTokens"`
			BorrowRate string `json:"borrowRate"`
		} `json:"items"`
	}
	q := url.Values{"scope": {"all"}, "integrationId": {"morpho-blue-borrow"}, "network": {b.cfg.Network}, "limit": {"100"}}
	if err := b.yield.do(ctx, http.MethodGet, "/v1/markets?"+q.Encode(), nil, &page); err != nil {
		return "", err
	}
	for _, m := range page.Items {
		if len(m.CollateralTokens) == 1 && strings.EqualFold(m.CollateralTokens[0].Token.Address, b.target) && m.LoanToken.Symbol == "USDT" {
			b.marketID, b.morpho, b.usdt, b.sum.MarketID = m.ID, m.Address, m.LoanToken.Address, m.ID
			return fmt.Sprintf("%s (max LTV %s, borrow rate %s)", m.ID, m.CollateralTokens[0].MaxLtv, m.BorrowRate), nil
		}
	}
	return "", fmt.Errorf("no market on %s lends USDT against %s", b.cfg.Network, b.target)
}

// uploadABI gives the coordinator Morpho Blue's ABI for the market's contract, once per organization, so that policies
// read the borrow's arguments by name.
func (b *borrowJourney) uploadABI(ctx context.Context) (string, error) {
	have, err := b.root.GetSmartContractInterfaces(ctx, b.cfg.OrganizationID)
	if err != nil {
		return "", err
	}
	for _, ci := range have.SmartContractInterfaces {
		if strings.EqualFold(ci.SmartContractAddress, b.morpho) {
			return "already uploaded: " + ci.SmartContractInterfaceID, nil
		}
	}
	abi, _ := abis.InterfaceJSON("MorphoBlue")
	res, _, err := b.root.CreateSmartContractInterface(ctx, b.cfg.OrganizationID, api.CreateSmartContractInterfaceIntent{
		SmartContractAddress: b.morpho, SmartContractInterface: string(abi), Type: api.InterfaceTypeEthereum, Label: "Morpho Blue"})
	if err != nil {
		return "", err
	}
	return res.SmartContractInterfaceID, nil
}

// createPolicies lets the agent approve the vault's shares and USDT for the market, and call the market's four
// functions; the borrow only up to the limit, and only to itself.
func (b *borrowJourney) createPolicies(ctx context.Context) (string, error) {
	limit, err := baseUnitsOf(b.limit, 6)
	if err != nil {
		return "", err
	}
	consensus := "approvers.any(user, user.id == '" + b.agentID + "')"
	policy := func(name, condition string) api.CreatePolicyIntentV3 {
		return api.CreatePolicyIntentV3{PolicyName: name + " " + b.agentID[:8], Effect: api.EffectAllow, Consensus: consensus, Notes: "",
			Condition: condition}
	}
	on := func(contract, selector string) string {
		return "eth.tx.to == '" + contract + "' && eth.tx.data[0..10] == '" + selector + "'"
	}
	intents := []api.CreatePolicyIntentV3{
		policy("approve the vault shares for the market", on(b.target, "0x095ea7b3")),
		policy("approve USDT for the market", on(b.usdt, "0x095ea7b3")),
	}
	for _, c := range morphoCalls {
		condition := on(b.morpho, c.selector)
		if c.name == "borrow" {
			c.policy = "borrow at most " + b.limit + " USDT from the market"
			condition += " && eth.tx.contract_call_args['assets'] <= " + limit.String() +
				" && eth.tx.contract_call_args['receiver'] == '" + strings.ToLower(b.address) + "'"
		}
		intents = append(intents, policy(c.policy, condition))
	}
	res, _, err := b.root.CreatePolicies(ctx, b.cfg.OrganizationID, api.CreatePoliciesIntent{Policies: intents})
	if err != nil {
		return "", err
	}
	var names []string
	for i, id := range res.PolicyIDs {
		b.policies[id] = intents[i].PolicyName
		names = append(names, "\""+intents[i].PolicyName+"\"")
	}
	return strings.Join(names, ", "), nil
}

func (b *borrowJourney) supply(ctx context.Context) (string, error) {
	shares, err := b.yield.shareAmount(ctx, b.yieldID, b.address)
	if err != nil {
		return "", err
	}
	b.shares = shares
	return b.act(ctx, "supply", map[string]any{"marketId": b.marketID, "amount": shares})
}

func (b *borrowJourney) doBorrow(ctx context.Context) (string, error) {
	var a borrowAction
	if err := b.yield.borrowAction(ctx, "borrow", b.address, map[string]any{"marketId": b.marketID, "amount": b.borrow}, &a); err != nil {
		return "", err
	}
	done, err := b.execute(ctx, &a.action)
	if err != nil {
		return "", err
	}
	if a.Metadata.HealthFactor.Predicted != nil {
		b.sum.HealthFactor = *a.Metadata.HealthFactor.Predicted
	}
	return fmt.Sprintf("%s; health factor %s", done, b.sum.HealthFactor), nil
}

// tryAboveLimit asks for more than the policy allows but less than the market would lend: the yield service builds
// it, the coordinator refuses to sign it.
func (b *borrowJourney) tryAboveLimit(ctx context.Context) (string, error) {
	over, err := decimalSum(b.limit, "1")
	if err != nil {
		return "", err
	}
	var a borrowAction
	if err := b.yield.borrowAction(ctx, "borrow", b.address, map[string]any{"marketId": b.marketID, "amount": over}, &a); err != nil {
		return "", fmt.Errorf("the yield service should build a borrow the market allows: %w", err)
	}
	_, err = b.execute(ctx, &a.action)
	var denied *apierr.Error
	if !errors.As(err, &denied) || denied.Code != apierr.PermissionDenied {
		return "", fmt.Errorf("the coordinator should have refused to sign, got %v", err)
	}
	b.sum.Denial = fmt.Sprintf("borrow %s USDT, above the %s the policy allows — %s", over, b.limit, b.describeOutcomes(denied))
	return "refused: " + b.sum.Denial, nil
}

func (b *borrowJourney) repay(ctx context.Context) (string, error) {
	return b.act(ctx, "repay", map[string]any{"marketId": b.marketID, "repayAll": true})
}

func (b *borrowJourney) withdraw(ctx context.Context) (string, error) {
	return b.act(ctx, "withdraw", map[string]any{"marketId": b.marketID, "withdrawAll": true})
}

func (b *borrowJourney) act(ctx context.Context, action string, args map[string]any) (string, error) {
	var a borrowAction
	if err := b.yield.borrowAction(ctx, action, b.address, args, &a); err != nil {
		return "", err
	}
	return b.execute(ctx, &a.action)
}

// borrowAction is a Borrow API action: a yield action's shape, with the health factor's preview.
type borrowAction struct {
	action
	Metadata struct {
		HealthFactor struct {
			Predicted *string `json:"predicted"`
		} `json:"healthFactor"`
	} `json:"metadata"`
}

func (y *yieldAPI) borrowAction(ctx context.Context, action, address string, args map[string]any, out *borrowAction) error {
	return y.do(ctx, http.MethodPost, "/v1/actions", map[string]any{"action": action, "address": address, "args": args}, out)
}

// shareAmount is the vault shares behind an address's active balance, in token units.
func (y *yieldAPI) shareAmount(ctx context.Context, yieldID, address string) (string, error) {
	var res struct {
		Balances []struct {
			Type        string `json:"type"`
			ShareAmount string `json:"shareAmount"`
		} `json:"balances"`
	}
	if err := y.do(ctx, http.MethodPost, "/v1/yields/"+yieldID+"/balances", map[string]string{"address": address}, &res); err != nil {
		return "", err
	}
	for _, b := range res.Balances {
		if b.Type == "active" && b.ShareAmount != "" {
			return b.ShareAmount, nil
		}
	}
	return "", fmt.Errorf("%s holds no shares of %s", address, yieldID)
}

// baseUnitsOf is a decimal amount in base units of a token with that many decimals.
func baseUnitsOf(amount string, decimals int) (*big.Int, error) {
	r, ok := new(big.Rat).SetString(amount)
	if !ok || r.Sign() <= 0 {
		return nil, fmt.Errorf("%q is not an amount", amount)
	}
	r.Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(decimals)), nil)))
	if !r.IsInt() {
		return nil, fmt.Errorf("%q has more than %d decimals", amount, decimals)
	}
	return r.Num(), nil
}

// decimalSum is a + b for decimal strings, exact.
func decimalSum(a, b string) (string, error) {
	return decimalDifference(a, "-"+b)
}
