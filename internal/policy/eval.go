package policy

import "fmt"

// frame is the mutable state of one evaluation: the bound variables of any, all and
// filter, and the steps left. A nil frame counts nothing: an expression without bound
// variables evaluated outside a Budget, where nothing can multiply.
type frame struct {
	vars  []value
	steps int
	// budget, when the steps left are the activity's Budget rather than the expression's own limit, is the Budget
	// whose refusal running out of them is.
	budget *Budget
}

// maxSteps bounds the predicate evaluations of one Eval. Nested methods multiply:
// xs.any(a, ys.any(b, ...)) runs len(xs)*len(ys) predicates, so without a bound one
// policy could stall every evaluation.
const maxSteps = 100_000

// step spends one predicate evaluation of the budget.
func (f *frame) step(src string) error { return f.spend(1, src) }

// spend spends n steps; membership tests spend one per element compared.
func (f *frame) spend(n int, src string) error {
	if f == nil {
		return nil
	}
	f.steps -= n
	if f.steps < 0 {
		if f.budget != nil {
			return f.budget.exceeded()
		}
		return &EvalError{Kind: LimitExceeded, Clause: src, Msg: fmt.Sprintf("needs more than %d steps", maxSteps)}
	}
	return nil
}

// evaluator is one compiled node. Types were checked at compile time, so each node
// knows the kinds of its operands; only dynamic (EIP-712 message) values are checked here.
//
// Logical nodes follow Kleene's three-valued logic when a clause fails: the error is
// always returned (no short-circuit, an error anywhere is an error of the whole
// expression), but when the other clauses already decide the result (false && error,
// true || error) the returned value is that bool. Every other node returns an
// invalid value with its error. Decide uses this to tell a failing DENY that cannot
// apply from one that might.
type evaluator interface {
	eval(in *Input, f *frame) (value, error)
}

type constEval struct{ v value }

func (e *constEval) eval(*Input, *frame) (value, error) { return e.v, nil }

type rootEval struct {
	get func(*Input) (value, error)
	ref func(*Input) (any, error) // nil unless the keyword is a struct
	src string
}

func (e *rootEval) evalRef(in *Input, f *frame) (any, error) {
	if e.ref == nil {
		v, err := e.eval(in, f)
		return v.ref, err
	}
	r, err := e.ref(in)
	if err != nil {
		return nil, withClause(err, e.src)
	}
	return r, nil
}

func (e *rootEval) eval(in *Input, _ *frame) (value, error) {
	v, err := e.get(in)
	if err != nil {
		return value{}, withClause(err, e.src)
	}
	return v, nil
}

type varEval struct{ slot int }

func (e *varEval) evalRef(_ *Input, f *frame) (any, error) { return f.vars[e.slot].ref, nil }

func (e *varEval) eval(_ *Input, f *frame) (value, error) { return f.vars[e.slot], nil }

// refEvaluator is the fast path of nodes whose static type is a struct: walking a
// path such as eth.tx.to passes the Go pointers along instead of values.
type refEvaluator interface {
	evalRef(in *Input, f *frame) (any, error)
}

type refAdapter struct{ evaluator }

func (e refAdapter) evalRef(in *Input, f *frame) (any, error) {
	v, err := e.eval(in, f)
	return v.ref, err
}

func asRefEval(e evaluator) refEvaluator {
	if r, ok := e.(refEvaluator); ok {
		return r
	}
	return refAdapter{e}
}

type fieldEval struct {
	xr  refEvaluator // the struct the field belongs to
	get getter
	str func(ref any) string       // non-nil for string fields
	ref func(ref any) (any, error) // non-nil for struct fields
	src string
}

func (e *fieldEval) evalString(in *Input, f *frame) (string, error) {
	if e.str == nil {
		v, err := e.eval(in, f)
		return v.s, err
	}
	x, err := e.xr.evalRef(in, f)
	if err != nil {
		return "", err
	}
	return e.str(x), nil
}

func (e *fieldEval) evalRef(in *Input, f *frame) (any, error) {
	if e.ref == nil {
		v, err := e.eval(in, f)
		return v.ref, err
	}
	x, err := e.xr.evalRef(in, f)
	if err != nil {
		return nil, err
	}
	r, err := e.ref(x)
	if err != nil {
		return nil, withClause(err, e.src)
	}
	return r, nil
}

