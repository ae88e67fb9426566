package repl

import (
	"slices"
	"testing"

	"github.com/sqlstream/sqlstream/api"
)

// TestCompletesQueryIDs: the persistent queries' ids SHOW QUERIES lists
// complete (TERMINATE, PAUSE, RESUME and EXPLAIN take them); a push
// query's id does not, and PAUSE and RESUME complete as keywords.
func TestCompletesQueryIDs(t *testing.T) {
	sources, queries := listedNames([]api.Entity{
		&api.StreamsList{Streams: []api.SourceInfo{{Name: "PAGEVIEWS"}}},
		&api.QueriesList{Queries: []api.RunningQuery{
			{ID: "CSAS_PRODUCT_VIEWS_1", QueryType: api.QueryPersistent},
			{ID: "transient_PAGEVIEWS_42", QueryType: api.QueryPush},
		}},
	})
	if !slices.Equal(sources, []string{"PAGEVIEWS"}) || !slices.Equal(queries, []string{"CSAS_PRODUCT_VIEWS_1"}) {
		t.Fatalf("sources %v, queries %v", sources, queries)
	}
	c := newCompleter()
	c.names = append(sources, queries...)
	for prefix, want := range map[string][]string{
		"CSAS": {"CSAS_PRODUCT_VIEWS_1"},
		"tran": nil,
		"PAU":  {"PAUSE"},
		"res":  {"resume"},
	} {
		if got := c.candidates(prefix); !slices.Equal(got, want) {
			t.Errorf("%q completes to %v, want %v", prefix, got, want)
		}
	}
}
