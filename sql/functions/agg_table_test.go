package functions

import (
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/sql/types"
)

func TestCheckTableAggregates(t *testing.T) {
	reg := NewAggregates()
	resolve := func(name string, args ...*types.Type) Aggregator {
		agg, err := reg.Resolve(name, args, nil)
		if err != nil {
			t.Fatal(err)
		}
		return agg
	}
	latest, min, max, sum := resolve("LATEST_BY_OFFSET", tInt), resolve("MIN", tBig), resolve("MAX", tBig), resolve("SUM", tInt)
	err := CheckTableAggregates([]string{"latest_by_offset", "MIN", "MAX", "SUM", "MIN"}, []Aggregator{latest, min, max, sum, min})
	want := "The aggregation functions LATEST_BY_OFFSET, MIN and MAX cannot be applied to a table source, only to a stream source."
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
	err = CheckTableAggregates([]string{"SUM", "MIN"}, []Aggregator{sum, min})
	if want := "The aggregation function MIN cannot be applied to a table source, only to a stream source."; err == nil || err.Error() != want {
		t.Errorf("got %v", err)
	}
	if err := CheckTableAggregates([]string{"SUM"}, []Aggregator{sum}); err != nil {
		t.Errorf("SUM on a table: %v", err)
	}
}

func TestAppliesToTables(t *testing.T) {
	reg := NewAggregates()
	var tables []string
	for _, n := range reg.Names() {
		if reg.AppliesToTables(n) {
			tables = append(tables, n)
		}
	}
	want := "ATTR AVG COLLECT_LIST CORRELATION COUNT HISTOGRAM STDDEV_SAMP STDDEV_SAMPLE SUM SUM_LIST"
	if got := strings.Join(tables, " "); got != want {
		t.Errorf("table aggregates %s, want %s", got, want)
	}
	if reg.AppliesToTables("NOPE") {
		t.Errorf("NOPE applies to tables")
	}
}
