package tests

import (
	"fmt"
	"strings"
	"testing"
)

// TestChainedSubscriptsRefused is issue 16.5 through the binary: 200,000
// chained subscripts (a 600 kB request) are refused within the request
// as nested too deeply, a flat chain of 501 additions runs, and the
// server keeps answering.
func TestChainedSubscriptsRefused(t *testing.T) {
	n := startNode(t)
	n.mustKsql(`CREATE STREAM cs (id VARCHAR KEY, n INT)
	  WITH (KAFKA_TOPIC='cs', VALUE_FORMAT='JSON', PARTITIONS=1);`)
	status, body := n.ksql("CREATE STREAM sub AS SELECT 1"+strings.Repeat("[1]", 200_000)+" AS x FROM cs;", nil)
	if status != 400 || !strings.Contains(fmt.Sprint(body), "expression nested too deeply: more than 500 levels") {
		t.Fatalf("200000 subscripts: %d %.300v", status, body)
	}
	n.mustKsql("SHOW STREAMS;")
	n.mustKsql("CREATE STREAM sums AS SELECT id, n" + strings.Repeat(" + 1", 501) + " AS x FROM cs;")
	produce(t, n.Kafka, "cs", "k", `{"N":1}`)
	if out := consume(t, n.Kafka, "SUMS", 1); !strings.Contains(out[0], `{"X":502}`) {
		t.Errorf("SUMS: %v", out)
	}
}
