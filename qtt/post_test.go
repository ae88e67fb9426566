package qtt

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/sql/types"
)

func TestNormalizeSchema(t *testing.T) {
	tests := []struct{ a, b string }{
		{"K INT KEY, ID BIGINT", "`K` INTEGER KEY, `ID` BIGINT"},
		{"a INT, b VARCHAR", "`A` INTEGER, `B` STRING"},
		{"S_A INTEGER , S_B STRING", "`S_A` INTEGER, `S_B` STRING"},
		{"DEC DECIMAL(6,4)", "`DEC` DECIMAL(6, 4)"},
		{"ROWKEY STRUCT<K INT, K2 INT> KEY", "`ROWKEY` STRUCT<`K` INTEGER, `K2` INTEGER> KEY"},
		{"M MAP<STRING, ARRAY<INT>>", "`M` MAP<STRING, ARRAY<INTEGER>>"},
		{"S STRUCT<FOO VARCHAR, `foo` VARCHAR>", "`S` STRUCT<`FOO` STRING, `foo` STRING>"},
		{"H BYTES HEADER('k')", "`H` BYTES HEADER('k')"},
		{"K INT PRIMARY KEY, V INT", "`K` INTEGER KEY, `V` INTEGER"},
	}
	for _, tc := range tests {
		if a, b := NormalizeSchema(tc.a), NormalizeSchema(tc.b); a != b {
			t.Errorf("%q → %q but %q → %q", tc.a, a, tc.b, b)
		}
	}
	different := [][2]string{
		{"`foo` STRING", "FOO STRING"},
		{"K INT KEY", "K INT"},
		{"D DECIMAL(6,4)", "D DECIMAL(6,2)"},
	}
	for _, d := range different {
		if NormalizeSchema(d[0]) == NormalizeSchema(d[1]) {
			t.Errorf("%q and %q should differ", d[0], d[1])
		}
	}
}

func TestRenderSchema(t *testing.T) {
	s := &types.Schema{Columns: []types.Column{
		{Name: "K", Type: types.StringType, NS: types.KeyNS},
		{Name: "V", Type: types.DecimalOf(4, 2)},
		{Name: "HS", Type: types.BytesType, NS: types.HeaderNS},
		{Name: "H", Type: types.BytesType, NS: types.HeaderNS, HeaderKey: "it's"},
	}}
	s.Columns[2].Type = types.ArrayOf(types.StructOf(types.Field{Name: "KEY", Type: types.StringType},
		types.Field{Name: "VALUE", Type: types.BytesType}))
	want := "`K` STRING KEY, `V` DECIMAL(4, 2), `HS` ARRAY<STRUCT<`KEY` STRING, `VALUE` BYTES>> HEADERS, `H` BYTES HEADER('it''s')"
	if got := RenderSchema(s); got != want {
		t.Fatalf("RenderSchema = %s\nwant %s", got, want)
	}
}

func TestCheckPost(t *testing.T) {
	sources := testSources()
	topics := []TopicInfo{{Name: "json_topic", Partitions: 1}, {Name: "TW", Partitions: 4},
		{Name: "_app-query_1-Aggregate-repartition", Partitions: 4}}
	tests := []struct{ post, want string }{
		{`{"sources": [{"name": "j", "type": "stream", "schema": "K STRING KEY, ID BIGINT, H BYTES HEADER('x')"}]}`,
			"source j: schema: expected K STRING KEY, ID BIGINT, H BYTES HEADER('x'), got K STRING KEY, ID BIGINT, H BYTES HEADERS"},
		{`{"sources": [{"name": "J", "type": "table"}]}`, "source J: expected a TABLE, got a STREAM"},
		{`{"sources": [{"name": "NOPE", "type": "table"}]}`, "source NOPE: does not exist"},
		{`{"sources": [{"name": "TW", "type": "table", "keyFormat": {"format": "KAFKA", "windowType": "TUMBLING", "windowSize": 1000}}]}`, ""},
		{`{"sources": [{"name": "TW", "keyFormat": {"format": "KAFKA", "windowType": "HOPPING"}}]}`,
			`source TW: key format: expected window type "HOPPING", got "TUMBLING"`},
		{`{"sources": [{"name": "TW", "keyFormat": {"format": "KAFKA", "windowType": "TUMBLING", "windowSize": 2000}}]}`,
			"source TW: key format: expected window size 2000, got 1000"},
		{`{"sources": [{"name": "J", "keyFormat": {"format": "KAFKA", "windowType": "SESSION"}}]}`,
			`source J: key format: expected window type "SESSION", got ""`},
		{`{"sources": [{"name": "J", "keyFormat": {"format": "JSON"}, "valueFormat": "DELIMITED"}]}`,
			"source J: key format: expected JSON, got KAFKA; source J: value format: expected DELIMITED, got JSON"},
		{`{"topics": {"blacklist": ".*-repartition"}}`,
			`topic _app-query_1-Aggregate-repartition exists but matches the blacklist ".*-repartition"`},
		{`{"topics": {"blacklist": "repartition"}}`, ""},
		{`{"topics": {"topics": [{"name": "TW", "keyFormat": {"format": "KAFKA"}, "valueFormat": {"format": "JSON"}, "partitions": 4}]}}`, ""},
		{`{"topics": {"topics": [{"name": "TW", "partitions": 1}]}}`, "topic TW: expected 1 partitions, got 4"},
		{`{"topics": {"topics": [{"name": "TW", "valueFormat": {"format": "AVRO"}}]}}`, "topic TW: value format: expected AVRO, got JSON"},
		{`{"topics": {"topics": [{"name": "missing"}]}}`, "topic missing: does not exist"},
	}
	for _, tc := range tests {
		var p Post
		if err := json.Unmarshal([]byte(tc.post), &p); err != nil {
			t.Fatal(err)
		}
		got := strings.Join(checkPost(&p, sources, topics), "; ")
		if got != tc.want {
			t.Errorf("%s\n got: %s\nwant: %s", tc.post, got, tc.want)
		}
	}
	if checkPost(nil, sources, topics) != nil {
		t.Fatal("no post conditions must mean no problems")
	}
}
