package physical

import (
	"fmt"
	"testing"

	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/types"
)

// TestInternalFormats: internal topics take their source's formats under
// their own subjects, without the source's schema id; NONE keys become
// KAFKA, multi-column KAFKA keys and formats that cannot hold the
// columns JSON; legacy queries keep JSON (join keys: the kept side's
// format as it was).
func TestInternalFormats(t *testing.T) {
	one := []types.Column{{Name: "K", Type: types.StringType, NS: types.KeyNS}}
	two := append(one, types.Column{Name: "K2", Type: types.IntegerType, NS: types.KeyNS})
	nested := []types.Column{{Name: "S", Type: types.StructOf(types.Field{Name: "A", Type: types.IntegerType})}}
	avro := format.Spec{Name: format.Avro, SchemaID: 7, Subject: "src-key", FullName: "x.K"}
	show := func(s format.Spec) string {
		return fmt.Sprintf("%s id=%d subject=%q name=%q", s.Name, s.SchemaID, s.Subject, s.FullName)
	}
	f, legacy := internalFormats{}, internalFormats{legacy: true}
	for _, tc := range []struct {
		what, got, want string
	}{
		{"avro key", show(f.keySpec(avro, "app-R", one)), `AVRO id=0 subject="app-R-key" name="x.K"`},
		{"avro value", show(f.valueSpec(avro, "app-R", nested)), `AVRO id=0 subject="app-R-value" name="x.K"`},
		{"none key", show(f.keySpec(format.Spec{Name: format.None}, "app-R", one)), `KAFKA id=0 subject="" name=""`},
		{"kafka two keys", show(f.keySpec(format.Spec{Name: format.Kafka}, "app-R", two)), `JSON id=0 subject="" name=""`},
		{"delimited struct", show(f.valueSpec(format.Spec{Name: format.Delimited}, "app-R", nested)), `JSON id=0 subject="" name=""`},
		{"no value columns", show(f.valueSpec(avro, "app-R", nil)), `JSON id=0 subject="" name=""`},
		{"kafka key", show(f.keySpec(format.Spec{Name: format.Kafka}, "app-R", one)), `KAFKA id=0 subject="" name=""`},
		{"legacy key", show(legacy.keySpec(avro, "app-R", one)), `JSON id=0 subject="" name=""`},
		{"legacy value", show(legacy.valueSpec(avro, "app-R", one)), `JSON id=0 subject="" name=""`},
		{"legacy join key", show(legacy.joinKeySpec(avro, "app-R", one)), `AVRO id=7 subject="src-key" name="x.K"`},
		{"join key", show(f.joinKeySpec(avro, "app-R", one)), `AVRO id=0 subject="app-R-key" name="x.K"`},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: %s, want %s", tc.what, tc.got, tc.want)
		}
	}
}
