package runtime_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/sqlstream/sqlstream/api"
	"github.com/twmb/franz-go/pkg/kgo"
)

// lessonFinal creates the lesson's EMIT FINAL query: tumbling windows of
// 5 minutes with 2 minutes of grace, no RETENTION (so windows are kept
// for size + grace only).
const lessonFinal = `CREATE STREAM clicks (user VARCHAR KEY, site VARCHAR, ts BIGINT)
	  WITH (KAFKA_TOPIC='clicks', VALUE_FORMAT='JSON', PARTITIONS=1, TIMESTAMP='ts');
	SET 'auto.offset.reset'='earliest';
	%s
	CREATE TABLE final_per_window AS SELECT site, COUNT(*) AS n FROM clicks
	  WINDOW TUMBLING (SIZE 5 MINUTES, GRACE PERIOD 2 MINUTES) GROUP BY site EMIT FINAL;`

// clicksAt produces one click per (event minute, user) pair in one batch.
func (r *rig) clicksAt(base int64, clicks ...any) {
	r.t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(r.b.Addrs()...))
	if err != nil {
		r.t.Fatal(err)
	}
	defer cl.Close()
	var recs []*kgo.Record
	for i := 0; i+1 < len(clicks); i += 2 {
		ts := base + int64(clicks[i].(int))*60000
		recs = append(recs, &kgo.Record{Topic: "clicks", Key: []byte(clicks[i+1].(string)),
			Value: []byte(fmt.Sprintf(`{"SITE":"s","TS":%d}`, ts))})
	}
	if err := cl.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
		r.t.Fatal(err)
	}
}

// finalWindows renders windowed records as "start-offset-minutes=value".
func finalWindows(recs []*kgo.Record, base int64) []string {
	var out []string
	for _, rec := range recs {
		start := int64(binary.BigEndian.Uint64(rec.Key[len(rec.Key)-8:]))
		out = append(out, fmt.Sprintf("%d=%s", (start-base)/60000, rec.Value))
	}
	return out
}

// TestFinalWindowsSurviveRestart stops the engine in the middle of the
// lesson, once with its local state kept and once with it lost (restored
// from the changelogs): the sink holds each final window exactly once,
// and a record for a window emitted before the restart is still late.
func TestFinalWindowsSurviveRestart(t *testing.T) {
	t.Parallel()
	for _, lose := range []bool{false, true} {
		t.Run(fmt.Sprintf("lose-state=%t", lose), func(t *testing.T) {
			r := newRig(t)
			out := r.exec(fmt.Sprintf(lessonFinal, ""))
			app := "default_query_" + *out[len(out)-1].(api.CommandStatusEntity).CommandStatus.QueryID
			r.clicksAt(0, 0, "u1", 1, "u2", 4, "u1", 6, "u3", 3, "u2", 9, "u1")
			r.consume("FINAL_PER_WINDOW", 1) // [0,5) closed at minute 9
			// Stopped once everything before is committed (at_least_once
			// redoes what a stop did not commit, counting it twice).
			r.awaitCommitted(app, "clicks")
			r.e.Close()
			r.e = nil
			if lose {
				if err := os.RemoveAll(r.dir + "/state"); err != nil {
					t.Fatal(err)
				}
			}
			r.startEngine()
			// Minute 2 is late for [0,5), emitted before the restart; minute
			// 8 is late once minute 12 closed [5,10); minute 30 closes and
			// expires [10,15) at once.
			r.clicksAt(0, 2, "u3", 12, "u2", 8, "u2", 30, "u1")
			r.consume("FINAL_PER_WINDOW", 3)
			want := `[0={"N":4} 5={"N":2} 10={"N":1}]`
			if got := finalWindows(r.consumeAll("FINAL_PER_WINDOW"), 0); fmt.Sprint(got) != want {
				t.Fatalf("final windows: %v, want %s", got, want)
			}
		})
	}
}

