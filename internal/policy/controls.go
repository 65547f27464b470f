package policy

import "slices"

// controls.<identifier> reads a velocity control of the organization: true when the control passes for this
// activity (its aggregate in the window, with what this activity adds, compares with its threshold as the control
// says). Any identifier compiles; the caller checks that the ones an expression names exist (Expr.Controls), and one
// the activity was not measured against is an evaluation error (NotApplicable), which no ALLOW passes; one that
// measures it but cannot say what it adds (Input.ControlErrors) is an error on the activity's data (Absent), which no
// ALLOW passes and on which a DENY that reads it denies.
var tControls = func() *typ {
	t := structOf("controls", map[string]*fieldDef{})
	t.st.keyed = true
	return t
}()

// controlEval reads one control's outcome.
type controlEval struct {
	name string
	src  string
}

func (e *controlEval) eval(in *Input, _ *frame) (value, error) {
	if reason, failed := in.ControlErrors[e.name]; failed {
		// The control applies, but the activity's data does not say what it adds: a DENY reading it denies.
		return value{}, evalErrorf(Absent, "velocity control %q cannot measure this activity: %s", e.name, reason)
	}
	pass, ok := in.Controls[e.name]
	if !ok {
		return value{}, evalErrorf(NotApplicable, "velocity control %q does not measure this activity", e.name)
	}
	return boolValue(pass), nil
}

// compileControl compiles controls.<name>, remembering the name.
func (c *compiler) compileControl(name string, n node) (evaluator, *typ, error) {
	if !slices.Contains(c.controls, name) {
		c.controls = append(c.controls, name)
	}
	return &controlEval{name: name, src: format(n)}, tBool, nil
}

// Controls lists the velocity controls the expression reads, by identifier, in order of appearance.
func (e *Expr) Controls() []string { return slices.Clone(e.controls) }
