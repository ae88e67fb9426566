package runtime

import (
	"context"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/runtime/exec"
	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/sqlstream/sqlstream/state"
)

// TestEngine is an Engine on the in-memory synchronous cluster: the same
// planner, topology and operators as the server, driven one record at a
// time with no threads, caching or commit interval. `sqlstream test` runs
// on it.
type TestEngine struct {
	*Engine
	mem  *exec.Mem
	next int // index into mem.outputs of the next Drain
}

// NewTestEngine returns a fresh engine with its own catalog and topics.
// Queries read from the earliest offset and stores have no cache unless
// props say otherwise, as in ksqlDB's test executor, so records inserted
// before a query starts are seen and every update reaches the changelog
// at once. A property the engine does not accept is an error naming it.
// There is no wall clock here: window.close.idle.ms is parsed but windows
// close only as stream time advances. Options may name the service and
// its queries (WithServiceID, WithQTT); the others do not apply.
func NewTestEngine(given map[string]string, opts ...Option) (*TestEngine, error) {
	mem := exec.NewMem()
	all := map[string]string{props.OffsetReset: "earliest", props.CacheBytes: "0"}
	for k, v := range given {
		all[props.Normalize(k)] = v
	}
	o := options{serviceID: "default_"}
	for _, opt := range opts {
		opt.apply(&o)
	}
	o.props, o.cluster = all, mem
	if err := o.validate(); err != nil {
		return nil, err
	}
	e, err := newEngine(o)
	if err != nil {
		return nil, err
	}
	e.logger = discardLogger()
	e.autoCreateTopics = true
	db, err := state.OpenMem(state.WithLogger(state.SlogLogger(e.logger)))
	if err != nil {
		return nil, err
	}
	e.db = db
	if err := e.open(context.Background()); err != nil {
		return nil, err
	}
	return &TestEngine{Engine: e, mem: mem}, nil
}

// ExecuteStatement runs one statement with the engine's properties.
func (t *TestEngine) ExecuteStatement(sql string, props map[string]any) ([]api.Entity, error) {
	return t.Execute(context.Background(), api.KsqlRequest{Ksql: sql, StreamsProperties: props})
}

// CreateTopic creates a topic (tests that declare their topics).
func (t *TestEngine) CreateTopic(name string, partitions int32) error {
	return t.mem.CreateTopic(context.Background(), exec.TopicSpec{Name: name, Partitions: partitions})
}

// Produce feeds a record through every query reading its topic. A
// missing topic is created with one partition, as a test producer would
// find it.
func (t *TestEngine) Produce(r *physical.OutRecord) error {
	if _, ok, _ := t.mem.Partitions(context.Background(), r.Topic); !ok {
		if err := t.CreateTopic(r.Topic, 1); err != nil {
			return err
		}
	}
	if err := t.mem.Produce(context.Background(), r); err != nil {
		return err
	}
	return t.mem.Failure()
}

// Drain returns the records queries wrote since the last Drain, with
// their partitions.
func (t *TestEngine) Drain() []*physical.OutRecord {
	out, next := t.mem.Outputs(t.next)
	t.next = next
	return out
}

// Topics returns the topics and their partition counts.
func (t *TestEngine) Topics() map[string]int32 {
	ts, _ := t.mem.ListTopics(context.Background())
	out := map[string]int32{}
	for _, x := range ts {
		out[x.Name] = x.Partitions
	}
	return out
}

// Read returns every record of a topic, partition by partition.
func (t *TestEngine) Read(topic string) []physical.InRecord {
	var out []physical.InRecord
	_ = t.mem.Read(context.Background(), topic, true, true, func(r *physical.InRecord) bool {
		out = append(out, *r)
		return true
	})
	return out
}
