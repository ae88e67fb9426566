package tests

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/sqlstream/sqlstream"

// importRule forbids packages under from (a path relative to the module
// root; "" matches every package) from importing packages under any of
// deny. A deny entry of "" forbids every project package; one ending in
// "$" forbids that package only, not the packages below it.
type importRule struct {
	from string
	deny []string
}

// importRules is the one-way import direction of DESIGN.md:
// sql/... → planner → physical → runtime; state and schemaregistry (the
// embedded schema registry) are leaves; api (the REST
// entities) and broker (the embedded Kafka broker) sit beside them;
// console (the web console's assets) is a leaf; qtt,
// the conformance runner, drives runtime; only server, repl and cmd import
// everything they need. Inside runtime, the executor (runtime/exec) runs
// topologies for the engine and never imports it: it sees physical's
// topologies, never a statement or a plan; runtime/global (global
// tables' stores) sits on the executor and below the engine;
// runtime/assign (task placement) sees no other runtime package but the
// configuration, and runtime/cluster (the peers' view, pull routing)
// sits on assign, exec and peer, below the engine. server reaches the engine only through its own
// Engine interface (never runtime), and repl is an HTTP client (api and
// the statement splitter only).
func importRules() []importRule {
	return []importRule{
		{"sql/format/avro", []string{"sql/expr", "sql/format$", "sql/format/protobuf", "sql/functions", "sql/parser", "sql/script", "state", "topicname"}},
		// The Schema Registry payload codecs sit below sql/format (which
		// imports them): types, errors and positions only.
		{"sql/format/protobuf", []string{"sql/format$", "sql/format/avro", "sql/expr", "sql/functions", "sql/parser", "sql/script"}},
		// Java's number printing, shared by the Avro and protobuf renderers:
		// a leaf.
		{"sql/format/internal/javafloat", []string{""}},
		// Decoded values boxed in per-record arenas, shared by the JSON and
		// Avro decoders: a leaf.
		{"sql/format/internal/boxes", []string{""}},
		{"sql", []string{"planner", "physical", "runtime", "api", "broker", "qtt", "server", "repl", "cmd", "state"}},
		{"planner", []string{"physical", "runtime", "api", "broker", "qtt", "server", "repl", "cmd", "state"}},
		{"physical", []string{"runtime", "api", "broker", "qtt", "server", "repl", "cmd"}},
		{"runtime", []string{"qtt", "server", "repl", "cmd"}},
		// The engine's subpackages never import the engine; props (the
		// configuration) imports no other runtime package.
		{"runtime/props", []string{"runtime"}},
		{"runtime/commandlog", []string{"runtime$"}},
		{"runtime/peer", []string{"runtime"}},
		// Task placement sees a query as its Config and reports to an
		// Observer: no runtime package but the configuration.
		{"runtime/assign", []string{"runtime$", "runtime/exec", "runtime/global", "runtime/commandlog", "runtime/peer", "runtime/cluster", "planner", "sql", "api", "broker", "state"}},
		// The cluster view and pull routing see a query as a
		// cluster.Query: never the engine, a statement or a plan.
		{"runtime/cluster", []string{"runtime$", "runtime/global", "runtime/commandlog", "planner", "sql", "broker", "state"}},
		// PRINT's rendering of records: formats and registry only.
		{"runtime/printer", []string{"runtime", "planner", "sql/ast", "sql/expr", "sql/parser", "api", "broker", "state"}},
		// The engine's use of the schema registry: planner sources and
		// the registry client, never the engine.
		{"runtime/registry", []string{"runtime$", "runtime/exec", "runtime/cluster", "runtime/peer", "runtime/global", "runtime/commandlog", "api", "broker", "state"}},
		// The processing log writes through the executor's Cluster.
		{"runtime/proclog", []string{"runtime$", "runtime/cluster", "runtime/peer", "runtime/global", "runtime/commandlog", "api", "broker", "state"}},
		// The storage recovery loop sees the state DB through its own
		// interface and hands query ids back to the engine.
		{"runtime/recovery", []string{"runtime$", "runtime/cluster", "runtime/peer", "runtime/global", "runtime/commandlog", "planner", "sql", "api", "broker", "state"}},
		// A transient query's rows on their way to the client: api and
		// types only.
		{"runtime/rowqueue", []string{"runtime", "planner", "physical", "broker", "state"}},
		// Inserted rows into records: planner sources and formats.
		{"runtime/insert", []string{"runtime", "api", "broker", "state"}},
		// The Kafka clients' TLS and SASL options: the typed settings only.
		{"runtime/kafkasec", []string{"runtime$", "runtime/exec", "runtime/cluster", "runtime/peer", "runtime/global", "runtime/commandlog", "planner", "physical", "sql", "api", "broker", "state"}},
		// The engine's figures in Prometheus' format, from a snapshot.
		{"runtime/metrics", []string{"runtime", "planner", "sql", "api", "broker", "state"}},
		// Pull-query evaluation reads plans and the state DB; where a
		// partition is read is runtime/cluster's.
		{"runtime/pull", []string{"runtime$", "runtime/cluster", "runtime/peer", "runtime/global", "runtime/commandlog", "api", "broker"}},
		// The checks that refuse a statement before anything changes:
		// plans and topologies, never the engine or its executor.
		{"runtime/check", []string{"runtime$", "runtime/exec", "runtime/cluster", "runtime/peer", "runtime/global", "runtime/commandlog", "runtime/assign", "api", "broker", "state"}},
		// Query ids and application ids: names, statements and topologies
		// only.
		{"runtime/naming", []string{"runtime$", "runtime/exec", "runtime/cluster", "runtime/peer", "runtime/global", "runtime/commandlog", "runtime/assign", "planner", "api", "broker", "state"}},
		// The topics statements need, on the executor's Cluster: never
		// the engine.
		{"runtime/topics", []string{"runtime$", "runtime/cluster", "runtime/peer", "runtime/global", "runtime/commandlog", "runtime/assign", "api", "broker", "state"}},
		// SHOW/DESCRIBE/EXPLAIN entities from the engine's views: never
		// the engine, the state DB or the cluster view.
		{"runtime/describe", []string{"runtime$", "runtime/cluster", "runtime/peer", "runtime/global", "runtime/commandlog", "runtime/assign", "broker", "state"}},
		// The connector statements: the Connect client, api entities and
		// statements, never the engine or its executor.
		{"runtime/connectors", []string{"runtime$", "runtime/exec", "runtime/cluster", "runtime/peer", "runtime/global", "runtime/commandlog", "planner", "physical", "broker", "state"}},
		// ASSERT TOPIC/SCHEMA: the executor's topic listing and the
		// registry, never the engine.
		{"runtime/assert", []string{"runtime$", "runtime/cluster", "runtime/peer", "runtime/global", "runtime/commandlog", "planner", "physical", "broker", "state"}},
		// The Kafka Connect REST client: a leaf the engine calls, but for
		// the internal leaves that read its credentials and PEM files
		// (its fake Connect, connecttest, imports nothing: the client
		// imports it in tests only).
		{"runtime/connect", []string{"runtime", "planner", "physical", "sql", "api", "broker", "state", "qtt", "server", "repl", "cmd", "internal/qttmode", "internal/testutil"}},
		{"runtime/connect/connecttest", []string{""}},
		// The executor runs topologies for the engine: it sees physical's
		// topologies, never a statement, a plan or global tables' stores.
		{"runtime/exec", []string{"runtime$", "runtime/global", "runtime/commandlog", "runtime/peer", "planner", "sql/ast", "sql/parser", "api", "broker"}},
		// Global tables' stores, for the engine: they see the executor's
		// Cluster (to follow a topic), never the engine.
		{"runtime/global", []string{"runtime$", "runtime/commandlog", "runtime/peer", "planner", "sql", "api", "broker"}},
		// A failed statement's answer in ksqlDB's words: errors and text,
		// never the engine, the executor or a plan.
		{"runtime/stmterr", []string{"runtime$", "runtime/exec", "runtime/cluster", "runtime/peer", "runtime/global", "runtime/commandlog", "runtime/assign", "planner", "physical", "broker", "state"}},
		// A query's figures for GET /tasks and /metrics: plain values (a
		// topology, the store database, global stores' figures), never
		// the engine, a statement or a plan.
		{"runtime/figures", []string{"runtime$", "runtime/exec", "runtime/cluster", "runtime/peer", "runtime/commandlog", "runtime/assign", "planner", "sql", "api", "broker"}},
		{"api", []string{"planner", "physical", "runtime", "state", "broker", "qtt", "server", "repl", "cmd"}},
		{"broker", []string{"sql", "planner", "physical", "runtime", "api", "qtt", "server", "repl", "cmd", "state"}},
		{"topicname", []string{""}},
		{"qtt", []string{"server", "repl", "cmd"}},
		{"server", []string{"planner", "physical", "runtime", "state", "broker", "qtt", "repl", "cmd"}},
		{"repl", []string{"sql/ast", "sql/expr", "sql/format", "sql/functions", "sql/parser", "sql/types", "planner", "physical", "runtime", "state", "broker", "qtt", "server", "cmd"}},
		{"state", []string{""}},
		{"schemaregistry", []string{""}},
		// The release version: a leaf.
		{"internal/version", []string{""}},
		{"internal/qttmode", []string{""}},
		{"internal/testutil", []string{""}},
		// PEM files of the TLS settings: a leaf.
		{"internal/pemfile", []string{""}},
		// Java properties files (the --config file, Connect's
		// credentials file): a leaf.
		{"internal/javaprops", []string{""}},
		{"internal/gcpacing", []string{""}},
		// The Nexmark generator, queries and checks are a Kafka client
		// of the engine, never a part of it.
		{"nexmark", []string{""}},
		// The web console's embedded bundle and its handler: a leaf the
		// server mounts.
		{"console", []string{""}},
	}
}