// TestIdleClosingEmitsExpiredWindows: with window.close.idle.ms the wall
// clock moves stream time past every window of the lesson (their event
// times are an hour old), closing and expiring them at once; each is
// emitted exactly once.
func TestIdleClosingEmitsExpiredWindows(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.exec(fmt.Sprintf(lessonFinal, "SET 'window.close.idle.ms'='1000';"))
	// An hour ago, on a 5-minute boundary so the windows are the lesson's.
	base := (time.Now().UnixMilli() - 3600000) / 300000 * 300000
	r.clicksAt(base, 0, "u1", 1, "u2", 4, "u1", 6, "u3", 3, "u2", 9, "u1", 12, "u2", 2, "u3", 8, "u2")
	r.consume("FINAL_PER_WINDOW", 3)
	want := `[0={"N":4} 5={"N":2} 10={"N":1}]`
	if got := finalWindows(r.consumeAll("FINAL_PER_WINDOW"), base); fmt.Sprint(got) != want {
		t.Fatalf("final windows: %v, want %s", got, want)
	}
}

// TestIdleClosingAfterRestart: a partition that stays quiet after a
// restart still closes its windows by the wall clock (the restored task
// counts as having just seen a record), and each is emitted once.
func TestIdleClosingAfterRestart(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.exec(fmt.Sprintf(lessonFinal, "SET 'window.close.idle.ms'='5000';"))
	base := (time.Now().UnixMilli() - 3600000) / 300000 * 300000
	r.clicksAt(base, 0, "u1", 1, "u2", 4, "u1", 6, "u3", 3, "u2", 9, "u1")
	r.consume("FINAL_PER_WINDOW", 1) // [0,5) closed by minute 9
	r.restart()                      // usually well within the idle time
	r.consume("FINAL_PER_WINDOW", 2) // [5,10) closed by the wall clock
	want := `[0={"N":4} 5={"N":2}]`
	if got := finalWindows(r.consumeAll("FINAL_PER_WINDOW"), base); fmt.Sprint(got) != want {
		t.Fatalf("final windows: %v, want %s", got, want)
	}
}

// TestFinalWindowsOpenAcrossUpgrade: windows of the lesson still open
// when CREATE OR REPLACE adds aggregates, then closed after a restart
// that lost the local state (restored from the changelogs): the window
// with no record after the upgrade emits the added aggregates' initial
// results (COUNT 0, COLLECT_LIST []), not NULL, and the window with one
// emits them counting that record, its kept count going on.
func TestFinalWindowsOpenAcrossUpgrade(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	out := r.exec(fmt.Sprintf(lessonFinal, ""))
	app := "default_query_" + *out[len(out)-1].(api.CommandStatusEntity).CommandStatus.QueryID
	r.clicksAt(0, 0, "u1", 1, "u2", 6, "u3") // [0,5) and [5,10) open at minute 6
	r.awaitCommitted(app, "clicks")
	r.exec(`CREATE OR REPLACE TABLE final_per_window AS SELECT site, COUNT(*) AS n, COUNT(user) AS users,
	  COLLECT_LIST(user) AS who FROM clicks
	  WINDOW TUMBLING (SIZE 5 MINUTES, GRACE PERIOD 2 MINUTES) GROUP BY site EMIT FINAL;`)
	r.e.Close()
	r.e = nil
	if err := os.RemoveAll(r.dir + "/state"); err != nil {
		t.Fatal(err)
	}
	r.startEngine()
	r.clicksAt(0, 8, "u1", 30, "u2") // minute 30 closes both
	r.consume("FINAL_PER_WINDOW", 2)
	want := `[0={"N":2,"USERS":0,"WHO":[]} 5={"N":2,"USERS":1,"WHO":["u1"]}]`
	if got := finalWindows(r.consumeAll("FINAL_PER_WINDOW"), 0); fmt.Sprint(got) != want {
		t.Fatalf("final windows: %v, want %s", got, want)
	}
}
