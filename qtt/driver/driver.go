// Package driver runs `sqlstream test` variants on the engine: it
// adapts runtime.TestEngine (in-memory, synchronous) to the qtt.Driver
// interface.
//
//	qtt runner ──► Driver ──► runtime.TestEngine ──► planner/physical
//	                               │
//	                               └─► memCluster (topics in memory)
package driver

import (
	"github.com/sqlstream/sqlstream/internal/qttmode"
	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/qtt"
	"github.com/sqlstream/sqlstream/runtime"
)

// Driver is a qtt.Driver over a fresh TestEngine.
type Driver struct {
	eng      *runtime.TestEngine
	props    map[string]any
	internal map[string]bool
}

var _ qtt.Driver = (*Driver)(nil)

// ServiceID is the ksql.service.id of ksqlDB's test runner, which the
// internal topic names of its tests carry.
const ServiceID = "some.ksql.service.id"

// New is a qtt.NewDriver: each call makes an isolated engine, in memory
// or (cfg.Broker) over an embedded broker.
func New(cfg qtt.DriverConfig) (qtt.Driver, error) {
	engProps := map[string]string{}
	over := map[string]any{}
	for k, v := range cfg.Props {
		engProps[k] = v
		over[k] = v
	}
	if cfg.Broker {
		d, err := newBroker(cfg.Topics, over, engProps)
		if err != nil {
			return nil, err
		}
		return d, createTopics(cfg.Topics, d.createTopic)
	}
	reg := newRegistry()
	if err := reg.registerTopics(cfg.Topics); err != nil {
		return nil, err
	}
	eng, err := runtime.NewTestEngine(engProps, runtime.WithServiceID(ServiceID), runtime.WithQTT(qttmode.Mode{Naming: true}), runtime.WithSchemaRegistry(reg))
	if err != nil {
		return nil, err
	}
	d := &Driver{eng: eng, props: over, internal: map[string]bool{eng.ProcessingLogTopic(): true}}
	return d, createTopics(cfg.Topics, d.eng.CreateTopic)
}

// createTopics creates the topics a test declares (one partition when it
// gives no count).
func createTopics(topics []qtt.Topic, create func(string, int32) error) error {
	for _, t := range topics {
		if err := create(t.Name, max(t.Partitions, 1)); err != nil {
			return err
		}
	}
	return nil
}

// Execute implements qtt.Driver.
func (d *Driver) Execute(stmt string) error {
	_, err := d.eng.ExecuteStatement(stmt, d.props)
	return err
}

// Produce implements qtt.Driver.
func (d *Driver) Produce(r qtt.Record) error {
	out := &physical.OutRecord{Topic: r.Topic, Partition: r.Partition, Key: r.Key, Value: r.Value, Timestamp: r.Timestamp}
	for _, h := range r.Headers {
		out.Headers = append(out.Headers, physical.Header{Key: h.Key, Value: h.Value})
	}
	return d.eng.Produce(out)
}

// Drain implements qtt.Driver: records of non-internal topics written by
// queries since the last call.
func (d *Driver) Drain() ([]qtt.Record, error) {
	var out []qtt.Record
	for _, r := range d.eng.Drain() {
		if d.internal[r.Topic] {
			continue
		}
		rec := qtt.Record{Topic: r.Topic, Partition: r.Partition, Key: r.Key, Value: r.Value, Timestamp: r.Timestamp}
		for _, h := range r.Headers {
			rec.Headers = append(rec.Headers, qtt.Header{Key: h.Key, Value: h.Value})
		}
		out = append(out, rec)
	}
	return out, nil
}

// Sources implements qtt.Driver.
func (d *Driver) Sources() []qtt.SourceInfo { return sourcesOf(d.eng.Catalog()) }

func sourcesOf(srcs []*planner.Source, sinks map[string]bool) []qtt.SourceInfo {
	var out []qtt.SourceInfo
	for _, s := range srcs {
		if s.Name == runtime.ProcessingLogStream {
			continue
		}
		info := qtt.SourceInfo{Name: s.Name, Kind: s.Kind.String(), Topic: s.Topic, Schema: s.Schema,
			KeyFormat: s.KeyFormat, ValueFormat: s.ValueFormat, IsSink: sinks[s.Name], Windowed: s.Windowed(),
			TimestampColumn: s.TimestampColumn, TimestampFormat: s.TimestampFormat}
		if s.Window != nil {
			info.WindowType = [...]string{"TUMBLING", "HOPPING", "SESSION", "SLIDING"}[s.Window.Kind]
			info.WindowSize = s.Window.Size
		}
		out = append(out, info)
	}
	return out
}

var _ qtt.TopicReader = (*Driver)(nil)

// ReadAll implements qtt.TopicReader: the in-memory engine has processed
// every record before Produce or Execute returned.
func (d *Driver) ReadAll(topic string) ([]qtt.Record, error) { return d.ReadTopic(topic), nil }

// Topics implements qtt.Driver.
func (d *Driver) Topics() []qtt.TopicInfo {
	var out []qtt.TopicInfo
	for name, n := range d.eng.Topics() {
		if !d.internal[name] {
			out = append(out, qtt.TopicInfo{Name: name, Partitions: n})
		}
	}
	return out
}

// Close implements qtt.Driver.
func (d *Driver) Close() error { return d.eng.Close() }