func TestImportDirection(t *testing.T) {
	imports, err := projectImports(repoRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(imports) == 0 {
		t.Fatal("found no Go packages under the repository root")
	}
	for _, v := range violations(imports, importRules()) {
		t.Error(v)
	}
}

// TestImportRulesCatchViolations shows the checker flags what it should,
// and only that.
func TestImportRulesCatchViolations(t *testing.T) {
	imports := map[string][]string{
		"sql/expr":            {"sql/types", "planner"},
		"planner":             {"sql/ast", "physical/ops"},
		"physical":            {"sql/expr", "state"},
		"broker":              {"server"},
		"repl":                {"api", "runtime"},
		"state":               {"sql/types"},
		"server":              {"runtime", "repl"},
		"sqlx":                {"cmd"},
		"sql/format/protobuf": {"sql/types", "sql/format"},
		"runtime/exec":        {"physical", "runtime", "runtime/exec/x"},
		"runtime/global":      {"runtime/exec", "runtime"},
		"planner/x":           {"state"},
		"runtime/props":       {"runtime/exec", "planner"},
		"runtime/commandlog":  {"runtime/props", "runtime"},
		"runtime/assign":      {"runtime/props", "physical", "runtime/exec"},
		"runtime/cluster":     {"runtime/assign", "runtime/exec", "runtime", "planner"},
	}
	got := violations(imports, importRules())
	want := []string{
		"broker imports server (broker may not import server)",
		"planner imports physical/ops (planner may not import physical)",
		"planner/x imports state (planner may not import state)",
		"repl imports runtime (repl may not import runtime)",
		"runtime/assign imports runtime/exec (runtime/assign may not import runtime/exec)",
		"runtime/cluster imports planner (runtime/cluster may not import planner)",
		"runtime/cluster imports runtime (runtime/cluster may not import runtime)",
		"runtime/commandlog imports runtime (runtime/commandlog may not import runtime)",
		"runtime/exec imports runtime (runtime/exec may not import runtime)",
		"runtime/global imports runtime (runtime/global may not import runtime)",
		"runtime/props imports runtime/exec (runtime/props may not import runtime)",
		"server imports repl (server may not import repl)",
		"server imports runtime (server may not import runtime)",
		"sql/expr imports planner (sql may not import planner)",
		"sql/format/protobuf imports sql/format (sql/format/protobuf may not import sql/format)",
		"state imports sql/types (state may not import any project package)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("repository root %s has no go.mod: %v", root, err)
	}
	return root
}

// projectImports maps each package directory (relative to root) to the
// project packages its non-test files import, also relative to root.
func projectImports(root string) (map[string][]string, error) {
	imports := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return skipDir(root, path, d)
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(mustRel(root, filepath.Dir(path)))
		for _, spec := range f.Imports {
			p, _ := strconv.Unquote(spec.Path.Value)
			if p == module || strings.HasPrefix(p, module+"/") {
				imports[pkg] = append(imports[pkg], strings.TrimPrefix(strings.TrimPrefix(p, module), "/"))
			}
		}
		if _, ok := imports[pkg]; !ok {
			imports[pkg] = nil
		}
		return nil
	})
	return imports, err
}

