package parser

import (
	"github.com/sqlstream/sqlstream/sql/ast"
)

// alter parses ALTER STREAM|TABLE name ADD [COLUMN] col type [, ADD …].
// ALTER SYSTEM 'name' = 'value' parses (the engine refuses it, as
// open-source ksqlDB does).
func (p *parser) alter() (ast.Statement, error) {
	start := p.i
	p.next()
	st := &ast.AlterSource{}
	switch t := p.next(); {
	case t.is("STREAM"):
		st.Kind = ast.Stream
	case t.is("TABLE"):
		st.Kind = ast.Table
	case t.is("SYSTEM"):
		return p.alterSystem(start)
	default:
		p.i--
		return nil, p.expected("STREAM or TABLE")
	}
	name, _, err := p.name("a stream or table name")
	if err != nil {
		return nil, err
	}
	st.Name = name
	for {
		col, err := p.alterOption()
		if err != nil {
			return nil, err
		}
		st.Columns = append(st.Columns, col)
		if !p.acceptPunct(",") {
			break
		}
	}
	st.Base = p.base(start)
	return st, nil
}

// alterOption parses ADD [COLUMN] name type.
func (p *parser) alterOption() (ast.AlterColumn, error) {
	if err := p.expect("ADD"); err != nil {
		return ast.AlterColumn{}, err
	}
	p.accept("COLUMN")
	name, t, err := p.name("a column name")
	if err != nil {
		return ast.AlterColumn{}, err
	}
	typ, err := p.typ()
	if err != nil {
		return ast.AlterColumn{}, err
	}
	return ast.AlterColumn{P: t.P, Name: name, Type: typ}, nil
}

// alterSystem parses the rest of ALTER SYSTEM 'name' = 'value'.
func (p *parser) alterSystem(start int) (ast.Statement, error) {
	name, val, err := p.propertyAssignment()
	if err != nil {
		return nil, err
	}
	return &ast.AlterSystem{Base: p.base(start), Name: name, Value: val}, nil
}
