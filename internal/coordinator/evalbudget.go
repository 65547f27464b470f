package coordinator

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/sigil/sigil/apierr"
	"github.com/sigil/sigil/internal/policy"
)

// Policy CPU. Each activity's expressions — its organization's policies, its voters' MFA conditions, its session's
// scope — spend one policy.Budget together, so that no organization's policies can take a core for seconds on one
// activity. An evaluation that has spent more than policy.CostlyAfter steps is costly, and costly evaluations take
// turns: one per organization at a time, at most half the cores' worth in all, and, together, at most costlyRate
// steps a second (a few per cent of a core; a write activity is decided inside its transaction, and on SQLite every
// organization's writes wait for it). Those without a turn are refused, not queued (a queued one would hold its
// transaction while it waits). An organization whose last evaluation was costly takes its turn before evaluating
// anything, so that the activities it sends meanwhile are refused at no cost. Ordinary evaluations, a few hundred
// steps, never meet the gate: one organization's heavy policies leave every other organization the rest of the CPU.

// costlyGate counts the costly evaluations running, by organization, the steps they may still take, and the
// organizations whose last evaluation was costly.
type costlyGate struct {
	mu       sync.Mutex
	now      func() time.Time // refills credit: the coordinator's clock; time.Now when nil
	running  map[string]int
	total    int
	costly   map[string]bool
	credit   float64   // the steps costly evaluations may still take: refilled at costlyRate, up to costlyBurst
	refilled time.Time // when credit was last refilled; zero before the first turn
}

const (
	// costlyPerOrg is the most costly evaluations one organization may run at once (costlyTotal for all together).
	costlyPerOrg = 1
	// costlyRate is the steps a second costly evaluations may take together, some 40 ms of a core, and costlyBurst
	// the most after a quiet spell: two activities at the budget's limit. Steps, not time, so that a busy machine
	// refuses no more.
	costlyRate  = policy.DefaultBudget / 4
	costlyBurst = 2 * policy.DefaultBudget
)

func costlyTotal() int { return max(1, runtime.GOMAXPROCS(0)/2) }

func (g *costlyGate) clock() time.Time {
	if g.now != nil {
		return g.now()
	}
	return time.Now()
}

// enter takes a turn for the organization, or refuses with why.
func (g *costlyGate) enter(orgID string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := g.clock()
	if g.refilled.IsZero() {
		g.credit, g.refilled = costlyBurst, now
	}
	g.credit = min(g.credit+now.Sub(g.refilled).Seconds()*costlyRate, costlyBurst)
	g.refilled = now
	why := ""
	switch total := costlyTotal(); {
	case g.running[orgID] >= costlyPerOrg:
		why = "another of its activities is being decided at that cost"
	case g.total >= total:
		why = fmt.Sprintf("this server already decides %d activities at that cost", total)
	case g.credit <= 0:
		why = fmt.Sprintf("such activities have taken the %d steps a second this server gives them, for now", costlyRate)
	}
	if why != "" {
		return fmt.Errorf("organization %s's policies need more than %d evaluation steps for an activity, and %s; "+
			"this one is refused rather than queued: try again later, or make the policies do less work", orgID, policy.CostlyAfter, why)
	}
	if g.running == nil {
		g.running = map[string]int{}
	}
	g.running[orgID]++
	g.total++
	return nil
}

// leave ends a turn in which the activity spent steps.
func (g *costlyGate) leave(orgID string, steps int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.running[orgID]--; g.running[orgID] <= 0 {
		delete(g.running, orgID)
	}
	g.total--
	g.credit -= float64(steps)
}

// knownCostly reports whether the organization's last evaluation was costly.
func (g *costlyGate) knownCostly(orgID string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.costly[orgID]
}

// evaluated records whether an evaluation of the organization was costly.
func (g *costlyGate) evaluated(orgID string, costly bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case costly && g.costly == nil:
		g.costly = map[string]bool{orgID: true}
	case costly:
		g.costly[orgID] = true
	default:
		delete(g.costly, orgID)
	}
}

// policyBudget is the budget of one activity's policy evaluation in org, the organization whose policies decide it.
// release ends its turn at the costly evaluations, if it took one: call it as soon as the activity is decided (it
// may be called again).
func (c *Coordinator) policyBudget(org *Org) (b *policy.Budget, release func()) {
	inTurn := false
	enter := func() error {
		if inTurn {
			return nil
		}
		err := c.costly.enter(org.ID)
		inTurn = err == nil
		return err
	}
	b = policy.NewBudget(policy.DefaultBudget, enter)
	if c.costly.knownCostly(org.ID) {
		if err := enter(); err != nil {
			b.Refuse(err)
		}
	}
	recorded := false
	return b, func() {
		if !recorded && b.Spent() > 0 {
			recorded = true
			c.costly.evaluated(org.ID, b.Spent() >= policy.CostlyAfter)
		}
		if inTurn {
			inTurn = false
			c.costly.leave(org.ID, b.Spent())
		}
	}
}

// budgetRefusal is the refusal of an activity whose evaluation ran out of its budget or its turn: the organization's
// policies are too costly for it, which no approval changes, so it is not a policy's denial.
func budgetRefusal(err error) *apierr.Error {
	return apierr.New(apierr.ResourceExhausted, "POLICY_EVALUATION_LIMIT", "%s", err.Error())
}

// asBudgetRefusal is the refusal for err if the budget refused, and nil otherwise.
func asBudgetRefusal(err error) *apierr.Error {
	var be *policy.BudgetError
	if errors.As(err, &be) {
		return budgetRefusal(be)
	}
	return nil
}
