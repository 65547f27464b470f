package mcp

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"net/url"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/internal/abis"
	"github.com/sigil/sigil/internal/evmaddr"
	"github.com/sigil/sigil/internal/units"
)

// The wallet tools: the organization's wallets and accounts, balances, and a new account when policy allows.

type walletsListIn struct {
	WalletID string `json:"walletId,omitempty" jsonschema:"only this wallet"`
}

type walletBalancesIn struct {
	Address string `json:"address" jsonschema:"the account's address"`
	Network string `json:"network,omitempty" jsonschema:"one network id of networks_get_all (default: every network)"`
}

type createAccountIn struct {
	WalletID      string `json:"walletId" jsonschema:"the wallet to derive the account in (wallets_list names them)"`
	AddressFormat string `json:"addressFormat,omitempty" jsonschema:"ADDRESS_FORMAT_ETHEREUM (default) or ADDRESS_FORMAT_SOLANA"`
	Path          string `json:"path,omitempty" jsonschema:"the derivation path (default: the next unused index of the format's standard path)"`
}

func (s *Server) addWalletTools() {
	addTool(s, toolSpec{name: "wallets_list", title: "List wallets and accounts", readOnly: true,
		description: "The organization's wallets and their accounts (address, format, curve, derivation path). No key material " +
			"ever leaves Sigil.",
		example: map[string]any{}},
		s.walletsList)
	addTool(s, toolSpec{name: "wallets_get_balances", title: "An account's balances", readOnly: true,
		description: "An account's balances on each network: the native coin and the tokens the yield catalogue names, read " +
			"from the network's node, and its positions in yields, from the yield service. Amounts are exact decimal strings.",
		example: map[string]any{"address": exampleWallet, "network": "sigil-dev"}},
		s.walletBalances)
	addTool(s, toolSpec{name: "wallets_create_account", title: "Create an account",
		description: "Derive a new account in a wallet (CREATE_WALLET_ACCOUNTS), if the organization's policies allow this " +
			"user to; one that needs approval returns its activity.",
		example: map[string]any{"walletId": "5b0b4a2e-…", "addressFormat": "ADDRESS_FORMAT_ETHEREUM"}},
		s.createAccount)
}

// account is a wallet account as the tools show it: no public key, nothing that could be key material.
type account struct {
	Address       string `json:"address"`
	AddressFormat string `json:"addressFormat"`
	Curve         string `json:"curve"`
	Path          string `json:"path"`
}

type walletView struct {
	WalletID   string    `json:"walletId"`
	WalletName string    `json:"walletName"`
	Accounts   []account `json:"accounts"`
}

func (s *Server) walletAccounts(ctx context.Context, walletID string) ([]account, error) {
	res, err := s.coord.ListWalletAccounts(ctx, api.ListWalletAccountsRequest{OrganizationID: s.cfg.OrganizationID, WalletID: walletID,
		PaginationOptions: &api.Pagination{Limit: "100"}})
	if err != nil {
		return nil, err
	}
	out := []account{}
	for _, a := range res.Accounts {
		out = append(out, account{Address: a.Address, AddressFormat: a.AddressFormat, Curve: a.Curve, Path: a.Path})
	}
	return out, nil
}

func (s *Server) walletsList(ctx context.Context, in *walletsListIn) (*mcp.CallToolResult, any, error) {
	res, err := s.coord.ListWallets(ctx, s.cfg.OrganizationID)
	if err != nil {
		return s.refusal(ctx, "Listing the wallets", err, nil)
	}
	out := []walletView{}
	for _, w := range res.Wallets {
		if in.WalletID != "" && w.WalletID != in.WalletID {
			continue
		}
		accounts, err := s.walletAccounts(ctx, w.WalletID)
		if err != nil {
			return s.refusal(ctx, "Listing the accounts of wallet "+w.WalletID, err, nil)
		}
		out = append(out, walletView{WalletID: w.WalletID, WalletName: w.WalletName, Accounts: accounts})
	}
	if in.WalletID != "" && len(out) == 0 {
		return failure(argError("walletId", "no wallet %s in the organization", quoted(in.WalletID)).Error())
	}
	n := 0
	for _, w := range out {
		n += len(w.Accounts)
	}
	// Wallet names are the organization's users' words: data, not Sigil's.
	return reply{Summary: fmt.Sprintf("%s with %s.", plural(len(out), "wallet", "wallets"), plural(n, "account", "accounts")),
		Untrusted: []outside{{fromCoordinator, out}}}.result()
}