func skipDir(root, path string, d fs.DirEntry) error {
	name := d.Name()
	if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor" || name == "bin") {
		return filepath.SkipDir
	}
	return nil
}

func mustRel(root, path string) string {
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return path
	}
	return rel
}

// violations lists every import that breaks a rule, sorted.
func violations(imports map[string][]string, rules []importRule) []string {
	var out []string
	for pkg, imps := range imports {
		for _, r := range rules {
			if !under(pkg, r.from) {
				continue
			}
			for _, imp := range imps {
				if d, bad := denied(imp, r.deny); bad {
					out = append(out, describe(pkg, imp, r.from, d))
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

func denied(imp string, deny []string) (string, bool) {
	for _, d := range deny {
		if exact, ok := strings.CutSuffix(d, "$"); ok && imp == exact {
			return exact, true
		}
		if under(imp, d) {
			return d, true
		}
	}
	return "", false
}

func describe(pkg, imp, from, deny string) string {
	if deny == "" {
		return pkg + " imports " + imp + " (" + from + " may not import any project package)"
	}
	return pkg + " imports " + imp + " (" + from + " may not import " + deny + ")"
}

// under reports whether pkg is prefix or a package below it.
func under(pkg, prefix string) bool {
	return prefix == "" || pkg == prefix || strings.HasPrefix(pkg, prefix+"/")
}

// TestNoLiteralPanics bans panic("…") outside tests: a failure the code
// can name is an error its caller handles, not a crash. Panics that re-raise
// a value (panic(err), net/http's abort) and invariant checks built from
// fmt.Sprintf are allowed.
func TestNoLiteralPanics(t *testing.T) {
	found, err := literalPanics(repoRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Error(f)
	}
}

func TestLiteralPanicsFound(t *testing.T) {
	dir := t.TempDir()
	src := "package p\nfunc f() { panic(\"boom\") }\nfunc g(e error) { panic(e) }\n"
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "p_test.go"), []byte("package p\nfunc h() { panic(\"ok in tests\") }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	found, err := literalPanics(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 1 || !strings.HasPrefix(found[0], "p.go:2:") {
		t.Fatalf("found %q, want one panic in p.go line 2", found)
	}
}

// literalPanics lists file:line of every panic whose argument is a string
// literal in the non-test Go files under root.
func literalPanics(root string) ([]string, error) {
	var out []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return skipDir(root, path, d)
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if isLiteralPanic(n) {
				p := fset.Position(n.Pos())
				out = append(out, fmt.Sprintf("%s:%d: panic with a literal message; return an error instead", filepath.ToSlash(mustRel(root, p.Filename)), p.Line))
			}
			return true
		})
		return nil
	})
	return out, err
}

