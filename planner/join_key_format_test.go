package planner_test

import (
	"testing"

	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/functions"
	"github.com/sqlstream/sqlstream/sql/parser"
)

// TestForeignKeyJoinReformatsRegistryKeyedRight: a foreign-key join's
// right table keyed in a registry format is reformatted into the left's
// key format (physical/testdata/join_key_format pins the topology); one
// keyed in KAFKA is not, nor is any under LegacyRegistryJoinSteps (commands
// recorded before).
func TestForeignKeyJoinReformatsRegistryKeyedRight(t *testing.T) {
	for _, c := range []struct {
		rightFormat string
		legacy      bool
		want        bool
	}{{"AVRO", false, true}, {"AVRO", true, false}, {"KAFKA", false, false}} {
		reg := &subjects{schemas: map[string]format.RegisteredSchema{}}
		p := planner.New(planner.NewCatalog(), functions.NewRegistry(), planner.Defaults{SchemaRegistry: reg, LegacyRegistryJoinSteps: c.legacy})
		for _, sql := range []string{
			`CREATE TABLE l (id BIGINT PRIMARY KEY, fk BIGINT) WITH (KAFKA_TOPIC='l', KEY_FORMAT='AVRO', VALUE_FORMAT='JSON', PARTITIONS=2);`,
			`CREATE TABLE r (id BIGINT PRIMARY KEY, v INT) WITH (KAFKA_TOPIC='r', KEY_FORMAT='` + c.rightFormat + `', VALUE_FORMAT='JSON', PARTITIONS=2);`,
		} {
			_, src, err := createSource(t, p, sql)
			if err != nil {
				t.Fatal(err)
			}
			p.Catalog.Put(src)
		}
		stmts, err := parser.Parse(`CREATE TABLE o AS SELECT l.id, v FROM l JOIN r ON l.fk = r.id;`)
		if err != nil {
			t.Fatal(err)
		}
		plan, err := p.PlanCreateAs(stmts[0].(*ast.CreateAsSelect))
		if err != nil {
			t.Fatal(err)
		}
		if got := plan.Join.Right.Reformat; got != c.want {
			t.Errorf("right key %s, legacy %v: Reformat %v, want %v", c.rightFormat, c.legacy, got, c.want)
		}
	}
}

// TestWindowedRegistryJoinRepartitions: a stream–stream join of windowed
// streams keyed in a registry format repartitions both sides, so time
// windows of other sizes join (physical/testdata/join_key_format pins
// the topology); under LegacyWindowedJoins (commands recorded before) a
// session join reads its sources as it did and windows of other sizes
// are refused, as they are for KAFKA keys.
func TestWindowedRegistryJoinRepartitions(t *testing.T) {
	for _, c := range []struct {
		keyFormat, right string
		legacy           bool
		want             string // "rekeyed", "kept" or "refused"
	}{
		{"JSON_SR", "WINDOW_TYPE='SESSION'", false, "rekeyed"},
		{"JSON_SR", "WINDOW_TYPE='TUMBLING', WINDOW_SIZE='2 SECONDS'", false, "rekeyed"},
		{"JSON_SR", "WINDOW_TYPE='SESSION'", true, "kept"},
		{"JSON_SR", "WINDOW_TYPE='TUMBLING', WINDOW_SIZE='2 SECONDS'", true, "refused"},
		{"KAFKA", "WINDOW_TYPE='SESSION'", false, "kept"},
		{"KAFKA", "WINDOW_TYPE='TUMBLING', WINDOW_SIZE='2 SECONDS'", false, "refused"},
	} {
		left := "WINDOW_TYPE='HOPPING', WINDOW_SIZE='5 SECONDS'"
		if c.right == "WINDOW_TYPE='SESSION'" {
			left = c.right
		}
		reg := &subjects{schemas: map[string]format.RegisteredSchema{}}
		p := planner.New(planner.NewCatalog(), functions.NewRegistry(), planner.Defaults{SchemaRegistry: reg, LegacyWindowedJoins: c.legacy})
		for _, sql := range []string{
			`CREATE STREAM l (id INT KEY, v BIGINT) WITH (KAFKA_TOPIC='l', KEY_FORMAT='` + c.keyFormat + `', VALUE_FORMAT='JSON', PARTITIONS=1, ` + left + `);`,
			`CREATE STREAM r (id INT KEY, v BIGINT) WITH (KAFKA_TOPIC='r', KEY_FORMAT='` + c.keyFormat + `', VALUE_FORMAT='JSON', PARTITIONS=1, ` + c.right + `);`,
		} {
			_, src, err := createSource(t, p, sql)
			if err != nil {
				t.Fatal(err)
			}
			p.Catalog.Put(src)
		}
		stmts, err := parser.Parse(`CREATE STREAM o AS SELECT l.id, l.v AS lv, r.v AS rv FROM l JOIN r WITHIN 1 MINUTE ON l.id = r.id;`)
		if err != nil {
			t.Fatal(err)
		}
		got := "kept"
		plan, err := p.PlanCreateAs(stmts[0].(*ast.CreateAsSelect))
		switch {
		case err != nil:
			got = "refused"
		case plan.Join.Left.Rekeyed() && plan.Join.Right.Rekeyed():
			got = "rekeyed"
		case plan.Join.Left.Rekeyed() || plan.Join.Right.Rekeyed():
			got = "one side rekeyed"
		}
		if got != c.want {
			t.Errorf("%s keys, right %s, legacy %v: %s (%v), want %s", c.keyFormat, c.right, c.legacy, got, err, c.want)
		}
	}
}

