package yield

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/units"
)

// balances reads an address's balances in a yield from the chain, plus what its enter actions still have in flight
// (entering). Only non-zero balances are listed.
func (s *Service) balances(ctx context.Context, k *keyInfo, y *yieldEntry, address string) (yieldBalancesDTO, error) {
	from, err := parseAddress("address", address)
	if err != nil {
		return yieldBalancesDTO{}, err
	}
	out, errs := s.readBalances(ctx, k, []balanceTarget{{y: y, from: from}})
	return out[0], errs[0]
}

// balanceTarget is one yield and address whose balances are read.
type balanceTarget struct {
	y    *yieldEntry
	from common.Address
}

// balanceRead is the progress of one target's read.
type balanceRead struct {
	r        *request
	plan     balancePlan
	finish   func() []position
	inflight []inflightEnter // the project's enter actions in flight on the target, with their receipt reads
	err      error
}

// inflightEnter is an enter action with a step broadcast and not all confirmed: its amount counts as entering unless
// the chain already has its last step's receipt (see readNetworkBalances).
type inflightEnter struct {
	amount *big.Int
	hash   string // the last step's hash; empty while that step is not broadcast
	mined  *bool
}

// readBalances reads the balances of several targets, each answer or error at its target's index. The chain is read
// per network in at most two round trips, however many targets: the first reads of every target in one batch (with
// one latest block for all), then in a second the reads that need their results (a vault's convertToAssets of the
// shares held), only when some target has any.
func (s *Service) readBalances(ctx context.Context, k *keyInfo, targets []balanceTarget) ([]yieldBalancesDTO, []error) {
	reads := make([]*balanceRead, len(targets))
	byNetwork := map[*chainClient][]*balanceRead{}
	for i, t := range targets {
		reads[i] = &balanceRead{r: &request{y: t.y, from: t.from, receiver: t.from}}
		if reads[i].inflight, reads[i].err = s.inflightEnters(ctx, k, t.y, strings.ToLower(t.from.Hex())); reads[i].err != nil {
			continue
		}
		byNetwork[t.y.client] = append(byNetwork[t.y.client], reads[i])
	}
	for c, rs := range byNetwork {
		readNetworkBalances(ctx, c, rs)
	}
	out := make([]yieldBalancesDTO, len(targets))
	errs := make([]error, len(targets))
	for i, rd := range reads {
		if errs[i] = rd.err; errs[i] == nil {
			out[i] = renderBalances(rd.r, rd.finish(), rd.inflight)
		}
	}
	return out, errs
}

// readNetworkBalances runs the chain reads of one network's targets in two batches, the second only as needed.
func readNetworkBalances(ctx context.Context, c *chainClient, reads []*balanceRead) {
	shared := c.newBatch()
	head := shared.head()
	first := []*batch{shared}
	for _, rd := range reads {
		rd.r.head = head
		b := c.newBatch()
		rd.plan = rd.r.y.builder.balances(rd.r, b)
		first = append(first, b)
	}
	// The receipts of the in-flight enters go last in the same batch, which the node answers in order: a receipt
	// missing then was missing when the positions were read, so an amount is never both active and entering.
	for _, rd := range reads {
		b := c.newBatch()
		for _, f := range rd.inflight {
			if f.hash != "" {
				b.mined(f.hash, f.mined)
			}
		}
		first = append(first, b)
	}
	errs := c.runTogether(ctx, first)
	var second []*batch
	var waiting []*balanceRead
	for i, rd := range reads {
		if rd.err = errors.Join(errs[0], errs[i+1], errs[len(reads)+1+i]); rd.err != nil {
			continue
		}
		b := c.newBatch()
		rd.finish = rd.plan(b)
		second, waiting = append(second, b), append(waiting, rd)
	}
	for i, err := range c.runTogether(ctx, second) {
		waiting[i].err = err
	}
}

// renderBalances adds a target's entering balance to its positions on chain and renders them.
func renderBalances(r *request, positions []position, inflight []inflightEnter) yieldBalancesDTO {
	y := r.y
	entering := new(big.Int)
	for _, f := range inflight {
		if !*f.mined {
			entering.Add(entering, f.amount)
		}
	}
	if entering.Sign() > 0 {
		positions = append(positions, position{Type: "entering", Amount: entering, Token: y.cfg.Token})
	}
	out := yieldBalancesDTO{YieldID: y.cfg.ID, Balances: make([]balanceDTO, 0, len(positions))}
	for _, p := range positions {
		out.Balances = append(out.Balances, renderBalance(y, r.from.Hex(), p))
	}
	return out
}

