package policy

import (
	"strings"
	"testing"
)

func TestLex(t *testing.T) {
	toks, err := lex("eth.tx.data[0..10] == '0x6e553f65' && !x || a<=b in [1,2]")
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, tk := range toks {
		kinds = append(kinds, tk.kind.String())
	}
	want := "name '.' name '.' name '[' integer '..' integer ']' '==' string '&&' '!' name '||' name '<=' name name '[' integer ',' integer ']' end of expression"
	if got := strings.Join(kinds, " "); got != want {
		t.Errorf("kinds:\n got %s\nwant %s", got, want)
	}
	if toks[11].text != "0x6e553f65" || toks[11].pos != 22 {
		t.Errorf("string token = %+v", toks[11])
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		src, msg string
		pos      int
	}{
		{`eth.tx.to == "0xabc"`, "double-quoted string: strings use single quotes", 13},
		{`eth.tx.to == '0xabc`, "unterminated string", 13},
		{``, "empty expression", 0},
		{`   `, "empty expression", 0},
		{`a &&`, "unexpected end of expression, expected a value", 4},
		{`a & b`, "logical and is written '&&'", 2},
		{`a | b`, "logical or is written '||'", 2},
		{`a = b`, "equality is written '=='", 2},
		{`x > -1`, "negative numbers and arithmetic are not supported", 4},
		{`x + 1`, "arithmetic is not supported", 2},
		{`{id: 'a'}`, "struct literals are not supported", 0},
		{`a == b == c`, "comparisons cannot be chained", 7},
		{`(a == b`, "expected ')' to close the parenthesis", 7},
		{`x[1`, "expected ']' to close the index", 3},
		{`x[1..2`, "expected ']' to close the slice", 6},
		{`f(a b)`, "expected ',' or ')' in the argument list", 4},
		{`[1 2]`, "expected ',' or ']' in the list", 3},
		{`a b`, "expected an operator or the end of the expression", 2},
		{`x.`, "expected name after '.'", 2},
		{`x.1`, "expected name after '.'", 2},
		{`12abc`, "malformed number '12a'", 0},
		{`1 == 115792089237316195423570985008687907853269984665640564039457584007913129639936`, "does not fit in 256 bits", 5},
		{`in == 1`, "unexpected name 'in', expected a value", 0},
		{`a == #`, "unexpected character '#'", 5},
		{`a == '` + "\xff" + `'`, "not valid UTF-8", 5},
		{strings.Repeat("(", 70) + "a" + strings.Repeat(")", 70), "nested more than 64 levels", 64},
		{strings.Repeat("!", 70) + "a", "nested more than 64 levels", 64},
		{strings.Repeat("a", maxSourceLen+1), "the limit is 16384", 0},
	}
	for _, tt := range tests {
		_, err := parse(tt.src)
		se, ok := err.(*syntaxError)
		if !ok {
			t.Errorf("parse(%.40q) = %v, want a syntax error", tt.src, err)
			continue
		}
		if !strings.Contains(se.msg, tt.msg) || se.pos != tt.pos {
			t.Errorf("parse(%.40q) = %q at %d, want %q at %d", tt.src, se.msg, se.pos, tt.msg, tt.pos)
		}
	}
}

// TestPrecedence checks the tree shape through the fully parenthesized printing.
func TestPrecedence(t *testing.T) {
	tests := []struct{ src, want string }{
		{"a || b && c", "(a || (b && c))"},
		{"a && b || c", "((a && b) || c)"},
		{"a && b && c", "((a && b) && c)"},
		{"!a == b", "((!a) == b)"},
		{"!a && b", "((!a) && b)"},
		{"!(a && b)", "(!(a && b))"},
		{"x in [1, 2] && y", "((x in [1, 2]) && y)"},
		{"!x.y.z(a)[1..2]", "(!x.y.z(a)[1..2])"},
		{"a < b || c >= d", "((a < b) || (c >= d))"},
		{"xs.any(v, v == 1 || v == 2)", "xs.any(v, ((v == 1) || (v == 2)))"},
	}
	for _, tt := range tests {
		n, err := parse(tt.src)
		if err != nil {
			t.Errorf("parse(%q): %v", tt.src, err)
			continue
		}
		if got := paren(n); got != tt.want {
			t.Errorf("parse(%q) = %s, want %s", tt.src, got, tt.want)
		}
	}
}

// paren prints a tree with every operator parenthesized.
func paren(n node) string {
	switch n := n.(type) {
	case *binaryNode:
		return "(" + paren(n.l) + " " + opText[n.op] + " " + paren(n.r) + ")"
	case *notNode:
		return "(!" + paren(n.x) + ")"
	case *methodNode:
		args := make([]string, len(n.args))
		for i, a := range n.args {
			args[i] = paren(a)
		}
		return paren(n.x) + "." + n.name + "(" + strings.Join(args, ", ") + ")"
	case *sliceNode:
		return paren(n.x) + "[" + paren(n.lo) + ".." + paren(n.hi) + "]"
	case *fieldNode:
		return paren(n.x) + "." + n.name
	}
	return format(n)
}

func TestPrintRoundTrip(t *testing.T) {
	tests := []struct{ src, want string }{
		{"eth.tx.to=='0xAb'&&eth.tx.data[0..10]=='0x6e553f65'", "eth.tx.to == '0xAb' && eth.tx.data[0..10] == '0x6e553f65'"},
		{"a || (b || c)", "a || (b || c)"},
		{"(a || b) || c", "a || b || c"},
		{"(a && b) || (c && d)", "a && b || c && d"},
		{"(a || b) && c", "(a || b) && c"},
		{"!(a == b)", "!(a == b)"},
		{"(!a) == b", "!a == b"},
		{"!!a", "!!a"},
		{"007 == x", "7 == x"},
		{"[ ] == x", "[] == x"},
		{"m['a'][0]['b']", "m['a'][0]['b']"},
		{"(a.b).c", "a.b.c"},
		{"(a == b).c", "(a == b).c"},
		{"f( 'x' , 2 )", "f('x', 2)"},
		{"xs.filter(u, u.tags.contains('t')).count() >= 2", "xs.filter(u, u.tags.contains('t')).count() >= 2"},
		{"(a in b) == c", "(a in b) == c"},
		{"x[(a || b)]", "x[a || b]"},
		{"true != false", "true != false"},
	}
	for _, tt := range tests {
		n, err := parse(tt.src)
		if err != nil {
			t.Errorf("parse(%q): %v", tt.src, err)
			continue
		}
		got := format(n)
		if got != tt.want {
			t.Errorf("format(parse(%q)) = %q, want %q", tt.src, got, tt.want)
		}
		again, err := parse(got)
		if err != nil || !equalTrees(n, again) {
			t.Errorf("re-parsing %q: %v, same tree %v", got, err, err == nil && equalTrees(n, again))
		}
	}
}
