package nexmark

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"
)

// commandUsage is the text of `sqlstream nexmark --help`.
const commandUsage = `Usage: sqlstream nexmark --events N [flags]

Generates the Nexmark benchmark's events (persons, auctions and bids at
1:3:46, hot auctions, bidders and sellers, log-uniform prices, synthetic
event time) and produces them into nexmark-person, nexmark-auction and
nexmark-bid, creating the topics, after q13's side input in
nexmark-side. Persons and auctions are keyed by id (KAFKA BIGINT), bids
have no key; each record's timestamp is its event time. The same --seed,
--rate and --base-time give the same bytes.

Flags:
`

// commandFlags are the parsed flags of `sqlstream nexmark`.
type commandFlags struct {
	brokers, format, registry, base string
	events, rate                    int64
	seed                            uint64
	partitions                      int
	paced, noSide                   bool
}

func newCommandFlags(fs *flag.FlagSet) *commandFlags {
	f := &commandFlags{}
	fs.StringVar(&f.brokers, "bootstrap-servers", "127.0.0.1:9092", "`hosts` of the Kafka brokers, comma separated")
	fs.Int64Var(&f.events, "events", 0, "number of events to produce, `N` (required)")
	fs.Int64Var(&f.rate, "rate", DefaultRate, "events per second of event time, `R`: event n's date_time is base-time + n/R s")
	fs.BoolVar(&f.paced, "paced", false, "also produce at --rate events per second of wall time")
	fs.StringVar(&f.format, "format", "JSON", "value `format`: JSON, AVRO, JSON_SR or PROTOBUF (the last three need --schema-registry-url)")
	fs.StringVar(&f.registry, "schema-registry-url", "", "schema registry `URL` for AVRO, JSON_SR and PROTOBUF, http(s)://host:port (the server's embedded one, or another)")
	fs.Uint64Var(&f.seed, "seed", 1, "`seed` of every random choice, 1 or more")
	fs.StringVar(&f.base, "base-time", DefaultBaseTime().Format(time.RFC3339), "`time` of event 0, RFC 3339")
	fs.IntVar(&f.partitions, "partitions", 1, "`partitions` of the topics it creates")
	fs.BoolVar(&f.noSide, "no-side-input", false, "leave out q13's side input (10000 rows in nexmark-side, written first)")
	return f
}

// resolve checks the flags and turns them into configurations.
func (f *commandFlags) resolve() (Config, LoadConfig, error) {
	base, err := time.Parse(time.RFC3339, f.base)
	if err != nil {
		return Config{}, LoadConfig{}, fmt.Errorf("--base-time %q: want RFC 3339, e.g. 2026-01-01T00:00:00Z", f.base)
	}
	format, err := ParseFormat(f.format)
	if err != nil {
		return Config{}, LoadConfig{}, fmt.Errorf("--format: %v", err)
	}
	switch {
	case f.events <= 0:
		return Config{}, LoadConfig{}, fmt.Errorf("--events %d: give the number of events to produce, 1 or more", f.events)
	case f.rate <= 0 || f.rate > 1_000_000_000:
		return Config{}, LoadConfig{}, fmt.Errorf("--rate %d: want 1 … 1000000000 events per second", f.rate)
	case f.seed == 0:
		return Config{}, LoadConfig{}, errors.New("--seed 0: seeds start at 1")
	case f.partitions < 1 || f.partitions > 1000:
		return Config{}, LoadConfig{}, fmt.Errorf("--partitions %d: want 1 … 1000", f.partitions)
	case format.NeedsRegistry() && f.registry == "":
		return Config{}, LoadConfig{}, fmt.Errorf("--format %s registers schemas: give --schema-registry-url", format)
	case !format.NeedsRegistry() && f.registry != "":
		return Config{}, LoadConfig{}, fmt.Errorf("--schema-registry-url is only for AVRO, JSON_SR and PROTOBUF, not --format %s", format)
	}
	cfg := Config{Seed: f.seed, Rate: f.rate, BaseTime: base}
	lc := LoadConfig{Brokers: splitList(f.brokers), Events: f.events, Format: format,
		RegistryURL: f.registry, Partitions: int32(f.partitions), Paced: f.paced, NoSideInput: f.noSide}
	return cfg, lc, nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// Command runs `sqlstream nexmark` with args (after the subcommand) and
// returns the exit code: 0 done, 1 producing failed, 2 bad flags.
func Command(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("sqlstream nexmark", flag.ContinueOnError)
	f := newCommandFlags(fs)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printCommandUsage(stdout, fs)
			return 0
		}
		fmt.Fprintf(stderr, "sqlstream nexmark: %v (see --help)\n", err)
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "sqlstream nexmark: unexpected argument %q (see --help)\n", fs.Arg(0))
		return 2
	}
	cfg, lc, err := f.resolve()
	if err != nil {
		fmt.Fprintf(stderr, "sqlstream nexmark: %v (see --help)\n", err)
		return 2
	}
	return run(ctx, cfg, lc, stdout, stderr)
}

func run(ctx context.Context, cfg Config, lc LoadConfig, stdout, stderr io.Writer) int {
	// The package's errors start with "nexmark: ".
	g, err := NewGenerator(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "sqlstream %v\n", err)
		return 2
	}
	lc.Progress = stderr
	start := time.Now()
	n, err := Load(ctx, g, lc)
	if err != nil {
		fmt.Fprintf(stderr, "sqlstream %v\n", err)
		return 1
	}
	last := g.Time(lc.Events - 1)
	fmt.Fprintf(stdout, "nexmark: produced %d events (%d persons, %d auctions, %d bids) and %d side-input rows as %s in %s; "+
		"event time %s … %s; seed %d\n", lc.Events, n.Persons, n.Auctions, n.Bids, n.Sides, lc.Format,
		time.Since(start).Round(time.Millisecond), g.Time(0).Format(time.RFC3339Nano), last.Format(time.RFC3339Nano), cfg.Seed)
	return 0
}

// printCommandUsage prints the usage text and the flags as the other
// subcommands do: --name VALUE, then the usage and default.
func printCommandUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, commandUsage)
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		if name == "" || name == "value" {
			fmt.Fprintf(w, "  --%s\n", f.Name)
		} else {
			fmt.Fprintf(w, "  --%s %s\n", f.Name, strings.ToUpper(name))
		}
		if f.DefValue != "" && f.DefValue != "0" && f.DefValue != "false" {
			usage += " (default " + f.DefValue + ")"
		}
		fmt.Fprintf(w, "        %s\n", usage)
	})
}
