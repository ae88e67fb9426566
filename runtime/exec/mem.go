package exec

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/state"
	"github.com/twmb/franz-go/pkg/kadm"
)

// Mem is an in-memory, synchronous cluster for the test driver
// (the way Kafka Streams' TopologyTestDriver works): producing a record
// immediately runs every query that reads its topic, and their outputs
// in turn, before produce returns. Processing order is deterministic.
type Mem struct {
	mu      sync.Mutex
	topics  map[string]*memTopic
	subs    []*memSub
	pending []pendingRecord
	busy    bool
	// outputs are the records tasks produced, in order, for the driver to
	// drain.
	outputs []*physical.OutRecord
	// failure is the first task error (e.g. a bug); the driver reports it.
	failure error
	// stores are flushed when a produce has been fully processed, so
	// committed reads (pull queries) see the results.
	stores []*taskStores
}

// pendingRecord is a record waiting for delivery; emitted records came
// from a task, the others from a client.
type pendingRecord struct {
	rec     *physical.OutRecord
	emitted bool
}

type memTopic struct {
	name    string
	parts   [][]physical.InRecord
	configs map[string]string
}

// memSub is a running query's set of tasks for one topic of one
// sub-topology.
type memSub struct {
	topics []string // a join's sub-topology reads two
	sub    int
	// group is the consumer group a Kafka cluster would run the tasks
	// in: a persistent query's application id, "" for a push query
	// (which reads without a group on Kafka too).
	group  string
	tasks  map[int32]*physical.Task
	newEnv func(p int32) *physical.TaskEnv
	topo   *physical.Topology
	onErr  func(error)
	closed bool
	// backlog are the records to replay after subscribing.
	backlog []physical.InRecord
	// global, when set, is a global table's loader (follow), not tasks.
	global func(*physical.InRecord) error
	// paused: the query is paused; the records it would get are held,
	// in order, until it resumes (guarded by Mem.mu).
	paused bool
	held   []physical.InRecord
}

func (m *Mem) Partitions(_ context.Context, topic string) (int32, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.topics[topic]
	if !ok {
		return 0, false, nil
	}
	return int32(len(t.parts)), true, nil
}

func (m *Mem) CreateTopic(_ context.Context, s TopicSpec) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.topics[s.Name]; ok {
		return nil
	}
	n := max(s.Partitions, 1)
	m.topics[s.Name] = &memTopic{name: s.Name, parts: make([][]physical.InRecord, n), configs: s.Configs}
	return nil
}

func (m *Mem) DeleteTopic(_ context.Context, topic string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.topics, topic)
	return nil
}

