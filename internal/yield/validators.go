package yield

import (
	"context"
	"math/big"
	"net/http"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/sigil/sigil/internal/units"
)

// GET /v1/yields/{yieldId}/validators. A provider-staking contract pools every staker's ether with one staking
// provider, so its yield has exactly one validator: the provider, identified on chain by the address the contract pays
// the provider's share of the validator fee to (provider()). Everything else it says is read from the contract in one
// batch. Other kinds have no validator to choose: their page is empty, as the reference answers for a yield without
// validator selection (the 404 is only for an unknown yield).

type validatorDTO struct {
	Address       string                `json:"address"`
	Name          string                `json:"name,omitempty"`
	LogoURI       string                `json:"logoURI,omitempty"`
	Website       string                `json:"website,omitempty"`
	RewardRate    *rewardRateDTO        `json:"rewardRate,omitempty"`
	Provider      *validatorProviderDTO `json:"provider,omitempty"`
	Commission    *float64              `json:"commission,omitempty"`
	TVL           string                `json:"tvl,omitempty"`
	TVLRaw        string                `json:"tvlRaw,omitempty"`
	Preferred     bool                  `json:"preferred"`
	MinimumStake  string                `json:"minimumStake,omitempty"`
	Status        string                `json:"status,omitempty"`
	ProviderID    string                `json:"providerId,omitempty"`
	PricePerShare string                `json:"pricePerShare,omitempty"`
}

// validatorProviderDTO is the reference's ValidatorProviderDto. A self-hosted service ranks its one provider per
// yield first.
type validatorProviderDTO struct {
	Name        string  `json:"name"`
	ID          string  `json:"id"`
	LogoURI     string  `json:"logoURI"`
	Description string  `json:"description"`
	Website     string  `json:"website"`
	TVLUsd      *string `json:"tvlUsd"`
	Type        string  `json:"type"`
	Rank        int     `json:"rank"`
	Preferred   bool    `json:"preferred"`
}

// validatorFilter is the query of the validators endpoint: name is a case-insensitive substring, address is compared
// case-insensitively, preferred is only applied when given.
type validatorFilter struct {
	name, address, provider, status string
	preferred                       *bool
}

func parseValidatorFilter(r *http.Request) (validatorFilter, error) {
	q := r.URL.Query()
	f := validatorFilter{name: strings.ToLower(q.Get("name")), address: strings.ToLower(q.Get("address")),
		provider: q.Get("provider"), status: strings.ToLower(q.Get("status"))}
	if v := q.Get("preferred"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return f, fieldError("preferred", "must be true or false, got %q", truncate(v, 20))
		}
		f.preferred = &b
	}
	return f, nil
}

func (f validatorFilter) match(v *validatorDTO) bool {
	switch {
	case f.name != "" && !strings.Contains(strings.ToLower(v.Name), f.name):
		return false
	case f.address != "" && strings.ToLower(v.Address) != f.address:
		return false
	case f.provider != "" && v.ProviderID != f.provider:
		return false
	case f.status != "" && strings.ToLower(v.Status) != f.status:
		return false
	case f.preferred != nil && v.Preferred != *f.preferred:
		return false
	}
	return true
}

func (s *Service) handleValidators(r *http.Request, k *keyInfo) (any, error) {
	y := s.visibleYield(r.PathValue("id"), k)
	if y == nil {
		return nil, notFoundError("Yield %s not found", truncate(r.PathValue("id"), 200))
	}
	offset, limit, err := paging(r)
	if err != nil {
		return nil, err
	}
	f, err := parseValidatorFilter(r)
	if err != nil {
		return nil, err
	}
	all, err := s.validators(r.Context(), y)
	if err != nil {
		return nil, err
	}
	var kept []validatorDTO
	for i := range all {
		if f.match(&all[i]) {
			kept = append(kept, all[i])
		}
	}
	p := page[validatorDTO]{Items: []validatorDTO{}, Total: len(kept), Offset: offset, Limit: limit}
	if offset < len(kept) {
		p.Items = kept[offset:min(offset+limit, len(kept))]
	}
	return p, nil
}

// validators lists a yield's validators: the provider of a provider-staking yield, none for the other kinds.
func (s *Service) validators(ctx context.Context, y *yieldEntry) ([]validatorDTO, error) {
	if y.cfg.Kind != KindProviderStaking {
		return nil, nil
	}
	b := y.client.newBatch()
	provider := b.read(y.staking, &providerStakingABI, "provider")
	feeBps := b.uint(y.staking, &providerStakingABI, "validatorFeeBps")
	pooled := b.uint(y.staking, &providerStakingABI, "totalPooledEther")
	oneShare := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(y.cfg.OutputToken.Decimals)), nil)
	perShare := b.uint(y.staking, &providerStakingABI, "convertToEther", oneShare)
	if err := b.run(ctx); err != nil {
		return nil, err
	}
	who, _ := (*provider)[0].(common.Address)
	commission := float64(feeBps.Int64()) / bpsPerOne
	rates := s.yieldDTO(y).RewardRate
	v := validatorDTO{
		Address:    who.Hex(),
		RewardRate: &rates,
		Commission: &commission,
		TVL:        units.Format(pooled, y.cfg.Token.Decimals), TVLRaw: pooled.String(),
		// The contract shares the validator fee with the integrator (validator rebates): the reference flags such
		// validators as preferred.
		Preferred:     true,
		Status:        validatorStatus(y),
		ProviderID:    y.cfg.ProviderID,
		PricePerShare: units.Format(perShare, y.cfg.Token.Decimals),
	}
	if l := y.cfg.EntryLimits; l != nil {
		v.MinimumStake = l.Minimum
	}
	if p := s.provider(y.cfg.ProviderID); p != nil {
		v.Name, v.LogoURI, v.Website = p.Name, p.LogoURI, p.Website
		v.Provider = &validatorProviderDTO{Name: p.Name, ID: p.ID, LogoURI: p.LogoURI, Description: p.Description,
			Website: p.Website, Type: p.Type, Rank: 1, Preferred: true}
	}
	return []validatorDTO{v}, nil
}

// validatorStatus is "active" while the yield takes stakes, "inactive" when the catalogue closed its entry.
func validatorStatus(y *yieldEntry) string {
	if y.cfg.status().Enter {
		return "active"
	}
	return "inactive"
}

func (s *Service) provider(id string) *Provider {
	for i := range s.providers {
		if s.providers[i].ID == id {
			return &s.providers[i]
		}
	}
	return nil
}
