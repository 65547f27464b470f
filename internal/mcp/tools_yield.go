package mcp

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The yield tools: Yield.xyz's sixteen, under its names and argument shapes, over the yield service's API
// (docs/YIELD.md). Where its skills spell an argument two ways (walletAddress or address; network or networks), both
// are taken.

var yieldTypes = []string{"staking", "restaking", "lending", "vault", "fixed_yield", "real_world_asset",
	"concentrated_liquidity_pool", "liquidity_pool"}

type yieldsGetAllIn struct {
	Networks  []string `json:"networks,omitempty" jsonschema:"network ids to search, e.g. [\"base\"] (networks_get_all lists them)"`
	Network   string   `json:"network,omitempty" jsonschema:"one network id: the same as networks with one item"`
	Token     string   `json:"token,omitempty" jsonschema:"the deposit token: a symbol (USDC) or a contract address"`
	Types     []string `json:"types,omitempty" jsonschema:"yield types: staking, restaking, lending, vault, fixed_yield, real_world_asset, concentrated_liquidity_pool, liquidity_pool"`
	Type      string   `json:"type,omitempty" jsonschema:"one yield type: the same as types with one item"`
	Providers []string `json:"providers,omitempty" jsonschema:"provider ids (providers_get_all lists them)"`
	Provider  string   `json:"provider,omitempty" jsonschema:"one provider id"`
	YieldIDs  []string `json:"yieldIds,omitempty" jsonschema:"fetch these yields by id (at most 100)"`
	Search    string   `json:"search,omitempty" jsonschema:"text to find in the yields' names and ids"`
	Sort      string   `json:"sort,omitempty" jsonschema:"rewardRateDesc, rewardRateAsc, statusEnterAsc, statusEnterDesc, statusExitAsc or statusExitDesc"`
	Limit     *int     `json:"limit,omitempty" jsonschema:"page size, 1 to 100 (default 20)"`
	Offset    *int     `json:"offset,omitempty" jsonschema:"items to skip (default 0)"`
}

type yieldIDIn struct {
	YieldID string `json:"yieldId" jsonschema:"the yield's id, as yields_get_all returns it"`
}

type validatorsIn struct {
	YieldID   string `json:"yieldId" jsonschema:"the yield's id"`
	Name      string `json:"name,omitempty" jsonschema:"part of the validator's name"`
	Address   string `json:"address,omitempty" jsonschema:"the validator's address"`
	Provider  string `json:"provider,omitempty" jsonschema:"the validator's provider id"`
	Status    string `json:"status,omitempty" jsonschema:"active or inactive"`
	Preferred *bool  `json:"preferred,omitempty" jsonschema:"only preferred (or only other) validators"`
	Limit     *int   `json:"limit,omitempty" jsonschema:"page size, 1 to 100"`
	Offset    *int   `json:"offset,omitempty" jsonschema:"items to skip"`
}

type balancesIn struct {
	WalletAddress string   `json:"walletAddress,omitempty" jsonschema:"the wallet's address"`
	Address       string   `json:"address,omitempty" jsonschema:"the wallet's address (the same as walletAddress)"`
	YieldID       string   `json:"yieldId,omitempty" jsonschema:"only this yield's balances"`
	YieldIDs      []string `json:"yieldIds,omitempty" jsonschema:"only these yields' balances (at most 100)"`
	Network       string   `json:"network,omitempty" jsonschema:"scan this network's yields (default: every network)"`
}

type historyIn struct {
	YieldID  string `json:"yieldId" jsonschema:"the yield's id"`
	Period   string `json:"period,omitempty" jsonschema:"1d, 7d, 30d, 90d, 1y or all (default 30d); from and to override it"`
	Interval string `json:"interval,omitempty" jsonschema:"day, week or month (default day)"`
	From     string `json:"from,omitempty" jsonschema:"start, RFC 3339 (2026-11-01T00:00:00Z)"`
	To       string `json:"to,omitempty" jsonschema:"end, RFC 3339"`
	Limit    *int   `json:"limit,omitempty" jsonschema:"page size, 1 to 365 (default 30)"`
	Offset   *int   `json:"offset,omitempty" jsonschema:"items to skip"`
}

