package policy

import (
	"fmt"
	"strings"
)

// Effect is what an applicable policy does.
type Effect string

const (
	EffectAllow Effect = "EFFECT_ALLOW"
	EffectDeny  Effect = "EFFECT_DENY"
)

// Policy is a compiled policy. A nil Condition, Consensus or Time is absent, which
// means true. Each must be compiled for its own field.
type Policy struct {
	ID        string
	Effect    Effect
	Condition *Expr
	Consensus *Expr
	Time      *Expr // when the policy is active; inactive, it is skipped
}

// RootQuorum is the organization's root quorum: Threshold approvals from UserIDs.
type RootQuorum struct {
	UserIDs   []string
	Threshold int
}

// Request is everything one decision needs.
type Request struct {
	RootQuorum RootQuorum
	// Input is what the expressions read. Input.Approvers are the users who voted to
	// approve, the submitter first (with their tags); Input.Credentials the credentials
	// of those votes; Input.Activity the activity's facts.
	Input *Input
	// Rejections are the IDs of users who voted to reject. The coordinator accepts a
	// reject vote only from a user allowed to vote (CanVote); any accepted rejection
	// rejects the activity.
	Rejections []string
	// RootOnly marks an activity only the root quorum may perform: no policy can grant it.
	RootOnly bool
	// OwnCredentialChange is true when the submitter changes its own credentials
	// (creates or deletes its own API keys, passkeys or OAuth providers). It is
	// implicitly allowed unless some policy applies to the activity.
	OwnCredentialChange bool
	// VoterInConsensus is true for APPROVE_ACTIVITY and REJECT_ACTIVITY when CanVote
	// holds for the voter on the target activity: voting is then implicitly allowed.
	VoterInConsensus bool
	// StrictDeny decides a DENY whose condition fails because the request does not have
	// what it reads (Inapplicable) as any other failing DENY: it denies when it might
	// apply. Off, such a DENY does not apply, as in the reference.
	StrictDeny bool
	Policies   []Policy
	// Budget bounds the steps of the decision, shared with the activity's other evaluations (MFA conditions, a
	// session's scope); nil is a budget of DefaultBudget for this decision alone.
	Budget *Budget
}

// Outcome is the result of a decision. The zero value is Deny, so a Decision nobody
// filled in never allows.
type Outcome int

const (
	Deny Outcome = iota
	Allow
	ConsensusNeeded
	Rejected
)

func (o Outcome) String() string {
	switch o {
	case Allow:
		return "Allow"
	case ConsensusNeeded:
		return "ConsensusNeeded"
	case Rejected:
		return "Rejected"
	}
	return "Deny"
}

// PolicyOutcome is what one policy contributed, as reported in policy evaluations.
type PolicyOutcome string

const (
	OutcomeAllow             PolicyOutcome = "OUTCOME_ALLOW"
	OutcomeDenyExplicit      PolicyOutcome = "OUTCOME_DENY_EXPLICIT"
	OutcomeDenyImplicit      PolicyOutcome = "OUTCOME_DENY_IMPLICIT"
	OutcomeRequiresConsensus PolicyOutcome = "OUTCOME_REQUIRES_CONSENSUS"
	OutcomeTimeInactive      PolicyOutcome = "OUTCOME_TIME_INACTIVE"
	OutcomeError             PolicyOutcome = "OUTCOME_ERROR"
)

// Evaluation is one policy's outcome. Err is set for OUTCOME_ERROR and names the
// failing clause (an *EvalError).
type Evaluation struct {
	PolicyID string
	Outcome  PolicyOutcome
	Err      error
}

// Decision is the result of Decide. Evaluations has one entry per policy, in the
// order of Request.Policies, unless the root quorum or the root-only rule decided
// before any policy was evaluated.
type Decision struct {
	Outcome     Outcome
	Evaluations []Evaluation
	Message     string
	// Err is set when no decision could be made: the Budget ran out (a *BudgetError, also the Message). The
	// Outcome is then Deny, whatever the policies evaluated before said.
	Err error
}

// Messages of the reference for a denial.
const (
	msgImplicitDeny = "No policies evaluated to outcome: Allow"
	msgExplicitDeny = "The following policies denied this action: "
)

