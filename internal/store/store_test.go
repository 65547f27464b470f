package store_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sigil/sigil/internal/metrics"
	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/testdb"
)

func open(t *testing.T, b testdb.Backend) *store.Store {
	t.Helper()
	s, err := store.Open(context.Background(), b.URL, b.Dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// measured opens a SQLite store that reports to metrics of its own.
func measured(t *testing.T) (*store.Store, *metrics.Metrics) {
	t.Helper()
	s, m := open(t, testdb.SQLite(t)), metrics.New()
	s.Measure(m)
	return s, m
}

// scrape is what m serves at /metrics.
func scrape(m *metrics.Metrics) string {
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	return rec.Body.String()
}

func TestMigrationsAreIdempotent(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		open(t, b).Close()
		s := open(t, b) // second open finds everything applied
		if s.Backend() != b.Name {
			t.Fatalf("backend %s, want %s", s.Backend(), b.Name)
		}
	})
}

func TestOrganizationsAndIndex(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := open(t, b)
		parent := store.Org{ID: "p", Version: 1, Data: []byte(`{"n":1}`), CreatedAt: 1}
		child := store.Org{ID: "c", ParentID: "p", Version: 1, Data: []byte(`{}`), CreatedAt: 2}
		err := s.Write(ctx, func(tx *store.Tx) error {
			if err := tx.InsertOrg(ctx, parent, []store.IndexEntry{{"credential", "k1"}}); err != nil {
				return err
			}
			return tx.InsertOrg(ctx, child, []store.IndexEntry{{"email", "a@x.io"}, {"credential", "k1"}})
		})
		if err != nil {
			t.Fatal(err)
		}
		hits, err := s.FindIndex(ctx, "credential", "k1")
		if err != nil || len(hits) != 2 || hits[0].OrgID != "c" || hits[0].ParentID != "p" {
			t.Fatalf("hits %+v, %v", hits, err)
		}
		// A new version replaces the index entries that changed, and only those.
		err = s.Write(ctx, func(tx *store.Tx) error {
			o, err := tx.LockOrg(ctx, "c")
			if err != nil {
				return err
			}
			o.Data = []byte(`{"v":2}`)
			return tx.UpdateOrg(ctx, o, []store.IndexEntry{{"email", "b@x.io"}, {"credential", "k1"}})
		})
		if err != nil {
			t.Fatal(err)
		}
		if ids, _ := s.ListSubOrgs(ctx, store.SubOrgPage{ParentID: "p", Kind: "email", Value: "a@x.io", Limit: 10}); len(ids) != 0 {
			t.Fatalf("stale index entry: %v", ids)
		}
		if ids, _ := s.ListSubOrgs(ctx, store.SubOrgPage{ParentID: "p", Kind: "email", Value: "b@x.io", Limit: 10}); len(ids) != 1 {
			t.Fatalf("new index entry missing: %v", ids)
		}
		got, err := s.GetOrg(ctx, "c")
		if err != nil || got.Version != 2 || string(got.Data) != `{"v":2}` {
			t.Fatalf("org %+v %v", got, err)
		}
		// A stale version is refused.
		err = s.Write(ctx, func(tx *store.Tx) error {
			return tx.UpdateOrg(ctx, store.Org{ID: "c", Version: 1, Data: []byte(`{}`)}, nil)
		})
		if err == nil {
			t.Fatal("stale update accepted")
		}
		if err := s.Write(ctx, func(tx *store.Tx) error { return tx.DeleteOrg(ctx, "c") }); err != nil {
			t.Fatal(err)
		}
		if _, err := s.GetOrg(ctx, "c"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("deleted org: %v", err)
		}
		if hits, _ := s.FindIndex(ctx, "email", "b@x.io"); len(hits) != 0 {
			t.Fatalf("index of deleted org remains: %v", hits)
		}
	})
}

