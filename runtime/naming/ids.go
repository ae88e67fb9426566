package naming

import (
	crand "crypto/rand"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
)

// The prefixes of the ids sqlstream gives queries, ksqlDB's.
const (
	csas   = "CSAS_"
	ctas   = "CTAS_"
	cst    = "CST_"
	insert = "INSERTQUERY_"
)

// CreateAs is the id of the query of CREATE STREAM|TABLE name AS SELECT,
// the n-th (the command's sequence number, or the query count under QTT
// naming).
func CreateAs(kind ast.SourceKind, name string, n int64) string {
	prefix := csas
	if kind == ast.Table {
		prefix = ctas
	}
	return fmt.Sprintf("%s%s_%d", prefix, name, n)
}

// CST is the id of the query materializing SOURCE table name.
func CST(name string, n int64) string { return fmt.Sprintf("%s%s_%d", cst, name, n) }

// MaterializesSource reports whether query id is a SOURCE table's
// materialization (ksqlDB's CREATE_SOURCE query type), which PAUSE and
// RESUME refuse.
func MaterializesSource(id string) bool { return strings.HasPrefix(id, cst) }

// Insert is the id of the n-th INSERT INTO … SELECT without QUERY_ID.
func Insert(n int64) string { return fmt.Sprintf("%s%d", insert, n) }

// OwnsSink reports whether query id is of a CREATE … AS SELECT (or a
// SOURCE table's materialization), which owns its sink: it ends with
// the sink's DROP. An INSERT INTO's never does.
func OwnsSink(id string) bool {
	return strings.HasPrefix(id, csas) || strings.HasPrefix(id, ctas) || strings.HasPrefix(id, cst)
}

// InsertQueryID is INSERT INTO's WITH (QUERY_ID='…'), upper-cased as
// ksqlDB does; ok is false without one. An id with a reserved prefix or
// a character other than letters, digits and '_' is refused in ksqlDB's
// words (its QueryIdUtil).
func InsertQueryID(st *ast.InsertInto) (id string, ok bool, err error) {
	p, ok := st.Props.Get("QUERY_ID")
	if !ok {
		return "", false, nil
	}
	raw, _ := p.Value.Value.(string)
	id = strings.ToUpper(raw)
	reserved := []string{insert, ctas, csas, cst}
	for _, prefix := range reserved {
		if strings.HasPrefix(id, prefix) {
			return "", false, sqlerr.New(sqlerr.Semantic, p.P, "Query IDs must not start with a reserved query ID prefix (%s). Got '%s'.",
				strings.Join(reserved, ", "), id)
		}
	}
	if id == "" || strings.IndexFunc(id, func(r rune) bool { return !(r == '_' || r >= '0' && r <= '9' || r >= 'A' && r <= 'Z') }) >= 0 {
		return "", false, sqlerr.New(sqlerr.Semantic, p.P, "Query IDs may contain only alphanumeric characters and '_'. Got: '%s'", raw)
	}
	return id, true, nil
}

// DropRecordedQueryID removes a QUERY_ID from the WITH clause of a
// recorded CREATE: one was accepted and had no effect before it was
// refused (ksqlDB takes QUERY_ID only in INSERT INTO), so its command
// replays as it ran instead of failing and losing its source.
func DropRecordedQueryID(stmt ast.Statement) {
	var ps *ast.Properties
	switch st := stmt.(type) {
	case *ast.CreateAsSelect:
		ps = &st.Props
	case *ast.CreateSource:
		ps = &st.Props
	default:
		return
	}
	*ps = slices.DeleteFunc(slices.Clone(*ps), func(p ast.Property) bool { return p.Name == "QUERY_ID" })
}

// Transient is the id of a push query over source: SCALABLE_PUSH_QUERY_
// and a random version 4 UUID for one ksqlDB would run as a scalable
// push query (check.ScalablePush), transient_<source>_<random> otherwise.
// Deviation: sqlstream runs both alike, as the transient query reading
// the source's topic from latest; the rows are the same (those the
// writing query produces once the query has started), the id says which
// kind ksqlDB would have made.
func Transient(source string, scalable bool) string {
	if !scalable {
		return fmt.Sprintf("transient_%s_%d", source, rand.Int64N(1<<62))
	}
	var b [16]byte
	_, _ = crand.Read(b[:]) // never fails (crypto/rand panics instead)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("SCALABLE_PUSH_QUERY_%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
