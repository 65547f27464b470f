package policy

import "github.com/holiman/uint256"

// node is a parsed expression. pos is the byte offset in the source of the token that
// names the node (the identifier, operator or literal), so errors point at it.
type node interface{ position() int }

type (
	// identNode is a keyword or a bound variable.
	identNode struct {
		pos  int
		name string
	}
	intNode struct {
		pos  int
		text string
		val  uint256.Int
	}
	stringNode struct {
		pos int
		val string
	}
	boolNode struct {
		pos int
		val bool
	}
	listNode struct {
		pos   int
		elems []node
	}
	// fieldNode is x.name.
	fieldNode struct {
		pos  int // position of name
		x    node
		name string
	}
	// indexNode is x[index]: a list element, a character, or a map key.
	indexNode struct {
		pos   int // position of '['
		x     node
		index node
	}
	// sliceNode is x[lo..hi], end-exclusive.
	sliceNode struct {
		pos    int
		x      node
		lo, hi node
	}
	// methodNode is x.name(args).
	methodNode struct {
		pos  int // position of name
		x    node
		name string
		args []node
	}
	// callNode is name(args): the functions of the time field.
	callNode struct {
		pos  int
		name string
		args []node
	}
	notNode struct {
		pos int
		x   node
	}
	binaryNode struct {
		pos  int // position of the operator
		op   tokenKind
		l, r node
	}
)

func (n *identNode) position() int  { return n.pos }
func (n *intNode) position() int    { return n.pos }
func (n *stringNode) position() int { return n.pos }
func (n *boolNode) position() int   { return n.pos }
func (n *listNode) position() int   { return n.pos }
func (n *fieldNode) position() int  { return n.pos }
func (n *indexNode) position() int  { return n.pos }
func (n *sliceNode) position() int  { return n.pos }
func (n *methodNode) position() int { return n.pos }
func (n *callNode) position() int   { return n.pos }
func (n *notNode) position() int    { return n.pos }
func (n *binaryNode) position() int { return n.pos }

// start returns the offset of the first character of n's source text.
func start(n node) int {
	switch n := n.(type) {
	case *fieldNode:
		return start(n.x)
	case *indexNode:
		return start(n.x)
	case *sliceNode:
		return start(n.x)
	case *methodNode:
		return start(n.x)
	case *binaryNode:
		return start(n.l)
	}
	return n.position()
}

// equalTrees reports whether a and b are the same tree, ignoring positions.
func equalTrees(a, b node) bool {
	switch a := a.(type) {
	case *identNode:
		b, ok := b.(*identNode)
		return ok && a.name == b.name
	case *intNode:
		b, ok := b.(*intNode)
		return ok && a.val == b.val
	case *stringNode:
		b, ok := b.(*stringNode)
		return ok && a.val == b.val
	case *boolNode:
		b, ok := b.(*boolNode)
		return ok && a.val == b.val
	case *listNode:
		b, ok := b.(*listNode)
		return ok && equalLists(a.elems, b.elems)
	case *fieldNode:
		b, ok := b.(*fieldNode)
		return ok && a.name == b.name && equalTrees(a.x, b.x)
	case *indexNode:
		b, ok := b.(*indexNode)
		return ok && equalTrees(a.x, b.x) && equalTrees(a.index, b.index)
	case *sliceNode:
		b, ok := b.(*sliceNode)
		return ok && equalTrees(a.x, b.x) && equalTrees(a.lo, b.lo) && equalTrees(a.hi, b.hi)
	case *methodNode:
		b, ok := b.(*methodNode)
		return ok && a.name == b.name && equalTrees(a.x, b.x) && equalLists(a.args, b.args)
	case *callNode:
		b, ok := b.(*callNode)
		return ok && a.name == b.name && equalLists(a.args, b.args)
	case *notNode:
		b, ok := b.(*notNode)
		return ok && equalTrees(a.x, b.x)
	case *binaryNode:
		b, ok := b.(*binaryNode)
		return ok && a.op == b.op && equalTrees(a.l, b.l) && equalTrees(a.r, b.r)
	}
	return false
}

func equalLists(a, b []node) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !equalTrees(a[i], b[i]) {
			return false
		}
	}
	return true
}
