package planner

import (
	"strings"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/types"
)

// InferredStatement is the text of CREATE s with the columns src got from
// the schema registry written out, as ksqlDB's schema injector rewrites
// the statement before it reaches the command topic: a replay then
// creates the same columns without asking the registry (which may be
// down, or hold a newer schema by then). It returns s's own text when
// nothing was inferred.
func InferredStatement(s *ast.CreateSource, src *Source) string {
	if !src.Inferred {
		return s.Text()
	}
	var b strings.Builder
	b.WriteString("CREATE ")
	if s.OrReplace {
		b.WriteString("OR REPLACE ")
	}
	if s.Source {
		b.WriteString("SOURCE ")
	}
	if s.Global {
		b.WriteString("GLOBAL ")
	}
	b.WriteString(strings.ToUpper(s.Kind.String()) + " ")
	if s.IfNotExists {
		b.WriteString("IF NOT EXISTS ")
	}
	b.WriteString(quoteName(s.Name) + " (")
	for i, c := range src.Schema.Columns {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(quoteName(c.Name) + " " + c.Type.String() + columnSuffix(c, s.Kind))
	}
	b.WriteString(") WITH (")
	for i, p := range s.Props {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(p.Name + "=" + ast.FormatExpr(p.Value))
	}
	b.WriteString(");")
	return b.String()
}

func quoteName(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

func columnSuffix(c types.Column, kind ast.SourceKind) string {
	switch {
	case c.NS == types.KeyNS && kind == ast.Table:
		return " PRIMARY KEY"
	case c.NS == types.KeyNS:
		return " KEY"
	case c.NS == types.HeaderNS && c.HeaderKey != "":
		return " HEADER('" + strings.ReplaceAll(c.HeaderKey, "'", "''") + "')"
	case c.NS == types.HeaderNS:
		return " HEADERS"
	}
	return ""
}
