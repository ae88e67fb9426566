package functions

// asValueDef is AS_VALUE(x): x itself. ksqlDB uses it to copy a key
// column into the value of a persistent query's result; the planner
// needs nothing more than the call being something other than a bare
// column reference (so the projection keeps it as a value column).
func asValueDef() ScalarDef {
	return ScalarDef{Name: "AS_VALUE", Category: CatOther,
		Description: "Used exclusively in the projection of a query to allow a key column to be copied into the value schema. Has no effect if used anywhere else.",
		Overloads: []Overload{{Sig: "AS_VALUE(T source) T", NullAware: true,
			Fn: func(args []any) (any, error) { return args[0], nil }}}}
}
