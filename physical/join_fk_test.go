package physical_test

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/sr"
	"github.com/twmb/franz-go/pkg/sr/srfake"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/functions"
	"github.com/sqlstream/sqlstream/sql/parser"
)

// mapStore is an in-memory physical.Store.
type mapStore map[string][]byte

func (m mapStore) Get(k []byte) ([]byte, error) { return bytes.Clone(m[string(k)]), nil }
func (m mapStore) Put(k, v []byte) error {
	if v == nil {
		delete(m, string(k))
	} else {
		m[string(k)] = bytes.Clone(v)
	}
	return nil
}
func (m mapStore) Range(start, end []byte, fn func(k, v []byte) bool) error {
	var keys []string
	for k := range m {
		if (start == nil || k >= string(start)) && (end == nil || k < string(end)) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !fn([]byte(k), m[k]) {
			break
		}
	}
	return nil
}
func (m mapStore) Flush() error { return nil }
func (m mapStore) Close() error { return nil }

type mapStores map[string]mapStore

func (s mapStores) Store(name string) (physical.Store, error) {
	if s[name] == nil {
		s[name] = mapStore{}
	}
	return s[name], nil
}

type recorder struct{ recs []*physical.OutRecord }

func (r *recorder) Emit(rec *physical.OutRecord) { r.recs = append(r.recs, rec) }

// take returns and forgets the records emitted to topics ending in suffix.
func (r *recorder) take(suffix string) []*physical.OutRecord {
	var out, rest []*physical.OutRecord
	for _, rec := range r.recs {
		if strings.HasSuffix(rec.Topic, suffix) {
			out = append(out, rec)
		} else {
			rest = append(rest, rec)
		}
	}
	r.recs = rest
	return out
}

// TestForeignKeyJoinDropsStaleResponses delivers the answers to two
// subscriptions of one left row only after both were sent: the answer to
// the first carries the hash of a value the row no longer has and must
// not produce a result; the second's must.
func TestForeignKeyJoinDropsStaleResponses(t *testing.T) {
	p := planner.New(planner.NewCatalog(), functions.NewRegistry(), planner.Defaults{})
	stmts, err := parser.Parse(`CREATE TABLE o (id VARCHAR PRIMARY KEY, c VARCHAR) WITH (KAFKA_TOPIC='o', VALUE_FORMAT='JSON');
CREATE TABLE c (id VARCHAR PRIMARY KEY, name VARCHAR) WITH (KAFKA_TOPIC='c', VALUE_FORMAT='JSON');
CREATE TABLE j AS SELECT o.id, c.name FROM o JOIN c ON o.c = c.id;`)
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
	topo, err := physical.Build(plan, physical.Options{AppID: "app"})
	if err != nil {
		t.Fatal(err)
	}
	emit := &recorder{}
	task := func(sub int) *physical.Task {
		tk, err := topo.NewTask(sub, &physical.TaskEnv{Emit: emit, Stores: mapStores{}})
		if err != nil {
			t.Fatal(err)
		}
		return tk
	}
	right, left := task(0), task(1)
	process := func(tk *physical.Task, recs ...*physical.OutRecord) {
		for _, r := range recs {
			if err := tk.Process(&physical.InRecord{Topic: r.Topic, Key: r.Key, Value: r.Value, Timestamp: r.Timestamp}); err != nil {
				t.Fatal(err)
			}
		}
	}
	process(right, &physical.OutRecord{Topic: "c", Key: []byte("c1"), Value: []byte(`{"NAME":"ada"}`), Timestamp: 1},
		&physical.OutRecord{Topic: "c", Key: []byte("c2"), Value: []byte(`{"NAME":"bob"}`), Timestamp: 2})
	process(left, &physical.OutRecord{Topic: "o", Key: []byte("o1"), Value: []byte(`{"C":"c1"}`), Timestamp: 3},
		&physical.OutRecord{Topic: "o", Key: []byte("o1"), Value: []byte(`{"C":"c2"}`), Timestamp: 4})
	process(right, emit.take("REGISTRATION-0000000012-topic")...)
	responses := emit.take("RESPONSE-0000000020-topic")
	if len(responses) != 2 {
		t.Fatalf("want answers to the c1 and c2 subscriptions, got %d", len(responses))
	}
	process(left, responses...)
	out := emit.take("J")
	if len(out) != 1 || string(out[0].Value) != `{"NAME":"bob"}` || out[0].Timestamp != 4 {
		for _, r := range out {
			t.Logf("%s %s %d", r.Key, r.Value, r.Timestamp)
		}
		t.Fatalf("want only the answer to the current value (bob at 4), got %d records", len(out))
	}
}