func (m *Mem) ListTopics(context.Context) ([]TopicInfo, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []TopicInfo
	for _, t := range m.topics {
		out = append(out, TopicInfo{Name: t.name, Partitions: int32(len(t.parts)), Replicas: 1, Internal: strings.HasPrefix(t.name, "_")})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// produce appends the records and runs everything downstream of them.
func (m *Mem) Produce(_ context.Context, recs ...*physical.OutRecord) error {
	m.mu.Lock()
	for _, r := range recs {
		if _, ok := m.topics[r.Topic]; !ok {
			m.mu.Unlock()
			return fmt.Errorf("topic %s does not exist", r.Topic)
		}
	}
	for _, r := range recs {
		m.pending = append(m.pending, pendingRecord{rec: r})
	}
	if m.busy {
		m.mu.Unlock()
		return nil
	}
	m.busy = true
	m.mu.Unlock()
	m.drain()
	return nil
}

// Emit implements physical.Emitter for tasks running on the cluster.
func (m *Mem) Emit(r *physical.OutRecord) {
	cp := *r
	m.mu.Lock()
	if _, ok := m.topics[r.Topic]; !ok {
		m.topics[r.Topic] = &memTopic{name: r.Topic, parts: make([][]physical.InRecord, 1)}
	}
	m.pending = append(m.pending, pendingRecord{rec: &cp, emitted: true})
	m.mu.Unlock()
}

// drain delivers pending records one at a time until none are left.
func (m *Mem) drain() {
	for {
		m.mu.Lock()
		if len(m.pending) == 0 {
			m.busy = false
			stores := m.stores
			m.mu.Unlock()
			for _, ts := range stores {
				if err := ts.flush(); err != nil {
					m.fail(err)
				}
			}
			return
		}
		p := m.pending[0]
		m.pending = m.pending[1:]
		r := p.rec
		in := m.appendLocked(r, p.emitted)
		subs := m.subsFor(r.Topic)
		m.mu.Unlock()
		for _, s := range subs {
			if !m.hold(s, &in) {
				s.deliver(&in)
			}
		}
	}
}

func (m *Mem) appendLocked(r *physical.OutRecord, emitted bool) physical.InRecord {
	t := m.topics[r.Topic]
	p := r.Partition
	if p < 0 || int(p) >= len(t.parts) {
		p = t.partitionFor(r.PartitionBytes())
	}
	in := physical.InRecord{Topic: r.Topic, Partition: p, Offset: int64(len(t.parts[p])),
		Key: r.Key, Value: r.Value, Timestamp: r.Timestamp, Headers: r.Headers}
	t.parts[p] = append(t.parts[p], in)
	if emitted {
		cp := *r
		cp.Partition = p
		m.outputs = append(m.outputs, &cp)
	}
	return in
}

// partitionFor picks a partition as Kafka's default partitioner does:
// murmur2 of the key (see DefaultPartition).
func (t *memTopic) partitionFor(key []byte) int32 {
	return DefaultPartition(key, int32(len(t.parts)))
}

func (m *Mem) subsFor(topic string) []*memSub {
	var out []*memSub
	for _, s := range m.subs {
		if slices.Contains(s.topics, topic) && !s.closed {
			out = append(out, s)
		}
	}
	return out
}

func (s *memSub) deliver(in *physical.InRecord) {
	if s.global != nil {
		if err := s.global(in); err != nil {
			s.onErr(err)
		}
		return
	}
	t := s.tasks[in.Partition]
	if t == nil {
		var err error
		if t, err = s.topo.NewTask(s.sub, s.newEnv(in.Partition)); err != nil {
			s.onErr(err)
			return
		}
		s.tasks[in.Partition] = t
	}
	if err := t.Process(in); err != nil {
		s.onErr(err)
	}
}

// subscribe registers a sub-topology's tasks on its topics. The records
// already in its internal topics (and with fromEarliest in its source
// topics) are replayed by replay,
// once every sub-topology of the query is subscribed (so records a replay
// sends through a repartition topic reach the next sub-topology).
func (m *Mem) subscribe(topo *physical.Topology, sub int, group string, newEnv func(int32) *physical.TaskEnv, onErr func(error), fromEarliest, resume bool) *memSub {
	internal := map[string]bool{}
	for _, it := range topo.Internal {
		internal[it.Name] = true
	}
	s := &memSub{topics: topo.SubTopologies[sub].Topics, sub: sub, group: group, tasks: map[int32]*physical.Task{}, newEnv: newEnv, topo: topo, onErr: onErr}
	m.mu.Lock()
	m.subs = append(m.subs, s)
	for _, topic := range s.topics {
		// internal topics are always read from the start, source topics
		// (a join's sub-topology reads one too) only with earliest
		if t, ok := m.topics[topic]; ok && !resume && (internal[topic] || fromEarliest) {
			for _, p := range t.parts {
				s.backlog = append(s.backlog, p...)
			}
		}
	}
	if len(s.topics) > 1 {
		// a join replays both sides in time order, as Kafka Streams picks
		// the next record across a task's partitions by timestamp
		slices.SortStableFunc(s.backlog, func(a, b physical.InRecord) int { return cmp.Compare(a.Timestamp, b.Timestamp) })
	}
	m.mu.Unlock()
	return s
}

// replay delivers the subscriptions' backlogs, then everything they
// produced.
func (m *Mem) replay(subs []*memSub) {
	for _, s := range subs {
		backlog := s.backlog
		s.backlog = nil
		for i := range backlog {
			if m.closed(s) {
				break // a push query that reached its LIMIT on another task
			}
			if !m.hold(s, &backlog[i]) {
				s.deliver(&backlog[i])
			}
		}
	}
	m.mu.Lock()
	if m.busy || len(m.pending) == 0 {
		m.mu.Unlock()
		return
	}
	m.busy = true
	m.mu.Unlock()
	m.drain()
}

func (m *Mem) closed(s *memSub) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return s.closed
}

func (m *Mem) unsubscribe(s *memSub) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s.closed = true
	for i, x := range m.subs {
		if x == s {
			m.subs = append(m.subs[:i], m.subs[i+1:]...)
			break
		}
	}
}

