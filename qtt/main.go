package qtt

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime"
	"time"
)

// options are the parsed flags of `sqlstream test`.
type options struct {
	sqlFile, inputFile, outputFile string
	filter                         *regexp.Regexp
	onlyEasy, verbose, strict      bool
	broker                         bool
	jsonFile                       string
	parallel                       int
	timeout                        time.Duration
	paths                          []string
}

// Main is `sqlstream test`. With --sql-file (and --input-file,
// --output-file) it runs one ksql-test-runner style test and exits 1 on
// failure; otherwise it runs the test files and folders given, printing a
// per-file table (with the format each file was read as) and exiting 1
// when any variant failed, whatever the format (deviations and skipped
// variants do not fail a run). Files in one of formats (the REST
// runner's, qtt/rest.Format; ksqlDB's SQL tests, qtt/sqltest.Format) run
// in the same run and report. Usage errors exit 2.
func Main(args []string, stdout, stderr io.Writer, newDriver NewDriver, formats []Format) int {
	opts, err := parseFlags(args, stdout)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "sqlstream test: %v\n", err)
		return 2
	}
	cfg := runConfig{newDriver: newDriver, timeout: opts.timeout, onlyEasy: opts.onlyEasy, broker: opts.broker}
	if opts.sqlFile != "" {
		return runTestRunnerMode(opts, cfg, stdout, stderr)
	}
	return runQTTMode(opts, cfg, formats, stdout, stderr)
}

const usage = `Usage: sqlstream test [flags] PATH…
       sqlstream test --sql-file FILE --output-file FILE [--input-file FILE]

Runs ksqlDB's test files (QTT and REST QTT JSON files, run-ksql-test SQL
files, and folders of them) on in-memory engines and prints a table per
file with the format each was read as; or, with --sql-file, one
ksql-test-runner test. Exits 1 when a test fails. Flags may follow the
paths.

Flags:
`

// flagArgs names the argument of each flag in --help (bools have none);
// flagAliases are the one-letter spellings ksql-test-runner also accepts.
var (
	flagArgs    = map[string]string{"sql-file": "FILE", "input-file": "FILE", "output-file": "FILE", "filter": "REGEXP", "json": "FILE", "parallel": "N", "timeout": "DURATION"}
	flagAliases = map[string]string{"s": "sql-file", "i": "input-file", "o": "output-file"}
)

// printUsage lists the flags as the other subcommands do: --name ARG, the
// usage, and the default when it is not the zero value.
func printUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, usage)
	short := map[string]string{}
	for a, long := range flagAliases {
		short[long] = a
	}
	fs.VisitAll(func(f *flag.Flag) {
		if _, alias := flagAliases[f.Name]; alias {
			return
		}
		fmt.Fprintf(w, "  --%s %s", f.Name, flagArgs[f.Name])
		if a := short[f.Name]; a != "" {
			fmt.Fprintf(w, " (or -%s %s)", a, flagArgs[f.Name])
		}
		fmt.Fprintf(w, "\n        %s", f.Usage)
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" {
			fmt.Fprintf(w, " (default %s)", f.DefValue)
		}
		fmt.Fprintln(w)
	})
}

func parseFlags(args []string, stdout io.Writer) (*options, error) {
	o := &options{}
	fs := flag.NewFlagSet("sqlstream test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	for _, name := range []string{"sql-file", "s"} {
		fs.StringVar(&o.sqlFile, name, "", "SQL statements of a ksql-test-runner test")
	}
	for _, name := range []string{"input-file", "i"} {
		fs.StringVar(&o.inputFile, name, "", `JSON input records {"inputs":[…]}`)
	}
	for _, name := range []string{"output-file", "o"} {
		fs.StringVar(&o.outputFile, name, "", `JSON expected records {"outputs":[…]}`)
	}
	filter := fs.String("filter", "", `run only variants whose "file/test name" matches this regexp`)
	fs.BoolVar(&o.onlyEasy, "only-easy", false, "skip variants needing AVRO, PROTOBUF, JSON_SR, a schema registry or UDF jars")
	fs.StringVar(&o.jsonFile, "json", "", "also write machine-readable results to this file")
	fs.BoolVar(&o.verbose, "v", false, "print every variant, with details of failures")
	fs.BoolVar(&o.strict, "strict", false, "exit 1 when any variant fails (always so now; accepted for older scripts)")
	fs.BoolVar(&o.broker, "broker", false, `run end to end against a broker (the driver runs each variant on an engine over a broker)`)
	fs.IntVar(&o.parallel, "parallel", 0, "variants run at once (default GOMAXPROCS)")
	fs.DurationVar(&o.timeout, "timeout", 30*time.Second, "time limit of one variant")
	if err := parseInterspersed(fs, args, &o.paths); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printUsage(stdout, fs)
			return nil, err
		}
		return nil, fmt.Errorf("%w (see --help)", err)
	}
	return o, o.finish(*filter)
}

// parseInterspersed lets flags follow positional arguments.
func parseInterspersed(fs *flag.FlagSet, args []string, positional *[]string) error {
	for {
		if err := fs.Parse(args); err != nil {
			return err
		}
		args = fs.Args()
		if len(args) == 0 {
			return nil
		}
		*positional = append(*positional, args[0])
		args = args[1:]
	}
}

// finish validates the combination of flags.
func (o *options) finish(filter string) error {
	if filter != "" {
		re, err := regexp.Compile(filter)
		if err != nil {
			return fmt.Errorf("--filter: %w", err)
		}
		o.filter = re
	}
	if o.parallel == 0 {
		o.parallel = runtime.GOMAXPROCS(0)
	}
	switch {
	case o.parallel < 0:
		return errors.New("--parallel must not be negative")
	case o.timeout <= 0:
		return errors.New("--timeout must be positive")
	case o.sqlFile != "" && len(o.paths) > 0:
		return errors.New("give either --sql-file or QTT paths, not both")
	case o.sqlFile == "" && (o.inputFile != "" || o.outputFile != ""):
		return errors.New("--input-file and --output-file need --sql-file")
	case o.sqlFile != "" && o.outputFile == "":
		return errors.New("--sql-file needs --output-file")
	case o.sqlFile == "" && len(o.paths) == 0:
		return errors.New("give QTT files or folders, or --sql-file with --output-file")
	}
	return nil
}

// runQTTMode loads, filters, runs and reports the QTT files (and those
// of formats).
func runQTTMode(o *options, cfg runConfig, formats []Format, stdout, stderr io.Writer) int {
	jobs, err := loadJobs(o.paths, formats)
	if err != nil {
		fmt.Fprintf(stderr, "sqlstream test: %v\n", err)
		return 2
	}
	results := markDeviations(runJobs(filterJobs(jobs, o.filter), cfg, o.parallel))
	WriteReport(stdout, results, o.verbose)
	if o.jsonFile != "" {
		if err := writeJSONFile(o.jsonFile, results); err != nil {
			fmt.Fprintf(stderr, "sqlstream test: %v\n", err)
			return 2
		}
	}
	if _, total := countByFile(results); total.Failed > 0 {
		return 1
	}
	return 0
}

func filterVariants(vs []*Variant, re *regexp.Regexp) []*Variant {
	if re == nil {
		return vs
	}
	var out []*Variant
	for _, v := range vs {
		if re.MatchString(v.ID()) {
			out = append(out, v)
		}
	}
	return out
}

func writeJSONFile(path string, results []Result) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := WriteJSON(f, results); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
