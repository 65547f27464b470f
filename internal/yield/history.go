package yield

import (
	"net/http"
	"strconv"
	"time"
)

// Share prices over time, a Sigil extension of the API (GET /v1/yields/{id}/share-prices): the price samples a
// yield's rate is computed from, for charts — the value of one whole share (or receipt unit) in whole tokens at each
// sampled block of the last `days` (1 to 90, default 7), thinned to at most maxPricePoints evenly spread samples.

const maxPricePoints = 200

type sharePriceDTO struct {
	BlockNumber int64   `json:"blockNumber"`
	Timestamp   string  `json:"timestamp"` // the block's time, RFC 3339
	Price       float64 `json:"price"`
}

type sharePricesDTO struct {
	YieldID string          `json:"yieldId"`
	Items   []sharePriceDTO `json:"items"` // oldest first
}

func (s *Service) handleSharePrices(r *http.Request, k *keyInfo) (any, error) {
	y := s.visibleYield(r.PathValue("id"), k)
	if y == nil {
		return nil, notFoundError("Yield %s not found", truncate(r.PathValue("id"), 200))
	}
	days := 7
	if v := r.URL.Query().Get("days"); v != "" {
		var err error
		if days, err = strconv.Atoi(v); err != nil || days < 1 || days > 90 {
			return nil, fieldError("days", "must be a whole number from 1 to 90, got %q", truncate(v, 20))
		}
	}
	since := s.now().Add(-time.Duration(days) * 24 * time.Hour).Unix()
	samples, err := s.store.YieldPriceSamples(r.Context(), y.cfg.ID, since)
	if err != nil {
		return nil, err
	}
	out := sharePricesDTO{YieldID: y.cfg.ID, Items: []sharePriceDTO{}}
	for _, i := range spread(len(samples), maxPricePoints) {
		smp := samples[i]
		out.Items = append(out.Items, sharePriceDTO{BlockNumber: smp.BlockNumber, Timestamp: time.Unix(smp.BlockTime, 0).UTC().Format(time.RFC3339),
			Price: sharePrice(smp, shareDecimals(y), y.cfg.Token.Decimals)})
	}
	return out, nil
}

// spread picks at most max indices of n, evenly spread, the first and the last always among them.
func spread(n, max int) []int {
	if n <= max {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	out := make([]int, max)
	for i := range out {
		out[i] = i * (n - 1) / (max - 1)
	}
	return out
}