// inflightEnters lists the project's enter actions on the yield whose transactions are broadcast but not all
// confirmed yet, each with its last step's hash once that step is broadcast. The receipt watcher confirms steps only
// every PollInterval, so the caller checks the chain for that hash before counting the amount as entering.
func (s *Service) inflightEnters(ctx context.Context, k *keyInfo, y *yieldEntry, address string) ([]inflightEnter, error) {
	rows, _, err := s.store.YieldActions(ctx, store.YieldActionQuery{Project: k.project, Address: address, YieldID: y.cfg.ID,
		Intent: "enter", Statuses: []string{actionProcessing, actionWaitingForNext}, Limit: 100})
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	ids := make([]string, len(rows))
	for i, a := range rows {
		ids[i] = a.ID
	}
	txs, err := s.store.YieldTransactionsOf(ctx, ids...)
	if err != nil {
		return nil, err
	}
	var out []inflightEnter
	for _, a := range rows {
		var rec actionRecord
		if json.Unmarshal(a.Body, &rec) != nil {
			continue
		}
		v, ok := new(big.Int).SetString(rec.AmountRaw, 10)
		if !ok {
			continue
		}
		f := inflightEnter{amount: v, mined: new(bool)}
		if steps := txs[a.ID]; len(steps) > 0 && steps[len(steps)-1].Status == txBroadcasted {
			f.hash = steps[len(steps)-1].Hash
		}
		out = append(out, f)
	}
	return out, nil
}

// mined queues eth_getTransactionReceipt: *out is set when the transaction is mined, whether it succeeded or not (a
// reverted deposit is not entering either; the watcher fails its action).
func (b *batch) mined(hash string, out *bool) {
	var rcpt *receipt
	i := len(b.elems)
	b.add(&rcpt, "eth_getTransactionReceipt", common.HexToHash(hash))
	b.decoded = append(b.decoded, func() error {
		if err := b.elems[i].Error; err != nil {
			return fmt.Errorf("eth_getTransactionReceipt: %w", err)
		}
		*out = rcpt != nil
		return nil
	})
}

func renderBalance(y *yieldEntry, address string, p position) balanceDTO {
	d := balanceDTO{Address: address, Type: p.Type, Amount: units.Format(p.Amount, p.Token.Decimals), AmountRaw: p.Amount.String(),
		PendingActions: make([]pendingActionDTO, 0, len(p.Pending)), Token: p.Token.dto(y.network.ID), IsEarning: p.IsEarning}
	if p.Date > 0 {
		date := time.Unix(p.Date, 0).UTC().Format(time.RFC3339)
		d.Date = &date
	}
	for _, pa := range p.Pending {
		amount := units.Format(pa.Amount, p.Token.Decimals)
		d.PendingActions = append(d.PendingActions, pendingActionDTO{Intent: pa.Intent, Type: pa.Type, Passthrough: pa.Passthrough,
			Arguments: &argumentSchemaDTO{Fields: []argumentFieldDTO{}}, Amount: &amount})
	}
	if p.Shares != nil && y.cfg.OutputToken != nil {
		shares, raw := units.Format(p.Shares, y.cfg.OutputToken.Decimals), p.Shares.String()
		token := y.cfg.OutputToken.dto(y.network.ID)
		d.ShareAmount, d.ShareAmountRaw, d.ShareToken = &shares, &raw, &token
	}
	return d
}

// balanceQuery is one query of POST /v1/yields/balances.
type balanceQuery struct {
	YieldID string `json:"yieldId,omitempty"`
	Address string `json:"address"`
	Network string `json:"network,omitempty"`
}

// multiBalances answers each query; a query without a yield scans every yield of its network the key sees. Failures
// of one query are listed in errors, not fatal; only yields with a non-zero balance are listed. The yields of all
// queries are read together (readBalances).
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
	var targets []balanceTarget
	for i, q := range queries {
		from, err := parseAddress("queries.address", q.Address)
		if err != nil {
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
			if !seen[t] {
				seen[t] = true
				targets = append(targets, balanceTarget{y: y, from: from})
			}
		}
	}
	balances, errs := s.readBalances(ctx, k, targets)
	for i, bal := range balances {
		if err := errs[i]; err != nil {
			var ae *apiError
			if !errors.As(err, &ae) {
				s.log.Warn("yield: balance query failed", "yieldId", targets[i].y.cfg.ID, "err", err)
			}
			out.Errors = append(out.Errors, balancesErrorDTO{YieldID: targets[i].y.cfg.ID, Error: publicMessage(err)})
			continue
		}
		if len(bal.Balances) > 0 {
			out.Items = append(out.Items, bal)
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
