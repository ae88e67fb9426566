package qtt

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func fakeConfig(release chan struct{}, closed *atomic.Int32) runConfig {
	nd := newFakeDriver(release)
	return runConfig{timeout: 5 * time.Second, newDriver: func(c DriverConfig) (Driver, error) {
		d, err := nd(c)
		if err == nil {
			d.(*fakeDriver).closed = closed
		}
		return d, err
	}}
}

func TestRunVariantPanicIsAFailureWithStack(t *testing.T) {
	var closed atomic.Int32
	v := &Variant{File: "f", Name: "p", Statements: []string{"SOURCE S s KAFKA JSON A:INTEGER", "PANIC"}}
	r := runVariant(v, fakeConfig(nil, &closed))
	if r.Status != Failed || r.Reason != "panic: told to panic" {
		t.Fatalf("got %v %q", r.Status, r.Reason)
	}
	if !strings.Contains(strings.Join(r.Detail, "\n"), "(*fakeDriver).Execute") {
		t.Fatalf("no stack in detail: %q", r.Detail)
	}
	if closed.Load() != 1 {
		t.Fatalf("driver closed %d times after a panic", closed.Load())
	}
}

func TestRunVariantTimeout(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	cfg := fakeConfig(release, nil)
	cfg.timeout = 20 * time.Millisecond
	r := runVariant(&Variant{File: "f", Name: "h", Statements: []string{"HANG"}}, cfg)
	if r.Status != Failed || r.Reason != "timed out after 20ms" {
		t.Fatalf("got %v %q", r.Status, r.Reason)
	}
}

func TestNegativeTests(t *testing.T) {
	expect := &ExpectedException{Type: "a.b.KsqlException", Message: "boom"}
	bad := RecordSpec{Topic: "s", Value: "bad"}
	tests := []struct {
		name       string
		statements []string
		inputs     []RecordSpec
		want       Status
		reason     string
	}{
		{"last statement fails", []string{"SOURCE S s KAFKA JSON A:INTEGER", "FAIL"}, nil, Passed, "failed as expected"},
		{"an earlier statement fails", []string{"FAIL", "SOURCE S s KAFKA JSON A:INTEGER"}, nil, Failed,
			"statement 1 of 2 failed, but the exception was expected from the last one"},
		{"a record fails", []string{"SOURCE S s KAFKA JSON A:INTEGER"}, []RecordSpec{bad}, Passed, "input failed as expected"},
		{"the runner cannot serialize", []string{"SOURCE S s KAFKA AVRO A:INTEGER"}, []RecordSpec{{Topic: "s", Value: "x"}},
			Failed, "cannot serialize input 0 (topic s): value: \"x\" does not fit STRUCT<`A` INTEGER>"},
		{"nothing fails", []string{"SOURCE S s KAFKA JSON A:INTEGER"}, nil, Failed, "expected an exception (KsqlException: boom)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := &Variant{File: "f", Name: tc.name, Statements: tc.statements, Inputs: tc.inputs, Expect: expect}
			r := runVariant(v, fakeConfig(nil, nil))
			if r.Status != tc.want || !strings.HasPrefix(r.Reason, tc.reason) {
				t.Fatalf("got %v %q, want %v %q…", r.Status, r.Reason, tc.want, tc.reason)
			}
		})
	}
}

// TestDriverConfig: a driver is given the variant's properties (a copy),
// its topics with their formats resolved, and the run's mode, in typed
// fields rather than in the property map.
func TestDriverConfig(t *testing.T) {
	parts := int32(3)
	v := &Variant{Properties: map[string]string{"a": "1"}, Topics: []TopicSpec{
		{Name: "t", Partitions: &parts, Format: &FormatSpec{Format: "AVRO"}, Schema: json.RawMessage(`"int"`)},
		{Name: "u", KeyFormat: &FormatSpec{Format: "JSON"}, ValueFormat: &FormatSpec{Format: "PROTOBUF"}}}}
	got := driverConfig(v, true)
	want := DriverConfig{Props: map[string]string{"a": "1"}, Broker: true, Topics: []Topic{
		{Name: "t", Partitions: 3, KeyFormat: "AVRO", ValueFormat: "AVRO", ValueSchema: json.RawMessage(`"int"`)},
		{Name: "u", KeyFormat: "JSON", ValueFormat: "PROTOBUF"}}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("config = %+v\nwant %+v", got, want)
	}
	if c := driverConfig(&Variant{}, false); c.Broker || len(c.Topics) != 0 || len(c.Props) != 0 {
		t.Fatalf("empty variant: %+v", c)
	}
}

// TestWithStatementPartitions: a declared topic without partitions takes
// the PARTITIONS of the statement that creates it, as ksqlDB's harness
// gathers them; a declared count and other topics stay as they are.
func TestWithStatementPartitions(t *testing.T) {
	four := int32(4)
	ts := []TopicSpec{{Name: "left_topic"}, {Name: "other"}, {Name: "declared", Partitions: &four}}
	got := withStatementPartitions(ts, []string{
		"CREATE TABLE l WITH (kafka_topic='left_topic', PARTITIONS = 128, format='AVRO');",
		"CREATE TABLE d WITH (KAFKA_TOPIC='declared', partitions=2);",
	})
	show := func(p *int32) string {
		if p == nil {
			return "nil"
		}
		return strconv.Itoa(int(*p))
	}
	if s := show(got[0].Partitions) + " " + show(got[1].Partitions) + " " + show(got[2].Partitions); s != "128 nil 4" {
		t.Errorf("partitions %s, want 128 nil 4", s)
	}
	if ts[0].Partitions != nil {
		t.Error("the test's own topics were changed")
	}
}
