package qtt

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/sqlstream/sqlstream/sql/script"
)

// RunnerTest is a ksql-test-runner test: a SQL file, an optional input
// file {"inputs":[…]} and an output file {"outputs":[…]}.
type RunnerTest struct {
	Statements []string
	Inputs     []RecordSpec
	Outputs    []RecordSpec
}

// ReadRunnerTest reads the three files of a ksql-test-runner test;
// inputFile may be empty.
func ReadRunnerTest(sqlFile, inputFile, outputFile string) (*RunnerTest, error) {
	sql, err := os.ReadFile(sqlFile)
	if err != nil {
		return nil, err
	}
	t := &RunnerTest{}
	for _, st := range script.All(string(sql)) {
		t.Statements = append(t.Statements, st.Text)
	}
	if len(t.Statements) == 0 {
		return nil, fmt.Errorf("%s: no statements", sqlFile)
	}
	if inputFile != "" {
		var in struct {
			Inputs []RecordSpec `json:"inputs"`
		}
		var texts struct {
			Inputs []valueText `json:"inputs"`
		}
		if err := readJSON(inputFile, &in, &texts); err != nil {
			return nil, err
		}
		keepValueTexts(in.Inputs, texts.Inputs)
		t.Inputs = in.Inputs
	}
	var out struct {
		Outputs []RecordSpec `json:"outputs"`
	}
	if err := readJSON(outputFile, &out); err != nil {
		return nil, err
	}
	t.Outputs = out.Outputs
	return t, nil
}

// readJSON decodes the file at path into v (see DecodeStrict) and then,
// when given, into texts (a view of the same document as JSON text).
func readJSON(path string, v any, texts ...any) error {
	src, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := DecodeStrict(filepath.Base(path), src, v); err != nil {
		return err
	}
	for _, t := range texts {
		if err := json.Unmarshal(StripComments(src), t); err != nil {
			return fmt.Errorf("%s: %w", filepath.Base(path), err)
		}
	}
	return nil
}

// Variant turns the test into a runnable variant named after the SQL file.
func (t *RunnerTest) Variant(name string) *Variant {
	return &Variant{File: name, Name: name, Statements: t.Statements, Inputs: t.Inputs,
		Outputs: t.Outputs, Properties: map[string]string{}}
}

// runTestRunnerMode runs one ksql-test-runner test: "Test passed!" and
// exit 0, or the reason and a diff of expected (-) and actual (+) records
// and exit 1.
func runTestRunnerMode(o *options, cfg runConfig, stdout, stderr io.Writer) int {
	t, err := ReadRunnerTest(o.sqlFile, o.inputFile, o.outputFile)
	if err != nil {
		fmt.Fprintf(stderr, "sqlstream test: %v\n", err)
		return 2
	}
	cfg.onlyEasy = false
	r := runVariant(t.Variant(filepath.Base(o.sqlFile)), cfg)
	writeRunnerResult(stdout, r, o.verbose)
	if r.Status != Passed {
		return 1
	}
	return 0
}

// writeRunnerResult prints the outcome of a ksql-test-runner test.
func writeRunnerResult(w io.Writer, r Result, verbose bool) {
	if r.Status == Passed {
		fmt.Fprintln(w, "Test passed!")
		return
	}
	fmt.Fprintf(w, "Test failed: %s\n", r.Reason)
	for _, line := range r.Detail {
		if line != r.Reason && (verbose || len(r.Diff) == 0) {
			fmt.Fprintf(w, "  %s\n", line)
		}
	}
	if len(r.Diff) > 0 {
		fmt.Fprintln(w, "--- expected")
		fmt.Fprintln(w, "+++ actual")
		for _, line := range r.Diff {
			fmt.Fprintln(w, line)
		}
	}
}
