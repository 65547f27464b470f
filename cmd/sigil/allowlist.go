package main

import (
	"context"
	"fmt"

	"github.com/sigil/sigil/internal/stack"
	"github.com/sigil/sigil/internal/store"
)

// runAllowlistClear is sigil allowlist clear: the way back in when an organization's IP allowlists refuse every one
// of its root users (their addresses changed, a proxy moved). It runs on the server, against the database, as the
// operator who holds it: no stamp, no policy. The coordinators see the change at their next request.
func runAllowlistClear(ctx context.Context, e *env, args []string) error {
	fs := e.flags()
	dir := fs.String("dir", ".sigil", "data directory of sigil up")
	dbURL := fs.String("database-url", "", "PostgreSQL URL, when the stack runs on PostgreSQL")
	org := fs.String("organization", "", "the organization whose lists to remove (default: the root organization of DIR/bootstrap.json)")
	if err := e.parse(fs, args); err != nil {
		return err
	}
	if *org == "" {
		b, err := stack.ReadBootstrap(*dir)
		if err != nil {
			return e.usageErrorf("--organization ID is required without a bootstrap record: %v", err)
		}
		*org = b.OrganizationID
	}
	st, err := store.Open(ctx, *dbURL, *dir)
	if err != nil {
		return err
	}
	defer st.Close()
	n, err := st.RemoveIPAllowlists(ctx, *org)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "removed %d IP allowlists of organization %s (its own and its API keys'); every address may reach it again\n", n, *org)
	return nil
}
