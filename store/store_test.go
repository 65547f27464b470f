package store_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"sigil/internal/testdb"
	"sigil/store"
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

func TestMigrationsAreIdempotent(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		open(t, b).Close()
		s := open(t, b) // second open finds everything applied
		if s.Backend() != b.Name {
			t.Fatalf("backend %s, want %s", s.Backend(), b.Name)
		}
	})
}

func TestOrganizationsAndIndex(t *testing.T) {
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

func TestActivitiesAreUniquePerFingerprint(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := open(t, b)
		var wg sync.WaitGroup
		inserted := make(chan bool, 8)
		for i := 0; i < 8; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				_ = s.Write(ctx, func(tx *store.Tx) error {
					ok, err := tx.InsertActivity(ctx, store.Activity{ID: fmt.Sprintf("a%d", i), OrgID: "o", Fingerprint: "f", Type: "T", Status: "S", Record: []byte(`{}`)})
					inserted <- ok
					return err
				})
			}(i)
		}
		wg.Wait()
		close(inserted)
		n := 0
		for ok := range inserted {
			if ok {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("%d inserts won, want 1", n)
		}
	})
}

func TestActivityListing(t *testing.T) {
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
		if _, err := s.ActivityByID(ctx, "a"); err != nil {
			t.Fatalf("activity before the savepoint lost: %v", err)
		}
		if _, err := s.GetOrg(ctx, "x"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("write after the savepoint kept: %v", err)
		}
	})
}

func TestSignCounter(t *testing.T) {
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
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := open(t, b)
		err := s.Write(ctx, func(tx *store.Tx) error { return store.ForgetMigrationForTest(ctx, tx, 2) })
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		s2, err := store.Open(ctx, b.URL, b.Dir)
		if err == nil {
			defer s2.Close()
		}
		// Migration 2 creates a table that already exists, so applying it again fails: proof that it was attempted.
		if err == nil || !strings.Contains(err.Error(), "0002") {
			t.Fatalf("a forgotten lower migration was not applied again: %v", err)
		}
	})
}
