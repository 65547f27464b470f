package store_test

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/sigil/sigil/internal/store"
	"github.com/sigil/sigil/internal/testdb"
)

func TestOTPCodes(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := open(t, b)
		codes := []store.OTPCode{
			{ID: "a", OrgID: "o", Type: "OTP_TYPE_EMAIL", Contact: "Ann@x.io", CodeHash: []byte{1, 2}, CreatedAt: 10, ExpiresAt: 100},
			{ID: "b", OrgID: "o", Type: "OTP_TYPE_EMAIL", Contact: "ann@x.io", CodeHash: []byte{3}, CreatedAt: 20, ExpiresAt: 40, Encrypted: true},
			{ID: "c", OrgID: "o", Type: "OTP_TYPE_SMS", Contact: "+15550000001", UserIdentifier: "ip1", CodeHash: []byte{4}, CreatedAt: 30, ExpiresAt: 200},
			{ID: "d", OrgID: "other", Type: "OTP_TYPE_EMAIL", Contact: "ann@x.io", CodeHash: []byte{5}, CreatedAt: 10, ExpiresAt: 100},
			{ID: "e", OrgID: "o", Type: "OTP_TYPE_EMAIL", Contact: "ann@x.io", CodeHash: []byte{6}, CreatedAt: 10, ExpiresAt: 100, Used: true},
		}
		err := s.Write(ctx, func(tx *store.Tx) error {
			for _, c := range codes {
				if err := tx.InsertOTPCode(ctx, c); err != nil {
					return err
				}
			}
			return tx.PutSecret(ctx, store.Secret{ID: store.OTPTargetSecretID("b"), OrgID: "o", Blob: []byte("k"), CreatedAt: 1})
		})
		if err != nil {
			t.Fatal(err)
		}
		_ = s.Write(ctx, func(tx *store.Tx) error {
			got, err := tx.OTPCode(ctx, "o", "b")
			if err != nil || !got.Encrypted || got.Used || !bytes.Equal(got.CodeHash, []byte{3}) || got.ExpiresAt != 40 {
				t.Fatalf("OTPCode b = %+v, %v", got, err)
			}
			if _, err := tx.OTPCode(ctx, "other", "b"); !errors.Is(err, store.ErrNotFound) {
				t.Fatalf("code of another organization: %v, want ErrNotFound", err)
			}
			tests := []struct {
				name              string
				typ, contact, uid string
				now, since        int64
				want              string
			}{
				{"live for the contact, any case", "OTP_TYPE_EMAIL", "ANN@x.io", "", 30, 0, "a b"},
				{"expired ones left out", "OTP_TYPE_EMAIL", "ann@x.io", "", 50, 0, "a"},
				{"other type", "OTP_TYPE_SMS", "ann@x.io", "", 30, 0, ""},
				{"by identifier in the window", "OTP_TYPE_SMS", "+15550000002", "ip1", 30, 25, "c"},
				{"identifier outside the window", "OTP_TYPE_SMS", "+15550000002", "ip1", 30, 31, ""},
			}
			for _, tc := range tests {
				rel, err := tx.RelatedOTPCodes(ctx, "o", tc.typ, tc.contact, tc.uid, tc.now, tc.since)
				if err != nil {
					t.Fatal(err)
				}
				var ids []string
				for _, r := range rel {
					ids = append(ids, r.ID)
				}
				if got := join(ids); got != tc.want {
					t.Errorf("%s: related = %q, want %q", tc.name, got, tc.want)
				}
			}
			return nil
		})
	})
}

func join(ids []string) string {
	out := ""
	for i, id := range ids {
		if i > 0 {
			out += " "
		}
		out += id
	}
	return out
}

