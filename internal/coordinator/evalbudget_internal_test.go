package coordinator

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sigil/sigil/internal/policy"
)

// Costly evaluations take turns: one per organization at a time (and at most costlyTotal in all), the others refused
// with the reason at the point they become costly; an organization whose last evaluation was costly is refused before
// it evaluates anything while its turn is taken, and evaluates again once it is free.
func TestCostlyEvaluationsTakeTurns(t *testing.T) {
	items := make([]string, 300)
	for i := range items {
		items[i] = fmt.Sprint(i)
	}
	list := "[" + strings.Join(items, ",") + "]"
	heavy, err := policy.Compile(list+".any(a, "+list+".any(b, a == 999))", policy.Condition) // ~90,900 steps, false
	if err != nil {
		t.Fatal(err)
	}
	spend := func(b *policy.Budget, times int) error {
		for range times {
			if _, err := heavy.EvalWithin(&policy.Input{}, b); err != nil {
				return err
			}
		}
		return nil
	}
	now := time.Unix(1_800_000_000, 0)
	c := &Coordinator{}
	c.costly.now = func() time.Time { return now }
	a, other := &Org{ID: "org-a"}, &Org{ID: "org-b"}

	first, releaseFirst := c.policyBudget(a)
	if err := spend(first, 3); err != nil { // costly from the third: it takes org-a's turn
		t.Fatal(err)
	}
	second, releaseSecond := c.policyBudget(a)
	if err := spend(second, 2); err != nil {
		t.Fatalf("org-a's second activity before it is costly: %v", err)
	}
	if err := spend(second, 1); err == nil || !strings.Contains(err.Error(), "another of its activities is being decided at that cost") {
		t.Fatalf("org-a's second costly activity: %v, want refused", err)
	}
	releaseSecond()
	third, releaseThird := c.policyBudget(other)
	err = spend(third, 3)
	if costlyTotal() == 1 && (err == nil || !strings.Contains(err.Error(), "this server already decides 1 activities at that cost")) {
		t.Errorf("org-b's costly activity beside org-a's on a server of one costly slot: %v, want refused", err)
	} else if costlyTotal() > 1 && err != nil {
		t.Errorf("org-b's costly activity beside org-a's: %v", err)
	}
	releaseThird()

	// org-a's last evaluation was costly: its next activity takes the turn first, and is refused at once while it is taken.
	releaseFirst()
	hold, releaseHold := c.policyBudget(a)
	if hold.Err() != nil {
		t.Fatalf("org-a's turn is free: %v", hold.Err())
	}
	refused, releaseRefused := c.policyBudget(a)
	if err := refused.Err(); err == nil || !strings.Contains(err.Error(), "another of its activities") {
		t.Errorf("org-a's activity while its turn is taken: %v, want refused before evaluating", err)
	}
	releaseRefused()
	if err := spend(hold, 1); err != nil {
		t.Fatal(err)
	}
	releaseHold() // cheap this time: org-a is no longer known to be costly
	if c.costly.knownCostly(a.ID) || c.costly.total != 0 || len(c.costly.running) != 0 {
		t.Errorf("after every turn ended: known costly %v, %d running %v", c.costly.knownCostly(a.ID), c.costly.total, c.costly.running)
	}

	// Together, costly evaluations take at most costlyRate steps a second: once a turn has spent the credit, the next
	// is refused until time has refilled it.
	c.costly.credit = 100_000
	long, releaseLong := c.policyBudget(other)
	if err := spend(long, 3); err != nil { // ~272,000 steps
		t.Fatal(err)
	}
	releaseLong()
	for _, wait := range []time.Duration{0, 400 * time.Millisecond} { // -172,000 steps, then -72,000
		now = now.Add(wait)
		next, releaseNext := c.policyBudget(other) // known costly: it takes its turn first
		if err := next.Err(); err == nil || !strings.Contains(err.Error(), "have taken the 250000 steps a second this server gives them") {
			t.Errorf("%v after the credit was spent: %v, want refused", wait, err)
		}
		releaseNext()
	}
	now = now.Add(400 * time.Millisecond)
	if next, releaseNext := c.policyBudget(other); next.Err() != nil {
		t.Errorf("once the credit is refilled: %v", next.Err())
	} else {
		releaseNext()
	}
}
