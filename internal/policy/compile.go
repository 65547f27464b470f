package policy

import (
	"errors"
	"fmt"
	"strings"
	"sync"
)

// Field is the policy field an expression is written for; it decides which keywords
// the expression may use.
type Field int

const (
	// Condition is what a policy covers: activity, eth.*, wallet, wallets,
	// wallet_account, private_key.
	Condition Field = iota + 1
	// Consensus is who may act: approvers, credentials.
	Consensus
	// Time is when a policy is active: time.now, Timestamp and CronSpan.
	Time
)

func (f Field) String() string {
	switch f {
	case Condition:
		return "condition"
	case Consensus:
		return "consensus"
	case Time:
		return "time"
	}
	return fmt.Sprintf("Field(%d)", int(f))
}

// Expr is a compiled expression. It is immutable and safe for concurrent use.
type Expr struct {
	field Field
	src   string
	tree  node
	root  boolEvaluator
	nvars int
	pool  sync.Pool // *frame with nvars bound variables

	voters *voterSet // consensus only: who can count toward it, see Names

	readsParams bool     // the expression reads activity.params
	controls    []string // the velocity controls it reads
	cost        int      // the steps one evaluation costs before any method runs: its nodes
}

// Compile parses and type-checks src for field. The error is a *CompileError that
// names the column and, for a misspelt name, the likely intended one.
func Compile(src string, field Field) (*Expr, error) {
	if field != Condition && field != Consensus && field != Time {
		return nil, fmt.Errorf("policy: unknown field %v", field)
	}
	tree, err := parse(src)
	if err != nil {
		var se *syntaxError
		if errors.As(err, &se) {
			return nil, newCompileError(field, src, se.pos, se.msg, "")
		}
		return nil, err
	}
	e, err := compileTree(tree, field, src)
	if err != nil {
		return nil, err
	}
	if field == Consensus {
		if e.voters, err = voterTests(tree); err != nil {
			return nil, err
		}
	}
	return e, nil
}

func compileTree(tree node, field Field, src string) (*Expr, error) {
	c := &compiler{field: field, src: src}
	root, t, err := c.compile(tree)
	if err != nil {
		return nil, err
	}
	if t.kind == kindDyn {
		root = &truthEval{x: root, src: format(tree)}
	} else if t.kind != kindBool {
		return nil, c.errorf(tree.position(), "", "the expression is %s; it must be a bool (true or false)", t.a())
	}
	e := &Expr{field: field, src: src, tree: tree, root: asBoolEval(root), nvars: c.slots, readsParams: c.readsParams,
		controls: c.controls, cost: c.nodes}
	e.pool.New = func() any { return &frame{vars: make([]value, e.nvars)} }
	return e, nil
}

// Field returns the field the expression was compiled for.
func (e *Expr) Field() Field { return e.field }

// ReadsParams reports whether the expression reads activity.params: the caller need not fill Activity.Params of an
// input only such expressions read.
func (e *Expr) ReadsParams() bool { return e.readsParams }

// Source returns the text the expression was compiled from.
func (e *Expr) Source() string { return e.src }

// String prints the expression in canonical form; compiling it gives the same tree.
func (e *Expr) String() string { return format(e.tree) }

// Eval evaluates the expression. Every clause is evaluated; if any fails, the result
// is false with an *EvalError naming the failing clause.
func (e *Expr) Eval(in *Input) (bool, error) { return e.EvalWithin(in, nil) }

// EvalWithin is Eval spending the steps from the activity's budget b (nil: the expression's own limit alone). Once b
// is spent, the error is its *BudgetError.
func (e *Expr) EvalWithin(in *Input, b *Budget) (bool, error) {
	result, _, err := e.run(in, b)
	if err != nil {
		return false, err
	}
	return result, nil
}

// evalKleene is Eval that also says whether the result is decided despite an error:
// "false && <error>" is decided false, "true || <error>" decided true.
func (e *Expr) evalKleene(in *Input, b *Budget) (decided, result bool, err error) {
	result, decided, err = e.run(in, b)
	return decided, result, err
}

