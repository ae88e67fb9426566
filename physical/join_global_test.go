package physical

import (
	"testing"

	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/functions"
	"github.com/sqlstream/sqlstream/sql/parser"
	"github.com/sqlstream/sqlstream/state"
)

// TestGlobalStoreInTableFormats: a global table's local copy keeps its
// rows in the table's own formats when they need no registry (a KAFKA
// key, DELIMITED values, after the row's timestamp), and a stream row
// finds its row there; a legacy query (Options.LegacyStoreKeysJSON)
// keeps JSON; a registry-format table is copied in JSON (no changelog
// to register its schemas under).
func TestGlobalStoreInTableFormats(t *testing.T) {
	for _, c := range []struct {
		valueFormat    string
		legacy         bool
		wantK, wantRow string
	}{
		{"DELIMITED", false, "3", "gold"},
		{"DELIMITED", true, "3", `{"LABEL":"gold"}`},
	} {
		p := planner.New(planner.NewCatalog(), functions.NewRegistry(), planner.Defaults{})
		stmts, err := parser.Parse(`CREATE STREAM orders (id INT KEY, tier INT) WITH (KAFKA_TOPIC='orders', VALUE_FORMAT='DELIMITED', PARTITIONS=1);
CREATE GLOBAL TABLE tiers (rank INT PRIMARY KEY, label VARCHAR) WITH (KAFKA_TOPIC='tiers', KEY_FORMAT='KAFKA', VALUE_FORMAT='` + c.valueFormat + `', PARTITIONS=1);
CREATE STREAM j AS SELECT o.id, t.label FROM orders o JOIN tiers t ON o.tier = t.rank;`)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range stmts[:2] {
			src, err := p.CreateSource(st.(*ast.CreateSource))
			if err != nil {
				t.Fatal(err)
			}
			p.Catalog.Put(src)
		}
		plan, err := p.PlanCreateAs(stmts[2].(*ast.CreateAsSelect))
		if err != nil {
			t.Fatal(err)
		}
		topo, err := Build(plan, Options{AppID: "app", LegacyStoreKeysJSON: c.legacy})
		if err != nil {
			t.Fatal(err)
		}
		g := topo.Globals[0]
		avro := *g.Source
		avro.KeyFormat, avro.ValueFormat = format.Spec{Name: format.Avro}, format.Spec{Name: format.Avro}
		if k, v := (internalFormats{}).globalFormats(&avro); k.Name != format.JSON || v.Name != format.JSON {
			t.Errorf("an AVRO table is copied as %s keys / %s values, want JSON", k.Name, v.Name)
		}
		db, err := state.OpenMem()
		if err != nil {
			t.Fatal(err)
		}
		store, err := dbStores{db}.Store(g.Name)
		if err != nil {
			t.Fatal(err)
		}
		loader, err := g.NewLoader(store, &logRecorder{})
		if err != nil {
			t.Fatal(err)
		}
		kafkaThree := []byte{0, 0, 0, 3}
		if err := loader.Load(&InRecord{Topic: "tiers", Key: kafkaThree, Value: []byte("gold"), Timestamp: 1000}); err != nil {
			t.Fatal(err)
		}
		wantKey := kafkaThree
		if c.legacy {
			wantKey = []byte(c.wantK)
		}
		v, err := store.Get(wantKey)
		if err != nil || len(v) < 8 || string(v[8:]) != c.wantRow {
			t.Errorf("legacy %v: the copy holds %q under %q (%v), want %s after the timestamp", c.legacy, v, wantKey, err, c.wantRow)
		}
		emit := &recordingEmitter{}
		task, err := topo.NewTask(0, &TaskEnv{Emit: emit, Log: &logRecorder{}, Stores: dbStores{db}, Globals: globalMap{g.Name: store}})
		if err != nil {
			t.Fatal(err)
		}
		if err := task.Process(&InRecord{Topic: "orders", Key: []byte{0, 0, 0, 1}, Value: []byte("3"), Timestamp: 2000}); err != nil {
			t.Fatal(err)
		}
		if len(emit.recs) != 1 || string(emit.recs[0].Value) != "gold" {
			t.Errorf("legacy %v: the join emitted %d records, want the order joined with gold", c.legacy, len(emit.recs))
		}
		db.Close()
	}
}

// recordingEmitter keeps the records emitted.
type recordingEmitter struct{ recs []OutRecord }

func (r *recordingEmitter) Emit(rec *OutRecord) {
	c := *rec
	c.Value = append([]byte(nil), rec.Value...)
	r.recs = append(r.recs, c)
}