func (e *fieldEval) eval(in *Input, f *frame) (value, error) {
	x, err := e.xr.evalRef(in, f)
	if err != nil {
		return value{}, err
	}
	v, err := e.get(x)
	if err != nil {
		return value{}, withClause(err, e.src)
	}
	return v, nil
}

// listLitEval builds a list literal whose elements are not all constants.
type listLitEval struct{ elems []evaluator }

func (e *listLitEval) eval(in *Input, f *frame) (value, error) {
	l := make(valueList, len(e.elems))
	var first error
	for i, x := range e.elems {
		v, err := x.eval(in, f)
		first = joinErrors(first, err)
		l[i] = v
	}
	if first != nil {
		return value{}, first
	}
	return listValue(&l), nil
}

// evalIndex evaluates an index or slice bound as a non-negative int.
func evalIndex(x evaluator, in *Input, f *frame) (int, error) {
	v, err := x.eval(in, f)
	if err != nil {
		return 0, err
	}
	if v.k == kindDyn {
		if v, err = scalar(v); err == nil {
			v, err = asInt(v, true)
		}
		if err != nil {
			return 0, err
		}
	}
	if !v.n.IsUint64() || v.n.Uint64() > 1<<31 {
		return -1, nil // out of range for every list and string
	}
	return int(v.n.Uint64()), nil
}

func outOfRange(i, n int) error {
	if i < 0 {
		return evalErrorf(OutOfRange, "index is larger than any list or string")
	}
	return evalErrorf(OutOfRange, "index %d is out of range for length %d", i, n)
}

type indexEval struct {
	x, index evaluator
	src      string
}

func (e *indexEval) eval(in *Input, f *frame) (value, error) {
	x, errX := e.x.eval(in, f)
	i, errI := evalIndex(e.index, in, f)
	if err := joinErrors(errX, errI); err != nil {
		return value{}, err
	}
	switch x.k {
	case kindString:
		if i < 0 || i >= len(x.s) {
			return value{}, withClause(outOfRange(i, len(x.s)), e.src)
		}
		return stringValue(x.s[i : i+1]), nil
	case kindList:
		if n := listLen(x); i < 0 || i >= n {
			return value{}, withClause(outOfRange(i, n), e.src)
		}
		return listAt(x, i), nil
	}
	return dynIndex(x, i, e.src)
}

func dynIndex(x value, i int, src string) (value, error) {
	switch d := x.ref.(type) {
	case []any:
		if i < 0 || i >= len(d) {
			return value{}, withClause(outOfRange(i, len(d)), src)
		}
		return value{k: kindDyn, ref: d[i]}, nil
	case string:
		if i < 0 || i >= len(d) {
			return value{}, withClause(outOfRange(i, len(d)), src)
		}
		return value{k: kindDyn, ref: d[i : i+1]}, nil
	}
	return value{}, withClause(evalErrorf(TypeMismatch, "value is not a list or a string, so it has no index"), src)
}

// keyEval reads a key of a dynamic map, m['k'], or indexes a dynamic list when the
// key turns out to be a number.
type keyEval struct {
	x, key evaluator
	src    string
}

func (e *keyEval) eval(in *Input, f *frame) (value, error) {
	x, errX := e.x.eval(in, f)
	k, errK := e.key.eval(in, f)
	if err := joinErrors(errX, errK); err != nil {
		return value{}, err
	}
	k, err := scalar(k)
	if err != nil {
		return value{}, withClause(err, e.src)
	}
	if k.k == kindInt {
		i := -1
		if k.n.IsUint64() && k.n.Uint64() <= 1<<31 {
			i = int(k.n.Uint64())
		}
		return dynIndex(x, i, e.src)
	}
	m, ok := x.ref.(map[string]any)
	if !ok {
		return value{}, withClause(evalErrorf(TypeMismatch, "value is not an object, so it has no key %q", k.s), e.src)
	}
	v, ok := m[k.s]
	if !ok {
		return value{}, withClause(evalErrorf(Absent, "no key %q", k.s), e.src)
	}
	return value{k: kindDyn, ref: v}, nil
}

type sliceEval struct {
	x, lo, hi evaluator
	src       string
}

