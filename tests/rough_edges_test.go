package tests

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestBytesAndDropThroughTheBinary: a string INSERTed into a BYTES column
// is decoded as base64, as ksqlDB does, over /ksql and /inserts-stream
// alike; one that is not base64 is a 400 naming the column and the bad
// character, and rows after it still flow. DROP of a source that a CREATE
// … AS SELECT reads gives ksqlDB's message, listing the reader; once the
// reader is dropped the source is dropped too.
func TestBytesAndDropThroughTheBinary(t *testing.T) {
	t.Parallel()
	n := startNode(t)
	n.mustKsql(`CREATE STREAM blobs (id INT KEY, b BYTES) WITH (kafka_topic='blobs', value_format='JSON', partitions=1);
CREATE STREAM copies AS SELECT id, b, LEN(b) AS len FROM blobs;`)
	n.mustKsql(`INSERT INTO blobs (id, b) VALUES (1, 'IQ==');`)

	status, v := n.ksql(`INSERT INTO blobs (id, b) VALUES (2, 'IQ!=');`, nil)
	msg := fmt.Sprint(v)
	if status != http.StatusBadRequest || !strings.Contains(msg, "Expected type BYTES for field B but got IQ!=(STRING)") || !strings.Contains(msg, "character 3") || !strings.Contains(msg, "line 1:38:") {
		t.Fatalf("INSERT of a string that is not base64: %d %s", status, msg)
	}

	body := "{\"target\":\"blobs\"}\n{\"ID\":3,\"B\":\"YeQ=\"}\n"
	resp, err := http.Post(n.URL+"/inserts-stream", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	acks, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(acks), `"status":"ok"`) {
		t.Fatalf("/inserts-stream of a base64 BYTES value: %s", acks)
	}
	out := consume(t, n.Kafka, "COPIES", 2)
	if !strings.Contains(out[0], `{"B":"IQ==","LEN":1}`) || !strings.Contains(out[1], `{"B":"YeQ=","LEN":2}`) {
		t.Fatalf("COPIES: %q", out)
	}

	status, v = n.ksql(`DROP STREAM blobs;`, nil)
	msg = fmt.Sprint(v)
	want := "Cannot drop BLOBS.\nThe following streams and/or tables read from this source: [COPIES].\nYou need to drop them before dropping BLOBS."
	if status != http.StatusBadRequest || !strings.Contains(msg, want) {
		t.Fatalf("DROP of a source COPIES reads: %d %s", status, msg)
	}
	n.mustKsql(`DROP STREAM copies; DROP STREAM blobs;`)
}
