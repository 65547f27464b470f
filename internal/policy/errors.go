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
//
// Two kinds say only that the request does not have what the expression reads, whatever its data: NotApplicable and
// MissingField (see Inapplicable). Every other kind is about the data of something the request does have, which its
// submitter chooses, and Decide treats it as it might apply.
type EvalErrorKind string

const (
	// NotApplicable: the keyword does not apply to this request, such as wallet.id on a
	// private-key signing or eth.tx on an activity that signs no transaction, a velocity
	// control that does not measure the activity, or activity.kind of a root-only activity.
	NotApplicable EvalErrorKind = "NotApplicable"
	// MissingField: activity.params has no such parameter for this activity type.
	MissingField EvalErrorKind = "MissingField"
	// Absent: the request has the keyword, but its data lacks this value: a contract call
	// no uploaded ABI decodes, an instruction no uploaded IDL decodes, a PSBT's fee when an
	// input's spent output is not given, an integer the transaction or typed data leaves
	// out, a Tron contract field its type does not have, a key an EIP-712 message lacks, what
	// an activity adds to a velocity control when it may move a measured asset unmeasured.
	Absent EvalErrorKind = "Absent"
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

// Inapplicable reports whether err says only that the request does not have what a
// policy reads: its kind is NotApplicable or MissingField. Decide treats a policy whose
// condition fails with such an error alone as one that does not apply, as the reference
// does. Any other failure, including one that is not an *EvalError, is not.
func Inapplicable(err error) bool {
	e, ok := err.(*EvalError)
	return ok && (e.Kind == NotApplicable || e.Kind == MissingField)
}

// joinErrors combines the errors of the clauses of one node: the first, unless it is
// Inapplicable and next is not. An expression's error is then Inapplicable only when
// every clause that failed failed that way: "wallet.id == 'W' || eth.eip_712.message['to']
// == 'X'" with a message whose "to" is a number is not taken for a policy about wallets.
func joinErrors(first, next error) error {
	if first == nil || next != nil && Inapplicable(first) && !Inapplicable(next) {
		return next
	}
	return first
}
