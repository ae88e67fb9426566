package insert

import (
	"encoding/json"
	"testing"

	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/types"
)

// TestJSONRowAndEncode: an /inserts-stream row matches columns in any
// case, takes its time from ROWTIME, is refused naming a column the
// source has not, and is serialized with the source's formats.
func TestJSONRowAndEncode(t *testing.T) {
	src := &planner.Source{Name: "S", Topic: "s", KeyFormat: format.Spec{Name: "KAFKA"}, ValueFormat: format.Spec{Name: "JSON"},
		Schema: &types.Schema{Columns: []types.Column{
			{Name: "K", Type: types.StringType, NS: types.KeyNS},
			{Name: "V", Type: types.IntegerType, NS: types.ValueNS}}}}
	row, ts, err := JSONRow(src, map[string]any{"k": "a", "v": json.Number("7"), "ROWTIME": json.Number("1500")}, 99)
	if err != nil || ts != 1500 || row[0] != "a" || row[1] != int32(7) {
		t.Fatalf("JSONRow = %v, %d, %v", row, ts, err)
	}
	rec, err := Encode(src, row, ts)
	if err != nil || string(rec.Key) != "a" || string(rec.Value) != `{"V":7}` || rec.Timestamp != 1500 || rec.Topic != "s" || rec.Partition != -1 {
		t.Fatalf("Encode = %+v, %v", rec, err)
	}
	if _, _, err := JSONRow(src, map[string]any{"W": json.Number("1")}, 99); err == nil || err.Error() != "Column name `W` does not exist." {
		t.Fatalf("unknown column: %v", err)
	}
	if _, ts, _ := JSONRow(src, map[string]any{"K": "b"}, 99); ts != 99 {
		t.Fatalf("without ROWTIME the time is %d, want now (99)", ts)
	}
}
