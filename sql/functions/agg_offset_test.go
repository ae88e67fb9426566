package functions

import (
	"testing"
	"time"

	"github.com/sqlstream/sqlstream/sql/types"
)

func TestByOffsetAggregates(t *testing.T) {
	i12, i13 := int32(12), int32(13)
	runAggCases(t, NewAggregates(), []aggCase{
		{name: "latest ignores nulls by default", fn: "LATEST_BY_OFFSET", args: ts(tInt),
			ops: []aggOp{addRow(i12), addRow(nil), addRow(i13)}, want: strs("12", "12", "13")},
		{name: "latest with ignoreNulls false", fn: "LATEST_BY_OFFSET", args: ts(tInt, tBool), init: []any{false},
			ops: []aggOp{addRow(i12), addRow(nil), addRow(i13)}, want: strs("12", "null", "13")},
		{name: "latest 2 ignoring nulls", fn: "LATEST_BY_OFFSET", args: ts(tInt, tInt, tBool), init: []any{int32(2), true},
			ops: []aggOp{addRow(i12), addRow(nil), addRow(i13)}, want: strs("[12]", "[12]", "[12, 13]")},
		{name: "latest 2 keeping nulls", fn: "LATEST_BY_OFFSET", args: ts(tInt, tInt, tBool), init: []any{int32(2), false},
			ops: []aggOp{addRow(i12), addRow(nil), addRow(i13)}, want: strs("[12]", "[12, null]", "[null, 13]")},
		{name: "latest 2 of all nulls", fn: "LATEST_BY_OFFSET", args: ts(tInt, tInt), init: []any{int32(2)},
			ops: []aggOp{addRow(nil), addRow(nil)}, want: strs("[]", "[]")},
		{name: "latest of all nulls", fn: "LATEST_BY_OFFSET", args: ts(tInt),
			ops: []aggOp{addRow(nil), addRow(nil)}, want: strs("null", "null")},
		{name: "earliest keeps the first", fn: "EARLIEST_BY_OFFSET", args: ts(types.DecimalOf(3, 2), tBool), init: []any{true},
			ops: []aggOp{addRow(aggDec("3.40")), addRow(aggDec("8.90"))}, want: strs("3.40", "3.40")},
		{name: "earliest null first ignoring nulls", fn: "EARLIEST_BY_OFFSET", args: ts(tInt, tBool), init: []any{true},
			ops: []aggOp{addRow(nil), addRow(i13)}, want: strs("null", "13")},
		{name: "earliest null first keeping nulls", fn: "EARLIEST_BY_OFFSET", args: ts(tInt, tBool), init: []any{false},
			ops: []aggOp{addRow(nil), addRow(i13)}, want: strs("null", "null")},
		{name: "earliest 2 keeping nulls", fn: "EARLIEST_BY_OFFSET", args: ts(tInt, tInt, tBool), init: []any{int32(2), false},
			ops: []aggOp{addRow(i12), addRow(nil), addRow(i13)}, want: strs("[12]", "[12, null]", "[12, null]")},
		{name: "earliest 2 ignoring nulls", fn: "EARLIEST_BY_OFFSET", args: ts(tInt, tInt), init: []any{int32(2)},
			ops: []aggOp{addRow(nil), addRow(i13), addRow(int32(14)), addRow(int32(15))}, want: strs("[]", "[13]", "[13, 14]", "[13, 14]")},
		{name: "all init args may be passed to Add", fn: "EARLIEST_BY_OFFSET", args: ts(tInt, tInt, tBool), init: []any{int32(2), true},
			ops: []aggOp{addRow(i12, int32(2), true)}, want: strs("[12]")},
	})
}

// sessionMerge replays a record that bridges sessions the way Kafka
// Streams does: a fresh accumulator is merged with each existing session,
// then the record is added.
func sessionMerge(t *testing.T, agg Aggregator, sessions []any, row []any) any {
	t.Helper()
	acc := agg.Init()
	for _, s := range sessions {
		var err error
		if acc, err = agg.(Merger).Merge(acc, s); err != nil {
			t.Fatal(err)
		}
	}
	acc, err := agg.Add(acc, row)
	if err != nil {
		t.Fatal(err)
	}
	return acc
}

