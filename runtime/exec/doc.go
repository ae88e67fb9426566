// Package exec runs topologies: it is the executor of sqlstream's engine
// (package runtime), which hands it a query as a small value and hears
// back through an observer. exec never imports the engine.
//
//	engine (runtime) ── exec.Query{id, app id, topology, Config, DB,
//	   │                 logger, counters, Balancer} ──► Cluster.Start
//	   │ ◄── Observer: Running, Failed, Recovered, Stopped ──┘
//	   │
//	   ├─ Kafka (franz-go, the server)        Mem (in memory, `sqlstream test`)
//	   │    kafkaRunner: one consumer group     producing runs every query
//	   │      per query, a task per partition   downstream before it returns,
//	   │      (tasks.go), restored before it     in the manner of Kafka
//	   │      runs (restore*.go), flushed then   Streams' TopologyTestDriver
//	   │      committed every interval
//	   │      (at_least_once) or inside Kafka
//	   │      transactions (kafka_runner_eos.go)
//	   │    kafkaPush: a group-less consumer for a push query (kafka_push.go)
//	   │    standbyFeeder: standby and warmup replicas (standby*.go)
//	   │    Follow: a global table's topic into its store (global_follow.go)
//	   └─ every task's environment is built in one place (task_env.go)
//
// The runners (at_least_once and exactly_once_v2 on Kafka, push queries,
// the in-memory cluster) see exec.Query or exec.Push: the query id, the
// application id (consumer group, internal topic and store prefix), the
// topology, the runner's typed Config (parsed once by the engine), the
// state DB, the logger and processing log, and counters the engine reads
// for SHOW QUERIES, EXPLAIN and metrics. A persistent query's runner
// reports through Observer: Running once its tasks run, Failed with a
// classified failure (error_class.go), Recovered for an error it got past,
// Stopped when it holds none of the query's tasks any more. On Kafka the
// group balancer is the engine's (Query.Balancer): it places whole tasks
// and calls back through BalancerHooks.
//
// A Kafka runner pauses (PAUSE, pause.go) by pausing the fetches of
// every input topic on its client, a topic pause franz-go keeps for the
// partitions later rebalances assign (the tasks' restore pauses are
// partition pauses, independent of it); its loop goes on polling, so the
// member stays in its group, but processes and punctuates nothing, commits
// what it processed before (or ends the open transaction) and begins no
// transaction until RESUME. The in-memory cluster holds a paused query's
// records and processes them, in order, on RESUME.
//
// Task lifecycle (an explicit state machine, task_state.go):
//
//	created ──► restoring ──► running ◄──► suspended
//	                 └────────► error ◄────────┘   (closed from any state)
//
// Errors (error_class.go) are sorted into classes with one path each, the
// same for every runner (both Kafka runners, push queries, the in-memory
// cluster): retriable and task-migrated errors are recovered from by
// rejoining, a corrupted store is wiped and restored, and fatal errors
// (the user's, a full disk, or internal: a bug, an operator's panic) put
// the query in ERROR with what to do next; a push query ends with the
// same message. A query never keeps running while skipping records.
// An at_least_once runner ends with a last commit; offsets the group
// coordinator refuses then are reported (Recovered, and Stop's error,
// which names them), and the next start resumes from the last commit.
//
// A query's Kafka clients take the query's client settings after their
// own: the group member Config.Clients, the restore consumer (store
// restores, standby feeds) Config.RestoreClients, the global-table
// follower the options Follow is given; restores and followers always
// read committed.
//
// A Kafka runner reports its tasks (task_report.go): roles, states,
// their stores' changelog lags and each active task's consumer lag, its
// position against its input partitions' ends as the fetches return them
// (input_lag.go). The clients keep transaction markers so that positions
// and committed offsets step over them (the tasks skip them). A query's
// group reads its internal topics (repartition, a foreign-key join's
// subscription and response topics) from their start where it has no
// commit, whatever auto.offset.reset says; only source topics follow it,
// as in Kafka Streams (internal_start.go).
//
// What only one cluster can do (ping a broker, commit a group's offsets,
// list a group's committed offsets) is a method of Cluster that the other
// answers as a cluster without it would, so the engine never asks which
// one it has.
//
// # Restores and replicas
//
// Restores run beside processing (restore_async.go): the rebalance
// callback only creates the task and pauses its input partitions; a
// goroutine releases the task's replica, restores the tail, creates the
// task and resumes its inputs, so a long restore stalls neither the group
// nor the member's other tasks.
//
// A member keeps its standby and warmup replicas (the engine's balancer
// places them) with one group-less consumer of their changelog partitions
// (assigned, read_committed), applying through state.Restorer and
// committing with a checkpoint every second (standby.go); a replica of a
// task active here is never kept. A record a replica cannot apply, or a
// commit that fails, is retried from there with a backoff doubling from
// 100 ms to 30 s; a replica lost with a reopen of the state DB after a
// full disk starts again from its checkpoint (standby_retry.go,
// runtime's TestStandbyRenewedAfterReopen); every feed error is counted and DESCRIBE EXTENDED's
// errorStats shows `standby-feed-errors: N (last: …)` (Query.ReplicaFault
// injects errors in tests).
package exec
