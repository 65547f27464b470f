package main

import (
	"context"
	"strings"
	"testing"

	"github.com/sigil/sigil/internal/store"
)

// sigil allowlist clear removes an organization's IP allowlists, its keys' too, from the database, and no other's.
func TestAllowlistClearCommand(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	st, err := store.Open(ctx, "", dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Write(ctx, func(tx *store.Tx) error {
		for _, l := range []store.IPAllowlist{{OrgID: "locked", Enabled: true, OnEvaluationError: "DENY", Rules: []byte(`[]`)},
			{OrgID: "locked", PublicKey: "02ab", OnEvaluationError: "DENY", Rules: []byte(`[]`)},
			{OrgID: "other", Enabled: true, OnEvaluationError: "DENY", Rules: []byte(`[]`)}} {
			if err := tx.PutIPAllowlist(ctx, l); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if out, errs, code := sigil(t, "allowlist", "clear", "--dir", dir, "--organization", "locked"); code != 0 || !strings.Contains(out, "removed 2 IP allowlists") {
		t.Fatalf("allowlist clear: exit %d\n%s%s", code, out, errs)
	}
	if lists, _ := st.IPAllowlists(ctx, "locked"); len(lists) != 0 {
		t.Fatalf("left %v", lists)
	}
	if lists, _ := st.IPAllowlists(ctx, "other"); len(lists) != 1 {
		t.Fatalf("another organization's lists: %v", lists)
	}
	if _, _, code := sigil(t, "allowlist", "clear", "--dir", t.TempDir()); code != 2 {
		t.Fatalf("without an organization or a bootstrap record: exit %d", code)
	}
}