func (e *sliceEval) eval(in *Input, f *frame) (value, error) {
	x, errX := e.x.eval(in, f)
	lo, errLo := evalIndex(e.lo, in, f)
	hi, errHi := evalIndex(e.hi, in, f)
	if err := joinErrors(joinErrors(errX, errLo), errHi); err != nil {
		return value{}, err
	}
	n := 0
	switch x.k {
	case kindString:
		n = len(x.s)
	case kindList:
		n = listLen(x)
	case kindDyn:
		switch d := x.ref.(type) {
		case string:
			n = len(d)
		case []any:
			n = len(d)
		default:
			return value{}, withClause(evalErrorf(TypeMismatch, "value is not a list or a string, so it cannot be sliced"), e.src)
		}
	}
	if lo < 0 || hi < 0 || lo > hi || hi > n {
		return value{}, withClause(evalErrorf(OutOfRange, "slice [%d..%d] is out of range for length %d", lo, hi, n), e.src)
	}
	switch x.k {
	case kindString:
		return stringValue(x.s[lo:hi]), nil
	case kindList:
		l := make(valueList, 0, hi-lo)
		for i := lo; i < hi; i++ {
			l = append(l, listAt(x, i))
		}
		return listValue(&l), nil
	}
	switch d := x.ref.(type) {
	case string:
		return value{k: kindDyn, ref: d[lo:hi]}, nil
	default:
		return value{k: kindDyn, ref: d.([]any)[lo:hi]}, nil
	}
}

// boolEvaluator is the fast path of boolean nodes. known reports whether result is
// decided; without an error it always is, and with one only when Kleene's logic
// decides the result without the failed clause.
type boolEvaluator interface {
	evalBool(in *Input, f *frame) (result, known bool, err error)
}

type boolAdapter struct{ evaluator }

func (e boolAdapter) evalBool(in *Input, f *frame) (bool, bool, error) {
	v, err := e.eval(in, f)
	return v.b, v.k == kindBool, err
}

func asBoolEval(e evaluator) boolEvaluator {
	if b, ok := e.(boolEvaluator); ok {
		return b
	}
	return boolAdapter{e}
}

// boolResult turns a three-valued result back into a value.
func boolResult(result, known bool, err error) (value, error) {
	if !known {
		return value{}, err
	}
	return boolValue(result), err
}

func (e *constEval) evalBool(*Input, *frame) (bool, bool, error) { return e.v.b, true, nil }

type andEval struct{ xs []boolEvaluator }

func (e *andEval) evalBool(in *Input, f *frame) (bool, bool, error) {
	sawFalse, allKnown := false, true
	var first error
	for _, x := range e.xs {
		r, known, err := x.evalBool(in, f)
		first = joinErrors(first, err)
		if known && !r {
			sawFalse = true
		}
		allKnown = allKnown && known
	}
	if first == nil {
		return !sawFalse, true, nil
	}
	// Decided by a false clause, or by clauses that are all decided although one of them failed inside
	// ("true && (true || <error>)").
	return !sawFalse && allKnown, sawFalse || allKnown, first
}

func (e *andEval) eval(in *Input, f *frame) (value, error) {
	return boolResult(e.evalBool(in, f))
}

type orEval struct{ xs []boolEvaluator }

func (e *orEval) evalBool(in *Input, f *frame) (bool, bool, error) {
	sawTrue, allKnown := false, true
	var first error
	for _, x := range e.xs {
		r, known, err := x.evalBool(in, f)
		first = joinErrors(first, err)
		if known && r {
			sawTrue = true
		}
		allKnown = allKnown && known
	}
	if first == nil {
		return sawTrue, true, nil
	}
	return sawTrue, sawTrue || allKnown, first
}

func (e *orEval) eval(in *Input, f *frame) (value, error) {
	return boolResult(e.evalBool(in, f))
}

type notEval struct{ x boolEvaluator }

func (e *notEval) evalBool(in *Input, f *frame) (bool, bool, error) {
	r, known, err := e.x.evalBool(in, f)
	return !r, known, err
}

func (e *notEval) eval(in *Input, f *frame) (value, error) {
	return boolResult(e.evalBool(in, f))
}

// truthEval reads a dynamic value where a bool is needed.
type truthEval struct {
	x   evaluator
	src string
}

func (e *truthEval) eval(in *Input, f *frame) (value, error) {
	v, err := e.x.eval(in, f)
	if err != nil {
		return value{}, err
	}
	b, err := truth(v)
	if err != nil {
		return value{}, withClause(err, e.src)
	}
	return boolValue(b), nil
}

