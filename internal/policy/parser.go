package policy

import (
	"fmt"

	"github.com/holiman/uint256"
)

const (
	// maxSourceLen bounds the work one policy can cost at creation and at every evaluation.
	maxSourceLen = 16 << 10
	// maxDepth bounds nesting so a hostile expression cannot exhaust the stack.
	maxDepth = 64
)

type parser struct {
	toks  []token
	i     int
	depth int
}

// parse turns source text into a tree. It checks syntax only; names and types are
// checked by the compiler.
func parse(src string) (node, error) {
	if len(src) > maxSourceLen {
		return nil, &syntaxError{0, fmt.Sprintf("expression is %d bytes long; the limit is %d", len(src), maxSourceLen)}
	}
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	if p.peek().kind == tokEOF {
		return nil, &syntaxError{0, "empty expression"}
	}
	n, err := p.parseOr()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tokEOF {
		return nil, p.unexpected(t, "an operator or the end of the expression")
	}
	return n, nil
}

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tokEOF {
		p.i++
	}
	return t
}

func (p *parser) expect(kind tokenKind, context string) (token, error) {
	t := p.next()
	if t.kind != kind {
		return t, p.unexpected(t, kind.String()+context)
	}
	return t, nil
}

func (p *parser) unexpected(t token, want string) error {
	return &syntaxError{t.pos, fmt.Sprintf("unexpected %s, expected %s", t.describe(), want)}
}

func (p *parser) enter(pos int) error {
	p.depth++
	if p.depth > maxDepth {
		return &syntaxError{pos, fmt.Sprintf("expression is nested more than %d levels deep", maxDepth)}
	}
	return nil
}

func (p *parser) leave() { p.depth-- }

func (p *parser) parseOr() (node, error) {
	l, err := p.parseAnd()
	if err != nil {
		return nil, err
	}
	for p.peek().kind == tokOr {
		op := p.next()
		r, err := p.parseAnd()
		if err != nil {
			return nil, err
		}
		l = &binaryNode{pos: op.pos, op: tokOr, l: l, r: r}
	}
	return l, nil
}

func (p *parser) parseAnd() (node, error) {
	l, err := p.parseComparison()
	if err != nil {
		return nil, err
	}
	for p.peek().kind == tokAnd {
		op := p.next()
		r, err := p.parseComparison()
		if err != nil {
			return nil, err
		}
		l = &binaryNode{pos: op.pos, op: tokAnd, l: l, r: r}
	}
	return l, nil
}

// isComparison reports whether t is a comparison operator; "in" is lexed as a name
// and turned into tokIn here (op is returned as tokIdent for "in").
func isComparison(t token) bool {
	switch t.kind {
	case tokEq, tokNe, tokLt, tokGt, tokLe, tokGe:
		return true
	case tokIdent:
		return t.text == "in"
	}
	return false
}

func (p *parser) parseComparison() (node, error) {
	l, err := p.parseUnary()
	if err != nil {
		return nil, err
	}
	if !isComparison(p.peek()) {
		return l, nil
	}
	op := p.next()
	r, err := p.parseUnary()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); isComparison(t) {
		return nil, &syntaxError{t.pos, "comparisons cannot be chained: combine them with && or ||"}
	}
	kind := op.kind
	if kind == tokIdent {
		kind = tokIn
	}
	return &binaryNode{pos: op.pos, op: kind, l: l, r: r}, nil
}

func (p *parser) parseUnary() (node, error) {
	if t := p.peek(); t.kind == tokNot {
		p.next()
		if err := p.enter(t.pos); err != nil {
			return nil, err
		}
		defer p.leave()
		x, err := p.parseUnary()
		if err != nil {
			return nil, err
		}
		return &notNode{pos: t.pos, x: x}, nil
	}
	return p.parsePostfix()
}