func (e *Expr) run(in *Input, b *Budget) (result, known bool, err error) {
	if in == nil {
		return false, false, errors.New("policy: nil Input")
	}
	if e.nvars == 0 && b == nil {
		return e.root.evalBool(in, nil) // nothing to bind, nothing to count: nothing multiplies
	}
	f := e.pool.Get().(*frame)
	f.steps, f.budget = maxSteps, nil
	if b != nil {
		left, err := b.start(e.cost)
		if err != nil {
			e.pool.Put(f)
			return false, false, err
		}
		if left < maxSteps {
			f.steps, f.budget = left, b
		}
	}
	allowed := f.steps
	result, known, err = e.root.evalBool(in, f)
	if b != nil {
		b.spent += min(allowed-f.steps, allowed)
	}
	if err != nil && isBudgetError(err) {
		// Kleene's logic may decide a result despite a failed clause; a spent budget decides nothing.
		known = false
	}
	clear(f.vars) // do not keep the Input reachable from the pool
	f.budget = nil
	e.pool.Put(f)
	return result, known, err
}

type binding struct {
	name string
	t    *typ
	slot int
}

type compiler struct {
	field       Field
	src         string
	scope       []binding
	slots       int
	readsParams bool
	controls    []string
	nodes       int
}

func (c *compiler) errorf(pos int, hint, format string, args ...any) error {
	return newCompileError(c.field, c.src, pos, fmt.Sprintf(format, args...), hint)
}

func (c *compiler) lookup(name string) *binding {
	for i := len(c.scope) - 1; i >= 0; i-- {
		if c.scope[i].name == name {
			return &c.scope[i]
		}
	}
	return nil
}

func (c *compiler) compile(n node) (evaluator, *typ, error) {
	c.nodes++
	switch n := n.(type) {
	case *stringNode:
		return &constEval{stringValue(n.val)}, tString, nil
	case *intNode:
		return &constEval{value{k: kindInt, n: n.val}}, tInt, nil
	case *boolNode:
		return &constEval{boolValue(n.val)}, tBool, nil
	case *listNode:
		return c.compileList(n)
	case *identNode:
		return c.compileIdent(n)
	case *fieldNode:
		return c.compileField(n)
	case *indexNode:
		return c.compileIndex(n)
	case *sliceNode:
		return c.compileSlice(n)
	case *methodNode:
		return c.compileMethod(n)
	case *callNode:
		return c.compileCall(n)
	case *notNode:
		x, err := c.compileBool(n.x)
		if err != nil {
			return nil, nil, err
		}
		return &notEval{asBoolEval(x)}, tBool, nil
	case *binaryNode:
		return c.compileBinary(n)
	}
	return nil, nil, c.errorf(n.position(), "", "unsupported expression")
}

// compileBool compiles n where a bool is needed; a dynamic value is checked at evaluation.
func (c *compiler) compileBool(n node) (evaluator, error) {
	x, t, err := c.compile(n)
	if err != nil {
		return nil, err
	}
	switch t.kind {
	case kindBool:
		return x, nil
	case kindDyn:
		return &truthEval{x: x, src: format(n)}, nil
	}
	return nil, c.errorf(start(n), "", "%s is %s, but a bool is needed here", quote(n), t.a())
}

func (c *compiler) compileIdent(n *identNode) (evaluator, *typ, error) {
	if b := c.lookup(n.name); b != nil {
		return &varEval{b.slot}, b.t, nil
	}
	if r, ok := roots[n.name]; ok {
		if r.field != c.field {
			return nil, nil, c.errorf(n.pos, "", "keyword '%s' can be used only in the %s field", n.name, r.field)
		}
		return &rootEval{get: r.get, ref: r.ref, src: n.name}, r.typ, nil
	}
	if why, ok := unsupportedRoots[n.name]; ok {
		return nil, nil, c.errorf(n.pos, "", "%s", why)
	}
	candidates := rootNames(c.field)
	for _, b := range c.scope {
		candidates = append(candidates, b.name)
	}
	return nil, nil, c.errorf(n.pos, suggest(n.name, candidates, ""), "unknown keyword '%s' in %s", n.name, c.field)
}