// stringEvaluator is the fast path of nodes of static type string: comparing
// strings passes two strings around instead of two values.
type stringEvaluator interface {
	evalString(in *Input, f *frame) (string, error)
}

func (e *constEval) evalString(*Input, *frame) (string, error) { return e.v.s, nil }

type stringAdapter struct{ evaluator }

func (e stringAdapter) evalString(in *Input, f *frame) (string, error) {
	v, err := e.eval(in, f)
	return v.s, err
}

func asStringEval(e evaluator) stringEvaluator {
	if s, ok := e.(stringEvaluator); ok {
		return s
	}
	return stringAdapter{e}
}

// stringSliceEval is s[lo..hi] on a string; constant bounds are resolved at compile time.
type stringSliceEval struct {
	x        stringEvaluator
	lo, hi   evaluator
	loC, hiC int // the constant bounds, or -1
	src      string
}

func newStringSlice(x, lo, hi evaluator, src string) *stringSliceEval {
	e := &stringSliceEval{x: asStringEval(x), lo: lo, hi: hi, loC: constIndex(lo), hiC: constIndex(hi), src: src}
	return e
}

func constIndex(e evaluator) int {
	c, ok := e.(*constEval)
	if !ok || c.v.k != kindInt || !c.v.n.IsUint64() || c.v.n.Uint64() > 1<<31 {
		return -1
	}
	return int(c.v.n.Uint64())
}

func (e *stringSliceEval) bound(c int, x evaluator, in *Input, f *frame) (int, error) {
	if c >= 0 {
		return c, nil
	}
	return evalIndex(x, in, f)
}

func (e *stringSliceEval) evalString(in *Input, f *frame) (string, error) {
	s, errX := e.x.evalString(in, f)
	lo, errLo := e.bound(e.loC, e.lo, in, f)
	hi, errHi := e.bound(e.hiC, e.hi, in, f)
	if err := joinErrors(joinErrors(errX, errLo), errHi); err != nil {
		return "", err
	}
	if lo < 0 || hi < 0 || lo > hi || hi > len(s) {
		return "", withClause(evalErrorf(OutOfRange, "slice [%d..%d] is out of range for length %d", lo, hi, len(s)), e.src)
	}
	return s[lo:hi], nil
}

func (e *stringSliceEval) eval(in *Input, f *frame) (value, error) {
	s, err := e.evalString(in, f)
	if err != nil {
		return value{}, err
	}
	return stringValue(s), nil
}

// stringEqEval is == or != on two static strings, the common case.
type stringEqEval struct {
	l, r stringEvaluator
	neg  bool
}

func (e *stringEqEval) evalBool(in *Input, f *frame) (bool, bool, error) {
	l, errL := e.l.evalString(in, f)
	r, errR := e.r.evalString(in, f)
	if errL != nil {
		return false, false, errL
	}
	if errR != nil {
		return false, false, errR
	}
	return hexEqual(l, r) != e.neg, true, nil
}

func (e *stringEqEval) eval(in *Input, f *frame) (value, error) {
	return boolResult(e.evalBool(in, f))
}

// evalBoth evaluates both operands, the right one even when the left fails (no short-circuit: every clause is
// evaluated), and reports the left error first.
func evalBoth(le, re evaluator, in *Input, f *frame) (value, value, error) {
	l, errL := le.eval(in, f)
	r, errR := re.eval(in, f)
	if err := joinErrors(errL, errR); err != nil {
		return value{}, value{}, err
	}
	return l, r, nil
}

type eqEval struct {
	l, r evaluator
	neg  bool
	src  string
}

func (e *eqEval) eval(in *Input, f *frame) (value, error) {
	l, r, err := evalBoth(e.l, e.r, in, f)
	if err != nil {
		return value{}, err
	}
	eq, err := equal(l, r)
	if err != nil {
		return value{}, withClause(err, e.src)
	}
	return boolValue(eq != e.neg), nil
}

type orderEval struct {
	l, r evaluator
	op   tokenKind
	src  string
}

func (e *orderEval) eval(in *Input, f *frame) (value, error) {
	l, r, err := evalBoth(e.l, e.r, in, f)
	if err != nil {
		return value{}, err
	}
	c, err := compareInts(l, r)
	if err != nil {
		return value{}, withClause(err, e.src)
	}
	switch e.op {
	case tokLt:
		return boolValue(c < 0), nil
	case tokGt:
		return boolValue(c > 0), nil
	case tokLe:
		return boolValue(c <= 0), nil
	}
	return boolValue(c >= 0), nil
}

