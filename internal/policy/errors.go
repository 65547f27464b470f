package policy

import (
	"fmt"
	"strings"
)

// CompileError is a policy expression refused at creation: a syntax error, an unknown
// or unsupported field, or a type error. Its text names the field, the column and,
// when one is close, the name that was probably meant.
type CompileError struct {
	Field  Field
	Offset int // byte offset in the source
	Line   int // 1-based
	Column int // 1-based, in bytes from the start of the line
	Msg    string
	Hint   string // optional, e.g. "did you mean 'eth.tx.to'?"
}

func (e *CompileError) Error() string {
	var b strings.Builder
	b.WriteString(e.Field.String())
	b.WriteString(": ")
	b.WriteString(e.Msg)
	if e.Line > 1 {
		fmt.Fprintf(&b, " at line %d, column %d", e.Line, e.Column)
	} else {
		fmt.Fprintf(&b, " at column %d", e.Column)
	}
	if e.Hint != "" {
		b.WriteString("; ")
		b.WriteString(e.Hint)
	}
	return b.String()
}

func newCompileError(field Field, src string, offset int, msg, hint string) *CompileError {
	offset = min(max(offset, 0), len(src))
	line, col := 1, 1
	for i := 0; i < offset; i++ {
		if src[i] == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return &CompileError{Field: field, Offset: offset, Line: line, Column: col, Msg: msg, Hint: hint}
}

// EvalErrorKind classifies evaluation errors.
type EvalErrorKind string

const (
	// NotApplicable: the keyword does not apply to this request, such as wallet.id on a
	// private-key signing or eth.tx on an activity that signs no transaction.
	NotApplicable EvalErrorKind = "NotApplicable"
	// MissingField: activity.params has no such parameter for this activity type.
	MissingField EvalErrorKind = "MissingField"
	// OutOfRange: an index or slice outside the list or string.
	OutOfRange EvalErrorKind = "OutOfRange"
	// TypeMismatch: a dynamic (EIP-712 message) value of the wrong type, or an input
	// the coordinator filled with the wrong Go type.
	TypeMismatch EvalErrorKind = "TypeMismatch"
	// Overflow: an integer outside 0 ..= 2^256-1.
	Overflow EvalErrorKind = "Overflow"
	// LimitExceeded: the expression needs more work than one evaluation may take,
	// through methods nested over long lists.
	LimitExceeded EvalErrorKind = "LimitExceeded"
)

// EvalError is a failure while evaluating an expression. Clause is the source text of
// the smallest sub-expression that failed.
type EvalError struct {
	Kind   EvalErrorKind
	Clause string
	Msg    string
}

func (e *EvalError) Error() string {
	if e.Clause == "" {
		return fmt.Sprintf("%s: %s", e.Kind, e.Msg)
	}
	return fmt.Sprintf("%s: %s: %s", e.Kind, e.Clause, e.Msg)
}

func evalErrorf(kind EvalErrorKind, format string, args ...any) *EvalError {
	return &EvalError{Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

// withClause attributes err to clause unless a deeper node already did.
func withClause(err error, clause string) error {
	e, ok := err.(*EvalError)
	if !ok || e.Clause != "" {
		return err
	}
	c := *e
	c.Clause = clause
	return &c
}
