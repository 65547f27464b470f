package webhook

import (
	"testing"
	"time"
)

// The scheduler's caps and circuits, step by step: an endpoint at its cap, a tenant at its cap, a circuit that opens
// after Threshold timeouts in a row, lets one attempt through once its cooldown ends, opens again for twice as long
// when that one times out too, and closes at the first answer.
func TestSchedulerHalfOpen(t *testing.T) {
	t.Parallel()
	s := newScheduler(2, 3, 64, Breaker{Threshold: 2, Cooldown: time.Minute})
	now := time.Unix(1_800_000_000, 0)
	d := func(endpoint, tenant string) Delivery { return Delivery{EndpointID: endpoint, Tenant: tenant} }
	expect := func(what string, got admission, want admission) {
		t.Helper()
		if got != want {
			t.Fatalf("%s: admission %d, want %d", what, got, want)
		}
	}
	a, _ := s.admit(d("e1", "t"), now)
	expect("first to e1", a, admitted)
	a, _ = s.admit(d("e1", "t"), now)
	expect("second to e1", a, admitted)
	a, _ = s.admit(d("e1", "t"), now)
	expect("third to e1, over its cap of 2", a, atCap)
	a, _ = s.admit(d("e2", "t"), now)
	expect("to e2, the tenant's third", a, admitted)
	a, _ = s.admit(d("e3", "t"), now)
	expect("to e3, the tenant's fourth, over its cap of 3", a, atCap)
	if b := s.busy(now); len(b.Endpoints) != 1 || b.Endpoints[0] != "e1" || len(b.Tenants) != 1 || b.Tenants[0] != "t" {
		t.Fatalf("busy %+v, want e1 and t", b)
	}

	// e1's two attempts time out: its circuit opens for a minute.
	if opened := s.attempted("e1", true, now); opened != 0 {
		t.Fatalf("opened after one timeout")
	}
	if opened := s.attempted("e1", true, now); opened != time.Minute {
		t.Fatalf("after two timeouts: opened for %v, want a minute", opened)
	}
	s.done(d("e1", "t"))
	s.done(d("e1", "t"))
	a, until := s.admit(d("e1", "u"), now.Add(59*time.Second))
	if a != open || !until.Equal(now.Add(time.Minute)) {
		t.Fatalf("e1 during its cooldown: %d until %v", a, until)
	}
	// Half-open: one attempt, and the next waits for it.
	later := now.Add(time.Minute)
	a, _ = s.admit(d("e1", "u"), later)
	expect("the probe", a, admitted)
	a, _ = s.admit(d("e1", "u"), later)
	expect("a second while the probe is in flight", a, atCap)
	if opened := s.attempted("e1", true, later); opened != 2*time.Minute {
		t.Fatalf("the probe timed out: opened for %v, want twice the cooldown", opened)
	}
	s.done(d("e1", "u"))
	a, _ = s.admit(d("e1", "u"), later.Add(time.Minute))
	expect("during the doubled cooldown", a, open)
	a, _ = s.admit(d("e1", "u"), later.Add(2*time.Minute))
	expect("the second probe", a, admitted)
	s.attempted("e1", false, later.Add(2*time.Minute)) // answered: closed
	a, _ = s.admit(d("e1", "u"), later.Add(2*time.Minute))
	expect("once closed, a second at once", a, admitted)
}
