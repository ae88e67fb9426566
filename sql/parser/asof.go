package parser

import (
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
)

// asOfHint is what an AS OF clause takes, for error messages.
const asOfHint = "a column of the stream side such as o.ROWTIME"

// maybeAsOf parses `FOR SYSTEM_TIME AS OF col` after a source name (Flink
// SQL's spelling of an as-of join), lifting it out of the text TiDB sees.
// Only a JOIN's source may have one.
func (p *parser) maybeAsOf(qs *queryState) error {
	if !p.atKw("FOR") || !p.toks[p.i+1].is("SYSTEM_TIME") {
		return nil
	}
	t := p.next()
	if !qs.inJoin {
		return p.errAt(t, sqlerr.Syntax, "FOR SYSTEM_TIME AS OF belongs to the table after JOIN, not to the FROM source")
	}
	p.next() // SYSTEM_TIME
	if err := p.expect("AS", "OF"); err != nil {
		return err
	}
	ref, err := p.asOfColumn()
	if err != nil {
		return err
	}
	qs.asOf = &ast.AsOf{P: t.P, Time: ref, Grace: -1}
	return nil
}

// asOfColumn parses `[source.]column`: an as-of join's time is a column,
// not an expression.
func (p *parser) asOfColumn() (*ast.ColumnRef, error) {
	if p.atKw("ON") || p.atKw("GRACE") {
		return nil, p.expected(asOfHint)
	}
	first, ft, err := p.name(asOfHint)
	if err != nil {
		return nil, err
	}
	ref := &ast.ColumnRef{P: ft.P, Name: first}
	if p.acceptPunct(".") {
		if ref.Name, _, err = p.name("a column name after '.'"); err != nil {
			return nil, err
		}
		ref.Source = first
	}
	if n := p.peek(); n.Kind != tIdent && n.Kind != tQuoted {
		return nil, p.errAt(n, sqlerr.Syntax, "FOR SYSTEM_TIME AS OF takes %s, not an expression", asOfHint)
	}
	return ref, nil
}

// asOfGrace parses the optional GRACE PERIOD of an as-of join (after its
// alias): how long stream rows wait for late table updates. WITHIN makes
// no sense there.
func (p *parser) asOfGrace(a *ast.AsOf) error {
	if p.atKw("WITHIN") {
		return p.errAt(p.peek(), sqlerr.Syntax, "an as-of join (FOR SYSTEM_TIME AS OF) takes no WITHIN clause, only GRACE PERIOD")
	}
	if !p.accept("GRACE") {
		return nil
	}
	g, err := p.gracePeriod()
	a.Grace = g
	return err
}
