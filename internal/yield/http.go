package yield

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/sigil/sigil/internal/edge"
	"github.com/sigil/sigil/internal/store"
)

const maxBodyBytes = 64 << 10

// handler is a /v1 handler: it returns the answer, or an error the edge renders.
type handler func(r *http.Request, k *keyInfo) (any, error)

// Handler serves the API: /health without a key, everything under /v1 with an X-API-KEY, behind the HTTP edge (bodies
// capped at 64 KiB, errors in the reference's shape, one log line per request with the key's id, never the key).
func (s *Service) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /health", edge.Func(s.health))
	svc := &edge.Service{Format: errorFormat, Logger: s.log, Message: "yield request", MaxBodyBytes: maxBodyBytes, Name: "yield", Metrics: s.cfg.Metrics}
	svc.MountOps(mux, edge.Check{Name: "database", Probe: s.cfg.Store.Ready}, edge.Check{Name: "chain", Probe: s.chainsAnswer})
	route := func(pattern string, h handler) { mux.Handle(pattern, s.authed(h)) }
	route("GET /v1/yields", s.handleYields)
	route("GET /v1/yields/{id}", s.handleYield)
	route("GET /v1/yields/{id}/validators", s.handleValidators)
	route("GET /v1/yields/{id}/risk", s.handleRisk)
	route("GET /v1/yields/{id}/share-prices", s.handleSharePrices) // a Sigil extension (history.go)
	route("POST /v1/yields/{id}/balances", s.handleBalances)
	route("POST /v1/yields/balances", s.handleMultiBalances)
	route("GET /v1/networks", s.handleNetworks)
	route("GET /v1/providers", s.handleProviders)
	route("GET /v1/providers/{id}", s.handleProvider)
	route("POST /v1/actions/enter", s.actionHandler("enter"))
	route("POST /v1/actions/exit", s.actionHandler("exit"))
	route("POST /v1/actions/manage", s.actionHandler("manage"))
	route("GET /v1/actions", s.handleActions)
	route("GET /v1/actions/{id}", s.handleAction)
	route("GET /v1/transactions/{id}", s.handleTransaction)
	route("PUT /v1/transactions/{id}/submit-hash", s.handleSubmitHash)
	route("POST /v1/transactions/{id}/submit", s.handleSubmit)
	// The Borrow API (borrow_*.go), under the same keys.
	route("GET /v1/markets", s.handleMarkets)
	route("GET /v1/markets/{id}", s.handleMarket)
	route("GET /v1/positions", s.handlePositions)
	route("GET /v1/liquidations", s.handleLiquidations)
	route("POST /v1/actions", s.handleBorrowAction)
	route("POST /v1/webhooks", s.handleCreateWebhook)
	route("GET /v1/webhooks", s.handleListWebhooks)
	route("DELETE /v1/webhooks/{id}", s.handleDeleteWebhook)
	return svc.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		if _, pattern := mux.Handler(r); pattern == "" {
			edge.Fail(w, r, &apiError{StatusCode: http.StatusNotFound, Message: fmt.Sprintf("Cannot %s %s", r.Method, r.URL.Path)})
			return
		}
		mux.ServeHTTP(w, r)
	}))
}

// authed checks the API key and the key's rate limit, sets the x-ratelimit-* headers and runs h.
func (s *Service) authed(h handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k, err := s.admit(w.Header(), r)
		if err != nil {
			edge.Fail(w, r, err)
			return
		}
		v, err := h(r, k)
		edge.Respond(w, r, v, err)
	})
}

func (s *Service) admit(hdr http.Header, r *http.Request) (*keyInfo, error) {
	k, err := s.authenticate(r.Context(), r.Header.Get("X-API-KEY"))
	if err != nil {
		return nil, err
	}
	edge.Note(r, slog.String("key", k.id))
	v, err := s.limiter.takeShared(r.Context(), k.id, s.now())
	if err != nil {
		return nil, err
	}
	hdr.Set("X-RateLimit-Limit", strconv.Itoa(v.limit))
	hdr.Set("X-RateLimit-Remaining", strconv.Itoa(v.remaining))
	hdr.Set("X-RateLimit-Reset", strconv.FormatInt(v.reset.Unix(), 10))
	if !v.allowed {
		return nil, &apiError{StatusCode: http.StatusTooManyRequests, Message: "Rate limit exceeded", RetryAfter: v.retryAfter}
	}
	return k, nil
}

// chainsAnswer checks that every network's node answers (its latest block number).
func (s *Service) chainsAnswer(ctx context.Context) error {
	for id, c := range s.clients {
		var n hexutil.Uint64
		b := c.newBatch()
		b.add(&n, "eth_blockNumber")
		if err := b.run(ctx); err != nil {
			return fmt.Errorf("network %s: %w", id, err)
		}
	}
	return nil
}

func (s *Service) health(*http.Request) (any, error) {
	return map[string]string{"status": "OK", "timestamp": s.now().UTC().Format(time.RFC3339)}, nil
}

// paging reads offset (default 0) and limit (default 20, 1 to 100).
func paging(r *http.Request) (offset, limit int, err error) {
	offset, limit = 0, 20
	if v := r.URL.Query().Get("offset"); v != "" {
		if offset, err = strconv.Atoi(v); err != nil || offset < 0 {
			return 0, 0, fieldError("offset", "must be a whole number of at least 0, got %q", truncate(v, 20))
		}
	}
	if v := r.URL.Query().Get("limit"); v != "" {
		if limit, err = strconv.Atoi(v); err != nil || limit < 1 || limit > 100 {
			return 0, 0, fieldError("limit", "must be a whole number from 1 to 100, got %q", truncate(v, 20))
		}
	}
	return offset, limit, nil
}

