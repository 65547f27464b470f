package policy

import "strings"

// Binding strength of each syntactic level, loosest first.
const (
	precOr = iota + 1
	precAnd
	precCmp
	precUnary
	precPostfix
)

var opText = map[tokenKind]string{
	tokOr: "||", tokAnd: "&&", tokEq: "==", tokNe: "!=",
	tokLt: "<", tokGt: ">", tokLe: "<=", tokGe: ">=", tokIn: "in",
}

// format prints a tree back to source text. Parentheses appear only where the
// precedence rules need them, so parsing the output gives the same tree.
func format(n node) string {
	var b strings.Builder
	writeNode(&b, n, 0)
	return b.String()
}

func precedence(n node) int {
	switch n := n.(type) {
	case *binaryNode:
		switch n.op {
		case tokOr:
			return precOr
		case tokAnd:
			return precAnd
		}
		return precCmp
	case *notNode:
		return precUnary
	}
	return precPostfix
}

func writeNode(b *strings.Builder, n node, min int) {
	if precedence(n) < min {
		b.WriteByte('(')
		defer b.WriteByte(')')
	}
	switch n := n.(type) {
	case *identNode:
		b.WriteString(n.name)
	case *intNode:
		b.WriteString(n.val.Dec())
	case *stringNode:
		b.WriteByte('\'')
		b.WriteString(n.val)
		b.WriteByte('\'')
	case *boolNode:
		if n.val {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case *listNode:
		b.WriteByte('[')
		writeList(b, n.elems)
		b.WriteByte(']')
	case *fieldNode:
		writeNode(b, n.x, precPostfix)
		b.WriteByte('.')
		b.WriteString(n.name)
	case *indexNode:
		writeNode(b, n.x, precPostfix)
		b.WriteByte('[')
		writeNode(b, n.index, 0)
		b.WriteByte(']')
	case *sliceNode:
		writeNode(b, n.x, precPostfix)
		b.WriteByte('[')
		writeNode(b, n.lo, 0)
		b.WriteString("..")
		writeNode(b, n.hi, 0)
		b.WriteByte(']')
	case *methodNode:
		writeNode(b, n.x, precPostfix)
		b.WriteByte('.')
		b.WriteString(n.name)
		b.WriteByte('(')
		writeList(b, n.args)
		b.WriteByte(')')
	case *callNode:
		b.WriteString(n.name)
		b.WriteByte('(')
		writeList(b, n.args)
		b.WriteByte(')')
	case *notNode:
		b.WriteByte('!')
		writeNode(b, n.x, precUnary)
	case *binaryNode:
		p := precedence(n)
		left, right := p, p+1 // && and || associate to the left
		if p == precCmp {
			left, right = precUnary, precUnary // comparisons do not chain
		}
		writeNode(b, n.l, left)
		b.WriteByte(' ')
		b.WriteString(opText[n.op])
		b.WriteByte(' ')
		writeNode(b, n.r, right)
	}
}

func writeList(b *strings.Builder, ns []node) {
	for i, n := range ns {
		if i > 0 {
			b.WriteString(", ")
		}
		writeNode(b, n, 0)
	}
}
