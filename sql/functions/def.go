package functions

import "github.com/sqlstream/sqlstream/sql/types"

// Category groups functions in SHOW FUNCTIONS (ksqlDB's categories).
type Category string

// Categories as ksqlDB names them.
const (
	CatString      Category = "STRING"
	CatMath        Category = "MATHEMATICAL"
	CatArray       Category = "ARRAY"
	CatMap         Category = "MAP"
	CatJSON        Category = "JSON"
	CatDateTime    Category = "DATE / TIME"
	CatConversion  Category = "CONVERSIONS"
	CatConditional Category = "CONDITIONAL"
	CatURL         Category = "URL"
	CatRegex       Category = "REGULAR EXPRESSION"
	CatOther       Category = "OTHER"
	CatAggregate   Category = "AGGREGATE"
	CatTable       Category = "TABLE"
	CatLambda      Category = "LAMBDA"
)

// ScalarDef describes one scalar function and all of its overloads.
type ScalarDef struct {
	Name        string // upper case
	Category    Category
	Description string
	Overloads   []Overload
}

// Overload is one signature of a function.
//
// Sig is the signature in ksqlDB type syntax with generic type variables
// (single capital letters) and an optional trailing "..." for variadics:
//
//	"ABS(INTEGER) INTEGER"
//	"ARRAY_CONTAINS(ARRAY<T>, T) BOOLEAN"
//	"CONCAT(STRING...) STRING"
//	"SUBSTRING(STRING str, INTEGER pos, INTEGER len) STRING"  (names optional)
//	"ROUND(DECIMAL) DECIMAL"   (DECIMAL without (p,s) matches any decimal)
//
// Generic variables bind to the argument types; the return type is the
// signature's with variables substituted, unless Return is set, in which
// case Return computes it from the resolved argument types (e.g. decimal
// precision rules).
//
// Fn receives the arguments already converted to the parameter types
// (implicit widening INTEGER→BIGINT→DECIMAL→DOUBLE applied) and returns
// the result in the types package's Go representation. Unless NullAware
// is set, Fn is not called when any argument is NULL: the result is NULL.
// An error from Fn is a runtime evaluation error: the row's value becomes
// NULL and the error goes to the processing log.
type Overload struct {
	Sig       string
	Return    func(args []*types.Type) (*types.Type, error)
	Fn        func(args []any) (any, error)
	NullAware bool
	// Patterns are the indexes of the arguments that are regular
	// expressions: a constant one is compiled with the statement, and an
	// invalid or unsupported pattern is an error there (CheckPattern)
	// rather than a NULL per record.
	Patterns []int
	// Description overrides the function's description for this overload
	// in DESCRIBE FUNCTION.
	Description string
}
