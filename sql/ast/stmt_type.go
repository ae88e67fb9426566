package ast

import "github.com/sqlstream/sqlstream/sql/types"

// CreateType is CREATE TYPE [IF NOT EXISTS] name AS type: a named alias
// for a type, usable in later column lists and CASTs.
type CreateType struct {
	Base
	IfNotExists bool
	Name        string
	Type        *types.Type
}

// DropType is DROP TYPE [IF EXISTS] name.
type DropType struct {
	Base
	IfExists bool
	Name     string
}

func (*CreateType) stmtNode() {}
func (*DropType) stmtNode()   {}
