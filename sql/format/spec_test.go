package format

import (
	"errors"
	"testing"

	"github.com/sqlstream/sqlstream/sql/sqlerr"
)

func TestParseFormat(t *testing.T) {
	for in, want := range map[string]string{"json": JSON, "Delimited": Delimited, " KAFKA ": Kafka, "none": None} {
		got, err := ParseFormat(in)
		if err != nil || got != want {
			t.Errorf("ParseFormat(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	_, err := ParseFormat("FOO")
	var se *sqlerr.Error
	if !errors.As(err, &se) || se.Code != sqlerr.Unknown || se.Msg != "Unknown format: FOO" {
		t.Fatalf("ParseFormat(FOO) = %v", err)
	}
}

func TestParseDelimiter(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want rune
		code sqlerr.Code // "" means success
	}{
		{",", ',', ""},
		{"|", '|', ""},
		{"$", '$', ""},
		{"§", '§', ""},
		{"TAB", '\t', ""},
		{"tab", '\t', ""},
		{"SPACE", ' ', ""},
		{"", 0, sqlerr.Semantic},
		{" ", 0, sqlerr.Semantic},
		{"\t", 0, sqlerr.Semantic},
		{"<~>", 0, sqlerr.Semantic},
		{`"`, 0, sqlerr.Semantic},
	} {
		got, err := ParseDelimiter("VALUE_DELIMITER", tc.in)
		var se *sqlerr.Error
		switch {
		case tc.code == "" && (err != nil || got != tc.want):
			t.Errorf("ParseDelimiter(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		case tc.code != "" && (!errors.As(err, &se) || se.Code != tc.code):
			t.Errorf("ParseDelimiter(%q) = %q, %v; want a %s error", tc.in, got, err, tc.code)
		}
	}
}

func TestParseSpec(t *testing.T) {
	pipe, wrapTrue := "|", true
	s, err := ParseSpec("delimited", &pipe, "KEY_DELIMITER", nil)
	if err != nil || s.Name != Delimited || s.Delimiter != '|' || s.WrapSingle != nil {
		t.Fatalf("ParseSpec = %+v, %v", s, err)
	}
	for _, tc := range []struct {
		name  string
		delim *string
		wrap  *bool
		want  string
	}{
		{"json", &pipe, nil, "JSON does not support the following configs: [delimiter]"},
		{"kafka", nil, &wrapTrue, "Format 'KAFKA' does not support 'WRAP_SINGLE_VALUE' set to 'true'."},
		{"avro2", nil, nil, "Unknown format: avro2"},
		{"json_sr", &pipe, nil, "JSON_SR does not support the following configs: [delimiter]"},
	} {
		if _, err := ParseSpec(tc.name, tc.delim, "VALUE_DELIMITER", tc.wrap); err == nil || err.Error() != tc.want {
			t.Errorf("ParseSpec(%s) = %v, want %q", tc.name, err, tc.want)
		}
	}
}
