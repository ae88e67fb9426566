package ast

import (
	"strconv"
	"strings"
)

var showText = [...]string{
	ShowStreams: "STREAMS", ShowTables: "TABLES", ShowTopics: "TOPICS", ShowQueries: "QUERIES",
	ShowProperties: "PROPERTIES", ShowFunctions: "FUNCTIONS", ShowTypes: "TYPES", ShowVariables: "VARIABLES",
}

// formatUtility writes the metadata and session statements.
func formatUtility(b *strings.Builder, s Statement) {
	switch s := s.(type) {
	case *Show:
		b.WriteString("SHOW ")
		if s.All {
			b.WriteString("ALL ")
		}
		b.WriteString(showText[s.What])
		b.WriteString(extended(s.Extended))
	case *Describe:
		formatDescribe(b, s)
	case *DescribeFunction:
		b.WriteString("DESCRIBE FUNCTION " + QuoteName(s.Name))
	case *Explain:
		b.WriteString("EXPLAIN ")
		if s.Statement != nil {
			formatStatement(b, s.Statement)
		} else {
			b.WriteString(QuoteName(s.QueryID))
		}
	case *Drop:
		formatDrop(b, s)
	case *CreateType:
		b.WriteString("CREATE TYPE ")
		if s.IfNotExists {
			b.WriteString("IF NOT EXISTS ")
		}
		b.WriteString(QuoteName(s.Name) + " AS " + s.Type.String())
	case *DropType:
		b.WriteString("DROP TYPE ")
		if s.IfExists {
			b.WriteString("IF EXISTS ")
		}
		b.WriteString(QuoteName(s.Name))
	default:
		formatSession(b, s)
	}
}

// queryTarget is a PAUSE or RESUME target: ALL or the query id.
func queryTarget(id string, all bool) string {
	if all {
		return "ALL"
	}
	return QuoteName(id)
}

func extended(e bool) string {
	if e {
		return " EXTENDED"
	}
	return ""
}

func formatDescribe(b *strings.Builder, s *Describe) {
	b.WriteString("DESCRIBE ")
	if s.All {
		b.WriteString(s.Kind.String() + "S")
	} else {
		b.WriteString(QuoteName(s.Name))
	}
	b.WriteString(extended(s.Extended))
}

func formatDrop(b *strings.Builder, s *Drop) {
	b.WriteString("DROP " + s.Kind.String() + " ")
	if s.IfExists {
		b.WriteString("IF EXISTS ")
	}
	b.WriteString(QuoteName(s.Name))
	if s.DeleteTopic {
		b.WriteString(" DELETE TOPIC")
	}
}

// formatSession writes TERMINATE, PAUSE, RESUME, PRINT, SET, UNSET, DEFINE
// and UNDEFINE.
func formatSession(b *strings.Builder, s Statement) {
	switch s := s.(type) {
	case *Terminate:
		if s.All {
			b.WriteString("TERMINATE ALL")
		} else {
			b.WriteString("TERMINATE " + QuoteName(s.QueryID))
		}
	case *Pause:
		b.WriteString("PAUSE " + queryTarget(s.QueryID, s.All))
	case *Resume:
		b.WriteString("RESUME " + queryTarget(s.QueryID, s.All))
	case *Print:
		formatPrint(b, s)
	case *SetProperty:
		b.WriteString("SET " + QuoteString(s.Name) + "=" + QuoteString(s.Value))
	case *UnsetProperty:
		b.WriteString("UNSET " + QuoteString(s.Name))
	case *Define:
		b.WriteString("DEFINE " + QuoteName(s.Name) + "=" + QuoteString(s.Value))
	case *Undefine:
		b.WriteString("UNDEFINE " + QuoteName(s.Name))
	case *AssertSchema:
		formatAssertSchema(b, s)
	default:
		formatAlterAssertConnector(b, s)
	}
}

func formatAssertSchema(b *strings.Builder, s *AssertSchema) {
	b.WriteString("ASSERT ")
	if s.NotExists {
		b.WriteString("NOT EXISTS ")
	}
	b.WriteString("SCHEMA")
	if s.Subject != "" {
		b.WriteString(" SUBJECT " + QuoteString(s.Subject))
	}
	if s.ID != 0 {
		b.WriteString(" ID " + strconv.Itoa(s.ID))
	}
	if s.TimeoutMs >= 0 {
		b.WriteString(" TIMEOUT " + strconv.FormatInt(s.TimeoutMs, 10) + " MILLISECONDS")
	}
}

func formatPrint(b *strings.Builder, s *Print) {
	b.WriteString("PRINT " + QuoteString(s.Topic))
	if s.FromBeginning {
		b.WriteString(" FROM BEGINNING")
	}
	if s.Interval > 0 {
		b.WriteString(" INTERVAL " + strconv.Itoa(s.Interval))
	}
	if s.Limit >= 0 {
		b.WriteString(" LIMIT " + strconv.Itoa(s.Limit))
	}
}
