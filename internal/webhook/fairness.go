package webhook

import (
	"slices"
	"sync"
	"time"
)

// Fairness. A Worker posts up to Concurrency deliveries at once, and a receiver that hangs holds its slot for the
// whole timeout: twenty endpoints of one tenant that never answer would otherwise fill every slot, and every other
// tenant's deliveries would wait behind theirs. So the attempts in flight are capped per endpoint (PerEndpoint) and
// per tenant (PerTenant, Delivery.Tenant: whose endpoints they are), claims leave alone the endpoints and tenants at
// their caps (Busy), and an endpoint that keeps timing out has its circuit opened (Breaker): nothing is attempted to
// it until its cooldown ends, and then one attempt at a time until one is answered. A tenant's slow receivers then
// cost it its own share of the slots, never anyone else's.

// Busy is what a claim must leave alone: endpoints and tenants the worker cannot start another attempt for now (at
// their caps, or an endpoint whose circuit is open).
type Busy struct {
	Endpoints []string
	Tenants   []string
}

// Breaker opens an endpoint's circuit after Threshold attempts in a row that got no answer within the attempt's
// timeout: no attempt is made to it for Cooldown, then one at a time until one is answered. Each time a circuit opens
// again without an answer between, its cooldown doubles, up to MaxCooldown. Deliveries left waiting are not failed:
// they keep their attempts and are posted once the circuit closes. The state is the worker's, in memory: each
// process learns about an endpoint by itself.
type Breaker struct {
	Threshold   int           // default 5
	Cooldown    time.Duration // default 30 s
	MaxCooldown time.Duration // default 10 min
}

func (b Breaker) withDefaults() Breaker {
	if b.Threshold <= 0 {
		b.Threshold = 5
	}
	if b.Cooldown <= 0 {
		b.Cooldown = 30 * time.Second
	}
	if b.MaxCooldown <= 0 {
		b.MaxCooldown = 10 * time.Minute
	}
	return b
}

// Defaults of PerEndpoint and PerTenant, each at most Concurrency.
const (
	DefaultPerEndpoint = 8
	DefaultPerTenant   = 16
)

// tenantOf is the tenant a delivery's attempts count for: its Tenant, or its organization.
func tenantOf(d Delivery) string {
	if d.Tenant != "" {
		return d.Tenant
	}
	return d.OrgID
}

// endpointState is what the worker knows of one endpoint.
type endpointState struct {
	inflight  int
	timeouts  int           // attempts in a row without an answer
	openUntil time.Time     // while the circuit is open; zero when closed
	cooldown  time.Duration // of its last opening
	probing   bool          // half-open: the one attempt allowed is in flight
}

// scheduler admits attempts within the caps and keeps the circuits.
type scheduler struct {
	perEndpoint, perTenant int
	breaker                Breaker

	mu        sync.Mutex
	endpoints map[string]*endpointState
	tenants   map[string]int
}

func newScheduler(perEndpoint, perTenant, concurrency int, b Breaker) *scheduler {
	if perEndpoint <= 0 {
		perEndpoint = DefaultPerEndpoint
	}
	if perTenant <= 0 {
		perTenant = DefaultPerTenant
	}
	return &scheduler{perEndpoint: min(perEndpoint, concurrency), perTenant: min(perTenant, concurrency), breaker: b.withDefaults(),
		endpoints: map[string]*endpointState{}, tenants: map[string]int{}}
}

// admission is the answer for a run of one endpoint's deliveries.
type admission int

const (
	admitted admission = iota
	atCap              // the endpoint or tenant is at its cap: try again once an attempt ends
	open               // the endpoint's circuit is open: wait for it to close
)

// admit reserves a slot for a run of deliveries to d's endpoint, for d's tenant, at now; with open, until is when the
// circuit lets an attempt through again.
func (s *scheduler) admit(d Delivery, now time.Time) (a admission, until time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.endpoint(d.EndpointID)
	half := false
	switch {
	case !e.openUntil.IsZero() && now.Before(e.openUntil):
		return open, e.openUntil
	case !e.openUntil.IsZero(): // cooldown over: one attempt at a time until one is answered
		if e.probing || e.inflight > 0 {
			return atCap, time.Time{}
		}
		half = true
	case e.inflight >= s.perEndpoint:
		return atCap, time.Time{}
	}
	tenant := tenantOf(d)
	if s.tenants[tenant] >= s.perTenant {
		return atCap, time.Time{}
	}
	e.inflight++
	e.probing = e.probing || half
	s.tenants[tenant]++
	return admitted, time.Time{}
}

// done ends a run admitted for d.
func (s *scheduler) done(d Delivery) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.endpoint(d.EndpointID)
	e.inflight--
	tenant := tenantOf(d)
	if s.tenants[tenant]--; s.tenants[tenant] <= 0 {
		delete(s.tenants, tenant)
	}
	s.forget(d.EndpointID, e)
}

// attempted records how an attempt to an endpoint ended: timedOut when it got no answer within the timeout. It
// reports the cooldown when this attempt opened the circuit.
func (s *scheduler) attempted(endpointID string, timedOut bool, now time.Time) (opened time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.endpoint(endpointID)
	wasProbe := e.probing
	e.probing = false
	if !timedOut {
		e.timeouts, e.openUntil, e.cooldown = 0, time.Time{}, 0
		return 0
	}
	e.timeouts++
	switch {
	case wasProbe: // half-open, and the probe timed out too
		e.cooldown = min(2*e.cooldown, s.breaker.MaxCooldown)
	case !e.openUntil.IsZero(): // open already: the attempt started before it opened
		return 0
	case e.timeouts >= s.breaker.Threshold:
		e.cooldown = s.breaker.Cooldown
	default:
		return 0
	}
	e.openUntil = now.Add(e.cooldown)
	return e.cooldown
}

// busy lists the endpoints and tenants a claim at now must leave alone.
func (s *scheduler) busy(now time.Time) Busy {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b Busy
	for id, e := range s.endpoints {
		half := !e.openUntil.IsZero() && !now.Before(e.openUntil)
		if e.inflight >= s.perEndpoint || (!e.openUntil.IsZero() && !half) || (half && (e.probing || e.inflight > 0)) {
			b.Endpoints = append(b.Endpoints, id)
		}
	}
	for t, n := range s.tenants {
		if n >= s.perTenant {
			b.Tenants = append(b.Tenants, t)
		}
	}
	slices.Sort(b.Endpoints) // a stable statement text, for the store's statement cache
	slices.Sort(b.Tenants)
	return b
}

func (s *scheduler) endpoint(id string) *endpointState {
	e, ok := s.endpoints[id]
	if !ok {
		e = &endpointState{}
		s.endpoints[id] = e
	}
	return e
}

// forget drops what there is no need to remember of an endpoint: nothing in flight, nothing against it.
func (s *scheduler) forget(id string, e *endpointState) {
	if e.inflight == 0 && e.timeouts == 0 && e.openUntil.IsZero() && !e.probing {
		delete(s.endpoints, id)
	}
}
