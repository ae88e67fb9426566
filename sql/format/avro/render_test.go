package avro

import "testing"

// TestRenderMapInHashMapOrder: PRINT shows an Avro map as ksqlDB's does,
// in the iteration order of the java.util.HashMap Avro reads it into (by
// bucket of Utf8.hashCode; "BB" and "Aa" share one, kept in the order
// read), not in the order written.
func TestRenderMapInHashMapOrder(t *testing.T) {
	zig := func(v int) byte { return byte(v << 1) } // small non-negative ints
	payload := []byte{zig(4)}
	for i, k := range []string{"c", "BB", "a", "Aa"} {
		payload = append(payload, zig(len(k)))
		payload = append(payload, k...)
		payload = append(payload, zig(i+1))
	}
	payload = append(payload, 0)
	got, err := Render(`{"type":"map","values":"int"}`, nil, payload)
	if want := `{"BB": 2, "Aa": 4, "a": 3, "c": 1}`; err != nil || got != want {
		t.Fatalf("got %s (%v), want %s", got, err, want)
	}
	javaHash := int32(31*-61 - 87) // é is C3 A9: the bytes -61, -87
	if got := utf8Hash("é"); got != uint32(javaHash) {
		t.Errorf("Utf8.hashCode of é: %d, want Java's over signed bytes", got)
	}
}
