package qtt

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/types"
)

func col(name string, t *types.Type, ns types.Namespace) types.Column {
	return types.Column{Name: name, Type: t, NS: ns}
}

// testSources is a small catalog covering every format and window type.
func testSources() []SourceInfo {
	kafkaStr := format.Spec{Name: format.Kafka}
	return []SourceInfo{
		{Name: "J", Kind: "STREAM", Topic: "json_topic", KeyFormat: kafkaStr, ValueFormat: format.Spec{Name: format.JSON},
			Schema: &types.Schema{Columns: []types.Column{col("K", types.StringType, types.KeyNS),
				col("ID", types.BigintType, types.ValueNS), col("H", types.BytesType, types.HeaderNS)}}},
		{Name: "D", Kind: "STREAM", Topic: "delim_topic", KeyFormat: format.Spec{Name: format.Delimited},
			ValueFormat: format.Spec{Name: format.Delimited},
			Schema: &types.Schema{Columns: []types.Column{col("K", types.IntegerType, types.KeyNS),
				col("A", types.IntegerType, types.ValueNS), col("B", types.StringType, types.ValueNS)}}},
		{Name: "KI", Kind: "STREAM", Topic: "kafka_topic", KeyFormat: format.Spec{Name: format.Kafka},
			ValueFormat: format.Spec{Name: format.Kafka},
			Schema: &types.Schema{Columns: []types.Column{col("K", types.IntegerType, types.KeyNS),
				col("V", types.DoubleType, types.ValueNS)}}},
		{Name: "TW", Kind: "TABLE", Topic: "TW", IsSink: true, KeyFormat: kafkaStr, ValueFormat: format.Spec{Name: format.JSON},
			Windowed: true, WindowType: "TUMBLING", WindowSize: 1000,
			Schema: &types.Schema{Columns: []types.Column{col("K", types.StringType, types.KeyNS),
				col("C", types.BigintType, types.ValueNS)}}},
		{Name: "SW", Kind: "TABLE", Topic: "SW", IsSink: true, KeyFormat: format.Spec{Name: format.JSON},
			ValueFormat: format.Spec{Name: format.JSON}, Windowed: true, WindowType: "SESSION",
			Schema: &types.Schema{Columns: []types.Column{col("K", types.IntegerType, types.KeyNS),
				col("C", types.BigintType, types.ValueNS)}}},
	}
}

func TestRecordConversion(t *testing.T) {
	ts := int64(42)
	tests := []struct {
		name      string
		spec      string // a test record as JSON
		key, val  string // expected bytes; "hex:…" for binary, "<nil>" for nil
		roundTrip bool   // decoding gives back the spec's key and value
	}{
		{"json value as given", `{"topic":"json_topic","key":"a","value":{"id":1, "extra":[1.50], "b":"<&>"}}`,
			"a", `{"id":1,"extra":[1.50],"b":"<&>"}`, true},
		{"json value not matching schema", `{"topic":"json_topic","key":"a","value":"oops"}`, "a", `"oops"`, true},
		{"tombstone and null key", `{"topic":"json_topic","value":null}`, "<nil>", "<nil>", true},
		{"delimited text as given", `{"topic":"delim_topic","key":"1","value":"1,x"}`, "1", "1,x", true},
		{"delimited number key", `{"topic":"delim_topic","key":7,"value":"1,x"}`, "7", "1,x", false},
		{"kafka int and double", `{"topic":"kafka_topic","key":1,"value":1.5}`,
			"hex:00000001", "hex:3ff8000000000000", true},
		{"kafka string key", `{"topic":"json_topic","key":"héllo","value":{}}`, "héllo", "{}", true},
		{"time window", `{"topic":"TW","key":"a","value":{"C":1},"window":{"start":1000,"end":2000,"type":"time"}}`,
			"hex:6100000000000003e8", `{"C":1}`, true},
		{"session window", `{"topic":"SW","key":1,"value":{"C":1},"window":{"start":5,"end":9,"type":"session"}}`,
			"hex:3100000000000000090000000000000005", `{"C":1}`, true},
		{"raw topic", `{"topic":"elsewhere","key":"k","value":{"a":1}}`, `"k"`, `{"a":1}`, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var spec RecordSpec
			var text valueText
			if err := DecodeStrict("record", []byte(tc.spec), &spec); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(tc.spec), &text); err != nil {
				t.Fatal(err)
			}
			specs := []RecordSpec{spec}
			keepValueTexts(specs, []valueText{text})
			spec = specs[0]
			spec.Timestamp = &ts
			in, err := newSerdes(testSources(), false).forTopic(spec.Topic)
			if err != nil {
				t.Fatal(err)
			}
			rec, err := in.toRecord(spec)
			if err != nil {
				t.Fatal(err)
			}
			checkBytes(t, "key", rec.Key, tc.key)
			checkBytes(t, "value", rec.Value, tc.val)
			if rec.Partition != -1 || rec.Timestamp != 42 {
				t.Fatalf("partition %d timestamp %d", rec.Partition, rec.Timestamp)
			}
			if !tc.roundTrip {
				return
			}
			out, _ := newSerdes(testSources(), true).forTopic(spec.Topic)
			if why := compareRecord(spec, out.fromRecord(rec), out, true); why != "" {
				t.Fatalf("round trip: %s", why)
			}
		})
	}
}

