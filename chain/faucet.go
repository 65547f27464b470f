package chain

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"sort"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"

	"sigil/contracts"
	"sigil/httpjson"
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
	log       *slog.Logger
	// settled, when set, returns once the node's transaction pool has taken in the blocks mined so far, so that a
	// funded wallet can spend as soon as Fund returns (see sealer.syncPool).
	settled func(context.Context) error
}

// FaucetError is a refused faucet request; the HTTP handler answers it with 400.
type FaucetError struct {
	Code    string // invalid_request, invalid_address, invalid_amount, unknown_token, above_cap, nothing_requested
	Message string
}

func (e *FaucetError) Error() string { return "faucet: " + e.Message }

func refuse(code, format string, args ...any) error {
	return &FaucetError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// NewFaucet returns a faucet that pays from sender, which must own the test tokens.
func NewFaucet(client *ethclient.Client, sender *Account, addresses contracts.Addresses, cfg FaucetConfig) (*Faucet, error) {
	f := &Faucet{client: client, sender: sender, addresses: addresses, maxTokens: map[string]*big.Int{}, log: slog.Default()}
	maxETH := cfg.MaxETH
	if maxETH == "" {
		maxETH = DefaultFaucetMaxETH
	}
	var err error
	if f.maxETH, err = ParseUnits(maxETH, 18); err != nil {
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
		if f.maxTokens[name], err = ParseUnits(limit, tokenDecimals(name)); err != nil {
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
		return refuse("invalid_amount", "%s amount %s is negative", name, FormatUnits(amount, decimals))
	}
	if amount.Cmp(limit) > 0 {
		return refuse("above_cap", "%s amount %s is above the faucet cap of %s per request",
			name, FormatUnits(amount, decimals), FormatUnits(limit, decimals))
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
	if !strings.HasPrefix(req.Address, "0x") || !common.IsHexAddress(req.Address) {
		return FundResponse{}, refuse("invalid_address", "address %q is not a 0x-prefixed 20-byte hex address", req.Address)
	}
	to := common.HexToAddress(req.Address)
	var eth *big.Int
	if req.ETH != "" {
		v, err := ParseUnits(req.ETH, 18)
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
		v, err := ParseUnits(amount, tokenDecimals(name))
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

// ServeHTTP serves POST /faucet: 200 with a FundResponse, 400 with {code, message} for a refused
// request.
func (f *Faucet) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeJSON(w, http.StatusMethodNotAllowed, faucetErrorBody("method_not_allowed", "use POST with a JSON body"))
		return
	}
	var req FundRequest
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxFaucetBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		writeJSON(w, http.StatusBadRequest, faucetErrorBody("invalid_request",
			"body must be JSON like {\"address\":\"0x…\",\"eth\":\"1\",\"tokens\":{\"USDC\":\"1000\"}}: "+err.Error()))
		return
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		writeJSON(w, http.StatusBadRequest, faucetErrorBody("invalid_request", "body must hold exactly one JSON object"))
		return
	}
	resp, err := f.FundUnits(r.Context(), req)
	var refused *FaucetError
	switch {
	case errors.As(err, &refused):
		writeJSON(w, http.StatusBadRequest, faucetErrorBody(refused.Code, refused.Message))
	case err != nil:
		f.log.Error("faucet request failed", "address", req.Address, "err", err)
		writeJSON(w, http.StatusInternalServerError, faucetErrorBody("internal", "the faucet could not send the transactions; see the dev chain's log"))
	default:
		writeJSON(w, http.StatusOK, resp)
	}
}

type errorBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func faucetErrorBody(code, message string) errorBody { return errorBody{Code: code, Message: message} }

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Cache-Control", "no-store")
	if err := httpjson.Write(w, status, v); err != nil {
		http.Error(w, "internal error", http.StatusInternalServerError)
	}
}
