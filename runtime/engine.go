package runtime

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/internal/version"
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/runtime/cluster"
	"github.com/sqlstream/sqlstream/runtime/commandlog"
	"github.com/sqlstream/sqlstream/runtime/connect"
	"github.com/sqlstream/sqlstream/runtime/exec"
	"github.com/sqlstream/sqlstream/runtime/kafkasec"
	"github.com/sqlstream/sqlstream/runtime/naming"
	"github.com/sqlstream/sqlstream/runtime/peer"
	"github.com/sqlstream/sqlstream/runtime/proclog"
	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/sqlstream/sqlstream/runtime/recovery"
	"github.com/sqlstream/sqlstream/runtime/registry"
	"github.com/sqlstream/sqlstream/sql/functions"
	"github.com/sqlstream/sqlstream/state"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Engine executes statements: it owns the catalog, the persistent and
// transient queries, the command log that makes persistent queries
// survive restarts, and the processing log.
//
//	Execute ──► parse ──► planner ──► physical.Build ──► cluster.start
//	   │                     │
//	   └──► command topic ◄──┘ (accepted DDL/DML, replayed on start)
type Engine struct {
	opts    options
	logger  *slog.Logger
	props   props.Properties   // the server's properties over the table's defaults (a session's base)
	cfg     props.EngineConfig // parsed from props once, at the start
	names   naming.Names       // the application ids of queries
	connect *connect.Factory   // the connector statements' Kafka Connect clients (ksql.connect.*)
	table   props.Table        // every property the engine accepts
	cluster exec.Cluster
	reg     *functions.Registry
	procLog *proclog.Log
	cmdLog  *commandlog.Log
	db      *state.DB // local state of every task on this server
	// recovery reopens db after a write failure and restarts the queries
	// that failed on it (package runtime/recovery); nil without a data directory.
	recovery *recovery.Recovery
	// autoCreateTopics creates a missing source topic (one partition)
	// instead of failing CREATE STREAM/TABLE: the test driver's behaviour,
	// where a test's input topics exist implicitly.
	autoCreateTopics bool

	mu      sync.Mutex // serializes statement execution
	cat     *planner.Catalog
	planner *planner.Planner
	queries map[string]*query
	// replaying is set while the command log replays at the start: the
	// queries it creates wait in pending until the log is applied
	// (startPending), so each runs only its latest plan.
	replaying  bool
	pending    []string
	seq        int64 // next command sequence number
	queryCount int64 // persistent queries created (see qttmode.Mode.Naming)
	// queryBuilds counts the topologies buildQuery built (a statement
	// builds its query's once; query_build_test.go).
	queryBuilds int
	// queryStarts counts the runs of persistent queries started (q.start):
	// a replay starts each query once, on its latest plan.
	queryStarts atomic.Int64
	statuses    map[string]string
	commands    map[string]api.CommandStatus // full status of each command id, see CommandStatus
	started     time.Time
	stops       []stopJob     // query shutdowns waiting for mu to be released, see unlock
	healthWait  time.Duration // how long /healthcheck waits for mu before calling the engine wedged
	restored    atomic.Bool   // every query restored at startup has run (readiness.go)
	tmu         sync.Mutex
	transients  map[string]*transient
	peers       *cluster.Peers // the other servers of the service id; nil on the in-memory cluster
	agent       *peer.Agent    // heartbeats and lag reports; nil when not sent
}

