// Package state keeps the local state of sqlstream's tasks in Pebble: byte
// stores stacked Kafka Streams style, each backed by a compacted changelog
// topic so a task can be rebuilt on any server. It is a leaf: it imports
// no other sqlstream package and works on bytes; the runtime wraps stores
// with serdes and owns Kafka.
//
//	task goroutine: Put / Get / Range / Flush
//	 │
//	 ▼
//	metered        counts puts, gets, bytes               metered.go
//	 ▼
//	caching        write-back, LRU by write, size bound   caching.go
//	 │             entries found by key hash              entry_table.go
//	 │             Lazy values kept as put, their bytes   lazy.go
//	 │             made only at write-down or a read
//	 │             Flush/evict: latest value per key ───► FlushListener
//	 ▼
//	changelogging  every write that reaches it ─────────► Changelog.Send
//	 │             (<app>-<store>-changelog, the task's   changelogging.go
//	 ▼              partition; produced by the runtime)
//	pebble         batch per store; Flush                 pebble_store.go
//	 │             commits data + key count + checkpoint,
//	 │             the batch's records in key order       sorted_batch.go
//	 ▼
//	one Pebble DB per data dir                            db.go, keyspace.go
//	 0x00 'n'                  → next prefix
//	 0x00 'r' app name part    → prefix (4 bytes)
//	 0x00 'c' prefix           → checkpoint offset
//	 0x00 'k' prefix           → key count
//	 0x00 's' prefix           → segment interval (segmented window stores)
//	 0x01 prefix user-key      → value
//	 0x01 prefix segment(8) window-key → value    window_segments.go
//
//	restore:  changelog ─► Restorer.Restore ─► pebble    restore.go
//	timestamped (TimestampInRecord): pebble ts(8) ‖ value;
//	          changelog value, record timestamp ts        changelogging.go
//	window:   WindowStore  key ‖ start(8) ‖ seq(4)      window_store.go
//	session:  SessionStore key ‖ end(8) ‖ start(8)      session_store.go
//	versions: VersionedStore key ‖ valid-from(8)        versioned_store.go
//	commit:   Store.Flush ─► producer flush ─► DB.Checkpoint(id, next offset)
//	alos:     WriteCached ─► changelog + batch (no commit), then the task's outputs
//	eos:      Store.Flush ─► Kafka commit ─► DB.CommitTransaction(id, next offset)
//	          (or CommitTransactionUnsynced per store, then one SyncCommits)
//
// # One DB per data directory
//
// Every store partition of every task on a server lives in one Pebble DB,
// in a key space named by a 4-byte prefix that the DB hands out once per
// (application id, store, partition) and remembers in a registry, so keys
// carry 5 bytes of overhead however long the names are. Against one DB per
// task this means one WAL, one set of compaction goroutines, one block
// cache sized once (WithBlockCache) and a bounded number of open files
// however many tasks a server runs; stores of one task could even share a
// batch, though nothing needs that, since each store restores from its own
// checkpoint. What one DB per task makes easy, dropping a directory, is a
// range deletion over the prefix here (Wipe), which Pebble turns into
// dropped tables at compaction; prefixes are never reused, so a wiped
// store's leftovers cannot leak into a new one.
//
// # What a changelog record holds
//
// A changelog record is a store write: the key, and the value as stored
// (nil: a tombstone), stamped by the producer. A store opened with
// TimestampInRecord keeps an 8-byte timestamp in front of each value
// locally, as Kafka Streams' timestamped stores do, but its changelog
// carries the value alone and the timestamp as the record's, so the
// record is what a standard deserializer reads (a Confluent format's
// magic byte first); its Restorer, given the same option, puts the
// record's timestamp back in front. A value that is a timestamp alone
// (the EMIT FINAL buffer's stream time) goes out as an empty value, which
// is not a tombstone (a null value is): the changelog keeps it through
// compaction and a restore stores it back as the 8-byte timestamp. The
// option describes how the topic
// was written: the runtime takes it from the query's plan, never from
// the bytes, and keeps it for the store's life (queries recorded before
// it existed keep the prefixed changelog values).
//
// # Commits and checkpoints
//
// A store's writes collect in a Pebble batch until Flush, the commit
// point, commits them in one batch. Point reads see the batch through a
// map of its writes; a Range commits it early (no sync) rather than
// indexing every write for the rare scan, as a batch past 64 MiB is
// committed early. The writes of an at-least-once write-back
// (WriteCached) stay out of that map: the batch is marked hidden and
// committed early before the first point read the key filter cannot
// answer, or at the next write-back (write_cached.go). Either way data is only ever ahead of its checkpoint,
// never behind it. A write
// not flushed is gone after a crash or Close, as an uncommitted
// transaction is; its changelog record may already be out, which is fine:
// restoring replays the changelog and the last write per key wins.
//
// A Transactional store (exactly_once_v2) inverts this: Pebble only ever
// holds committed state. Its batch is indexed from the transaction's first
// Range on (batch_index.go), so a Range merges it instead of committing
// early; nothing is committed early for size; Flush writes
// the cache down (the changelog records join the Kafka transaction) but
// commits nothing. The flush's writes stay out of the point-read map, so
// a read before the commit goes through the batch, indexed on demand
// (unmirrored.go): the runner reads nothing there. Once the transaction
// commits, CommitTransaction(id, offset) commits data, key count and
// checkpoint in one batch; a transaction over several stores commits each
// unsynced and syncs the WAL once (SyncCommits). An abort is
// a Close, which drops the batch and the cache (transaction.go). A crash
// between the two leaves the previous commit and its checkpoint: the
// restart replays the committed changelog tail from there, never a wipe.
//
// Checkpoint(id, offset) records that local state holds the changelog
// below offset. The runtime calls it after Flush with the offset its
// producer reached. If the store has uncommitted writes the checkpoint
// joins their batch, otherwise it is written alone; a checkpoint is thus
// never durable before the data it covers, and a restart with intact state
// replays only the tail from Checkpointed(id). Wipe removes it with the
// data, so a lost or moved store restores from the start. A Restorer
// commits every few MiB with a checkpoint after its last record, so an
// interrupted restore resumes near where it stopped.
//
// The Pebble layer keeps an exact committed key count per store (for
// DESCRIBE EXTENDED, with EstimateDiskUsage for bytes) by checking whether
// each written key exists; that read is most of the cost of a write that
// reaches Pebble, one more reason the cache absorbs hot keys. A
// duplicates window store's keys are new by construction (the sequence
// number is past every stored one), so its puts tell the layers below so
// (putNew, known.go) and skip that read.
//
// # A disk that refuses writes
//
// Pebble treats a commit it cannot log (a full disk) as fatal and panics
// through its logger. Every write of the DB recovers that panic into a
// *WriteError and keeps it: from then on writes fail at once with it
// (DB.Failure), reads go on, and Close of the failed DB is bounded, so
// the server reports the failure instead of crashing or hanging. What
// Pebble's own goroutines fail to write on the disk (a flush's or
// compaction's table through EventListener.BackgroundError, a MANIFEST
// update through Logger.Fatalf from the flush goroutine) fails the DB the
// same way, without a panic there; WithFailureHook hears of each failure
// (write_failure.go).
//
// Reopen opens the failed DB again in place once the disk has room: every
// use of Pebble holds a shared lock that Reopen takes exclusively, so
// readers wait for the new DB rather than see a closed one, and the *DB
// the runtime holds stays the same. A store open across the reopen goes
// on if all it wrote was durable (its last write covered by a synced
// one); otherwise it is lost, failing with a *WriteError until closed,
// and its owner restores it from the changelog (reopen.go).
//
// # Keys never written
//
// Aggregations read before they write, and most reads of a windowed
// aggregation (every new window) and of a growing table are of keys that
// were never written. Each store partition keeps a scalable Bloom filter
// of the keys put into it (keyfilter.go: blocked, one cache line per key,
// about 2 bytes per key, dropped past 32M keys), so such a read, and the
// existence check of its first write, is answered without Pebble. It has
// no false negatives because every put reaches Pebble through one
// function (writeKnown); a partition found with keys on open builds its
// filter with a scan at its first claim. The invariants build checks
// every read the filter answers.
//
// Window and session stores that are empty at their first use (a new
// query, or lost state with nothing to restore: restore and standby
// writes happen before, so a restored store leaves them off) keep
// "stamps" besides (window_store_new.go): per bucket of key hashes, the
// latest window start (session end) put. A read of a later window is of
// one never put, answered without the cache, the filter or Pebble; the
// invariants build checks these answers too.
//
// # Retention of window and session stores
//
// Window and session keys put the record key first so one key's windows
// (or sessions, by end time) are one contiguous range for Fetch and
// FindSessions. Purge drops entries older than the retention from the
// local store and the cache without changelog tombstones, as Kafka
// Streams does when it drops a segment: the changelog topic of a windowed
// store is created with cleanup.policy=compact,delete and a retention of
// the store's plus a day, so the broker expires the records itself.
// Session Remove, in contrast, is a normal delete and sends a tombstone,
// since a merged session must disappear from the table.
//
// A window store's partition can be segmented (WindowStore.UseSegments,
// as aggregations' and joins' are): locally each key has its segment
// (window start / interval) in front, so a Purge visits only the segments
// holding expired windows, and a Fetch only those of its time range (an
// iterator each, merged); scans merge every segment back into key order,
// so the answers, the cache's and the changelog's keys are those of the
// plain layout. A partition written in the plain layout (older versions)
// is rewritten on its first UseSegments. Session stores keep the plain
// layout and scan the store to purge.
//
// # Concurrency
//
// DB methods are safe for concurrent use. A Store, WindowStore,
// SessionStore or Restorer belongs to one goroutine (its task), except that
// DB.Checkpoint may race with it safely, Restorer.Progress and SetTotal may
// be called from anywhere, and Metrics may be read from anywhere.
package state
