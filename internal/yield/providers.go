package yield

import (
	"context"
	"math/big"

	"github.com/ethereum/go-ethereum/common"

	"github.com/sigil/sigil/internal/units"
)

// providerDTO describes a provider. A validator provider with provider-staking yields also shows, read from the
// staking contracts, the revenue share it pays the integrator (the range the contract allows, 50% to 85%, and the
// share set now) and the integrator's accrued, unclaimed share of the validator fee.
func (s *Service) providerDTO(ctx context.Context, k *keyInfo, p Provider) (providerDTO, error) {
	d := providerDTO{ID: p.ID, Name: p.Name, LogoURI: p.LogoURI, Description: p.Description, Website: p.Website, Type: p.Type}
	for _, y := range s.yields {
		if y.cfg.Kind != KindProviderStaking || y.cfg.ProviderID != p.ID || !y.cfg.visibleTo(k.feeSet) {
			continue
		}
		b := y.client.newBatch()
		minShare := b.uint(y.staking, &providerStakingABI, "MIN_REVENUE_SHARE_BPS")
		maxShare := b.uint(y.staking, &providerStakingABI, "MAX_REVENUE_SHARE_BPS")
		share := b.uint(y.staking, &providerStakingABI, "revenueShareBps")
		integrator := b.read(y.staking, &providerStakingABI, "integrator")
		if err := b.run(ctx); err != nil {
			return d, err
		}
		who, _ := (*integrator)[0].(common.Address)
		b = y.client.newBatch()
		owed := b.uint(y.staking, &providerStakingABI, "feesOwed", who)
		if err := b.run(ctx); err != nil {
			return d, err
		}
		fraction := func(bps *big.Int) float64 { return float64(bps.Int64()) / 10_000 }
		d.RevShare = &struct {
			Standard revShareTierDTO `json:"standard"`
		}{Standard: revShareTierDTO{MinRevShare: fraction(minShare), MaxRevShare: fraction(maxShare)}}
		current := fraction(share)
		d.RevenueShare = &current
		d.IntegratorFeesOwed = append(d.IntegratorFeesOwed, integratorFeesOwedDTO{
			YieldID: y.cfg.ID, Integrator: who.Hex(), Amount: units.Format(owed, y.cfg.Token.Decimals), AmountRaw: owed.String(),
			Token: y.cfg.Token.dto(y.network.ID),
		})
	}
	return d, nil
}
