package jsonstrict

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// maxDepth bounds the nesting of arrays and objects, as encoding/json does, so that a body of brackets cannot grow the
// stack without limit.
const maxDepth = 10000

// scanner parses JSON from a byte slice into nodes. Every request body goes through it, so it reads the bytes in place
// instead of asking json.Decoder for one allocated token at a time; strings with escapes or non-ASCII bytes, the rare
// case, are unquoted by encoding/json so that they mean exactly what they mean to the standard library.
type scanner struct {
	data  []byte
	pos   int
	depth int
}

// syntaxError is malformed input at a byte offset.
type syntaxError struct {
	msg    string
	offset int
}

func (e *syntaxError) Error() string { return fmt.Sprintf("%s (at byte %d)", e.msg, e.offset) }

func (s *scanner) fail(format string, args ...any) error {
	return &syntaxError{msg: fmt.Sprintf(format, args...), offset: s.pos}
}

func (s *scanner) skipSpace() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// unexpected describes the byte at the current position, or the end of the input.
func (s *scanner) unexpected(wanted string) error {
	if s.pos >= len(s.data) {
		return errUnexpectedEnd
	}
	return s.fail("invalid character %q looking for %s", s.data[s.pos], wanted)
}

var errUnexpectedEnd = &syntaxError{msg: "unexpected end of input"}

// value reads one value, with the whitespace before it.
func (s *scanner) value() (*node, error) {
	s.skipSpace()
	if s.pos >= len(s.data) {
		return nil, errUnexpectedEnd
	}
	start := s.pos
	var n *node
	var err error
	switch c := s.data[s.pos]; {
	case c == '{':
		n, err = s.object()
	case c == '[':
		n, err = s.array()
	case c == '"':
		var str string
		str, err = s.str()
		n = &node{kind: 's', str: str}
	case c == '-' || (c >= '0' && c <= '9'):
		n, err = s.number()
	case c == 't':
		n, err = s.literal("true", &node{kind: 'b', bool: true})
	case c == 'f':
		n, err = s.literal("false", &node{kind: 'b'})
	case c == 'n':
		n, err = s.literal("null", &node{kind: 'z'})
	default:
		return nil, s.unexpected("beginning of value")
	}
	if err != nil {
		return nil, err
	}
	n.raw = s.data[start:s.pos]
	return n, nil
}

func (s *scanner) enter() error {
	s.depth++
	if s.depth > maxDepth {
		return s.fail("nesting deeper than %d", maxDepth)
	}
	s.pos++ // the opening bracket
	return nil
}

func (s *scanner) object() (*node, error) {
	if err := s.enter(); err != nil {
		return nil, err
	}
	n := &node{kind: 'o', fields: map[string]*node{}}
	s.skipSpace()
	if s.pos < len(s.data) && s.data[s.pos] == '}' {
		s.pos++
		s.depth--
		return n, nil
	}
	for {
		s.skipSpace()
		if s.pos >= len(s.data) || s.data[s.pos] != '"' {
			return nil, s.unexpected("beginning of object key string")
		}
		key, err := s.str()
		if err != nil {
			return nil, err
		}
		if _, dup := n.fields[key]; dup {
			return nil, fmt.Errorf("duplicate key %q", key)
		}
		s.skipSpace()
		if s.pos >= len(s.data) || s.data[s.pos] != ':' {
			return nil, s.unexpected("':' after object key")
		}
		s.pos++
		v, err := s.value()
		if err != nil {
			return nil, err
		}
		n.keys = append(n.keys, key)
		n.fields[key] = v
		if done, err := s.next('}', "object"); done || err != nil {
			return n, err
		}
	}
}

func (s *scanner) array() (*node, error) {
	if err := s.enter(); err != nil {
		return nil, err
	}
	n := &node{kind: 'a', items: []*node{}}
	s.skipSpace()
	if s.pos < len(s.data) && s.data[s.pos] == ']' {
		s.pos++
		s.depth--
		return n, nil
	}
	for {
		v, err := s.value()
		if err != nil {
			return nil, err
		}
		n.items = append(n.items, v)
		if done, err := s.next(']', "array"); done || err != nil {
			return n, err
		}
	}
}

// next reads the comma before another member, or the closing bracket (done).
func (s *scanner) next(closing byte, what string) (done bool, err error) {
	s.skipSpace()
	if s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ',':
			s.pos++
			return false, nil
		case closing:
			s.pos++
			s.depth--
			return true, nil
		}
	}
	return false, s.unexpected(fmt.Sprintf("',' or '%c' after %s element", closing, what))
}

// str reads a string literal. Plain ASCII without escapes is taken as it is; anything else is unquoted by
// encoding/json (escapes, surrogate pairs, invalid UTF-8 replaced as the standard library replaces it).
func (s *scanner) str() (string, error) {
	start := s.pos
	s.pos++ // the opening quote
	plain := true
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		switch {
		case c == '"':
			s.pos++
			if plain {
				return string(s.data[start+1 : s.pos-1]), nil
			}
			var out string
			if err := json.Unmarshal(s.data[start:s.pos], &out); err != nil {
				return "", &syntaxError{msg: "invalid string: " + err.Error(), offset: start}
			}
			return out, nil
		case c == '\\':
			plain = false
			s.pos += 2 // the escaped character is checked by encoding/json
		case c < 0x20:
			return "", s.fail("invalid control character %q in string literal", c)
		case c >= utf8.RuneSelf:
			plain = false
			s.pos++
		default:
			s.pos++
		}
	}
	return "", errUnexpectedEnd
}

// number reads a number with JSON's grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scanner) number() (*node, error) {
	start := s.pos
	if s.data[s.pos] == '-' {
		s.pos++
	}
	switch {
	case s.pos < len(s.data) && s.data[s.pos] == '0':
		s.pos++
	case s.digits() == 0:
		return nil, s.unexpected("digit in numeric literal")
	}
	if s.pos < len(s.data) && s.data[s.pos] == '.' {
		s.pos++
		if s.digits() == 0 {
			return nil, s.unexpected("digit after decimal point in numeric literal")
		}
	}
	if s.pos < len(s.data) && (s.data[s.pos] == 'e' || s.data[s.pos] == 'E') {
		s.pos++
		if s.pos < len(s.data) && (s.data[s.pos] == '+' || s.data[s.pos] == '-') {
			s.pos++
		}
		if s.digits() == 0 {
			return nil, s.unexpected("digit in exponent of numeric literal")
		}
	}
	return &node{kind: 'n', num: json.Number(s.data[start:s.pos])}, nil
}

func (s *scanner) digits() int {
	start := s.pos
	for s.pos < len(s.data) && s.data[s.pos] >= '0' && s.data[s.pos] <= '9' {
		s.pos++
	}
	return s.pos - start
}

func (s *scanner) literal(word string, n *node) (*node, error) {
	if len(s.data)-s.pos < len(word) || string(s.data[s.pos:s.pos+len(word)]) != word {
		for i := 0; i < len(word); i++ { // point at the first byte that differs
			if s.pos >= len(s.data) || s.data[s.pos] != word[i] {
				return nil, s.unexpected(fmt.Sprintf("literal %s", word))
			}
			s.pos++
		}
	}
	s.pos += len(word)
	return n, nil
}
