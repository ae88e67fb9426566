package exec

import (
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// fetched is a fetch of partition p of topic with records at the given
// millisecond timestamps (offsets from first) and end offset end.
func fetched(topic string, first, end int64, ts ...int64) kgo.FetchTopicPartition {
	p := kgo.FetchTopicPartition{Topic: topic}
	p.HighWatermark, p.LastStableOffset = end, end
	for i, t := range ts {
		p.Records = append(p.Records, &kgo.Record{Topic: topic, Offset: first + int64(i), Timestamp: time.UnixMilli(t)})
	}
	return p
}

// drain releases what the group gives at now, as "topic@ts" strings.
func drain(g *partitionGroup, now time.Time) []string {
	var out []string
	for r := g.next(now); r != nil; r = g.next(now) {
		out = append(out, r.Topic+"@"+r.Timestamp.UTC().Format("05.000"))
	}
	return out
}

func twoInputs(idle time.Duration) *partitionGroup {
	return newPartitionGroup(idle, []tp{{"table", 0}, {"stream", 0}})
}

func TestPartitionGroupOrdersByTimestamp(t *testing.T) {
	g := twoInputs(0)
	g.add(fetched("stream", 0, 3, 1000, 3000, 5000))
	g.add(fetched("table", 0, 3, 500, 2000, 4000))
	want := []string{"table@00.500", "stream@01.000", "table@02.000", "stream@03.000", "table@04.000", "stream@05.000"}
	assertReleased(t, drain(g, time.Now()), want)
	if g.enforced != 1 {
		t.Errorf("enforced = %d, want 1 (only the last record, with the table caught up and empty)", g.enforced)
	}
}

func TestPartitionGroupTiesGoToTheFirstTopic(t *testing.T) {
	g := twoInputs(0)
	g.add(fetched("stream", 0, 1, 1000))
	g.add(fetched("table", 0, 1, 1000))
	assertReleased(t, drain(g, time.Now()), []string{"table@01.000", "stream@01.000"})
}

func TestPartitionGroupWaitsForUnfetchedData(t *testing.T) {
	g := twoInputs(0)
	now := time.Now()
	g.add(fetched("stream", 0, 2, 1000, 2000))
	if got := drain(g, now); len(got) != 0 {
		t.Fatalf("released %v before the table partition was fetched", got)
	}
	// The table's records arrive: all in time order.
	g.add(fetched("table", 0, 1, 1500))
	assertReleased(t, drain(g, now), []string{"stream@01.000", "table@01.500", "stream@02.000"})
}

func TestPartitionGroupLaggingPartitionHolds(t *testing.T) {
	g := twoInputs(0)
	now := time.Now()
	g.add(fetched("table", 0, 10, 100)) // 9 more records on the broker
	g.add(fetched("stream", 0, 1, 1000))
	assertReleased(t, drain(g, now), []string{"table@00.100"})
	if got := drain(g, now.Add(unknownLagWait/2)); len(got) != 0 {
		t.Fatalf("released %v while the table lags", got)
	}
	// A table that never delivers its lag holds back only so long.
	assertReleased(t, drain(g, now.Add(unknownLagWait)), []string{"stream@01.000"})
}

func TestPartitionGroupCaughtUpPartitionDoesNotHold(t *testing.T) {
	g := twoInputs(0)
	g.add(kgo.FetchTopicPartition{Topic: "table"}) // fetched, nothing there
	g.add(fetched("stream", 0, 2, 1000, 2000))
	assertReleased(t, drain(g, time.Now()), []string{"stream@01.000", "stream@02.000"})
}

func TestPartitionGroupIdleWait(t *testing.T) {
	idle := 200 * time.Millisecond
	g := twoInputs(idle)
	now := time.Now()
	g.add(kgo.FetchTopicPartition{Topic: "table"})
	g.add(fetched("stream", 0, 1, 1000))
	if got := drain(g, now); len(got) != 0 {
		t.Fatalf("released %v before max.task.idle.ms", got)
	}
	if at := g.wakeAt(); !at.Equal(now.Add(idle)) {
		t.Errorf("wakeAt = %v, want now+%v", at.Sub(now), idle)
	}
	// A table record arriving during the wait goes first; the emptied
	// table then holds the stream back for a new wait.
	g.add(fetched("table", 0, 1, 900))
	assertReleased(t, drain(g, now.Add(idle/2)), []string{"table@00.900"})
	assertReleased(t, drain(g, now.Add(idle/2+idle-time.Millisecond)), nil)
	assertReleased(t, drain(g, now.Add(idle/2+idle)), []string{"stream@01.000"})
}

func TestPartitionGroupNeverWaits(t *testing.T) {
	g := twoInputs(-1)
	g.add(fetched("stream", 0, 1, 1000))
	assertReleased(t, drain(g, time.Now()), []string{"stream@01.000"})
}

func TestPartitionGroupUnreadRewinds(t *testing.T) {
	g := twoInputs(0)
	g.add(fetched("stream", 7, 9, 1000, 2000))
	if got := drain(g, time.Now()); len(got) != 0 {
		t.Fatalf("released %v", got)
	}
	offs := g.unread()
	if o := offs["stream"][0].Offset; o != 7 || len(offs) != 1 {
		t.Errorf("unread = %v, want stream/0 at 7", offs)
	}
	if g.buffered() {
		t.Error("the queues still hold records after unread")
	}
}

func assertReleased(t *testing.T, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("released %v, want %v", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("released %v, want %v", got, want)
		}
	}
}

// controlRecord is a transaction's commit marker at offset off of
// topic's partition 0 (the runners' clients keep them).
func controlRecord(topic string, off int64) *kgo.Record {
	return &kgo.Record{Topic: topic, Offset: off, Attrs: kgo.NewRecordAttrs(kgo.RecordAttrsOpts{Transactional: true, Control: true})}
}

// TestPartitionGroupStepsOverMarkers: transaction markers are never
// released to the task; a fetch of markers alone, with nothing waiting,
// moves the partition's processed offset past them (the task's position
// reaches the topic's end), and the group counts as caught up there; a
// marker at the end of a fetch is no lag (no idle wait for it).
func TestPartitionGroupStepsOverMarkers(t *testing.T) {
	g := twoInputs(-1)
	p := fetched("stream", 0, 2, 1000)
	p.Records = append(p.Records, controlRecord("stream", 1))
	g.add(p)
	if q := g.queue(tp{"stream", 0}); q.lag != 0 {
		t.Errorf("lag %d after a record and its marker at the end, want 0", q.lag)
	}
	got := drain(g, time.Now())
	assertReleased(t, got, []string{"stream@01.000"})
	only := fetched("stream", 2, 3)
	only.Records = append(only.Records, controlRecord("stream", 2))
	g.add(only)
	if !g.stepped() || g.buffered() {
		t.Fatalf("a fetch of one marker: stepped %v, buffered %v; want stepped over, nothing queued", g.stepped(), g.buffered())
	}
	var done []int64
	g.takeDone(func(_ tp, next int64) { done = append(done, next) })
	if len(done) != 1 || done[0] != 3 {
		t.Errorf("processed offsets %v after the marker at 2, want [3]", done)
	}
	if q := g.queue(tp{"stream", 0}); q.lag != 0 {
		t.Errorf("lag %d after the markers, want 0", q.lag)
	}
}
