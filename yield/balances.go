package yield

import (
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"strings"
	"time"

	"sigil/chain"
	"sigil/store"
)

// balances reads an address's balances in a yield from the chain, plus what its enter actions still have in flight
// (entering). Only non-zero balances are listed.
func (s *Service) balances(ctx context.Context, k *keyInfo, y *yieldEntry, address string) (yieldBalancesDTO, error) {
	from, err := parseAddress("address", address)
	if err != nil {
		return yieldBalancesDTO{}, err
	}
	r := &request{y: y, from: from, receiver: from}
	b := y.client.newBatch()
	r.head = b.head()
	finish := y.builder.balances(r, b)
	if err := b.run(ctx); err != nil {
		return yieldBalancesDTO{}, err
	}
	positions, err := finish(ctx)
	if err != nil {
		return yieldBalancesDTO{}, err
	}
	entering, err := s.entering(ctx, k, y, strings.ToLower(from.Hex()))
	if err != nil {
		return yieldBalancesDTO{}, err
	}
	if entering.Sign() > 0 {
		positions = append(positions, position{Type: "entering", Amount: entering, Token: y.cfg.Token})
	}
	out := yieldBalancesDTO{YieldID: y.cfg.ID, Balances: make([]balanceDTO, 0, len(positions))}
	for _, p := range positions {
		out.Balances = append(out.Balances, renderBalance(y, from.Hex(), p))
	}
	return out, nil
}

// entering sums the amounts of the project's enter actions on the yield whose transactions are broadcast but not
// all confirmed yet.
func (s *Service) entering(ctx context.Context, k *keyInfo, y *yieldEntry, address string) (*big.Int, error) {
	rows, _, err := s.store.YieldActions(ctx, store.YieldActionQuery{Project: k.project, Address: address, YieldID: y.cfg.ID,
		Intent: "enter", Statuses: []string{actionProcessing, actionWaitingForNext}, Limit: 100})
	sum := new(big.Int)
	if err != nil {
		return sum, err
	}
	for _, a := range rows {
		var rec actionRecord
		if json.Unmarshal(a.Body, &rec) != nil {
			continue
		}
		if v, ok := new(big.Int).SetString(rec.AmountRaw, 10); ok {
			sum.Add(sum, v)
		}
	}
	return sum, nil
}

func renderBalance(y *yieldEntry, address string, p position) balanceDTO {
	d := balanceDTO{Address: address, Type: p.Type, Amount: chain.FormatUnits(p.Amount, p.Token.Decimals), AmountRaw: p.Amount.String(),
		PendingActions: make([]pendingActionDTO, 0, len(p.Pending)), Token: p.Token.dto(y.network.ID), IsEarning: p.IsEarning}
	if p.Date > 0 {
		date := time.Unix(p.Date, 0).UTC().Format(time.RFC3339)
		d.Date = &date
	}
	for _, pa := range p.Pending {
		amount := chain.FormatUnits(pa.Amount, p.Token.Decimals)
		d.PendingActions = append(d.PendingActions, pendingActionDTO{Intent: pa.Intent, Type: pa.Type, Passthrough: pa.Passthrough,
			Arguments: &argumentSchemaDTO{Fields: []argumentFieldDTO{}}, Amount: &amount})
	}
	if p.Shares != nil && y.cfg.OutputToken != nil {
		shares, raw := chain.FormatUnits(p.Shares, y.cfg.OutputToken.Decimals), p.Shares.String()
		token := y.cfg.OutputToken.dto(y.network.ID)
		d.ShareAmount, d.ShareAmountRaw, d.ShareToken = &shares, &raw, &token
	}
	return d
}

// balanceQuery is one query of POST /v1/yields/balances.
type balanceQuery struct {
	YieldID string `json:"yieldId"`
	Address string `json:"address"`
	Network string `json:"network"`
}

// multiBalances answers each query; a query without a yield scans every yield of its network the key sees. Failures
// of one query are listed in errors, not fatal; only yields with a non-zero balance are listed.
func (s *Service) multiBalances(ctx context.Context, k *keyInfo, queries []balanceQuery) (multiBalancesDTO, error) {
	out := multiBalancesDTO{Items: []yieldBalancesDTO{}, Errors: []balancesErrorDTO{}}
	if len(queries) == 0 {
		return out, fieldError("queries", "is required: a list of {yieldId, address, network}")
	}
	if len(queries) > 100 {
		return out, fieldError("queries", "at most 100 queries per request")
	}
	type target struct{ yieldID, address string }
	seen := map[target]bool{}
	for i, q := range queries {
		if _, err := parseAddress("queries.address", q.Address); err != nil {
			return out, err
		}
		var ys []*yieldEntry
		switch {
		case q.YieldID != "":
			y := s.visibleYield(q.YieldID, k)
			if y == nil {
				out.Errors = append(out.Errors, balancesErrorDTO{YieldID: q.YieldID, Error: "unknown yield"})
				continue
			}
			ys = []*yieldEntry{y}
		case q.Network != "":
			for _, y := range s.yields {
				if y.network.ID == q.Network && y.cfg.visibleTo(k.feeSet) {
					ys = append(ys, y)
				}
			}
			if s.networks[q.Network] == nil {
				return out, fieldError("queries.network", "unknown network %q (query %d)", q.Network, i)
			}
		default:
			return out, fieldError("queries.yieldId", "query %d needs a yieldId or a network", i)
		}
		for _, y := range ys {
			t := target{y.cfg.ID, strings.ToLower(q.Address)}
			if seen[t] {
				continue
			}
			seen[t] = true
			bal, err := s.balances(ctx, k, y, q.Address)
			if err != nil {
				var ae *apiError
				if !errors.As(err, &ae) {
					s.log.Warn("yield: balance query failed", "yieldId", y.cfg.ID, "err", err)
				}
				out.Errors = append(out.Errors, balancesErrorDTO{YieldID: y.cfg.ID, Error: publicMessage(err)})
				continue
			}
			if len(bal.Balances) > 0 {
				out.Items = append(out.Items, bal)
			}
		}
	}
	return out, nil
}

// publicMessage is an error's text if it is meant for the caller, a generic one otherwise.
func publicMessage(err error) string {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae.Message
	}
	var ue *upstreamError
	if errors.As(err, &ue) {
		return "the network's RPC node did not answer"
	}
	return "internal error"
}