func TestSubOrgPagination(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := open(t, b)
		err := s.Write(ctx, func(tx *store.Tx) error {
			for i := 0; i < 5; i++ {
				if err := tx.InsertOrg(ctx, store.Org{ID: fmt.Sprintf("s%d", i), ParentID: "p", Version: 1, Data: []byte(`{}`), CreatedAt: int64(i)}, nil); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		page, _ := s.ListSubOrgs(ctx, store.SubOrgPage{ParentID: "p", Limit: 2})
		next, _ := s.ListSubOrgs(ctx, store.SubOrgPage{ParentID: "p", Limit: 2, After: page[1]})
		prev, _ := s.ListSubOrgs(ctx, store.SubOrgPage{ParentID: "p", Limit: 2, Before: "s4"})
		if fmt.Sprint(page, next, prev) != "[s0 s1] [s2 s3] [s2 s3]" {
			t.Fatalf("pages %v %v %v", page, next, prev)
		}
	})
}

// An activity is its body: the unique (organization, timestampMs, fingerprint) is the last line of defence against one
// recorded twice.
func TestActivitiesAreUniquePerBody(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := open(t, b)
		insert := func(id string, timestampMs int64) (inserted bool) {
			err := s.Write(ctx, func(tx *store.Tx) (err error) {
				inserted, err = tx.InsertActivity(ctx, store.Activity{ID: id, OrgID: "o", Fingerprint: "f", TimestampMs: timestampMs, Type: "T", Status: "S", Record: []byte(`{}`)})
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			return inserted
		}
		if !insert("a1", 1000) {
			t.Fatal("the first activity was not recorded")
		}
		if insert("a2", 1000) {
			t.Fatal("a second activity with the same body was recorded")
		}
		if _, err := s.ActivityByID(ctx, "other", "a1"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("an activity read by its id in another organization: %v", err)
		}
		if _, err := s.ActivityByID(ctx, "o", "a2"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("the refused activity was stored: %v", err)
		}
		err := s.Write(ctx, func(tx *store.Tx) error {
			a, err := tx.ActivityByBody(ctx, "o", 1000, "f")
			if err != nil || a.ID != "a1" {
				return fmt.Errorf("by body: %+v %v", a, err)
			}
			if _, err := tx.ActivityByBody(ctx, "o", 1001, "f"); !errors.Is(err, store.ErrNotFound) {
				return fmt.Errorf("another timestamp found %v", err)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}

// An activity decided against an organization's version is recorded by one statement only while the organization is at
// that version, and only once per body.
func TestInsertActivityAtOrgVersion(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := open(t, b)
		err := s.Write(ctx, func(tx *store.Tx) error {
			return tx.InsertOrg(ctx, store.Org{ID: "o", Version: 3, Data: []byte(`{}`), CreatedAt: 1}, nil)
		})
		if err != nil {
			t.Fatal(err)
		}
		activity := func(id, fingerprint string) store.Activity {
			return store.Activity{ID: id, OrgID: "o", Fingerprint: fingerprint, TimestampMs: 1795528235990, Type: "T", Status: "S",
				Record: []byte(`{"id":"` + id + `"}`), Evaluations: []byte(`[]`), CreatedAt: 5, UpdatedAt: 6}
		}
		for _, c := range []struct {
			name     string
			a        store.Activity
			version  int64
			recorded bool
		}{
			{"at the version", activity("a1", "f1"), 3, true},
			{"the same body again", activity("a2", "f1"), 3, false},
			{"decided at an older version", activity("a3", "f3"), 2, false},
			{"of an unknown organization", store.Activity{ID: "a4", OrgID: "nope", Fingerprint: "f4", Type: "T", Status: "S", Record: []byte(`{}`)}, 3, false},
		} {
			// Each carries a webhook delivery, written exactly when the activity is.
			d := store.WebhookDelivery{ID: "d-" + c.a.ID, EventID: c.a.ID, EndpointID: "e", OrgID: "o", URL: "https://x.example",
				EventType: "ACTIVITY_UPDATES", Subject: c.a.ID, Body: []byte(`{}`), CreatedAt: 1}
			ok, err := s.InsertActivityAtOrgVersion(ctx, c.a, c.version, []store.WebhookDelivery{d})
			if err != nil || ok != c.recorded {
				t.Fatalf("%s: recorded %v, %v; want %v", c.name, ok, err, c.recorded)
			}
			ds, err := s.ListWebhookDeliveries(ctx, "e", "", 100)
			if err != nil || slices.IndexFunc(ds, func(x store.WebhookDelivery) bool { return x.ID == d.ID }) >= 0 != c.recorded {
				t.Fatalf("%s: deliveries %+v, %v", c.name, ds, err)
			}
			got, err := s.ActivityByID(ctx, c.a.OrgID, c.a.ID)
			if c.recorded && (err != nil || got.TimestampMs != c.a.TimestampMs || got.CreatedAt != 5 || got.UpdatedAt != 6 || string(got.Record) != string(c.a.Record)) {
				t.Fatalf("%s: stored %+v, %v", c.name, got, err)
			}
			if !c.recorded && !errors.Is(err, store.ErrNotFound) {
				t.Fatalf("%s: a row was stored: %v", c.name, err)
			}
		}
	})
}

// A vote finds its activity by fingerprint only while the activity waits for consensus.
func TestActivityAwaitingVotes(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := open(t, b)
		waiting := store.Activity{ID: "w", OrgID: "o", Fingerprint: "fw", TimestampMs: 1, Type: "T", Status: store.StatusAwaitingVotes, Record: []byte(`{}`)}
		done := store.Activity{ID: "d", OrgID: "o", Fingerprint: "fd", TimestampMs: 2, Type: "T", Status: "ACTIVITY_STATUS_COMPLETED", Record: []byte(`{}`)}
		err := s.Write(ctx, func(tx *store.Tx) error {
			for _, a := range []store.Activity{waiting, done} {
				if _, err := tx.InsertActivity(ctx, a); err != nil {
					return err
				}
			}
			if a, err := tx.ActivityAwaitingVotes(ctx, "o", "fw"); err != nil || a.ID != "w" {
				return fmt.Errorf("waiting activity: %+v %v", a, err)
			}
			for _, q := range []struct{ org, fingerprint string }{{"o", "fd"}, {"other", "fw"}, {"o", "unknown"}} {
				if _, err := tx.ActivityAwaitingVotes(ctx, q.org, q.fingerprint); !errors.Is(err, store.ErrNotFound) {
					return fmt.Errorf("%v found: %v", q, err)
				}
			}
			waiting.Status = "ACTIVITY_STATUS_COMPLETED"
			if err := tx.UpdateActivity(ctx, waiting); err != nil {
				return err
			}
			if _, err := tx.ActivityAwaitingVotes(ctx, "o", "fw"); !errors.Is(err, store.ErrNotFound) {
				return fmt.Errorf("a decided activity is still found: %v", err)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}

// Migration 6 indexes activities by body in arrival order: rows recorded before it take their timestampMs from their
// record, keep their order, and new rows follow them.
func TestMigrationIndexesActivitiesByBody(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := migratedFrom(t, b, 5,
			`INSERT INTO activities (id, org_id, fingerprint, type, status, record, created_at, updated_at) VALUES ('a', 'o', 'f1', 'T', 'S', '{"id":"a","timestampMs":"1795528235990"}', 1, 1)`,
			`INSERT INTO activities (id, org_id, fingerprint, type, status, record, created_at, updated_at) VALUES ('b', 'o', 'f2', 'T', 'ACTIVITY_STATUS_CONSENSUS_NEEDED', '{"id":"b","timestampMs":"1795528235991"}', 2, 2)`)
		err := s.Write(ctx, func(tx *store.Tx) error {
			if a, err := tx.ActivityByBody(ctx, "o", 1795528235990, "f1"); err != nil || a.ID != "a" || a.TimestampMs != 1795528235990 {
				return fmt.Errorf("migrated activity by body: %+v %v", a, err)
			}
			if a, err := tx.ActivityAwaitingVotes(ctx, "o", "f2"); err != nil || a.ID != "b" {
				return fmt.Errorf("migrated activity awaiting votes: %+v %v", a, err)
			}
			// The same fingerprint in another body (another timestampMs) is another activity now.
			if ok, err := tx.InsertActivity(ctx, store.Activity{ID: "c", OrgID: "o", Fingerprint: "f1", TimestampMs: 5, Type: "T", Status: "S", Record: []byte(`{}`)}); !ok || err != nil {
				return fmt.Errorf("insert after the migration: %v %v", ok, err)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		page, err := s.ListActivities(ctx, store.ActivityPage{OrgID: "o", Limit: 10})
		if err != nil || len(page) != 3 || page[0].ID != "c" || page[1].ID != "b" || page[2].ID != "a" {
			t.Fatalf("activities newest first after the migration: %+v %v", page, err)
		}
	})
}

// Migration 5 moves each vote's policy evaluations from their own table onto the activity's row, in recorded order.
func TestMigrationFoldsEvaluationsIntoActivities(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := migratedFrom(t, b, 4,
			`INSERT INTO activities (id, org_id, fingerprint, type, status, record, created_at, updated_at) VALUES ('a', 'o', 'f1', 'T', 'S', '{}', 1, 1)`,
			`INSERT INTO activities (id, org_id, fingerprint, type, status, record, created_at, updated_at) VALUES ('b', 'o', 'f2', 'T', 'S', '{}', 2, 2)`,
			`INSERT INTO policy_evaluations (id, activity_id, org_id, vote_id, evaluations, created_at) VALUES ('e2', 'a', 'o', 'v2', '[{"policyId":"p","outcome":"OUTCOME_ALLOW"}]', 20)`,
			`INSERT INTO policy_evaluations (id, activity_id, org_id, vote_id, evaluations, created_at) VALUES ('e1', 'a', 'o', 'v1', '[]', 10)`)
		a, err := s.ActivityByID(ctx, "o", "a")
		if err != nil {
			t.Fatal(err)
		}
		want := `[{"id":"e1","voteId":"v1","createdAt":10,"policyEvaluations":[]},{"id":"e2","voteId":"v2","createdAt":20,"policyEvaluations":[{"policyId":"p","outcome":"OUTCOME_ALLOW"}]}]`
		if string(a.Evaluations) != want {
			t.Fatalf("folded evaluations\n got %s\nwant %s", a.Evaluations, want)
		}
		if b, _ := s.ActivityByID(ctx, "o", "b"); string(b.Evaluations) != "[]" {
			t.Fatalf("an activity without evaluations has %s", b.Evaluations)
		}
	})
}

func TestActivityListing(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := open(t, b)
		err := s.Write(ctx, func(tx *store.Tx) error {
			for i := 0; i < 6; i++ {
				status := "DONE"
				if i%2 == 1 {
					status = "FAILED"
				}
				if _, err := tx.InsertActivity(ctx, store.Activity{ID: fmt.Sprintf("a%d", i), OrgID: "o", Fingerprint: fmt.Sprint(i), Type: "T", Status: status, Record: []byte(`{}`)}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		ids := func(as []store.Activity) (out []string) {
			for _, a := range as {
				out = append(out, a.ID)
			}
			return out
		}
		first, _ := s.ListActivities(ctx, store.ActivityPage{OrgID: "o", Limit: 2})
		older, _ := s.ListActivities(ctx, store.ActivityPage{OrgID: "o", Limit: 2, After: "a4"})
		newer, _ := s.ListActivities(ctx, store.ActivityPage{OrgID: "o", Limit: 2, Before: "a1"})
		failed, _ := s.ListActivities(ctx, store.ActivityPage{OrgID: "o", Limit: 10, Statuses: []string{"FAILED"}})
		got := fmt.Sprint(ids(first), ids(older), ids(newer), ids(failed))
		if got != "[a5 a4] [a3 a2] [a3 a2] [a5 a3 a1]" {
			t.Fatalf("got %s", got)
		}
	})
}

func TestSavepointKeepsEarlierWrites(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := open(t, b)
		err := s.Write(ctx, func(tx *store.Tx) error {
			if _, err := tx.InsertActivity(ctx, store.Activity{ID: "a", OrgID: "o", Fingerprint: "f", Record: []byte(`{}`)}); err != nil {
				return err
			}
			if err := tx.Savepoint(ctx, "exec"); err != nil {
				return err
			}
			if err := tx.InsertOrg(ctx, store.Org{ID: "x", Version: 1, Data: []byte(`{}`)}, nil); err != nil {
				return err
			}
			return tx.RollbackTo(ctx, "exec")
		})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.ActivityByID(ctx, "o", "a"); err != nil {
			t.Fatalf("activity before the savepoint lost: %v", err)
		}
		if _, err := s.GetOrg(ctx, "x"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("write after the savepoint kept: %v", err)
		}
	})
}

func TestSignCounter(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := open(t, b)
		steps := []struct {
			n    uint32
			want bool
		}{{5, true}, {5, false}, {4, false}, {6, true}}
		for _, st := range steps {
			ok, err := s.AdvanceSignCount(ctx, "o", "cred", st.n)
			if err != nil || ok != st.want {
				t.Fatalf("advance to %d: %v %v", st.n, ok, err)
			}
		}
	})
}

// A migration numbered below one already applied is still applied.
func TestMigrationsApplyByVersionNotMaximum(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := open(t, b)
		err := s.Write(ctx, func(tx *store.Tx) error { return store.ForgetMigrationForTest(ctx, tx, 3) })
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		s2, err := store.Open(ctx, b.URL, b.Dir)
		if err == nil {
			defer s2.Close()
		}
		// Migration 3 creates a table that already exists, so applying it again fails: proof that it was attempted.
		if err == nil || !strings.Contains(err.Error(), "0003") {
			t.Fatalf("a forgotten lower migration was not applied again: %v", err)
		}
	})
}

// On PostgreSQL, transactions that only read an organization hold it together; one that changes it waits for them.
func TestReadersShareAnOrganizationAndWritersWait(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := open(t, testdb.Postgres(t))
	if err := s.Write(ctx, func(tx *store.Tx) error {
		return tx.InsertOrg(ctx, store.Org{ID: "o", Version: 1, Data: []byte(`{}`)}, nil)
	}); err != nil {
		t.Fatal(err)
	}
	const readers = 2
	holding, release := make(chan struct{}), make(chan struct{})
	done := make(chan error, readers)
	for range readers {
		go func() {
			done <- s.Write(ctx, func(tx *store.Tx) error {
				short, cancel := context.WithTimeout(ctx, 10*time.Second)
				defer cancel()
				if _, err := tx.ShareOrgIfChanged(short, "o", 1); err != nil {
					return err
				}
				holding <- struct{}{}
				<-release
				return nil
			})
		}()
	}
	for range readers { // both hold it at once, or this waits until the readers' timeout fails them
		select {
		case <-holding:
		case err := <-done:
			t.Fatalf("a reader could not hold the organization beside the other: %v", err)
		}
	}
	blocked, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	err := s.Write(blocked, func(tx *store.Tx) error {
		_, err := tx.LockOrg(blocked, "o")
		return err
	})
	if err == nil {
		t.Fatal("a writer locked the organization while readers held it")
	}
	close(release)
	for range readers {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Write(ctx, func(tx *store.Tx) error { _, err := tx.LockOrg(ctx, "o"); return err }); err != nil {
		t.Fatalf("the writer could not lock the organization once the readers were done: %v", err)
	}
}

// migratedFrom runs statements in a database migrated only up to version, as an older release left it, then opens it
// with every migration applied.
func migratedFrom(t *testing.T, b testdb.Backend, version int, statements ...string) *store.Store {
	t.Helper()
	ctx := context.Background()
	old, err := store.OpenAtVersionForTest(ctx, b.URL, b.Dir, version)
	if err != nil {
		t.Fatal(err)
	}
	err = old.Write(ctx, func(tx *store.Tx) error {
		for _, q := range statements {
			if err := store.ExecForTest(ctx, tx, q); err != nil {
				return err
			}
		}
		return nil
	})
	old.Close()
	if err != nil {
		t.Fatal(err)
	}
	return open(t, b)
}

// A freshly migrated database is ready, on either backend: a version with one file per dialect counts once.
func TestReadyAfterMigrations(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		if err := open(t, b).Ready(context.Background()); err != nil {
			t.Fatal(err)
		}
	})
}

// A database URL of an unknown scheme, or a misspelt one, is refused before anything is created: it must not become a
// SQLite file named after the URL. sqlite://PATH names a SQLite file explicitly.
func TestDatabaseURLSchemes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	for _, u := range []string{"mysql://root:hunter2@db/sigil", "postgress://localhost/sigil"} {
		_, err := store.Open(ctx, u, dir)
		if err == nil || !strings.Contains(err.Error(), "is not supported") || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%s: %v", u, err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("refused URLs left files: %v", entries)
	}
	s, err := store.Open(ctx, "sqlite://"+filepath.Join(dir, "explicit.db"), dir)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := os.Stat(filepath.Join(dir, "explicit.db")); err != nil {
		t.Error(err)
	}
}
