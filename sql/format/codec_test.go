package format

import (
	"errors"
	"testing"

	"github.com/cockroachdb/apd/v3"
	"github.com/sqlstream/sqlstream/sql/types"
)

func TestEncodeNilContract(t *testing.T) {
	str := []types.Column{{Name: "S", Type: types.StringType}}
	unwrap := false
	for _, tc := range []struct {
		name    string
		spec    Spec
		cols    []types.Column
		key     bool
		vals    []any
		wantNil bool
	}{
		{"keyless JSON key", Spec{Name: JSON}, nil, true, nil, true},
		{"NONE key", Spec{Name: None}, nil, true, nil, true},
		{"unwrapped JSON NULL", Spec{Name: JSON, WrapSingle: &unwrap}, str, false, []any{nil}, true},
		{"JSON key NULL", Spec{Name: JSON}, str, true, []any{nil}, true},
		{"KAFKA NULL", Spec{Name: Kafka}, str, false, []any{nil}, true},
		{"KAFKA empty string", Spec{Name: Kafka}, str, false, []any{""}, false},
		{"DELIMITED NULL", Spec{Name: Delimited}, str, false, []any{nil}, false},
		{"wrapped JSON NULL", Spec{Name: JSON}, str, false, []any{nil}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := mustCodec(t, tc.spec, tc.cols, tc.key)
			out, err := c.Encode(nil, tc.vals)
			if err != nil {
				t.Fatal(err)
			}
			if (out == nil) != tc.wantNil {
				t.Fatalf("Encode = %q (nil: %v), want nil: %v", out, out == nil, tc.wantNil)
			}
		})
	}
}

func mustCodec(t testing.TB, spec Spec, cols []types.Column, key bool) Codec {
	var c Codec
	var err error
	if key {
		c, err = NewKeyCodec(spec, cols)
	} else {
		c, err = NewValueCodec(spec, cols)
	}
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestEncodeTypeMismatch(t *testing.T) {
	cols := []types.Column{{Name: "S", Type: types.StringType}, {Name: "I", Type: types.IntegerType}}
	for _, name := range []string{JSON, Delimited} {
		c := mustCodec(t, Spec{Name: name}, cols, false)
		if _, err := c.Encode(nil, []any{int64(1), int32(2)}); err == nil {
			t.Errorf("%s: encoding an int64 as STRING should fail", name)
		}
	}
	c := mustCodec(t, Spec{Name: Kafka}, cols[1:], false)
	if _, err := c.Encode(nil, []any{true}); err == nil {
		t.Error("KAFKA: encoding a bool as INTEGER should fail")
	}
}

// TestDecodeKeepsNoReference checks that decoded values do not change when
// the record buffer is reused.
func TestDecodeKeepsNoReference(t *testing.T) {
	cols := []types.Column{{Name: "S", Type: types.StringType}, {Name: "B", Type: types.BytesType}}
	for name, record := range map[string]string{JSON: `{"S":"abc","B":"AQI="}`, Delimited: `abc,AQI=`} {
		c := mustCodec(t, Spec{Name: name}, cols, false)
		data := []byte(record)
		dst := make([]any, 2)
		if err := c.Decode(data, dst); err != nil {
			t.Fatal(err)
		}
		before := describeRow(cols, dst)
		for i := range data {
			data[i] = 'x'
		}
		if after := describeRow(cols, dst); after != before {
			t.Errorf("%s: values changed with the buffer: %s -> %s", name, before, after)
		}
	}
	c := mustCodec(t, Spec{Name: Kafka}, cols[1:], false)
	data, dst := []byte{1, 2}, make([]any, 1)
	if err := c.Decode(data, dst); err != nil {
		t.Fatal(err)
	}
	data[0] = 9
	if dst[0].([]byte)[0] != 1 {
		t.Error("KAFKA: BYTES alias the record")
	}
}

func TestDecodeNullRecord(t *testing.T) {
	c := mustCodec(t, Spec{Name: JSON}, []types.Column{{Name: "A", Type: types.IntegerType}}, false)
	for _, rec := range []string{"null", " null ", "", "  "} {
		if err := c.Decode([]byte(rec), make([]any, 1)); !errors.Is(err, ErrNullRecord) {
			t.Errorf("Decode(%q) = %v, want ErrNullRecord", rec, err)
		}
	}
	var de *DecodeError
	if err := c.Decode([]byte("nul"), make([]any, 1)); !errors.As(err, &de) {
		t.Errorf("Decode(nul) = %v, want a DecodeError", err)
	}
}

// TestTypedNilIsNull: nil pointers of pointer-represented types are NULL.
func TestTypedNilIsNull(t *testing.T) {
	dec := types.DecimalOf(4, 2)
	st := types.StructOf(types.Field{Name: "A", Type: types.IntegerType})
	var nilDec *apd.Decimal
	var nilStruct *types.StructValue
	if got := string(AppendRESTJSON(nil, nilDec, dec)); got != "null" {
		t.Errorf("decimal: %s", got)
	}
	if got := string(AppendRESTJSON(nil, nilStruct, st)); got != "null" {
		t.Errorf("struct: %s", got)
	}
	if got := ToJSON(nilStruct, st); got != nil {
		t.Errorf("ToJSON: %v", got)
	}
	c := mustCodec(t, Spec{Name: Delimited}, []types.Column{{Name: "D", Type: dec}}, false)
	if out, err := c.Encode(nil, []any{nilDec}); err != nil || string(out) != "" {
		t.Errorf("DELIMITED: %q, %v", out, err)
	}
}