// actionArgs are a yield's own arguments of an action (mechanics.arguments of yields_get).
type actionArgs struct {
	Amount             string   `json:"amount,omitempty" jsonschema:"the amount in token units, an exact decimal string"`
	UseMaxAmount       bool     `json:"useMaxAmount,omitempty" jsonschema:"exit everything"`
	UseMaxAllowance    bool     `json:"useMaxAllowance,omitempty" jsonschema:"approve an unlimited allowance"`
	ReceiverAddress    string   `json:"receiverAddress,omitempty" jsonschema:"who receives the shares or assets"`
	ValidatorAddress   string   `json:"validatorAddress,omitempty" jsonschema:"the validator (yields_get_validators lists them)"`
	ValidatorAddresses []string `json:"validatorAddresses,omitempty" jsonschema:"validators"`
}

func (a actionArgs) empty() bool {
	return a.Amount == "" && !a.UseMaxAmount && !a.UseMaxAllowance && a.ReceiverAddress == "" && a.ValidatorAddress == "" &&
		len(a.ValidatorAddresses) == 0
}

type actionIn struct {
	YieldID       string `json:"yieldId" jsonschema:"the yield's id (call yields_get first: its mechanics.arguments say what the action takes)"`
	WalletAddress string `json:"walletAddress,omitempty" jsonschema:"the acting wallet's address"`
	Address       string `json:"address,omitempty" jsonschema:"the acting wallet's address (the same as walletAddress)"`
	actionArgs
	Arguments *actionArgs `json:"arguments,omitempty" jsonschema:"the yield's arguments as one object, instead of beside yieldId"`
	Args      *actionArgs `json:"args,omitempty" jsonschema:"the same as arguments"`
}

type manageIn struct {
	YieldID       string `json:"yieldId" jsonschema:"the yield's id"`
	WalletAddress string `json:"walletAddress,omitempty" jsonschema:"the acting wallet's address"`
	Address       string `json:"address,omitempty" jsonschema:"the acting wallet's address (the same as walletAddress)"`
	Action        string `json:"action" jsonschema:"the pending action's type, from yields_get_balances' pendingActions[].type (CLAIM_REWARDS, WITHDRAW)"`
	Passthrough   string `json:"passthrough" jsonschema:"the pending action's passthrough, unchanged"`
	Amount        string `json:"amount,omitempty" jsonschema:"an amount, where the pending action takes one"`
}

type actionIDIn struct {
	ActionID string `json:"actionId" jsonschema:"the action's id, from actions_enter, actions_exit or actions_manage"`
}

type actionsListIn struct {
	WalletAddress string   `json:"walletAddress,omitempty" jsonschema:"the wallet's address"`
	Address       string   `json:"address,omitempty" jsonschema:"the wallet's address (the same as walletAddress)"`
	Statuses      []string `json:"statuses,omitempty" jsonschema:"CREATED, PROCESSING, WAITING_FOR_NEXT, SUCCESS, FAILED, CANCELED, STALE"`
	Status        string   `json:"status,omitempty" jsonschema:"one status"`
	Intent        string   `json:"intent,omitempty" jsonschema:"enter, exit or manage"`
	Type          string   `json:"type,omitempty" jsonschema:"the action's type: STAKE, UNSTAKE, CLAIM_REWARDS ..."`
	YieldID       string   `json:"yieldId,omitempty" jsonschema:"only this yield's actions"`
	Limit         *int     `json:"limit,omitempty" jsonschema:"page size, 1 to 100"`
	Offset        *int     `json:"offset,omitempty" jsonschema:"items to skip"`
}

type submitHashIn struct {
	TransactionID string `json:"transactionId" jsonschema:"the transaction's id: transactions[].id of the action"`
	Hash          string `json:"hash" jsonschema:"the hash of the broadcast transaction"`
}

type transactionIDIn struct {
	TransactionID string `json:"transactionId" jsonschema:"the transaction's id: transactions[].id of the action"`
}

type networksIn struct {
	Search   string `json:"search,omitempty" jsonschema:"part of the network's id or name (2 characters at least)"`
	Category string `json:"category,omitempty" jsonschema:"evm, cosmos, substrate or misc"`
}

type pageIn struct {
	Limit  *int `json:"limit,omitempty" jsonschema:"page size, 1 to 100"`
	Offset *int `json:"offset,omitempty" jsonschema:"items to skip"`
}

const exampleYield = "sigil-dev-usdc-sigil-usdc-vault-0x9fe46736679d2d9a65f0992f2272de9f3c7fa6e0-4626-vault"
const exampleWallet = "0x1c6f5B1b6aC1A1Ee5aB8a3c9e5C7B8E2dC1e8F21"

