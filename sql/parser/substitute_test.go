package parser

import (
	"errors"
	"testing"

	"github.com/sqlstream/sqlstream/sql/sqlerr"
)

func TestSubstitute(t *testing.T) {
	vars := map[string]string{
		"env": "qa", "ID": "_id_", "quoted": "`_id_`", "topic": "'name1'", "num": "3",
		"neg": "-1.5", "inject": "s1 WHERE id = 1", "escape": "'t1', value_format='AVRO'", "q": "it's",
	}
	tests := []struct {
		in, want string
		code     sqlerr.Code
	}{
		{in: "SELECT 1", want: "SELECT 1"},
		{in: "DEFINE t = 'topic_${env}';", want: "DEFINE t = 'topic_qa';"},
		{in: "DEFINE t = 'topic_$${env}';", want: "DEFINE t = 'topic_${env}';"},
		{in: "DEFINE t = 'topic_$${${env}}';", want: "DEFINE t = 'topic_${qa}';"},
		{in: "DESCRIBE ${id};", want: "DESCRIBE _id_;"},
		{in: "DESCRIBE ${quoted} EXTENDED;", want: "DESCRIBE `_id_` EXTENDED;"},
		{in: "CREATE STREAM s WITH (kafka_topic=${topic}, replicas=${num}, x=${neg});", want: "CREATE STREAM s WITH (kafka_topic='name1', replicas=3, x=-1.5);"},
		{in: "CREATE STREAM s1 WITH (kafka_topic=${escape});", want: "CREATE STREAM s1 WITH (kafka_topic='t1'', value_format=''AVRO');"},
		{in: "SELECT '${q}' FROM s", want: "SELECT 'it''s' FROM s"},
		{in: "SELECT 1 -- ${nope}\nFROM s", want: "SELECT 1 -- ${nope}\nFROM s"},
		{in: "SELECT * FROM ${inject};", code: sqlerr.Syntax},
		{in: "SELECT ${missing}", code: sqlerr.Unknown},
		{in: "SELECT ${env", code: sqlerr.Syntax},
	}
	for _, tt := range tests {
		got, err := Substitute(tt.in, vars)
		var se *sqlerr.Error
		switch {
		case tt.code != "" && (!errors.As(err, &se) || se.Code != tt.code):
			t.Errorf("Substitute(%q) = %q, %v; want error %s", tt.in, got, err, tt.code)
		case tt.code == "" && (err != nil || got != tt.want):
			t.Errorf("Substitute(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}
