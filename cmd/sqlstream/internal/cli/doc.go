// Package cli is the sqlstream command line: subcommands, flags, the
// --config properties file, and the process lifecycle around the embedded
// broker and the engine stack. The engine, HTTP server and REPL come in
// through Services, implemented by the binary's wire.go, so this package
// is tested with fakes.
//
//	args ──► Main ──► subcommand ──► flags + --config ──► Settings (validated;
//	                                                      a bad one exits 2)
//	                                                         │
//	          ┌──────────────────────────────────────────────┘
//	          ▼
//	  embedded broker ──► Services.StartStack ──► serve until SIGTERM/SIGINT,
//	  (unless external     (engine + HTTP)         or until the REPL ends in
//	   Kafka is given)                             combined mode
//	          ▲                                      │
//	          └──── shutdown: HTTP, engine, broker ◄──┘
//
// Before the broker starts, the server sets the Go garbage collector's
// pacing (internal/gcpacing) from --gc-percent / sqlstream.gc.percent
// and --memory-limit / sqlstream.memory.limit, resolved with the other
// settings: an explicit value wins over GOGC and GOMEMLIMIT in the
// environment (a user who set them meant them), which win over the
// defaults, 400 and 75% of the cgroup's or the machine's memory (400
// needs the limit beside it: without one the default percent is Go's
// 100, and off without one is refused). One start line ("garbage
// collector pacing") gives each value and where it came from, and SHOW
// PROPERTIES the values in force. `sqlstream test` runs its engines at
// the same defaults; `sqlstream broker` keeps Go's pacing.
package cli