func (s *Service) handleYields(r *http.Request, k *keyInfo) (any, error) {
	offset, limit, err := paging(r)
	if err != nil {
		return nil, err
	}
	f, err := parseYieldFilter(r.URL.Query())
	if err != nil {
		return nil, err
	}
	return s.listYields(k, f, offset, limit), nil
}

func (s *Service) handleYield(r *http.Request, k *keyInfo) (any, error) {
	y := s.visibleYield(r.PathValue("id"), k)
	if y == nil {
		return nil, notFoundError("Yield %s not found", truncate(r.PathValue("id"), 200))
	}
	return s.yieldDTO(y), nil
}

func (s *Service) handleBalances(r *http.Request, k *keyInfo) (any, error) {
	y := s.visibleYield(r.PathValue("id"), k)
	if y == nil {
		return nil, notFoundError("Yield %s not found", truncate(r.PathValue("id"), 200))
	}
	var body struct {
		Address string `json:"address"`
	}
	if err := edge.Decode(r, &body); err != nil {
		return nil, err
	}
	return s.balances(r.Context(), k, y, body.Address)
}

func (s *Service) handleMultiBalances(r *http.Request, k *keyInfo) (any, error) {
	var body struct {
		Queries []balanceQuery `json:"queries"`
	}
	if err := edge.Decode(r, &body); err != nil {
		return nil, err
	}
	return s.multiBalances(r.Context(), k, body.Queries)
}

func (s *Service) handleNetworks(*http.Request, *keyInfo) (any, error) {
	out := make([]networkDTO, 0, len(s.cfg.Catalogue.Networks))
	for _, n := range s.cfg.Catalogue.Networks {
		out = append(out, networkDTO{ID: n.ID, Name: n.Name, Category: "evm", LogoURI: n.LogoURI, ChainID: strconv.FormatInt(n.ChainID, 10)})
	}
	return out, nil
}

// handleProviders is the reference's paginated list; only the page's providers are read from the chain.
func (s *Service) handleProviders(r *http.Request, k *keyInfo) (any, error) {
	offset, limit, err := paging(r)
	if err != nil {
		return nil, err
	}
	out := page[providerDTO]{Items: []providerDTO{}, Total: len(s.providers), Offset: offset, Limit: limit}
	for i := offset; i < min(offset+limit, len(s.providers)); i++ {
		d, err := s.providerDTO(r.Context(), k, s.providers[i])
		if err != nil {
			return nil, err
		}
		out.Items = append(out.Items, d)
	}
	return out, nil
}

func (s *Service) handleProvider(r *http.Request, k *keyInfo) (any, error) {
	for _, p := range s.providers {
		if p.ID == r.PathValue("id") {
			return s.providerDTO(r.Context(), k, p)
		}
	}
	return nil, notFoundError("Provider %s not found", truncate(r.PathValue("id"), 200))
}

func (s *Service) actionHandler(intent string) handler {
	return func(r *http.Request, k *keyInfo) (any, error) {
		var body actionBody
		if err := edge.Decode(r, &body); err != nil {
			return nil, err
		}
		out, err := s.createAction(r.Context(), k, intent, body)
		return edge.WithStatus(http.StatusCreated, out), err
	}
}

var actionStatuses = []string{"CANCELED", "CREATED", "WAITING_FOR_NEXT", "PROCESSING", "FAILED", "SUCCESS", "STALE"}

func (s *Service) handleActions(r *http.Request, k *keyInfo) (any, error) {
	q := r.URL.Query()
	addr, err := parseAddress("address", q.Get("address"))
	if err != nil {
		return nil, err
	}
	offset, limit, err := paging(r)
	if err != nil {
		return nil, err
	}
	statuses := listParam(q, "status", "statuses")
	for _, st := range statuses {
		if !slices.Contains(actionStatuses, st) {
			return nil, fieldError("status", "%q is not one of %s", truncate(st, 40), strings.Join(actionStatuses, ", "))
		}
	}
	return s.listActions(r.Context(), store.YieldActionQuery{Project: k.project, Address: strings.ToLower(addr.Hex()),
		YieldID: q.Get("yieldId"), Intent: q.Get("intent"), Type: q.Get("type"), Statuses: statuses, Offset: offset, Limit: limit})
}

func (s *Service) handleAction(r *http.Request, k *keyInfo) (any, error) {
	return s.getAction(r.Context(), k, r.PathValue("id"))
}

func (s *Service) handleTransaction(r *http.Request, k *keyInfo) (any, error) {
	return s.getTransaction(r.Context(), k, r.PathValue("id"))
}

func (s *Service) handleSubmitHash(r *http.Request, k *keyInfo) (any, error) {
	var body struct {
		Hash string `json:"hash"`
	}
	if err := edge.Decode(r, &body); err != nil {
		return nil, err
	}
	return s.submitHash(r.Context(), k, r.PathValue("id"), body.Hash)
}

func (s *Service) handleSubmit(r *http.Request, k *keyInfo) (any, error) {
	var body struct {
		SignedTransaction string `json:"signedTransaction"`
	}
	if err := edge.Decode(r, &body); err != nil {
		return nil, err
	}
	return s.submitSigned(r.Context(), k, r.PathValue("id"), body.SignedTransaction)
}
