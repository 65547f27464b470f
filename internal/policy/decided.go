package policy

// EvalDecided evaluates the expression as Eval does, and also says whether the result is decided despite an error in
// some clause: "false && <error>" is decided false, "true || <error>" decided true. A condition that is only a
// requirement's trigger (an MFA policy's) applies when it is decided true or cannot be decided.
func (e *Expr) EvalDecided(in *Input) (decided, result bool, err error) { return e.evalKleene(in, nil) }

// EvalDecidedWithin is EvalDecided spending the steps from the activity's budget b, as EvalWithin does. A spent budget
// decides nothing.
func (e *Expr) EvalDecidedWithin(in *Input, b *Budget) (decided, result bool, err error) {
	return e.evalKleene(in, b)
}
