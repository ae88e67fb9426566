package ast

import (
	"strconv"
	"strings"
)

// FormatStatement returns the canonical SQL of s (without a trailing
// semicolon). Parsing the result gives the same tree.
func FormatStatement(s Statement) string {
	var b strings.Builder
	formatStatement(&b, s)
	return b.String()
}

func formatStatement(b *strings.Builder, s Statement) {
	switch s := s.(type) {
	case *CreateSource:
		formatCreateSource(b, s)
	case *CreateAsSelect:
		formatCreateHead(b, s.OrReplace, false, s.Kind, s.IfNotExists, s.Name)
		formatProps(b, s.Props)
		b.WriteString(" AS ")
		formatQuery(b, s.Query)
	case *InsertInto:
		b.WriteString("INSERT INTO " + QuoteName(s.Target))
		formatProps(b, s.Props)
		b.WriteString(" ")
		formatQuery(b, s.Query)
	case *InsertValues:
		formatInsertValues(b, s)
	case *Query:
		formatQuery(b, s)
	default:
		formatUtility(b, s)
	}
}

func formatCreateHead(b *strings.Builder, orReplace, source bool, kind SourceKind, ifNotExists bool, name string) {
	b.WriteString("CREATE ")
	if orReplace {
		b.WriteString("OR REPLACE ")
	}
	if source {
		b.WriteString("SOURCE ")
	}
	formatKindName(b, kind, ifNotExists, name)
}

func formatKindName(b *strings.Builder, kind SourceKind, ifNotExists bool, name string) {
	b.WriteString(kind.String() + " ")
	if ifNotExists {
		b.WriteString("IF NOT EXISTS ")
	}
	b.WriteString(QuoteName(name))
}

func formatCreateSource(b *strings.Builder, s *CreateSource) {
	if s.Global {
		b.WriteString("CREATE GLOBAL ")
		formatKindName(b, s.Kind, s.IfNotExists, s.Name)
	} else {
		formatCreateHead(b, s.OrReplace, s.Source, s.Kind, s.IfNotExists, s.Name)
	}
	if len(s.Columns) > 0 {
		b.WriteString(" (")
		for i, c := range s.Columns {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(QuoteName(c.Name) + " " + c.Type.String())
			b.WriteString(constraintText(c))
		}
		b.WriteString(")")
	}
	formatProps(b, s.Props)
}

func constraintText(c ColumnDef) string {
	switch c.Constraint {
	case KeyColumn:
		return " KEY"
	case PrimaryKeyColumn:
		return " PRIMARY KEY"
	case HeadersColumn:
		return " HEADERS"
	case HeaderColumn:
		return " HEADER(" + QuoteString(c.HeaderKey) + ")"
	}
	return ""
}

func formatProps(b *strings.Builder, ps Properties) {
	if len(ps) == 0 {
		return
	}
	b.WriteString(" WITH (")
	for i, p := range ps {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(p.Name + "=" + formatLiteral(p.Value))
	}
	b.WriteString(")")
}

func formatInsertValues(b *strings.Builder, s *InsertValues) {
	b.WriteString("INSERT INTO " + QuoteName(s.Target) + " ")
	if len(s.Columns) > 0 {
		b.WriteString("(")
		for i, c := range s.Columns {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(QuoteName(c))
		}
		b.WriteString(") ")
	}
	b.WriteString("VALUES (")
	formatList(b, s.Values)
	b.WriteString(")")
}

// FormatQuery returns the canonical SQL of a query.
func formatQuery(b *strings.Builder, q *Query) {
	b.WriteString("SELECT ")
	for i, it := range q.Items {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(FormatSelectItem(it))
	}
	b.WriteString(" FROM ")
	formatRelation(b, q.From)
	if q.Window != nil {
		b.WriteString(" WINDOW " + FormatWindow(q.Window))
	}
	formatClause(b, " WHERE ", q.Where)
	formatExprs(b, " GROUP BY ", q.GroupBy)
	formatExprs(b, " PARTITION BY ", q.PartitionBy)
	formatClause(b, " HAVING ", q.Having)
	switch q.Emit {
	case EmitChanges:
		b.WriteString(" EMIT CHANGES")
	case EmitFinal:
		b.WriteString(" EMIT FINAL")
	}
	if q.Limit >= 0 {
		b.WriteString(" LIMIT " + strconv.Itoa(q.Limit))
	}
	if q.NegativeLimit < 0 {
		b.WriteString(" LIMIT " + strconv.Itoa(q.NegativeLimit))
	}
}

