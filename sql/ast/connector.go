package ast

// ConnectorScope is what a connector statement names: a source or a
// sink connector, or either.
type ConnectorScope uint8

const (
	// AnyConnector is SHOW CONNECTORS (source and sink).
	AnyConnector ConnectorScope = iota
	// SourceConnector is CREATE|SHOW SOURCE CONNECTOR(S).
	SourceConnector
	// SinkConnector is CREATE|SHOW SINK CONNECTOR(S).
	SinkConnector
)

// String is SOURCE, SINK or "".
func (s ConnectorScope) String() string {
	switch s {
	case SourceConnector:
		return "SOURCE"
	case SinkConnector:
		return "SINK"
	}
	return ""
}

// ConnectorConfig is a connector's WITH clause: names as written (a
// quoted 'connector.class' keeps its case, a bare name is upper-cased as
// ksqlDB's grammar does), values as text.
type ConnectorConfig []ConnectorProperty

// ConnectorProperty is one name = value of a connector's WITH clause.
type ConnectorProperty struct {
	P     Pos
	Name  string
	Value *Literal
}

// CreateConnector is CREATE SOURCE|SINK CONNECTOR [IF NOT EXISTS] name
// WITH (…), sent to Kafka Connect.
type CreateConnector struct {
	Base
	Scope       ConnectorScope // SourceConnector or SinkConnector
	IfNotExists bool
	Name        string
	Config      ConnectorConfig
}

// DropConnector is DROP CONNECTOR [IF EXISTS] name.
type DropConnector struct {
	Base
	IfExists bool
	Name     string
}

// DescribeConnector is DESCRIBE CONNECTOR name.
type DescribeConnector struct {
	Base
	Name string
}

// ListConnectors is SHOW|LIST [SOURCE|SINK] CONNECTORS.
type ListConnectors struct {
	Base
	Scope ConnectorScope
}

// ListConnectorPlugins is SHOW|LIST CONNECTOR PLUGINS.
type ListConnectorPlugins struct {
	Base
}

func (*CreateConnector) stmtNode()      {}
func (*DropConnector) stmtNode()        {}
func (*DescribeConnector) stmtNode()    {}
func (*ListConnectors) stmtNode()       {}
func (*ListConnectorPlugins) stmtNode() {}
func (*AlterSource) stmtNode()          {}
func (*AssertTopic) stmtNode()          {}
