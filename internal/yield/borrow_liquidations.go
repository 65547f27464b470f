package yield

import (
	"context"
	"math/big"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/sigil/sigil/internal/abis"
	"github.com/sigil/sigil/internal/units"
)

type liquidationAmountDTO struct {
	Token     tokenDTO `json:"token"`
	Amount    string   `json:"amount"`
	AmountRaw string   `json:"amountRaw"`
}

// liquidationDTO is one liquidation of an address's position, read from the protocol's own event (Aave's
// LiquidationCall, Morpho's Liquidate).
type liquidationDTO struct {
	IntegrationID    string                `json:"integrationId"`
	Network          string                `json:"network"`
	MarketID         *string               `json:"marketId"`
	Address          string                `json:"address"`
	Liquidator       string                `json:"liquidator"`
	CollateralSeized liquidationAmountDTO  `json:"collateralSeized"`
	DebtRepaid       liquidationAmountDTO  `json:"debtRepaid"`
	BadDebt          *liquidationAmountDTO `json:"badDebt"` // Morpho: debt the collateral did not cover, written off
	TransactionHash  string                `json:"transactionHash"`
	BlockNumber      uint64                `json:"blockNumber"`
	Timestamp        string                `json:"timestamp"`
}

// handleLiquidations is GET /v1/liquidations: an address's liquidation history, newest first, from the chain's events.
func (s *Service) handleLiquidations(r *http.Request, _ *keyInfo) (any, error) {
	q := r.URL.Query()
	user, err := parseAddress("address", q.Get("address"))
	if err != nil {
		return nil, err
	}
	groups, err := s.positionGroups(q.Get("network"), q.Get("integrationId"), q.Get("marketId"))
	if err != nil {
		return nil, err
	}
	items := []liquidationDTO{}
	byNetwork := map[string][][]*marketEntry{}
	var order []string
	for _, g := range groups {
		if _, ok := byNetwork[g[0].network.ID]; !ok {
			order = append(order, g[0].network.ID)
		}
		byNetwork[g[0].network.ID] = append(byNetwork[g[0].network.ID], g)
	}
	for _, id := range order {
		found, err := s.readLiquidations(r.Context(), byNetwork[id], user)
		if err != nil {
			return nil, err
		}
		items = append(items, found...)
	}
	sort.SliceStable(items, func(i, j int) bool { return items[i].BlockNumber > items[j].BlockNumber })
	return struct {
		Items []liquidationDTO `json:"items"`
	}{items}, nil
}

// readLiquidations reads one network's liquidation events of the address in one round trip (an eth_getLogs per pool
// or market), then the blocks' times in a second.
func (s *Service) readLiquidations(ctx context.Context, groups [][]*marketEntry, user common.Address) ([]liquidationDTO, error) {
	c := groups[0][0].client
	b := c.newBatch()
	logs := make([][]types.Log, len(groups))
	userTopic := common.BytesToHash(user.Bytes())
	for i, g := range groups {
		e := g[0]
		from := e.cfg.FromBlock
		for _, m := range g {
			from = min(from, m.cfg.FromBlock)
		}
		var topics []any
		if e.aave() {
			topics = []any{abis.AaveV3Borrowing.Events["LiquidationCall"].ID, nil, nil, userTopic}
		} else {
			topics = []any{abis.MorphoBlue.Events["Liquidate"].ID, e.id, nil, userTopic}
		}
		b.add(&logs[i], "eth_getLogs", map[string]any{"address": e.contract, "fromBlock": hexutil.EncodeUint64(from),
			"toBlock": "latest", "topics": topics})
	}
	if err := b.run(ctx); err != nil {
		return nil, err
	}
	for i := range b.elems {
		if err := b.elems[i].Error; err != nil {
			return nil, &upstreamError{network: groups[0][0].network.ID, err: err}
		}
	}
	var out []liquidationDTO
	times := c.newBatch()
	blockTimes := map[uint64]*head{}
	for i, g := range groups {
		for _, l := range logs[i] {
			d, ok := liquidationOf(g, l)
			if !ok {
				continue
			}
			if blockTimes[l.BlockNumber] == nil {
				h := new(head)
				blockTimes[l.BlockNumber] = h
				times.add(h, "eth_getBlockByNumber", hexutil.EncodeUint64(l.BlockNumber), false)
			}
			out = append(out, d)
		}
	}
	if err := times.run(ctx); err != nil {
		return nil, err
	}
	for i := range out {
		if h := blockTimes[out[i].BlockNumber]; h != nil {
			out[i].Timestamp = time.Unix(int64(h.Time), 0).UTC().Format(time.RFC3339)
		}
	}
	return out, nil
}

// liquidationOf decodes one event; an event of a token the catalogue does not know shows its address as the symbol.
func liquidationOf(g []*marketEntry, l types.Log) (liquidationDTO, bool) {
	e := g[0]
	tokenOf := func(a common.Address) Token {
		for _, m := range g {
			if t, ok := m.token(a); ok {
				return t
			}
		}
		return Token{Symbol: a.Hex(), Address: a.Hex()}
	}
	amount := func(t Token, v *big.Int) liquidationAmountDTO {
		return liquidationAmountDTO{Token: t.dto(e.network.ID), Amount: units.Format(v, t.Decimals), AmountRaw: v.String()}
	}
	d := liquidationDTO{IntegrationID: e.cfg.Integration, Network: e.network.ID, TransactionHash: l.TxHash.Hex(), BlockNumber: l.BlockNumber}
	if e.aave() {
		values, err := abis.AaveV3Borrowing.Unpack("LiquidationCall", l.Data)
		if err != nil || len(l.Topics) < 4 || len(values) < 3 {
			return d, false
		}
		collateral, debt := common.BytesToAddress(l.Topics[1].Bytes()), common.BytesToAddress(l.Topics[2].Bytes())
		d.Address = strings.ToLower(common.BytesToAddress(l.Topics[3].Bytes()).Hex())
		d.DebtRepaid = amount(tokenOf(debt), values[0].(*big.Int))
		d.CollateralSeized = amount(tokenOf(collateral), values[1].(*big.Int))
		d.Liquidator = strings.ToLower(values[2].(common.Address).Hex())
		for _, m := range g {
			if m.loan == debt {
				d.MarketID = &m.cfg.ID
			}
		}
		return d, true
	}
	values, err := abis.MorphoBlue.Unpack("Liquidate", l.Data)
	if err != nil || len(l.Topics) < 4 || len(values) < 5 {
		return d, false
	}
	d.MarketID = &e.cfg.ID
	d.Liquidator = strings.ToLower(common.BytesToAddress(l.Topics[2].Bytes()).Hex())
	d.Address = strings.ToLower(common.BytesToAddress(l.Topics[3].Bytes()).Hex())
	d.DebtRepaid = amount(e.cfg.LoanToken, values[0].(*big.Int))
	d.CollateralSeized = amount(e.cfg.CollateralTokens[0], values[2].(*big.Int))
	if bad := values[3].(*big.Int); bad.Sign() > 0 {
		d.BadDebt = ptr(amount(e.cfg.LoanToken, bad))
	}
	return d, true
}