func formatClause(b *strings.Builder, kw string, e Expr) {
	if e != nil {
		b.WriteString(kw)
		formatExpr(b, e)
	}
}

func formatExprs(b *strings.Builder, kw string, es []Expr) {
	if len(es) > 0 {
		b.WriteString(kw)
		formatList(b, es)
	}
}

// FormatSelectItem returns the SQL of one select item.
func FormatSelectItem(it SelectItem) string {
	var s string
	switch {
	case it.Star && it.Source != "":
		s = QuoteName(it.Source) + ".*"
	case it.Star:
		s = "*"
	case it.StructStar:
		s = FormatExpr(it.Expr) + "->*"
	default:
		s = FormatExpr(it.Expr)
	}
	if it.Alias != "" {
		s += " AS " + QuoteName(it.Alias)
	}
	return s
}

var joinText = [...]string{InnerJoin: " INNER JOIN ", LeftJoin: " LEFT JOIN ", RightJoin: " RIGHT JOIN ", FullJoin: " FULL JOIN "}

func formatRelation(b *strings.Builder, r Relation) {
	switch r := r.(type) {
	case *TableRef:
		b.WriteString(QuoteName(r.Name))
		if r.Alias != "" {
			b.WriteString(" " + QuoteName(r.Alias))
		}
	case *Join:
		formatRelation(b, r.Left)
		b.WriteString(joinText[r.Type])
		formatRight(b, r)
		if r.Within != nil {
			b.WriteString(" " + formatJoinWindow(r.Within))
		}
		b.WriteString(" ON ")
		formatExpr(b, r.On)
	}
}

func formatJoinWindow(w *JoinWindow) string {
	s := "WITHIN " + FormatDuration(w.Before)
	if w.After != w.Before {
		s = "WITHIN (" + FormatDuration(w.Before) + ", " + FormatDuration(w.After) + ")"
	}
	if w.Grace >= 0 {
		s += " GRACE PERIOD " + FormatDuration(w.Grace)
	}
	return s
}

var windowText = [...]string{Tumbling: "TUMBLING", Hopping: "HOPPING", Session: "SESSION", Sliding: "SLIDING"}

// FormatWindow returns the SQL of a WINDOW clause after the keyword, e.g.
// `TUMBLING (SIZE 5 MINUTES, GRACE PERIOD 1 MINUTE)`.
func FormatWindow(w *WindowExpr) string {
	var opts []string
	if w.Kind == Session {
		opts = append(opts, FormatDuration(w.Size))
	} else {
		opts = append(opts, "SIZE "+FormatDuration(w.Size))
	}
	if w.Kind == Hopping {
		opts = append(opts, "ADVANCE BY "+FormatDuration(w.Advance))
	}
	if w.Retention >= 0 {
		opts = append(opts, "RETENTION "+FormatDuration(w.Retention))
	}
	if w.Grace >= 0 {
		opts = append(opts, "GRACE PERIOD "+FormatDuration(w.Grace))
	}
	return windowText[w.Kind] + " (" + strings.Join(opts, ", ") + ")"
}

// FormatDuration renders milliseconds in the largest whole unit, e.g.
// `5 MINUTES`, `1 HOUR`, `1500 MILLISECONDS`, `0 SECONDS`.
func FormatDuration(ms int64) string {
	units := [...]struct {
		ms   int64
		name string
	}{{86400000, "DAY"}, {3600000, "HOUR"}, {60000, "MINUTE"}, {1000, "SECOND"}, {1, "MILLISECOND"}}
	for _, u := range units {
		if ms%u.ms == 0 && (ms != 0 || u.ms == 1000) {
			n := ms / u.ms
			if n == 1 {
				return "1 " + u.name
			}
			return strconv.FormatInt(n, 10) + " " + u.name + "S"
		}
	}
	return strconv.FormatInt(ms, 10) + " MILLISECONDS"
}