func isLiteralPanic(n ast.Node) bool {
	call, ok := n.(*ast.CallExpr)
	if !ok || len(call.Args) != 1 {
		return false
	}
	if id, ok := call.Fun.(*ast.Ident); !ok || id.Name != "panic" {
		return false
	}
	lit, ok := call.Args[0].(*ast.BasicLit)
	return ok && lit.Kind == token.STRING
}

// TestEngineOptionsSealed: runtime.Option is an interface with only
// unexported methods (no other package can make one), and the exported
// options are the public ones: test hooks (global load hooks, replica
// faults, the QTT mode's naming and topic creation) are not exported, so
// a program using the engine cannot reach them.
func TestEngineOptionsSealed(t *testing.T) {
	public := map[string]bool{"WithBootstrap": true, "WithServiceID": true, "WithDataDir": true, "WithProperties": true,
		"WithLogger": true, "WithKafkaSASL": true, "WithSchemaRegistry": true, "WithAdvertisedListener": true,
		"WithQTT": true} // WithQTT takes an internal/qttmode.Mode: only this module can call it
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, filepath.Join(repoRoot(t), "runtime"), func(fi fs.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	sealed := false
	for _, f := range pkgs["runtime"].Files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				for _, s := range d.Specs {
					if ts, ok := s.(*ast.TypeSpec); ok && ts.Name.Name == "Option" {
						sealed = unexportedInterface(ts.Type)
					}
				}
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.IsExported() && returnsOption(d) && !public[d.Name.Name] {
					t.Errorf("runtime.%s makes an Option but is not one of the public options", d.Name.Name)
				}
			}
		}
	}
	if !sealed {
		t.Error("runtime.Option is not an interface of unexported methods only: any package can make an Option")
	}
}

func unexportedInterface(e ast.Expr) bool {
	it, ok := e.(*ast.InterfaceType)
	if !ok || len(it.Methods.List) == 0 {
		return false
	}
	for _, m := range it.Methods.List {
		for _, n := range m.Names {
			if n.IsExported() {
				return false
			}
		}
	}
	return true
}

func returnsOption(d *ast.FuncDecl) bool {
	r := d.Type.Results
	if r == nil || len(r.List) != 1 {
		return false
	}
	id, ok := r.List[0].Type.(*ast.Ident)
	return ok && id.Name == "Option"
}
