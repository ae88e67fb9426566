package functions

import "github.com/sqlstream/sqlstream/sql/types"

func extremeDefs() []ScalarDef {
	return []ScalarDef{
		extremeDef("GREATEST", "Returns the largest non-NULL argument.", 1),
		extremeDef("LEAST", "Returns the smallest non-NULL argument.", -1),
	}
}

// extremeDef defines GREATEST (want 1) or LEAST (want -1) with one
// variadic overload per comparable type, as ksqlDB does: mixing numeric
// types needs an explicit CAST.
func extremeDef(name, desc string, want int) ScalarDef {
	d := ScalarDef{Name: name, Category: CatMath, Description: desc}
	for _, t := range []string{"INTEGER", "BIGINT", "DOUBLE", "DECIMAL", "STRING", "BYTES", "DATE", "TIME", "TIMESTAMP"} {
		o := Overload{Sig: name + "(" + t + " val, " + t + " vals...) " + t, NullAware: true, Fn: extreme(want)}
		if t == "DECIMAL" {
			o.Return = widestDecimal
		}
		d.Overloads = append(d.Overloads, o)
	}
	return d
}

func extreme(want int) Fn {
	return func(args []any) (any, error) {
		var best any
		for _, a := range args {
			if a == nil {
				continue
			}
			if best == nil {
				best = a
				continue
			}
			if c, _ := types.CompareValues(a, best); c == want {
				best = a
			}
		}
		return best, nil
	}
}

// widestDecimal is the DECIMAL type that holds every argument's values.
func widestDecimal(args []*types.Type) (*types.Type, error) {
	t := args[0]
	for _, a := range args[1:] {
		t = WidenDecimal(t, a)
	}
	return t, nil
}
