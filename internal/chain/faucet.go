package chain

import (
	"context"
	"fmt"
	"log/slog"
	"math/big"
	"net/http"
	"sort"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/sigil/sigil/internal/contracts"
	"github.com/sigil/sigil/internal/edge"
	"github.com/sigil/sigil/internal/evmaddr"
	"github.com/sigil/sigil/internal/units"
)

// FaucetPath is where the faucet is served, next to JSON-RPC on the same listener.
const FaucetPath = "/faucet"

// ETH is the key of the ether transfer in a faucet answer.
const ETH = "ETH"

const maxFaucetBody = 16 << 10

// Faucet sends dev-chain ether (from the dev account) and mints test tokens to any address, up to
// a cap per request. It exists only on the dev chain.
type Faucet struct {
	client    *ethclient.Client
	sender    *Account
	addresses contracts.Addresses
	maxETH    *big.Int
	maxTokens map[string]*big.Int // base units, by token fixture name
	// settled, when set, returns once the node's transaction pool has taken in the blocks mined so far, so that a
	// funded wallet can spend as soon as Fund returns (see sealer.syncPool).
	settled func(context.Context) error
}

// FaucetError is a refused faucet request; the HTTP handler answers it with 400 (unless it says otherwise) and
// {code, message}.
type FaucetError struct {
	// Code is invalid_request, invalid_address, invalid_amount, unknown_token, above_cap or nothing_requested; over
	// HTTP also too_large (413), method_not_allowed (405), not_ready (503) and internal (500).
	Code    string
	Message string
	status  int // the HTTP status when it is not 400
}

func (e *FaucetError) Error() string { return "faucet: " + e.Message }

