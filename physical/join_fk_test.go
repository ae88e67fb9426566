package physical_test

import (
	"bytes"
	"sort"
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
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
