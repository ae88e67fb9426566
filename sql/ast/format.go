package ast

import (
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"
)

// ReservedWords are ksqlDB's reserved keywords, space separated: the
// keywords of its grammar (SqlBase.g4) that are not in its nonReserved
// rule. Unquoted, they cannot be names; backticked or double-quoted they
// can. Words ksqlDB leaves non-reserved (KEY, DAY, HOUR, DATE, TIMESTAMP,
// STRUCT, MAP, ARRAY, SESSION, EMIT, CHANGES, FINAL, GRACE, PERIOD,
// PARTITION, …) stay usable.
const ReservedWords = " SELECT FROM AS ALL DISTINCT WHERE WITHIN WINDOW GROUP BY HAVING LIMIT AT" +
	" OR AND IN NOT EXISTS BETWEEN LIKE IS NULL TRUE FALSE" +
	" MILLISECOND YEARS MONTHS DAYS HOURS MINUTES SECONDS MILLISECONDS" +
	" TUMBLING HOPPING SIZE ADVANCE RETENTION CASE WHEN THEN ELSE END" +
	" JOIN FULL OUTER INNER LEFT RIGHT ON WITH VALUES CREATE TABLE TOPIC STREAM STREAMS" +
	" INSERT DELETE INTO DESCRIBE EXTENDED PRINT CAST LIST TOPICS QUERY QUERIES TERMINATE" +
	" LOAD DROP TO RENAME SAMPLE EXPORT CATALOG PROPERTIES BEGINNING UNSET RUN SCRIPT" +
	" DECIMAL CONNECTOR CONNECTORS NAMESPACE MATERIALIZED VIEW PAUSE RESUME "

// IsReserved reports whether an unquoted word is one of ReservedWords.
func IsReserved(word string) bool { return strings.Contains(ReservedWords, " "+word+" ") }

// quotedWords are the words QuoteName backticks so the text parses back
// to the same tree: the reserved words and the parser's clause and
// operator keywords that ksqlDB leaves non-reserved.
const quotedWords = ReservedWords + "ESCAPE PARTITION EMIT GRACE ARRAY MAP STRUCT "

// QuoteName returns name as it must be written in SQL: bare when it is an
// upper-case identifier that is not reserved, backticked otherwise.
func QuoteName(name string) string {
	if isPlainName(name) && !strings.Contains(quotedWords, " "+name+" ") {
		return name
	}
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}

func isPlainName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_' || (c >= 'A' && c <= 'Z'):
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// QuoteString returns s as a SQL string literal.
func QuoteString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// FormatExpr returns the canonical SQL of e: binary and predicate
// operators fully parenthesized (a left-associative chain longer than
// flatChain links in one pair, see format_chain.go), names quoted only
// when needed, keywords upper case. Parsing the result gives the same
// tree.
func FormatExpr(e Expr) string {
	var b strings.Builder
	formatExpr(&b, e)
	return b.String()
}

func formatExpr(b *strings.Builder, e Expr) {
	switch e := e.(type) {
	case *Literal:
		b.WriteString(formatLiteral(e))
	case *ColumnRef:
		if e.Source != "" {
			b.WriteString(QuoteName(e.Source))
			b.WriteString(".")
		}
		b.WriteString(QuoteName(e.Name))
	case *Dereference:
		formatExpr(b, e.Base)
		b.WriteString("->")
		b.WriteString(QuoteName(e.Field))
	case *Subscript:
		formatExpr(b, e.Base)
		b.WriteString("[")
		formatExpr(b, e.Index)
		b.WriteString("]")
	case *Binary:
		formatBinary(b, e)
	case *Unary:
		formatUnary(b, e)
	default:
		formatPredicate(b, e)
	}
}

func formatUnary(b *strings.Builder, e *Unary) {
	if e.Op == OpNot {
		b.WriteString("(NOT ")
		formatExpr(b, e.X)
		b.WriteString(")")
		return
	}
	sign := "-"
	if e.Op == OpPlus {
		sign = "+"
	}
	x := FormatExpr(e.X)
	if strings.HasPrefix(x, "-") || strings.HasPrefix(x, "+") {
		sign += " " // "- -1", never the comment "--1"
	}
	b.WriteString(sign + x)
}

// negated writes "(NOT inner)" when not is set, as ksqlDB writes NOT
// LIKE, NOT IN and NOT BETWEEN.
func negated(b *strings.Builder, not bool, inner func()) {
	if !not {
		inner()
		return
	}
	b.WriteString("(NOT ")
	inner()
	b.WriteString(")")
}