// TestForeignKeyJoinStoresInKeyFormats: a foreign-key join of KAFKA-keyed
// tables keeps its side stores keyed in KAFKA (the bare strings, as the
// tables' topics are keyed) and its subscriptions keyed len(fk) ‖ fk ‖
// left key in those bytes (Kafka Streams' CombinedKey), and still
// joins; a legacy query (Options.LegacyStoreKeysJSON) keeps JSON keys.
func TestForeignKeyJoinStoresInKeyFormats(t *testing.T) {
	p := planner.New(planner.NewCatalog(), functions.NewRegistry(), planner.Defaults{})
	stmts, err := parser.Parse(`CREATE TABLE o (id VARCHAR PRIMARY KEY, c VARCHAR) WITH (KAFKA_TOPIC='o', KEY_FORMAT='KAFKA', VALUE_FORMAT='JSON');
CREATE TABLE c (id VARCHAR PRIMARY KEY, name VARCHAR) WITH (KAFKA_TOPIC='c', KEY_FORMAT='KAFKA', VALUE_FORMAT='JSON');
CREATE TABLE j AS SELECT o.id, c.name FROM o JOIN c ON o.c = c.id;`)
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
	for _, c := range []struct {
		legacy           bool
		left, right, sub string
	}{
		{false, "o1", "c1", "\x00\x00\x00\x02c1o1"},
		{true, `"o1"`, `"c1"`, "\x00\x00\x00\x04\"c1\"\"o1\""},
	} {
		topo, err := physical.Build(plan, physical.Options{AppID: "app", LegacyStoreKeysJSON: c.legacy})
		if err != nil {
			t.Fatal(err)
		}
		emit, stores := &recorder{}, mapStores{}
		task := func(sub int) *physical.Task {
			tk, err := topo.NewTask(sub, &physical.TaskEnv{Emit: emit, Stores: stores})
			if err != nil {
				t.Fatal(err)
			}
			return tk
		}
		right, left := task(0), task(1)
		process := func(tk *physical.Task, recs ...*physical.OutRecord) {
			for _, r := range recs {
				if err := tk.Process(&physical.InRecord{Topic: r.Topic, Key: r.Key, Value: r.Value, Timestamp: r.Timestamp}); err != nil {
					t.Fatal(err)
				}
			}
		}
		process(right, &physical.OutRecord{Topic: "c", Key: []byte("c1"), Value: []byte(`{"NAME":"ada"}`), Timestamp: 1})
		process(left, &physical.OutRecord{Topic: "o", Key: []byte("o1"), Value: []byte(`{"C":"c1"}`), Timestamp: 2})
		process(right, emit.take("REGISTRATION-0000000012-topic")...)
		process(left, emit.take("RESPONSE-0000000020-topic")...)
		if out := emit.take("J"); len(out) != 1 || string(out[0].Value) != `{"NAME":"ada"}` {
			t.Fatalf("legacy %v: want o1 joined with ada, got %d records", c.legacy, len(out))
		}
		for store, want := range map[string]string{"KafkaTopic_Left-Reduce": c.left, "KafkaTopic_Right-Reduce": c.right,
			"KTABLE-FK-JOIN-SUBSCRIPTION-STATE-STORE-0000000016": c.sub} {
			var keys []string
			for k := range stores[store] {
				keys = append(keys, k)
			}
			if len(keys) != 1 || keys[0] != want {
				t.Errorf("legacy %v: %s keys %q, want %q", c.legacy, store, keys, want)
			}
		}
	}
}

