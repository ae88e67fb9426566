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
package cli