func checkBytes(t *testing.T, what string, got []byte, want string) {
	t.Helper()
	switch {
	case want == "<nil>":
		if got != nil {
			t.Fatalf("%s = %q, want nil", what, got)
		}
	case len(want) > 4 && want[:4] == "hex:":
		if hex.EncodeToString(got) != want[4:] {
			t.Fatalf("%s = %x, want %s", what, got, want[4:])
		}
	case !bytes.Equal(got, []byte(want)):
		t.Fatalf("%s = %q, want %q", what, got, want)
	}
}

func TestRecordHeaders(t *testing.T) {
	var spec RecordSpec
	if err := DecodeStrict("record", []byte(`{"topic":"json_topic","key":"k","value":{},
		"headers":[{"KEY":"a","VALUE":"IQ=="},{"KEY":"b","VALUE":null}]}`), &spec); err != nil {
		t.Fatal(err)
	}
	sd, _ := newSerdes(testSources(), false).forTopic("json_topic")
	rec, err := sd.toRecord(spec)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Headers) != 2 || string(rec.Headers[0].Value) != "!" || rec.Headers[1].Value != nil {
		t.Fatalf("headers = %+v", rec.Headers)
	}
	a := sd.fromRecord(rec)
	if why := compareRecord(spec, a, sd, true); why != "" {
		t.Fatal(why)
	}
	rec.Headers = rec.Headers[:1]
	if why := compareRecord(spec, sd.fromRecord(rec), sd, true); why == "" {
		t.Fatal("a missing header went unnoticed")
	}
	bad := "not base64!"
	spec.Headers[0].Value = &bad
	if _, err := sd.toRecord(spec); err == nil {
		t.Fatal("a header value that is not base64 was accepted")
	}
}

func TestCompareRecordChecks(t *testing.T) {
	sd, _ := newSerdes(testSources(), true).forTopic("TW")
	rec := Record{Topic: "TW", Key: encodeWindowedKey([]byte("a"), WindowSpec{Start: 1000, Type: "time"}),
		Value: []byte(`{"C":2}`), Timestamp: 1500}
	a := sd.fromRecord(rec)
	tests := []struct{ spec, why string }{
		{`{"topic":"TW","key":"a","value":{"C":2}}`, ""},
		{`{"topic":"TW","key":"a","value":{"C":2},"timestamp":1500,"window":{"start":1000,"end":2000,"type":"time"}}`, ""},
		{`{"topic":"TW","key":"b","value":{"C":2}}`, "key: value: different values"},
		{`{"topic":"TW","key":"a","value":{"C":2},"timestamp":1}`, "timestamp: expected 1, got 1500"},
		{`{"topic":"TW","key":"a","value":{"C":2},"window":{"start":1000,"end":3000,"type":"time"}}`, "window: expected"},
		{`{"topic":"TW","key":"a","value":{"C":2},"window":{"start":1000,"end":2000,"type":"session"}}`, "window: expected"},
		{`{"topic":"TW","key":"a","value":null}`, "null mismatch"},
	}
	for _, tc := range tests {
		var spec RecordSpec
		if err := DecodeStrict("record", []byte(tc.spec), &spec); err != nil {
			t.Fatal(err)
		}
		why := compareRecord(spec, a, sd, true)
		if (tc.why == "") != (why == "") || !bytes.Contains([]byte(why), []byte(tc.why)) {
			t.Errorf("%s: got %q, want %q", tc.spec, why, tc.why)
		}
	}
}