func (c *compiler) compileField(n *fieldNode) (evaluator, *typ, error) {
	x, t, err := c.compile(n.x)
	if err != nil {
		return nil, nil, err
	}
	switch t.kind {
	case kindStruct:
		if t == tControls {
			return c.compileControl(n.name, n)
		}
		f, ok := t.st.fields[n.name]
		if !ok {
			prefix := pathName(n.x)
			if prefix != "" {
				prefix += "."
			}
			return nil, nil, c.errorf(n.pos, suggest(n.name, t.st.fieldNames(), prefix),
				"unknown field '%s%s'", prefix, n.name)
		}
		if t == tActivity && n.name == "params" {
			c.readsParams = true
		}
		return &fieldEval{xr: asRefEval(x), get: f.get, str: f.str, ref: f.ref, src: format(n)}, f.typ, nil
	case kindDyn:
		return nil, nil, c.errorf(n.pos, fmt.Sprintf("write %s['%s']", format(n.x), n.name),
			"%s is a dynamic value, so its keys are read with ['...']", quote(n.x))
	case kindList:
		if n.name == "count" {
			// The reference's own examples write xs.count without parentheses (solana.tx.transfers.count == 1,
			// address_table_lookups.count == 0): it means xs.count().
			return &countEval{x: x, src: format(n)}, tInt, nil
		}
	}
	hint := ""
	if isMethod(n.name) {
		hint = fmt.Sprintf("did you mean the method %s()?", n.name)
	}
	return nil, nil, c.errorf(n.pos, hint, "%s is %s and has no field '%s'", quote(n.x), t.a(), n.name)
}

func (c *compiler) compileIndex(n *indexNode) (evaluator, *typ, error) {
	x, t, err := c.compile(n.x)
	if err != nil {
		return nil, nil, err
	}
	if t.kind == kindStruct && t.st.keyed {
		key, ok := n.index.(*stringNode)
		if !ok {
			return nil, nil, c.errorf(n.index.position(), "", "keys of %s must be written as string literals", quote(n.x))
		}
		return c.compileField(&fieldNode{pos: key.pos, x: n.x, name: key.val})
	}
	i, it, err := c.compile(n.index)
	if err != nil {
		return nil, nil, err
	}
	src := format(n)
	switch t.kind {
	case kindString, kindList:
		if t.kind == kindList && t.elem == nil {
			return nil, nil, c.errorf(n.pos, "", "cannot index an empty list")
		}
		if it.kind != kindInt && it.kind != kindDyn {
			return nil, nil, c.errorf(n.index.position(), "", "index %s is %s; %s is indexed by an int", quote(n.index), it.a(), t.a())
		}
		elem := tString
		if t.kind == kindList {
			elem = t.elem
		}
		return &indexEval{x: x, index: i, src: src}, elem, nil
	case kindDyn:
		if it.kind != kindInt && it.kind != kindString && it.kind != kindDyn {
			return nil, nil, c.errorf(n.index.position(), "", "key %s is %s; use a string key or an int index", quote(n.index), it.a())
		}
		return &keyEval{x: x, key: i, src: src}, tDyn, nil
	}
	return nil, nil, c.errorf(n.pos, "", "%s is %s and cannot be indexed", quote(n.x), t.a())
}

func (c *compiler) compileSlice(n *sliceNode) (evaluator, *typ, error) {
	x, t, err := c.compile(n.x)
	if err != nil {
		return nil, nil, err
	}
	if t.kind != kindString && t.kind != kindList && t.kind != kindDyn {
		return nil, nil, c.errorf(n.pos, "", "%s is %s and cannot be sliced; only strings and lists can", quote(n.x), t.a())
	}
	var bounds [2]evaluator
	for i, b := range [2]node{n.lo, n.hi} {
		e, bt, err := c.compile(b)
		if err != nil {
			return nil, nil, err
		}
		if bt.kind != kindInt && bt.kind != kindDyn {
			return nil, nil, c.errorf(b.position(), "", "slice bound %s is %s, not an int", quote(b), bt.a())
		}
		bounds[i] = e
	}
	if lo, ok := n.lo.(*intNode); ok {
		if hi, ok := n.hi.(*intNode); ok && lo.val.Gt(&hi.val) {
			return nil, nil, c.errorf(n.pos, "", "slice [%s..%s] ends before it starts", lo.val.Dec(), hi.val.Dec())
		}
	}
	if t.kind == kindString {
		return newStringSlice(x, bounds[0], bounds[1], format(n)), t, nil
	}
	return &sliceEval{x: x, lo: bounds[0], hi: bounds[1], src: format(n)}, t, nil
}

