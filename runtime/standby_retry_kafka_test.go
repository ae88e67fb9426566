package runtime_test

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/runtime"
)

// A replica whose store fails to apply a record retries it with a
// doubling backoff instead of stopping: with the first three applies of
// B's standbys failing (injected), B's standbys still catch up, the
// retries are spaced at least 100, 200 and 400 ms apart, and DESCRIBE
// EXTENDED on B counts the three errors and shows the last.
func TestReplicaFeedRetriesAfterErrors(t *testing.T) {
	t.Parallel()
	const injected = 3
	var mu sync.Mutex
	var failedAt []time.Time
	fault := func(store string, partition int32, offset int64) error {
		mu.Lock()
		defer mu.Unlock()
		if len(failedAt) < injected {
			failedAt = append(failedAt, time.Now())
			return fmt.Errorf("injected fault %d in %s/%d at %d", len(failedAt), store, partition, offset)
		}
		return nil
	}
	r := &rig{t: t, dir: t.TempDir()}
	r.startBroker()
	p := &pair{rig: r}
	p.a = p.engine("a")
	p.b = p.engine("b", runtime.WithReplicaFault(fault))
	t.Cleanup(func() {
		p.a.Close()
		p.b.Close()
		r.b.Close()
	})
	execOn(t, p.a, "CREATE STREAM S (K STRING KEY, V INT) WITH (KAFKA_TOPIC='s', PARTITIONS=4, VALUE_FORMAT='JSON');", nil)
	execOn(t, p.a, `SET 'num.standby.replicas'='1'; SET 'auto.offset.reset'='earliest';
	  CREATE TABLE C WITH (KAFKA_TOPIC='c') AS SELECT K, COUNT(*) AS N FROM S GROUP BY K;`, nil)
	for i := 0; i < 200; i++ {
		p.produce("s", fmt.Sprintf("k%02d", i%40), fmt.Sprintf(`{"V":%d}`, i))
	}
	eventually(t, "B's two standbys caught up despite the faults", func() bool {
		rb, ok := roles(p.b)
		return ok && strings.Count(rb, ":STANDBY") == 2 && standbyPositions(p.b) != nil && sumPositions(p.b) > 0
	})
	mu.Lock()
	times := append([]time.Time(nil), failedAt...)
	mu.Unlock()
	if len(times) != injected {
		t.Fatalf("%d faults injected, want %d", len(times), injected)
	}
	for i := 1; i < len(times); i++ {
		if gap, least := times[i].Sub(times[i-1]), 100*time.Millisecond<<(i-1); gap < least {
			t.Errorf("retry %d came %v after the failure, before the backoff of %v", i, gap, least)
		}
	}
	var errStats string
	for _, ent := range execOn(t, p.b, "DESCRIBE C EXTENDED;", nil) {
		if d, ok := ent.(api.SourceDescriptionEntity); ok {
			errStats = d.SourceDescription.ErrorStats
		}
	}
	m := regexp.MustCompile(`standby-feed-errors: (\d+) \(last: (.*)\)`).FindStringSubmatch(errStats)
	if m == nil {
		t.Fatalf("DESCRIBE EXTENDED on B shows no feed errors: %q", errStats)
	}
	if n, _ := strconv.Atoi(m[1]); n < injected || !strings.HasPrefix(m[2], "injected fault 3 ") {
		t.Fatalf("DESCRIBE EXTENDED on B: %q, want %d errors, the last injected", errStats, injected)
	}
	for _, ent := range execOn(t, p.a, "DESCRIBE C EXTENDED;", nil) {
		if d, ok := ent.(api.SourceDescriptionEntity); ok && strings.Contains(d.SourceDescription.ErrorStats, "standby-feed-errors") {
			t.Fatalf("A, without faults, shows feed errors: %q", d.SourceDescription.ErrorStats)
		}
	}
}

// sumPositions adds the positions of every standby of e.
func sumPositions(e *runtime.Engine) int64 {
	var n int64
	for _, pos := range standbyPositions(e) {
		n += pos
	}
	return n
}