// Decide applies the organization's rules to one request, in this order:
//
//  1. Approvals from root-quorum users reaching the threshold allow; policies are
//     bypassed. A threshold below 1 never passes.
//  2. Any rejection rejects.
//  3. Root-only activities are never granted by a policy: with some root approval the
//     activity waits for the quorum (ConsensusNeeded), otherwise it is denied.
//  4. Every policy is evaluated (see evaluate). An applicable DENY denies, and so does
//     a DENY that failed on the request's data and might have applied (fail closed). If
//     a root user has approved, the result is ConsensusNeeded instead: policies never
//     limit the root quorum, which may still approve.
//  5. An applicable ALLOW whose consensus is met allows.
//  6. An applicable ALLOW whose consensus is not met, or a root approval short of the
//     threshold, needs consensus.
//  7. Implicit permissions allow: voting on an activity whose consensus names the
//     voter, and changing one's own credentials when no policy applies to the activity.
//  8. Otherwise the activity is denied implicitly.
func Decide(r *Request) Decision {
	in := r.Input
	if in == nil {
		in = &Input{}
	}
	roots := rootApprovals(r.RootQuorum.UserIDs, in.Approvers)
	threshold := r.RootQuorum.Threshold
	if threshold > 0 && roots >= threshold {
		return Decision{Outcome: Allow, Message: "Approved by the root quorum"}
	}
	if len(r.Rejections) > 0 {
		return Decision{Outcome: Rejected, Message: "Rejected by " + strings.Join(r.Rejections, ", ")}
	}
	if r.RootOnly {
		if roots > 0 {
			return Decision{Outcome: ConsensusNeeded, Message: rootProgress(roots, threshold)}
		}
		return Decision{Outcome: Deny, Message: fmt.Sprintf("Only the root quorum can perform %s", in.Activity.Type)}
	}

	d := Decision{Evaluations: make([]Evaluation, len(r.Policies))}
	var denied, waiting, allowed []string
	applied := false
	budget := r.Budget
	if budget == nil {
		budget = NewBudget(DefaultBudget, nil)
	}
	for i := range r.Policies {
		p := &r.Policies[i]
		ev, effect, applies := evaluate(p, in, r.StrictDeny, budget)
		d.Evaluations[i] = ev
		if err := budget.Err(); err != nil {
			// Checked here, not left to evaluate: however a policy's failure counts, a spent budget refuses.
			return Decision{Outcome: Deny, Evaluations: d.Evaluations[:i+1], Message: err.Error(), Err: err}
		}
		applied = applied || applies
		switch effect {
		case effectDeny:
			denied = append(denied, p.ID)
		case effectAllow:
			allowed = append(allowed, p.ID)
		case effectWait:
			waiting = append(waiting, p.ID)
		}
	}
	switch {
	case len(denied) > 0 && roots > 0:
		d.Outcome = ConsensusNeeded
		d.Message = rootProgress(roots, threshold) + "; policies " + strings.Join(denied, ", ") + " deny it to everyone else"
	case len(denied) > 0:
		d.Outcome, d.Message = Deny, msgExplicitDeny+strings.Join(denied, ", ")
	case len(allowed) > 0:
		d.Outcome, d.Message = Allow, "Allowed by policies: "+strings.Join(allowed, ", ")
	case len(waiting) > 0:
		d.Outcome = ConsensusNeeded
		d.Message = "Consensus needed: policies " + strings.Join(waiting, ", ") + " need more approvals"
	case roots > 0:
		d.Outcome, d.Message = ConsensusNeeded, rootProgress(roots, threshold)
	case r.VoterInConsensus:
		d.Outcome, d.Message = Allow, "Allowed implicitly: the voter takes part in the activity's consensus"
	case r.OwnCredentialChange && !applied:
		d.Outcome, d.Message = Allow, "Allowed implicitly: users may change their own credentials"
	default:
		d.Outcome, d.Message = Deny, msgImplicitDeny
	}
	return d
}

func rootProgress(roots, threshold int) string {
	return fmt.Sprintf("Consensus needed: %d of %d root quorum approvals", roots, threshold)
}

