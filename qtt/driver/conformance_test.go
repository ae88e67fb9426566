package driver

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/qtt"
	"github.com/sqlstream/sqlstream/qtt/rest"
	"github.com/sqlstream/sqlstream/qtt/sqltest"
)

// strictFiles are the ksqlDB QTT files every easy variant of which passes:
// `make test` holds sqlstream to them (a regression fails the build). Add
// a file here once it passes completely.
var strictFiles = strings.Fields(`
array array-remove array-set-functions arraycontains arrayjoin as_value attr average
average-udaf between binary-arithmetic binary-comparison bytes bytes-and-strings
bytes-lpad-rpad case-expression cast chr collect-list collect-set comparison-expression
complex-lambda concat convert-tz correlation-udaf count-distinct create-struct
create-type create_array create_map cube date dateadd datestring datesub decimal
delimited drop_source earliest-offset-udaf elt-field encode explode filter fk-join
fk-n-way-join floating-point format-date format-time formats from-days from-unixtime
geodistance greatest group-by having headers histogram identifiers in initcap
insert-into instr join-with-custom-timestamp joins json json_array_contains json_array_length
json_concat json_items json_records kafka latest-offset-udaf least len like literals
magic-timestamp-conversion map md5 more-complex-struct multi-col-keys multi-joins none
null operators parse-date parse-time partition-by project-filter quoted-identifiers
reduce-array reduce-map regex replace row-offset-and-partition select-struct-all serdes
session-windows simple-struct source-stream source-table split split-to-map
standarddeviation stream-table-join string string-lpad-rpad stringtimestamp struct-udfs
substring sum suppress system-columns table table-table-join timestamp
timestamp-extractor timestamp-to-string timestampadd timestampformat timestampsub
timesub to_json_string topk-distinct topk-group-by tumbling-windows udaf udf unix-date
unix-timestamp url where window-bounds`)

// conformanceDir is ksqlDB's QTT folder beside the project (not part of
// it; see ../shared/conformance/README.md).
func conformanceDir(t *testing.T) string {
	dir, err := filepath.Abs("../../../shared/conformance/ksql-qtt")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("skipping: %s not found (the conformance data lives outside the project)", dir)
	}
	return dir
}

// TestConformanceStrict runs the strict QTT files on the in-memory driver:
// every easy variant must pass.
func TestConformanceStrict(t *testing.T) {
	dir := conformanceDir(t)
	args := []string{"--only-easy", "--strict"}
	for _, f := range strictFiles {
		args = append(args, filepath.Join(dir, f+".json"))
	}
	var out, errs bytes.Buffer
	if code := qtt.Main(args, &out, &errs, New, []qtt.Format{rest.Format{}}); code != 0 {
		t.Fatalf("sqlstream test exited %d:\n%s\n%s", code, out.String(), errs.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	t.Log(lines[len(lines)-1])
}

// strictRegistryFiles are the QTT files that pass completely with their
// schema-registry variants (AVRO, PROTOBUF, PROTOBUF_NOSR, JSON_SR) too:
// run without --only-easy.
var strictRegistryFiles = strings.Fields(`
bytes cast chr collect-list collect-set complex-lambda date dateadd datesub decimal
delimited filter formats headers histogram initcap join-with-custom-timestamp json_sr
min-group-by multi-col-keys multiple-avro-maps serdes simple-struct sink-partitions-replicas
standarddeviation stream-table-join table timestamp timestampadd timestampsub timesub
topk-distinct topk-group-by transform-map url`)

// TestConformanceStrictRegistry runs strictRegistryFiles, every variant.
func TestConformanceStrictRegistry(t *testing.T) {
	dir := conformanceDir(t)
	args := []string{"--strict"}
	for _, f := range strictRegistryFiles {
		args = append(args, filepath.Join(dir, f+".json"))
	}
	var out, errs bytes.Buffer
	if code := qtt.Main(args, &out, &errs, New, []qtt.Format{rest.Format{}}); code != 0 {
		t.Fatalf("sqlstream test exited %d:\n%s\n%s", code, out.String(), errs.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	t.Log(lines[len(lines)-1])
}

// strictSQLFiles are ksqlDB's SQL test files (ksql-sqltests, relative to
// it) every test of which passes or is a recorded deviation: `make test`
// holds sqlstream to them. The query-upgrades files are CREATE OR
// REPLACE of running queries (issue 20) and ALTER … ADD COLUMN
// (alter.sql); test.sql's RUN SCRIPT test is a deviation.
var strictSQLFiles = strings.Fields(`
query-upgrades/headers.sql query-upgrades/session-windows.sql
query-upgrades/chained-upgrades.sql query-upgrades/filters.sql
query-upgrades/prohibited-upgrades.sql query-upgrades/projections.sql
query-upgrades/alter.sql test.sql`)

// TestConformanceStrictSQL runs strictSQLFiles through `sqlstream test`.
func TestConformanceStrictSQL(t *testing.T) {
	dir := filepath.Join(filepath.Dir(conformanceDir(t)), "ksql-sqltests")
	var args []string
	for _, f := range strictSQLFiles {
		args = append(args, filepath.Join(dir, f))
	}
	var out, errs bytes.Buffer
	if code := qtt.Main(args, &out, &errs, New, []qtt.Format{sqltest.Format{}, rest.Format{}}); code != 0 {
		t.Fatalf("sqlstream test exited %d:\n%s\n%s", code, out.String(), errs.String())
	}
	if !strings.Contains(out.String(), " SQL ") {
		t.Fatalf("the files were not read as SQL test files:\n%s", out.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	t.Log(lines[len(lines)-1])
}

// sqlTestNow is every test of test.sql ("basic test with run script" is
// a deviation), in memory and over a broker alike. Over a broker "basic
// join test", whose table and stream records share a timestamp, passes
// because the runner lets the queries catch up after each INSERT
// (qtt.Settler), as ksqlDB's test driver processes each record before
// the next statement; without that, which of the two topics' fetches the
// join task saw first decided whether the stream record found the table
// row.
const sqlTestNow = `^test\.sql/`

// TestConformanceSQLTest runs ksqlDB's test.sql on the in-memory engine
// and end to end over a broker (its CREATE OR REPLACE upgrade too), where the
// ASSERTs read the topics back once the queries have caught up: a
// query's group that has not formed yet is waited for, not read as
// empty outputs. BYTES inserted as base64 and DROP of a source others
// read (ksqlDB's message) are among its tests.
func TestConformanceSQLTest(t *testing.T) {
	file := filepath.Join(filepath.Dir(conformanceDir(t)), "ksql-sqltests", "test.sql")
	for _, mode := range [][]string{{"--filter", sqlTestNow}, {"--broker", "--filter", sqlTestNow}} {
		args := append(append([]string{"-v"}, mode...), file)
		var out, errs bytes.Buffer
		if code := qtt.Main(args, &out, &errs, New, []qtt.Format{sqltest.Format{}, rest.Format{}}); code != 0 {
			t.Fatalf("sqlstream test %v exited %d:\n%s\n%s", mode, code, out.String(), errs.String())
		}
		for _, want := range []string{"insert bytes", "drop statement throws error", "assert tombstones", "basic join test", "basic create or replace test"} {
			if !strings.Contains(out.String(), "PASS test.sql/"+want) {
				t.Fatalf("%v: %q did not pass:\n%s", mode, want, out.String())
			}
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		t.Log(mode, lines[len(lines)-1])
	}
}