// seqLen returns the length of a list or of a dynamic JSON array.
func seqLen(v value) (int, error) {
	if v.k == kindList {
		return listLen(v), nil
	}
	if d, ok := v.ref.([]any); ok {
		return len(d), nil
	}
	return 0, evalErrorf(TypeMismatch, "value is not a list")
}

func seqAt(v value, i int) value {
	if v.k == kindList {
		return listAt(v, i)
	}
	return value{k: kindDyn, ref: v.ref.([]any)[i]}
}

// memberEval is "x in xs" and "xs.contains(x)".
type memberEval struct {
	x, xs evaluator
	src   string
}

func (e *memberEval) eval(in *Input, f *frame) (value, error) {
	x, errX := e.x.eval(in, f)
	xs, errXs := e.xs.eval(in, f)
	if err := joinErrors(errX, errXs); err != nil {
		return value{}, err
	}
	n, err := seqLen(xs)
	if err != nil {
		return value{}, withClause(err, e.src)
	}
	if err := f.spend(n, e.src); err != nil {
		return value{}, err
	}
	found := false
	for i := 0; i < n; i++ {
		eq, err := equal(x, seqAt(xs, i))
		if err != nil {
			return value{}, withClause(err, e.src)
		}
		found = found || eq
	}
	return boolValue(found), nil
}

type countEval struct {
	x   evaluator
	src string
}

func (e *countEval) eval(in *Input, f *frame) (value, error) {
	x, err := e.x.eval(in, f)
	if err != nil {
		return value{}, err
	}
	if m, ok := x.ref.(map[string]any); ok && x.k == kindDyn {
		return uintValue(uint64(len(m))), nil
	}
	n, err := seqLen(x)
	if err != nil {
		return value{}, withClause(err, e.src)
	}
	return uintValue(uint64(n)), nil
}

// quantEval is xs.any(v, pred) (all=false) or xs.all(v, pred) (all=true). Every element
// is evaluated; the result combines them like || or &&.
type quantEval struct {
	x    evaluator
	slot int
	pred boolEvaluator
	all  bool
	src  string
}

func (e *quantEval) evalBool(in *Input, f *frame) (bool, bool, error) {
	xs, err := e.x.eval(in, f)
	if err != nil {
		return false, false, err
	}
	n, err := seqLen(xs)
	if err != nil {
		return false, false, withClause(err, e.src)
	}
	decided, allKnown := false, true // decided: some element is false (all) or true (any)
	var first error
	for i := 0; i < n; i++ {
		if err := f.step(e.src); err != nil {
			f.vars[e.slot] = value{}
			return false, false, err
		}
		f.vars[e.slot] = seqAt(xs, i)
		r, known, err := e.pred.evalBool(in, f)
		first = joinErrors(first, err)
		if known && r != e.all {
			decided = true
		}
		allKnown = allKnown && known
	}
	f.vars[e.slot] = value{}
	result := decided != e.all // any: some true; all: none false
	if first == nil {
		return result, true, nil
	}
	return result, decided || allKnown, first
}

func (e *quantEval) eval(in *Input, f *frame) (value, error) {
	return boolResult(e.evalBool(in, f))
}

type filterEval struct {
	x    evaluator
	slot int
	pred boolEvaluator
	src  string
}

func (e *filterEval) eval(in *Input, f *frame) (value, error) {
	xs, err := e.x.eval(in, f)
	if err != nil {
		return value{}, err
	}
	n, err := seqLen(xs)
	if err != nil {
		return value{}, withClause(err, e.src)
	}
	var kept valueList
	var first error
	for i := 0; i < n; i++ {
		if err := f.step(e.src); err != nil {
			f.vars[e.slot] = value{}
			return value{}, err
		}
		el := seqAt(xs, i)
		f.vars[e.slot] = el
		r, _, err := e.pred.evalBool(in, f)
		first = joinErrors(first, err)
		if err == nil && r {
			kept = append(kept, el)
		}
	}
	f.vars[e.slot] = value{}
	if first != nil {
		return value{}, first
	}
	return listValue(&kept), nil
}
