// Package bench holds sqlstream's throughput benchmarks (`make bench`).
// Each one runs an engine query and a hand-written franz-go loop doing the
// same work over the same input in the same run, on the embedded broker,
// and reports events per CPU-second for both and their ratio:
//
//	generate 1M page views ──► page-views (4 partitions, 100k users)
//	                              │
//	            ┌─────────────────┴─────────────────┐
//	   hand loop: consume → decode →         sqlstream: the same as SQL
//	   work → encode → produce                        │
//	            └──────────► events / CPU-second ◄────┘
//
// The benchmarks and the issue each answers:
//
//	BenchmarkCSASFilter     CSAS … WHERE                          issue 2
//	BenchmarkGroupByCount   CTAS … COUNT(*) GROUP BY USER_ID and   issue 4
//	                        GROUP BY PAGE (a repartition topic),
//	                        peak RSS, restore rate from changelogs
//	BenchmarkTumblingCount  CTAS … WINDOW TUMBLING (SIZE 60        issue 5
//	                        SECONDS) COUNT(*) on event time
//	BenchmarkStreamTableJoin   1M orders ⋈ 100k customers       issue 10
//	                        (CSAS … JOIN), peak RSS
//	BenchmarkStreamStreamJoin  1M clicks ⋈ 1M views WITHIN      issue 10
//	                        1 MINUTE, peak RSS
//	BenchmarkGlobalTableJoin  LEFT JOIN of the page views with     issue 10
//	                        100k users: a GLOBAL table against the
//	                        co-partitioned stream–table join (both
//	                        engine figures, no hand loop)
//	BenchmarkScaleOutGroupBy CTAS … COUNT(*) GROUP BY on 1, 2, 3   issue 12
//	                        `sqlstream server` processes
//	BenchmarkNexmark        Nexmark q0, q1, q5, q7, q3, q8 in this     issue 21
//	                        process (BENCH_NEXMARK_EVENTS, _QUERIES),
//	                        verified, so -cpuprofile profiles them
//	BenchmarkFormats        CSAS and GROUP BY over 300k page views   issue 17
//	                        in JSON, AVRO, PROTOBUF (a registry over
//	                        HTTP), a hand loop for each job; jobs
//	                        carry pprof labels (BENCH_FORMAT_JOBS);
//	                        its broker is a child process, so it
//	                        prints the engine's CPU alone and with it
//
// profile.md holds the profile findings of the performance pass (issue
// 21 part 4) and of the registry formats' GROUP BY (issue 17 part 5):
// what took the time, what changed, before and after.
//
// The hand loops keep their state in Go maps and write no changelog; the
// engine's figures include its Pebble stores and changelog topics. The
// hand loops write their output uncompressed (engineCompression), as the
// engine does by default (compression.type none, Kafka's producer
// default; franz-go's own default is snappy); the generated inputs are
// written with franz-go's default, snappy, and both sides read them.
// CPU time is the whole process's (getrusage), so the embedded broker's
// share is in both figures, except in BenchmarkFormats, whose broker runs
// in a child process (this test binary, TestMain), its CPU read from
// /proc/<pid>/stat and shown apart. Run with -benchtime 1x: one iteration
// processes the 1M events once per side.
//
// The garbage collector's pacing: the engines and hand loops that run in
// this test process run at its pacing, Go's (GOGC=100, no memory limit)
// unless GOGC or GOMEMLIMIT are in the environment; a server's default
// (sqlstream.gc.percent 400 with a memory limit, internal/gcpacing) is
// the binary's, so only BenchmarkScaleOutGroupBy's `sqlstream server`
// processes run at it, and print the pacing their start line names.
// BenchmarkFormats' broker child is this test binary, at Go's pacing.
package bench