func (c *compiler) compileList(n *listNode) (evaluator, *typ, error) {
	elems := make([]evaluator, len(n.elems))
	var elemType *typ
	constant := true
	for i, el := range n.elems {
		e, t, err := c.compile(el)
		if err != nil {
			return nil, nil, err
		}
		if t.kind != kindBool && t.kind != kindInt && t.kind != kindString && t.kind != kindDyn {
			return nil, nil, c.errorf(start(el), "", "list elements must be strings, ints or bools, but %s is %s", quote(el), t.a())
		}
		switch {
		case elemType == nil || elemType.kind == kindDyn:
			elemType = t
		case t.kind != kindDyn && t.kind != elemType.kind:
			return nil, nil, c.errorf(start(el), "", "list mixes %s and %s elements", elemType, t)
		}
		_, isConst := e.(*constEval)
		constant = constant && isConst
		elems[i] = e
	}
	t := &typ{kind: kindList, elem: elemType}
	if !constant {
		return &listLitEval{elems: elems}, t, nil
	}
	vals := make(valueList, len(elems))
	for i, e := range elems {
		vals[i] = e.(*constEval).v
	}
	return &constEval{listValue(&vals)}, t, nil
}

var methods = []string{"all", "any", "contains", "count", "filter"}

func isMethod(name string) bool {
	for _, m := range methods {
		if m == name {
			return true
		}
	}
	return false
}

func (c *compiler) compileMethod(n *methodNode) (evaluator, *typ, error) {
	if !isMethod(n.name) {
		return nil, nil, c.errorf(n.pos, suggest(n.name, methods, ""),
			"unknown method '%s'; the methods are any, all, filter, contains and count", n.name)
	}
	x, t, err := c.compile(n.x)
	if err != nil {
		return nil, nil, err
	}
	if t.kind != kindList && t.kind != kindDyn {
		return nil, nil, c.errorf(n.pos, "", "method '%s' needs a list, but %s is %s", n.name, quote(n.x), t.a())
	}
	elem := t.elem
	if t.kind == kindDyn {
		elem = tDyn
	}
	src := format(n)
	switch n.name {
	case "count":
		if err := c.arity(n, 0); err != nil {
			return nil, nil, err
		}
		return &countEval{x: x, src: src}, tInt, nil
	case "contains":
		if err := c.arity(n, 1); err != nil {
			return nil, nil, err
		}
		v, vt, err := c.compile(n.args[0])
		if err != nil {
			return nil, nil, err
		}
		if !comparable(elem, vt) {
			return nil, nil, c.errorf(start(n.args[0]), literalHint(n.args[0], elem),
				"%s.contains needs %s, but %s is %s", quote(n.x), describeElem(elem), quote(n.args[0]), vt.a())
		}
		return &memberEval{x: v, xs: x, src: src}, tBool, nil
	}
	if err := c.arity(n, 2); err != nil {
		return nil, nil, err
	}
	if elem == nil {
		elem = tDyn // an empty literal list: the predicate never runs
	}
	slot, err := c.bind(n.args[0], elem)
	if err != nil {
		return nil, nil, err
	}
	predEval, err := c.compileBool(n.args[1])
	c.scope = c.scope[:len(c.scope)-1]
	if err != nil {
		return nil, nil, err
	}
	pred := asBoolEval(predEval)
	switch n.name {
	case "filter":
		return &filterEval{x: x, slot: slot, pred: pred, src: src}, &typ{kind: kindList, elem: elem}, nil
	case "all":
		return &quantEval{x: x, slot: slot, pred: pred, all: true, src: src}, tBool, nil
	}
	return &quantEval{x: x, slot: slot, pred: pred, src: src}, tBool, nil
}

func (c *compiler) arity(n *methodNode, want int) error {
	if len(n.args) == want {
		return nil
	}
	usage := map[string]string{
		"count": "count()", "contains": "contains(value)",
		"any": "any(name, condition)", "all": "all(name, condition)", "filter": "filter(name, condition)",
	}[n.name]
	return c.errorf(n.pos, "", "method '%s' takes %d argument(s), got %d; write %s", n.name, want, len(n.args), usage)
}

