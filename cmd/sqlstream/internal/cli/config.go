package cli

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"

	"github.com/sqlstream/sqlstream/internal/gcpacing"
	"github.com/sqlstream/sqlstream/internal/javaprops"
	"github.com/sqlstream/sqlstream/runtime/props"
)

// configError is a bad flag, config file or value: the process exits 2
// without starting anything.
type configError struct{ err error }

func (e configError) Error() string { return e.err.Error() }
func (e configError) Unwrap() error { return e.err }

func configErrorf(format string, args ...any) error {
	return configError{fmt.Errorf(format, args...)}
}

// serverFlags binds a command's options (the server's, or the broker's)
// and --config to a flag set.
type serverFlags struct {
	fs     *flag.FlagSet
	opts   []option
	config *string
	// runtime and machine are where the GC's pacing reads GOGC and
	// GOMEMLIMIT as Go's runtime read them, and the machine's memory (the
	// process's and "/"; tests give their own).
	runtime func() gcpacing.Runtime
	machine fs.FS
}

func newServerFlags(fs *flag.FlagSet) *serverFlags { return newOptionFlags(fs, serverOptions()) }

func newOptionFlags(fs *flag.FlagSet, opts []option) *serverFlags {
	sf := &serverFlags{fs: fs, opts: opts, machine: os.DirFS("/"),
		runtime: func() gcpacing.Runtime { return gcpacing.CurrentRuntime(os.LookupEnv) }}
	for _, o := range sf.opts {
		fs.String(o.flag, o.def, o.usage)
	}
	sf.config = fs.String("config", "",
		"Java-properties file with ksqlDB keys (listeners, bootstrap.servers, ksql.service.id, ...); explicit flags override it")
	return sf
}

// sourced is a setting's value and where it came from, for error
// messages; given is false for defaults.
type sourced struct {
	value, origin string
	given         bool
}

// resolve merges defaults, the config file and explicitly set flags, then
// validates everything. It runs after fs.Parse and before anything starts.
func (sf *serverFlags) resolve() (Settings, error) {
	vals := map[string]sourced{}
	for _, o := range sf.opts {
		vals[o.key] = sourced{value: o.def, origin: "default " + o.key}
	}
	if err := sf.loadFile(vals); err != nil {
		return Settings{}, err
	}
	sf.applyFlags(vals)
	if err := sf.validate(vals); err != nil {
		return Settings{}, err
	}
	s := sf.settings(vals)
	if sf.isOption(props.GCPercent) {
		p, err := sf.pacing(vals)
		if err != nil {
			return Settings{}, err
		}
		s.Pacing = p
		// SHOW PROPERTIES shows the pacing in force, wherever it came from.
		s.Properties[props.GCPercent], s.Properties[props.MemoryLimit] = p.PercentText(), p.LimitText()
	}
	return s, nil
}

// pacing resolves the GC's pacing: the settings when given, else GOGC
// and GOMEMLIMIT, else the defaults (gcpacing.Resolve).
func (sf *serverFlags) pacing(vals map[string]sourced) (gcpacing.Pacing, error) {
	given := func(key string) gcpacing.Given {
		v := vals[key]
		return gcpacing.Given{Value: v.value, From: v.origin, Set: v.given}
	}
	p, err := gcpacing.Resolve(given(props.GCPercent), given(props.MemoryLimit), sf.runtime(),
		func() (gcpacing.Memory, error) { return gcpacing.MachineMemory(sf.machine) })
	if err != nil {
		return gcpacing.Pacing{}, configError{err}
	}
	return p, nil
}

func (sf *serverFlags) loadFile(vals map[string]sourced) error {
	path := *sf.config
	if path == "" {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return configErrorf("config file: %v", err)
	}
	defer f.Close()
	props, err := javaprops.Parse(f)
	var perr *javaprops.Error
	if errors.As(err, &perr) {
		return configErrorf("config file %s:%d: %v", path, perr.Line, perr.Err)
	}
	if err != nil {
		return configErrorf("config file %s: %v", path, err)
	}
	for _, p := range props {
		vals[p.Key] = sourced{p.Value, fmt.Sprintf("config file %s:%d: %s", path, p.Line, p.Key), true}
	}
	return nil
}

