package stack

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/sigil/sigil/internal/send"
	"github.com/sigil/sigil/internal/solanadev"
)

// SolanaStateFile is the Solana dev node's ledger in the data directory (none with ChainEphemeral).
const SolanaStateFile = "solana-dev.json"

// startSolanaDev starts the Solana dev node, records it in the bootstrap record and returns the cluster sends go to.
func (s *Stack) startSolanaDev(ctx context.Context, cfg Config) (send.Network, error) {
	c := solanadev.Config{ListenAddr: cmp.Or(cfg.SolanaListen, "127.0.0.1:0"), Logger: s.logger}
	if !cfg.ChainEphemeral {
		c.StateFile = filepath.Join(cfg.Dir, SolanaStateFile)
	}
	node, err := solanadev.Start(ctx, c)
	if err != nil {
		return send.Network{}, fmt.Errorf("solana dev node: %w", err)
	}
	s.onClose("solana dev node", node.Close)
	s.extra = append(s.extra, Service{Name: "solana dev", URL: node.URL()})
	b := node.Bootstrap()
	s.boot.Solana = &b
	return send.Network{CAIP2: node.CAIP2(), Name: "Sigil Solana dev", RPCURL: node.URL(), NativeUSD: DevSolanaSOLPriceUSD,
		PollInterval: 100 * time.Millisecond}, nil
}

// DevSolanaSOLPriceUSD is the price at which the Solana dev node's SOL counts against gas-spend limits of sponsored
// sends.
const DevSolanaSOLPriceUSD = 150

// fundSolanaSponsor airdrops 10 SOL to an organization's new Solana fee sponsor from the Solana dev node, once it
// runs (its URL is recorded before the send worker, which creates the sponsors, starts).
func (s *Stack) fundSolanaSponsor(ctx context.Context, address string) error {
	if s.boot.Solana == nil {
		return nil
	}
	_, err := solanadev.RequestAirdrop(ctx, s.boot.Solana.RPCURL, address, 10*1_000_000_000)
	return err
}