// chainBalance is one amount an address holds, as a node answered.
type chainBalance struct {
	Network  string `json:"network"`
	ChainID  int64  `json:"chainId"`
	Token    string `json:"token"` // address, or "native"
	Symbol   string `json:"symbol,omitempty"`
	Amount   string `json:"amount"`
	Raw      string `json:"amountRaw"`
	Decimals uint8  `json:"decimals"`
}

func (s *Server) walletBalances(ctx context.Context, in *walletBalancesIn) (*mcp.CallToolResult, any, error) {
	addr, err := evmaddr.Parse(in.Address)
	if err != nil {
		return failure(argError("address", "%v", err).Error())
	}
	networks, _, err := s.yield.networks(ctx)
	if err != nil {
		return yieldFailure(err)
	}
	var chosen []network
	for _, n := range networks {
		if in.Network == "" || n.ID == in.Network {
			chosen = append(chosen, n)
		}
	}
	if len(chosen) == 0 {
		return failure(argError("network", "%s is not a network of the yield service (networks_get_all lists them)", quoted(in.Network)).Error())
	}
	balances := []chainBalance{}
	var unread []string
	for _, n := range chosen {
		if !s.chains.has(n.ChainID) {
			unread = append(unread, n.ID)
			continue
		}
		list, err := s.chainBalances(ctx, n, addr)
		if err != nil {
			unread = append(unread, n.ID)
			continue
		}
		balances = append(balances, list...)
	}
	type query struct {
		Address string `json:"address"`
		Network string `json:"network"`
	}
	var queries []query
	for _, n := range chosen {
		queries = append(queries, query{Address: addr.Hex(), Network: n.ID})
	}
	positions, err := s.yield.do(ctx, "POST", "/v1/yields/balances", nil, map[string]any{"queries": queries})
	if err != nil {
		return yieldFailure(err)
	}
	summary := fmt.Sprintf("Balances of %s: %s read from the networks' nodes (the native coin and the tokens the yield catalogue names), "+
		"and its positions in yields from the yield service's balances endpoint; both follow as untrusted content. "+
		"(The coordinator's chain-data queries, get_wallet_address_balances, are not in this build.)", addr.Hex(), plural(len(balances), "amount", "amounts"))
	if len(unread) > 0 {
		summary += " No node was read for " + strings.Join(unread, ", ") + " (sigil mcp --rpc configures one)."
	}
	return reply{Summary: summary, Untrusted: []outside{{fromChain, balances}, {fromYield, positions}}}.result()
}

