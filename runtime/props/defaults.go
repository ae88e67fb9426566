package props

// The defaults of the table that code elsewhere needs to name, each with
// its reason.

// defaultSessionTimeoutMs is SessionTimeout's default: a dead server's
// tasks move after 10 s (the Java consumer's 45 s made a failover take
// most of a minute); the broker's group.min.session.timeout.ms (6 s by
// default) is the floor.
const defaultSessionTimeoutMs = 10_000

// defaultMaxPartitions is MaxPartitions' default: one push query over a
// million partitions took 5 GB (about 5 KB a partition), so 1000 keeps a
// query's per-partition cost to megabytes, and is still above the
// partition count a single Kafka broker serves well.
const defaultMaxPartitions = 1000

// DefaultMaxStatements is MaxStatements' default: far above a
// hand-written script (RUN SCRIPT sends a whole file in one request) and
// a few hundred megabytes of parse trees at most.
const DefaultMaxStatements = 1000

// defaultShutdownTimeoutMs is sqlstream's default bound on waiting for a
// query to stop (ksqlDB's is 300000; a client waiting for TERMINATE gives
// up long before that).
const defaultShutdownTimeoutMs = 30000

// defaultPullReadyWaitMs is PullReadyWait's default.
const defaultPullReadyWaitMs = 30000
