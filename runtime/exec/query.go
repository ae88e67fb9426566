package exec

import (
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/state"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Query is what a runner sees of a persistent query: a small value the
// engine fills once per run, never the engine or its query. The runner
// reports back through Observer and the counters.
type Query struct {
	ID       string
	AppID    string // consumer group, internal topic and store prefix
	Topology *physical.Topology
	Config   Config
	DB       *state.DB // local state of every task on this server
	Logger   *slog.Logger
	Log      physical.ProcessingLog // where bad records are reported
	Globals  physical.GlobalStores  // the query's global-table stores (nil: none)
	Observer Observer
	// Resume is set on a query upgraded in place: its group consumed
	// before, and it goes on from the group's committed offsets. Kafka
	// does so by itself; the in-memory cluster, which keeps no offsets
	// and whose earlier run processed every record already in its
	// topics, skips them.
	Resume bool
	// Paused starts the runner paused (a query a PAUSE command paused:
	// pause.go); Pauser resumes it.
	Paused bool

	// Counters the engine reads for SHOW QUERIES, EXPLAIN and metrics;
	// none may be nil.
	Processed   *atomic.Int64 // input records processed
	Skipped     *atomic.Int64 // records a join skipped (TaskEnv.Skipped)
	StreamTimes *StreamTimes  // each task's stream time and open windows
	TxnEnds     *Latencies    // how long ending each transaction took (exactly_once_v2)
	// Commits, when set, times each at_least_once commit that sent
	// offsets (store and producer flushes, checkpoints, the offset
	// commit).
	Commits  *Latencies
	Restores *Restores // each store's restoration progress
	// Nodes counts the records each node of the topology receives (nil:
	// not counted).
	Nodes *physical.NodeCounts

	// Balancer makes the query's group balancer (Kafka only): it assigns
	// whole tasks and calls back through hooks.
	Balancer func(hooks BalancerHooks) kgo.GroupBalancer
	// ReplicaFault, when set, is called before a standby or warmup
	// replica applies each changelog record (fault-injection tests).
	ReplicaFault func(store string, partition int32, offset int64) error
}

// Observer receives what a runner has to tell its query.
type Observer interface {
	// Running: the query's tasks run (on Kafka, once every task assigned
	// at the start is restored).
	Running()
	// Failed: a fault the runner cannot get past; the query goes to
	// ERROR with err (already classified, see Failure) and the runner
	// stops processing.
	Failed(err error)
	// Recovered: an error the runner recovered from, for EXPLAIN.
	Recovered(err error)
	// Stopped: the runner stopped; this server holds none of the query's
	// tasks any more.
	Stopped()
}

// BalancerHooks is what the runner gives the group balancer it asks
// Query.Balancer for.
type BalancerHooks struct {
	SubOf map[string]int // source topic → sub-topology
	// EndSums sums the end offsets of each task's changelog partitions
	// (nil when they cannot be listed).
	EndSums func() map[physical.TaskID]int64
	// Assigned receives this member's share of each assignment beyond its
	// active tasks.
	Assigned func(Assignment)
}

// Assignment is what the balancer assigned this member beside its active
// partitions: standby and warmup replicas, and the group's rebalance
// schedule.
type Assignment struct {
	Standby, Warmup []physical.TaskID
	// ProbeAt is the time of the next probing rebalance (zero: none).
	ProbeAt time.Time
	// Rejoin: tasks were revoked; rejoin at once for the round that
	// assigns them.
	Rejoin bool
}

// Push is what a runner sees of a transient push query: rows go to
// Rows, and Finish is called once when the query ends (nil: it
// completed).
type Push struct {
	ID       string
	AppID    string
	Topology *physical.Topology
	Config   Config
	DB       *state.DB
	Logger   *slog.Logger
	Log      physical.ProcessingLog
	Globals  physical.GlobalStores
	Rows     physical.RowSink
	Finish   func(error)
}

// TaskEnv is the environment of a pull query's task of sub for partition
// p: no emitter, no stores (a pull query reads committed state).
func (q *Push) TaskEnv(sub *physical.SubTopology, p int32) *physical.TaskEnv {
	env, _ := q.envs(nil, nil).build(sub, p)
	return env
}

// Config is a query's runner configuration, parsed once from its
// properties by the engine.
type Config struct {
	CommitInterval time.Duration // ksql.streams.commit.interval.ms
	Threads        int           // ksql.streams.num.stream.threads
	FromEarliest   bool          // ksql.streams.auto.offset.reset=earliest
	CacheBytes     int64         // ksql.streams.cache.max.bytes.buffering, per store
	IdleCloseMs    int64         // window.close.idle.ms (0: off)
	MaxTaskIdle    time.Duration // ksql.streams.max.task.idle.ms (negative: never wait)
	LateTopic      string        // late.records.topic ("" for none)
	ThrowOnInvalid bool          // ksql.timestamp.throw.on.invalid
	ExactlyOnce    bool          // ksql.streams.processing.guarantee=exactly_once_v2
	SessionTimeout time.Duration // ksql.streams.session.timeout.ms
	AcceptableLag  int64         // ksql.streams.acceptable.recovery.lag: a warmup this close is caught up
	// Clients are the options of the Kafka client settings set
	// (runtime/kafkasec.ClientOptions), after the runner's own.
	Clients []kgo.Opt
	// RestoreClients are the restore consumer's (restore.consumer.*,
	// consumer.* and bare settings: runtime/kafkasec.ReaderOptions), after
	// its own: it reads the changelogs that restore a task's stores and
	// feed its standby replicas.
	RestoreClients []kgo.Opt
	// MaxPollRecords is max.poll.records: most records one poll of a
	// persistent query takes (0: 10000).
	MaxPollRecords int
}

// maxPoll is the most records one poll takes.
func (c Config) maxPoll() int {
	if c.MaxPollRecords > 0 {
		return c.MaxPollRecords
	}
	return 10_000
}

// Restores tracks each store's restorer of one query, for DESCRIBE
// EXTENDED and the task lags.
type Restores struct {
	mu sync.Mutex
	m  map[state.StoreID]state.Restorer
}

func (rs *Restores) track(id state.StoreID, r state.Restorer) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.m == nil {
		rs.m = map[state.StoreID]state.Restorer{}
	}
	rs.m[id] = r
}

// lag is how far the restoration of the store name's partition p lags (0
// once restored or never restored here).
func (rs *Restores) lag(name string, p int32) int64 {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	var l int64
	for id, r := range rs.m {
		if id.Name == name && id.Partition == p {
			n, total := r.Progress()
			l = max(total-n, 0)
		}
	}
	return l
}

// Status describes restoration progress, one store per line.
func (rs *Restores) Status() string {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	var lines []string
	for id, r := range rs.m {
		n, total := r.Progress()
		lines = append(lines, fmt.Sprintf("%s: restored %d/%d", id, n, total))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// RestoreProgress is how far the restoration of one store partition
// has come: Done of Total changelog records.
type RestoreProgress struct {
	Store       string
	Partition   int32
	Done, Total int64
}

// Progress is each tracked store partition's restoration progress.
func (rs *Restores) Progress() []RestoreProgress {
	var out []RestoreProgress
	rs.Each(func(id state.StoreID, r state.Restorer) {
		n, total := r.Progress()
		out = append(out, RestoreProgress{Store: id.Name, Partition: id.Partition, Done: n, Total: total})
	})
	return out
}

// Each calls fn for each store's restorer.
func (rs *Restores) Each(fn func(id state.StoreID, r state.Restorer)) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	for id, r := range rs.m {
		fn(id, r)
	}
}