// TestWindowedTableRegistryJoinRepartitions: a join of windowed tables,
// or of a windowed stream and a windowed table, keyed in a registry
// format repartitions every side (tables reformatted, the stream
// re-keyed; physical/testdata/join_key_format pins the topologies);
// under LegacyWindowedTableJoins (commands recorded with "sources/3")
// each side is read from its own topic, as for KAFKA keys; windows of
// another size are refused either way.
func TestWindowedTableRegistryJoinRepartitions(t *testing.T) {
	for _, c := range []struct {
		keyFormat, left, rightSize string
		legacy                     bool
		want                       string // "repartitioned", "kept" or "refused"
	}{
		{"AVRO", "TABLE", "2 SECONDS", false, "repartitioned"},
		{"PROTOBUF", "STREAM", "2 SECONDS", false, "repartitioned"},
		{"AVRO", "TABLE", "2 SECONDS", true, "kept"},
		{"AVRO", "STREAM", "2 SECONDS", true, "kept"},
		{"KAFKA", "TABLE", "2 SECONDS", false, "kept"},
		{"AVRO", "TABLE", "3 SECONDS", false, "refused"},
	} {
		reg := &subjects{schemas: map[string]format.RegisteredSchema{}}
		p := planner.New(planner.NewCatalog(), functions.NewRegistry(), planner.Defaults{SchemaRegistry: reg, LegacyWindowedTableJoins: c.legacy})
		key := "PRIMARY KEY"
		if c.left == "STREAM" {
			key = "KEY"
		}
		for _, sql := range []string{
			`CREATE ` + c.left + ` l (id INT ` + key + `, v BIGINT) WITH (KAFKA_TOPIC='l', KEY_FORMAT='` + c.keyFormat + `', VALUE_FORMAT='JSON', PARTITIONS=2, WINDOW_TYPE='TUMBLING', WINDOW_SIZE='2 SECONDS');`,
			`CREATE TABLE r (id INT PRIMARY KEY, w BIGINT) WITH (KAFKA_TOPIC='r', KEY_FORMAT='` + c.keyFormat + `', VALUE_FORMAT='JSON', PARTITIONS=2, WINDOW_TYPE='TUMBLING', WINDOW_SIZE='` + c.rightSize + `');`,
		} {
			_, src, err := createSource(t, p, sql)
			if err != nil {
				t.Fatal(err)
			}
			p.Catalog.Put(src)
		}
		stmts, err := parser.Parse(`CREATE ` + c.left + ` o AS SELECT l.id, v, w FROM l JOIN r ON l.id = r.id;`)
		if err != nil {
			t.Fatal(err)
		}
		got := "kept"
		plan, err := p.PlanCreateAs(stmts[0].(*ast.CreateAsSelect))
		if err != nil {
			got = "refused"
		} else {
			l, r := plan.Join.Left, plan.Join.Right
			switch {
			case (l.Reformat || l.Rekeyed()) && r.Reformat:
				got = "repartitioned"
			case l.Reformat || l.Rekeyed() || r.Reformat || r.Rekeyed():
				got = "one side repartitioned"
			}
		}
		if got != c.want {
			t.Errorf("%s %s keys, right size %s, legacy %v: %s (%v), want %s", c.left, c.keyFormat, c.rightSize, c.legacy, got, err, c.want)
		}
	}
}