// formatPredicate writes LIKE, IN, BETWEEN, IS NULL, CASE and CAST.
func formatPredicate(b *strings.Builder, e Expr) {
	switch e := e.(type) {
	case *Like:
		negated(b, e.Not, func() { formatLike(b, e) })
	case *In:
		negated(b, e.Not, func() {
			b.WriteString("(")
			formatExpr(b, e.X)
			b.WriteString(" IN (")
			formatList(b, e.List)
			b.WriteString("))")
		})
	case *Between:
		negated(b, e.Not, func() { formatBetween(b, e) })
	case *IsNull:
		b.WriteString("(")
		formatExpr(b, e.X)
		if e.Not {
			b.WriteString(" IS NOT NULL)")
		} else {
			b.WriteString(" IS NULL)")
		}
	case *Case:
		formatCase(b, e)
	case *Cast:
		b.WriteString("CAST(")
		formatExpr(b, e.X)
		b.WriteString(" AS " + e.To.String() + ")")
	default:
		formatCall(b, e)
	}
}

func formatLike(b *strings.Builder, e *Like) {
	b.WriteString("(")
	formatExpr(b, e.X)
	b.WriteString(" LIKE ")
	formatExpr(b, e.Pattern)
	if e.Escape != nil {
		b.WriteString(" ESCAPE ")
		formatExpr(b, e.Escape)
	}
	b.WriteString(")")
}

func formatBetween(b *strings.Builder, e *Between) {
	b.WriteString("(")
	formatExpr(b, e.X)
	b.WriteString(" BETWEEN ")
	formatExpr(b, e.Lo)
	b.WriteString(" AND ")
	formatExpr(b, e.Hi)
	b.WriteString(")")
}

func formatList(b *strings.Builder, es []Expr) {
	for i, x := range es {
		if i > 0 {
			b.WriteString(", ")
		}
		formatExpr(b, x)
	}
}

func formatCase(b *strings.Builder, e *Case) {
	b.WriteString("(CASE")
	if e.Operand != nil {
		b.WriteString(" ")
		formatExpr(b, e.Operand)
	}
	for _, w := range e.Whens {
		b.WriteString(" WHEN ")
		formatExpr(b, w.Cond)
		b.WriteString(" THEN ")
		formatExpr(b, w.Result)
	}
	if e.Else != nil {
		b.WriteString(" ELSE ")
		formatExpr(b, e.Else)
	}
	b.WriteString(" END)")
}

// formatCall writes calls, lambdas, constructors and AT TIME ZONE.
func formatCall(b *strings.Builder, e Expr) {
	switch e := e.(type) {
	case *Call:
		b.WriteString(QuoteName(e.Name) + "(")
		switch {
		case e.Star:
			b.WriteString("*")
		case e.Distinct:
			b.WriteString("DISTINCT ")
		}
		formatList(b, e.Args)
		b.WriteString(")")
	case *Lambda:
		formatLambda(b, e)
	case *ArrayCtor:
		b.WriteString("ARRAY[")
		formatList(b, e.Elems)
		b.WriteString("]")
	case *MapCtor:
		formatEntries(b, "MAP(", len(e.Keys), func(i int) { formatExpr(b, e.Keys[i]) }, e.Values)
	case *StructCtor:
		formatEntries(b, "STRUCT(", len(e.Names), func(i int) { b.WriteString(QuoteName(e.Names[i])) }, e.Values)
	case *AtTimeZone:
		formatExpr(b, e.X)
		b.WriteString(" AT TIME ZONE " + QuoteString(e.Zone))
	}
}

// formatEntries writes `open key:=value, …)` for MAP and STRUCT.
func formatEntries(b *strings.Builder, open string, n int, key func(int), values []Expr) {
	b.WriteString(open)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		key(i)
		b.WriteString(":=")
		formatExpr(b, values[i])
	}
	b.WriteString(")")
}

func formatLambda(b *strings.Builder, e *Lambda) {
	b.WriteString("(")
	for i, p := range e.Params {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(QuoteName(p))
	}
	b.WriteString(") => ")
	formatExpr(b, e.Body)
}

// formatLiteral writes a literal as ksqlDB does (doubles in scientific
// notation such as 1.5E3, null and booleans in lower case), except that a
// decimal without a point is written DECIMAL '5' so it parses back as a
// decimal.
func formatLiteral(l *Literal) string {
	switch v := l.Value.(type) {
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(v)
	case string:
		return QuoteString(v)
	case int32:
		return strconv.FormatInt(int64(v), 10)
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return formatDouble(v)
	case *apd.Decimal:
		s := v.Text('f')
		if !strings.Contains(s, ".") {
			return "DECIMAL " + QuoteString(s)
		}
		return s
	}
	return "null"
}

// formatDouble writes v in scientific notation without a plus sign or
// leading exponent zeros: 1E3, 1.5E0, 2.5E-7.
func formatDouble(v float64) string {
	s := strconv.FormatFloat(v, 'E', -1, 64)
	mant, exp, _ := strings.Cut(s, "E")
	n, err := strconv.Atoi(exp)
	if err != nil {
		return s
	}
	return mant + "E" + strconv.Itoa(n)
}
