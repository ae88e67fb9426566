package schemaregistry

import "testing"

// FuzzParseSchema: whatever a client posts as a schema of any type, the
// registry answers with a parse error or a parsed schema, never a crash;
// a parsed schema is compatible with itself under every level.
func FuzzParseSchema(f *testing.F) {
	for _, s := range []string{avroV1, avroV2, `"int"`, `["null","string"]`, protoV1, protoOneof, jsonOpen, jsonClosed, jsonKsql("integer"), `{"$ref":"#/definitions/a","definitions":{"a":{"$ref":"#/definitions/a"}}}`} {
		f.Add(s)
	}
	none := func(Reference) (source, bool) { return source{}, false }
	f.Fuzz(func(t *testing.T, text string) {
		for _, typ := range []string{typeAvro, typeProtobuf, typeJSON} {
			p, err := parseSchema(typ, text, nil, none)
			if err != nil {
				continue
			}
			if msgs := checkPair("FULL", p, p, 1); len(msgs) > 0 {
				t.Fatalf("%s schema not compatible with itself: %v\n%s", typ, msgs, text)
			}
		}
	})
}
