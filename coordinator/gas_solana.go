package coordinator

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"

	"sigil/keys"
	"sigil/store"
)

// solanaSponsor is an organization's Solana fee sponsor: an Ed25519 key sealed like every key (a secret row of the
// organization, named after it, so every process finds the same one), created on first use and then funded by
// Config.FundSolanaSponsor when there is one (the Solana dev node's airdrop). It returns the key's secret id and its
// address.
func (c *Coordinator) solanaSponsor(ctx context.Context, orgID string) (string, string, error) {
	id := "solana-fee-sponsor/" + orgID
	key, err := c.openSecret(ctx, id)
	created := false
	if errors.Is(err, store.ErrNotFound) {
		key, created, err = c.createSponsorKey(ctx, orgID, id, func() ([]byte, error) {
			seed := make([]byte, ed25519.SeedSize)
			_, err := rand.Read(seed)
			return seed, err
		})
	}
	if err != nil {
		return "", "", err
	}
	defer keys.Zero(key)
	pub, err := keys.PublicKey(keys.CurveEd25519, key)
	if err != nil {
		return "", "", err
	}
	address := keys.Base58Encode(pub)
	if created && c.cfg.FundSolanaSponsor != nil {
		if err := c.cfg.FundSolanaSponsor(ctx, address); err != nil {
			c.cfg.Logger.Warn("fund the Solana fee sponsor", "organization", orgID, "address", address, "err", err)
		}
	}
	return id, address, nil
}