// Start implements Cluster.
func (m *Mem) Start(q *Query) (Runner, error) {
	var subs []*memSub
	var stores []*taskStores
	onErr := func(err error) {
		m.mu.Lock()
		if m.failure == nil {
			m.failure = fmt.Errorf("query %s: %w", q.ID, err)
		}
		m.mu.Unlock()
		q.Observer.Failed(failure(q.ID, err)) // classified as on Kafka
	}
	envs := q.envs(m, m)
	for i, st := range q.Topology.SubTopologies {
		newEnv := func(p int32) *physical.TaskEnv {
			env, ts := envs.build(st, p)
			if ts != nil {
				stores = append(stores, ts)
				m.mu.Lock()
				m.stores = append(m.stores, ts)
				m.mu.Unlock()
			}
			return env
		}
		subs = append(subs, m.subscribe(q.Topology, i, q.AppID, newEnv, onErr, q.Config.FromEarliest, q.Resume))
	}
	if q.Paused {
		m.setPaused(subs, true)
	}
	m.replay(subs)
	q.Observer.Running()
	return &memRunner{m: m, subs: subs, stop: func() error {
		for _, s := range subs {
			m.unsubscribe(s)
		}
		m.mu.Lock()
		m.stores = without(m.stores, stores)
		m.mu.Unlock()
		for _, ts := range stores {
			ts.close()
		}
		return nil
	}}, nil
}

// memRunner is a persistent query on the in-memory cluster. Paused, its
// subscriptions hold the records they would process; resumed, they
// process them in order, then what those produced, before Resume
// returns.
type memRunner struct {
	m    *Mem
	subs []*memSub
	stop func() error
}

var _ Pauser = (*memRunner)(nil)

func (r *memRunner) Stop() error { return r.stop() }

// Pause implements Pauser: it takes effect at once (nothing runs
// between produces).
func (r *memRunner) Pause() { r.m.setPaused(r.subs, true) }

// Resume implements Pauser.
func (r *memRunner) Resume() {
	r.m.setPaused(r.subs, false)
	r.m.replay(r.subs)
}

// Paused implements Pauser.
func (r *memRunner) Paused() bool {
	r.m.mu.Lock()
	defer r.m.mu.Unlock()
	return len(r.subs) > 0 && r.subs[0].paused
}

// PausedRounds implements Pauser: the records held.
func (r *memRunner) PausedRounds() int64 {
	r.m.mu.Lock()
	defer r.m.mu.Unlock()
	var n int64
	for _, s := range r.subs {
		n += int64(len(s.held))
	}
	return n
}

// setPaused pauses or resumes subs; resumed, their held records become
// their backlog (replay delivers it).
func (m *Mem) setPaused(subs []*memSub, paused bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, s := range subs {
		s.paused = paused
		if !paused {
			s.backlog = append(s.backlog, s.held...)
			s.held = nil
		}
	}
}

// hold keeps in for s when s is paused, and reports whether it did.
func (m *Mem) hold(s *memSub, in *physical.InRecord) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !s.paused {
		return false
	}
	s.held = append(s.held, *in)
	return true
}

func without(all, drop []*taskStores) []*taskStores {
	gone := map[*taskStores]bool{}
	for _, d := range drop {
		gone[d] = true
	}
	var out []*taskStores
	for _, s := range all {
		if !gone[s] {
			out = append(out, s)
		}
	}
	return out
}

func (m *Mem) fail(err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.failure == nil {
		m.failure = err
	}
}

// sendChangelog implements changelogSink: changelog records are records
// of the in-memory topics like any other. Key and value are copied: the
// store may reuse them (a window store builds its keys in one buffer).
// A record without a timestamp of its own (state.NoTimestamp) gets 0.
func (m *Mem) sendChangelog(topic string, p int32, key, value []byte, ts int64) {
	if ts == state.NoTimestamp {
		ts = 0
	}
	m.Emit(&physical.OutRecord{Topic: topic, Partition: p, Key: bytes.Clone(key), Value: bytes.Clone(value), Timestamp: ts})
}