func (s *Server) addYieldTools() {
	addTool(s, toolSpec{name: "yields_get_all", title: "Search yields", readOnly: true,
		description: "Search and filter the yield opportunities: paginated summaries (id, network, token, reward rate, status, " +
			"mechanics with cooldown and entry limits, fee-taking mechanisms).",
		example: map[string]any{"networks": []string{"sigil-dev"}, "token": "USDC", "types": []string{"vault"}, "sort": "rewardRateDesc", "limit": 10}},
		s.yieldsGetAll)
	addTool(s, toolSpec{name: "yields_get", title: "Get a yield", readOnly: true,
		description: "One yield's full metadata: mechanics, the arguments enter and exit take (mechanics.arguments), fees, entry " +
			"limits, share token, status. Call it before any action.",
		example: map[string]any{"yieldId": exampleYield}},
		func(ctx context.Context, in *yieldIDIn) (*mcp.CallToolResult, any, error) {
			return s.yieldGet(ctx, "/v1/yields/"+url.PathEscape(in.YieldID), nil, "yield "+in.YieldID)
		})
	addTool(s, toolSpec{name: "yields_get_validators", title: "List a yield's validators", readOnly: true,
		description: "The validators of a staking yield (commission, TVL, reward rate, status, preferred), paginated; other " +
			"kinds answer an empty page.",
		example: map[string]any{"yieldId": "sigil-dev-eth-sigil-staking", "preferred": true}},
		s.yieldsGetValidators)
	addTool(s, toolSpec{name: "yields_get_balances", title: "Get a wallet's yield balances", readOnly: true,
		description: "A wallet's positions in yields: active, entering, exiting, withdrawable and claimable amounts (exact " +
			"decimal strings), with the pendingActions (and their passthrough) that actions_manage takes.",
		example: map[string]any{"walletAddress": exampleWallet, "yieldId": exampleYield}},
		s.yieldsGetBalances)
	addTool(s, toolSpec{name: "yields_get_reward_rate_history", title: "Reward rate history", readOnly: true,
		description: "A yield's reward rate over time, one point per interval, computed from the yield service's price-per-share " +
			"samples (kept for two weeks); an empty list when there are none.",
		example: map[string]any{"yieldId": exampleYield, "period": "7d", "interval": "day"}},
		s.rewardRateHistory)
	addTool(s, toolSpec{name: "yields_get_tvl_history", title: "TVL history", readOnly: true,
		description: "A yield's TVL over time. This yield service keeps no TVL history: the list is empty, as for any yield " +
			"without one.",
		example: map[string]any{"yieldId": exampleYield, "period": "30d"}},
		s.tvlHistory)
	addTool(s, toolSpec{name: "yields_get_risk", title: "A yield's risk", readOnly: true,
		description: "What the service knows of a yield's risk from the chain: contract age, upgradeability, audits, fees, " +
			"concentration.",
		example: map[string]any{"yieldId": exampleYield}},
		func(ctx context.Context, in *yieldIDIn) (*mcp.CallToolResult, any, error) {
			return s.yieldGet(ctx, "/v1/yields/"+url.PathEscape(in.YieldID)+"/risk", nil, "the risk parameters of "+in.YieldID)
		})
	addTool(s, toolSpec{name: "actions_enter", title: "Build an enter action",
		description: "Build the unsigned transactions that deposit into (or stake in) a yield, in signing order, each decoded: " +
			"the contract, the function, the amounts with their tokens. Sign and send them in order, each included before " +
			"the next, and submit_hash each. Never modify an unsignedTransaction.",
		example: map[string]any{"yieldId": exampleYield, "walletAddress": exampleWallet, "amount": "100"}},
		func(ctx context.Context, in *actionIn) (*mcp.CallToolResult, any, error) {
			return s.buildAction(ctx, "enter", in)
		})
	addTool(s, toolSpec{name: "actions_exit", title: "Build an exit action",
		description: "Build the unsigned transactions that withdraw from (or unstake) a yield, decoded as actions_enter's are.",
		example:     map[string]any{"yieldId": exampleYield, "walletAddress": exampleWallet, "amount": "50"}},
		func(ctx context.Context, in *actionIn) (*mcp.CallToolResult, any, error) {
			return s.buildAction(ctx, "exit", in)
		})
	addTool(s, toolSpec{name: "actions_manage", title: "Build a manage action",
		description: "Build the transactions of a pending action (claim rewards, withdraw after a cooldown) from " +
			"yields_get_balances' pendingActions: its type and passthrough, unchanged.",
		example: map[string]any{"yieldId": "sigil-dev-eth-native-staking", "walletAddress": exampleWallet, "action": "CLAIM_REWARDS", "passthrough": "eyJ..."}},
		s.actionsManage)
	addTool(s, toolSpec{name: "actions_get", title: "Get an action", readOnly: true,
		description: "One action's status and transactions, decoded.",
		example:     map[string]any{"actionId": "0f5c6d1e-2b9a-4c1e-9f2d-3a4b5c6d7e8f"}},
		s.actionsGet)
	addTool(s, toolSpec{name: "actions_get_all", title: "List a wallet's actions", readOnly: true,
		description: "A wallet's actions, newest first, filtered by status, intent, type or yield.",
		example:     map[string]any{"walletAddress": exampleWallet, "statuses": []string{"WAITING_FOR_NEXT", "PROCESSING"}}},
		s.actionsGetAll)
	addTool(s, toolSpec{name: "submit_hash", title: "Submit a transaction's hash", idempotent: true,
		description: "Report the hash of a broadcast transaction to the yield service, which then follows it to CONFIRMED or " +
			"FAILED. Mandatory after each transaction of an action.",
		example: map[string]any{"transactionId": "7a1d…", "hash": "0x" + strings.Repeat("ab", 32)}},
		func(ctx context.Context, in *submitHashIn) (*mcp.CallToolResult, any, error) {
			return s.yieldDo(ctx, http.MethodPut, "/v1/transactions/"+url.PathEscape(in.TransactionID)+"/submit-hash",
				map[string]string{"hash": in.Hash}, "the transaction "+in.TransactionID+" with hash "+in.Hash)
		})
	addTool(s, toolSpec{name: "get_transaction", title: "Get a transaction's status", readOnly: true,
		description: "A transaction of an action: CREATED, BROADCASTED, CONFIRMED or FAILED, with its hash.",
		example:     map[string]any{"transactionId": "7a1d…"}},
		func(ctx context.Context, in *transactionIDIn) (*mcp.CallToolResult, any, error) {
			return s.yieldGet(ctx, "/v1/transactions/"+url.PathEscape(in.TransactionID), nil, "the transaction "+in.TransactionID)
		})
	addTool(s, toolSpec{name: "networks_get_all", title: "List networks", readOnly: true,
		description: "The networks the yield service builds transactions for (id, name, category, chainId).",
		example:     map[string]any{"search": "sigil"}},
		s.networksGetAll)
	addTool(s, toolSpec{name: "providers_get_all", title: "List providers", readOnly: true,
		description: "The protocols and validator providers (type tells them apart), paginated.",
		example:     map[string]any{"limit": 20}},
		func(ctx context.Context, in *pageIn) (*mcp.CallToolResult, any, error) {
			if err := checkPage(in.Limit, in.Offset, 100); err != nil {
				return failure(err.Error())
			}
			return s.yieldGet(ctx, "/v1/providers", pageQuery(url.Values{}, in.Limit, in.Offset), "the providers")
		})
}

