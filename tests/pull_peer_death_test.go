package tests

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// scanAnswer is one pull scan's HTTP answer: its status, its rows and
// the error element that ended it, if any.
type scanAnswer struct {
	status   int
	rows     [][]any
	trailing string
	body     string
}

// scanWithStatus runs a pull scan with standby reads on and keeps what
// pullRowsWith folds into one error apart: a non-200 status (a clean
// error answer) versus a 200 whose rows end in an error element.
func scanWithStatus(n *node, sql string) (scanAnswer, error) {
	ctx, cancel := context.WithTimeout(context.Background(), clientTimeout)
	defer cancel()
	body := map[string]any{"sql": sql, "properties": standbyReads} // caught-up standbys only
	resp, err := httpClient().Do(n.newRequest(ctx, "/query-stream", "application/vnd.ksqlapi.delimited.v1", body))
	if err != nil {
		return scanAnswer{}, err
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	_, _ = buf.ReadFrom(resp.Body)
	a := scanAnswer{status: resp.StatusCode, body: buf.String()}
	if a.status != http.StatusOK {
		return a, nil
	}
	sc := bufio.NewScanner(&buf)
	for i := 0; sc.Scan(); i++ {
		line := bytes.TrimSpace(sc.Bytes())
		switch {
		case i == 0 || len(line) == 0:
		case line[0] == '{':
			a.trailing = string(line)
		default:
			var row []any
			if err := json.Unmarshal(line, &row); err != nil {
				return a, err
			}
			a.rows = append(a.rows, row)
		}
	}
	return a, nil
}

// TestPullScanAfterPeerDies (issue 16, point 15): two servers, one
// standby per task, caught up; right after one is SIGKILLed (its
// heartbeats not yet timed out, so the survivor still takes it for
// alive) pull scans on the survivor with standby reads on (caught-up
// standbys only) go to the standbys when the dead active does not
// answer: every scan holds the whole table, or fails with an error
// status; none answers 200 with part of the table, with or without an
// error element at the end.
func TestPullScanAfterPeerDies(t *testing.T) {
	r := startHARun(t, 2, 1)
	want := map[string]int{}
	var recs []*kgo.Record
	for i := range haKeys {
		k := fmt.Sprintf("k%03d", i)
		want[k] = 1
		recs = append(recs, &kgo.Record{Topic: "ev", Key: []byte(k), Value: []byte(`{"V":0}`)})
	}
	if err := kafkaClient(t, r.br.Kafka).ProduceSync(timeoutCtx(t), recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	survivor, victim := r.servers[0], r.servers[1]
	eventuallyWithin(t, "the survivor's standbys caught up", 90*time.Second, func() error {
		return standbysCaughtUp(survivor, victim)
	})
	victim.kill()
	killed := time.Now()
	whole, refused, whileAlive := 0, 0, 0
	for until := time.Now().Add(6 * time.Second); time.Now().Before(until); {
		believedAlive := hostAliveOn(t, survivor, victim)
		a, err := scanWithStatus(survivor, "SELECT * FROM COUNTS;")
		if err != nil {
			t.Fatalf("scan %s after the kill: %v", sinceKill(killed), err)
		}
		got, cerr := asCounts(a.rows)
		switch {
		case a.status != http.StatusOK:
			refused++
		case a.trailing != "" || cerr != nil || len(got) != len(want):
			t.Fatalf("scan %s after the kill answered 200 with %d of %d keys, then %q (%v)\nsurvivor's pull log:\n%s", sinceKill(killed), len(got), len(want), a.trailing, cerr,
				grepLines(survivor.Logs(), "pull"))
		default:
			whole++
			if believedAlive {
				whileAlive++
			}
		}
	}
	t.Logf("after the kill: %d scans whole (%d while the dead server was still taken for alive), %d refused with an error status", whole, whileAlive, refused)
	if whole == 0 {
		t.Fatal("no scan held the whole table from the standbys after the kill")
	}
	survivor.mustKsql("SHOW QUERIES;")
}

// standbysCaughtUp checks that n holds a standby of every partition of
// the count other runs, each caught up (lag 0) and not empty.
func standbysCaughtUp(n, other *node) error {
	cs, err := getStandbyStatus(n)
	if err != nil {
		return err
	}
	mine, theirs := cs.ClusterStatus[hostOf(n)], cs.ClusterStatus[hostOf(other)]
	for id, q := range mine.ActiveStandbyPerQuery {
		if !strings.HasPrefix(id, "CTAS_COUNTS_") {
			continue
		}
		if got, want := len(q.StandByPartitions), len(theirs.ActiveStandbyPerQuery[id].ActivePartitions); got == 0 || got != want {
			return fmt.Errorf("%s holds %d standby partitions, %s runs %d", n.URL, got, other.URL, want)
		}
		for _, p := range q.StandByPartitions {
			lag, ok := mine.HostStoreLags.StateStoreLags[id].LagByPartition[fmt.Sprintf("%s/%d", countsStore, p.Partition)]
			if !ok || lag.OffsetLag != 0 || lag.EndOffsetPosition <= 0 {
				return fmt.Errorf("%s standby %v: lag %+v (reported %v)", n.URL, p, lag, ok)
			}
		}
		return nil
	}
	return fmt.Errorf("%s runs no count", n.URL)
}

// hostAliveOn reports whether n's /clusterStatus still lists other as
// alive.
func hostAliveOn(t *testing.T, n, other *node) bool {
	cs, err := getStandbyStatus(n)
	if err != nil {
		t.Fatal(err)
	}
	return cs.ClusterStatus[hostOf(other)].HostAlive
}
