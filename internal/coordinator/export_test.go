package coordinator

import (
	"context"

	"github.com/sigil/sigil/internal/store"
)

// OpenSecret lets tests read sealed key material, to prove it appears nowhere in clear.
func (c *Coordinator) OpenSecret(ctx context.Context, id string) ([]byte, error) {
	return c.openSecret(ctx, id)
}

// SecretIDs lists the sealed secrets of an organization's wallets and keys, for tests.
func (c *Coordinator) SecretIDs(ctx context.Context, orgID string) ([]string, error) {
	org, err := c.loadOrg(ctx, orgID)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, w := range org.Wallets {
		ids = append(ids, w.MnemonicSecret)
		for after := ""; ; {
			page, err := c.store.WalletAccounts(ctx, store.AccountPage{OrgID: orgID, WalletID: w.ID, After: after, Limit: 100})
			if err != nil {
				return nil, err
			}
			for _, a := range page {
				ids = append(ids, a.KeySecret)
			}
			if len(page) < 100 {
				break
			}
			after = page[len(page)-1].ID
		}
	}
	for _, k := range org.PrivateKeys {
		ids = append(ids, k.KeySecret)
	}
	return ids, nil
}

// CachedOrgVersion is the version of the organization's document that activities authenticate against; -1 when none
// is cached.
func (c *Coordinator) CachedOrgVersion(orgID string) int64 {
	if o := c.orgs.get(orgID); o != nil {
		return o.version
	}
	return -1
}

// RenderActivityEvent renders a delivery written by reference, as a claim does, for tests.
func (c *Coordinator) RenderActivityEvent(ctx context.Context, d store.WebhookDelivery) ([]byte, error) {
	return c.renderActivityEvent(ctx, d)
}

// ForgetBalances drops the balances kept per block, so that a benchmark can measure reading them from the node.
func (c *Coordinator) ForgetBalances() {
	c.chainData.balances.mu.Lock()
	defer c.chainData.balances.mu.Unlock()
	c.chainData.balances.m = nil
}