func TestByOffsetSessionMerges(t *testing.T) {
	reg := NewAggregates()
	for _, c := range []struct {
		name        string
		fn          string
		args        []*types.Type
		init        []any
		first, next any // the two sessions' records, in offset order
		bridge      any // the later record that merges them
		want        string
	}{
		{"latest", "LATEST_BY_OFFSET", ts(tInt), nil, int32(1), int32(3), int32(2), "2"},
		{"latest ignoring nulls", "LATEST_BY_OFFSET", ts(tInt), nil, int32(1), int32(3), nil, "3"},
		{"latest keeping nulls", "LATEST_BY_OFFSET", ts(tInt, tBool), []any{false}, int32(1), nil, int32(2), "2"},
		{"latest 2 keeping nulls", "LATEST_BY_OFFSET", ts(tInt, tInt, tBool), []any{int32(2), false}, int32(1), nil, int32(2), "[null, 2]"},
		{"latest 2 ignoring nulls", "LATEST_BY_OFFSET", ts(tInt, tInt, tBool), []any{int32(2), true}, int32(1), nil, int32(2), "[1, 2]"},
		{"latest 2 all nulls", "LATEST_BY_OFFSET", ts(tInt, tInt, tBool), []any{int32(2), false}, nil, nil, nil, "[null, null]"},
		{"earliest", "EARLIEST_BY_OFFSET", ts(tInt), nil, int32(1), int32(3), int32(2), "1"},
		{"earliest ignoring nulls", "EARLIEST_BY_OFFSET", ts(tInt, tBool), []any{true}, nil, int32(1), nil, "1"},
		{"earliest keeping nulls", "EARLIEST_BY_OFFSET", ts(tInt, tBool), []any{false}, nil, int32(1), nil, "null"},
		{"earliest 2 keeping nulls", "EARLIEST_BY_OFFSET", ts(tInt, tInt, tBool), []any{int32(2), false}, nil, int32(1), nil, "[null, 1]"},
		{"earliest 2 ignoring nulls", "EARLIEST_BY_OFFSET", ts(tInt, tInt, tBool), []any{int32(2), true}, nil, int32(1), nil, "[1]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			agg, err := reg.Resolve(c.fn, c.args, c.init)
			if err != nil {
				t.Fatal(err)
			}
			s1 := accumulate(t, agg, []any{c.first})
			s2 := accumulate(t, agg, []any{c.next})
			res, _ := agg.Result(sessionMerge(t, agg, []any{s1, s2}, []any{c.bridge}))
			if showAgg(res) != c.want {
				t.Errorf("got %s, want %s", showAgg(res), c.want)
			}
		})
	}
}

func TestByOffsetStateTypes(t *testing.T) {
	reg := NewAggregates()
	one, _ := reg.Resolve("LATEST_BY_OFFSET", ts(tStr), nil)
	many, _ := reg.Resolve("EARLIEST_BY_OFFSET", ts(tStr, tInt), []any{int32(3)})
	for _, c := range []struct {
		agg        Aggregator
		state, ret string
	}{
		{one, "STRUCT<`SEQ` BIGINT, `VAL` STRING>", "STRING"},
		{many, "ARRAY<STRUCT<`SEQ` BIGINT, `VAL` STRING>>", "ARRAY<STRING>"},
	} {
		if c.agg.StateType().String() != c.state || c.agg.ReturnType().String() != c.ret {
			t.Errorf("state %s return %s, want %s %s", c.agg.StateType(), c.agg.ReturnType(), c.state, c.ret)
		}
	}
}

// TestByOffsetAfterRestart checks that rows read by a new registry (a
// restarted server) count as later than those in state restored from an
// earlier one.
func TestByOffsetAfterRestart(t *testing.T) {
	before, _ := NewAggregates().Resolve("LATEST_BY_OFFSET", ts(tInt), nil)
	restored := accumulate(t, before, []any{int32(1)}, []any{int32(2)})
	time.Sleep(time.Millisecond)
	after, _ := NewAggregates().Resolve("LATEST_BY_OFFSET", ts(tInt), nil)
	fresh := accumulate(t, after, []any{int32(3)})
	for _, pair := range [][2]any{{restored, fresh}, {fresh, restored}} {
		m, _ := after.(Merger).Merge(pair[0], pair[1])
		if res, _ := after.Result(m); res != int32(3) {
			t.Errorf("merge after restart = %v, want 3", res)
		}
	}
}
