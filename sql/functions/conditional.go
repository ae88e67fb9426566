package functions

import "github.com/sqlstream/sqlstream/sql/types"

func registerConditional(r *Registry) {
	r.MustAddScalar(ScalarDef{
		Name: "COALESCE", Category: CatConditional,
		Description: "Returns the first parameter that is not NULL.",
		Overloads:   []Overload{{Sig: "COALESCE(T first, T others...) T", NullAware: true, Fn: coalesce}},
	})
	r.MustAddScalar(ScalarDef{
		Name: "IFNULL", Category: CatConditional,
		Description: "Returns expression if not NULL, otherwise the alternative value.",
		Overloads:   []Overload{{Sig: "IFNULL(T expression, T altValue) T", NullAware: true, Fn: coalesce}},
	})
	r.MustAddScalar(ScalarDef{
		Name: "NULLIF", Category: CatConditional,
		Description: "Returns NULL if expr1 equals expr2, otherwise expr1.",
		Overloads:   []Overload{{Sig: "NULLIF(T expr1, T expr2) T", NullAware: true, Fn: nullIf}},
	})
}

func coalesce(args []any) (any, error) {
	for _, a := range args {
		if a != nil {
			return a, nil
		}
	}
	return nil, nil
}

func nullIf(args []any) (any, error) {
	if args[0] != nil && args[1] != nil && types.ValuesEqual(args[0], args[1]) {
		return nil, nil
	}
	return args[0], nil
}
