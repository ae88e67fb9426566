package protobuf

import (
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/cockroachdb/apd/v3"
	"github.com/cockroachdb/datadriven"

	"github.com/sqlstream/sqlstream/sql/types"
)

// TestDecode runs testdata/decode:
//
//	writer [name=M]      input: the writer's schema text
//	reader               input: the reader's columns (NAME TYPE lines)
//	decode               input: the payload in hex (spaces allowed)
//	encode               input: the payload in hex; decode, then encode
//	                     into the writer's schema and print that in hex
func TestDecode(t *testing.T) {
	var writer, name string
	var cols []types.Column
	var dec Decoder
	datadriven.RunTest(t, "testdata/decode", func(t *testing.T, d *datadriven.TestData) string {
		switch d.Cmd {
		case "writer":
			writer, name = d.Input, ""
			if d.HasArg("name") {
				d.ScanArgs(t, "name", &name)
			}
			return "ok\n"
		case "reader":
			cols = parseColumns(t, d.Input)
			var err error
			if dec, err = NewDecoder(writer, nil, cols, Options{FullName: name}); err != nil {
				return "error: " + err.Error() + "\n"
			}
			return "ok\n"
		case "decode", "encode":
			payload, err := hex.DecodeString(strings.Join(strings.Fields(d.Input), ""))
			if err != nil {
				t.Fatal(err)
			}
			row := make([]any, len(cols))
			if err := dec.Decode(payload, row); err != nil {
				return "error: " + err.Error() + "\n"
			}
			if d.Cmd == "decode" {
				return formatRow(cols, row)
			}
			enc, err := NewEncoder(writer, nil, cols, Options{FullName: name})
			if err != nil {
				return "error: " + err.Error() + "\n"
			}
			out, err := enc.Encode(nil, row)
			if err != nil {
				return "error: " + err.Error() + "\n"
			}
			return hex.EncodeToString(out) + "\n"
		}
		t.Fatalf("unknown command %s", d.Cmd)
		return ""
	})
}

func formatRow(cols []types.Column, row []any) string {
	var b strings.Builder
	for i, c := range cols {
		fmt.Fprintf(&b, "%s: %s\n", c.Name, formatValue(row[i]))
	}
	return b.String()
}

func formatValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case string:
		return fmt.Sprintf("%q", x)
	case []byte:
		return "0x" + hex.EncodeToString(x)
	case *apd.Decimal:
		return x.Text('f')
	case types.Timestamp, types.Date, types.Time:
		return fmt.Sprintf("%T(%d)", x, x)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = formatValue(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = fmt.Sprintf("%q: %s", k, formatValue(x[k]))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case *types.StructValue:
		parts := make([]string, len(x.Values))
		for i, e := range x.Values {
			parts[i] = x.Type.Fields[i].Name + ": " + formatValue(e)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprintf("%T(%v)", v, v)
}
