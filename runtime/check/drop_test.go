package check

import (
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
)

// TestDrop: a source's owner ends with it; INSERT INTO users are named
// first (readers and writers, sorted), then the sinks of CREATE … AS
// SELECT queries reading it; the wrong kind and a missing source are
// refused.
func TestDrop(t *testing.T) {
	s := &planner.Source{Name: "S", Kind: ast.Stream}
	a := &planner.Source{Name: "A", Kind: ast.Stream}
	b := &planner.Source{Name: "B", Kind: ast.Stream}
	owner := Query{ID: "CSAS_S_1", Plan: &planner.Plan{Sources: []*planner.Source{b}, Sink: s}}
	reader := Query{ID: "CSAS_A_2", Plan: &planner.Plan{Sources: []*planner.Source{s}, Sink: a}}
	insert := Query{ID: "INSERTQUERY_3", Plan: &planner.Plan{Sources: []*planner.Source{b}, Sink: s}}
	drop := &ast.Drop{Kind: ast.Stream, Name: "S"}

	if id, err := Drop(drop, s, []Query{owner}); err != nil || id != "CSAS_S_1" {
		t.Errorf("owner only: %q, %v", id, err)
	}
	_, err := Drop(drop, s, []Query{owner, reader})
	if err == nil || !strings.Contains(err.Error(), "The following streams and/or tables read from this source: [A].") {
		t.Errorf("a reader's sink: %v", err)
	}
	_, err = Drop(drop, s, []Query{owner, reader, insert})
	if err == nil || !strings.Contains(err.Error(), "read from this source: [].\nThe following queries write into this source: [INSERTQUERY_3].") {
		t.Errorf("an INSERT INTO writer first: %v", err)
	}
	if _, err := Drop(&ast.Drop{Kind: ast.Table, Name: "S"}, s, nil); err == nil || !strings.Contains(err.Error(), "Incompatible data source type is STREAM, but statement was DROP TABLE") {
		t.Errorf("wrong kind: %v", err)
	}
	if _, err := Drop(drop, nil, nil); err == nil || !strings.Contains(err.Error(), "Stream S does not exist.") {
		t.Errorf("missing: %v", err)
	}
}