// yieldGet answers a tool with a read of the yield service, as untrusted content.
func (s *Server) yieldGet(ctx context.Context, path string, q url.Values, what string) (*mcp.CallToolResult, any, error) {
	raw, err := s.yield.get(ctx, path, q)
	if err != nil {
		return yieldFailure(err)
	}
	return reply{Summary: "The yield service's answer for " + what + " follows, as untrusted content.",
		Untrusted: []outside{{fromYield, raw}}}.result()
}

// yieldDo answers a tool with a write to the yield service.
func (s *Server) yieldDo(ctx context.Context, method, path string, body any, what string) (*mcp.CallToolResult, any, error) {
	raw, err := s.yield.do(ctx, method, path, nil, body)
	if err != nil {
		return yieldFailure(err)
	}
	var tx struct {
		Status string `json:"status"`
	}
	_ = json.Unmarshal(raw, &tx)
	return reply{Summary: fmt.Sprintf("The yield service took %s; its status is now %s. Poll get_transaction until CONFIRMED or FAILED.",
		what, cmp.Or(tx.Status, "unknown")), Untrusted: []outside{{fromYield, raw}}}.result()
}

// yieldFailure is a tool error for a refusal of the yield service: its status in Sigil's words, its message (which
// names the argument at fault) as untrusted content.
func yieldFailure(err error) (*mcp.CallToolResult, any, error) {
	var ye *yieldError
	if errors.As(err, &ye) {
		return failure(fmt.Sprintf("The yield service refused the request (HTTP %d); its message follows.", ye.Status),
			outside{fromYield, map[string]any{"statusCode": ye.Status, "message": ye.Message}})
	}
	return failure(err.Error())
}