func TestOTPCodeCompareAndSet(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := open(t, b)
		err := s.Write(ctx, func(tx *store.Tx) error {
			if err := tx.InsertOTPCode(ctx, store.OTPCode{ID: "a", OrgID: "o", Type: "OTP_TYPE_EMAIL", Contact: "a@x.io", CodeHash: []byte{1}, CreatedAt: 1, ExpiresAt: 9}); err != nil {
				return err
			}
			steps := []struct {
				read, attempts int
				used, want     bool
			}{
				{0, 1, false, true},  // first wrong entry
				{0, 1, false, false}, // a check that read the old row loses
				{1, 1, true, true},   // right entry
				{1, 2, false, false}, // a used code is never updated again
			}
			for i, st := range steps {
				ok, err := tx.UpdateOTPCode(ctx, "o", "a", st.read, st.attempts, st.used)
				if err != nil {
					return err
				}
				if ok != st.want {
					t.Errorf("step %d: updated = %v, want %v", i, ok, st.want)
				}
			}
			c, err := tx.OTPCode(ctx, "o", "a")
			if err != nil || c.Attempts != 1 || !c.Used {
				t.Errorf("final row %+v, %v", c, err)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}

func TestPruneOTPCodes(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := open(t, b)
		err := s.Write(ctx, func(tx *store.Tx) error {
			for _, c := range []store.OTPCode{
				{ID: "old", OrgID: "o", Type: "OTP_TYPE_EMAIL", Contact: "a@x.io", CodeHash: []byte{1}, CreatedAt: 1, ExpiresAt: 5, Encrypted: true},
				{ID: "live", OrgID: "o", Type: "OTP_TYPE_EMAIL", Contact: "a@x.io", CodeHash: []byte{1}, CreatedAt: 1, ExpiresAt: 50},
				{ID: "recent", OrgID: "o", Type: "OTP_TYPE_SMS", Contact: "+15550000001", CodeHash: []byte{1}, CreatedAt: 8, ExpiresAt: 9},
				{ID: "foreign", OrgID: "p", Type: "OTP_TYPE_EMAIL", Contact: "a@x.io", CodeHash: []byte{1}, CreatedAt: 1, ExpiresAt: 5},
			} {
				if err := tx.InsertOTPCode(ctx, c); err != nil {
					return err
				}
			}
			if err := tx.PutSecret(ctx, store.Secret{ID: store.OTPTargetSecretID("old"), OrgID: "o", Blob: []byte("k"), CreatedAt: 1}); err != nil {
				return err
			}
			n, err := tx.PruneOTPCodes(ctx, "o", 7)
			if err != nil {
				return err
			}
			if n != 1 {
				t.Errorf("pruned %d codes, want 1", n)
			}
			if _, err := tx.OTPCode(ctx, "o", "old"); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("old code still there: %v", err)
			}
			if _, err := tx.GetSecret(ctx, store.OTPTargetSecretID("old")); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("old code's target key still there: %v", err)
			}
			for _, k := range [][2]string{{"o", "live"}, {"o", "recent"}, {"p", "foreign"}} {
				if _, err := tx.OTPCode(ctx, k[0], k[1]); err != nil {
					t.Errorf("%s pruned: %v", k[1], err)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}

func TestUseToken(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := open(t, b)
		use := func(id string, exp, at int64) bool {
			var ok bool
			if err := s.Write(ctx, func(tx *store.Tx) error {
				var err error
				ok, err = tx.UseToken(ctx, id, "o", exp, at)
				return err
			}); err != nil {
				t.Fatal(err)
			}
			return ok
		}
		if !use("t1", 100, 10) {
			t.Fatal("first use refused")
		}
		if use("t1", 100, 20) {
			t.Fatal("second use of a live token accepted")
		}
		// Once t1 has expired its row is pruned; an expired token is refused before this point anyway.
		if !use("t2", 300, 150) || !use("t1", 400, 150) {
			t.Fatal("pruning of expired token rows")
		}
	})
}

func TestSecretsInTransaction(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := open(t, b)
		err := s.Write(ctx, func(tx *store.Tx) error {
			if _, err := tx.GetSecret(ctx, "k"); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("missing secret: %v", err)
			}
			for i, want := range []bool{true, false} {
				ok, err := tx.PutSecretIfAbsent(ctx, store.Secret{ID: "k", Blob: []byte{byte(i)}, CreatedAt: 1})
				if err != nil {
					return err
				}
				if ok != want {
					t.Errorf("put %d: stored = %v, want %v", i, ok, want)
				}
			}
			got, err := tx.GetSecret(ctx, "k")
			if err != nil || !bytes.Equal(got.Blob, []byte{0}) {
				t.Errorf("secret = %v, %v; the first blob must stay", got.Blob, err)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}
