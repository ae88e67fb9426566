package ast

import "github.com/sqlstream/sqlstream/sql/types"

// Expr is a scalar expression as written by the user, before type checking.
// The parser builds it from the TiDB AST (plus the pre-pass rewrites for
// ksqlDB-only syntax); sql/expr type-checks and compiles it.
type Expr interface {
	Position() Pos
	exprNode()
}

// Literal is a constant. Value uses the types package's Go representation
// (string, int32, int64, float64, *apd.Decimal, bool, nil for NULL).
// Type is INTEGER for small integers, BIGINT for larger, DECIMAL for
// 1.5-style literals, DOUBLE for 1e3-style, STRING, BOOLEAN, or UNKNOWN
// for NULL.
type Literal struct {
	P     Pos
	Value any
	Type  *types.Type
}

// ColumnRef names a column, optionally qualified by a source name or alias.
// Names are already case-normalized (unquoted → upper case).
type ColumnRef struct {
	P      Pos
	Source string // "" when unqualified
	Name   string
}

// Dereference is struct field access: Base->Field.
type Dereference struct {
	P     Pos
	Base  Expr
	Field string
}

// Subscript is arr[i] (1-based; negative counts from the end) or m['k'].
type Subscript struct {
	P     Pos
	Base  Expr
	Index Expr
}

// BinaryOp is an infix operator.
type BinaryOp uint8

// Binary operators. Concat is `||` (and `+` on strings is resolved by the
// type checker as Add).
const (
	OpAdd BinaryOp = iota
	OpSub
	OpMul
	OpDiv
	OpMod
	OpConcat
	OpEQ
	OpNE
	OpLT
	OpLE
	OpGT
	OpGE
	OpAnd
	OpOr
	OpIsDistinctFrom
	OpIsNotDistinctFrom
)

var binaryOpText = [...]string{
	OpAdd: "+", OpSub: "-", OpMul: "*", OpDiv: "/", OpMod: "%", OpConcat: "||",
	OpEQ: "=", OpNE: "<>", OpLT: "<", OpLE: "<=", OpGT: ">", OpGE: ">=",
	OpAnd: "AND", OpOr: "OR", OpIsDistinctFrom: "IS DISTINCT FROM",
	OpIsNotDistinctFrom: "IS NOT DISTINCT FROM",
}

// String returns the operator as written in SQL.
func (o BinaryOp) String() string { return binaryOpText[o] }

// Binary is L Op R.
type Binary struct {
	P    Pos
	Op   BinaryOp
	L, R Expr
}

// UnaryOp is a prefix operator.
type UnaryOp uint8

// Unary operators.
const (
	OpNot UnaryOp = iota
	OpNeg
	OpPlus
)

// Unary is Op X.
type Unary struct {
	P  Pos
	Op UnaryOp
	X  Expr
}

// Like is X [NOT] LIKE Pattern [ESCAPE Escape].
type Like struct {
	P       Pos
	X       Expr
	Pattern Expr
	Escape  Expr // nil when absent
	Not     bool
}

// In is X [NOT] IN (List…).
type In struct {
	P    Pos
	X    Expr
	List []Expr
	Not  bool
}

// Between is X [NOT] BETWEEN Lo AND Hi.
type Between struct {
	P      Pos
	X      Expr
	Lo, Hi Expr
	Not    bool
}

// IsNull is X IS [NOT] NULL.
type IsNull struct {
	P   Pos
	X   Expr
	Not bool
}

// When is one WHEN … THEN … arm of a CASE.
type When struct {
	Cond, Result Expr
}

// Case is CASE [Operand] WHEN … THEN … [ELSE …] END. Operand is nil for a
// searched CASE.
type Case struct {
	P       Pos
	Operand Expr
	Whens   []When
	Else    Expr
}

// Cast is CAST(X AS To).
type Cast struct {
	P  Pos
	X  Expr
	To *types.Type
}

// Call is a function call (scalar, aggregate or table function; the
// planner decides which from the function registry). Name is upper case.
// Star is COUNT(*).
type Call struct {
	P        Pos
	Name     string
	Args     []Expr
	Star     bool
	Distinct bool
}

// Lambda is `x => body` or `(x, y) => body`, only valid as a function
// argument (TRANSFORM, FILTER, REDUCE).
type Lambda struct {
	P      Pos
	Params []string
	Body   Expr
}

// ArrayCtor is ARRAY[e, …].
type ArrayCtor struct {
	P     Pos
	Elems []Expr
}

// MapCtor is MAP(k := v, …).
type MapCtor struct {
	P      Pos
	Keys   []Expr
	Values []Expr
}

// StructCtor is STRUCT(name := v, …).
type StructCtor struct {
	P      Pos
	Names  []string
	Values []Expr
}

// AtTimeZone is X AT TIME ZONE 'tz' (only used by TIMESTAMP rendering
// functions).
type AtTimeZone struct {
	P    Pos
	X    Expr
	Zone string
}

func (e *Literal) Position() Pos     { return e.P }
func (e *ColumnRef) Position() Pos   { return e.P }
func (e *Dereference) Position() Pos { return e.P }
func (e *Subscript) Position() Pos   { return e.P }
func (e *Binary) Position() Pos      { return e.P }
func (e *Unary) Position() Pos       { return e.P }
func (e *Like) Position() Pos        { return e.P }
func (e *In) Position() Pos          { return e.P }
func (e *Between) Position() Pos     { return e.P }
func (e *IsNull) Position() Pos      { return e.P }
func (e *Case) Position() Pos        { return e.P }
func (e *Cast) Position() Pos        { return e.P }
func (e *Call) Position() Pos        { return e.P }
func (e *Lambda) Position() Pos      { return e.P }
func (e *ArrayCtor) Position() Pos   { return e.P }
func (e *MapCtor) Position() Pos     { return e.P }
func (e *StructCtor) Position() Pos  { return e.P }
func (e *AtTimeZone) Position() Pos  { return e.P }

func (*Literal) exprNode()     {}
func (*ColumnRef) exprNode()   {}
func (*Dereference) exprNode() {}
func (*Subscript) exprNode()   {}
func (*Binary) exprNode()      {}
func (*Unary) exprNode()       {}
func (*Like) exprNode()        {}
func (*In) exprNode()          {}
func (*Between) exprNode()     {}
func (*IsNull) exprNode()      {}
func (*Case) exprNode()        {}
func (*Cast) exprNode()        {}
func (*Call) exprNode()        {}
func (*Lambda) exprNode()      {}
func (*ArrayCtor) exprNode()   {}
func (*MapCtor) exprNode()     {}
func (*StructCtor) exprNode()  {}
func (*AtTimeZone) exprNode()  {}