// bind declares the bound variable of any, all or filter.
func (c *compiler) bind(n node, t *typ) (int, error) {
	id, ok := n.(*identNode)
	if !ok {
		return 0, c.errorf(start(n), "", "the first argument must be a name for each element, as in approvers.any(user, user.id == '...')")
	}
	_, isRoot := roots[id.name]
	_, isFuture := unsupportedRoots[id.name]
	if isRoot || isFuture {
		return 0, c.errorf(id.pos, "", "bound variable '%s' shadows a keyword; choose another name", id.name)
	}
	if c.lookup(id.name) != nil {
		return 0, c.errorf(id.pos, "", "bound variable '%s' is already bound by an enclosing method; choose another name", id.name)
	}
	slot := len(c.scope)
	c.scope = append(c.scope, binding{name: id.name, t: t, slot: slot})
	c.slots = max(c.slots, slot+1)
	return slot, nil
}

func (c *compiler) compileBinary(n *binaryNode) (evaluator, *typ, error) {
	switch n.op {
	case tokAnd, tokOr:
		var xs []boolEvaluator
		for _, operand := range flatten(n, n.op, nil) {
			x, err := c.compileBool(operand)
			if err != nil {
				return nil, nil, err
			}
			xs = append(xs, asBoolEval(x))
		}
		if n.op == tokAnd {
			return &andEval{xs}, tBool, nil
		}
		return &orEval{xs}, tBool, nil
	}
	l, lt, err := c.compile(n.l)
	if err != nil {
		return nil, nil, err
	}
	r, rt, err := c.compile(n.r)
	if err != nil {
		return nil, nil, err
	}
	if l, lt, r, rt, err = c.numericStrings(n, l, lt, r, rt); err != nil {
		return nil, nil, err
	}
	if l, lt, r, rt, err = c.selectorLiterals(n, l, lt, r, rt); err != nil {
		return nil, nil, err
	}
	src := format(n)
	switch n.op {
	case tokEq, tokNe:
		if !comparable(lt, rt) {
			return nil, nil, c.mismatch(n, lt, rt)
		}
		if lt.kind == kindString && rt.kind == kindString {
			return &stringEqEval{l: asStringEval(l), r: asStringEval(r), neg: n.op == tokNe}, tBool, nil
		}
		return &eqEval{l: l, r: r, neg: n.op == tokNe, src: src}, tBool, nil
	case tokIn:
		if rt.kind != kindList && rt.kind != kindDyn {
			return nil, nil, c.errorf(n.pos, "", "'in' needs a list on its right, but %s is %s", quote(n.r), rt.a())
		}
		elem := rt.elem
		if rt.kind == kindDyn {
			elem = tDyn
		}
		if !comparable(lt, elem) {
			return nil, nil, c.errorf(n.pos, literalHint(n.l, elem), "cannot look for %s (%s) in %s (%s)",
				quote(n.l), lt.a(), quote(n.r), rt.a())
		}
		return &memberEval{x: l, xs: r, src: src}, tBool, nil
	}
	if !ordered(lt) || !ordered(rt) {
		return nil, nil, c.mismatchOrder(n, lt, rt)
	}
	return &orderEval{l: l, r: r, op: n.op, src: src}, tBool, nil
}

// numericStrings reads a quoted decimal literal compared with an int as that number, as the reference does for the
// comparisons its own documentation writes (eth.tx.chain_id == '8453', eth.tx.chain_id in ['1', '8453']). Only
// literals written in full are read so; a string field compared with an int stays a type error, with its suggestion.
func (c *compiler) numericStrings(n *binaryNode, l evaluator, lt *typ, r evaluator, rt *typ) (evaluator, *typ, evaluator, *typ, error) {
	if lt.kind == kindInt {
		if num, ok := numericLiteral(n.r, n.op == tokIn); ok {
			re, rt2, err := c.compile(num)
			return l, lt, re, rt2, err
		}
	}
	if rt.kind == kindInt && n.op != tokIn {
		if num, ok := numericLiteral(n.l, false); ok {
			le, lt2, err := c.compile(num)
			return le, lt2, r, rt, err
		}
	}
	return l, lt, r, rt, nil
}

