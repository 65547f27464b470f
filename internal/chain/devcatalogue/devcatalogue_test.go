package devcatalogue_test

import (
	"context"
	"strings"
	"testing"

	"github.com/sigil/sigil/internal/chain"
	"github.com/sigil/sigil/internal/chain/devcatalogue"
)

// A catalogue needs a dev chain, and one with every fixture: a chain that lacks one is named in the error, before any
// node is asked anything. (The yield service's tests run on the catalogue of a real dev chain.)
func TestBuildRefusesMissingChainsAndFixtures(t *testing.T) {
	t.Parallel()
	if _, err := devcatalogue.Build(context.Background()); err == nil || !strings.Contains(err.Error(), "needs a dev chain") {
		t.Errorf("no chain: %v", err)
	}
	b := chain.Bootstrap{NetworkID: "sigil-dev", ChainID: 1337, RPCURL: "http://127.0.0.1:1",
		Contracts: map[string]string{"USDC": "0x5FbDB2315678afecb367f032d93F642f64180aa3"}}
	if _, err := devcatalogue.Build(context.Background(), b); err == nil || !strings.Contains(err.Error(), "has no USDT contract") {
		t.Errorf("a chain without USDT: %v", err)
	}
}
