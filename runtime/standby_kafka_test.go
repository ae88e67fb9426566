package runtime_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sqlstream/sqlstream/runtime"
	"github.com/twmb/franz-go/pkg/kgo"
)

// roles renders one engine's tasks of its only query: "0_0:ACTIVE:RUNNING
// 0_1:STANDBY:lag=0 …"; ok is false while a replica's lag is unknown or
// above zero.
func roles(e *runtime.Engine) (string, bool) {
	caughtUp := true
	var parts []string
	for _, q := range e.TaskAssignments() {
		for _, ta := range q.Tasks {
			s := ta.Task + ":" + string(ta.Role)
			if ta.Role == runtime.RoleActive {
				s += ":" + ta.State
			}
			for _, l := range ta.Stores {
				if ta.Role != runtime.RoleActive && l.Lag != 0 {
					caughtUp = false
				}
			}
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, " "), caughtUp
}

// standbyPositions sums each replica's changelog position per task.
func standbyPositions(e *runtime.Engine) map[string]int64 {
	out := map[string]int64{}
	for _, q := range e.TaskAssignments() {
		for _, ta := range q.Tasks {
			for _, l := range ta.Stores {
				if ta.Role == runtime.RoleStandby {
					out[ta.Task] += l.Position
				}
			}
		}
	}
	return out
}

// With num.standby.replicas=1 each server keeps a warm copy of the other's
// tasks (never of its own), caught up from the changelog; when one server
// stops, the other takes its tasks over restoring only what its copies
// missed, and the counts go on exactly.
func TestStandbyReplicasTakeOver(t *testing.T) {
	t.Parallel()
	p := newPair(t)
	execOn(t, p.a, "CREATE STREAM S (K STRING KEY, V INT) WITH (KAFKA_TOPIC='s', PARTITIONS=4, VALUE_FORMAT='JSON');", nil)
	execOn(t, p.a, `SET 'num.standby.replicas'='1'; SET 'auto.offset.reset'='earliest';
	  CREATE TABLE C WITH (KAFKA_TOPIC='c') AS SELECT K, COUNT(*) AS N FROM S GROUP BY K;`, nil)
	want := map[string]int{}
	produceCounts := func(n int) {
		for i := 0; i < n; i++ {
			k := fmt.Sprintf("k%02d", i%40)
			want[k]++
			p.produce("s", k, fmt.Sprintf(`{"V":%d}`, i))
		}
	}
	produceCounts(400)
	var ra, rb string
	eventually(t, "two actives and two caught-up standbys on each server", func() bool {
		var okA, okB bool
		ra, okA = roles(p.a)
		rb, okB = roles(p.b)
		return okA && okB && strings.Count(ra, ":ACTIVE:RUNNING") == 2 && strings.Count(ra, ":STANDBY") == 2 &&
			strings.Count(rb, ":ACTIVE:RUNNING") == 2 && strings.Count(rb, ":STANDBY") == 2
	})
	for _, task := range strings.Fields(ra) {
		name, role, _ := strings.Cut(task, ":")
		if strings.Contains(rb, name+":"+strings.Split(role, ":")[0]) {
			t.Fatalf("both servers hold task %s as %s: A %s, B %s", name, role, ra, rb)
		}
	}
	before := standbyPositions(p.a)
	if len(before) != 2 {
		t.Fatalf("A's standby positions: %v", before)
	}
	p.bClosed = true
	if err := p.b.Close(); err != nil {
		t.Fatal(err)
	}
	eventually(t, "A runs all four tasks", func() bool {
		r, _ := roles(p.a)
		return strings.Count(r, ":ACTIVE:RUNNING") == 4
	})
	for _, h := range p.a.ClusterStatus().ClusterStatus {
		for _, lags := range h.HostStoreLags.StateStoreLags {
			for task, pos := range before {
				_, part, _ := strings.Cut(task, "_")
				l := lags.LagByPartition["Aggregate-Aggregate-Materialize/"+part]
				if l.CurrentOffsetPosition >= pos {
					t.Errorf("task %s: restored %d records, its standby had %d already", task, l.CurrentOffsetPosition, pos)
				}
			}
		}
	}
	produceCounts(200)
	eventually(t, "the counts of both runs", func() bool { return fmt.Sprint(p.latestCounts("c")) == fmt.Sprint(want) })
}

// latestCounts reads topic to its end and returns each key's last count.
func (p *pair) latestCounts(topic string) map[string]int {
	out := map[string]int{}
	cl, err := kgo.NewClient(kgo.SeedBrokers(p.rig.b.Addrs()...), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		p.t.Fatal(err)
	}
	defer cl.Close()
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		fs := cl.PollFetches(ctx)
		cancel()
		if fs.NumRecords() == 0 {
			return out
		}
		fs.EachRecord(func(rec *kgo.Record) {
			var v struct{ N int }
			if json.Unmarshal(rec.Value, &v) == nil {
				out[string(rec.Key)] = v.N
			}
		})
	}
}
