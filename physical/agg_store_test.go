package physical_test

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	hamba "github.com/hamba/avro/v2"
	"github.com/twmb/franz-go/pkg/sr"
	"github.com/twmb/franz-go/pkg/sr/srfake"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/functions"
	"github.com/sqlstream/sqlstream/sql/parser"
	"github.com/sqlstream/sqlstream/state"
)

// avroAggregation is a task of an aggregation over an AVRO stream
// (AVRO keys and values) on in-memory stores, through an srfake
// registry, and the codecs that write its input records.
type avroAggregation struct {
	topo       *physical.Topology
	task       *physical.Task
	emit       *copyingRecorder
	key, value format.Codec
}

// copyingRecorder keeps copies of the records emitted (a sink reuses its
// buffers once Emit returns).
type copyingRecorder struct{ recs []physical.OutRecord }

func (r *copyingRecorder) Emit(rec *physical.OutRecord) {
	c := *rec
	c.Key, c.Value = bytes.Clone(rec.Key), bytes.Clone(rec.Value)
	r.recs = append(r.recs, c)
}

func newAvroAggregation(t *testing.T, reg format.SchemaRegistry, stores mapStores, query string, opts physical.Options) *avroAggregation {
	t.Helper()
	return newAvroAggregationOver(t, reg, stores, `CREATE STREAM s (k STRING KEY, x BIGINT) WITH (KAFKA_TOPIC='s', KEY_FORMAT='AVRO', VALUE_FORMAT='AVRO', PARTITIONS=1);`, query, opts)
}

// newAvroAggregationOver is newAvroAggregation over the source source
// creates (its topic s).
func newAvroAggregationOver(t *testing.T, reg format.SchemaRegistry, stores mapStores, source, query string, opts physical.Options) *avroAggregation {
	t.Helper()
	p := planner.New(planner.NewCatalog(), functions.NewRegistry(), planner.Defaults{SchemaRegistry: reg})
	stmts, err := parser.Parse(source + query)
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
	opts.AppID = "app"
	a := &avroAggregation{emit: &copyingRecorder{}}
	if a.topo, err = physical.Build(plan, opts); err != nil {
		t.Fatal(err)
	}
	if a.task, err = a.topo.NewTask(0, &physical.TaskEnv{Emit: a.emit, Stores: stores}); err != nil {
		t.Fatal(err)
	}
	if a.key, err = format.NewKeyCodec(src.KeyFormat, src.Schema.Keys()); err != nil {
		t.Fatal(err)
	}
	if a.value, err = format.NewValueCodec(src.ValueFormat, src.Schema.Values()); err != nil {
		t.Fatal(err)
	}
	return a
}

// send processes the record k → x at ts.
func (a *avroAggregation) send(t *testing.T, k string, x int64, ts int64) {
	t.Helper()
	a.sendValues(t, k, ts, x)
}

// sendValues processes the record k → values at ts.
func (a *avroAggregation) sendValues(t *testing.T, k string, ts int64, values ...any) {
	t.Helper()
	kb, err := a.key.Encode(nil, []any{k})
	if err != nil {
		t.Fatal(err)
	}
	vb, err := a.value.Encode(nil, values)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.task.Process(&physical.InRecord{Topic: "s", Key: kb, Value: vb, Timestamp: ts}); err != nil {
		t.Fatal(err)
	}
}

