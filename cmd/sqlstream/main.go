// Command sqlstream runs ksqlDB-dialect SQL over Kafka topics: the HTTP
// API server, the REPL, the embedded broker and the query translation test
// runner, in one binary. Package cli holds the command line; wire.go
// connects it to the engine, server, REPL and test runner.
package main

import (
	"os"

	"github.com/sqlstream/sqlstream/cmd/sqlstream/internal/cli"
)

func main() {
	stdio := cli.Stdio{In: os.Stdin, Out: os.Stdout, Err: os.Stderr}
	os.Exit(cli.Main(os.Args[1:], stdio, wiring{}))
}