// chainBalances reads an address's native balance and its balance of every token the network's yields name, in one
// batch.
func (s *Server) chainBalances(ctx context.Context, n network, addr common.Address) ([]chainBalance, error) {
	raw, err := s.yield.get(ctx, "/v1/yields", url.Values{"network": {n.ID}, "limit": {"100"}})
	if err != nil {
		return nil, err
	}
	var page struct {
		Items []yield `json:"items"`
	}
	if err := json.Unmarshal(raw, &page); err != nil {
		return nil, err
	}
	var tokens []common.Address
	for _, y := range page.Items {
		for _, t := range append([]token{y.Token}, y.InputTokens...) {
			if common.IsHexAddress(t.Address) && !containsAddress(tokens, common.HexToAddress(t.Address)) {
				tokens = append(tokens, common.HexToAddress(t.Address))
			}
		}
	}
	calls := []*rpcCall{{Method: "eth_getBalance", Params: []any{addr.Hex(), "latest"}}}
	balanceOf, _ := abis.ERC20.Pack("balanceOf", addr)
	for _, t := range tokens {
		calls = append(calls, viewCall(t, balanceOf))
	}
	if err := s.chains.batch(ctx, n.ChainID, calls); err != nil {
		return nil, err
	}
	metas := s.chains.tokenMetas(ctx, n.ChainID, tokens)
	out := []chainBalance{}
	if v, ok := hexBig(calls[0]); ok {
		out = append(out, chainBalance{Network: n.ID, ChainID: n.ChainID, Token: "native", Amount: units.Format(v, 18), Raw: v.String(), Decimals: 18})
	}
	for i, t := range tokens {
		v, ok := hexBig(calls[i+1])
		m, known := metas[t]
		if !ok || !known || v.Sign() == 0 {
			continue
		}
		out = append(out, chainBalance{Network: n.ID, ChainID: n.ChainID, Token: t.Hex(), Symbol: safeSymbol(m.Symbol),
			Amount: units.Format(v, m.Decimals), Raw: v.String(), Decimals: m.Decimals})
	}
	return out, nil
}

// hexBig is a call's quantity or uint256 answer.
func hexBig(c *rpcCall) (*big.Int, bool) {
	if c.Err != nil {
		return nil, false
	}
	var h string
	if json.Unmarshal(c.Result, &h) != nil {
		return nil, false
	}
	b, err := hexutil.Decode(h)
	if err != nil || len(b) > 32 {
		// eth_getBalance answers a quantity ("0x1"), which hexutil.Decode refuses for odd lengths.
		v, err := hexutil.DecodeBig(h)
		return v, err == nil
	}
	return new(big.Int).SetBytes(b), true
}

func (s *Server) createAccount(ctx context.Context, in *createAccountIn) (*mcp.CallToolResult, any, error) {
	format := cmp.Or(in.AddressFormat, "ADDRESS_FORMAT_ETHEREUM")
	var curve, base string
	switch format {
	case "ADDRESS_FORMAT_ETHEREUM":
		curve, base = "CURVE_SECP256K1", "m/44'/60'/0'/0/%d"
	case "ADDRESS_FORMAT_SOLANA":
		curve, base = "CURVE_ED25519", "m/44'/501'/%d'/0'"
	default:
		return failure(argError("addressFormat", "%s is not ADDRESS_FORMAT_ETHEREUM or ADDRESS_FORMAT_SOLANA", quoted(in.AddressFormat)).Error())
	}
	path := in.Path
	if path == "" {
		accounts, err := s.walletAccounts(ctx, in.WalletID)
		if err != nil {
			return s.refusal(ctx, "Reading the wallet's accounts", err, nil)
		}
		used := map[string]bool{}
		for _, a := range accounts {
			used[a.Path] = true
		}
		for i := 0; ; i++ {
			if path = fmt.Sprintf(base, i); !used[path] {
				break
			}
		}
	}
	res, a, err := s.coord.CreateWalletAccounts(ctx, s.cfg.OrganizationID, api.CreateWalletAccountsIntent{WalletID: in.WalletID,
		Accounts: []api.WalletAccountParams{{Curve: curve, PathFormat: "PATH_FORMAT_BIP32", Path: path, AddressFormat: format}}})
	if err != nil {
		return s.refusal(ctx, "Creating the account", err, nil)
	}
	return reply{Summary: fmt.Sprintf("Created account %s (%s, path %s) in wallet %s; activity %s.", res.Addresses[0], format, path, in.WalletID, a.ID),
		Sigil: map[string]any{"address": res.Addresses[0], "path": path, "addressFormat": format, "activityId": a.ID}}.result()
}
