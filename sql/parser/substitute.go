package parser

import (
	"strings"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
)

// Substitute replaces each ${name} in text with its value from vars.
// A name is looked up as written, then upper-cased (DEFINE names follow
// the identifier case rule). References inside string literals are
// replaced too, as ksqlDB does; an unknown name is an error.
func Substitute(text string, vars map[string]string) (string, error) {
	if !strings.Contains(text, "${") {
		return text, nil
	}
	var b strings.Builder
	rest := text
	for {
		k := strings.Index(rest, "${")
		if k < 0 {
			b.WriteString(rest)
			return b.String(), nil
		}
		off := len(text) - len(rest) + k
		end := strings.IndexByte(rest[k:], '}')
		if end < 0 {
			return "", substError(text, off, "unterminated variable reference")
		}
		name := strings.TrimSpace(rest[k+2 : k+end])
		val, ok := lookupVar(vars, name)
		if !ok {
			return "", substError(text, off, "unknown variable %s", name)
		}
		b.WriteString(rest[:k])
		b.WriteString(val)
		rest = rest[k+end+1:]
	}
}

func lookupVar(vars map[string]string, name string) (string, bool) {
	if v, ok := vars[name]; ok {
		return v, true
	}
	v, ok := vars[strings.ToUpper(name)]
	return v, ok
}

// substError returns an error pointing at byte offset off of text.
func substError(text string, off int, format string, args ...any) error {
	before := text[:off]
	line := strings.Count(before, "\n") + 1
	col := off - strings.LastIndexByte(before, '\n')
	e := sqlerr.New(sqlerr.Unknown, ast.Pos{Line: line, Col: col, Offset: off}, format, args...)
	e.Near = text[off:min(len(text), off+strings.IndexByte(text[off:]+"}", '}')+1)]
	e.SQL = text
	return e
}
