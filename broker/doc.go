// Package broker runs an embedded, single-node Kafka broker inside the
// sqlstream process, so `sqlstream` works without an external cluster.
//
// It wraps franz-go's kfake with a data directory, so topics, records and
// committed group offsets survive a restart, and with a background cleaner
// that enforces retention and compacts topics whose cleanup.policy is
// compact once one of their partitions is half dirty (written since its
// last compaction), as Kafka's log cleaner does.
//
//	clients (engine, kcat, kgo)
//	          │ Kafka protocol
//	          ▼
//	 ┌─────────────────────┐   every compaction interval
//	 │  Broker (kfake,     │◄──────────── cleaner goroutine
//	 │  one node, no auto  │
//	 │  topic creation)    │
//	 └─────────┬───────────┘
//	           │ segments, topics.json, groups.log
//	           ▼
//	     <data dir>/
//
// Records are kept forever unless a topic sets retention.ms or
// WithRetention sets a broker-wide limit: kfake enforces retention by
// record timestamp on every batch, so Kafka's 7-day default would delete
// records with old timestamps (common in tests and backfills) at once.
//
// # Compaction and transactions
//
// A committed record must never be lost to an open or aborted
// transaction. kfake's compaction (Cluster.Compact, the only way in)
// cleans every batch but the last and lets a record of a still-open
// transaction supersede a committed record of the same key; if that
// transaction then aborts, the committed value is gone. Kafka never
// cleans past the last stable offset (LSO). Records aborted before a
// compaction are handled correctly: kfake skips them when deciding what
// supersedes what, and drops them.
//
// kfake cannot be told to stop at the LSO, compacts all topics at once,
// and its exported API offers no way to rewrite a log ourselves
// (DeleteRecords only cuts a prefix), so the cleaner compacts only at an
// instant when no compacted partition has an open transaction: every
// one's LastStableOffset (PartitionInfo) equals its high watermark. Then
// the whole cleanable range is below the LSO, which is what Kafka
// guarantees. To make the check and the compaction one step, a gate
// (stable.go) holds back transactional Produce requests and config
// changes (which could make a partition with an open transaction
// compacted) with kfake's SleepControl while the cleaner re-checks and
// runs Compact; kfake serves requests one at a time, so nothing can open
// a transaction in between. Plain produce, fetch and transaction ends
// are never held. A tick that finds an open transaction polls for up to
// a second for a quiet instant and otherwise leaves compaction to a
// later tick, so a compacted topic under constant transactional writes
// compacts late (it is not lost, only larger); retention runs every tick.
//
// kfake also has its own compaction timer, run from its request loop
// without this check; it and Compact are the only callers of kfake's
// compaction. It is started with log.cleaner.backoff.ms and kept
// at 100 years; kfake reads the value only when it starts that timer, and
// the broker refuses any client request that would change it (an
// IncrementalAlterConfigs of it, or an AlterConfigs of the broker, which
// replaces every broker config, that does not keep it), so it cannot fire
// within the broker's lifetime. NewCluster options override configs
// persisted in the data directory, so an older data directory cannot
// bring another value back.
//
// # Crashes and open transactions
//
// kfake persists records as they are produced but the state of open
// transactions only when it closes. A broker killed (SIGKILL, power loss)
// with transactions open leaves their records without a marker, and
// kfake's reload (a replay of the segments) counts them as aborted only
// in memory: it writes no abort marker. franz-go's read_committed filter
// ends an aborted range only at its producer's abort marker, so it then
// hides every later batch of that producer id in the same fetch — and a
// restarted engine reopens its transactional id with the same producer
// id, so its committed records (outputs, changelogs) become unreadable.
// A second crash is worse: the replay takes the producer's next commit
// marker for the end of the old transaction, and the aborted records
// become committed. And a partition kfake reloads from its snapshot (a
// transaction kept by a clean stop, then a crash before anything else
// was written to it) does not count the transaction aborted at all.
//
// So Start marks the data directory as in use (crash_recovery.go) and
// Close unmarks it once kfake has persisted its state. Finding the mark
// (and no kfake session state, which proves a clean close) means the last
// broker crashed: Start then reads the segments for transactional batches
// with no marker after them (crash_scan.go), removes those partitions'
// snapshots so that kfake replays them, starts kfake on a private
// loopback port, writes an abort marker for each open transaction in
// each of its partitions through the Kafka API (WriteTxnMarkers), moves
// the log start offsets back to the snapshots' (DeleteRecords), and
// stops it, persisting the result, before the broker proper starts and
// any client can connect. The crashed producers' epochs are bumped by
// kfake, so a producer still running is fenced. A data directory whose
// aborted records were already followed by a commit of the same producer
// after a crash of an older broker cannot be told apart from a commit of
// them and stays as it is.
//
// A clean stop does not make the segments safe: a batch torn off the end
// of a segment (a failing disk, a copy cut short) makes kfake truncate it
// and, as its snapshot no longer matches the segments, replay the
// partition, with the same in-memory aborts. A torn commit marker leaves
// its transaction open in the log, and the next commit of the same
// transactional id would be hidden from read_committed readers. So after
// a clean stop Start scans the partitions kfake will replay (a segment
// whose size or base differs from the snapshot's, or no snapshot) and
// aborts what is open there the same way (a transaction the clean stop
// kept open is aborted too if its partition replays: kfake's replay
// counts it aborted and fences its producer anyway). Partitions whose
// snapshot matches are not read: a stat per segment and the snapshot,
// about 0.1 ms for 256 MiB in 8 segments, where reading them all takes
// about 0.12 s from the page cache and a disk's read time cold
// (BenchmarkOpenTxnsScan). The torn transaction itself ends aborted: its
// commit marker is gone, as in Kafka after a log truncation.
//
// # Deleted data
//
// kfake loads a partition whose directory is gone as empty from offset 0,
// and a missing groups.log as no committed offsets, without a word: a
// query reading that topic starts over and counts every record twice.
// Start compares the data directory with topics.json first
// (missing_data.go): after a clean shutdown every partition has a
// directory and groups.log exists, so a missing one refuses the start,
// naming it; recreating it empty (a directory, an empty file) is the
// operator's way to accept the loss. After an unclean shutdown a
// partition never written has no directory yet, so missing ones are
// only logged. A deleted topics.json beside partition directories (kfake
// would start without any topic) always refuses the start.
//
// # Authentication
//
// Without WithUsers the broker serves anyone who reaches it (the loopback
// default); a listener beyond loopback then logs an error naming the
// address bound. With WithUsers (the binary passes the API's BASIC users)
// kfake's SASL and ACLs are on (auth.go): a user authenticates with
// SASL/PLAIN, checked against the users file's credential (plain or
// MD5) by a control that hands kfake a per-run stand-in password, or with
// SCRAM (plain credentials only, which kfake salts itself). Users may do
// anything to topics, groups and transactional ids, except what
// WithProtected names (the server's command topic and its service id's
// internal topics, consumer groups and transactional ids), which only
// InternalUser, a superuser with a random password per run that the
// engine of the same process gets through InternalCredentials, may use. Credentials and ACLs
// kfake persists are removed at every start and close: the users file is
// their only source. Whatever the authentication, no client may delete a
// command topic or _schemas, nor cut their records (internal_topics.go):
// no server does, and without them a restart comes up empty.
//
// Auto topic creation is off: sqlstream creates every topic it uses
// through the admin API, as ksqlDB does.
package broker
