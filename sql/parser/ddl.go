package parser

import (
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// createHead is what precedes the name in CREATE … STREAM|TABLE.
type createHead struct {
	start       int
	kind        ast.SourceKind
	orReplace   bool
	source      bool
	global      bool
	ifNotExists bool
}

// create parses CREATE [OR REPLACE] [SOURCE] STREAM|TABLE … with a column
// list or AS SELECT, and CREATE GLOBAL TABLE … with a column list.
func (p *parser) create() (ast.Statement, error) {
	h := createHead{start: p.i}
	p.next() // CREATE
	if p.atKw("GLOBAL") {
		return p.createGlobal(h)
	}
	if p.accept("OR") {
		if err := p.expect("REPLACE"); err != nil {
			return nil, err
		}
		h.orReplace = true
	}
	if p.atKw("SINK") || (p.atKw("SOURCE") && p.peekN(1).is("CONNECTOR")) {
		return p.createConnectorHead(h)
	}
	h.source = p.accept("SOURCE")
	switch t := p.next(); {
	case t.is("STREAM"):
		h.kind = ast.Stream
	case t.is("TABLE"):
		h.kind = ast.Table
	case t.is("TYPE") && !h.orReplace && !h.source:
		return p.createType(h.start)
	case t.is("CONNECTOR"):
		p.i--
		return nil, p.expected("SOURCE or SINK before CONNECTOR")
	default:
		p.i--
		return nil, p.expected("STREAM or TABLE")
	}
	if p.accept("IF") {
		if err := p.expect("NOT", "EXISTS"); err != nil {
			return nil, err
		}
		h.ifNotExists = true
	}
	return p.createBody(h)
}

// createConnectorHead parses CREATE SOURCE|SINK CONNECTOR (not after OR
// REPLACE, which the grammar does not give connectors).
func (p *parser) createConnectorHead(h createHead) (ast.Statement, error) {
	scope := ast.SourceConnector
	if p.next().is("SINK") {
		scope = ast.SinkConnector
	}
	if h.orReplace {
		return nil, p.errAt(p.toks[h.start], sqlerr.Syntax, "CREATE OR REPLACE does not apply to connectors")
	}
	if err := p.expect("CONNECTOR"); err != nil {
		return nil, err
	}
	return p.createConnector(h.start, scope)
}

// createGlobal parses CREATE GLOBAL TABLE [IF NOT EXISTS] name (…) WITH
// (…): a table over a topic only, as Kafka Streams' globalTable(topic).
func (p *parser) createGlobal(h createHead) (ast.Statement, error) {
	p.next() // GLOBAL
	h.global, h.kind = true, ast.Table
	if t := p.next(); !t.is("TABLE") {
		if t.is("STREAM") {
			return nil, p.errAt(t, sqlerr.Syntax, "Only tables can be GLOBAL: a global table is read whole by every task joining it; a stream is not")
		}
		p.i--
		return nil, p.expected("TABLE")
	}
	if p.accept("IF") {
		if err := p.expect("NOT", "EXISTS"); err != nil {
			return nil, err
		}
		h.ifNotExists = true
	}
	return p.createBody(h)
}

// createType parses CREATE TYPE [IF NOT EXISTS] name AS type and makes
// the type known to the rest of the text.
func (p *parser) createType(start int) (ast.Statement, error) {
	st := &ast.CreateType{}
	if p.accept("IF") {
		if err := p.expect("NOT", "EXISTS"); err != nil {
			return nil, err
		}
		st.IfNotExists = true
	}
	name, _, err := p.name("a type name")
	if err != nil {
		return nil, err
	}
	if err := p.expect("AS"); err != nil {
		return nil, err
	}
	if st.Type, err = p.typ(); err != nil {
		return nil, err
	}
	st.Name, st.Base = name, p.base(start)
	if p.s.customTypes == nil {
		p.s.customTypes = map[string]*types.Type{}
	}
	p.s.customTypes[name] = st.Type
	return st, nil
}

// createBody parses the name and the rest of a CREATE statement.
func (p *parser) createBody(h createHead) (ast.Statement, error) {
	name, _, err := p.name("a stream or table name")
	if err != nil {
		return nil, err
	}
	var cols []ast.ColumnDef
	if p.peek().isPunct("(") {
		if cols, err = p.columns(h.kind); err != nil {
			return nil, err
		}
	}
	props, err := p.withClause()
	if err != nil {
		return nil, err
	}
	if !p.atKw("AS") {
		return &ast.CreateSource{Base: p.base(h.start), Kind: h.kind, OrReplace: h.orReplace,
			IfNotExists: h.ifNotExists, Source: h.source, Global: h.global, Name: name, Columns: cols, Props: props}, nil
	}
	asTok := p.next()
	if h.global {
		return nil, p.errAt(asTok, sqlerr.Syntax, "CREATE GLOBAL TABLE cannot be AS SELECT: a global table reads a topic (Kafka Streams' globalTable(topic))")
	}
	if cols != nil {
		return nil, p.errAt(asTok, sqlerr.Syntax, "CREATE … AS SELECT cannot declare columns")
	}
	if h.source {
		return nil, p.errAt(asTok, sqlerr.Syntax, "CREATE SOURCE cannot be AS SELECT")
	}
	q, err := p.query(p.i)
	if err != nil {
		return nil, err
	}
	return &ast.CreateAsSelect{Base: p.base(h.start), Kind: h.kind, OrReplace: h.orReplace,
		IfNotExists: h.ifNotExists, Name: name, Props: props, Query: q}, nil
}

// columns parses (col type [constraint], …).
func (p *parser) columns(kind ast.SourceKind) ([]ast.ColumnDef, error) {
	p.next() // (
	var cols []ast.ColumnDef
	for {
		col, err := p.column()
		if err != nil {
			return nil, err
		}
		cols = append(cols, col)
		if p.acceptPunct(")") {
			return cols, nil
		}
		if err := p.expectPunct(","); err != nil {
			return nil, err
		}
	}
}

// column parses one `name type [KEY|PRIMARY KEY|HEADERS|HEADER('k')]`.
func (p *parser) column() (ast.ColumnDef, error) {
	name, t, err := p.name("a column name")
	if err != nil {
		return ast.ColumnDef{}, err
	}
	typ, err := p.typ()
	if err != nil {
		return ast.ColumnDef{}, err
	}
	col := ast.ColumnDef{P: t.P, Name: name, Type: typ}
	switch {
	case p.accept("KEY"):
		col.Constraint = ast.KeyColumn
	case p.accept("PRIMARY"):
		col.Constraint = ast.PrimaryKeyColumn
		err = p.expect("KEY")
	case p.accept("HEADERS"):
		col.Constraint = ast.HeadersColumn
	case p.accept("HEADER"):
		col.Constraint = ast.HeaderColumn
		col.HeaderKey, err = p.parenString("a header key")
	}
	return col, err
}

// parenString parses ('text').
func (p *parser) parenString(what string) (string, error) {
	if err := p.expectPunct("("); err != nil {
		return "", err
	}
	t := p.peek()
	if t.Kind != tString {
		return "", p.expected(what)
	}
	p.next()
	return t.Val, p.expectPunct(")")
}

// withClause parses an optional WITH (NAME = literal, …).
func (p *parser) withClause() (ast.Properties, error) {
	if !p.accept("WITH") {
		return nil, nil
	}
	if err := p.expectPunct("("); err != nil {
		return nil, err
	}
	var props ast.Properties
	for {
		prop, err := p.property()
		if err != nil {
			return nil, err
		}
		props = append(props, prop)
		if p.acceptPunct(")") {
			return props, nil
		}
		if err := p.expectPunct(","); err != nil {
			return nil, err
		}
	}
}

// property parses NAME = literal. Names are upper-cased, quoted or not.
func (p *parser) property() (ast.Property, error) {
	t := p.peek()
	if t.Kind != tIdent && t.Kind != tQuoted && t.Kind != tString {
		return ast.Property{}, p.expected("a property name")
	}
	p.next()
	if err := p.expectPunct("="); err != nil {
		return ast.Property{}, err
	}
	val, err := p.propertyValue()
	if err != nil {
		return ast.Property{}, err
	}
	return ast.Property{P: t.P, Name: upper(t.Val), Value: val}, nil
}

// propertyValue parses a string, number (optionally negative) or boolean.
func (p *parser) propertyValue() (*ast.Literal, error) {
	start := p.peek()
	neg := start.isPunct("-")
	if neg {
		p.next()
	}
	t := p.peek()
	lit, ok, err := p.literalOf(t)
	if err != nil {
		return nil, err
	}
	if !ok || t.is("NULL") || (neg && t.Kind != tNumber) {
		return nil, p.expected("a string, number or boolean")
	}
	p.next()
	if neg {
		lit = negate(lit, start.P)
	}
	return lit, nil
}

// insert parses INSERT INTO target [WITH (…)] SELECT … or INSERT INTO
// target [(columns)] VALUES (…).
func (p *parser) insert() (ast.Statement, error) {
	start := p.i
	p.next() // INSERT
	if err := p.expect("INTO"); err != nil {
		return nil, err
	}
	target, _, err := p.name("a stream or table name")
	if err != nil {
		return nil, err
	}
	if p.peek().isPunct("(") || p.atKw("VALUES") {
		return p.insertValues(start, target)
	}
	props, err := p.withClause()
	if err != nil {
		return nil, err
	}
	q, err := p.query(p.i)
	if err != nil {
		return nil, err
	}
	return &ast.InsertInto{Base: p.base(start), Target: target, Props: props, Query: q}, nil
}

func (p *parser) insertValues(start int, target string) (ast.Statement, error) {
	var cols []string
	if p.acceptPunct("(") {
		for {
			name, _, err := p.name("a column name")
			if err != nil {
				return nil, err
			}
			cols = append(cols, name)
			if p.acceptPunct(")") {
				break
			}
			if err := p.expectPunct(","); err != nil {
				return nil, err
			}
		}
	}
	if err := p.expect("VALUES"); err != nil {
		return nil, err
	}
	vals, err := p.valueList()
	if err != nil {
		return nil, err
	}
	return &ast.InsertValues{Base: p.base(start), Target: target, Columns: cols, Values: vals}, nil
}

// valueList parses ( expr, … ) through TiDB.
func (p *parser) valueList() ([]ast.Expr, error) {
	open := p.peek()
	if !open.isPunct("(") {
		return nil, p.expected("'('")
	}
	closeAt := p.matching(p.i)
	if closeAt < 0 {
		return nil, p.errAt(open, sqlerr.Syntax, "unbalanced parentheses")
	}
	exprs, err := p.exprList(p.i+1, closeAt)
	if err != nil {
		return nil, err
	}
	p.i = closeAt + 1
	return exprs, nil
}