func pageQuery(q url.Values, limit, offset *int) url.Values {
	if limit != nil {
		q.Set("limit", strconv.Itoa(*limit))
	}
	if offset != nil {
		q.Set("offset", strconv.Itoa(*offset))
	}
	return q
}

func (s *Server) yieldsGetAll(ctx context.Context, in *yieldsGetAllIn) (*mcp.CallToolResult, any, error) {
	if err := checkPage(in.Limit, in.Offset, 100); err != nil {
		return failure(err.Error())
	}
	types := append(slices.Clone(in.Types), nonEmpty(in.Type)...)
	for i, t := range types {
		if !slices.Contains(yieldTypes, t) {
			return failure(argError(fmt.Sprintf("types[%d]", i), "%s is not one of %s", quoted(t), strings.Join(yieldTypes, ", ")).Error())
		}
	}
	if len(in.YieldIDs) > 100 {
		return failure(argError("yieldIds", "at most 100 ids, got %d", len(in.YieldIDs)).Error())
	}
	q := url.Values{}
	setList(q, "networks", append(slices.Clone(in.Networks), nonEmpty(in.Network)...))
	setList(q, "types", types)
	setList(q, "providers", append(slices.Clone(in.Providers), nonEmpty(in.Provider)...))
	setList(q, "yieldIds", in.YieldIDs)
	for k, v := range map[string]string{"token": in.Token, "search": in.Search, "sort": in.Sort} {
		if v != "" {
			q.Set(k, v)
		}
	}
	raw, err := s.yield.get(ctx, "/v1/yields", pageQuery(q, in.Limit, in.Offset))
	if err != nil {
		return yieldFailure(err)
	}
	var page struct {
		Items []json.RawMessage `json:"items"`
		Total int               `json:"total"`
	}
	_ = json.Unmarshal(raw, &page)
	return reply{Summary: fmt.Sprintf("%s of %d matched; the yield service's summaries follow, as untrusted content.",
		plural(len(page.Items), "yield", "yields"), page.Total), Untrusted: []outside{{fromYield, raw}}}.result()
}

func nonEmpty(v string) []string {
	if v == "" {
		return nil
	}
	return []string{v}
}

func setList(q url.Values, key string, vals []string) {
	if len(vals) > 0 {
		q.Set(key, strings.Join(vals, ","))
	}
}

func (s *Server) yieldsGetValidators(ctx context.Context, in *validatorsIn) (*mcp.CallToolResult, any, error) {
	if err := checkPage(in.Limit, in.Offset, 100); err != nil {
		return failure(err.Error())
	}
	q := url.Values{}
	for k, v := range map[string]string{"name": in.Name, "address": in.Address, "provider": in.Provider, "status": in.Status} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if in.Preferred != nil {
		q.Set("preferred", strconv.FormatBool(*in.Preferred))
	}
	return s.yieldGet(ctx, "/v1/yields/"+url.PathEscape(in.YieldID)+"/validators", pageQuery(q, in.Limit, in.Offset), "the validators of "+in.YieldID)
}

func (s *Server) yieldsGetBalances(ctx context.Context, in *balancesIn) (*mcp.CallToolResult, any, error) {
	addr, err := oneOf("walletAddress", in.WalletAddress, "address", in.Address)
	if err != nil {
		return failure(err.Error())
	}
	ids := append(slices.Clone(in.YieldIDs), nonEmpty(in.YieldID)...)
	if len(ids) > 100 {
		return failure(argError("yieldIds", "at most 100 ids, got %d", len(ids)).Error())
	}
	type query struct {
		YieldID string `json:"yieldId,omitempty"`
		Address string `json:"address"`
		Network string `json:"network,omitempty"`
	}
	var queries []query
	for _, id := range ids {
		queries = append(queries, query{YieldID: id, Address: addr})
	}
	if len(ids) == 0 {
		networks := nonEmpty(in.Network)
		if len(networks) == 0 {
			list, _, err := s.yield.networks(ctx)
			if err != nil {
				return yieldFailure(err)
			}
			for _, n := range list {
				networks = append(networks, n.ID)
			}
		}
		for _, n := range networks {
			queries = append(queries, query{Address: addr, Network: n})
		}
	}
	raw, err := s.yield.do(ctx, http.MethodPost, "/v1/yields/balances", nil, map[string]any{"queries": queries})
	if err != nil {
		return yieldFailure(err)
	}
	return reply{Summary: "The yield service's balances of " + addr + " follow, as untrusted content: amounts are exact decimal " +
		"strings in token units (amountRaw in base units).", Untrusted: []outside{{fromYield, raw}}}.result()
}

