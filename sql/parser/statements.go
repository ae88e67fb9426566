package parser

import (
	"strings"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
)

func upper(s string) string { return strings.ToUpper(s) }

// show parses SHOW|LIST <what> [EXTENDED].
func (p *parser) show() (ast.Statement, error) {
	start := p.i
	p.next()
	if t := p.peek(); keywordSet(" CONNECTORS CONNECTOR SOURCE SINK ", t.Val) && t.Kind == tIdent {
		return p.showConnectors(start)
	}
	st := &ast.Show{All: p.accept("ALL")}
	t := p.next()
	what, ok := showKind(t.Val)
	if t.Kind != tIdent || !ok {
		p.i--
		return nil, p.expected("STREAMS, TABLES, TOPICS, QUERIES, PROPERTIES, FUNCTIONS, TYPES or VARIABLES")
	}
	if st.All && what != ast.ShowTopics {
		return nil, p.errAt(t, sqlerr.Syntax, "ALL only applies to TOPICS")
	}
	st.What = what
	if ext := p.peek(); ext.is("EXTENDED") && !extendable(what) {
		return nil, p.errAt(ext, sqlerr.Syntax, "EXTENDED only applies to STREAMS, TABLES, TOPICS and QUERIES")
	}
	st.Extended = p.accept("EXTENDED")
	st.Base = p.base(start)
	return st, nil
}

// extendable reports whether SHOW of what takes EXTENDED, as in ksqlDB's
// grammar.
func extendable(what ast.ShowKind) bool {
	switch what {
	case ast.ShowStreams, ast.ShowTables, ast.ShowTopics, ast.ShowQueries:
		return true
	}
	return false
}

func showKind(word string) (ast.ShowKind, bool) {
	switch word {
	case "STREAMS":
		return ast.ShowStreams, true
	case "TABLES":
		return ast.ShowTables, true
	case "TOPICS":
		return ast.ShowTopics, true
	case "QUERIES":
		return ast.ShowQueries, true
	case "PROPERTIES":
		return ast.ShowProperties, true
	case "FUNCTIONS":
		return ast.ShowFunctions, true
	case "TYPES":
		return ast.ShowTypes, true
	case "VARIABLES":
		return ast.ShowVariables, true
	}
	return 0, false
}

// describe parses DESCRIBE [EXTENDED] name [EXTENDED], DESCRIBE
// STREAMS|TABLES [EXTENDED] and DESCRIBE FUNCTION name.
func (p *parser) describe() (ast.Statement, error) {
	start := p.i
	p.next()
	if p.atKw("CONNECTOR") && p.peekN(1).Kind != tEOF {
		return p.describeConnector(start)
	}
	if p.atKw("FUNCTION") && p.peekN(1).Kind != tEOF {
		p.next()
		name, _, err := p.name("a function name")
		if err != nil {
			return nil, err
		}
		return &ast.DescribeFunction{Base: p.base(start), Name: upper(name)}, nil
	}
	st := &ast.Describe{Extended: p.accept("EXTENDED")}
	switch {
	case p.atKw("STREAMS") && p.allowsListEnd():
		p.next()
		st.All, st.Kind = true, ast.Stream
	case p.atKw("TABLES") && p.allowsListEnd():
		p.next()
		st.All, st.Kind = true, ast.Table
	default:
		name, _, err := p.name("a stream or table name")
		if err != nil {
			return nil, err
		}
		st.Name = name
	}
	if p.accept("EXTENDED") {
		st.Extended = true
	}
	st.Base = p.base(start)
	return st, nil
}

// allowsListEnd reports whether the token after the cursor ends a
// DESCRIBE STREAMS|TABLES statement (so STREAMS is not a source name).
func (p *parser) allowsListEnd() bool {
	n := p.peekN(1)
	return n.Kind == tEOF || n.is("EXTENDED")
}

// explain parses EXPLAIN <statement> | EXPLAIN query_id.
func (p *parser) explain() (ast.Statement, error) {
	start := p.i
	p.next()
	t := p.peek()
	if t.is("SELECT") || t.is("CREATE") || t.is("INSERT") {
		inner, err := p.statement()
		if err != nil {
			return nil, err
		}
		return &ast.Explain{Base: p.base(start), Statement: inner}, nil
	}
	id, _, err := p.name("a statement or a query id")
	if err != nil {
		return nil, err
	}
	return &ast.Explain{Base: p.base(start), QueryID: id}, nil
}

// drop parses DROP STREAM|TABLE [IF EXISTS] name [DELETE TOPIC].
func (p *parser) drop() (ast.Statement, error) {
	start := p.i
	p.next()
	st := &ast.Drop{}
	switch t := p.next(); {
	case t.is("STREAM"):
		st.Kind = ast.Stream
	case t.is("TABLE"):
		st.Kind = ast.Table
	case t.is("TYPE"):
		return p.dropType(start)
	case t.is("CONNECTOR"):
		return p.dropConnector(start)
	default:
		p.i--
		return nil, p.expected("STREAM or TABLE")
	}
	if p.accept("IF") {
		if err := p.expect("EXISTS"); err != nil {
			return nil, err
		}
		st.IfExists = true
	}
	name, _, err := p.name("a stream or table name")
	if err != nil {
		return nil, err
	}
	st.Name = name
	if p.accept("DELETE") {
		if err := p.expect("TOPIC"); err != nil {
			return nil, err
		}
		st.DeleteTopic = true
	}
	st.Base = p.base(start)
	return st, nil
}

