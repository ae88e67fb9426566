package parser

import (
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
)

// Clause keywords that end an expression inside a SELECT (see clauseStop).
const (
	queryStops = " WINDOW WHERE GROUP PARTITION HAVING EMIT LIMIT "
	joinStops  = " JOIN INNER LEFT RIGHT FULL WITHIN GRACE ON "
)

// joinInfo is what the pre-pass lifts out of one JOIN: the type (FULL is
// sent to TiDB as LEFT) and the WITHIN/GRACE window.
type joinInfo struct {
	typ    ast.JoinType
	within *ast.JoinWindow
	asOf   *ast.AsOf
	p      ast.Pos
}

// queryState collects, while the SELECT is split into clauses, the
// rewritten SELECT core for TiDB and the lifted ksqlDB-only clauses.
type queryState struct {
	w      *rewriter
	q      *ast.Query
	tables []token // FROM/JOIN source name tokens, in order
	joins  []joinInfo
	inJoin bool      // tableRef is parsing a JOIN's source
	asOf   *ast.AsOf // what tableRef lifted from the JOIN's source
}

// query parses SELECT … at token start up to the end of the statement.
func (p *parser) query(start int) (*ast.Query, error) {
	if err := p.expect("SELECT"); err != nil {
		return nil, err
	}
	qs := &queryState{w: &rewriter{p: p}, q: &ast.Query{Limit: -1}}
	qs.w.emit("SELECT ", start)
	if err := p.selectItems(qs); err != nil {
		return nil, err
	}
	if err := p.from(qs); err != nil {
		return nil, err
	}
	if err := p.tailClauses(qs); err != nil {
		return nil, err
	}
	if !p.at(tEOF) {
		return nil, p.unexpected()
	}
	qs.q.Base = p.base(start)
	if err := p.convertQuery(qs); err != nil {
		return nil, err
	}
	return qs.q, nil
}

// clauseStop reports whether token i ends an expression: the end of the
// statement or one of the clause keywords in stops (multi-word ones only
// when followed by their second word).
func (p *parser) clauseStop(i int, stops string) bool {
	t := p.toks[i]
	if t.Kind == tEOF {
		return true
	}
	if t.Kind != tIdent || !keywordSet(stops, t.Val) {
		return false
	}
	next := p.toks[min(i+1, len(p.toks)-1)]
	switch t.Val {
	case "FROM":
		return i == 0 || !p.toks[i-1].is("DISTINCT")
	case "GROUP", "PARTITION":
		return next.is("BY")
	case "LEFT", "RIGHT", "FULL":
		return next.is("JOIN") || next.is("OUTER")
	case "INNER":
		return next.is("JOIN")
	case "EMIT":
		return next.is("CHANGES") || next.is("FINAL")
	case "WINDOW":
		return next.Kind == tIdent
	}
	return true
}

// scanTo returns the index of the first top-level token from the cursor
// that clauseStop accepts.
func (p *parser) scanTo(stops string) int {
	for i := p.i; ; i++ {
		t := p.toks[i]
		if (t.isPunct("(") || t.isPunct("[")) && p.matching(i) > 0 {
			i = p.matching(i)
			continue
		}
		if p.clauseStop(i, stops) {
			return i
		}
	}
}

// exprClause rewrites the expression from the cursor up to the next stop
// word, after emitting kw, and moves the cursor there.
func (p *parser) exprClause(qs *queryState, kw, stops string) error {
	end := p.scanTo(stops)
	if end == p.i {
		return p.expected("an expression")
	}
	qs.w.emit(kw, p.i)
	if err := qs.w.expr(p.i, end); err != nil {
		return err
	}
	p.i = end
	return nil
}

// byClause is exprClause for GROUP BY and PARTITION BY lists: each item
// is parenthesized so TiDB does not read a number as a column position.
func (p *parser) byClause(qs *queryState, kw, stops string) error {
	end := p.scanTo(stops)
	if end == p.i+2 && p.toks[p.i].isPunct("(") && p.toks[p.i+1].isPunct(")") {
		// The grammar's empty list; ksqlDB's GroupBy/PartitionBy refuse it.
		return p.errAt(p.toks[p.i], sqlerr.Syntax, "%s BY requires at least one expression", p.toks[p.i-2].Val)
	}
	ranges, err := qs.w.splitCommas(p.i, end)
	if err != nil {
		return err
	}
	if len(ranges) == 0 {
		return p.expected("an expression")
	}
	qs.w.emit(kw, p.i)
	err = qs.w.list(ranges, func(a, b int) error {
		if err := p.valueExpression(a, b); err != nil {
			return err
		}
		qs.w.emit("(", a)
		defer qs.w.emit(")", b-1)
		return qs.w.expr(a, b)
	})
	p.i = end
	return err
}

