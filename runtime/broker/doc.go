// Package broker runs an embedded, single-node Kafka broker inside the
// sqlstream process, so `sqlstream` works without an external cluster.
//
// It wraps franz-go's kfake with a data directory, so topics, records and
// committed group offsets survive a restart, and with a background cleaner
// that compacts topics whose cleanup.policy is compact.
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
// Auto topic creation is off: sqlstream creates every topic it uses
// through the admin API, as ksqlDB does.
package broker
