package functions

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sqlstream/sqlstream/sql/types"
)

// TableSourceError says aggregate functions that cannot undo a row were
// used to aggregate a TABLE (see Undoer). Names are in query order,
// without repeats.
type TableSourceError struct{ Names []string }

func (e *TableSourceError) Error() string {
	plural := ""
	if len(e.Names) > 1 {
		plural = "s"
	}
	return fmt.Sprintf("The aggregation function%s %s cannot be applied to a table source, only to a stream source.",
		plural, joinAnd(e.Names))
}

// joinAnd joins names as "A", "A and B", "A, B and C".
func joinAnd(names []string) string {
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// CheckTableAggregates returns a *TableSourceError naming the calls whose
// aggregator is not an Undoer, or nil when all of them can aggregate a
// table. names[i] is the function name of aggs[i].
func CheckTableAggregates(names []string, aggs []Aggregator) error {
	var bad []string
	for i, agg := range aggs {
		name := strings.ToUpper(names[i])
		if _, ok := agg.(Undoer); !ok && !slices.Contains(bad, name) {
			bad = append(bad, name)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return &TableSourceError{Names: bad}
}

// AppliesToTables reports whether every overload of aggregate function
// name can aggregate a TABLE, as SHOW FUNCTIONS and DESCRIBE FUNCTION may
// say; false when name is unknown. It builds one aggregator per overload
// from representative argument types.
func (a *Aggregates) AppliesToTables(name string) bool {
	e, ok := a.defs[strings.ToUpper(name)]
	if !ok {
		return false
	}
	infos, _ := a.sigs.Describe(sigName(e.def.Name))
	for i, o := range e.def.Overloads {
		agg, err := o.New(sampleParams(infos[i]), sampleInit(o, infos[i]))
		if err != nil {
			return false
		}
		if _, ok := agg.(Undoer); !ok {
			return false
		}
	}
	return true
}

// sampleParams picks a concrete type for each parameter of an overload:
// the declared one when it is a plain type, else INTEGER (generics) or the
// container over INTEGER.
func sampleParams(info OverloadInfo) []*types.Type {
	out := make([]*types.Type, len(info.Arguments))
	for i, arg := range info.Arguments {
		out[i] = sampleType(arg.Type)
	}
	return out
}

func sampleType(text string) *types.Type {
	switch {
	case strings.HasPrefix(text, "ARRAY<"):
		return types.ArrayOf(sampleType(strings.TrimSuffix(strings.TrimPrefix(text, "ARRAY<"), ">")))
	case strings.HasPrefix(text, "MAP<"):
		return types.MapOf(types.StringType, types.IntegerType)
	case strings.HasPrefix(text, "DECIMAL"):
		return types.DecimalOf(10, 2)
	}
	if t := primitiveByName(text); t != nil {
		return t
	}
	return types.IntegerType
}

func primitiveByName(name string) *types.Type {
	for _, t := range []*types.Type{types.BooleanType, types.IntegerType, types.BigintType, types.DoubleType,
		types.StringType, types.BytesType, types.TimestampType, types.DateType, types.TimeType} {
		if t.String() == name {
			return t
		}
	}
	return nil
}

// sampleInit returns valid init values for an overload: 1 for INTEGER
// parameters, true for BOOLEAN ones.
func sampleInit(o AggregateOverload, info OverloadInfo) []any {
	params := info.Arguments[len(info.Arguments)-o.InitArgs:]
	out := make([]any, len(params))
	for i, p := range params {
		out[i] = int32(1)
		if p.Type == "BOOLEAN" {
			out[i] = true
		}
	}
	return out
}
