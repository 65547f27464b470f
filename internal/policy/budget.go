package policy

import (
	"errors"
	"fmt"
)

// Budget bounds the evaluation steps of one activity across every expression evaluated for it: the organization's
// policies (condition, consensus and time, once per call of a batch), its users' MFA conditions and a session's
// scope. Each expression has its own limit too (maxSteps), but an organization holds up to a thousand policies: without
// a budget for all of them together, one activity could take a core for seconds. Once spent, every later evaluation
// within it fails with the same *BudgetError, and Decide refuses the activity. A Budget is not safe for concurrent use.
type Budget struct {
	limit  int
	spent  int
	costly func() error // see NewBudget
	warned bool         // costly was called
	err    *BudgetError // the refusal, once there is one
}

const (
	// DefaultBudget is the steps one activity's evaluations may take together: ten expressions at their own limit,
	// some 150 ms of one core.
	DefaultBudget = 10 * maxSteps
	// CostlyAfter is the steps after which an activity's evaluation is costly (see NewBudget): more than one
	// expression may take, far more than an organization's policies usually need together.
	CostlyAfter = maxSteps
)

// NewBudget is a budget of limit steps (DefaultBudget when limit is not positive). costly, if not nil, is called
// once, before the first expression evaluated after the activity has spent CostlyAfter steps: the coordinator lets
// only so many costly evaluations run at once, so that one organization's cannot take the CPU from another's. An
// error from it refuses the activity with the error's text.
func NewBudget(limit int, costly func() error) *Budget {
	if limit <= 0 {
		limit = DefaultBudget
	}
	return &Budget{limit: limit, costly: costly}
}

// Refuse refuses the activity before anything more is evaluated, with err's text: the coordinator's turn at the costly
// evaluations was not there for an organization known to need one.
func (b *Budget) Refuse(err error) {
	if b.err == nil {
		b.err = &BudgetError{Msg: err.Error()}
	}
}

// Spent is the steps spent so far.
func (b *Budget) Spent() int { return b.spent }

// Err is the refusal once the budget is spent (or costly refused), nil before.
func (b *Budget) Err() error {
	if b.err == nil {
		return nil
	}
	return b.err
}

// BudgetError refuses an activity whose evaluation needs more than its Budget. It is not an *EvalError: no expression
// failed on the activity's facts, the decision as a whole could not be made, and no policy's outcome may stand for it.
type BudgetError struct {
	Msg string
}

func (e *BudgetError) Error() string { return e.Msg }

func isBudgetError(err error) bool {
	var be *BudgetError
	return errors.As(err, &be)
}

// start charges an expression's fixed cost before it runs and says how many steps it may take.
func (b *Budget) start(cost int) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if b.spent >= CostlyAfter && !b.warned && b.costly != nil {
		b.warned = true
		if err := b.costly(); err != nil {
			b.err = &BudgetError{Msg: err.Error()}
			return 0, b.err
		}
	}
	if b.spent += cost; b.spent > b.limit {
		return 0, b.exceeded()
	}
	return b.limit - b.spent, nil
}

// exceeded records and returns the refusal for a budget spent.
func (b *Budget) exceeded() *BudgetError {
	b.spent = b.limit
	if b.err == nil {
		b.err = &BudgetError{Msg: fmt.Sprintf("the organization's policies, MFA conditions and session scope need more than "+
			"%d evaluation steps to decide this activity, the most one activity may take: make them do less work "+
			"(fewer policies, or nested any/all/filter over shorter lists)", b.limit)}
	}
	return b.err
}