// avroDatum reads Confluent wire-format bytes b with hamba/avro by the
// schema their id names, and returns the subjects that schema is
// registered under.
func avroDatum(t *testing.T, cl *sr.Client, b []byte) (any, []string) {
	t.Helper()
	var h sr.ConfluentHeader
	id, payload, err := h.DecodeID(b)
	if err != nil {
		t.Fatalf("%q is not in Confluent's wire format: %v", b, err)
	}
	s, err := cl.SchemaByID(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := hamba.Unmarshal(hamba.MustParse(s.Schema), payload, &v); err != nil {
		t.Fatalf("hamba/avro cannot read %q with %s: %v", payload, s.Schema, err)
	}
	subjects, err := cl.SubjectsByID(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return v, subjects
}

// TestAggregateStoresInQueryFormats: over an AVRO stream, every store
// of an aggregation is written in the query's formats under its
// changelog's own subjects, as a standard deserializer (hamba/avro by
// the schema id) reads them: the aggregate store's keys (the group key
// in Avro, windowed keys then their window as Kafka Streams lays them
// out), the EMIT FINAL buffer's results and a sliding window's raw
// arguments; a second task over the same stores (a restart) reads them
// back and goes on counting.
func TestAggregateStoresInQueryFormats(t *testing.T) {
	fake := srfake.New()
	t.Cleanup(fake.Close)
	reg, err := format.NewRegistryClient(format.RegistryConfig{URLs: []string{fake.URL()}})
	if err != nil {
		t.Fatal(err)
	}
	cl, err := sr.NewClient(sr.URLs(fake.URL()))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, window string
		final        bool
		keyed        string                       // the store keyed by the group key
		split        func([]byte) ([]byte, error) // its key's inner key
		extra        string                       // a store beside the aggregate's, holding Avro rows after their timestamp
	}{
		{name: "unwindowed", split: func(k []byte) ([]byte, error) { return k, nil }},
		{name: "tumbling", window: "WINDOW TUMBLING (SIZE 10 SECONDS)", split: windowInner},
		{name: "hopping", window: "WINDOW HOPPING (SIZE 10 SECONDS, ADVANCE BY 5 SECONDS)", split: windowInner},
		{name: "session", window: "WINDOW SESSION (10 SECONDS)", split: sessionInner},
		// A sliding window keeps raw rows (key ‖ time ‖ seq), not accumulators.
		{name: "sliding", window: "WINDOW SLIDING (SIZE 10 SECONDS)", keyed: "Aggregate-Sliding-Records", split: windowInner, extra: "Aggregate-Sliding-Records"},
		// A day's retention: no purge (mapStore cannot).
		{name: "final", window: "WINDOW TUMBLING (SIZE 10 SECONDS, RETENTION 1 DAY, GRACE PERIOD 0 SECONDS)", final: true, split: windowInner, extra: "Aggregate-Aggregate-Suppress"},
	} {
		t.Run(c.name, func(t *testing.T) {
			emit := ""
			if c.final {
				emit = " EMIT FINAL"
			}
			query := fmt.Sprintf("CREATE TABLE t_%s WITH (FORMAT='JSON') AS SELECT k, COUNT(*) AS n, SUM(x) AS total FROM s %s GROUP BY k%s;", c.name, c.window, emit)
			stores := mapStores{}
			a := newAvroAggregation(t, reg, stores, query, physical.Options{})
			a.send(t, "ann", 1, 1000)
			a.send(t, "ann", 2, 2000)
			a.send(t, "bob", 5, 3000)
			if c.keyed == "" {
				c.keyed = "Aggregate-Aggregate-Materialize"
			}
			store := stores[c.keyed]
			if len(store) == 0 {
				t.Fatalf("the store %s is empty", c.keyed)
			}
			keys := map[string]bool{}
			for k := range store {
				inner, err := c.split([]byte(k))
				if err != nil {
					t.Fatal(err)
				}
				v, subjects := avroDatum(t, cl, inner)
				keys[fmt.Sprint(v)] = true
				if want := "app-" + c.keyed + "-changelog-key"; !slices.Contains(subjects, want) {
					t.Errorf("store key %q has a schema of the subjects %v, want %s", k, subjects, want)
				}
			}
			if fmt.Sprint(keys) != "map[map[string:ann]:true map[string:bob]:true]" && fmt.Sprint(keys) != "map[ann:true bob:true]" {
				t.Errorf("store keys %v, want ann and bob in Avro", keys)
			}
			if c.extra != "" {
				checkAvroRows(t, cl, stores[c.extra], "app-"+c.extra+"-changelog-value", c.final)
			}
			// A restart: a new topology and task over the same stores.
			a = newAvroAggregation(t, reg, stores, query, physical.Options{})
			a.send(t, "ann", 4, 4000)
			if c.final {
				a.send(t, "bob", 1, 20_000) // closes [0, 10 s)
			}
			if got := annResults(t, a); !slices.ContainsFunc(got, func(v string) bool { return strings.Contains(v, `"N":3,"TOTAL":7`) }) {
				t.Errorf("ann's results after the restart: %s, want one with N 3 and TOTAL 7 (the stored state read back)", got)
			}
		})
	}
}

// windowInner is a window store key's inner key.
func windowInner(k []byte) ([]byte, error) {
	inner, _, _, err := state.SplitWindowKey(k)
	return inner, err
}

// sessionInner is a session store key's inner key.
func sessionInner(k []byte) ([]byte, error) {
	inner, _, _, err := state.SplitSessionKey(k)
	return inner, err
}

// checkAvroRows checks every value of a store (but the EMIT FINAL
// buffer's stream time) is a timestamp then an Avro row under subject,
// and the buffer's keys' group key Avro under the changelog's key
// subject.
func checkAvroRows(t *testing.T, cl *sr.Client, store mapStore, subject string, final bool) {
	t.Helper()
	if len(store) == 0 {
		t.Fatalf("no rows for %s", subject)
	}
	for k, v := range store {
		if final && strings.HasSuffix(k, "stream-time") {
			continue
		}
		if len(v) < 8 {
			t.Fatalf("%q → %q has no timestamp", k, v)
		}
		row, subjects := avroDatum(t, cl, v[8:])
		if !slices.Contains(subjects, subject) {
			t.Errorf("row %v has a schema of the subjects %v, want %s", row, subjects, subject)
		}
		if final { // window end ‖ group key ‖ window start
			keySubject := strings.TrimSuffix(subject, "-value") + "-key"
			if key, subjects := avroDatum(t, cl, []byte(k[8:len(k)-8])); !slices.Contains(subjects, keySubject) {
				t.Errorf("buffer key %v has a schema of the subjects %v, want %s", key, subjects, keySubject)
			}
		}
	}
}

// annResults are the sink's JSON values the task emitted for ann.
func annResults(t *testing.T, a *avroAggregation) []string {
	t.Helper()
	var out []string
	for _, r := range a.emit.recs {
		if r.Topic == a.topo.SinkTopic && strings.Contains(string(r.Key), "ann") {
			out = append(out, string(r.Value))
		}
	}
	if len(out) == 0 {
		t.Fatalf("no result for ann among %d records", len(a.emit.recs))
	}
	return out
}

// TestTableAggregationInputRowsInQueryFormats: a GROUP BY over an AVRO
// table keeps each input row (the store an update retracts the old row
// from) keyed by the table key in Avro under its changelog's key subject
// and the row in Avro under its value subject, as a standard
// deserializer (hamba/avro by the schema id) reads them; a new task over
// the same stores (a restart) finds the old row of an updated key and
// moves it to its new group. A legacy query (Options.LegacyStoreKeysJSON)
// keeps the record's key bytes and JSON rows.
func TestTableAggregationInputRowsInQueryFormats(t *testing.T) {
	fake := srfake.New()
	t.Cleanup(fake.Close)
	reg, err := format.NewRegistryClient(format.RegistryConfig{URLs: []string{fake.URL()}})
	if err != nil {
		t.Fatal(err)
	}
	cl, err := sr.NewClient(sr.URLs(fake.URL()))
	if err != nil {
		t.Fatal(err)
	}
	const source = `CREATE TABLE s (k STRING PRIMARY KEY, g STRING, x BIGINT) WITH (KAFKA_TOPIC='s', KEY_FORMAT='AVRO', VALUE_FORMAT='AVRO', PARTITIONS=1);`
	const query = `CREATE TABLE per_g WITH (FORMAT='JSON') AS SELECT g, COUNT(*) AS n, SUM(x) AS total FROM s GROUP BY g;`
	stores := mapStores{}
	a := newAvroAggregationOver(t, reg, stores, source, query, physical.Options{})
	a.sendValues(t, "ann", 1000, "red", int64(1))
	a.sendValues(t, "bob", 2000, "red", int64(5))
	rows := stores["Aggregate-Source-Materialize"]
	if len(rows) != 2 {
		t.Fatalf("the input-row store holds %d rows, want 2", len(rows))
	}
	for k, v := range rows {
		key, subjects := avroDatum(t, cl, []byte(k))
		if !slices.Contains(subjects, "app-Aggregate-Source-Materialize-changelog-key") {
			t.Errorf("input-row key %v has a schema of the subjects %v, want app-Aggregate-Source-Materialize-changelog-key", key, subjects)
		}
		row, subjects := avroDatum(t, cl, v)
		if !slices.Contains(subjects, "app-Aggregate-Source-Materialize-changelog-value") {
			t.Errorf("input row %v has a schema of the subjects %v, want app-Aggregate-Source-Materialize-changelog-value", row, subjects)
		}
		if got := fmt.Sprint(row); !strings.Contains(got, "G:red") {
			t.Errorf("input row %s of %v, want its group red", got, key)
		}
	}
	aggregateRepartitioned(t, a, stores)
	// A restart: ann moves from red to blue, retracting 1 from red.
	a = newAvroAggregationOver(t, reg, stores, source, query, physical.Options{})
	a.sendValues(t, "ann", 3000, "blue", int64(4))
	got := map[string]string{}
	for _, r := range aggregateRepartitioned(t, a, stores) {
		if r.Topic == a.topo.SinkTopic {
			got[string(r.Key)] = string(r.Value)
		}
	}
	if got[`"red"`] != `{"N":1,"TOTAL":5}` || got[`"blue"`] != `{"N":1,"TOTAL":4}` {
		t.Errorf("after the restart's update: %v, want red N 1 TOTAL 5 (ann's old row retracted) and blue N 1 TOTAL 4", got)
	}

	legacy := mapStores{}
	a = newAvroAggregationOver(t, reg, legacy, source, query, physical.Options{LegacyStoreKeysJSON: true})
	a.sendValues(t, "ann", 1000, "red", int64(1))
	kb, err := a.key.Encode(nil, []any{"ann"})
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := legacy["Aggregate-Source-Materialize"][string(kb)]; !ok || !strings.HasPrefix(string(v), "{") {
		t.Errorf("legacy input-row store %q, want ann's record key → a JSON row", legacy["Aggregate-Source-Materialize"])
	}
}

// aggregateRepartitioned runs the records a's group-by task wrote to the
// repartition topic through a task of the aggregating sub-topology over
// stores, and returns what that one emitted.
func aggregateRepartitioned(t *testing.T, a *avroAggregation, stores mapStores) []physical.OutRecord {
	t.Helper()
	rec := &copyingRecorder{}
	task, err := a.topo.NewTask(1, &physical.TaskEnv{Emit: rec, Stores: stores})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range a.emit.recs {
		if !strings.HasSuffix(r.Topic, "-repartition") {
			continue
		}
		in := &physical.InRecord{Topic: r.Topic, Offset: int64(i), Key: r.Key, Value: r.Value, Timestamp: r.Timestamp, Headers: r.Headers}
		if err := task.Process(in); err != nil {
			t.Fatal(err)
		}
	}
	return rec.recs
}

// TestLegacyStoreKeysStayJSON: a query of a command recorded before the
// aggregate store's keys followed the query's formats
// (Options.LegacyStoreKeysJSON) keeps writing what it wrote: JSON group
// keys, whole JSON result rows by position in the EMIT FINAL buffer and
// JSON raw rows by position in a sliding window's store, while its
// accumulators stay in the query's value format.
func TestLegacyStoreKeysStayJSON(t *testing.T) {
	fake := srfake.New()
	t.Cleanup(fake.Close)
	reg, err := format.NewRegistryClient(format.RegistryConfig{URLs: []string{fake.URL()}})
	if err != nil {
		t.Fatal(err)
	}
	legacy := physical.Options{LegacyStoreKeysJSON: true}
	stores := mapStores{}
	a := newAvroAggregation(t, reg, stores, `CREATE TABLE f WITH (FORMAT='JSON') AS SELECT k, COUNT(*) AS n, SUM(x) AS total FROM s
	  WINDOW TUMBLING (SIZE 10 SECONDS, RETENTION 1 DAY, GRACE PERIOD 0 SECONDS) GROUP BY k EMIT FINAL;`, legacy)
	a.send(t, "ann", 1, 1000)
	for k, v := range stores["Aggregate-Aggregate-Materialize"] {
		if inner, _ := windowInner([]byte(k)); string(inner) != `"ann"` || len(v) < 9 || v[8] != 0 {
			t.Errorf("aggregate store %q → %q, want a JSON key and Avro accumulators", k, v)
		}
	}
	for k, v := range stores["Aggregate-Aggregate-Suppress"] {
		if strings.HasSuffix(k, "stream-time") {
			continue
		}
		if !strings.Contains(k, `"ann"`) || string(v[8:]) != `{"C0":"ann","C1":1,"C2":1}` {
			t.Errorf("buffer %q → %q, want a JSON key and the whole JSON row by position", k, v)
		}
	}
	a.send(t, "bob", 1, 20_000)
	if got := annResults(t, a); len(got) != 1 || got[0] != `{"N":1,"TOTAL":1}` {
		t.Errorf("the final result read back from the legacy buffer: %v", got)
	}
	stores = mapStores{}
	a = newAvroAggregation(t, reg, stores, `CREATE TABLE l WITH (FORMAT='JSON') AS SELECT k, COUNT(*) AS n, SUM(x) AS total FROM s
	  WINDOW SLIDING (SIZE 10 SECONDS) GROUP BY k;`, legacy)
	a.send(t, "ann", 1, 1000)
	for k, v := range stores["Aggregate-Sliding-Records"] {
		if inner, _ := windowInner([]byte(k)); string(inner) != `"ann"` || string(v[8:]) != `{"A1_0":1}` {
			t.Errorf("sliding raw row %q → %q, want a JSON key and JSON arguments by position", k, v)
		}
	}
}

// TestAsOfJoinStoresInQueryFormats: an as-of join over AVRO values keeps
// the table's versions keyed in the table's key format (KAFKA: the bare
// string, then the version's time) with the rows in Avro under the
// versioned store's changelog subject, and buffers the stream rows of
// its grace period in Avro under the buffer's changelog subject; a new
// task over the same stores (a restart) joins a buffered order with the
// version read back.
func TestAsOfJoinStoresInQueryFormats(t *testing.T) {
	fake := srfake.New()
	t.Cleanup(fake.Close)
	reg, err := format.NewRegistryClient(format.RegistryConfig{URLs: []string{fake.URL()}})
	if err != nil {
		t.Fatal(err)
	}
	cl, err := sr.NewClient(sr.URLs(fake.URL()))
	if err != nil {
		t.Fatal(err)
	}
	p := planner.New(planner.NewCatalog(), functions.NewRegistry(), planner.Defaults{SchemaRegistry: reg})
	stmts, err := parser.Parse(`CREATE STREAM orders (currency STRING KEY, id STRING, amount DOUBLE) WITH (KAFKA_TOPIC='orders', VALUE_FORMAT='AVRO', PARTITIONS=1);
	  CREATE TABLE rates (currency STRING PRIMARY KEY, rate DOUBLE) WITH (KAFKA_TOPIC='rates', VALUE_FORMAT='AVRO', PARTITIONS=1, HISTORY_RETENTION='1 MINUTE');
	  CREATE STREAM asof WITH (FORMAT='JSON') AS SELECT o.currency, o.id, r.rate FROM orders o
	    JOIN rates FOR SYSTEM_TIME AS OF o.ROWTIME r GRACE PERIOD 10 SECONDS ON o.currency = r.currency;`)
	if err != nil {
		t.Fatal(err)
	}
	var srcs []*planner.Source
	for _, st := range stmts[:2] {
		src, err := p.CreateSource(st.(*ast.CreateSource))
		if err != nil {
			t.Fatal(err)
		}
		p.Catalog.Put(src)
		srcs = append(srcs, src)
	}
	plan, err := p.PlanCreateAs(stmts[2].(*ast.CreateAsSelect))
	if err != nil {
		t.Fatal(err)
	}
	stores := mapStores{}
	emit := &copyingRecorder{}
	task := func() *physical.Task {
		topo, err := physical.Build(plan, physical.Options{AppID: "app"})
		if err != nil {
			t.Fatal(err)
		}
		tk, err := topo.NewTask(0, &physical.TaskEnv{Emit: emit, Stores: stores})
		if err != nil {
			t.Fatal(err)
		}
		return tk
	}
	send := func(tk *physical.Task, src *planner.Source, key string, ts int64, vals ...any) {
		t.Helper()
		c, err := format.NewValueCodec(src.ValueFormat, src.Schema.Values())
		if err != nil {
			t.Fatal(err)
		}
		v, err := c.Encode(nil, vals)
		if err != nil {
			t.Fatal(err)
		}
		if err := tk.Process(&physical.InRecord{Topic: src.Topic, Key: []byte(key), Value: v, Timestamp: ts}); err != nil {
			t.Fatal(err)
		}
	}
	tk := task()
	send(tk, srcs[1], "USD", 1000, 1.5)
	send(tk, srcs[0], "USD", 2000, "o1", 10.0) // buffered for the grace period
	versions := stores["KafkaTopic_Right-Versioned"]
	found := false
	for k, v := range versions {
		if len(k) == 1 {
			continue // the table time
		}
		found = true
		if inner, _, err := state.SplitVersionKey([]byte(k)); err != nil || string(inner) != "USD" {
			t.Errorf("version key %q: want the KAFKA string USD then the version's time", k)
		}
		if row, subjects := avroDatum(t, cl, []byte(v[1:])); !slices.Contains(subjects, "app-KafkaTopic_Right-Versioned-changelog-value") {
			t.Errorf("version %v has a schema of the subjects %v", row, subjects)
		}
	}
	if !found {
		t.Fatal("no version stored")
	}
	buffered := 0
	for k, v := range stores["Join-Buffer"] {
		if len(k) != 20 {
			continue // the stream time
		}
		buffered++
		if row, subjects := avroDatum(t, cl, []byte(v[5:])); !slices.Contains(subjects, "app-Join-Buffer-changelog-value") {
			t.Errorf("buffered row %v has a schema of the subjects %v", row, subjects)
		}
	}
	if buffered != 1 {
		t.Fatalf("%d rows buffered, want the order", buffered)
	}
	tk = task()
	send(tk, srcs[1], "USD", 15_000, 2.5) // stream time passes the order's grace
	send(tk, srcs[0], "USD", 14_000, "o2", 1.0)
	var got []string
	for _, r := range emit.recs {
		if r.Topic == "ASOF" {
			got = append(got, string(r.Value))
		}
	}
	if len(got) == 0 || got[0] != `{"ID":"o1","RATE":1.5}` {
		t.Errorf("the join after the restart: %q, want o1 joined with the rate valid at 2000", got)
	}
}
