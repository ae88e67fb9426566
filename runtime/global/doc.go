// Package global keeps a query's global tables (Kafka Streams'
// GlobalKTable, CREATE GLOBAL TABLE): each table is a store of the
// query's own, filled from every partition of the table's topic before
// any task runs and kept current until the query stops, read by every
// task (physical.GlobalStores) and by pull queries (Snapshot).
//
//	table topic (every partition) ──► exec.Cluster.Follow ──► Store.Load
//	                                   (from the checkpoint;    │
//	                                    later partitions too)   ▼
//	 tasks of the query ◄── Stores.Global(name) ◄── rows + next offset of each
//	                                               partition, one Pebble store
//
// A Store keeps, beside the rows, the next offset of each partition it
// loaded, committed in the same batch as the rows they cover: a restart
// reads only what came after, and a checkpoint out of the topic's range
// wipes the store for a full reload (the follower's decision, exec's
// global_follow.go). It counts its writes and remembers the keys of the
// latest (physical.GlobalWrites), so that each task's join keeps the
// rows it decoded and forgets only those written since its last lookup. Runner stops a query's runner, then its stores;
// Loading (Background) loads the stores outside the engine's lock and
// starts the query's runner once they are loaded.
//
// Figures (figures.go) keep, for the query's life, each store's records
// loaded and its follower's position against each partition's end (told
// after every fetch, exec.FollowProgress), for /metrics and GET /tasks:
// the console's figures of the description's "Sub-topology N for global
// store" section.
//
// The engine (package runtime) starts the stores with an Env (the state
// DB, the cluster that follows, the processing log, what to do when a
// follower fails after the start); global never imports the engine.
package global
