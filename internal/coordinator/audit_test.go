package coordinator_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/sigil/sigil/api"
	"github.com/sigil/sigil/internal/coordinator"
	"github.com/sigil/sigil/internal/testdb"
)

// syncBuffer is a buffer the coordinator writes the audit stream to while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// The audit stream has one line per recorded activity: who, what, the outcome and the policies that decided it; never
// the intent.
func TestAuditStream(t *testing.T) {
	t.Parallel()
	audit := &syncBuffer{}
	s := newStackWith(t, testdb.SQLite(t), nil, func(c *coordinator.Config) { c.Audit = audit })
	org := s.boot.OrganizationID
	_, bob := s.createUser(org, s.root, "bob")
	if _, _, err := bob.UpdateOrganizationName(bg, org, api.UpdateOrganizationNameIntent{OrganizationName: "secret-looking name"}); err == nil {
		t.Fatal("a non-root rename was allowed")
	}
	lines := strings.Split(strings.TrimSpace(audit.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d audit lines, want 2 (the user created, the rename denied):\n%s", len(lines), audit.String())
	}
	var created, denied struct {
		ActivityID, OrganizationID, Type, Status, UserID, PublicKey, Failure string
		Policies                                                             []api.PolicyEvaluation
	}
	if json.Unmarshal([]byte(lines[0]), &created) != nil || json.Unmarshal([]byte(lines[1]), &denied) != nil {
		t.Fatalf("audit lines are not JSON: %s", audit.String())
	}
	if created.Type != "ACTIVITY_TYPE_CREATE_USERS_V4" || created.Status != api.StatusCompleted || created.UserID != s.boot.UserID ||
		created.PublicKey == "" || created.OrganizationID != org {
		t.Errorf("created line = %+v", created)
	}
	if denied.Type != "ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME" || denied.Status != api.StatusFailed || denied.Failure == "" {
		t.Errorf("denied line = %+v", denied)
	}
	if strings.Contains(audit.String(), "secret-looking name") || strings.Contains(audit.String(), "bob") {
		t.Errorf("the audit stream holds intent values: %s", audit.String())
	}
}
