// Package bench holds sqlstream's throughput benchmarks (`make bench`).
// Each one runs an engine query and a hand-written franz-go loop doing the
// same work over the same input in the same run, on the embedded broker,
// and reports events per CPU-second for both and their ratio:
//
//	generate 1M page views ──► page-views (4 partitions)
//	                              │
//	            ┌─────────────────┴─────────────────┐
//	   hand loop: consume → decode →         sqlstream: CSAS … WHERE
//	   filter → encode → produce                      │
//	            └──────────► events / CPU-second ◄────┘
//
// CPU time is the whole process's (getrusage), so the embedded broker's
// share is in both figures.
package bench