func (s *Server) buildAction(ctx context.Context, intent string, in *actionIn) (*mcp.CallToolResult, any, error) {
	addr, err := oneOf("walletAddress", in.WalletAddress, "address", in.Address)
	if err != nil {
		return failure(err.Error())
	}
	args, err := mergeArgs(in)
	if err != nil {
		return failure(err.Error())
	}
	if args.Amount == "" && !args.UseMaxAmount {
		return failure(argError("amount", "is required (or useMaxAmount, to exit everything)").Error())
	}
	if args.Amount != "" {
		if err := checkAmount("amount", args.Amount); err != nil {
			return failure(err.Error())
		}
	}
	raw, err := s.yield.do(ctx, http.MethodPost, "/v1/actions/"+intent, nil,
		map[string]any{"yieldId": in.YieldID, "address": addr, "arguments": args})
	if err != nil {
		return yieldFailure(err)
	}
	return s.actionReply(ctx, raw, "Built")
}

// mergeArgs gathers the yield's arguments from beside yieldId, arguments and args: one place only.
func mergeArgs(in *actionIn) (actionArgs, error) {
	var given []actionArgs
	if !in.actionArgs.empty() {
		given = append(given, in.actionArgs)
	}
	for _, a := range []*actionArgs{in.Arguments, in.Args} {
		if a != nil {
			given = append(given, *a)
		}
	}
	if len(given) > 1 {
		return actionArgs{}, argError("arguments", "give the yield's arguments in one place: beside yieldId, in arguments or in args")
	}
	if len(given) == 0 {
		return actionArgs{}, nil
	}
	return given[0], nil
}

func (s *Server) actionsManage(ctx context.Context, in *manageIn) (*mcp.CallToolResult, any, error) {
	addr, err := oneOf("walletAddress", in.WalletAddress, "address", in.Address)
	if err != nil {
		return failure(err.Error())
	}
	body := map[string]any{"yieldId": in.YieldID, "address": addr, "action": in.Action, "passthrough": in.Passthrough}
	if in.Amount != "" {
		if err := checkAmount("amount", in.Amount); err != nil {
			return failure(err.Error())
		}
		body["arguments"] = map[string]string{"amount": in.Amount}
	}
	raw, err := s.yield.do(ctx, http.MethodPost, "/v1/actions/manage", nil, body)
	if err != nil {
		return yieldFailure(err)
	}
	return s.actionReply(ctx, raw, "Built")
}

func (s *Server) actionsGet(ctx context.Context, in *actionIDIn) (*mcp.CallToolResult, any, error) {
	raw, err := s.yield.get(ctx, "/v1/actions/"+url.PathEscape(in.ActionID), nil)
	if err != nil {
		return yieldFailure(err)
	}
	return s.actionReply(ctx, raw, "Read")
}

// actionFindings is what Sigil makes of an action: each transaction decoded.
type actionFindings struct {
	ActionID     string   `json:"actionId"`
	Status       string   `json:"status"`
	Transactions []effect `json:"transactions"`
	Next         string   `json:"next"`
}

// actionReply answers with an action: its transactions decoded by Sigil from their bytes, the action itself as
// untrusted content.
func (s *Server) actionReply(ctx context.Context, raw json.RawMessage, verb string) (*mcp.CallToolResult, any, error) {
	var a action
	if err := json.Unmarshal(raw, &a); err != nil {
		return failure("The yield service's action could not be read: " + err.Error())
	}
	y, _, err := s.yield.yieldByID(ctx, a.YieldID)
	if err != nil {
		y = nil // the tokens are then described from the chain alone
	}
	var txs []*evmTx
	for i, t := range a.Transactions {
		tx, err := parseUnsignedTx(fmt.Sprintf("transactions[%d].unsignedTransaction", i), t.UnsignedTransaction)
		if err != nil {
			return failure("The yield service's action holds a transaction Sigil cannot read: " + err.Error())
		}
		txs = append(txs, tx)
	}
	effects := s.describeTxs(ctx, txs, y)
	lines := []string{fmt.Sprintf("%s action %s (%s, %s): %s, to sign and send in this order, each included before the next:",
		verb, a.ID, a.Intent, a.Status, plural(len(a.Transactions), "transaction", "transactions"))}
	for i := range effects {
		effects[i].Step, effects[i].Type = ptr(a.Transactions[i].StepIndex), a.Transactions[i].Type
		lines = append(lines, fmt.Sprintf("%d. %s (transaction %s, %s): %s", i+1, a.Transactions[i].Type, a.Transactions[i].ID,
			a.Transactions[i].Status, restate(effects[i])))
	}
	next := "Check each transaction with evaluate_activity and simulate_transaction; then sign_transaction or send_transaction " +
		"it, wait for it to be included, and submit_hash it before the next."
	return reply{Summary: strings.Join(lines, "\n"), Sigil: actionFindings{ActionID: a.ID, Status: a.Status, Transactions: effects, Next: next},
		Untrusted: []outside{{fromYield, raw}}}.result()
}