// StartPush implements Cluster.
func (m *Mem) StartPush(q *Push) (Runner, error) {
	var subs []*memSub
	var stores []*taskStores
	stop := func() {
		for _, s := range subs {
			m.unsubscribe(s)
		}
	}
	onErr := func(err error) {
		if physical.IsStopped(err) {
			err = nil
		} else {
			err = pushFailure(err) // classified as on Kafka
		}
		q.Finish(err)
		stop()
	}
	envs := q.envs(m, m)
	for i, st := range q.Topology.SubTopologies {
		newEnv := func(p int32) *physical.TaskEnv {
			env, ts := envs.build(st, p)
			if ts != nil {
				stores = append(stores, ts)
			}
			return env
		}
		subs = append(subs, m.subscribe(q.Topology, i, "", newEnv, onErr, q.Config.FromEarliest, false))
	}
	m.replay(subs)
	return RunnerFunc(func() error {
		stop()
		for _, ts := range stores {
			ts.close()
		}
		return nil
	}), nil
}

func (m *Mem) Read(ctx context.Context, topic string, fromBeginning, _ bool, fn func(*physical.InRecord) bool) error {
	if !fromBeginning {
		return nil
	}
	m.mu.Lock()
	t, ok := m.topics[topic]
	var recs []physical.InRecord
	if ok {
		for _, p := range t.parts {
			recs = append(recs, p...)
		}
	}
	m.mu.Unlock()
	for i := range recs {
		if ctx.Err() != nil || !fn(&recs[i]) {
			return ctx.Err()
		}
	}
	return nil
}

func (m *Mem) Close() {}

// murmur2 is Kafka's default partitioner hash (Utils.murmur2).
func murmur2(data []byte) uint32 {
	const (
		seed = uint32(0x9747b28c)
		mul  = uint32(0x5bd1e995)
		r    = 24
	)
	n := len(data)
	h := seed ^ uint32(n)
	for i := 0; i+4 <= n; i += 4 {
		k := uint32(data[i]) | uint32(data[i+1])<<8 | uint32(data[i+2])<<16 | uint32(data[i+3])<<24
		k *= mul
		k ^= k >> r
		k *= mul
		h *= mul
		h ^= k
	}
	rest := n &^ 3
	switch n & 3 {
	case 3:
		h ^= uint32(data[rest+2]) << 16
		fallthrough
	case 2:
		h ^= uint32(data[rest+1]) << 8
		fallthrough
	case 1:
		h ^= uint32(data[rest])
		h *= mul
	}
	h ^= h >> 13
	h *= mul
	h ^= h >> 15
	return h
}

// Synchronous implements Cluster: producing runs every query downstream.
func (m *Mem) Synchronous() bool { return true }

// Ping implements Cluster: the in-memory cluster always answers.
func (m *Mem) Ping(context.Context) error { return nil }

// CommitEnds implements Cluster: a group on the in-memory cluster has no
// offsets (a query reads what was produced before it started only with
// auto.offset.reset=earliest, from its subscription's backlog).
func (m *Mem) CommitEnds(context.Context, string, []string) error { return nil }

// EndOffsets implements Cluster: each partition's record count.
func (m *Mem) EndOffsets(_ context.Context, topics ...string) (kadm.ListedOffsets, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := kadm.ListedOffsets{}
	for _, name := range topics {
		t, ok := m.topics[name]
		if !ok {
			continue
		}
		out[name] = map[int32]kadm.ListedOffset{}
		for p, recs := range t.parts {
			out[name][int32(p)] = kadm.ListedOffset{Topic: name, Partition: int32(p), Offset: int64(len(recs)), LeaderEpoch: -1}
		}
	}
	return out, nil
}

// CommittedOffsets implements Cluster: groups on the in-memory cluster
// commit nothing.
func (m *Mem) CommittedOffsets(context.Context, string) (kadm.OffsetResponses, error) {
	return kadm.OffsetResponses{}, nil
}

var (
	_ Cluster = (*Mem)(nil)
	_ Cluster = (*Kafka)(nil)
)

// NewMem returns an empty in-memory cluster.
func NewMem() *Mem { return &Mem{topics: map[string]*memTopic{}} }

// Failure is the first task error (a bug, or a record the query failed
// on); the test driver reports it.
func (m *Mem) Failure() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.failure
}

// Outputs returns the records tasks produced, in order, from index from
// on, and the index after the last.
func (m *Mem) Outputs(from int) ([]*physical.OutRecord, int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.outputs[from:], len(m.outputs)
}
