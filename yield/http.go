package yield

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"sigil/store"
)

const maxBodyBytes = 64 << 10

// Handler serves the API: /health without a key, everything under /v1 with an X-API-KEY.
func (s *Service) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", s.health)
	route := func(pattern string, h func(http.ResponseWriter, *http.Request, *keyInfo) error) {
		mux.Handle(pattern, s.authed(h))
	}
	route("GET /v1/yields", s.handleYields)
	route("GET /v1/yields/{id}", s.handleYield)
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
	return s.logged(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, pattern := mux.Handler(r); pattern == "" {
			writeError(w, &apiError{Status: http.StatusNotFound, Message: fmt.Sprintf("Cannot %s %s", r.Method, r.URL.Path)})
			return
		}
		mux.ServeHTTP(w, r)
	}))
}

// authed checks the API key and the key's rate limit, sets the x-ratelimit-* headers and runs h.
func (s *Service) authed(h func(http.ResponseWriter, *http.Request, *keyInfo) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k, err := s.authenticate(r.Context(), r.Header.Get("X-API-KEY"))
		if err != nil {
			s.fail(w, r, err)
			return
		}
		if lw, ok := w.(*loggedWriter); ok {
			lw.keyID = k.id
		}
		v := s.limiter.take(k.id, s.now())
		hdr := w.Header()
		hdr.Set("X-RateLimit-Limit", strconv.Itoa(v.limit))
		hdr.Set("X-RateLimit-Remaining", strconv.Itoa(v.remaining))
		hdr.Set("X-RateLimit-Reset", strconv.FormatInt(v.reset.Unix(), 10))
		if !v.allowed {
			s.fail(w, r, &apiError{Status: http.StatusTooManyRequests, Message: "Rate limit exceeded", RetryAfter: v.retryAfter})
			return
		}
		if err := h(w, r, k); err != nil {
			s.fail(w, r, err)
		}
	})
}

// fail answers an error; one that is not meant for the caller is logged and answered as a 500 (503 for a node that
// did not answer) without its text.
func (s *Service) fail(w http.ResponseWriter, r *http.Request, err error) {
	var ae *apiError
	if errors.As(err, &ae) {
		writeError(w, ae)
		return
	}
	if errors.Is(err, context.Canceled) && r.Context().Err() != nil {
		return // the caller went away
	}
	var ue *upstreamError
	if errors.As(err, &ue) {
		s.log.Warn("yield: RPC node failed", "path", r.URL.Path, "err", err)
		writeError(w, &apiError{Status: http.StatusServiceUnavailable,
			Message: fmt.Sprintf("The RPC node of network %s did not answer; retry shortly", ue.network)})
		return
	}
	s.log.Error("yield: request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	writeError(w, err)
}

// loggedWriter records the status for the request log line.
type loggedWriter struct {
	http.ResponseWriter
	status int
	keyID  string
}

func (w *loggedWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

// logged writes one log line per request: method, path, status, duration and the key's id (never the key).
func (s *Service) logged(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		lw := &loggedWriter{ResponseWriter: w, status: http.StatusOK}
		h.ServeHTTP(lw, r)
		s.log.Info("yield request", "method", r.Method, "path", r.URL.Path, "status", lw.status,
			"took", time.Since(start), "key", lw.keyID)
	})
}

func (s *Service) health(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "OK", "timestamp": s.now().UTC().Format(time.RFC3339)})
}

// decodeBody reads a size-capped JSON body.
func decodeBody(r *http.Request, v any) error {
	data, err := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes+1))
	if err != nil {
		return badRequest("body: could not be read: %v", err)
	}
	if len(data) > maxBodyBytes {
		return badRequest("body: larger than %d bytes", maxBodyBytes)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return badRequest("body: not the expected JSON object: %v", err)
	}
	return nil
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

func (s *Service) handleYields(w http.ResponseWriter, r *http.Request, k *keyInfo) error {
	offset, limit, err := paging(r)
	if err != nil {
		return err
	}
	f, err := parseYieldFilter(r.URL.Query())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, s.listYields(k, f, offset, limit))
	return nil
}

func (s *Service) handleYield(w http.ResponseWriter, r *http.Request, k *keyInfo) error {
	y := s.visibleYield(r.PathValue("id"), k)
	if y == nil {
		return notFoundError("Yield %s not found", truncate(r.PathValue("id"), 200))
	}
	writeJSON(w, http.StatusOK, s.yieldDTO(y))
	return nil
}