// numericLiteral is a quoted decimal literal (or, inList, a list literal of them) as an int literal.
func numericLiteral(n node, inList bool) (node, bool) {
	if inList {
		list, ok := n.(*listNode)
		if !ok || len(list.elems) == 0 {
			return nil, false
		}
		out := &listNode{pos: list.pos, elems: make([]node, len(list.elems))}
		for i, e := range list.elems {
			num, ok := numericLiteral(e, false)
			if !ok {
				return nil, false
			}
			out.elems[i] = num
		}
		return out, true
	}
	lit, ok := n.(*stringNode)
	if !ok || !isDigits(lit.val) {
		return nil, false
	}
	num := &intNode{pos: lit.pos, text: lit.val}
	if num.val.SetFromDecimal(lit.val) != nil {
		return nil, false
	}
	return num, true
}

// flatten collects the operands of a chain of the same logical operator.
func flatten(n node, op tokenKind, out []node) []node {
	if b, ok := n.(*binaryNode); ok && b.op == op {
		return flatten(b.r, op, flatten(b.l, op, out))
	}
	return append(out, n)
}

func isScalar(t *typ) bool {
	return t.kind == kindBool || t.kind == kindInt || t.kind == kindString || t.kind == kindDyn
}

// comparable reports whether == can compare a and b; a nil type (the element of an
// empty list) compares with any scalar.
func comparable(a, b *typ) bool {
	if a == nil || b == nil {
		return (a == nil || isScalar(a)) && (b == nil || isScalar(b))
	}
	if !isScalar(a) || !isScalar(b) {
		return false
	}
	return a.kind == b.kind || a.kind == kindDyn || b.kind == kindDyn
}

func ordered(t *typ) bool { return t.kind == kindInt || t.kind == kindDyn }

func (c *compiler) mismatch(n *binaryNode, lt, rt *typ) error {
	if !isScalar(lt) || !isScalar(rt) {
		return c.errorf(n.pos, "", "cannot compare %s (%s) with %s (%s): only strings, ints and bools compare",
			quote(n.l), lt.a(), quote(n.r), rt.a())
	}
	hint := literalHint(n.r, lt)
	if hint == "" {
		hint = literalHint(n.l, rt)
	}
	return c.errorf(n.pos, hint, "type mismatch: cannot compare %s (%s) with %s (%s)", quote(n.l), lt.a(), quote(n.r), rt.a())
}

func (c *compiler) mismatchOrder(n *binaryNode, lt, rt *typ) error {
	hint := literalHint(n.r, tInt)
	if hint == "" {
		hint = literalHint(n.l, tInt)
	}
	return c.errorf(n.pos, hint, "type mismatch: '%s' compares ints, but %s is %s and %s is %s",
		opText[n.op], quote(n.l), lt.a(), quote(n.r), rt.a())
}

// literalHint suggests the fix for a literal of the wrong type, such as '1' for an int.
func literalHint(n node, want *typ) string {
	if want == nil {
		return ""
	}
	switch lit := n.(type) {
	case *stringNode:
		if want.kind == kindInt && isDigits(lit.val) {
			return fmt.Sprintf("write %s without quotes", lit.val)
		}
	case *intNode:
		if want.kind == kindString {
			return fmt.Sprintf("write '%s' in single quotes", lit.val.Dec())
		}
	}
	return ""
}

func describeElem(t *typ) string {
	if t == nil {
		return "anything"
	}
	return t.a()
}

// quote shows a sub-expression in a message, shortened if long. Literals show as
// written; anything else is put in quotes.
func quote(n node) string {
	s := format(n)
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	switch n.(type) {
	case *stringNode, *intNode, *boolNode, *listNode:
		return s
	}
	return "'" + s + "'"
}

// pathName is the dotted name of a chain of fields (eth.tx.to), or "" if n is not one.
func pathName(n node) string {
	switch n := n.(type) {
	case *identNode:
		return n.name
	case *fieldNode:
		if p := pathName(n.x); p != "" {
			return p + "." + n.name
		}
	}
	return ""
}

// suggest returns "did you mean '<prefix><c>'?" for the candidate closest to name.
func suggest(name string, candidates []string, prefix string) string {
	best, bestDist := "", len(name)/2+2
	for _, c := range candidates {
		if d := editDistance(strings.ToLower(name), strings.ToLower(c)); d < bestDist {
			best, bestDist = c, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf("did you mean '%s%s'?", prefix, best)
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
