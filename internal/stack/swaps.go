package stack

import (
	"log/slog"
	"time"

	"github.com/sigil/sigil/internal/chain"
	"github.com/sigil/sigil/internal/chain/devcatalogue"
	"github.com/sigil/sigil/internal/contracts"
	"github.com/sigil/sigil/internal/swap"
)

// RelayerPeriod is how often the dev chains' bridge relayer looks for locks to release.
const RelayerPeriod = time.Second

// startRelayer runs the bridge relayer between the dev chains, when there are two.
func (s *Stack) startRelayer(nodes []*chain.Node, logger *slog.Logger) {
	if len(nodes) < 2 {
		return
	}
	r := chain.NewRelayer(nodes, logger)
	r.Start(RelayerPeriod)
	s.onClose("bridge relayer", r.Close)
}

// startSwaps gives the coordinator the dev chains' swap venues.
func (s *Stack) startSwaps(chains []chain.Bootstrap) error {
	var list []swap.Venue
	for _, c := range chains {
		if c.Contracts[contracts.SwapRouterName] != "" {
			list = append(list, devcatalogue.SwapVenue(c, RelayerPeriod))
		}
	}
	if len(list) == 0 {
		return nil
	}
	venues, err := swap.NewVenues(list)
	if err != nil {
		return err
	}
	s.onClose("swap venues", func() error { venues.Close(); return nil })
	s.coord.UseSwapVenues(venues)
	return nil
}