func (sf *serverFlags) applyFlags(vals map[string]sourced) {
	byFlag := map[string]option{}
	for _, o := range sf.opts {
		byFlag[o.flag] = o
	}
	sf.fs.Visit(func(f *flag.Flag) {
		if o, ok := byFlag[f.Name]; ok {
			vals[o.key] = sourced{f.Value.String(), "--" + f.Name, true}
		}
	})
}

func (sf *serverFlags) validate(vals map[string]sourced) error {
	for _, o := range sf.opts {
		if err := check(vals[o.key], o.check); err != nil {
			return err
		}
	}
	// Every other key is checked against the engine's property table:
	// an unknown or badly typed one is an error naming it.
	for _, key := range sortedKeys(vals) {
		if v := vals[key]; v.given && !sf.isOption(key) {
			if err := check(v, otherKeyCheck(key)); err != nil {
				return err
			}
		}
	}
	bl := vals[props.BrokerListen]
	if sf.isOption("bootstrap.servers") && vals["bootstrap.servers"].value != "" && bl.given {
		return configErrorf("%s: the embedded broker does not run when bootstrap.servers is set", bl.origin)
	}
	if rl := vals["sqlstream.schema.registry.listen"]; rl.given && vals[props.SchemaRegistryURL].value != "" {
		return configErrorf("%s: the embedded schema registry does not run when ksql.schema.registry.url is set", rl.origin)
	}
	return nil
}

// otherKeyCheck checks a config key that is not one of the command's
// options: a server option's own check (a file shared by `sqlstream
// broker` and the servers holds the servers' keys), else the engine's
// property table.
func otherKeyCheck(key string) func(string) error {
	for _, o := range serverOptions() {
		if o.key == key {
			return o.check
		}
	}
	return func(s string) error { return props.Check(key, s) }
}

func (sf *serverFlags) isOption(key string) bool {
	for _, o := range sf.opts {
		if o.key == key {
			return true
		}
	}
	return false
}

func check(v sourced, fn func(string) error) error {
	if err := fn(v.value); err != nil {
		return configErrorf("%s: %v", v.origin, err)
	}
	return nil
}

func (sf *serverFlags) settings(vals map[string]sourced) Settings {
	listen, _ := listenAddr(vals["listeners"].value)
	level, _ := parseLogLevel(vals[props.LogLevel].value)
	s := Settings{
		Listen:       listen,
		Bootstrap:    splitList(vals["bootstrap.servers"].value),
		BrokerListen: vals[props.BrokerListen].value,
		DataDir:      vals[props.DataDir].value,
		ServiceID:    vals[props.ServiceID].value,
		LogLevel:     level,
		LogFormat:    vals[props.LogFormat].value,
		Properties:   map[string]string{},

		SchemaRegistryListen: registryListen(vals),
		SchemaRegistryTopic:  vals["kafkastore.topic"].value,
	}
	// The command line's own sqlstream.* options are Settings fields;
	// every other property goes to the engine.
	for k, v := range vals {
		if !(strings.HasPrefix(k, "sqlstream.") && sf.isOption(k)) && k != "kafkastore.topic" && v.value != "" {
			s.Properties[k] = v.value
		}
	}
	s.Properties["listeners"] = listenScheme(vals["listeners"].value) + "://" + listen
	if !s.Embedded() {
		s.Properties["bootstrap.servers"] = strings.Join(s.Bootstrap, ",")
	}
	return s
}

// registryListen is where the embedded schema registry listens, or ""
// when it does not run: an external registry is configured, or Kafka is
// external and no address was given explicitly.
func registryListen(vals map[string]sourced) string {
	l := vals["sqlstream.schema.registry.listen"]
	if vals[props.SchemaRegistryURL].value != "" {
		return ""
	}
	if vals["bootstrap.servers"].value != "" && !l.given {
		return ""
	}
	return l.value
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
