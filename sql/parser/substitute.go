package parser

import (
	"strings"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
)

// Substitute replaces each ${name} in text with its value from vars, the
// way ksqlDB does before parsing:
//
//   - a name is looked up as written, then upper-cased (DEFINE names
//     follow the identifier case rule);
//   - $${name} is an escape and stays as the literal text ${name};
//   - inside a 'string literal' the value is inserted with its quotes
//     doubled, so the literal stays one literal;
//   - elsewhere the value must be one identifier or literal (no SQL
//     injection such as `s1 WHERE id = 1`); a 'quoted' value has its
//     inner quotes doubled;
//   - references inside comments are left alone.
//
// An unknown name or an invalid value is a *sqlerr.Error pointing at the
// reference.
func Substitute(text string, vars map[string]string) (string, error) {
	if !strings.Contains(text, "${") {
		return text, nil
	}
	s := &substituter{text: text, vars: vars}
	return s.run()
}

// substituter scans text once, tracking whether it is inside a string,
// a quoted identifier or a comment.
type substituter struct {
	text string
	vars map[string]string
	out  strings.Builder
}

func (s *substituter) run() (string, error) {
	t := s.text
	for i := 0; i < len(t); {
		switch {
		case strings.HasPrefix(t[i:], "--"):
			i = s.copyUntil(i, "\n")
		case strings.HasPrefix(t[i:], "/*"):
			i = s.copyUntil(i, "*/")
		case t[i] == '\'':
			n, err := s.quoted(i, '\'')
			if err != nil {
				return "", err
			}
			i = n
		case t[i] == '`' || t[i] == '"':
			n, err := s.quoted(i, t[i])
			if err != nil {
				return "", err
			}
			i = n
		default:
			n, err := s.maybeVariable(i, false)
			if err != nil {
				return "", err
			}
			i = n
		}
	}
	return s.out.String(), nil
}

// copyUntil copies from i through the end marker (or the end of text).
func (s *substituter) copyUntil(i int, end string) int {
	k := strings.Index(s.text[i+2:], end)
	n := len(s.text)
	if k >= 0 {
		n = i + 2 + k + len(end)
	}
	s.out.WriteString(s.text[i:n])
	return n
}

// quoted copies a quoted token starting at i, substituting inside it.
func (s *substituter) quoted(i int, q byte) (int, error) {
	s.out.WriteByte(q)
	for j := i + 1; j < len(s.text); {
		c := s.text[j]
		if c == q {
			s.out.WriteByte(q)
			if j+1 < len(s.text) && s.text[j+1] == q {
				s.out.WriteByte(q)
				j += 2
				continue
			}
			return j + 1, nil
		}
		n, err := s.maybeVariable(j, q == '\'')
		if err != nil {
			return 0, err
		}
		j = n
	}
	return len(s.text), nil
}

// maybeVariable handles the byte at i: a ${name} reference, a $${name}
// escape or a plain byte. inString says whether i is inside a string
// literal. It returns the index after what it consumed.
func (s *substituter) maybeVariable(i int, inString bool) (int, error) {
	t := s.text
	if strings.HasPrefix(t[i:], "$${") {
		s.out.WriteByte('$')
		return i + 2, nil
	}
	if !strings.HasPrefix(t[i:], "${") {
		s.out.WriteByte(t[i])
		return i + 1, nil
	}
	end := strings.IndexByte(t[i:], '}')
	if end < 0 {
		return 0, substError(t, i, sqlerr.Syntax, "unterminated variable reference")
	}
	name := strings.TrimSpace(t[i+2 : i+end])
	val, ok := lookupVar(s.vars, name)
	if !ok {
		return 0, substError(t, i, sqlerr.Unknown, "undefined variable %s", name)
	}
	if inString {
		val = strings.ReplaceAll(val, "'", "''")
	} else if val, ok = singleToken(val); !ok {
		return 0, substError(t, i, sqlerr.Syntax, "Illegal argument: variable %s must hold one identifier or literal", name)
	}
	s.out.WriteString(val)
	return i + end + 1, nil
}

func lookupVar(vars map[string]string, name string) (string, bool) {
	if v, ok := vars[name]; ok {
		return v, true
	}
	v, ok := vars[strings.ToUpper(name)]
	return v, ok
}

// singleToken checks that val is one identifier or literal (optionally a
// signed number) and returns it with a quoted string's inner quotes
// doubled.
func singleToken(val string) (string, bool) {
	v := strings.TrimSpace(val)
	if len(v) >= 2 && v[0] == '\'' && v[len(v)-1] == '\'' {
		return "'" + strings.ReplaceAll(v[1:len(v)-1], "'", "''") + "'", true
	}
	toks, err := tokenize(v, (&session{}).check)
	if err != nil {
		return "", false
	}
	if len(toks) == 3 && toks[0].isPunct("-") && toks[1].Kind == tNumber {
		return v, true
	}
	if len(toks) != 2 {
		return "", false
	}
	switch toks[0].Kind {
	case tIdent, tQuoted, tNumber, tString:
		return v, true
	}
	return "", false
}

// substError returns an error pointing at byte offset off of text.
func substError(text string, off int, code sqlerr.Code, format string, args ...any) error {
	before := text[:off]
	line := strings.Count(before, "\n") + 1
	col := off - strings.LastIndexByte(before, '\n')
	e := sqlerr.New(code, ast.Pos{Line: line, Col: col, Offset: off}, format, args...)
	end := strings.IndexByte(text[off:], '}')
	if end < 0 {
		end = len(text) - off - 1
	}
	e.Near = text[off : off+end+1]
	e.SQL = text
	return e
}