// valueExpression rejects a GROUP BY or PARTITION BY item that is a
// condition rather than a value: ksqlDB's grammar allows only value
// expressions there, unless parenthesized.
func (p *parser) valueExpression(a, b int) error {
	for i := a; i < b; i++ {
		t := p.toks[i]
		if (t.isPunct("(") || t.isPunct("[")) && p.matching(i) > i {
			i = p.matching(i)
			continue
		}
		if isCondition(t) {
			return p.errAt(t, sqlerr.Syntax, "syntax error: a condition is not allowed here")
		}
	}
	return nil
}

// isCondition reports whether t is a comparison or logical operator.
func isCondition(t token) bool {
	switch t.Kind {
	case tIdent:
		return keywordSet(" AND OR NOT IS IN LIKE BETWEEN ", t.Val)
	case tPunct:
		return keywordSet(" = <> != < <= > >= ", t.Val)
	}
	return false
}

func (p *parser) selectItems(qs *queryState) error {
	end := p.scanTo(" FROM ")
	if end == p.i {
		return p.expected("a select item")
	}
	if err := qs.w.expr(p.i, end); err != nil {
		return err
	}
	p.i = end
	return p.expect("FROM")
}

// from parses the FROM relation and its joins.
func (p *parser) from(qs *queryState) error {
	qs.w.emit(" FROM ", p.i-1)
	if err := p.tableRef(qs); err != nil {
		return err
	}
	for p.atJoin() {
		if err := p.join(qs); err != nil {
			return err
		}
	}
	return nil
}

func (p *parser) atJoin() bool {
	return p.atKw("JOIN") || p.atClause(" INNER LEFT RIGHT FULL ")
}

// atClause reports whether the cursor is at one of the clause keywords in
// stops (not at the end of the statement).
func (p *parser) atClause(stops string) bool {
	return p.at(tIdent) && p.clauseStop(p.i, stops)
}

// keywordAlias reports whether the clause keyword at i is a source's
// alias instead, as ksqlDB's parser reads it: EMIT and PARTITION are
// non-reserved, and one followed by another clause or a join cannot
// start its own (FROM s emit JOIN …). Any other EMIT or PARTITION starts
// its clause, whose errors then say what it lacks.
func (p *parser) keywordAlias(i int) bool {
	t, next := p.toks[i], p.toks[min(i+1, len(p.toks)-1)]
	return (t.is("EMIT") || t.is("PARTITION")) && next.Kind == tIdent && keywordSet(queryStops+joinStops, next.Val)
}

// tableRef parses `name [[AS] alias]`.
func (p *parser) tableRef(qs *queryState) error {
	name, t, err := p.name("a source name")
	if err != nil {
		return err
	}
	qs.tables = append(qs.tables, t)
	qs.w.emit(quoteIdent(name), p.i-1)
	if err := p.maybeAsOf(qs); err != nil {
		return err
	}
	explicit := p.accept("AS")
	n := p.peek()
	if !explicit && n.Kind != tQuoted && (n.Kind != tIdent || keywordSet(queryStops+joinStops+" OUTER ", n.Val) && !p.keywordAlias(p.i)) {
		return nil
	}
	alias, _, err := p.name("an alias")
	if err != nil {
		return err
	}
	qs.w.emit(" AS "+quoteIdent(alias), p.i-1)
	return nil
}

