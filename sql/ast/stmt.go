package ast

import "github.com/sqlstream/sqlstream/sql/types"

// Statement is one parsed SQL statement.
type Statement interface {
	// Text is the statement's original text, as the user typed it, without
	// the trailing semicolon.
	Text() string
	stmtNode()
}

// Base carries what every statement has: its text and start position.
type Base struct {
	SQL string
	P   Pos
}

// Text returns the original statement text.
func (b *Base) Text() string { return b.SQL }

// SourceKind says whether a source is a stream or a table.
type SourceKind uint8

const (
	// Stream is an unbounded sequence of events (KStream).
	Stream SourceKind = iota
	// Table is the latest value per key (KTable).
	Table
)

// String returns STREAM or TABLE.
func (k SourceKind) String() string {
	if k == Table {
		return "TABLE"
	}
	return "STREAM"
}

// ColumnConstraint marks a column in a CREATE column list.
type ColumnConstraint uint8

const (
	// NoConstraint is a value column.
	NoConstraint ColumnConstraint = iota
	// KeyColumn is `KEY` (streams).
	KeyColumn
	// PrimaryKeyColumn is `PRIMARY KEY` (tables).
	PrimaryKeyColumn
	// HeadersColumn is `HEADERS` (all headers as ARRAY<STRUCT<KEY,VALUE>>).
	HeadersColumn
	// HeaderColumn is `HEADER('k')` (one header's bytes).
	HeaderColumn
)

// ColumnDef is one column in CREATE STREAM/TABLE (…).
type ColumnDef struct {
	P          Pos
	Name       string
	Type       *types.Type
	Constraint ColumnConstraint
	HeaderKey  string // for HeaderColumn
}

// Property is one WITH (NAME = value) entry. Name is upper case; Value is a
// *Literal (string, number or boolean).
type Property struct {
	P     Pos
	Name  string
	Value *Literal
}

// Properties is a WITH (…) clause, in the order written.
type Properties []Property

// Get returns the property named name (upper case) and whether it is set.
func (ps Properties) Get(name string) (*Property, bool) {
	for i := range ps {
		if ps[i].Name == name {
			return &ps[i], true
		}
	}
	return nil, false
}

// CreateSource is CREATE [OR REPLACE] [SOURCE] STREAM|TABLE [IF NOT EXISTS]
// name [(columns)] [WITH (…)].
type CreateSource struct {
	Base
	Kind        SourceKind
	OrReplace   bool
	IfNotExists bool
	Source      bool // CREATE SOURCE STREAM|TABLE: read-only
	// Global is CREATE GLOBAL TABLE: every task of a query joining it
	// reads the whole topic (Kafka Streams' GlobalKTable).
	Global  bool
	Name    string
	Columns []ColumnDef
	Props   Properties
}

// CreateAsSelect is CREATE [OR REPLACE] STREAM|TABLE [IF NOT EXISTS] name
// [WITH (…)] AS SELECT ….
type CreateAsSelect struct {
	Base
	Kind        SourceKind
	OrReplace   bool
	IfNotExists bool
	Name        string
	Props       Properties
	Query       *Query
}

// InsertInto is INSERT INTO target [WITH (…)] SELECT ….
type InsertInto struct {
	Base
	Target string
	Props  Properties
	Query  *Query
}

// InsertValues is INSERT INTO target [(columns)] VALUES (values).
type InsertValues struct {
	Base
	Target  string
	Columns []string // empty: all columns, key columns first
	Values  []Expr
}

// EmitKind is the EMIT clause of a query.
type EmitKind uint8

const (
	// EmitNone: no EMIT clause (a pull query when it is a bare SELECT).
	EmitNone EmitKind = iota
	// EmitChanges is EMIT CHANGES.
	EmitChanges
	// EmitFinal is EMIT FINAL.
	EmitFinal
)

// SelectItem is one projection: Expr [AS Alias], `*` (Star with no Source),
// or `src.*` (Star with Source). StructStar is `expr->*`.
type SelectItem struct {
	P          Pos
	Expr       Expr
	Alias      string
	Star       bool
	Source     string
	StructStar bool
}

// Relation is a FROM item: a *TableRef or a *Join.
type Relation interface {
	relationNode()
}

// TableRef names a source, with an optional alias.
type TableRef struct {
	P     Pos
	Name  string
	Alias string
}

// JoinType is INNER, LEFT, RIGHT or FULL.
type JoinType uint8

// Join types.
const (
	InnerJoin JoinType = iota
	LeftJoin
	RightJoin
	FullJoin
)

// Join is Left <type> JOIN Right [WITHIN …] [GRACE PERIOD …] ON On.
type Join struct {
	P      Pos
	Type   JoinType
	Left   Relation
	Right  Relation
	On     Expr
	Within *JoinWindow // nil when absent
	AsOf   *AsOf       // FOR SYSTEM_TIME AS OF on the right side; nil when absent
}