// rootApprovals counts distinct root users among the approvers.
func rootApprovals(rootIDs []string, approvers []User) int {
	n := 0
	for i, id := range rootIDs {
		if id == "" || indexOf(rootIDs[:i], id) >= 0 {
			continue // a duplicate in the quorum must not count twice
		}
		for j := range approvers {
			if approvers[j].ID == id {
				n++
				break
			}
		}
	}
	return n
}

func indexOf(ids []string, id string) int {
	for i, x := range ids {
		if x == id {
			return i
		}
	}
	return -1
}

type effect int

const (
	effectNone effect = iota
	effectAllow
	effectDeny
	effectWait
)

// evaluate runs one policy. applies reports whether its condition is true, or failed
// without being decided false, which takes away the implicit own-credential permission.
//
// A failure is reported as OUTCOME_ERROR and never allows, unless Kleene's logic decides the condition true whatever
// the failed clauses hold. What a failing condition does otherwise depends on why it failed:
//
//   - The request does not have what the condition reads (Inapplicable: eth.tx on a message signing, wallet.id on a
//     private-key signing, an activity.params the type lacks): the policy does not apply, as in the reference. A DENY
//     "eth.tx.to == '<banned>'" then leaves message signing alone. With strict, it is decided as below.
//   - The condition fails on the data of something the request has (an EIP-712 value of the wrong type, an index out
//     of range, a fee the PSBT does not give, too many steps): a DENY denies unless the failure cannot matter (Kleene's
//     logic decides "false && <error>" false), since the submitter chooses that data.
func evaluate(p *Policy, in *Input, strict bool, b *Budget) (ev Evaluation, eff effect, applies bool) {
	ev.PolicyID = p.ID
	isDeny := p.Effect != EffectAllow // an unknown effect fails closed
	if _, active, err := run(p.Time, Time, in, b); err != nil {
		// A time that cannot be read: an ALLOW does not allow, a DENY denies.
		ev.Outcome, ev.Err = OutcomeError, err
		if isDeny {
			return ev, effectDeny, true
		}
		return ev, effectNone, true
	} else if !active {
		// Outside its time the policy is skipped: a DENY denies nothing, an ALLOW allows nothing.
		ev.Outcome = OutcomeTimeInactive
		return ev, effectNone, false
	}
	condKnown, cond, err := run(p.Condition, Condition, in, b)
	if err != nil && condKnown && cond {
		// The failed clauses cannot change the result ("true || <error>", any() over an element that is true, as in
		// an IDL policy's instructions.any(i, i.program_key == P && i.parsed_instruction_data...) where only P's
		// instructions are decoded): the condition holds.
		err = nil
	}
	if err == nil && !cond {
		ev.Outcome = OutcomeDenyImplicit
		return ev, effectNone, false
	}
	if err != nil {
		ev.Outcome, ev.Err = OutcomeError, err
		if condKnown && !cond || !strict && Inapplicable(err) {
			return ev, effectNone, false
		}
		if !isDeny {
			return ev, effectNone, true
		}
		// The DENY might apply: it denies unless its consensus is decided false.
		consKnown, cons, _ := run(p.Consensus, Consensus, in, b)
		if consKnown && !cons {
			return ev, effectNone, true
		}
		return ev, effectDeny, true
	}
	consKnown, cons, err := run(p.Consensus, Consensus, in, b)
	switch {
	case err != nil:
		ev.Outcome, ev.Err = OutcomeError, err
		if isDeny && !(consKnown && !cons) {
			return ev, effectDeny, true
		}
		return ev, effectNone, true
	case isDeny && cons:
		ev.Outcome = OutcomeDenyExplicit
		return ev, effectDeny, true
	case isDeny:
		// A DENY whose consensus names approvers who are not among them does not bite.
		ev.Outcome = OutcomeDenyImplicit
		return ev, effectNone, true
	case cons:
		ev.Outcome = OutcomeAllow
		return ev, effectAllow, true
	}
	ev.Outcome = OutcomeRequiresConsensus
	return ev, effectWait, true
}

// run evaluates an optional expression within the budget; absent is true.
func run(e *Expr, want Field, in *Input, b *Budget) (known, result bool, err error) {
	if e == nil {
		return true, true, nil
	}
	if e.field != want {
		return false, false, fmt.Errorf("policy: a %s expression was given as the %s", e.field, want)
	}
	return e.evalKleene(in, b)
}