func (p *parser) parsePostfix() (node, error) {
	x, err := p.parsePrimary()
	if err != nil {
		return nil, err
	}
	for {
		switch t := p.peek(); t.kind {
		case tokDot:
			p.next()
			name, err := p.expect(tokIdent, " after '.'")
			if err != nil {
				return nil, err
			}
			if p.peek().kind != tokLParen {
				x = &fieldNode{pos: name.pos, x: x, name: name.text}
				continue
			}
			args, err := p.parseArgs()
			if err != nil {
				return nil, err
			}
			x = &methodNode{pos: name.pos, x: x, name: name.text, args: args}
		case tokLBracket:
			p.next()
			if x, err = p.parseIndex(t.pos, x); err != nil {
				return nil, err
			}
		default:
			return x, nil
		}
	}
}

// parseIndex parses the rest of x[i] or x[lo..hi] after the '['.
func (p *parser) parseIndex(pos int, x node) (node, error) {
	if err := p.enter(pos); err != nil {
		return nil, err
	}
	defer p.leave()
	lo, err := p.parseOr()
	if err != nil {
		return nil, err
	}
	if p.peek().kind == tokDotDot {
		p.next()
		hi, err := p.parseOr()
		if err != nil {
			return nil, err
		}
		if _, err := p.expect(tokRBracket, " to close the slice"); err != nil {
			return nil, err
		}
		return &sliceNode{pos: pos, x: x, lo: lo, hi: hi}, nil
	}
	if _, err := p.expect(tokRBracket, " to close the index"); err != nil {
		return nil, err
	}
	return &indexNode{pos: pos, x: x, index: lo}, nil
}

// parseArgs parses "(" [expr {"," expr}] ")".
func (p *parser) parseArgs() ([]node, error) {
	open, _ := p.expect(tokLParen, "")
	if err := p.enter(open.pos); err != nil {
		return nil, err
	}
	defer p.leave()
	var args []node
	if p.peek().kind == tokRParen {
		p.next()
		return args, nil
	}
	for {
		a, err := p.parseOr()
		if err != nil {
			return nil, err
		}
		args = append(args, a)
		t := p.next()
		if t.kind == tokRParen {
			return args, nil
		}
		if t.kind != tokComma {
			return nil, p.unexpected(t, "',' or ')' in the argument list")
		}
	}
}

func (p *parser) parsePrimary() (node, error) {
	t := p.next()
	switch t.kind {
	case tokInt:
		var v uint256.Int
		if err := v.SetFromDecimal(t.text); err != nil {
			return nil, &syntaxError{t.pos, fmt.Sprintf("integer %s does not fit in 256 bits", t.text)}
		}
		return &intNode{pos: t.pos, text: t.text, val: v}, nil
	case tokString:
		return &stringNode{pos: t.pos, val: t.text}, nil
	case tokIdent:
		switch t.text {
		case "true", "false":
			return &boolNode{pos: t.pos, val: t.text == "true"}, nil
		case "in":
			return nil, p.unexpected(t, "a value")
		}
		if p.peek().kind == tokLParen {
			args, err := p.parseArgs()
			if err != nil {
				return nil, err
			}
			return &callNode{pos: t.pos, name: t.text, args: args}, nil
		}
		return &identNode{pos: t.pos, name: t.text}, nil
	case tokLParen:
		if err := p.enter(t.pos); err != nil {
			return nil, err
		}
		defer p.leave()
		x, err := p.parseOr()
		if err != nil {
			return nil, err
		}
		if _, err := p.expect(tokRParen, " to close the parenthesis"); err != nil {
			return nil, err
		}
		return x, nil
	case tokLBracket:
		return p.parseList(t)
	}
	return nil, p.unexpected(t, "a value")
}

func (p *parser) parseList(open token) (node, error) {
	if err := p.enter(open.pos); err != nil {
		return nil, err
	}
	defer p.leave()
	list := &listNode{pos: open.pos}
	if p.peek().kind == tokRBracket {
		p.next()
		return list, nil
	}
	for {
		e, err := p.parseOr()
		if err != nil {
			return nil, err
		}
		list.elems = append(list.elems, e)
		t := p.next()
		if t.kind == tokRBracket {
			return list, nil
		}
		if t.kind != tokComma {
			return nil, p.unexpected(t, "',' or ']' in the list")
		}
	}
}