// AsOf is `Right FOR SYSTEM_TIME AS OF Time [GRACE PERIOD g]`: an as-of
// join reads the right table's version valid at the left row's Time.
// Grace is -1 when absent.
type AsOf struct {
	P     Pos
	Time  *ColumnRef
	Grace int64
}

// JoinWindow is WITHIN n unit | WITHIN (before, after) [GRACE PERIOD g].
// Durations are in milliseconds; Grace is -1 when absent.
type JoinWindow struct {
	Before, After int64
	Grace         int64
}

func (*TableRef) relationNode() {}
func (*Join) relationNode()     {}

// WindowKind is the kind of a WINDOW clause.
type WindowKind uint8

// Window kinds. Sliding is ours (Kafka Streams' SlidingWindows).
const (
	Tumbling WindowKind = iota
	Hopping
	Session
	Sliding
)

// WindowExpr is WINDOW TUMBLING|HOPPING|SESSION|SLIDING (…). Durations in
// milliseconds; Grace and Retention are -1 when absent. Size is the gap
// for SESSION.
type WindowExpr struct {
	P         Pos
	Kind      WindowKind
	Size      int64
	Advance   int64
	Grace     int64
	Retention int64
}

// Query is a SELECT: push (EMIT CHANGES/FINAL) or pull (no EMIT), or the
// body of CREATE … AS SELECT / INSERT INTO … SELECT.
type Query struct {
	Base
	Items       []SelectItem
	From        Relation
	Window      *WindowExpr
	Where       Expr
	GroupBy     []Expr
	PartitionBy []Expr
	Having      Expr
	Emit        EmitKind
	Limit       int // -1 when absent
	// NegativeLimit is a LIMIT below zero as written (ksqlDB's grammar
	// takes it; the planner refuses it); 0 when none, Limit is then -1.
	NegativeLimit int
}

// ShowKind is what SHOW/LIST lists.
type ShowKind uint8

// SHOW targets.
const (
	ShowStreams ShowKind = iota
	ShowTables
	ShowTopics
	ShowQueries
	ShowProperties
	ShowFunctions
	ShowTypes
	ShowVariables
)

// Show is SHOW|LIST <what> [EXTENDED]; All is SHOW ALL TOPICS.
type Show struct {
	Base
	What     ShowKind
	Extended bool
	All      bool
}

// Describe is DESCRIBE name [EXTENDED], or DESCRIBE STREAMS|TABLES
// [EXTENDED] when Name is empty and All is set with Kind.
type Describe struct {
	Base
	Name     string
	Extended bool
	All      bool
	Kind     SourceKind
}

// DescribeFunction is DESCRIBE FUNCTION name.
type DescribeFunction struct {
	Base
	Name string
}

// Explain is EXPLAIN <statement> or EXPLAIN <query id>.
type Explain struct {
	Base
	Statement Statement // nil when QueryID is set
	QueryID   string
}

// Drop is DROP STREAM|TABLE [IF EXISTS] name [DELETE TOPIC].
type Drop struct {
	Base
	Kind        SourceKind
	IfExists    bool
	Name        string
	DeleteTopic bool
}

// Terminate is TERMINATE query_id | ALL.
type Terminate struct {
	Base
	QueryID string
	All     bool
}

// Pause is PAUSE query_id | ALL (ksqlDB 0.28): a persistent query stops
// processing and keeps its consumer group, tasks, state and offsets.
type Pause struct {
	Base
	QueryID string
	All     bool
}

// Resume is RESUME query_id | ALL: a paused persistent query processes
// again from where it stopped.
type Resume struct {
	Base
	QueryID string
	All     bool
}

// Print is PRINT topic [FROM BEGINNING] [INTERVAL n] [LIMIT n]. Topic keeps
// its case (topic names are case-sensitive).
type Print struct {
	Base
	Topic         string
	FromBeginning bool
	Interval      int // 0 when absent
	Limit         int // -1 when absent
}

// SetProperty is SET 'name' = 'value'.
type SetProperty struct {
	Base
	Name, Value string
}

// UnsetProperty is UNSET 'name'.
type UnsetProperty struct {
	Base
	Name string
}

// Define is DEFINE name = 'value'.
type Define struct {
	Base
	Name, Value string
}

// Undefine is UNDEFINE name.
type Undefine struct {
	Base
	Name string
}

func (*CreateSource) stmtNode()     {}
func (*CreateAsSelect) stmtNode()   {}
func (*InsertInto) stmtNode()       {}
func (*InsertValues) stmtNode()     {}
func (*Query) stmtNode()            {}
func (*Show) stmtNode()             {}
func (*Describe) stmtNode()         {}
func (*DescribeFunction) stmtNode() {}
func (*Explain) stmtNode()          {}
func (*Drop) stmtNode()             {}
func (*Terminate) stmtNode()        {}
func (*Pause) stmtNode()            {}
func (*Resume) stmtNode()           {}
func (*Print) stmtNode()            {}
func (*SetProperty) stmtNode()      {}
func (*UnsetProperty) stmtNode()    {}
func (*Define) stmtNode()           {}
func (*Undefine) stmtNode()         {}
func (*AssertSchema) stmtNode()     {}
