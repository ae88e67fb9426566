package parser

import (
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
)

// assert parses ASSERT [NOT EXISTS] SCHEMA [SUBJECT name] [ID n]
// [TIMEOUT n unit] and ASSERT [NOT EXISTS] TOPIC name [WITH (…)]
// [TIMEOUT n unit]. A subject or topic is a string, a quoted identifier
// or a bare one, each keeping its case (ksqlDB's resourceName: subject
// and topic names are case-sensitive). The test runner's ASSERT VALUES /
// STREAM / TABLE are not supported on a server.
func (p *parser) assert() (ast.Statement, error) {
	start := p.i
	assert := p.next()
	notExists := false
	if p.accept("NOT") {
		if err := p.expect("EXISTS"); err != nil {
			return nil, err
		}
		notExists = true
	}
	if p.accept("TOPIC") {
		return p.assertTopic(start, notExists)
	}
	st := &ast.AssertSchema{TimeoutMs: -1, NotExists: notExists}
	if !p.accept("SCHEMA") {
		// the test runner's ASSERT VALUES / STREAM / TABLE
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

// assertTopic parses the rest of ASSERT [NOT EXISTS] TOPIC.
func (p *parser) assertTopic(start int, notExists bool) (ast.Statement, error) {
	st := &ast.AssertTopic{TimeoutMs: -1, NotExists: notExists}
	var err error
	if st.Topic, err = p.resourceName("topic"); err != nil {
		return nil, err
	}
	if st.Props, err = p.withClause(); err != nil {
		return nil, err
	}
	if p.accept("TIMEOUT") {
		if st.TimeoutMs, err = p.duration(); err != nil {
			return nil, err
		}
	}
	st.Base = p.base(start)
	return st, nil
}

// resourceName parses ksqlDB's resourceName: a bare name as written (not
// upper-cased), a quoted name or a string.
func (p *parser) resourceName(what string) (string, error) {
	t := p.peek()
	switch t.Kind {
	case tIdent:
		p.next()
		return t.Raw, nil
	case tQuoted, tString:
		if t.Val == "" {
			return "", p.errAt(t, sqlerr.Syntax, "the %s name is empty", what)
		}
		p.next()
		return t.Val, nil
	}
	return "", p.expected("a " + what + " name")
}

func (p *parser) assertSchemaClauses(st *ast.AssertSchema) error {
	if p.accept("SUBJECT") {
		subject, err := p.resourceName("subject")
		if err != nil {
			return err
		}
		st.Subject = subject
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
