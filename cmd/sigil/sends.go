package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ethereum/go-ethereum/common"

	"github.com/sigil/sigil/internal/coordinator"
	"github.com/sigil/sigil/internal/send"
	"github.com/sigil/sigil/internal/store"
)

// runSendsUnstick is sigil sends unstick: it records fillers for the nonces of an address's stuck sends, in the
// database of a running stack, for its send worker to sign (send.Unstick).
func runSendsUnstick(ctx context.Context, e *env, args []string) error {
	fs := e.flags()
	dir := fs.String("dir", ".sigil", "data directory of sigil up")
	dbURL := fs.String("database-url", "", "PostgreSQL URL, when the stack runs on PostgreSQL")
	network := fs.String("network", "", "the network's CAIP-2 id, eip155:<chain id> (required)")
	address := fs.String("address", "", "the 0x address whose sends are stuck: an account's, or an organization's gas sponsor's (required)")
	if err := e.parse(fs, args); err != nil {
		return err
	}
	if _, err := send.ParseCAIP2(*network); err != nil {
		return e.usageErrorf("--network: %v", err)
	}
	if !common.IsHexAddress(*address) {
		return e.usageErrorf("--address must be a 0x address, got %q", *address)
	}
	if *dbURL == "" {
		if _, err := os.Stat(filepath.Join(*dir, "sigil.db")); err != nil { // opening would create an empty one
			return fmt.Errorf("sends unstick: no database in %s (give --dir, or --database-url for PostgreSQL): %w", *dir, err)
		}
	}
	st, err := store.Open(ctx, *dbURL, *dir)
	if err != nil {
		return err
	}
	defer st.Close()
	unstuck, err := send.Unstick(ctx, st, *network, *address, coordinator.GasSponsorSecret)
	if err != nil {
		return err
	}
	if len(unstuck) == 0 {
		fmt.Fprintf(e.stdout, "%s has no send signed and not mined on %s without a filler already\n", *address, *network)
		return nil
	}
	for _, u := range unstuck {
		fmt.Fprintf(e.stdout, "send %s: nonce %d is filled; the send worker signs the filler\n", u.SendID, u.Nonce)
	}
	return nil
}
