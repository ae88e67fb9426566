package parser

import (
	"github.com/sqlstream/sqlstream/sql/ast"
)

// createConnector parses the rest of CREATE SOURCE|SINK CONNECTOR [IF
// NOT EXISTS] name WITH (…), after CONNECTOR.
func (p *parser) createConnector(start int, scope ast.ConnectorScope) (ast.Statement, error) {
	st := &ast.CreateConnector{Scope: scope}
	if p.accept("IF") {
		if err := p.expect("NOT", "EXISTS"); err != nil {
			return nil, err
		}
		st.IfNotExists = true
	}
	name, _, err := p.name("a connector name")
	if err != nil {
		return nil, err
	}
	st.Name = name
	if err := p.expect("WITH"); err != nil {
		return nil, err
	}
	if st.Config, err = p.connectorConfig(); err != nil {
		return nil, err
	}
	st.Base = p.base(start)
	return st, nil
}

// connectorConfig parses (name = literal, …): a quoted or string name
// keeps its case ('connector.class'), a bare one is upper-cased, as
// ksqlDB's tableProperties.
func (p *parser) connectorConfig() (ast.ConnectorConfig, error) {
	if err := p.expectPunct("("); err != nil {
		return nil, err
	}
	var out ast.ConnectorConfig
	for {
		t := p.peek()
		if t.Kind != tIdent && t.Kind != tQuoted && t.Kind != tString {
			return nil, p.expected("a property name")
		}
		p.next()
		if err := p.expectPunct("="); err != nil {
			return nil, err
		}
		val, err := p.propertyValue()
		if err != nil {
			return nil, err
		}
		name := t.Val
		if t.Kind == tIdent {
			name = upper(t.Val)
		}
		out = append(out, ast.ConnectorProperty{P: t.P, Name: name, Value: val})
		if p.acceptPunct(")") {
			return out, nil
		}
		if err := p.expectPunct(","); err != nil {
			return nil, err
		}
	}
}

// showConnectors parses the rest of SHOW|LIST [SOURCE|SINK] CONNECTORS
// and SHOW|LIST CONNECTOR PLUGINS, the cursor on the word after SHOW.
func (p *parser) showConnectors(start int) (ast.Statement, error) {
	if p.accept("CONNECTOR") {
		if err := p.expect("PLUGINS"); err != nil {
			return nil, err
		}
		return &ast.ListConnectorPlugins{Base: p.base(start)}, nil
	}
	st := &ast.ListConnectors{}
	switch {
	case p.accept("SOURCE"):
		st.Scope = ast.SourceConnector
	case p.accept("SINK"):
		st.Scope = ast.SinkConnector
	}
	if err := p.expect("CONNECTORS"); err != nil {
		return nil, err
	}
	st.Base = p.base(start)
	return st, nil
}

// describeConnector parses the rest of DESCRIBE CONNECTOR name.
func (p *parser) describeConnector(start int) (ast.Statement, error) {
	p.next() // CONNECTOR
	name, _, err := p.name("a connector name")
	if err != nil {
		return nil, err
	}
	return &ast.DescribeConnector{Base: p.base(start), Name: name}, nil
}

// dropConnector parses the rest of DROP CONNECTOR [IF EXISTS] name.
func (p *parser) dropConnector(start int) (ast.Statement, error) {
	st := &ast.DropConnector{}
	if p.accept("IF") {
		if err := p.expect("EXISTS"); err != nil {
			return nil, err
		}
		st.IfExists = true
	}
	name, _, err := p.name("a connector name")
	if err != nil {
		return nil, err
	}
	st.Name = name
	st.Base = p.base(start)
	return st, nil
}