// join parses [INNER|LEFT [OUTER]|RIGHT [OUTER]|FULL [OUTER]] JOIN source
// [FOR SYSTEM_TIME AS OF col [[AS] alias] [GRACE PERIOD …]]
// [WITHIN …] [GRACE PERIOD …] ON expr.
func (p *parser) join(qs *queryState) error {
	info := joinInfo{typ: ast.InnerJoin, p: p.peek().P}
	kw := " JOIN "
	t := p.next()
	switch t.Val {
	case "LEFT":
		info.typ, kw = ast.LeftJoin, " LEFT JOIN "
	case "RIGHT":
		info.typ, kw = ast.RightJoin, " RIGHT JOIN "
	case "FULL":
		info.typ, kw = ast.FullJoin, " LEFT JOIN "
	}
	if info.typ != ast.InnerJoin {
		p.accept("OUTER")
	}
	if !t.is("JOIN") {
		if err := p.expect("JOIN"); err != nil {
			return err
		}
	}
	qs.w.emit(kw, p.i-1)
	qs.inJoin = true
	err := p.tableRef(qs)
	qs.inJoin = false
	if err != nil {
		return err
	}
	if info.asOf, qs.asOf = qs.asOf, nil; info.asOf != nil {
		err = p.asOfGrace(info.asOf)
	} else {
		info.within, err = p.joinWindow()
	}
	if err != nil {
		return err
	}
	qs.joins = append(qs.joins, info)
	if err := p.expect("ON"); err != nil {
		return err
	}
	return p.exprClause(qs, " ON ", queryStops+joinStops)
}

// joinWindow parses [WITHIN n unit | WITHIN (n unit, n unit)] [GRACE
// PERIOD n unit].
func (p *parser) joinWindow() (*ast.JoinWindow, error) {
	if !p.atKw("WITHIN") {
		if p.atKw("GRACE") {
			return nil, p.errAt(p.peek(), sqlerr.Syntax, "GRACE PERIOD needs a WITHIN clause")
		}
		return nil, nil
	}
	p.next()
	jw := &ast.JoinWindow{Grace: -1}
	var err error
	if p.acceptPunct("(") {
		if jw.Before, err = p.duration(); err != nil {
			return nil, err
		}
		if err := p.expectPunct(","); err != nil {
			return nil, err
		}
		if jw.After, err = p.duration(); err != nil {
			return nil, err
		}
		err = p.expectPunct(")")
	} else {
		jw.Before, err = p.duration()
		jw.After = jw.Before
	}
	if err == nil && p.accept("GRACE") {
		jw.Grace, err = p.gracePeriod()
	}
	return jw, err
}

// gracePeriod parses PERIOD n unit (after GRACE).
func (p *parser) gracePeriod() (int64, error) {
	if err := p.expect("PERIOD"); err != nil {
		return 0, err
	}
	return p.duration()
}

// tailClauses parses [WINDOW …] [WHERE …] [GROUP BY …] [PARTITION BY …]
// [HAVING …] [EMIT CHANGES|FINAL] [LIMIT n], in that order.
func (p *parser) tailClauses(qs *queryState) error {
	var err error
	if p.atClause(" WINDOW ") {
		p.next()
		if qs.q.Window, err = p.window(); err != nil {
			return err
		}
	}
	steps := []struct{ kw, sql string }{
		{"WHERE", " WHERE "}, {"GROUP", " GROUP BY "}, {"PARTITION", " ORDER BY "}, {"HAVING", " HAVING "},
	}
	for _, s := range steps {
		if !p.atClause(" " + s.kw + " ") {
			continue
		}
		p.next()
		if s.kw == "GROUP" || s.kw == "PARTITION" {
			p.next() // BY
		}
		each := p.exprClause
		if s.kw == "GROUP" || s.kw == "PARTITION" {
			each = p.byClause
		}
		if err := each(qs, s.sql, queryStops); err != nil {
			return err
		}
	}
	return p.emitAndLimit(qs.q)
}

func (p *parser) emitAndLimit(q *ast.Query) error {
	if p.accept("EMIT") {
		switch {
		case p.accept("CHANGES"):
			q.Emit = ast.EmitChanges
		case p.accept("FINAL"):
			q.Emit = ast.EmitFinal
		default:
			return p.expected("CHANGES or FINAL")
		}
	}
	if p.accept("LIMIT") {
		neg := p.peek().isPunct("-") && p.peekN(1).Kind == tNumber
		if neg {
			p.next()
		}
		n, err := p.smallInt("a row count")
		if err != nil {
			return err
		}
		q.Limit = n
		if neg && n > 0 { // the planner refuses it, in ksqlDB's words for a pull query
			q.Limit, q.NegativeLimit = -1, -n
		}
	}
	return nil
}
