package parser

import "testing"

// TestMaskText: a CREATE CONNECTOR's config values but connector.class's
// become '[string]' as ksqlDB's QueryMask shows them, names and layout
// as written; other statements stay as written; a text that does not
// parse has its quoted 'key'='value' pairs masked.
func TestMaskText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`CREATE SOURCE CONNECTOR src WITH ('connector.class'='io.x.Src', 'connection.password'='s3cr''et', "tasks.max"=1, mode = 'bulk');`,
			`CREATE SOURCE CONNECTOR src WITH ('connector.class'='io.x.Src', 'connection.password'='[string]', "tasks.max"='[string]', mode = '[string]')`},
		{`CREATE SINK CONNECTOR IF NOT EXISTS k WITH ('CONNECTOR.CLASS'='io.x.Sink')`,
			`CREATE SINK CONNECTOR IF NOT EXISTS k WITH ('CONNECTOR.CLASS'='io.x.Sink')`},
		{`CREATE STREAM s (v INT) WITH (kafka_topic='s', value_format='JSON');`,
			`CREATE STREAM s (v INT) WITH (kafka_topic='s', value_format='JSON');`},
		{`CREATE SOURCE CONNECTOR c WITH ('connector.class'='io.x', 'password' = 'hunter2'`,
			`CREATE SOURCE CONNECTOR c WITH ('connector.class'='io.x', 'password'='[string]'`},
		{"SET 'a'='b';\nCREATE SOURCE CONNECTOR c WITH ('connector.class'='io.x', 'password'='p');",
			"SET 'a'='b'\nCREATE SOURCE CONNECTOR c WITH ('connector.class'='io.x', 'password'='[string]')"},
	} {
		if got := MaskText(c.in); got != c.want {
			t.Errorf("MaskText(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}
