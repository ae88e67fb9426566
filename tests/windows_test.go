package tests

import (
	"context"
	bin "encoding/binary" // "binary" is the harness's binary()
	"fmt"
	"os/exec"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestLessonWindowsThroughTheBinary runs the reference lesson through the
// binary: WINDOW TUMBLING (SIZE 5 MINUTES, GRACE PERIOD 2 MINUTES),
// COUNT per window, records arriving out of order. Windows [0,5)=4,
// [5,10)=2, [10,15)=1; minutes 2 and 8 are dropped as late and counted.
func TestLessonWindowsThroughTheBinary(t *testing.T) {
	t.Parallel()
	n := startNode(t, "--config", writeConfig(t, "ksql.streams.commit.interval.ms=100\n"))
	n.mustKsql(`CREATE STREAM clicks (user VARCHAR KEY, site VARCHAR, ts BIGINT)
	  WITH (KAFKA_TOPIC='clicks', VALUE_FORMAT='JSON', PARTITIONS=1, TIMESTAMP='ts');
	CREATE TABLE per_window AS SELECT site, COUNT(*) AS n FROM clicks
	  WINDOW TUMBLING (SIZE 5 MINUTES, GRACE PERIOD 2 MINUTES) GROUP BY site EMIT CHANGES;`)
	var kvs []string
	for _, e := range []struct {
		min  int
		user string
	}{{0, "u1"}, {1, "u2"}, {4, "u1"}, {6, "u3"}, {3, "u2"}, {9, "u1"}, {12, "u2"}, {2, "u3"}, {8, "u2"}} {
		kvs = append(kvs, e.user, fmt.Sprintf(`{"SITE":"s","TS":%d}`, e.min*60000))
	}
	produce(t, n.Kafka, "clicks", kvs...)
	want := map[string]string{"0": "300000 4", "300000": "600000 2", "600000": "900000 1"}
	eventually(t, "window counts", func() error {
		got := counts(t, n, "SELECT WINDOWSTART, WINDOWEND, n FROM per_window WHERE site = 's';")
		return same(got, want)
	})
	eventually(t, "late records counted", func() error {
		_, v := n.ksql("DESCRIBE per_window EXTENDED;", nil)
		if !strings.Contains(fmt.Sprint(v), "consumer-failed-messages: 0 dropped-records (late): 2") {
			return fmt.Errorf("DESCRIBE EXTENDED: %v", v)
		}
		return nil
	})
}

// TestLessonEmitFinalThroughTheBinary runs the lesson with EMIT FINAL and
// one more record at minute 30, which closes [10,15) and expires every
// window at once: the sink topic holds exactly [0,5)=4, [5,10)=2 and
// [10,15)=1, each once, and the records at minutes 2 and 8 are late.
func TestLessonEmitFinalThroughTheBinary(t *testing.T) {
	t.Parallel()
	n := startNode(t, "--config", writeConfig(t, "ksql.streams.commit.interval.ms=100\n"))
	code, v := n.ksql(`CREATE STREAM clicks (user VARCHAR KEY, site VARCHAR, ts BIGINT)
	  WITH (KAFKA_TOPIC='clicks', VALUE_FORMAT='JSON', PARTITIONS=1, TIMESTAMP='ts');
	CREATE TABLE final_per_window AS SELECT site, COUNT(*) AS n FROM clicks
	  WINDOW TUMBLING (SIZE 5 MINUTES, GRACE PERIOD 2 MINUTES) GROUP BY site EMIT FINAL;`,
		map[string]any{"auto.offset.reset": "earliest"})
	if code != 200 {
		t.Fatalf("create: %d %v", code, v)
	}
	var kvs []string
	for _, e := range []struct {
		min  int
		user string
	}{{0, "u1"}, {1, "u2"}, {4, "u1"}, {6, "u3"}, {3, "u2"}, {9, "u1"}, {12, "u2"}, {2, "u3"}, {8, "u2"}, {30, "u1"}} {
		kvs = append(kvs, e.user, fmt.Sprintf(`{"SITE":"s","TS":%d}`, e.min*60000))
	}
	produce(t, n.Kafka, "clicks", kvs...)
	want := []string{`s@0={"N":4}`, `s@300000={"N":2}`, `s@600000={"N":1}`}
	if got := windowedRecords(t, consume(t, n.Kafka, "FINAL_PER_WINDOW", 3)); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("final windows: %v, want %v", got, want)
	}
	eventually(t, "late records counted", func() error {
		_, v := n.ksql("DESCRIBE final_per_window EXTENDED;", nil)
		if !strings.Contains(fmt.Sprint(v), "dropped-records (late): 2") {
			return fmt.Errorf("DESCRIBE EXTENDED: %v", v)
		}
		return nil
	})
	// The query has committed past every input: nothing more may follow.
	if got := windowedRecords(t, consumeAvailable(t, n.Kafka, "FINAL_PER_WINDOW")); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("sink topic holds %v, want exactly %v", got, want)
	}
}

// windowedRecords renders "key=value" records of a time-windowed topic
// (KAFKA string key, then the 8-byte window start) as "key@start=value".
func windowedRecords(t *testing.T, kvs []string) []string {
	t.Helper()
	var out []string
	for _, kv := range kvs {
		k, v, _ := strings.Cut(kv, "=")
		if len(k) < 8 {
			t.Fatalf("record %q: key too short for a windowed key", kv)
		}
		start := bin.BigEndian.Uint64([]byte(k[len(k)-8:]))
		out = append(out, fmt.Sprintf("%s@%d=%s", k[:len(k)-8], start, v))
	}
	sort.Strings(out)
	return out
}

// consumeAvailable reads topic from the beginning to its current end
// (kcat -e when installed, else franz-go until a poll stays empty).
func consumeAvailable(t *testing.T, addr, topic string) []string {
	t.Helper()
	if _, err := exec.LookPath("kcat"); err == nil {
		return kcatConsume(t, addr, topic, 1000)
	}
	cl := kafkaClient(t, addr, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	var got []string
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		fs := cl.PollFetches(ctx)
		cancel()
		n := len(got)
		fs.EachRecord(func(r *kgo.Record) { got = append(got, string(r.Key)+"="+string(r.Value)) })
		if len(got) == n {
			return got
		}
	}
}
