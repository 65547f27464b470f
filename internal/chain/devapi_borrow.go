package chain

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/sigil/sigil/internal/units"
)

// sigilAPI is the dev chain's own sigil_ namespace, for scripts and demos that drive the lending markets over
// JSON-RPC: sigil_setPrice moves an asset's oracle price (Simulator.SetPrice), sigil_price reads it, sigil_liquidate
// makes a keeper pass. Only an embedded dev chain serves it.
type sigilAPI struct{ n *Node }

// SetPrice makes asset ("USDC", "USDT" or "WETH", any case) worth usd US dollars ("2400.5", at most 8 decimals) on
// Aave v3 and Morpho Blue.
func (a *sigilAPI) SetPrice(ctx context.Context, asset, usd string) error {
	name, err := a.asset(asset)
	if err != nil {
		return err
	}
	price, err := units.Parse(usd, 8)
	if err != nil || price.Sign() <= 0 {
		return fmt.Errorf("sigil_setPrice: %q is not a price above 0 in US dollars with at most 8 decimals", usd)
	}
	return a.n.simulator.SetPrice(ctx, name, price)
}

// Price is asset's price in US dollars on Aave v3's oracle.
func (a *sigilAPI) Price(ctx context.Context, asset string) (string, error) {
	name, err := a.asset(asset)
	if err != nil {
		return "", err
	}
	p, err := a.n.simulator.Price(ctx, name)
	if err != nil {
		return "", err
	}
	return units.Format(p, 8), nil
}

// LiquidationResult is one liquidation of sigil_liquidate.
type LiquidationResult struct {
	Protocol string `json:"protocol"`
	Borrower string `json:"borrower"`
	TxHash   string `json:"transactionHash"`
}

// Liquidate makes one keeper pass and lists what it liquidated.
func (a *sigilAPI) Liquidate(ctx context.Context) ([]LiquidationResult, error) {
	if a.n.readyFaucet() == nil {
		return nil, errors.New("sigil_liquidate: the dev chain is still being set up")
	}
	done, err := a.n.keeper.Run(ctx)
	out := make([]LiquidationResult, 0, len(done))
	for _, l := range done {
		out = append(out, LiquidationResult{Protocol: l.Protocol, Borrower: l.Borrower.Hex(), TxHash: l.TxHash.Hex()})
	}
	return out, err
}

func (a *sigilAPI) asset(s string) (string, error) {
	if a.n.readyFaucet() == nil {
		return "", errors.New("the dev chain is still being set up")
	}
	for _, name := range pricedAssets {
		if strings.EqualFold(name, s) {
			return name, nil
		}
	}
	return "", fmt.Errorf("%q has no price on the dev chain: one of USDC, USDT, WETH", s)
}