func (s *Service) handleBalances(w http.ResponseWriter, r *http.Request, k *keyInfo) error {
	y := s.visibleYield(r.PathValue("id"), k)
	if y == nil {
		return notFoundError("Yield %s not found", truncate(r.PathValue("id"), 200))
	}
	var body struct {
		Address string `json:"address"`
	}
	if err := decodeBody(r, &body); err != nil {
		return err
	}
	out, err := s.balances(r.Context(), k, y, body.Address)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Service) handleMultiBalances(w http.ResponseWriter, r *http.Request, k *keyInfo) error {
	var body struct {
		Queries []balanceQuery `json:"queries"`
	}
	if err := decodeBody(r, &body); err != nil {
		return err
	}
	out, err := s.multiBalances(r.Context(), k, body.Queries)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Service) handleNetworks(w http.ResponseWriter, r *http.Request, _ *keyInfo) error {
	out := make([]networkDTO, 0, len(s.cfg.Catalogue.Networks))
	for _, n := range s.cfg.Catalogue.Networks {
		out = append(out, networkDTO{ID: n.ID, Name: n.Name, Category: "evm", LogoURI: n.LogoURI, ChainID: strconv.FormatInt(n.ChainID, 10)})
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Service) handleProviders(w http.ResponseWriter, r *http.Request, k *keyInfo) error {
	out := make([]providerDTO, 0, len(s.providers))
	for _, p := range s.providers {
		d, err := s.providerDTO(r.Context(), k, p)
		if err != nil {
			return err
		}
		out = append(out, d)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Service) handleProvider(w http.ResponseWriter, r *http.Request, k *keyInfo) error {
	for _, p := range s.providers {
		if p.ID == r.PathValue("id") {
			d, err := s.providerDTO(r.Context(), k, p)
			if err != nil {
				return err
			}
			writeJSON(w, http.StatusOK, d)
			return nil
		}
	}
	return notFoundError("Provider %s not found", truncate(r.PathValue("id"), 200))
}

func (s *Service) actionHandler(intent string) func(http.ResponseWriter, *http.Request, *keyInfo) error {
	return func(w http.ResponseWriter, r *http.Request, k *keyInfo) error {
		var body actionBody
		if err := decodeBody(r, &body); err != nil {
			return err
		}
		out, err := s.createAction(r.Context(), k, intent, body)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusCreated, out)
		return nil
	}
}

var actionStatuses = []string{"CANCELED", "CREATED", "WAITING_FOR_NEXT", "PROCESSING", "FAILED", "SUCCESS", "STALE"}

func (s *Service) handleActions(w http.ResponseWriter, r *http.Request, k *keyInfo) error {
	q := r.URL.Query()
	addr, err := parseAddress("address", q.Get("address"))
	if err != nil {
		return err
	}
	offset, limit, err := paging(r)
	if err != nil {
		return err
	}
	statuses := listParam(q, "status", "statuses")
	for _, st := range statuses {
		if !slices.Contains(actionStatuses, st) {
			return fieldError("status", "%q is not one of %s", truncate(st, 40), strings.Join(actionStatuses, ", "))
		}
	}
	p, err := s.listActions(r.Context(), store.YieldActionQuery{Project: k.project, Address: strings.ToLower(addr.Hex()),
		YieldID: q.Get("yieldId"), Intent: q.Get("intent"), Type: q.Get("type"), Statuses: statuses, Offset: offset, Limit: limit})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, p)
	return nil
}

func (s *Service) handleAction(w http.ResponseWriter, r *http.Request, k *keyInfo) error {
	a, err := s.getAction(r.Context(), k, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, a)
	return nil
}

func (s *Service) handleTransaction(w http.ResponseWriter, r *http.Request, k *keyInfo) error {
	t, err := s.getTransaction(r.Context(), k, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, t)
	return nil
}

func (s *Service) handleSubmitHash(w http.ResponseWriter, r *http.Request, k *keyInfo) error {
	var body struct {
		Hash string `json:"hash"`
	}
	if err := decodeBody(r, &body); err != nil {
		return err
	}
	t, err := s.submitHash(r.Context(), k, r.PathValue("id"), body.Hash)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, t)
	return nil
}

func (s *Service) handleSubmit(w http.ResponseWriter, r *http.Request, k *keyInfo) error {
	var body struct {
		SignedTransaction string `json:"signedTransaction"`
	}
	if err := decodeBody(r, &body); err != nil {
		return err
	}
	t, err := s.submitSigned(r.Context(), k, r.PathValue("id"), body.SignedTransaction)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, t)
	return nil
}
