package tests

import (
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
// deny. A deny entry of "" forbids every project package.
type importRule struct {
	from string
	deny []string
}

// importRules is the one-way import direction of DESIGN.md:
// sql/... → planner → physical → runtime; state is a leaf; only server,
// repl and cmd import everything.
func importRules() []importRule {
	return []importRule{
		{"sql", []string{"planner", "physical", "runtime", "server", "repl", "cmd"}},
		{"planner", []string{"physical", "runtime", "server", "repl", "cmd"}},
		{"physical", []string{"runtime", "server", "repl", "cmd"}},
		{"runtime", []string{"server", "repl", "cmd"}},
		{"state", []string{""}},
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
		"sql/expr":       {"sql/types", "planner"},
		"planner":        {"sql/ast", "physical/ops"},
		"physical":       {"sql/expr", "state"},
		"runtime/broker": {"server"},
		"state":          {"sql/types"},
		"server":         {"runtime", "repl"},
		"sqlx":           {"cmd"},
	}
	got := violations(imports, importRules())
	want := []string{
		"planner imports physical/ops (planner may not import physical)",
		"runtime/broker imports server (runtime may not import server)",
		"sql/expr imports planner (sql may not import planner)",
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
