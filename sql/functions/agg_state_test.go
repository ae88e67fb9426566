package functions

import (
	"fmt"
	"testing"

	"github.com/cockroachdb/apd/v3"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/types"
)

// TestStateSurvivesSerialization checks that every built-in's
// accumulator is a plain value of its StateType: it passes the JSON
// codec's type checks, decodes back to an accumulator that gives the same
// result, and keeps aggregating from there like the original.
func TestStateSurvivesSerialization(t *testing.T) {
	st := types.StructOf(types.Field{Name: "A", Type: tStr})
	sv := &types.StructValue{Type: st, Values: []any{"x"}}
	many := make([][]any, 0, distinctExactLimit+10)
	for i := 0; i < distinctExactLimit+10; i++ {
		many = append(many, []any{fmt.Sprint(i)})
	}
	cases := []struct {
		fn   string
		args []*types.Type
		init []any
		rows [][]any
	}{
		{"ATTR", ts(st), nil, [][]any{{sv}, {nil}}},
		{"AVG", ts(tInt), nil, [][]any{{int32(1)}, {int32(4)}}},
		{"COLLECT_LIST", ts(types.ArrayOf(tInt)), nil, [][]any{{[]any{int32(1), nil}}, {nil}}},
		{"COLLECT_SET", ts(types.DecimalOf(4, 2)), nil, [][]any{{aggDec("1.50")}, {aggDec("2.25")}}},
		{"CORRELATION", ts(tDbl, tDbl), nil, [][]any{{1.0, 2.0}, {2.0, 3.5}, {3.0, 1.0}}},
		{"COUNT", nil, nil, [][]any{{}, {}}},
		{"COUNT_DISTINCT", ts(tStr), nil, [][]any{{"a"}, {"b"}}},
		{"COUNT_DISTINCT", ts(tStr), nil, many},
		{"EARLIEST_BY_OFFSET", ts(st, tInt), []any{int32(2)}, [][]any{{sv}, {nil}}},
		{"HISTOGRAM", ts(tStr), nil, [][]any{{"a"}, {"a"}, {"b"}}},
		{"LATEST_BY_OFFSET", ts(types.BytesType), nil, [][]any{{[]byte("a")}, {[]byte("b")}}},
		{"MAX", ts(types.TimestampType), nil, [][]any{{types.Timestamp(5)}, {types.Timestamp(3)}}},
		{"MIN", ts(types.DateType), nil, [][]any{{types.Date(5)}, {types.Date(3)}}},
		{"STDDEV_SAMP", ts(tInt), nil, [][]any{{int32(1)}, {int32(4)}, {int32(9)}}},
		{"STDDEV_SAMPLE", ts(tBig), nil, [][]any{{int64(1)}, {int64(4)}, {int64(9)}}},
		{"SUM", ts(types.DecimalOf(6, 2)), nil, [][]any{{aggDec("1.50")}, {aggDec("2.25")}}},
		{"SUM_LIST", ts(types.ArrayOf(tDbl)), nil, [][]any{{[]any{1.5, 2.0}}}},
		{"TOPK", ts(tInt, tStr, tInt), []any{int32(2)}, [][]any{{int32(3), "c"}, {int32(5), nil}, {int32(4), "d"}}},
		{"TOPKDISTINCT", ts(types.TimeType, tInt), []any{int32(2)}, [][]any{{types.Time(3)}, {types.Time(5)}}},
	}
	reg := NewAggregates()
	for _, c := range cases {
		t.Run(fmt.Sprint(c.fn, c.args, len(c.rows)), func(t *testing.T) {
			agg, err := reg.Resolve(c.fn, c.args, c.init)
			if err != nil {
				t.Fatal(err)
			}
			acc := accumulate(t, agg, c.rows...)
			if err := conforms(acc, agg.StateType()); err != nil {
				t.Fatalf("state %s: %v", showAgg(acc), err)
			}
			back := roundTrip(t, agg.StateType(), acc)
			last := c.rows[len(c.rows)-1]
			for _, step := range []string{"restored", "after one more row"} {
				want, _ := agg.Result(acc)
				got, _ := agg.Result(back)
				if err := conforms(want, agg.ReturnType()); err != nil {
					t.Fatalf("result %s: %v", showAgg(want), err)
				}
				if showAgg(got) != showAgg(want) {
					t.Fatalf("%s: result %s, want %s", step, showAgg(got), showAgg(want))
				}
				acc, _ = agg.Add(acc, last)
				back, _ = agg.Add(back, last)
			}
		})
	}
}

func roundTrip(t *testing.T, typ *types.Type, v any) any {
	t.Helper()
	codec, err := format.NewValueCodec(format.Spec{Name: format.JSON}, []types.Column{{Name: "STATE", Type: typ}})
	if err != nil {
		t.Fatal(err)
	}
	data, err := codec.Encode(nil, []any{v})
	if err != nil {
		t.Fatalf("encode %s: %v", showAgg(v), err)
	}
	dst := make([]any, 1)
	if err := codec.Decode(data, dst); err != nil {
		t.Fatalf("decode %s: %v", data, err)
	}
	return dst[0]
}

// conforms checks that v has the Go representation of SQL type t.
func conforms(v any, t *types.Type) error {
	if v == nil {
		return nil
	}
	ok := true
	switch t.Kind {
	case types.KindBoolean:
		_, ok = v.(bool)
	case types.KindInteger:
		_, ok = v.(int32)
	case types.KindBigint:
		_, ok = v.(int64)
	case types.KindDouble:
		_, ok = v.(float64)
	case types.KindDecimal:
		d, isDec := v.(*apd.Decimal)
		ok = isDec && d.Exponent == -int32(t.Scale)
	case types.KindString:
		_, ok = v.(string)
	case types.KindBytes:
		_, ok = v.([]byte)
	case types.KindTimestamp:
		_, ok = v.(types.Timestamp)
	case types.KindDate:
		_, ok = v.(types.Date)
	case types.KindTime:
		_, ok = v.(types.Time)
	default:
		return conformsContainer(v, t)
	}
	if !ok {
		return fmt.Errorf("%T is not a %s", v, t)
	}
	return nil
}

func conformsContainer(v any, t *types.Type) error {
	switch x := v.(type) {
	case []any:
		if t.Kind == types.KindArray {
			return conformsAll(x, func(int) *types.Type { return t.Elem })
		}
	case map[string]any:
		if t.Kind == types.KindMap {
			vals := make([]any, 0, len(x))
			for _, e := range x {
				vals = append(vals, e)
			}
			return conformsAll(vals, func(int) *types.Type { return t.Elem })
		}
	case *types.StructValue:
		if t.Kind == types.KindStruct && x.Type.Equal(t) && len(x.Values) == len(t.Fields) {
			return conformsAll(x.Values, func(i int) *types.Type { return t.Fields[i].Type })
		}
	}
	return fmt.Errorf("%T is not a %s", v, t)
}

func conformsAll(vals []any, typeOf func(int) *types.Type) error {
	for i, e := range vals {
		if err := conforms(e, typeOf(i)); err != nil {
			return err
		}
	}
	return nil
}