// dropType parses DROP TYPE [IF EXISTS] name.
func (p *parser) dropType(start int) (ast.Statement, error) {
	st := &ast.DropType{}
	if p.accept("IF") {
		if err := p.expect("EXISTS"); err != nil {
			return nil, err
		}
		st.IfExists = true
	}
	name, _, err := p.name("a type name")
	if err != nil {
		return nil, err
	}
	st.Name, st.Base = name, p.base(start)
	delete(p.s.customTypes, name)
	return st, nil
}

// terminate parses TERMINATE query_id | ALL.
func (p *parser) terminate() (ast.Statement, error) {
	start := p.i
	p.next()
	if p.atKw("ALL") && p.peekN(1).Kind == tEOF {
		p.next()
		return &ast.Terminate{Base: p.base(start), All: true}, nil
	}
	id, _, err := p.name("a query id or ALL")
	if err != nil {
		return nil, err
	}
	return &ast.Terminate{Base: p.base(start), QueryID: id}, nil
}

// pauseResume parses PAUSE|RESUME query_id | ALL, as TERMINATE's target.
func (p *parser) pauseResume(resume bool) (ast.Statement, error) {
	start := p.i
	p.next()
	var id string
	all := p.atKw("ALL") && p.peekN(1).Kind == tEOF
	if all {
		p.next()
	} else {
		var err error
		if id, _, err = p.name("a query id or ALL"); err != nil {
			return nil, err
		}
	}
	if resume {
		return &ast.Resume{Base: p.base(start), QueryID: id, All: all}, nil
	}
	return &ast.Pause{Base: p.base(start), QueryID: id, All: all}, nil
}

// print parses PRINT topic [FROM BEGINNING] [INTERVAL n] [LIMIT n]. The
// topic keeps its case whether quoted or not.
func (p *parser) print() (ast.Statement, error) {
	start := p.i
	p.next()
	t := p.next()
	st := &ast.Print{Limit: -1}
	switch t.Kind {
	case tIdent:
		if err := p.checkNotReserved(t); err != nil {
			return nil, err
		}
		st.Topic = t.Raw
	case tQuoted, tString:
		st.Topic = t.Val
	default:
		p.i--
		return nil, p.expected("a topic name")
	}
	if err := p.printOptions(st); err != nil {
		return nil, err
	}
	st.Base = p.base(start)
	return st, nil
}

func (p *parser) printOptions(st *ast.Print) error {
	var err error
	if p.accept("FROM") {
		if err := p.expect("BEGINNING"); err != nil {
			return err
		}
		st.FromBeginning = true
	}
	if p.accept("INTERVAL") || p.accept("SAMPLE") {
		if st.Interval, err = p.smallInt("an interval"); err != nil {
			return err
		}
	}
	if p.accept("LIMIT") {
		st.Limit, err = p.smallInt("a limit")
	}
	return err
}

// set parses SET 'name' = 'value'.
func (p *parser) set() (ast.Statement, error) {
	start := p.i
	p.next()
	name, val, err := p.propertyAssignment()
	if err != nil {
		return nil, err
	}
	return &ast.SetProperty{Base: p.base(start), Name: name, Value: val}, nil
}

// propertyAssignment parses 'name' = 'value', the property pair of SET
// and ALTER SYSTEM.
func (p *parser) propertyAssignment() (string, string, error) {
	name, err := p.stringLit("a property name in quotes")
	if err != nil {
		return "", "", err
	}
	if err := p.expectPunct("="); err != nil {
		return "", "", err
	}
	val, err := p.stringLit("a property value in quotes")
	if err != nil {
		return "", "", err
	}
	return name, val, nil
}

// unset parses UNSET 'name'.
func (p *parser) unset() (ast.Statement, error) {
	start := p.i
	p.next()
	name, err := p.stringLit("a property name in quotes")
	if err != nil {
		return nil, err
	}
	return &ast.UnsetProperty{Base: p.base(start), Name: name}, nil
}

// define parses DEFINE name = 'value'.
func (p *parser) define() (ast.Statement, error) {
	start := p.i
	p.next()
	name, _, err := p.name("a variable name")
	if err != nil {
		return nil, err
	}
	if err := p.expectPunct("="); err != nil {
		return nil, err
	}
	val, err := p.stringLit("a value in quotes")
	if err != nil {
		return nil, err
	}
	return &ast.Define{Base: p.base(start), Name: name, Value: val}, nil
}

// undefine parses UNDEFINE name.
func (p *parser) undefine() (ast.Statement, error) {
	start := p.i
	p.next()
	name, _, err := p.name("a variable name")
	if err != nil {
		return nil, err
	}
	return &ast.Undefine{Base: p.base(start), Name: name}, nil
}

// stringLit consumes a 'string' literal.
func (p *parser) stringLit(what string) (string, error) {
	t := p.peek()
	if t.Kind != tString {
		return "", p.expected(what)
	}
	p.next()
	return t.Val, nil
}
