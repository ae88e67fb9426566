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
// Auto topic creation is off: sqlstream creates every topic it uses
// through the admin API, as ksqlDB does.
package broker
