package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/testdb"
)

// Recording a quote drops the organization's quotes that expired unexecuted before the cut-off, and nothing else: not
// another organization's, not one still live, not one that was executed (its swap reads it).
func TestInsertSwapQuoteDropsExpiredOnes(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := open(t, b)
		quote := func(org, id string, expires int64) store.SwapQuote {
			return store.SwapQuote{OrgID: org, ID: id, ActivityID: "act-" + id, Quote: []byte(`{"q":"` + id + `"}`), CreatedAt: 1, ExpiresAt: expires}
		}
		if err := s.Write(ctx, func(tx *store.Tx) error {
			for _, q := range []store.SwapQuote{quote("o", "old", 10), quote("o", "live", 500), quote("o", "executed", 10), quote("other", "old", 10)} {
				if err := tx.InsertSwapQuote(ctx, q, 0); err != nil {
					return err
				}
			}
			return tx.InsertSwap(ctx, store.Swap{OrgID: "o", ID: "swap", QuoteID: "executed", ActivityID: "act-swap", SendID: "send", Status: "PENDING", CreatedAt: 2, UpdatedAt: 2})
		}); err != nil {
			t.Fatal(err)
		}
		if err := s.Write(ctx, func(tx *store.Tx) error { return tx.InsertSwapQuote(ctx, quote("o", "new", 600), 100) }); err != nil {
			t.Fatal(err)
		}
		_ = s.Write(ctx, func(tx *store.Tx) error {
			for _, c := range []struct {
				org, id string
				kept    bool
			}{{"o", "old", false}, {"o", "live", true}, {"o", "executed", true}, {"other", "old", true}, {"o", "new", true}} {
				got, err := tx.SwapQuote(ctx, c.org, c.id)
				switch {
				case c.kept && (err != nil || string(got.Quote) != `{"q":"`+c.id+`"}` || got.ActivityID != "act-"+c.id):
					t.Errorf("quote %s/%s: %+v %v, want it kept", c.org, c.id, got, err)
				case !c.kept && !errors.Is(err, store.ErrNotFound):
					t.Errorf("quote %s/%s: %+v %v, want it dropped", c.org, c.id, got, err)
				}
			}
			return nil
		})
	})
}