func (s *Server) actionsGetAll(ctx context.Context, in *actionsListIn) (*mcp.CallToolResult, any, error) {
	addr, err := oneOf("walletAddress", in.WalletAddress, "address", in.Address)
	if err != nil {
		return failure(err.Error())
	}
	if err := checkPage(in.Limit, in.Offset, 100); err != nil {
		return failure(err.Error())
	}
	q := url.Values{"address": {addr}}
	setList(q, "statuses", append(slices.Clone(in.Statuses), nonEmpty(in.Status)...))
	for k, v := range map[string]string{"intent": in.Intent, "type": in.Type, "yieldId": in.YieldID} {
		if v != "" {
			q.Set(k, v)
		}
	}
	return s.yieldGet(ctx, "/v1/actions", pageQuery(q, in.Limit, in.Offset), "the actions of "+addr)
}

func (s *Server) networksGetAll(ctx context.Context, in *networksIn) (*mcp.CallToolResult, any, error) {
	if in.Search != "" && len(in.Search) < 2 {
		return failure(argError("search", "needs at least 2 characters").Error())
	}
	_, raw, err := s.yield.networks(ctx)
	if err != nil {
		return yieldFailure(err)
	}
	var all []map[string]any
	if err := json.Unmarshal(raw, &all); err != nil {
		return failure("The yield service's networks could not be read: " + err.Error())
	}
	out := []map[string]any{}
	for _, n := range all {
		id, _ := n["id"].(string)
		name, _ := n["name"].(string)
		cat, _ := n["category"].(string)
		if in.Search != "" && !strings.Contains(strings.ToLower(id+" "+name), strings.ToLower(in.Search)) {
			continue
		}
		if in.Category != "" && !strings.EqualFold(cat, in.Category) {
			continue
		}
		out = append(out, n)
	}
	return reply{Summary: plural(len(out), "network", "networks") + " matched; the yield service's list follows, as untrusted content.",
		Untrusted: []outside{{fromYield, out}}}.result()
}

// History: the reward rate between price-per-share samples, per interval.

var periods = map[string]time.Duration{"1d": 24 * time.Hour, "7d": 7 * 24 * time.Hour, "30d": 30 * 24 * time.Hour,
	"90d": 90 * 24 * time.Hour, "1y": 365 * 24 * time.Hour, "all": 0}
var intervals = map[string]time.Duration{"day": 24 * time.Hour, "week": 7 * 24 * time.Hour, "month": 30 * 24 * time.Hour}

// historyWindow reads period, interval, from and to.
func historyWindow(in *historyIn, now time.Time) (from, to time.Time, step time.Duration, err error) {
	period := cmp.Or(in.Period, "30d")
	span, ok := periods[period]
	if !ok {
		return from, to, 0, argError("period", "%s is not one of 1d, 7d, 30d, 90d, 1y, all", quoted(in.Period))
	}
	if step, ok = intervals[cmp.Or(in.Interval, "day")]; !ok {
		return from, to, 0, argError("interval", "%s is not one of day, week, month", quoted(in.Interval))
	}
	to = now
	if in.To != "" {
		if to, err = time.Parse(time.RFC3339, in.To); err != nil {
			return from, to, 0, argError("to", "%s is not an RFC 3339 time", quoted(in.To))
		}
	}
	switch {
	case in.From != "":
		if from, err = time.Parse(time.RFC3339, in.From); err != nil {
			return from, to, 0, argError("from", "%s is not an RFC 3339 time", quoted(in.From))
		}
	case span == 0:
		from = to.Add(-90 * 24 * time.Hour) // the most the service keeps
	default:
		from = to.Add(-span)
	}
	if !from.Before(to) {
		return from, to, 0, argError("from", "must be before to")
	}
	return from, to, step, nil
}

