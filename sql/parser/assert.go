package parser

import (
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
)

// assert parses ASSERT [NOT EXISTS] SCHEMA [SUBJECT name] [ID n]
// [TIMEOUT n unit]. The subject is a string, a quoted identifier or a
// bare one, each keeping its case (subject names are case-sensitive).
// Other ASSERT statements (TOPIC, the test runner's VALUES) are not
// supported.
func (p *parser) assert() (ast.Statement, error) {
	start := p.i
	assert := p.next()
	st := &ast.AssertSchema{TimeoutMs: -1}
	if p.accept("NOT") {
		if err := p.expect("EXISTS"); err != nil {
			return nil, err
		}
		st.NotExists = true
	}
	if !p.accept("SCHEMA") {
		// ASSERT TOPIC, and the test runner's ASSERT VALUES / STREAM / TABLE
		return nil, p.unsupported(assert, "ASSERT "+p.peek().Raw)
	}
	if err := p.assertSchemaClauses(st); err != nil {
		return nil, err
	}
	if st.Subject == "" && st.ID == 0 {
		return nil, p.errAt(assert, sqlerr.Syntax, "ASSERT SCHEMA statements must include a subject name or an id")
	}
	st.Base = p.base(start)
	return st, nil
}

func (p *parser) assertSchemaClauses(st *ast.AssertSchema) error {
	if p.accept("SUBJECT") {
		t := p.next()
		switch t.Kind {
		case tIdent:
			st.Subject = t.Raw
		case tQuoted, tString:
			if t.Val == "" {
				return p.errAt(t, sqlerr.Syntax, "the subject name is empty")
			}
			st.Subject = t.Val
		default:
			p.i--
			return p.expected("a subject name")
		}
	}
	if p.accept("ID") {
		t := p.peek()
		id, err := p.smallInt("a schema id")
		if err != nil {
			return err
		}
		if id < 1 {
			return p.errAt(t, sqlerr.Syntax, "a schema id is a positive integer, got %d", id)
		}
		st.ID = id
	}
	if p.accept("TIMEOUT") {
		ms, err := p.duration()
		if err != nil {
			return err
		}
		st.TimeoutMs = ms
	}
	return nil
}
