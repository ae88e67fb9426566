package functions

import (
	"fmt"
	"strings"

	"github.com/sqlstream/sqlstream/sql/types"
)

// TableDef describes a table function (ksqlDB's UDTF): a call on one
// input row yields zero or more values, one per output row.
type TableDef struct {
	Name        string // upper case
	Category    Category
	Description string
	Overloads   []TableOverload
}

// TableOverload is one signature of a table function. Sig uses the
// signature language of Overload and names the type of one produced
// value; Return, when set, computes it instead. Fn is not called when an
// argument is NULL (the call yields no rows).
type TableOverload struct {
	Sig         string
	Return      func(args []*types.Type) (*types.Type, error)
	Fn          func(args []any) ([]any, error)
	Description string
}

type tableEntry struct {
	def  TableDef
	sigs []*signature
}

// ResolvedTable is the overload chosen for a table function call.
type ResolvedTable struct {
	Name   string
	Params []*types.Type // the argument types to convert to
	Return *types.Type   // the type of each produced value
	Fn     func(args []any) ([]any, error)
}

// AddTable registers a table function.
func (r *Registry) AddTable(d TableDef) error {
	d.Name = strings.ToUpper(d.Name)
	if _, taken := r.Kind(d.Name); taken {
		return fmt.Errorf("function %s is already registered", d.Name)
	}
	e := &tableEntry{def: d}
	for _, o := range d.Overloads {
		s, err := parseSignature(o.Sig)
		if err != nil {
			return err
		}
		if s.name != d.Name || o.Fn == nil {
			return fmt.Errorf("signature %q does not belong to table function %s or has no implementation", o.Sig, d.Name)
		}
		e.sigs = append(e.sigs, s)
	}
	r.tables[d.Name] = e
	return nil
}

// MustAddTable is AddTable for built-ins: it panics on error.
func (r *Registry) MustAddTable(d TableDef) {
	if err := r.AddTable(d); err != nil {
		panic(err)
	}
}

// ResolveTable chooses the overload of table function name for arguments
// of the given types, with the same rules as Resolve.
func (r *Registry) ResolveTable(name string, args []*types.Type) (*ResolvedTable, error) {
	up := strings.ToUpper(name)
	e, ok := r.tables[up]
	if !ok {
		if _, known := r.Kind(up); known {
			return nil, fmt.Errorf("'%s' is not a table function", up)
		}
		return nil, &UnknownFunctionError{Name: up}
	}
	best, err := (&scalarEntry{sigs: e.sigs}).choose(up, args, nil)
	if err != nil {
		return nil, err
	}
	o := e.def.Overloads[best.index]
	res := &ResolvedTable{Name: up, Params: best.res.Params, Return: best.res.Return, Fn: o.Fn}
	if o.Return != nil {
		if res.Return, err = o.Return(res.Params); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// describeTable returns DESCRIBE FUNCTION's overloads of a table function.
func (e *tableEntry) describe() []OverloadInfo {
	out := make([]OverloadInfo, len(e.sigs))
	for i, s := range e.sigs {
		desc := e.def.Overloads[i].Description
		if desc == "" {
			desc = e.def.Description
		}
		out[i] = OverloadInfo{ReturnType: s.retText, Description: desc, Arguments: s.arguments()}
	}
	return out
}

func registerTableFunctions(r *Registry) {
	r.MustAddTable(TableDef{Name: "EXPLODE", Category: CatTable,
		Description: "Explodes an array: one output row per element, in order.",
		Overloads: []TableOverload{
			{Sig: "EXPLODE(ARRAY<DECIMAL> input) DECIMAL", Return: arrayElement, Fn: explode},
			{Sig: "EXPLODE(ARRAY<T> list) T", Fn: explode},
		}})
	r.MustAddTable(TableDef{Name: "CUBE_EXPLODE", Category: CatTable,
		Description: "Takes an array of columns and outputs all their combinations, NULL standing for a column left out.",
		Overloads: []TableOverload{
			{Sig: "CUBE_EXPLODE(ARRAY<T> columns) ARRAY<T>", Fn: cubeExplode},
		}})
}

// arrayElement is the element type of the array argument (the precision
// and scale of an ARRAY<DECIMAL(p, s)>).
func arrayElement(args []*types.Type) (*types.Type, error) {
	if args[0].Kind != types.KindArray {
		return nil, fmt.Errorf("expected an array, got %s", args[0])
	}
	return args[0].Elem, nil
}

func explode(args []any) ([]any, error) {
	return append([]any(nil), args[0].([]any)...), nil
}

// cubeExplode yields every subset of the columns in binary counting order
// (the first column is the most significant bit, a cleared bit is NULL);
// subsets that would keep a NULL column repeat an earlier one and are
// skipped, as in ksqlDB.
func cubeExplode(args []any) ([]any, error) {
	cols := args[0].([]any)
	n := len(cols)
	if n > 30 {
		return nil, fmt.Errorf("CUBE_EXPLODE supports at most 30 columns, got %d", n)
	}
	var out []any
	for mask := 0; mask < 1<<n; mask++ {
		combo, ok := cubeCombo(cols, mask)
		if ok {
			out = append(out, combo)
		}
	}
	return out, nil
}

func cubeCombo(cols []any, mask int) ([]any, bool) {
	n := len(cols)
	combo := make([]any, n)
	for i, c := range cols {
		if mask&(1<<(n-1-i)) == 0 {
			continue
		}
		if c == nil {
			return nil, false
		}
		combo[i] = c
	}
	return combo, true
}

// LookupTable returns the table function named name (case-insensitive).
func (r *Registry) LookupTable(name string) (*TableDef, bool) {
	e, ok := r.tables[strings.ToUpper(name)]
	if !ok {
		return nil, false
	}
	return &e.def, true
}
