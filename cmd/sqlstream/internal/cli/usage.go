package cli

import (
	"flag"
	"fmt"
	"io"
)

func printUsage(w io.Writer, svc Services) {
	fmt.Fprint(w, `sqlstream runs ksqlDB-dialect SQL over Kafka topics.

Usage:
  sqlstream [flags]              HTTP API server and REPL in one process
  sqlstream server [flags]       HTTP API server only
  sqlstream repl [flags]         REPL against a running server
  sqlstream broker [flags]       embedded Kafka broker only, for several servers
  sqlstream nexmark [flags]      produce the Nexmark benchmark's events (see sqlstream nexmark --help)
`)
	if _, ok := svc.(TestRunner); ok {
		fmt.Fprint(w, "  sqlstream test [args]          run ksqlDB's test files: QTT, REST QTT, SQL (see sqlstream test --help)\n")
	}
	fmt.Fprint(w, `  sqlstream version              print the version
  sqlstream help                 print this help

Run "sqlstream server --help", "sqlstream repl --help" or
"sqlstream broker --help" for their flags.
`)
}

func printServeUsage(w io.Writer, fs *flag.FlagSet, svc Services, combined bool) {
	if combined {
		printUsage(w, svc)
	} else {
		fmt.Fprint(w, "Usage: sqlstream server [flags]\n\nRuns the HTTP API server (and the embedded broker unless --bootstrap-servers is set).\n")
	}
	fmt.Fprint(w, "\nFlags:\n")
	args := flagArgs(serverOptions())
	args["cpu-profile"] = "FILE"
	printFlags(w, fs, args, flagKeys(serverOptions()))
	fmt.Fprint(w, `
Without --bootstrap-servers an embedded Kafka broker runs on --broker-listen
with its data in <data-dir>/broker. The engine's state is in <data-dir>/state.
With the embedded broker a Confluent-compatible schema registry also runs, on
--schema-registry-listen, its schemas in the --schema-registry-topic topic;
the engine is given its URL as ksql.schema.registry.url. Set
--schema-registry-url to use an external registry instead.
Every key of the --config file is also handed to the engine as a property.
`)
}

func printREPLUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, "Usage: sqlstream repl [flags]\n\nRuns the interactive shell against a running sqlstream server.\n\nFlags:\n")
	printFlags(w, fs, map[string]string{"server": "URL", "history": "FILE", "user": "USER", "password": "PASSWORD", "ca-file": "FILE"}, nil)
}

func printBrokerUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, `Usage: sqlstream broker [flags]

Runs only the embedded Kafka broker, with its data in <data-dir>/broker,
until SIGINT or SIGTERM. Several servers, each with its own --data-dir,
share it with --bootstrap-servers, and it outlives their crashes.

Flags:
`)
	printFlags(w, fs, flagArgs(brokerOptions()), flagKeys(brokerOptions()))
}

func flagArgs(opts []option) map[string]string {
	args := map[string]string{"config": "FILE"}
	for _, o := range opts {
		args[o.flag] = o.arg
	}
	return args
}

func flagKeys(opts []option) map[string]string {
	keys := map[string]string{}
	for _, o := range opts {
		keys[o.flag] = o.key
	}
	return keys
}

// printFlags lists every flag as --name ARG with its usage, its default and
// its config-file key when it has one.
func printFlags(w io.Writer, fs *flag.FlagSet, args, keys map[string]string) {
	fs.VisitAll(func(f *flag.Flag) {
		fmt.Fprintf(w, "  --%s %s\n        %s", f.Name, args[f.Name], f.Usage)
		if f.DefValue != "" {
			fmt.Fprintf(w, " (default %s)", f.DefValue)
		}
		if k := keys[f.Name]; k != "" {
			fmt.Fprintf(w, " [config key %s]", k)
		}
		fmt.Fprintln(w)
	})
}
