package coordinator

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"

	"github.com/sigil/sigil/internal/keys"
)

// solanaSponsor is an organization's Solana fee sponsor: an Ed25519 key (sponsorKey), funded on creation by
// Config.FundSolanaSponsor when there is one (the Solana dev node's airdrop).
func (c *Coordinator) solanaSponsor(ctx context.Context, orgID string) (string, string, error) {
	return c.sponsorKey(ctx, orgID, sponsorKind{name: "Solana fee sponsor", secretPrefix: "solana-fee-sponsor/",
		curve: keys.CurveEd25519, format: keys.AddressFormatSolana,
		generate: func() ([]byte, error) {
			seed := make([]byte, ed25519.SeedSize)
			_, err := rand.Read(seed)
			return seed, err
		},
		fund: func(ctx context.Context, address string) error {
			if c.cfg.FundSolanaSponsor == nil {
				return nil
			}
			return c.cfg.FundSolanaSponsor(ctx, address)
		}})
}
