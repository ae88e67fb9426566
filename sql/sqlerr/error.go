// Package sqlerr is the error type of the SQL front end: a code, the
// position in the user's text, the token near it, and a caret rendering.
package sqlerr

import (
	"fmt"
	"strings"

	"github.com/sqlstream/sqlstream/sql/ast"
)

// Code classifies an error; tests compare codes, not wording.
type Code string

// Error codes.
const (
	Syntax      Code = "SYNTAX"      // the text does not parse
	Unknown     Code = "UNKNOWN"     // unknown source, column, function, property
	Type        Code = "TYPE"        // type mismatch, bad cast, no overload
	Semantic    Code = "SEMANTIC"    // valid syntax, invalid meaning
	Unsupported Code = "UNSUPPORTED" // understood but not (yet) supported
	Exists      Code = "EXISTS"      // a source or query already exists
	InUse       Code = "IN_USE"      // dropped while queries use it
	Kafka       Code = "KAFKA"       // topic missing or mismatching
)

// Error is a SQL error at a position in the statement text.
type Error struct {
	Code Code
	Pos  ast.Pos // Line 0 when no position is known
	Near string  // the token at Pos, if any
	Msg  string
	// SQL is the statement text Pos refers to, for Render. Optional.
	SQL string
}

// New returns an error at pos.
func New(code Code, pos ast.Pos, format string, args ...any) *Error {
	return &Error{Code: code, Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

// Error returns "line L:C: msg" (plus "at or near "tok"" when known), the
// way ksqlDB and CockroachDB start their messages.
func (e *Error) Error() string {
	var b strings.Builder
	if e.Pos.Line > 0 {
		fmt.Fprintf(&b, "line %d:%d: ", e.Pos.Line, e.Pos.Col)
	}
	b.WriteString(e.Msg)
	if e.Near != "" {
		fmt.Fprintf(&b, " at or near \"%s\"", e.Near)
	}
	return b.String()
}

// Render returns Error() followed by the offending source line and a caret
// under the column, when the statement text and position are known.
func (e *Error) Render() string {
	if e.SQL == "" || e.Pos.Line <= 0 {
		return e.Error()
	}
	lines := strings.Split(e.SQL, "\n")
	if e.Pos.Line > len(lines) {
		return e.Error()
	}
	line := lines[e.Pos.Line-1]
	col := e.Pos.Col
	if col < 1 {
		col = 1
	}
	return e.Error() + "\n" + line + "\n" + strings.Repeat(" ", col-1) + "^"
}