// New starts an engine on the Kafka cluster given by WithBootstrap: it
// creates the command and processing-log topics if needed and replays the
// command topic, restarting persistent queries from their committed
// offsets.
func New(ctx context.Context, opts ...Option) (*Engine, error) {
	o := options{serviceID: "default_", dataDir: "./sqlstream-data/state"}
	for _, opt := range opts {
		opt.apply(&o)
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	e, err := newEngine(o)
	if err != nil {
		return nil, err
	}
	if o.cluster == nil {
		security, err := kafkasec.Options(e.cfg.Kafka)
		if err != nil {
			return nil, fmt.Errorf("kafka security: %w", err)
		}
		if o.kafkaSASL != nil {
			security = append(security, kgo.SASL(o.kafkaSASL))
		}
		kc, err := exec.NewKafka(exec.KafkaConfig{Seeds: o.bootstrap, Logger: e.logger, Security: security, GlobalCheck: o.globalCheck})
		if err != nil {
			return nil, err
		}
		if err := kc.Ping(ctx); err != nil {
			kc.Close()
			return nil, fmt.Errorf("cannot reach Kafka at %v: %w", o.bootstrap, err)
		}
		e.cluster = kc
		// Beside the state directory, not in it: state lost and rebuilt
		// from changelogs must not lose the key of the command topic.
		cmdLog, err := openCommandLog(ctx, e, kc, "_"+o.serviceID+"_command_topic", filepath.Dir(filepath.Clean(o.dataDir)))
		if err != nil {
			kc.Close()
			return nil, err
		}
		e.cmdLog = cmdLog
		e.peers = cluster.NewPeers(o.advertised, peer.Key(cmdLog.Key()),
			e.cfg.HeartbeatWindow)
		e.recovery = recovery.New(o.dataDir)
		stateOpts := []state.Option{state.WithLogger(state.SlogLogger(e.logger)), state.WithFailureHook(e.recovery.Poke)}
		if o.stateFS != nil {
			stateOpts = append(stateOpts, state.WithFS(o.stateFS))
		}
		db, err := state.Open(o.dataDir, stateOpts...)
		if err != nil {
			kc.Close()
			return nil, fmt.Errorf("state in %s: %w", o.dataDir, err)
		}
		e.db = db
	}
	if err := e.open(ctx); err != nil {
		e.cluster.Close()
		return nil, err
	}
	e.startPeerAgent()
	e.startStorageRecovery()
	return e, nil
}

func newEngine(o options) (*Engine, error) {
	logger := o.logger
	if logger == nil {
		logger = slog.Default()
	}
	table := props.NewTable()
	set := table.Defaults().Merge(o.props)
	set[props.ServiceID] = o.serviceID
	cfg, err := props.NewEngineConfig(table, set)
	if err != nil {
		return nil, fmt.Errorf("runtime: %w", err)
	}
	names, err := naming.New(o.appPrefix, cfg.KsqlDBNaming, o.serviceID, cfg.PersistentPrefix)
	if err != nil {
		return nil, err
	}
	reg := functions.NewRegistry(functions.WithMaxResultBytes(cfg.MaxResultBytes))
	cat := planner.NewCatalog()
	e := &Engine{opts: o, names: names, logger: logger, props: set, cfg: cfg, table: table, cluster: o.cluster, reg: reg, cat: cat, autoCreateTopics: o.createTopics,
		queries: map[string]*query{}, statuses: map[string]string{}, commands: map[string]api.CommandStatus{}, transients: map[string]*transient{},
		started: time.Now(), healthWait: defaultHealthWait}
	d := planner.Defaults{KeyFormat: cfg.KeyFormat, ValueFormat: cfg.ValueFormat,
		MaxWindowsPerRecord: cfg.MaxWindowsPerRecord, WrapSingle: cfg.WrapSingle}
	if n := cfg.CollectListLimit; n != nil {
		d.Aggregates = append(d.Aggregates, functions.WithCollectListLimit(*n))
	}
	if n := cfg.CollectSetLimit; n != nil {
		d.Aggregates = append(d.Aggregates, functions.WithCollectSetLimit(*n))
	}
	if d.SchemaRegistry = o.registry; d.SchemaRegistry == nil {
		sr, err := registry.New(cfg.Registry)
		if err != nil {
			return nil, err
		}
		d.SchemaRegistry = sr
	}
	e.planner = planner.New(cat, reg, d)
	c := cfg.Connect
	if e.connect, err = connect.NewFactory(connect.Config{URL: c.URL, Timeout: c.Timeout, CredentialsFile: c.CredentialsFile,
		ReloadCredentials: c.ReloadCredentials, Trust: c.Trust, Key: c.Key, VerifyHost: c.VerifyHost}); err != nil {
		return nil, fmt.Errorf("runtime: %w", err)
	}
	return e, nil
}

// open prepares internal topics and replays the command log.
func (e *Engine) open(ctx context.Context) error {
	e.procLog = proclog.New(e.cluster, e.logger, e.opts.serviceID+"ksql_processing_log")
	if err := e.procLog.Open(ctx); err != nil {
		return fmt.Errorf("processing log: %w", err)
	}
	e.cat.Put(e.procLog.Source())
	if e.cmdLog != nil {
		e.replaying = true
		err := e.cmdLog.Replay(ctx)
		e.mu.Lock()
		e.replaying = false
		e.startPending()
		e.unlock()
		if err != nil {
			return fmt.Errorf("command topic: %w", err)
		}
		e.cmdLog.StartFollowing()
	}
	return nil
}

// Close stops all queries (keeping their committed offsets), waiting at
// most ksql.streams.shutdown.timeout.ms, and the cluster connection.
func (e *Engine) Close() error {
	e.recovery.Stop()
	e.agent.Stop()
	if e.cmdLog != nil {
		e.cmdLog.StopFollowing()
	}
	e.mu.Lock()
	e.tmu.Lock()
	for _, t := range e.transients {
		e.deferStop(t.id, t.Close)
	}
	e.tmu.Unlock()
	for _, q := range e.queries {
		e.deferStop(q.id, q.stop)
	}
	jobs := e.stops
	e.stops = nil
	e.mu.Unlock()
	stopped := e.runStops(jobs)
	e.procLog.Close()
	e.cluster.Close()
	if !stopped {
		// Tasks still running may still write to the local state: leave
		// it open (its write-ahead log makes the next start recover).
		return fmt.Errorf("queries did not stop within %v; local state left open", e.cfg.ShutdownTimeout)
	}
	return e.closeDB()
}

// closeDB closes the local state. A DB that failed a write (a full disk)
// was reported when it failed (its queries in ERROR, StorageFailure);
// closing it, within its bound, says so again and is logged rather than
// failing the shutdown.
func (e *Engine) closeDB() error {
	err := e.db.Close()
	if err != nil && e.db.Failure() != nil {
		e.logger.Warn("closed the local state that had failed a write", "err", err)
		return nil
	}
	return err
}

// Registry returns the function registry.
func (e *Engine) Registry() *functions.Registry { return e.reg }

// Info implements the server's /info.
func (e *Engine) Info() api.ServerInfo {
	return api.ServerInfo{Version: version.String(), KafkaClusterID: "sqlstream", KsqlServiceID: e.opts.serviceID, ServerStatus: "RUNNING"}
}

// CommandStatuses implements the server's /status.
func (e *Engine) CommandStatuses() map[string]string {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make(map[string]string, len(e.statuses))
	for k, v := range e.statuses {
		out[k] = v
	}
	return out
}

func (e *Engine) forgetTransient(id string) {
	e.tmu.Lock()
	delete(e.transients, id)
	e.tmu.Unlock()
}

// CloseQuery ends a transient push query by id (POST /close-query).
func (e *Engine) CloseQuery(id string) error {
	e.tmu.Lock()
	t, ok := e.transients[id]
	e.tmu.Unlock()
	if !ok {
		return &api.ErrorMessage{ErrorCode: api.CodeBadRequest, Message: "No query with id " + id}
	}
	return t.Close()
}

// Catalog returns the catalog's sources and the names of those written by
// a persistent query.
func (e *Engine) Catalog() (srcs []*planner.Source, sinks map[string]bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	sinks = map[string]bool{}
	for _, q := range e.queries {
		if q.plan.Sink != nil {
			sinks[q.plan.Sink.Name] = true
		}
	}
	return e.cat.List(), sinks
}
