package api

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Marshal encodes v as compact JSON the way ksqlDB's Jackson mapper does:
// no HTML escaping ("ARRAY<STRING>" stays readable) and no trailing newline.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// marshalTyped encodes the struct v (a type without its own MarshalJSON)
// and puts the "@type" discriminator in front of its fields, as Jackson's
// @JsonTypeInfo(include=PROPERTY) does.
func marshalTyped(typeName string, v any) ([]byte, error) {
	body, err := Marshal(v)
	if err != nil {
		return nil, err
	}
	if len(body) < 2 || body[0] != '{' {
		return nil, fmt.Errorf("api: %s does not encode as a JSON object", typeName)
	}
	out := make([]byte, 0, len(body)+len(typeName)+12)
	out = append(out, `{"@type":`...)
	out = append(out, quote(typeName)...)
	if len(body) > 2 {
		out = append(out, ',')
	}
	return append(out, body[1:]...), nil
}

func quote(s string) []byte {
	b, _ := Marshal(s) // a string always encodes
	return b
}

// orEmpty returns s, or an empty non-nil slice when s is nil, so that a
// list ksqlDB always sends encodes as [] rather than null.
func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