func (s *Server) rewardRateHistory(ctx context.Context, in *historyIn) (*mcp.CallToolResult, any, error) {
	from, to, step, err := historyWindow(in, s.cfg.Now())
	if err == nil {
		err = checkPage(in.Limit, in.Offset, 365)
	}
	if err != nil {
		return failure(err.Error())
	}
	days := min(90, max(1, int(math.Ceil(s.cfg.Now().Sub(from).Hours()/24))))
	raw, err := s.yield.get(ctx, "/v1/yields/"+url.PathEscape(in.YieldID)+"/share-prices", url.Values{"days": {strconv.Itoa(days)}})
	if err != nil {
		return yieldFailure(err)
	}
	var samples struct {
		Items []struct {
			Timestamp string      `json:"timestamp"`
			Price     json.Number `json:"price"` // a JSON number (or a string of one), read exactly as a big.Rat below
		} `json:"items"`
	}
	if err := json.Unmarshal(raw, &samples); err != nil {
		return failure("The yield service's samples could not be read: " + err.Error())
	}
	type point struct {
		t     time.Time
		price *big.Rat
	}
	var pts []point
	for _, smp := range samples.Items {
		t, err1 := time.Parse(time.RFC3339, smp.Timestamp)
		p, ok := new(big.Rat).SetString(smp.Price.String())
		if err1 == nil && ok && p.Sign() > 0 && !t.Before(from) && !t.After(to) {
			pts = append(pts, point{t, p})
		}
	}
	type ratePoint struct {
		Timestamp  string  `json:"timestamp"`
		RewardRate float64 `json:"rewardRate"` // a fraction a year, compounded: 0.05 is 5%
	}
	items := []ratePoint{}
	// Each interval's rate is the growth between its first and last sample, compounded to a year.
	for start := from.Truncate(step); start.Before(to); start = start.Add(step) {
		var first, last *point
		for i := range pts {
			if !pts[i].t.Before(start) && pts[i].t.Before(start.Add(step)) {
				if first == nil {
					first = &pts[i]
				}
				last = &pts[i]
			}
		}
		if first == nil || last.t.Sub(first.t) < time.Minute {
			continue
		}
		g, _ := new(big.Rat).Quo(last.price, first.price).Float64()
		apy := math.Pow(g, (365*24*time.Hour).Seconds()/last.t.Sub(first.t).Seconds()) - 1
		items = append(items, ratePoint{Timestamp: start.UTC().Format(time.RFC3339), RewardRate: apy})
	}
	total := len(items)
	offset, limit := 0, 30
	if in.Offset != nil {
		offset = min(*in.Offset, total)
	}
	if in.Limit != nil {
		limit = *in.Limit
	}
	page := items[offset:min(total, offset+limit)]
	out := map[string]any{"yieldId": in.YieldID, "interval": cmp.Or(in.Interval, "day"), "from": from.UTC().Format(time.RFC3339),
		"to": to.UTC().Format(time.RFC3339), "items": page, "total": total}
	summary := fmt.Sprintf("%s of the reward rate of %s, computed by Sigil from the yield service's price-per-share samples "+
		"(the growth over each interval, compounded to a year).", plural(total, "point", "points"), in.YieldID)
	if total == 0 {
		summary = "No reward rate history is available for " + in.YieldID + " in this window: the yield service keeps price-per-share " +
			"samples for two weeks, and an interval needs two samples a minute apart. This is not an error."
	}
	return reply{Summary: summary, Sigil: out}.result()
}

func (s *Server) tvlHistory(ctx context.Context, in *historyIn) (*mcp.CallToolResult, any, error) {
	from, to, _, err := historyWindow(in, s.cfg.Now())
	if err == nil {
		err = checkPage(in.Limit, in.Offset, 365)
	}
	if err != nil {
		return failure(err.Error())
	}
	if _, _, err := s.yield.yieldByID(ctx, in.YieldID); err != nil {
		return yieldFailure(err)
	}
	return reply{Summary: "No TVL history is available for " + in.YieldID + ": this yield service keeps none (yields_get and " +
		"yields_get_risk read the current state). This is not an error.",
		Sigil: map[string]any{"yieldId": in.YieldID, "interval": cmp.Or(in.Interval, "day"), "from": from.UTC().Format(time.RFC3339),
			"to": to.UTC().Format(time.RFC3339), "items": []any{}, "total": 0}}.result()
}