// TestForeignKeyJoinTopicsUnderOwnSubjects: a foreign-key join of
// AVRO-keyed tables (through srfake) keys its registration records with
// the foreign key in Avro under the registration topic's own key
// subject, placed by the bytes the right table is keyed in (their
// PartitionKey), and its responses with the left key under the response
// topic's own key subject, as hamba/avro reads them by id; the join
// joins. A legacy query (Options.LegacyStoreKeysJSON) keeps the stores'
// key bytes.
func TestForeignKeyJoinTopicsUnderOwnSubjects(t *testing.T) {
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
	stmts, err := parser.Parse(`CREATE TABLE o (id VARCHAR PRIMARY KEY, c VARCHAR) WITH (KAFKA_TOPIC='o', KEY_FORMAT='AVRO', VALUE_FORMAT='JSON');
CREATE TABLE c (id VARCHAR PRIMARY KEY, name VARCHAR) WITH (KAFKA_TOPIC='c', KEY_FORMAT='AVRO', VALUE_FORMAT='JSON');
CREATE TABLE j WITH (KEY_FORMAT='JSON') AS SELECT o.id, c.name FROM o JOIN c ON o.c = c.id;`)
	if err != nil {
		t.Fatal(err)
	}
	var keys []format.Codec
	for _, st := range stmts[:2] {
		src, err := p.CreateSource(st.(*ast.CreateSource))
		if err != nil {
			t.Fatal(err)
		}
		p.Catalog.Put(src)
		k, err := format.NewKeyCodec(src.KeyFormat, src.Schema.Keys())
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	plan, err := p.PlanCreateAs(stmts[2].(*ast.CreateAsSelect))
	if err != nil {
		t.Fatal(err)
	}
	ok, _ := keys[0].Encode(nil, []any{"o1"})
	ck, _ := keys[1].Encode(nil, []any{"c1"})
	for _, legacy := range []bool{false, true} {
		topo, err := physical.Build(plan, physical.Options{AppID: "app", LegacyStoreKeysJSON: legacy})
		if err != nil {
			t.Fatal(err)
		}
		d := newTopicDriver(t, topo)
		d.queue(&physical.OutRecord{Topic: "c", Key: ck, Value: []byte(`{"NAME":"ada"}`), Timestamp: 1})
		d.queue(&physical.OutRecord{Topic: "o", Key: ok, Value: []byte(`{"C":"c1"}`), Timestamp: 2})
		d.run()
		if out := d.seen["J"]; len(out) != 1 || string(out[0].Value) != `{"NAME":"ada"}` {
			t.Fatalf("legacy %v: want o1 joined with ada, got %d records", legacy, len(out))
		}
		for suffix, want := range map[string]string{"REGISTRATION-0000000012-topic": "c1", "RESPONSE-0000000020-topic": "o1"} {
			found := false
			for topic, recs := range d.seen {
				if !strings.HasSuffix(topic, suffix) {
					continue
				}
				found = true
				r := recs[0]
				if legacy {
					if suffix == "RESPONSE-0000000020-topic" && string(r.Key) != `"o1"` {
						t.Errorf("legacy %s key %q, want the left store's JSON key", topic, r.Key)
					}
					continue
				}
				v, subjects := avroDatum(t, cl, r.Key)
				if fmt.Sprint(v) != want || !slices.Contains(subjects, topic+"-key") {
					t.Errorf("%s key %v under %v, want %s under %s-key", topic, v, subjects, want, topic)
				}
				if suffix == "REGISTRATION-0000000012-topic" && len(r.PartitionKey) == 0 {
					t.Errorf("%s record has no PartitionKey (the right table's key bytes place it)", topic)
				}
			}
			if !found {
				t.Errorf("legacy %v: no record of *%s among %d topics", legacy, suffix, len(d.seen))
			}
		}
	}
}

// topicDriver runs a topology's tasks (partition 0 each, in-memory
// stores) by routing each record to the sub-topology reading its topic,
// until no record is left for one.
type topicDriver struct {
	t       *testing.T
	tasks   map[string]*physical.Task
	emit    *copyingRecorder
	pending []physical.OutRecord
	seen    map[string][]physical.OutRecord
}

func newTopicDriver(t *testing.T, topo *physical.Topology) *topicDriver {
	d := &topicDriver{t: t, tasks: map[string]*physical.Task{}, emit: &copyingRecorder{}, seen: map[string][]physical.OutRecord{}}
	stores := mapStores{}
	for _, st := range topo.SubTopologies {
		task, err := topo.NewTask(st.ID, &physical.TaskEnv{Emit: d.emit, Stores: stores})
		if err != nil {
			t.Fatal(err)
		}
		for _, topic := range st.Topics {
			d.tasks[topic] = task
		}
	}
	return d
}

func (d *topicDriver) queue(r *physical.OutRecord) { d.pending = append(d.pending, *r) }

func (d *topicDriver) run() {
	for i := 0; len(d.pending) > 0; i++ {
		r := d.pending[0]
		d.pending = d.pending[1:]
		if task, ok := d.tasks[r.Topic]; ok {
			in := &physical.InRecord{Topic: r.Topic, Offset: int64(i), Key: r.Key, Value: r.Value, Timestamp: r.Timestamp, Headers: r.Headers}
			if err := task.Process(in); err != nil {
				d.t.Fatal(err)
			}
		}
		for _, out := range d.emit.recs {
			d.seen[out.Topic] = append(d.seen[out.Topic], out)
			d.pending = append(d.pending, out)
		}
		d.emit.recs = nil
	}
}
