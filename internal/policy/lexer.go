package policy

import (
	"fmt"
	"unicode/utf8"
)

type tokenKind uint8

const (
	tokEOF tokenKind = iota
	tokIdent
	tokInt
	tokString
	tokLParen
	tokRParen
	tokLBracket
	tokRBracket
	tokComma
	tokDot
	tokDotDot
	tokNot
	tokAnd
	tokOr
	tokEq
	tokNe
	tokLt
	tokGt
	tokLe
	tokGe
	tokIn
)

var tokenNames = [...]string{
	tokEOF:      "end of expression",
	tokIdent:    "name",
	tokInt:      "integer",
	tokString:   "string",
	tokLParen:   "'('",
	tokRParen:   "')'",
	tokLBracket: "'['",
	tokRBracket: "']'",
	tokComma:    "','",
	tokDot:      "'.'",
	tokDotDot:   "'..'",
	tokNot:      "'!'",
	tokAnd:      "'&&'",
	tokOr:       "'||'",
	tokEq:       "'=='",
	tokNe:       "'!='",
	tokLt:       "'<'",
	tokGt:       "'>'",
	tokLe:       "'<='",
	tokGe:       "'>='",
	tokIn:       "'in'",
}

func (k tokenKind) String() string { return tokenNames[k] }

// token is one lexeme. pos is the byte offset of its first character.
type token struct {
	kind tokenKind
	pos  int
	text string // identifier name, digits, or string contents without quotes
}

func (t token) describe() string {
	switch t.kind {
	case tokIdent:
		return fmt.Sprintf("name '%s'", t.text)
	case tokInt:
		return "integer " + t.text
	case tokString:
		return fmt.Sprintf("string '%s'", t.text)
	}
	return t.kind.String()
}

// syntaxError is a lexing or parsing failure at a byte offset of the source.
type syntaxError struct {
	pos int
	msg string
}

func (e *syntaxError) Error() string { return e.msg }

// lex splits src into tokens. It fails on the first character that cannot start a token.
func lex(src string) ([]token, error) {
	var toks []token
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case isIdentStart(c):
			j := i + 1
			for j < len(src) && isIdentPart(src[j]) {
				j++
			}
			toks = append(toks, token{tokIdent, i, src[i:j]})
			i = j
		case c >= '0' && c <= '9':
			j := i + 1
			for j < len(src) && src[j] >= '0' && src[j] <= '9' {
				j++
			}
			if j < len(src) && isIdentStart(src[j]) {
				return nil, &syntaxError{i, fmt.Sprintf("malformed number '%s': only decimal integers are supported", src[i:j+1])}
			}
			toks = append(toks, token{tokInt, i, src[i:j]})
			i = j
		case c == '\'':
			j := i + 1
			for j < len(src) && src[j] != '\'' {
				j++
			}
			if j == len(src) {
				return nil, &syntaxError{i, "unterminated string: add the closing single quote"}
			}
			if !utf8.ValidString(src[i+1 : j]) {
				return nil, &syntaxError{i, "string is not valid UTF-8"}
			}
			toks = append(toks, token{tokString, i, src[i+1 : j]})
			i = j + 1
		case c == '"':
			return nil, &syntaxError{i, "double-quoted string: strings use single quotes, as in 'value'"}
		default:
			kind, width := punctuation(src[i:])
			if width == 0 {
				return nil, &syntaxError{i, unexpectedChar(src[i:])}
			}
			toks = append(toks, token{kind, i, ""})
			i += width
		}
	}
	return append(toks, token{tokEOF, len(src), ""}), nil
}

func punctuation(s string) (tokenKind, int) {
	two := ""
	if len(s) >= 2 {
		two = s[:2]
	}
	switch two {
	case "&&":
		return tokAnd, 2
	case "||":
		return tokOr, 2
	case "==":
		return tokEq, 2
	case "!=":
		return tokNe, 2
	case "<=":
		return tokLe, 2
	case ">=":
		return tokGe, 2
	case "..":
		return tokDotDot, 2
	}
	switch s[0] {
	case '(':
		return tokLParen, 1
	case ')':
		return tokRParen, 1
	case '[':
		return tokLBracket, 1
	case ']':
		return tokRBracket, 1
	case ',':
		return tokComma, 1
	case '.':
		return tokDot, 1
	case '!':
		return tokNot, 1
	case '<':
		return tokLt, 1
	case '>':
		return tokGt, 1
	}
	return 0, 0
}

func unexpectedChar(s string) string {
	r, _ := utf8.DecodeRuneInString(s)
	switch r {
	case '&':
		return "unexpected '&': logical and is written '&&'"
	case '|':
		return "unexpected '|': logical or is written '||'"
	case '=':
		return "unexpected '=': equality is written '=='"
	case '-':
		return "unexpected '-': negative numbers and arithmetic are not supported"
	case '+', '*', '/', '%':
		return fmt.Sprintf("unexpected '%c': arithmetic is not supported", r)
	case '{', '}':
		return fmt.Sprintf("unexpected '%c': struct literals are not supported", r)
	}
	if r == utf8.RuneError {
		return "invalid UTF-8 in expression"
	}
	return fmt.Sprintf("unexpected character %q", r)
}

func isIdentStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isIdentPart(c byte) bool { return isIdentStart(c) || (c >= '0' && c <= '9') }
