package stack

import (
	"context"
	"crypto/rand"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/sigil/sigil/internal/coordinator"
	"github.com/sigil/sigil/internal/seal"
	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/testdb"
)

// TestSecondStartFindsItsRoot is two starts over one database, each with a --dir of its own, as docs/SCALING.md has
// several processes run: only the first creates the root organization; a second whose --dir has no bootstrap.json is
// refused, naming the organization and what to do, and with the first's record copied in it serves that organization.
// Two starts at once over an empty database create one root organization between them.
func TestSecondStartFindsItsRoot(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		key := make([]byte, 32)
		_, _ = rand.Read(key)
		ring, err := seal.NewKeyring(1, seal.MasterKey{Version: 1, Key: key})
		if err != nil {
			t.Fatal(err)
		}
		coordinatorOver := func() *coordinator.Coordinator {
			st, err := store.Open(ctx, b.URL, b.Dir)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			c := coordinator.New(st, coordinator.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Keyring: ring})
			if err := c.Start(ctx); err != nil {
				t.Fatal(err)
			}
			return c
		}
		first, second := coordinatorOver(), coordinatorOver()

		// Two first starts at once: one root organization.
		dirs := []string{t.TempDir(), t.TempDir()}
		errs := make([]error, 2)
		boots := make([]Bootstrap, 2)
		var wg sync.WaitGroup
		for i, c := range []*coordinator.Coordinator{first, second} {
			wg.Go(func() { boots[i], errs[i] = ensureRoot(ctx, c, dirs[i], nil) })
		}
		wg.Wait()
		winner, loser := 0, 1
		if errs[0] != nil {
			winner, loser = 1, 0
		}
		if errs[winner] != nil || boots[winner].OrganizationID == "" {
			t.Fatalf("neither start created the root organization: %v, %v", errs[0], errs[1])
		}
		root := boots[winner].OrganizationID
		if errs[loser] == nil || !strings.Contains(errs[loser].Error(), root) || !strings.Contains(errs[loser].Error(), "copy that start's bootstrap.json (and authproxy.json)") {
			t.Fatalf("the second start: %v; want a refusal naming %s and what to do", errs[loser], root)
		}
		if _, err := os.Stat(BootstrapPath(dirs[loser])); !os.IsNotExist(err) {
			t.Fatalf("the refused start wrote %s: %v", BootstrapPath(dirs[loser]), err)
		}

		// A later start with a fresh --dir is refused the same way; with the first's record it finds the organization.
		fresh := t.TempDir()
		if _, err := ensureRoot(ctx, second, fresh, nil); err == nil || !strings.Contains(err.Error(), root) {
			t.Fatalf("a start with a fresh --dir: %v; want a refusal naming %s", err, root)
		}
		data, err := os.ReadFile(BootstrapPath(dirs[winner]))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(BootstrapPath(fresh), data, 0o600); err != nil {
			t.Fatal(err)
		}
		found, err := ensureRoot(ctx, second, fresh, nil)
		if err != nil || found.OrganizationID != root {
			t.Fatalf("a start with the first's record: %+v, %v; want organization %s", found, err, root)
		}
	})
}
