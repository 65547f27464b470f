package mcp

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Resources an agent host can read (read-only) and the prompt that walks the second specification's journey.

const (
	policiesURI   = "sigil://policies"
	activitiesURI = "sigil://activities/recent"
)

// policyView is a policy as the resource shows it, with whether its consensus names this server's user.
type policyView struct {
	PolicyID      string `json:"policyId"`
	PolicyName    string `json:"policyName"`
	Effect        string `json:"effect"`
	Consensus     string `json:"consensus"`
	Condition     string `json:"condition"`
	Notes         string `json:"notes,omitempty"`
	NamesThisUser bool   `json:"namesThisUser"`
}

func (s *Server) addResources() {
	s.mcp.AddResource(&mcp.Resource{URI: policiesURI, Name: "policies", Title: "The organization's policies",
		Description: "The policies that decide what this agent may do (read-only): each one's effect, consensus and condition, " +
			"and whether its consensus names this agent's user.", MIMEType: "application/json"}, s.readPolicies)
	s.mcp.AddResource(&mcp.Resource{URI: activitiesURI, Name: "recent-activities", Title: "This agent's recent activities",
		Description: "The activities this agent's user submitted, newest first (at most 25).", MIMEType: "application/json"}, s.readActivities)
}

func (s *Server) readPolicies(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	who, err := s.whoami(ctx)
	if err != nil {
		return nil, err
	}
	res, err := s.coord.ListPolicies(ctx, s.cfg.OrganizationID)
	if err != nil {
		return nil, err
	}
	out := []policyView{}
	for _, p := range res.Policies {
		out = append(out, policyView{PolicyID: p.PolicyID, PolicyName: p.PolicyName, Effect: p.Effect, Consensus: p.Consensus,
			Condition: p.Condition, Notes: p.Notes, NamesThisUser: strings.Contains(p.Consensus, who.UserID)})
	}
	return jsonResource(req.Params.URI, out), nil
}

func (s *Server) readActivities(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	list, err := s.recentActivities(ctx, 25)
	if err != nil {
		return nil, err
	}
	return jsonResource(req.Params.URI, list), nil
}

func jsonResource(uri string, v any) *mcp.ReadResourceResult {
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: compactJSON(v)}}}
}

func (s *Server) addPrompts() {
	s.mcp.AddPrompt(&mcp.Prompt{Name: "yield_journey", Title: "Earn yield under the organization's policies",
		Description: "Walk the journey of an agent that earns yield in a vault: discover it, check, enter (approve and deposit), " +
			"read the balance, exit — every transaction signed by Sigil under the policies.",
		Arguments: []*mcp.PromptArgument{
			{Name: "token", Description: "the deposit token's symbol (default USDC)"},
			{Name: "amount", Description: "how much to deposit, in token units (default 100)"},
			{Name: "network", Description: "the network id (default: the first networks_get_all lists)"},
		}}, s.journeyPrompt)
}

func (s *Server) journeyPrompt(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	args := req.Params.Arguments
	tok, amount, network := cmp.Or(args["token"], "USDC"), cmp.Or(args["amount"], "100"), args["network"]
	if !decimalRE.MatchString(amount) {
		return nil, fmt.Errorf("amount: %s is not an exact decimal amount", quoted(amount))
	}
	if safeSymbol(tok) == "" {
		return nil, fmt.Errorf("token: %s is not a token symbol", quoted(tok))
	}
	where := "on the first network networks_get_all lists"
	if network != "" {
		if safeSymbol(network) == "" && !strings.Contains(network, "-") {
			return nil, fmt.Errorf("network: %s is not a network id", quoted(network))
		}
		where = "on network " + network
	}
	text := fmt.Sprintf(`Earn yield on %[2]s %[1]s %[3]s, under the organization's policies. Every transaction is signed by Sigil; `+
		`what the policies do not allow is refused, and what needs a person's approval waits for it.

1. wallets_list: find this agent's Ethereum account (its address is the wallet address below).
2. wallets_get_balances: check it holds at least %[2]s %[1]s and some ETH for gas.
3. yields_get_all with token %[1]s and types ["vault"]%[4]s: pick the %[1]s ERC-4626 vault; yields_get it and read mechanics.arguments.
4. actions_enter with the yield id, the wallet address and amount "%[2]s": it returns the approval and the deposit, decoded.
5. For each transaction, in order: evaluate_activity (would the policies allow it, and which?), simulate_transaction `+
		`(with the actionId, both steps as one sequence), then send_transaction with its unsignedTransaction unchanged and its `+
		`transactionId — or sign_transaction, then send_raw_transaction — and wait until it is included before the next.
6. get_transaction until each is CONFIRMED; yields_get_balances shows the position.
7. actions_exit with the same yield and address to withdraw, and send its transaction the same way.
If a tool says a transaction was denied, stop and report the policy's reason; if it needs approval, give the user the `+
		`dashboard link and poll with activities_get. Never modify an unsignedTransaction.`, tok, amount, where, networksArg(network))
	return &mcp.GetPromptResult{Description: "The agent's yield journey",
		Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}}}, nil
}

func networksArg(network string) string {
	if network == "" {
		return ""
	}
	return fmt.Sprintf(` and networks ["%s"]`, network)
}
