package state

import (
	"fmt"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// Option configures a DB (Open, OpenMem).
type Option interface{ applyDB(*dbConfig) }

// StoreOption configures one store opened with (*DB).Store, WindowStore or
// SessionStore.
type StoreOption interface{ applyStore(*storeConfig) }

type dbOption func(*dbConfig)

func (f dbOption) applyDB(c *dbConfig) { f(c) }

type storeOption func(*storeConfig)

func (f storeOption) applyStore(c *storeConfig) { f(c) }

type dbConfig struct {
	cacheBytes int64
	memTable   int64
	logger     pebble.Logger
	sync       bool
	fs         vfs.FS
	onFailure  func(error)
}

func defaultDBConfig() dbConfig {
	return dbConfig{cacheBytes: 64 << 20, memTable: 64 << 20, logger: quietLogger{}, sync: true, fs: vfs.Default}
}

func (c *dbConfig) validate() error {
	if c.cacheBytes < 0 {
		return fmt.Errorf("state: block cache size %d must be >= 0", c.cacheBytes)
	}
	if c.memTable < 1<<20 || c.memTable >= 4<<30 {
		return fmt.Errorf("state: memtable size %d must be at least 1 MiB and under 4 GiB", c.memTable)
	}
	if c.logger == nil || c.fs == nil {
		return fmt.Errorf("state: logger and file system must not be nil")
	}
	return nil
}

// WithBlockCache sizes Pebble's block cache in bytes. Default 64 MiB, shared
// by every store of the DB.
func WithBlockCache(bytes int64) Option {
	return dbOption(func(c *dbConfig) { c.cacheBytes = bytes })
}

// WithMemTable sets the size of Pebble's memtable, shared by every store
// of the DB. Default 64 MiB, sixteen times Pebble's default, so flushes and
// the compactions that follow them are that much rarer: while the DB is
// small every L0 table compacts into the whole of L6, so compaction work
// grows with the square of the state divided by the memtable size. (Kafka
// Streams gives each store partition its own RocksDB with up to three 16
// MiB write buffers; 64 MiB for all stores is in that range.) Memory is
// only touched as the memtable fills.
func WithMemTable(bytes int64) Option {
	return dbOption(func(c *dbConfig) { c.memTable = bytes })
}

// WithLogger sets the logger Pebble reports to. Its Fatalf must not return:
// Pebble calls it when it cannot go on (e.g. a failed WAL write). Default: a quiet logger that
// drops informational and error messages (errors also surface from the failing call); pass a *RecordingLogger to keep them.
func WithLogger(l pebble.Logger) Option {
	return dbOption(func(c *dbConfig) { c.logger = l })
}

// WithFailureHook sets fn to be told of each write failure of the DB (a
// *WriteError, see DB.Failure) when it happens, once per failure: again
// after a Reopen. It may be called from one of Pebble's goroutines holding
// Pebble's locks, so it must return at once and not call the DB (signal a
// goroutine). Default none.
func WithFailureHook(fn func(error)) Option {
	return dbOption(func(c *dbConfig) { c.onFailure = fn })
}

// WithSync makes Flush, Checkpoint and Wipe wait for an fsync. Default true;
// false trades the guarantee that a flushed commit survives a machine crash
// for latency (the changelog still has the data).
func WithSync(sync bool) Option {
	return dbOption(func(c *dbConfig) { c.sync = sync })
}

// WithFS sets the file system. Default vfs.Default (the OS); OpenMem uses
// vfs.NewMem(); tests pass crashable or fault-injecting file systems.
func WithFS(fs vfs.FS) Option {
	return dbOption(func(c *dbConfig) { c.fs = fs })
}

type storeConfig struct {
	changelog        Changelog
	cacheBytes       int64
	listener         FlushListener
	metrics          *Metrics
	retainDuplicates bool
	transactional    bool
	timestamped      bool
}

func defaultStoreConfig() storeConfig {
	return storeConfig{cacheBytes: 1 << 20}
}

func (c *storeConfig) validate() error {
	if c.cacheBytes < 0 {
		return fmt.Errorf("state: store cache size %d must be >= 0", c.cacheBytes)
	}
	return nil
}

// WithChangelog sends every write that reaches the changelogging layer to
// log. Default: no changelog (logging disabled, e.g. for standby replicas
// or tests).
func WithChangelog(log Changelog) StoreOption {
	return storeOption(func(c *storeConfig) { c.changelog = log })
}

// WithCache bounds the store's write-back cache in bytes. Default 1 MiB;
// 0 disables caching so every Put goes straight down.
func WithCache(bytes int64) StoreOption {
	return storeOption(func(c *storeConfig) { c.cacheBytes = bytes })
}

// WithFlushListener calls fn for every entry the cache writes down (on Flush
// or eviction), or for every Put when caching is disabled: the hook the
// runtime uses to forward de-duplicated table updates downstream. Default
// none.
func WithFlushListener(fn FlushListener) StoreOption {
	return storeOption(func(c *storeConfig) { c.listener = fn })
}

// WithMetrics makes the metered layer count into m, which the caller keeps
// (and may share between stores). Default: a private Metrics.
func WithMetrics(m *Metrics) StoreOption {
	return storeOption(func(c *storeConfig) { c.metrics = m })
}

// RetainDuplicates makes a WindowStore keep every Put under its own sequence
// number instead of overwriting (stream-stream joins). Default false.
// Ignored by other stores.
func RetainDuplicates() StoreOption {
	return storeOption(func(c *storeConfig) { c.retainDuplicates = true })
}

// TimestampInRecord says the store's values are an 8-byte big-endian
// timestamp then the serialized value, and that its changelog keeps the
// timestamp out of the value as Kafka Streams' timestamped stores do: a
// changelog record's value is the serialized value alone (so a standard
// deserializer reads it, a registry format's magic byte first) and its
// record timestamp is the stored timestamp; a Restorer opened with it
// puts the timestamp back in front. A value shorter than 8 bytes is
// refused. Default false: the changelog record carries the value as
// stored, stamped by the producer. It says how the changelog topic was
// written, so a store must keep it for the topic's life.
func TimestampInRecord() StoreOption {
	return storeOption(func(c *storeConfig) { c.timestamped = true })
}

// Transactional makes the store hold every write until
// DB.CommitTransaction, for exactly-once processing: Pebble then only ever
// holds state whose changelog records were committed. Flush writes the
// cache down (its changelog records go out) but commits nothing, a Range
// reads the pending writes through an indexed batch instead of committing
// them early, and no batch is committed early for its size. Close, or a
// crash, discards everything since the last CommitTransaction: the abort.
// Default false (at-least-once: Flush commits).
func Transactional() StoreOption {
	return storeOption(func(c *storeConfig) { c.transactional = true })
}
