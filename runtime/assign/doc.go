// Package assign decides which server runs which task of a persistent
// query and where its replicas are: the group balancer of every query's
// consumer group (`sqlstream-tasks-v1`), its placement of active,
// standby and warmup tasks, and the assignment's wire format, host maps
// included. It sees a query only as a Config (its sub-topologies, its
// threads and high-availability settings, this server's local state and
// endpoint) and tells what each assignment says to an Observer; it never
// imports the engine or the executor.
//
//	every member                      the leader                        every member
//	JoinGroupMetadata                 Balance                           ParseSyncAssignment
//	  threads, offset sums  ──────►    tasks = sub-topology × partition ──► its partitions, and in
//	  per task, endpoint                assignTasks: sticky, by threads       the user data:
//	  (owned partitions)                assignReplicas: warmups, standbys     standbys, warmups, rejoin,
//	                                    host maps of actives and replicas     probeAt, host maps
//	                                                                          │
//	                                          Observer.Assigned (the runner) ◄┤
//	                                          Observer.Placed (cluster view) ◄┘
//
// Every server runs every persistent query; the query's group splits its
// tasks with this balancer (balancer.go). Each member's subscription
// carries its threads and its offset sums per task (checkpointed
// changelog offsets of the local stores, owned or not, as Kafka Streams'
// taskOffsetSums). The leader lists the changelogs' end offsets, so a
// member's lag on a task is end sum − offset sum (0 where it owns the
// task). assignReplicas (replicas.go, KIP-441's shape): the sticky
// balanced placement is the target; a task whose target is not within
// `acceptable.recovery.lag` (default 10 000) stays active on a caught-up
// member and the target gets a **warmup** of it, at most
// `max.warmup.replicas` (default 2) in the group; then each stateful task
// gets `num.standby.replicas` (default 0) **standbys** on members other
// than its active (a warmup counts as one), preferring the members with
// the most local state of it. Standbys and warmups travel in the
// assignment's user data (assignment.go). A member keeps its replicas
// warm from their changelogs (the standby feeder, see runtime/exec). When
// warmups are pending the leader's assignment sets a **probing
// rebalance** for `probing.rebalance.interval.ms` later (default 10 min;
// we accept ≥ 1 s, Kafka Streams ≥ 1 min), which every member joins at
// that time; a member whose warmups all caught up forces one at once (its
// subscription changed); the caught-up warmup then becomes the target and
// the move is cooperative. An assignment that revoked tasks sets Rejoin,
// so that every member joins the second round at once (exec's
// rebalance_rounds.go).
//
// Each member's subscription also carries its advertised endpoint
// (`ksql.advertised.listener`). The leader puts the whole task → host map
// of the round in every member's assignment user data (hosts.go, Kafka
// Streams' AssignmentInfo), and next to it the endpoints keeping a
// standby or warmup of each task (standbyPartitionsByHost), so every
// server knows, per query, which host runs each task and which hosts keep
// its replicas: pull queries route by them, heartbeats discover peers by
// them and /clusterStatus lists them (package runtime/cluster). A task
// moving cooperatively is in no member's assignment between its
// revocation and the next round. An assignment without a host map (a
// range-balanced or older member's) says nothing: its host maps are nil,
// unknown rather than empty.
package assign
