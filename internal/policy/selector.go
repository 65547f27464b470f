package policy

import (
	"encoding/hex"
	"strings"

	"golang.org/x/crypto/sha3"
)

// eth.tx.function_signature is the selector of the function a transaction calls, as the reference documents it
// ("the leading bytes which denote the function being called", eth.tx.function_signature == '0xa9059cbb'): 0x and
// eight lower-case hex digits. A literal compared with it may also be written as the function's signature
// ('transfer(address,uint256)'), which is read as that signature's selector; any other literal is refused, since it
// could never equal a selector.

// functionSelector is the selector of a function signature such as transfer(address,uint256): the first four bytes
// of its Keccak-256 hash. A selector is returned as it is, in lower case.
func functionSelector(sig string) string {
	if isSelector(sig) {
		return strings.ToLower(sig)
	}
	h := sha3.NewLegacyKeccak256()
	h.Write([]byte(sig))
	return "0x" + hex.EncodeToString(h.Sum(nil)[:4])
}

// isSelector: 0x and eight hex digits.
func isSelector(s string) bool {
	if len(s) != 10 || s[:2] != "0x" {
		return false
	}
	_, err := hex.DecodeString(s[2:])
	return err == nil
}

// isSignature: a name and its parenthesized parameter types, without spaces, as a selector's preimage is written.
func isSignature(s string) bool {
	open := strings.IndexByte(s, '(')
	if open < 1 || !strings.HasSuffix(s, ")") || strings.ContainsAny(s, " \t\r\n") {
		return false
	}
	for i := 0; i < open; i++ {
		ch := s[i]
		if !(ch == '_' || ch == '$' || ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || i > 0 && ch >= '0' && ch <= '9') {
			return false
		}
	}
	return true
}

// isFunctionSignature reports whether n is the path eth.tx.function_signature.
func isFunctionSignature(n node) bool {
	return format(n) == "eth.tx.function_signature"
}

// selectorLiterals reads the literals compared (==, != or in) with eth.tx.function_signature as selectors.
func (c *compiler) selectorLiterals(n *binaryNode, l evaluator, lt *typ, r evaluator, rt *typ) (evaluator, *typ, evaluator, *typ, error) {
	if n.op != tokEq && n.op != tokNe && n.op != tokIn {
		return l, lt, r, rt, nil
	}
	if isFunctionSignature(n.l) {
		sel, err := c.selectorNode(n.r, n.op == tokIn)
		if sel == nil || err != nil {
			return l, lt, r, rt, err
		}
		r, rt, err = c.compile(sel)
		return l, lt, r, rt, err
	}
	if n.op != tokIn && isFunctionSignature(n.r) {
		sel, err := c.selectorNode(n.l, false)
		if sel == nil || err != nil {
			return l, lt, r, rt, err
		}
		l, lt, err = c.compile(sel)
		return l, lt, r, rt, err
	}
	return l, lt, r, rt, nil
}

// selectorNode is n with its string literals (or, inList, the string literals of a list literal) as selectors; nil
// when n holds none.
func (c *compiler) selectorNode(n node, inList bool) (node, error) {
	if list, ok := n.(*listNode); ok && inList {
		out := &listNode{pos: list.pos, elems: make([]node, len(list.elems))}
		changed := false
		for i, e := range list.elems {
			sel, err := c.selectorNode(e, false)
			if err != nil {
				return nil, err
			}
			out.elems[i] = e
			if sel != nil {
				out.elems[i], changed = sel, true
			}
		}
		if !changed {
			return nil, nil
		}
		return out, nil
	}
	lit, ok := n.(*stringNode)
	if !ok || inList {
		return nil, nil
	}
	if !isSelector(lit.val) && !isSignature(lit.val) {
		return nil, c.errorf(lit.pos, "", "'%s' is neither a function selector such as '0xa9059cbb' nor a signature such as 'transfer(address,uint256)': eth.tx.function_signature is the selector of the function called", lit.val)
	}
	return &stringNode{pos: lit.pos, val: functionSelector(lit.val)}, nil
}
