package policy

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// heavyCondition is false after n·n+n predicate steps (and 2n membership-free list elements): within one
// expression's limit for n up to 315, but ten of them at n = 300 spend a budget.
func heavyCondition(n int) string {
	items := make([]string, n)
	for i := range items {
		items[i] = fmt.Sprint(i + 1)
	}
	list := "[" + strings.Join(items, ", ") + "]"
	return list + ".any(a, " + list + ".any(b, a == 0))"
}

// One expression's limit holds for each; the budget holds for all an activity evaluates together, and once spent
// every later evaluation fails with its refusal, which is no *EvalError.
func TestBudgetSpansExpressions(t *testing.T) {
	t.Parallel()
	heavy := mustCompile(t, heavyCondition(300), Condition)
	in := &Input{}
	if ok, err := heavy.Eval(in); ok || err != nil {
		t.Fatalf("alone: %v %v, want false within its own limit", ok, err)
	}
	b := NewBudget(DefaultBudget, nil)
	for i := 1; ; i++ {
		ok, err := heavy.EvalWithin(in, b)
		if err == nil {
			if ok || i > 11 {
				t.Fatalf("evaluation %d: %v, %d steps spent", i, ok, b.Spent())
			}
			continue
		}
		var be *BudgetError
		var ee *EvalError
		if !errors.As(err, &be) || errors.As(err, &ee) || !strings.Contains(err.Error(), "need more than 1000000 evaluation steps") {
			t.Fatalf("evaluation %d: %v, want the budget's refusal", i, err)
		}
		if i <= 10 || i > 12 || b.Spent() != DefaultBudget || b.Err() != err { // ~90,900 steps each
			t.Fatalf("refused at evaluation %d with %d steps spent", i, b.Spent())
		}
		break
	}
	// Spent, even the cheapest expression is refused, undecided.
	cheap := mustCompile(t, "true || false", Condition)
	if decided, _, err := cheap.EvalDecidedWithin(in, b); decided || err != b.Err() {
		t.Errorf("after the budget: decided %v, %v", decided, err)
	}
}

// Decide refuses an activity whose policies together need more than the budget, even when an ALLOW applies and
// whatever the failed policy's outcome would count as; with a budget to spare, the same policies decide.
func TestDecideRefusesPastTheBudget(t *testing.T) {
	t.Parallel()
	in := &Input{Activity: Activity{Type: "ACTIVITY_TYPE_CREATE_USER_TAG", Resource: "USER", Action: "CREATE"}, Approvers: []User{{ID: "bob"}}}
	policies := []Policy{pol(t, "allow-bob", EffectAllow, "true", "approvers.any(u, u.id == 'bob')")}
	for i := range 9 {
		policies = append(policies, pol(t, fmt.Sprintf("heavy-%d", i), EffectDeny, heavyCondition(300), ""))
	}
	if d := Decide(&Request{Input: in, Policies: policies}); d.Outcome != Allow || d.Err != nil {
		t.Fatalf("nine heavy policies: %v %q %v", d.Outcome, d.Message, d.Err)
	}
	for i := 9; i < 13; i++ {
		policies = append(policies, pol(t, fmt.Sprintf("heavy-%d", i), EffectDeny, heavyCondition(300), ""))
	}
	d := Decide(&Request{Input: in, Policies: policies})
	var be *BudgetError
	if d.Outcome != Deny || !errors.As(d.Err, &be) || d.Message != d.Err.Error() || len(d.Evaluations) < 11 || len(d.Evaluations) > 13 {
		t.Fatalf("thirteen heavy policies: %v %q %v after %d evaluations, want the budget's refusal", d.Outcome, d.Message, d.Err, len(d.Evaluations))
	}
	// A budget shared with what the activity evaluated before (MFA conditions, a session's scope) is spent sooner.
	b := NewBudget(DefaultBudget, nil)
	scope := mustCompile(t, "true || "+heavyCondition(300), Condition)
	for range 3 {
		if ok, err := scope.EvalWithin(in, b); !ok || err != nil {
			t.Fatal(ok, err)
		}
	}
	if d := Decide(&Request{Input: in, Policies: policies[:10], Budget: b}); d.Err == nil {
		t.Errorf("nine heavy policies after three heavy expressions: %v %q, want the budget's refusal", d.Outcome, d.Message)
	}
}

// The costly hook is called once, when an activity has spent CostlyAfter steps; its refusal is the budget's.
func TestBudgetCostlyHook(t *testing.T) {
	t.Parallel()
	heavy := mustCompile(t, heavyCondition(300), Condition)
	calls := 0
	b := NewBudget(DefaultBudget, func() error { calls++; return nil })
	for range 3 {
		if _, err := heavy.EvalWithin(&Input{}, b); err != nil {
			t.Fatal(err)
		}
	}
	if calls != 1 {
		t.Errorf("the hook ran %d times over three heavy evaluations, want once, after the second", calls)
	}
	refused := NewBudget(DefaultBudget, func() error { return errors.New("another costly evaluation runs") })
	_, err1 := heavy.EvalWithin(&Input{}, refused)
	_, err2 := heavy.EvalWithin(&Input{}, refused)
	_, err3 := heavy.EvalWithin(&Input{}, refused)
	var be *BudgetError
	if err1 != nil || err2 != nil || !errors.As(err3, &be) || be.Error() != "another costly evaluation runs" {
		t.Errorf("a refusing hook: %v, %v, then %v", err1, err2, err3)
	}
}