func refuse(code, format string, args ...any) error {
	return &FaucetError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// NewFaucet returns a faucet that pays from sender, which must own the test tokens.
func NewFaucet(client *ethclient.Client, sender *Account, addresses contracts.Addresses, cfg FaucetConfig) (*Faucet, error) {
	f := &Faucet{client: client, sender: sender, addresses: addresses, maxTokens: map[string]*big.Int{}}
	maxETH := cfg.MaxETH
	if maxETH == "" {
		maxETH = DefaultFaucetMaxETH
	}
	var err error
	if f.maxETH, err = units.Parse(maxETH, 18); err != nil {
		return nil, fmt.Errorf("chain: faucet ETH cap: %w", err)
	}
	for name := range cfg.MaxTokens {
		if _, ok := tokenName(name); !ok {
			return nil, fmt.Errorf("chain: faucet cap for %q: not a test token (known: %s)", name, strings.Join(contracts.Tokens(), ", "))
		}
	}
	for _, name := range contracts.Tokens() {
		limit := DefaultFaucetMaxToken
		for configured, v := range cfg.MaxTokens {
			if strings.EqualFold(configured, name) {
				limit = v
			}
		}
		if f.maxTokens[name], err = units.Parse(limit, tokenDecimals(name)); err != nil {
			return nil, fmt.Errorf("chain: faucet cap for %s: %w", name, err)
		}
	}
	return f, nil
}

// tokenName finds a test token by name, ignoring case.
func tokenName(name string) (string, bool) {
	for _, t := range contracts.Tokens() {
		if strings.EqualFold(t, name) {
			return t, true
		}
	}
	return "", false
}

func tokenDecimals(name string) uint8 {
	f, _ := contracts.FixtureNamed(name)
	return f.Decimals
}

// Fund sends eth wei and mints tokens (base units, by token name such as "USDC") to to, waits
// until every transaction is mined and returns their hashes keyed by ETH or token name. A request
// above the caps, for an unknown token or for nothing is refused with a *FaucetError before
// anything is sent.
func (f *Faucet) Fund(ctx context.Context, to common.Address, eth *big.Int, tokens map[string]*big.Int) (map[string]common.Hash, error) {
	if to == (common.Address{}) {
		return nil, refuse("invalid_address", "refusing to fund the zero address")
	}
	type payment struct {
		name   string
		amount *big.Int
	}
	var payments []payment
	if eth != nil && eth.Sign() != 0 {
		if err := f.checkCap(ETH, eth, f.maxETH, 18); err != nil {
			return nil, err
		}
		payments = append(payments, payment{ETH, eth})
	}
	names := make([]string, 0, len(tokens))
	for name := range tokens {
		names = append(names, name)
	}
	sort.Strings(names)
	seen := map[string]bool{}
	for _, requested := range names {
		amount := tokens[requested]
		name, ok := tokenName(requested)
		if !ok {
			return nil, refuse("unknown_token", "unknown token %q (the faucet has %s)", requested, strings.Join(contracts.Tokens(), ", "))
		}
		if seen[name] {
			return nil, refuse("invalid_request", "token %s is requested twice", name)
		}
		seen[name] = true
		if amount == nil || amount.Sign() == 0 {
			continue
		}
		if err := f.checkCap(name, amount, f.maxTokens[name], tokenDecimals(name)); err != nil {
			return nil, err
		}
		payments = append(payments, payment{name, amount})
	}
	if len(payments) == 0 {
		return nil, refuse("nothing_requested", "ask for a positive amount of eth or of a token")
	}

	mint := contracts.MustLoad(contracts.TestToken)
	sent := make(map[string]*types.Transaction, len(payments))
	for _, p := range payments {
		var tx *types.Transaction
		var err error
		if p.name == ETH {
			tx, err = f.sender.Send(ctx, &to, p.amount, nil)
		} else {
			data, packErr := mint.Pack("mint", to, p.amount)
			if packErr != nil {
				return nil, packErr
			}
			token := f.addresses[p.name]
			tx, err = f.sender.Send(ctx, &token, nil, data)
		}
		if err != nil {
			return nil, fmt.Errorf("chain: faucet %s to %s: %w", p.name, to, err)
		}
		sent[p.name] = tx
	}
	hashes := make(map[string]common.Hash, len(sent))
	for name, tx := range sent {
		if _, err := f.sender.Wait(ctx, tx); err != nil {
			return nil, fmt.Errorf("chain: faucet %s to %s: %w", name, to, err)
		}
		hashes[name] = tx.Hash()
	}
	if f.settled != nil {
		if err := f.settled(ctx); err != nil {
			return nil, fmt.Errorf("chain: faucet to %s: %w", to, err)
		}
	}
	return hashes, nil
}

func (f *Faucet) checkCap(name string, amount, limit *big.Int, decimals uint8) error {
	if amount.Sign() < 0 {
		return refuse("invalid_amount", "%s amount %s is negative", name, units.Format(amount, decimals))
	}
	if amount.Cmp(limit) > 0 {
		return refuse("above_cap", "%s amount %s is above the faucet cap of %s per request",
			name, units.Format(amount, decimals), units.Format(limit, decimals))
	}
	return nil
}

// FundRequest is the JSON body of POST /faucet. Amounts are decimal strings in whole units:
// {"address": "0x…", "eth": "1", "tokens": {"USDC": "1000"}}.
type FundRequest struct {
	Address string            `json:"address"`
	ETH     string            `json:"eth,omitempty"`
	Tokens  map[string]string `json:"tokens,omitempty"`
}

// FundResponse is the answer to a funded request: transaction hashes keyed by "ETH" or token name.
type FundResponse struct {
	Address      string            `json:"address"`
	Transactions map[string]string `json:"transactions"`
}

// FundUnits is Fund with the amounts of a FundRequest.
func (f *Faucet) FundUnits(ctx context.Context, req FundRequest) (FundResponse, error) {
	to, err := evmaddr.Parse(req.Address)
	if err != nil {
		return FundResponse{}, refuse("invalid_address", "address: %v", err)
	}
	var eth *big.Int
	if req.ETH != "" {
		v, err := units.Parse(req.ETH, 18)
		if err != nil {
			return FundResponse{}, refuse("invalid_amount", "eth: %v", err)
		}
		eth = v
	}
	tokens := make(map[string]*big.Int, len(req.Tokens))
	for requested, amount := range req.Tokens {
		name, ok := tokenName(requested)
		if !ok {
			return FundResponse{}, refuse("unknown_token", "unknown token %q (the faucet has %s)", requested, strings.Join(contracts.Tokens(), ", "))
		}
		v, err := units.Parse(amount, tokenDecimals(name))
		if err != nil {
			return FundResponse{}, refuse("invalid_amount", "%s: %v", name, err)
		}
		tokens[requested] = v
	}
	hashes, err := f.Fund(ctx, to, eth, tokens)
	if err != nil {
		return FundResponse{}, err
	}
	resp := FundResponse{Address: to.Hex(), Transactions: make(map[string]string, len(hashes))}
	for name, h := range hashes {
		resp.Transactions[name] = h.Hex()
	}
	return resp, nil
}

// faucetFormat is the faucet's wire format: {code, message}.
var faucetFormat = edge.Format{
	Error: func(status int, message string) edge.WireError {
		code := map[int]string{http.StatusRequestEntityTooLarge: "too_large", http.StatusMethodNotAllowed: "method_not_allowed"}[status]
		if code == "" {
			code = "invalid_request"
		}
		return &FaucetError{Code: code, Message: message, status: status}
	},
	Internal: &FaucetError{Code: "internal", Message: "the faucet could not send the transactions; see the dev chain's log",
		status: http.StatusInternalServerError},
}

// Status and Render make a FaucetError an edge.WireError.
func (e *FaucetError) Status() int {
	if e.status == 0 {
		return http.StatusBadRequest
	}
	return e.status
}

func (e *FaucetError) Render(http.Header) any { return errorBody{Code: e.Code, Message: e.Message} }

type errorBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// faucetHandler serves POST /faucet behind the HTTP edge: 200 with a FundResponse, {code, message} otherwise (400 for
// a refused request, decoded strictly: unknown fields and a wrong EIP-55 checksum are refused). faucet returns the
// faucet, or nil while the dev chain still deploys its contracts (503).
func faucetHandler(log *slog.Logger, faucet func() *Faucet) http.Handler {
	svc := &edge.Service{Format: faucetFormat, Logger: log, Message: "faucet request", MaxBodyBytes: maxFaucetBody}
	return svc.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		v, err := serveFaucet(w.Header(), r, faucet())
		edge.Respond(w, r, v, err)
	}))
}

func serveFaucet(h http.Header, r *http.Request, f *Faucet) (any, error) {
	if r.Method != http.MethodPost {
		h.Set("Allow", http.MethodPost)
		return nil, &FaucetError{Code: "method_not_allowed", Message: "use POST with a JSON body", status: http.StatusMethodNotAllowed}
	}
	if f == nil {
		return nil, &FaucetError{Code: "not_ready", Message: "the dev chain is still deploying its contracts; retry in a moment",
			status: http.StatusServiceUnavailable}
	}
	var req FundRequest
	if err := edge.Decode(r, &req); err != nil {
		return nil, err
	}
	return f.FundUnits(r.Context(), req)
}
