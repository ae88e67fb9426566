package tests

import (
	"fmt"
	"strings"
	"testing"
)

// TestLessonWindowsThroughTheBinary runs the reference lesson through the
// binary: WINDOW TUMBLING (SIZE 5 MINUTES, GRACE PERIOD 2 MINUTES),
// COUNT per window, records arriving out of order. Windows [0,5)=4,
// [5,10)=2, [10,15)=1; minutes 2 and 8 are dropped as late and counted.
func TestLessonWindowsThroughTheBinary(t *testing.T) {
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
		if !strings.Contains(fmt.Sprint(v), "dropped-records (late): 2") {
			return fmt.Errorf("DESCRIBE EXTENDED: %v", v)
		}
		return nil
	})
}
