package coordinator_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/client"
	"github.com/sigil/sigil/internal/testdb"
	"github.com/sigil/sigil/internal/testwait"
)

// TestBusyOrganizationLeavesOthersServed is the attack of one tenant on PostgreSQL: 50 writes at once in its own
// organization, all of them to be denied, through one process and through two. The organization's row is held
// meanwhile by another transaction, so that every one of the 50 must wait, for as long as the test likes: were each
// waiter to hold a pooled connection (as they did), they would fill the pools, and another organization's whoami and
// signing would wait behind them until the row was released. Here those must all complete while the row is still held
// (progress, not time: each has a deadline of its own, far longer than it needs), and afterwards each of the 50 is
// answered as it should be, denied, and recorded once.
func TestBusyOrganizationLeavesOthersServed(t *testing.T) {
	for _, processes := range []int{1, 2} {
		t.Run(fmt.Sprintf("%d processes", processes), func(t *testing.T) {
			db := testdb.Postgres(t)
			db.URL += "&lock_timeout=300s" // the test holds the busy organization's row as long as it needs
			s := newStack(t, db)
			ctx := context.Background()
			urls := []string{s.srv.URL}
			if processes == 2 {
				urls = append(urls, secondCoordinator(t, s, db).URL)
			}
			// The victim: the root organization, signing with its wallet and asking who it is.
			w, _, err := s.root.CreateWallet(ctx, s.boot.OrganizationID, api.CreateWalletIntent{WalletName: "w", Accounts: []api.WalletAccountParams{ethAccount()}})
			if err != nil {
				t.Fatal(err)
			}
			// The attacker: an organization of its own, and a user there with no policy, whose every write is denied.
			busy, err := s.coord.CreateRootOrganization(ctx, "busy", "root")
			if err != nil {
				t.Fatal(err)
			}
			_, attacker := s.createUser(busy.OrganizationID, s.client(busy.APIKey), "attacker")

			raw, err := sql.Open("pgx", db.URL)
			if err != nil {
				t.Fatal(err)
			}
			defer raw.Close()
			holder, err := raw.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer holder.Rollback()
			if _, err := holder.Exec("SELECT id FROM organizations WHERE id = $1 FOR UPDATE", busy.OrganizationID); err != nil {
				t.Fatal(err)
			}

			const writes = 50
			var done atomic.Int32
			errs := make([]error, writes)
			var wg sync.WaitGroup
			for i := range writes {
				wg.Go(func() {
					defer done.Add(1)
					c := client.New(urls[i%len(urls)], attacker.Stamper)
					c.Now = s.stamps.Now
					_, _, errs[i] = c.CreateUserTag(ctx, busy.OrganizationID, api.CreateUserTagIntent{UserTagName: fmt.Sprintf("tag %d", i), UserIDs: []string{}})
				})
			}
			// Every process has a write of the busy organization waiting for its row before the victim goes on.
			testwait.Until(t, "the busy organization's writes waiting for its row", func() bool {
				var waiting int
				err := raw.QueryRow(`SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%organizations%'`).Scan(&waiting)
				return err == nil && waiting >= processes
			})

			for i := range 10 {
				c := client.New(urls[i%len(urls)], s.boot.APIKey)
				c.Now = s.stamps.Now
				deadline, cancel := context.WithTimeout(ctx, 60*time.Second)
				if _, err := c.Whoami(deadline, s.boot.OrganizationID); err != nil {
					t.Fatalf("the victim's whoami while another organization is busy: %v", err)
				}
				if _, _, err := c.SignRawPayload(deadline, s.boot.OrganizationID, api.SignRawPayloadIntentV2{SignWith: w.Addresses[0],
					Payload: "0x" + strings.Repeat("ab", 32), Encoding: "PAYLOAD_ENCODING_HEXADECIMAL", HashFunction: "HASH_FUNCTION_NO_OP"}); err != nil {
					t.Fatalf("the victim's signing while another organization is busy: %v", err)
				}
				cancel()
			}
			if n := done.Load(); n != 0 {
				t.Fatalf("%d of the busy organization's writes finished while its row was held", n)
			}

			if err := holder.Rollback(); err != nil {
				t.Fatal(err)
			}
			wg.Wait()
			for i, err := range errs {
				var e *apierr.Error
				if !errors.As(err, &e) || e.Code != apierr.PermissionDenied {
					t.Fatalf("write %d of the busy organization: %v, want a denial", i, err)
				}
			}
			res, err := s.client(busy.APIKey).ListActivities(ctx, api.ListActivitiesRequest{OrganizationID: busy.OrganizationID,
				FilterByType: []string{"ACTIVITY_TYPE_CREATE_USER_TAG"}, PaginationOptions: &api.Pagination{Limit: "100"}})
			if err != nil || len(res.Activities) != writes {
				t.Fatalf("the busy organization's recorded writes: %d, %v; want %d", len(res.Activities), err, writes)
			}
		})
	}
}
