package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sigil/sigil/internal/solanadev"
	"github.com/sigil/sigil/internal/stack"
)

// sigil chain fund --sol airdrops SOL from the Solana dev node bootstrap.json names; a stack without one says so.
func TestChainFundSolana(t *testing.T) {
	t.Parallel()
	node, err := solanadev.Start(context.Background(), solanadev.Config{ListenAddr: "127.0.0.1:0", SlotPeriod: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = node.Close() })
	dir := t.TempDir()
	b := node.Bootstrap()
	if err := stack.WriteBootstrap(dir, &stack.Bootstrap{Solana: &b}); err != nil {
		t.Fatal(err)
	}
	address := "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM"
	out, errs, code := sigil(t, "chain", "fund", address, "--dir", dir, "--sol", "1.5")
	if code != 0 || !strings.HasPrefix(out, "SOL ") {
		t.Fatalf("chain fund --sol: exit %d %q %q", code, out, errs)
	}
	if _, errs, code := sigil(t, "chain", "fund", address, "--dir", dir, "--sol", "-1"); code != 2 || !strings.Contains(errs, "--sol must be an amount of SOL") {
		t.Errorf("a negative amount: exit %d %q", code, errs)
	}
	empty := t.TempDir()
	if err := stack.WriteBootstrap(empty, &stack.Bootstrap{}); err != nil {
		t.Fatal(err)
	}
	if _, errs, code := sigil(t, "chain", "fund", address, "--dir", empty, "--sol", "1"); code == 0 || !strings.Contains(errs, "names no Solana dev node") {
		t.Errorf("no Solana dev node: exit %d %q", code, errs)
	}
}
