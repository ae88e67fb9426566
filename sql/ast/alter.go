package ast

import "github.com/sqlstream/sqlstream/sql/types"

// AlterSource is ALTER STREAM|TABLE name ADD [COLUMN] col type [, ADD …]:
// value columns appended to a stream or table that no query created.
type AlterSource struct {
	Base
	Kind    SourceKind
	Name    string
	Columns []AlterColumn
}

// AlterColumn is one ADD [COLUMN] name type of ALTER.
type AlterColumn struct {
	P    Pos
	Name string
	Type *types.Type
}

// AlterSystem is ALTER SYSTEM 'name' = 'value': a cluster-wide setting in
// ksqlDB, which only its shared runtimes (Confluent Cloud) apply; the
// engine refuses it as open-source ksqlDB does.
type AlterSystem struct {
	Base
	Name, Value string
}

func (*AlterSystem) stmtNode() {}
