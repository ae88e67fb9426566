// Package tests holds sqlstream's end-to-end tests and project lint: they
// build the real binary, start it on free ports with a temporary data
// directory, and talk to it over HTTP, franz-go and kcat.
//
//	go build ./cmd/sqlstream ──► sqlstream server ──► /healthcheck ready
//	                                   │ HTTP (/ksql, /query-stream)
//	   test ───────────────────────────┤
//	                                   │ Kafka (franz-go, kcat)
//	                              embedded broker ◄── restart on same data dir
//
// The import-direction lint (lint_test.go) parses the tree with go/parser.
//
// The binary is built once per `go test` run (harness_test.go). A test
// that owns all it starts (free ports, its own temporary directories, no
// environment) and waits only on facts calls t.Parallel: `make test` runs
// E2E_PARALLEL (4) of them at a time, since their processes mostly sit
// between commits and polls (the browser tests too: they wait on the
// page's facts, and the rolling restart, whose pauses are only logged).
// The kill -9, failover, broker-restart, terminal and
// Nexmark tests, whose timing matters to what they show or which keep
// both cores busy, run alone, before the parallel ones.
//
// # Testing
//
// Golden `datadriven` tests pin parse output, plans (`planner/testdata`),
// topologies (`physical/testdata`), runs (`runtime/testdata/run`: records in,
// records and changelogs out) and stores. The in-memory `TestEngine` runs the
// same planner, topology and operators as the server, synchronously; the
// `--broker` driver runs the same tests over the Kafka protocol, and both
// modes agree on ksqlDB's QTT files. `make test` runs the completely passing
// QTT files strictly (`qtt/driver/conformance_test.go`).
// Both drivers name queries as ksqlDB's test runner (`runtime.WithQTT` with `qttmode.Mode.Naming`,
// service id `some.ksql.service.id`): query ids count persistent queries
// from 0 and application ids carry `_confluent-ksql-`, so the internal
// topic names QTT asserts match; the server keeps command-sequence ids
// (stable over command-log replay) and unprefixed `<service-id>query_<id>`.
// RQTT variants also get the topics ksqlDB's REST test executor creates up
// front (`qtt/rest/topics.go`): each CREATE with columns names its topic
// (PARTITIONS or 4 partitions), each input and output record's topic gets
// 4, so co-partition checks see ksqlDB's counts (QTT's TopologyTestDriver
// runs one partition whatever the metadata says, so QTT runs keep theirs).
//
// The kill -9 runs (`tests/eos_crash_test.go`; `make test-crash` for the
// long one, `SQLSTREAM_CRASH_EVENTS`/`_KILLS` scale it) SIGKILL engines,
// restart some on a wiped data directory (the command topic key is then
// `sqlstream.command.topic.secret`) and bounce the broker with a clean
// stop (SIGTERM); broker SIGKILLs under exactly_once_v2 are
// `TestEOSBrokerKillNine`'s (`tests/broker_kill_test.go`), now that the
// broker ends a crash's open transactions with abort markers before clients
// connect (`broker/crash_recovery.go`).
package tests
