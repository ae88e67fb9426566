package ast

import (
	"strconv"
	"strings"
)

// formatAlterAssertConnector writes ALTER, ASSERT TOPIC and the
// connector statements.
func formatAlterAssertConnector(b *strings.Builder, s Statement) {
	switch s := s.(type) {
	case *AlterSource:
		formatAlterSource(b, s)
	case *AlterSystem:
		b.WriteString("ALTER SYSTEM " + QuoteString(s.Name) + "=" + QuoteString(s.Value))
	case *AssertTopic:
		formatAssertTopic(b, s)
	case *CreateConnector:
		b.WriteString("CREATE " + s.Scope.String() + " CONNECTOR ")
		if s.IfNotExists {
			b.WriteString("IF NOT EXISTS ")
		}
		b.WriteString(QuoteName(s.Name))
		formatConnectorConfig(b, s.Config)
	case *DropConnector:
		b.WriteString("DROP CONNECTOR ")
		if s.IfExists {
			b.WriteString("IF EXISTS ")
		}
		b.WriteString(QuoteName(s.Name))
	case *DescribeConnector:
		b.WriteString("DESCRIBE CONNECTOR " + QuoteName(s.Name))
	case *ListConnectors:
		b.WriteString("SHOW ")
		if s.Scope != AnyConnector {
			b.WriteString(s.Scope.String() + " ")
		}
		b.WriteString("CONNECTORS")
	case *ListConnectorPlugins:
		b.WriteString("SHOW CONNECTOR PLUGINS")
	}
}

func formatAlterSource(b *strings.Builder, s *AlterSource) {
	b.WriteString("ALTER " + s.Kind.String() + " " + QuoteName(s.Name))
	for i, c := range s.Columns {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(" ADD COLUMN " + QuoteName(c.Name) + " " + c.Type.String())
	}
}

func formatAssertTopic(b *strings.Builder, s *AssertTopic) {
	b.WriteString("ASSERT ")
	if s.NotExists {
		b.WriteString("NOT EXISTS ")
	}
	b.WriteString("TOPIC " + QuoteString(s.Topic))
	formatProps(b, s.Props)
	if s.TimeoutMs >= 0 {
		b.WriteString(" TIMEOUT " + strconv.FormatInt(s.TimeoutMs, 10) + " MILLISECONDS")
	}
}

// formatConnectorConfig writes WITH (…) with every name quoted, so its
// case survives a round trip.
func formatConnectorConfig(b *strings.Builder, c ConnectorConfig) {
	b.WriteString(" WITH (")
	for i, p := range c {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(QuoteString(p.Name) + "=" + formatLiteral(p.Value))
	}
	b.WriteString(")")
}
