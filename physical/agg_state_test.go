package physical

import (
	"context"
	"fmt"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sr/srfake"

	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/schemaregistry"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/functions"
	"github.com/sqlstream/sqlstream/sql/parser"
)

// planFor plans the last statement of sqls after creating the sources
// the others declare.
func planFor(t testing.TB, sqls string) *planner.Plan {
	t.Helper()
	p := planner.New(planner.NewCatalog(), functions.NewRegistry(), planner.Defaults{})
	stmts, err := parser.Parse(sqls)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range stmts[:len(stmts)-1] {
		src, err := p.CreateSource(st.(*ast.CreateSource))
		if err != nil {
			t.Fatal(err)
		}
		p.Catalog.Put(src)
	}
	plan, err := p.PlanCreateAs(stmts[len(stmts)-1].(*ast.CreateAsSelect))
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

// aggregateOf is the plan's aggregation.
func aggregateOf(t testing.TB, plan *planner.Plan) *planner.Aggregate {
	t.Helper()
	chain, _, err := linearize(plan.Root)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range chain {
		if a, ok := n.(*planner.Aggregate); ok {
			return a
		}
	}
	t.Fatal("no aggregation in the plan")
	return nil
}

// TestAggStateEvolves: in every format that reads columns by name, a
// store row written by a query's accumulators is read by an upgraded
// query's: a kept aggregate (here moved to another position) keeps its
// accumulator, a new one starts from its initial value, a dropped one is
// ignored; the registry formats register both layouts under the
// changelog's value subject (compatible versions).
func TestAggStateEvolves(t *testing.T) {
	fake := srfake.New()
	t.Cleanup(fake.Close)
	t.Run("srfake", func(t *testing.T) { aggStateEvolves(t, fake.URL(), false) })
	t.Run("embedded", func(t *testing.T) { aggStateEvolves(t, embeddedRegistry(t), true) })
}

// embeddedRegistry serves sqlstream's own registry (real BACKWARD
// compatibility checks, its default) over a kfake cluster.
func embeddedRegistry(t *testing.T) string {
	t.Helper()
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cluster.Close)
	reg, err := schemaregistry.New(context.Background(), schemaregistry.WithKafka(kgo.SeedBrokers(cluster.ListenAddrs()...)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(reg.Close)
	hs := httptest.NewServer(reg.Handler())
	t.Cleanup(hs.Close)
	return hs.URL
}

// aggStateEvolves runs the upgrade over a registry; a checking one
// refuses the JSON_SR layout with a new property under BACKWARD, which
// is why an upgrade asks the registry (SchemaChanges) before it runs.
func aggStateEvolves(t *testing.T, url string, checks bool) {
	reg, err := format.NewRegistryClient(format.RegistryConfig{URLs: []string{url}})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{format.JSON, format.Avro, format.Protobuf, format.JSONSR} {
		t.Run(name, func(t *testing.T) {
			// The accumulators do not depend on the source's format: the
			// store's is spec.
			src := `CREATE STREAM s (k STRING KEY, x BIGINT, g STRING) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=1);`
			old := aggregateOf(t, planFor(t, src+`CREATE TABLE t AS SELECT g, COUNT(*) AS n, SUM(x) AS total FROM s GROUP BY g;`))
			next := aggregateOf(t, planFor(t, src+`CREATE TABLE t AS SELECT g, SUM(x) AS total, COUNT(x) AS c FROM s GROUP BY g;`))
			spec := format.Spec{Name: name, Registry: reg}
			f := internalFormats{}
			changelog := "app-" + name + "-Aggregate-Aggregate-Materialize-changelog"
			sf := f.aggStateSpec(spec, changelog, old)
			if sf.spec.Name != name {
				t.Fatalf("store values in %s, want the source's %s", sf.spec.Name, name)
			}
			enc, err := newAggState(old, sf)
			if err != nil {
				t.Fatal(err)
			}
			b, err := enc.Encode(nil, []any{int64(3), int64(42)})
			if err != nil {
				t.Fatal(err)
			}
			dec, err := newAggState(next, f.aggStateSpec(spec, changelog, next))
			if err != nil {
				t.Fatal(err)
			}
			accs := []any{"stale", "stale"}
			if err := dec.Decode(b, accs); err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(accs) != "[42 0]" {
				t.Errorf("upgraded accumulators %v, want SUM's 42 kept and COUNT(X) from 0", accs)
			}
			nb, err := dec.Encode(nil, []any{int64(43), int64(1)})
			if checks && name == format.JSONSR {
				if err == nil {
					t.Fatal("the registry took a JSON_SR schema with a property added to an open content model")
				}
				return
			}
			if err != nil {
				t.Fatalf("the upgraded layout cannot be written (its schema refused?): %v", err)
			}
			back := []any{nil, nil}
			if err := enc.Decode(nb, back); err != nil || fmt.Sprint(back) != "[0 43]" {
				t.Errorf("the old layout reads a new row as %v (%v), want [0 43]", back, err)
			}
		})
	}
}

// TestAccumulatorNames: an accumulator is named after its call and state
// type, the same call twice gets a suffix, legacy stores keep STATE_i.
func TestAccumulatorNames(t *testing.T) {
	src := `CREATE STREAM s (k STRING KEY, x BIGINT, y INT, g STRING) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=1);`
	a := aggregateOf(t, planFor(t, src+`CREATE TABLE t AS SELECT g, SUM(x) AS a, SUM(y) AS b, COUNT(*) AS c FROM s GROUP BY g;`))
	b := aggregateOf(t, planFor(t, src+`CREATE TABLE t AS SELECT g, COUNT(*) AS c, SUM(x) AS a FROM s GROUP BY g;`))
	ca, cb := accumulatorColumns(a, false), accumulatorColumns(b, false)
	if ca[0].Name != cb[1].Name || ca[2].Name != cb[0].Name || ca[0].Name == ca[1].Name {
		t.Errorf("names %v and %v: SUM(X) and COUNT(*) must keep theirs, SUM(Y) another", ca, cb)
	}
	for _, c := range ca {
		if !regexp.MustCompile(`^KSQL_AGG_[A-Z]+_[0-9A-F]{8}$`).MatchString(c.Name) {
			t.Errorf("%s is not a plain identifier", c.Name)
		}
	}
	if l := accumulatorColumns(a, true); l[1].Name != "STATE_1" {
		t.Errorf("legacy names %v", l)
	}
}

// TestAggStateKeepsNulls: an accumulator that is NULL (MAX before any
// non-null value) reads back as NULL in every format, not as a
// default value (proto3 writes NULL as 0 unless wrapped).
func TestAggStateKeepsNulls(t *testing.T) {
	fake := srfake.New()
	t.Cleanup(fake.Close)
	reg, err := format.NewRegistryClient(format.RegistryConfig{URLs: []string{fake.URL()}})
	if err != nil {
		t.Fatal(err)
	}
	src := `CREATE STREAM s (k STRING KEY, x BIGINT, g STRING) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=1);`
	agg := aggregateOf(t, planFor(t, src+`CREATE TABLE t AS SELECT g, MAX(x) AS m, COUNT(*) AS n FROM s GROUP BY g;`))
	for _, name := range []string{format.JSON, format.Avro, format.Protobuf, format.JSONSR, format.Delimited} {
		t.Run(name, func(t *testing.T) {
			sf := internalFormats{}.aggStateSpec(format.Spec{Name: name, Registry: reg}, "app-null-"+name+"-changelog", agg)
			st, err := newAggState(agg, sf)
			if err != nil {
				t.Fatal(err)
			}
			b, err := st.Encode(nil, []any{nil, int64(2)})
			if err != nil {
				t.Fatal(err)
			}
			accs := []any{"stale", "stale"}
			if err := st.Decode(b, accs); err != nil || accs[0] != nil || accs[1] != int64(2) {
				t.Errorf("%s reads MAX's NULL accumulator back as %v (%v)", name, accs, err)
			}
		})
	}
}

// TestCompareStateRegistryFormats: an aggregate added to a JSON_SR store
// is kept, its store's subject listed among the schema changes the
// upgrade asks the registry about (SchemaChanges); a PROTOBUF field
// number taking another type is refused; an aggregate added at the end of a
// PROTOBUF store is kept.
func TestCompareStateRegistryFormats(t *testing.T) {
	fake := srfake.New()
	t.Cleanup(fake.Close)
	reg, err := format.NewRegistryClient(format.RegistryConfig{URLs: []string{fake.URL()}})
	if err != nil {
		t.Fatal(err)
	}
	topology := func(valueFormat, query string) *Topology {
		p := planner.New(planner.NewCatalog(), functions.NewRegistry(), planner.Defaults{SchemaRegistry: reg})
		stmts, err := parser.Parse(`CREATE STREAM s (k STRING KEY, x BIGINT, d DOUBLE, g STRING) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='` + valueFormat + `', PARTITIONS=1);` + query)
		if err != nil {
			t.Fatal(err)
		}
		src, err := p.CreateSource(stmts[0].(*ast.CreateSource))
		if err != nil {
			t.Fatal(err)
		}
		p.Catalog.Put(src)
		plan, err := p.PlanCreateAs(stmts[1].(*ast.CreateAsSelect))
		if err != nil {
			t.Fatal(err)
		}
		topo, err := Build(plan, Options{AppID: "app"})
		if err != nil {
			t.Fatal(err)
		}
		return topo
	}
	for _, c := range []struct {
		format, old, next, want string
	}{
		// kept here; whether its subject takes the new property is the
		// registry's answer under its rule (SchemaChanges)
		{format.JSONSR, "SELECT g, COUNT(*) AS n FROM s GROUP BY g", "SELECT g, COUNT(*) AS n, SUM(x) AS t FROM s GROUP BY g", ""},
		{format.JSONSR, "SELECT g, COUNT(*) AS n, SUM(x) AS t FROM s GROUP BY g", "SELECT g, COUNT(*) AS n FROM s GROUP BY g", ""},
		{format.Protobuf, "SELECT g, COUNT(*) AS n FROM s GROUP BY g", "SELECT g, COUNT(*) AS n, SUM(d) AS t FROM s GROUP BY g", ""},
		{format.Protobuf, "SELECT g, COUNT(*) AS n, SUM(x) AS t FROM s GROUP BY g", "SELECT g, SUM(d) AS u, COUNT(*) AS n FROM s GROUP BY g", "PROTOBUF fields are numbered"},
		{format.Avro, "SELECT g, COUNT(*) AS n, SUM(x) AS t FROM s GROUP BY g", "SELECT g, SUM(d) AS u, COUNT(*) AS n FROM s GROUP BY g", ""},
	} {
		old, next := topology(c.format, "CREATE TABLE t AS "+c.old+";"), topology(c.format, "CREATE TABLE t AS "+c.next+";")
		_, err := CompareState(old, next)
		if err == nil && !slices.ContainsFunc(SchemaChanges(old, next), func(s SubjectSchema) bool {
			return s.Subject == "app-Aggregate-Aggregate-Materialize-changelog-value"
		}) {
			t.Errorf("%s: %s → %s: the store's subject is not among the schema changes %v", c.format, c.old, c.next, SchemaChanges(old, next))
		}
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %s → %s refused: %v", c.format, c.old, c.next, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %s → %s: %v, want a refusal saying %q", c.format, c.old, c.next, err, c.want)
		}
	}
}
